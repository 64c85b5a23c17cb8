//! THE method table: every incoming request and notification name, in one file. `initialize`
//! and the before-initialize gate are answered on the reader's thread (`early`); every other
//! request runs on the pool through `dispatch`, one `match` whose arms call one feature function
//! each. Params become typed structs here (`parse`, failures are `-32602`). What is enabled
//! comes from `Registry::enabled`, which also decides the advertised capabilities.

use crate::features::resources::Catalog;
use crate::features::{completion, logging, prompts, resources, tasks, tools};
use crate::server::context::RequestCx;
use crate::server::lifecycle;
use crate::server::session::Session;
use crate::server::Server;
use crate::wire::jsonrpc::{Notification, Request, RequestId, RpcError};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// What the reader does with a request.
pub(crate) enum Route {
    /// Answered already (the handshake, or a request the lifecycle does not allow yet).
    Answered(Result<Value, RpcError>),
    /// Runs on the pool through `dispatch`.
    Pool,
}

/// Requests answered on the reader's thread: `initialize`, and what may come before it.
/// Spec (lifecycle): before initialization only `ping` is allowed.
pub(crate) fn early(server: &Server, session: &Session, req: &Request) -> Route {
    match req.method.as_str() {
        "initialize" => Route::Answered(lifecycle::initialize(server, session, req.params.clone())),
        _ if session.is_initialized() => Route::Pool,
        "ping" => Route::Answered(Ok(json!({}))),
        method => Route::Answered(Err(RpcError::invalid_request(format!(
            "{method} before initialize: send initialize first"
        )))),
    }
}

/// Runs one request of an initialized session, on a worker.
pub(crate) fn dispatch(cx: &RequestCx, server: &Server, method: &str, params: Value) -> Result<Value, RpcError> {
    let r = server.registry();
    let on = r.enabled(cx.version());
    let catalog = Catalog { resources: &r.resources, listers: &r.listers, templates: &r.templates };
    match method {
        "ping" => Ok(json!({})),
        "tools/list" if on.tools => tools::list(cx, &r.tools, parse(params)?),
        "tools/call" if on.tools => tools::call(cx, &r.tools, on.tasks, parse(params)?),
        "resources/list" if on.resources => resources::list(cx, catalog, parse(params)?),
        "resources/templates/list" if on.resources => resources::list_templates(cx, catalog, parse(params)?),
        "resources/read" if on.resources => resources::read(cx, catalog, parse(params)?),
        "resources/subscribe" if on.resources => resources::subscribe(cx, catalog, parse(params)?),
        "resources/unsubscribe" if on.resources => resources::unsubscribe(cx, parse(params)?),
        "prompts/list" if on.prompts => prompts::list(cx, &r.prompts, parse(params)?),
        "prompts/get" if on.prompts => prompts::get(cx, &r.prompts, parse(params)?),
        "completion/complete" if on.completions => completion::complete(cx, &r.prompts, &r.templates, parse(params)?),
        "logging/setLevel" => logging::set_level(cx, parse(params)?),
        "tasks/get" if on.tasks => tasks::get(cx, parse(params)?),
        "tasks/result" if on.tasks => tasks::result(cx, parse(params)?),
        "tasks/list" if on.tasks => tasks::list(cx, parse(params)?),
        "tasks/cancel" if on.tasks => tasks::cancel(cx, parse(params)?),
        _ => Err(RpcError::method_not_found(method)),
    }
}

/// Every incoming notification. Spec (JSON-RPC): a notification is never answered.
pub(crate) fn on_notification(session: &Session, n: Notification) {
    match n.method.as_str() {
        "notifications/initialized" => log::debug!("client initialized"),
        "notifications/cancelled" => match n.params.get("requestId").and_then(RequestId::from_value) {
            Some(id) => {
                if !session.cancel(&id) {
                    log::debug!("cancellation of unknown or finished request {id} ignored");
                }
            }
            None => log::warn!("notifications/cancelled without a valid requestId"),
        },
        "notifications/roots/list_changed" => log::debug!("client roots changed"),
        other => log::debug!("notification {other} ignored"),
    }
}

/// The one place params become a typed struct.
fn parse<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(format!("invalid params: {e}")))
}
