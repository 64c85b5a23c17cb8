//! THE method table: one `match` on the request method. Params become typed structs here
//! (`parse`, failures are `-32602`); each arm calls one feature function.

use crate::features::{completion, logging, prompts, resources, tasks, tools};
use crate::server::context::RequestCx;
use crate::wire::jsonrpc::RpcError;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Runs one request (other than `initialize`, which the connection answers itself).
pub(crate) fn request(cx: &RequestCx, method: &str, params: Value) -> Result<Value, RpcError> {
    let registry = cx.server().registry();
    let has_tools = !registry.tools.is_empty();
    let has_resources =
        !registry.resources.is_empty() || !registry.listers.is_empty() || !registry.templates.is_empty();
    let has_prompts = !registry.prompts.is_empty();
    let has_tasks = registry.tasks_enabled(cx.version());
    let r = &registry;
    match method {
        "ping" => Ok(json!({})),
        "tools/list" if has_tools => tools::list(cx, r, parse(params)?),
        "tools/call" if has_tools => tools::call(cx, r, parse(params)?),
        "resources/list" if has_resources => resources::list(cx, r, parse(params)?),
        "resources/templates/list" if has_resources => resources::list_templates(cx, r, parse(params)?),
        "resources/read" if has_resources => resources::read(cx, r, parse(params)?),
        "resources/subscribe" if has_resources => resources::subscribe(cx, parse(params)?),
        "resources/unsubscribe" if has_resources => resources::unsubscribe(cx, parse(params)?),
        "prompts/list" if has_prompts => prompts::list(cx, r, parse(params)?),
        "prompts/get" if has_prompts => prompts::get(cx, r, parse(params)?),
        "completion/complete" if has_prompts || has_resources => completion::complete(cx, r, parse(params)?),
        "logging/setLevel" => logging::set_level(cx, parse(params)?),
        "tasks/get" if has_tasks => tasks::get(cx, parse(params)?),
        "tasks/result" if has_tasks => tasks::result(cx, parse(params)?),
        "tasks/list" if has_tasks => tasks::list(cx, parse(params)?),
        "tasks/cancel" if has_tasks => tasks::cancel(cx, parse(params)?),
        _ => Err(RpcError::method_not_found(method)),
    }
}

/// The one place params become a typed struct.
fn parse<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(format!("invalid params: {e}")))
}
