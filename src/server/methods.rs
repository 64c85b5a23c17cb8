//! THE method table: every incoming request and notification name, in one file, for both eras.
//! `initialize` and the before-initialize gate (`early`), and the methods 2026-07-28 removed
//! and `subscriptions/listen` (`early_per_request`), are answered on the reader's thread; every
//! other request runs on the pool through `answer` and `dispatch`, one `match` whose arms call one feature function
//! each. Params become typed structs here (`parse`, failures are `-32602`). What is enabled
//! comes from `Registry::enabled`, which also decides the advertised capabilities.

use crate::features::resources::Catalog;
use crate::features::{completion, input_required, logging, prompts, resources, tasks, tasks_ext, tools};
use crate::server::context::RequestCx;
use crate::server::lifecycle;
use crate::server::listen::{Filter, Grant};
use crate::server::session::Session;
use crate::server::Server;
use crate::wire::frame::Reply;
use crate::wire::jsonrpc::{Notification, Request};
use crate::wire::meta;
use crate::wire::rpc::{RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::time::SystemTime;

/// What the reader does with a request.
pub(crate) enum Route {
    /// Answered already (the handshake, or a request the lifecycle does not allow yet).
    Answered(Result<Value, RpcError>),
    /// Runs on the pool through `answer`.
    Pool,
    /// Opens a `subscriptions/listen` stream with this honoured filter and place under the
    /// server-wide cap (2026-07-28).
    Listen(Grant),
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

/// Requests of the per-request era (2026-07-28) answered on the reader's thread: the methods
/// that revision removed (contract §2.1: `-32601`), and `subscriptions/listen`, which opens a
/// stream instead of holding a worker.
pub(crate) fn early_per_request(server: &Server, req: &Request) -> Route {
    match req.method.as_str() {
        "initialize"
        | "ping"
        | "logging/setLevel"
        | "resources/subscribe"
        | "resources/unsubscribe"
        | "tasks/result"
        | "tasks/list" => Route::Answered(Err(RpcError::method_not_found(&req.method))),
        "subscriptions/listen" => {
            let slot = |filter| server.listen_slots().take(server.options().max_listen_streams).map(|s| (filter, s));
            match listen_filter(server, &req.params).and_then(slot) {
                Ok((filter, slot)) => Route::Listen(Grant::new(filter, slot)),
                Err(e) => Route::Answered(Err(e)),
            }
        }
        _ => Route::Pool,
    }
}

/// The filter a listen stream honours: what it asked for, among what the server offers.
fn listen_filter(server: &Server, params: &Value) -> Result<Filter, RpcError> {
    let asked = match params.get("notifications") {
        Some(Value::Object(asked)) => asked,
        _ => return Err(RpcError::invalid_params("subscriptions/listen: notifications must be an object (a filter)")),
    };
    let on = server.registry().enabled(ProtocolVersion::V2026_07_28);
    let flag = |key: &str| asked.get(key).and_then(Value::as_bool).unwrap_or(false);
    let uris = match asked.get("resourceSubscriptions") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(uris)) if uris.len() <= MAX_LISTEN_URIS => {
            uris.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "subscriptions/listen: resourceSubscriptions must be an array of at most {MAX_LISTEN_URIS} URIs"
            )))
        }
    };
    let task_ids = match asked.get("taskIds") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(ids)) if ids.len() <= MAX_LISTEN_URIS => {
            ids.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "subscriptions/listen: taskIds must be an array of at most {MAX_LISTEN_URIS} task ids"
            )))
        }
    };
    // SEP-2663: task notifications asked for without the extension are -32021.
    if !task_ids.is_empty() && !tasks_ext::declared_in(params) {
        return Err(tasks_ext::missing());
    }
    Ok(Filter {
        tools_list_changed: on.tools && flag("toolsListChanged"),
        prompts_list_changed: on.prompts && flag("promptsListChanged"),
        resources_list_changed: on.resources && flag("resourcesListChanged"),
        resource_subscriptions: if on.resources { uris } else { Vec::new() },
        task_ids,
    })
}

/// Resource URIs (and task ids) one listen stream may name.
const MAX_LISTEN_URIS: usize = 1024;

