//! `completion/complete`: argument completion for prompts and resource-template variables,
//! refused for those the request's token lacks a scope for. Never names a transport or a thread.

use crate::features::completer::{CompletionRequest, MAX_VALUES};
use crate::features::prompts::{self, PromptEntry};
use crate::features::resources::TemplateEntry;
use crate::server::context::RequestCx;
use crate::wire::rpc::RpcError;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum Reference {
    #[serde(rename = "ref/prompt")]
    Prompt {
        #[serde(deserialize_with = "crate::wire::params::name")]
        name: String,
    },
    #[serde(rename = "ref/resource")]
    Resource {
        #[serde(deserialize_with = "crate::wire::params::uri")]
        uri: String,
    },
}

#[derive(Debug, Deserialize)]
pub(crate) struct Argument {
    #[serde(deserialize_with = "crate::wire::params::name")]
    name: String,
    value: String,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Context {
    #[serde(default)]
    arguments: HashMap<String, String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CompleteParams {
    #[serde(rename = "ref")]
    reference: Reference,
    argument: Argument,
    #[serde(default)]
    context: Option<Context>,
}

/// `completion/complete`.
pub(crate) fn complete(
    cx: &RequestCx,
    prompts: &[Arc<PromptEntry>],
    templates: &[Arc<TemplateEntry>],
    params: CompleteParams,
) -> Result<Value, RpcError> {
    let context = params.context.unwrap_or_default().arguments;
    let request =
        CompletionRequest { argument: &params.argument.name, value: &params.argument.value, context: &context };
    let values = match &params.reference {
        Reference::Prompt { name } => {
            let entry = prompts::find(prompts, name)
                .ok_or_else(|| RpcError::invalid_params(format!("unknown prompt: {name}")))?;
            // A prompt hidden by its scopes is refused as `prompts/get` refuses it, before its
            // arguments are looked at.
            prompts::check_scopes(cx, &entry.prompt)?;
            if !entry.prompt.arguments.iter().any(|a| a.name == request.argument) {
                return Err(RpcError::invalid_params(format!("prompt {name} has no argument {:?}", request.argument)));
            }
            entry.completer.as_ref().map(|c| c(cx, &request)).unwrap_or_default()
        }
        Reference::Resource { uri } => {
            let entry = templates
                .iter()
                .find(|t| t.template.uri_template == *uri)
                .ok_or_else(|| RpcError::invalid_params(format!("unknown resource template: {uri}")))?;
            if !cx.grants(&entry.template.required_scopes) {
                let what = format!("the resource template {uri}");
                return Err(RpcError::insufficient_scope(&what, &entry.template.required_scopes));
            }
            if !entry.parsed.variables().contains(&request.argument) {
                return Err(RpcError::invalid_params(format!("template {uri} has no variable {:?}", request.argument)));
            }
            entry.completer.as_ref().map(|c| c(cx, &request)).unwrap_or_default()
        }
    };
    let total = values.len();
    let shown: Vec<String> = values.into_iter().take(MAX_VALUES).collect();
    Ok(json!({ "completion": { "values": shown, "total": total, "hasMore": total > MAX_VALUES } }))
}