/// Runs one request on a worker. Up to 2025-11-25 that is `dispatch`. On 2026-07-28 the
/// removed methods never get here; `server/discover` answers; `tools/call`, `prompts/get` and
/// `resources/read` read the client's answers from the request and may end in an
/// `InputRequiredResult`; and every result is decorated (`resultType`, server info, cache hints).
pub(crate) fn answer(cx: &mut RequestCx, server: &Server, method: &str, params: Value) -> Result<Reply, RpcError> {
    if cx.version().is_stateful() {
        return dispatch(cx, server, method, params);
    }
    let outcome = if method == "server/discover" {
        Ok(Reply::Value(discover(server, cx.version())))
    } else if input_required::applies_to(method) {
        let key = server.sealing_key();
        let now = SystemTime::now();
        cx.inputs = Some(input_required::begin(key, method, &params, now)?);
        // What the state is bound to, kept before params move into the handler.
        let origin = input_required::origin_of(method, &params);
        let outcome = dispatch(cx, server, method, params);
        input_required::finish(cx, key, method, &origin, outcome, now)
    } else {
        dispatch(cx, server, method, params)
    };
    decorate(server, method, outcome?)
}

/// `server/discover` (2026-07-28): the per-request revisions, the capabilities the method
/// table answers (from the same `enabled`), and the instructions.
fn discover(server: &Server, version: ProtocolVersion) -> Value {
    let mut result = json!({
        "supportedVersions": meta::supported_versions(),
        "capabilities": server.capabilities(version),
        "ttlMs": 0,
        "cacheScope": "private",
    });
    if let Some(instructions) = server.instructions() {
        result["instructions"] = instructions.into();
    }
    result
}

/// `_meta` key of the server's identity on every 2026-07-28 result.
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Every 2026-07-28 result: `resultType` (`complete` unless the handler's round needs input),
/// the server's identity in `_meta`, and cache hints on the lists and `resources/read`. A
/// result that came as JSON text with neither member (a tool's) gets them written in front.
fn decorate(server: &Server, method: &str, result: Reply) -> Result<Reply, RpcError> {
    let hint = cache_hint(server, method);
    let result = match result {
        Reply::Json(text) if hint.is_none() => match decorate_text(server, text) {
            Ok(decorated) => return Ok(Reply::Json(decorated)),
            Err(text) => Reply::Json(text),
        },
        other => other,
    };
    let Value::Object(mut map) = result.into_value()? else { return Ok(Reply::Value(Value::Null)) };
    map.entry("resultType").or_insert_with(|| "complete".into());
    if let Value::Object(meta) = map.entry("_meta").or_insert_with(|| json!({})) {
        meta.insert(SERVER_INFO.into(), server.info(ProtocolVersion::V2026_07_28));
    }
    if let (Some(hint), Some("complete")) = (hint, map.get("resultType").and_then(Value::as_str)) {
        // A registration's own hint (`Server::set_read_cache`) is on the result already.
        hint.apply(&mut map);
    }
    Ok(Reply::Value(Value::Object(map)))
}

/// `decorate` on a result's JSON text: `resultType` and `_meta` written in front, when the
/// object surely has neither (else the text comes back, for the `Value` path).
fn decorate_text(server: &Server, mut text: String) -> Result<String, String> {
    if !text.starts_with('{') || text.contains("\"_meta\"") || text.contains("\"resultType\"") {
        return Err(text);
    }
    let info = server.info_json(ProtocolVersion::V2026_07_28);
    let separator = if text.starts_with("{}") { "" } else { "," };
    let head = [r#"{"_meta":{""#, SERVER_INFO, r#"":"#, &info, r#"},"resultType":"complete""#, separator];
    // Room for the response frame too, which goes around this text in place.
    let mut decorated = String::with_capacity(text.len() + head.iter().map(|h| h.len()).sum::<usize>() + 64);
    head.iter().for_each(|h| decorated.push_str(h));
    decorated.push_str(&text[1..]);
    text.clear();
    Ok(decorated)
}

/// The cache hint a 2026-07-28 result of `method` carries, if any.
fn cache_hint(server: &Server, method: &str) -> Option<crate::features::cache::CacheHint> {
    match method {
        "tools/list"
        | "prompts/list"
        | "resources/list"
        | "resources/templates/list"
        | "skills/list"
        | "skills/get" => Some(server.options().list_cache),
        // What a resource holds may depend on who reads it.
        "resources/read" => Some(server.options().read_cache),
        _ => None,
    }
}

/// Runs one request of an initialized session, on a worker.
pub(crate) fn dispatch(cx: &RequestCx, server: &Server, method: &str, params: Value) -> Result<Reply, RpcError> {
    let r = server.registry();
    let on = r.enabled(cx.version());
    let catalog = Catalog { resources: &r.resources, listers: &r.listers, templates: &r.templates };
    let value = match method {
        "ping" => Ok(json!({})),
        "tools/list" if on.tools => tools::list(cx, &r.tools, parse(params)?),
        // Its result may come as JSON text already (`Reply::Json`).
        "tools/call" if on.tools => return tools::call(cx, &r.tools, on.tasks, server.ext_tasks(), parse(params)?),
        "resources/list" if on.resources => resources::list(cx, catalog, parse(params)?),
        "resources/templates/list" if on.resources => resources::list_templates(cx, catalog, parse(params)?),
        "resources/read" if on.resources => resources::read(cx, catalog, parse(params)?),
        "resources/subscribe" if on.resources => resources::subscribe(cx, catalog, parse(params)?),
        "resources/unsubscribe" if on.resources => resources::unsubscribe(cx, parse(params)?),
        "prompts/list" if on.prompts => prompts::list(cx, &r.prompts, parse(params)?),
        "prompts/get" if on.prompts => prompts::get(cx, &r.prompts, parse(params)?),
        "completion/complete" if on.completions => completion::complete(cx, &r.prompts, &r.templates, parse(params)?),
        "logging/setLevel" => logging::set_level(cx, parse(params)?),
        // The tasks extension (2026-07-28): only for a request that declared it.
        "tasks/get" | "tasks/update" | "tasks/cancel" if !cx.version().is_stateful() && !tasks_ext::opted_in(cx) => {
            Err(tasks_ext::missing())
        }
        "tasks/get" if !cx.version().is_stateful() => tasks_ext::get(server.ext_tasks(), parse(params)?),
        "tasks/update" if !cx.version().is_stateful() => tasks_ext::update(cx, server.ext_tasks(), parse(params)?),
        "tasks/cancel" if !cx.version().is_stateful() => tasks_ext::cancel(cx, server.ext_tasks(), parse(params)?),
        "tasks/get" if on.tasks => tasks::get(cx, parse(params)?),
        "tasks/result" if on.tasks => tasks::result(cx, parse(params)?),
        "tasks/list" if on.tasks => tasks::list(cx, parse(params)?),
        "tasks/cancel" if on.tasks => tasks::cancel(cx, parse(params)?),
        _ => match r.extensions.iter().find(|e| e.methods.iter().any(|m| m == method)) {
            Some(extension) => (extension.handler)(cx, method, params),
            None => Err(RpcError::method_not_found(method)),
        },
    };
    value.map(Reply::Value)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::tools::CallToolResult;

    #[test]
    fn a_result_decorated_as_text_reads_as_one_decorated_as_a_value() {
        let mut server = Server::new("t", "1.0");
        server.set_title("T \"quoted\"");
        let v = ProtocolVersion::V2026_07_28;
        let mut with_meta = CallToolResult::text("m");
        with_meta.meta = Some(json!({"k": 1}));
        for result in [CallToolResult::text("Echo: \"_meta\""), CallToolResult::default(), with_meta] {
            let text = decorate(&server, "tools/call", Reply::Json(result.to_json(v))).and_then(Reply::into_value);
            let value = decorate(&server, "tools/call", Reply::Value(result.to_wire(v))).and_then(Reply::into_value);
            assert_eq!(text, value);
        }
        assert_eq!(decorate_text(&server, "{}".into()).map(|t| serde_json::from_str::<Value>(&t).is_ok()), Ok(true));
    }
}
