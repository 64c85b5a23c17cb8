//! `completion/complete`: argument completion for prompts and resource-template variables,
//! refused for those the request's token lacks a scope for. Never names a transport or a thread.

use crate::features::completer::{CompletionRequest, MAX_VALUES};
use crate::features::prompts::{self, PromptEntry};
use crate::features::resources::TemplateEntry;
use crate::server::context::RequestCx;
use crate::wire::error::RpcError;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// What is completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Deserialize)]
#[serde(try_from = "Reference")]
pub(crate) enum Target {
    Prompt { name: String },
    Resource { uri: String },
}

/// `ref` as sent: read as a plain struct and then checked, not as a `#[serde(tag = "type")]`
/// enum, whose buffering costs ~10 KB of code. The errors are the tagged enum's, at the same
/// place (the end of `ref`), but for a member given twice (said where it is read).
#[derive(Deserialize)]
struct Reference {
    #[serde(rename = "type")]
    kind: ReferenceKind,
    #[serde(default, deserialize_with = "present")]
    name: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    uri: Option<Value>,
}

/// A member that is there, `null` included (which `Option` would take for an absent one).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[derive(Deserialize)]
#[serde(variant_identifier)]
enum ReferenceKind {
    #[serde(rename = "ref/prompt")]
    Prompt,
    #[serde(rename = "ref/resource")]
    Resource,
}

impl TryFrom<Reference> for Target {
    type Error = String;

    /// The member the kind names, bounded as `wire::params` bounds names and URIs; the others
    /// are ignored, as a tagged enum ignores them.
    fn try_from(tagged: Reference) -> Result<Target, String> {
        let (member, field) = match tagged.kind {
            ReferenceKind::Prompt => (tagged.name, "name"),
            ReferenceKind::Resource => (tagged.uri, "uri"),
        };
        let value = member.ok_or_else(|| format!("missing field `{field}`"))?;
        let read = match tagged.kind {
            ReferenceKind::Prompt => crate::wire::params::name(value),
            ReferenceKind::Resource => crate::wire::params::uri(value),
        };
        let text = read.map_err(|e| e.to_string())?;
        Ok(match tagged.kind {
            ReferenceKind::Prompt => Target::Prompt { name: text },
            ReferenceKind::Resource => Target::Resource { uri: text },
        })
    }
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
    reference: Target,
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
        Target::Prompt { name } => {
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
        Target::Resource { uri } => {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(reference: &str) -> Result<CompleteParams, String> {
        let text = format!(r#"{{"ref": {reference}, "argument": {{"name": "a", "value": ""}}}}"#);
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_reference_is_read_by_its_type() {
        let prompt = read(r#"{"type": "ref/prompt", "name": "p", "uri": 5}"#).unwrap();
        assert!(matches!(prompt.reference, Target::Prompt { name } if name == "p"));
        let template = read(r#"{"type": "ref/resource", "uri": "t://{x}", "name": 5}"#).unwrap();
        assert!(matches!(template.reference, Target::Resource { uri } if uri == "t://{x}"));
        let long = "n".repeat(crate::wire::params::MAX_NAME_BYTES + 1);
        let refused = [
            (
                r#"{"type": "ref/nothing"}"#.to_owned(),
                "unknown variant `ref/nothing`, expected `ref/prompt` or `ref/resource`",
            ),
            (r#"{"type": "ref/prompt"}"#.to_owned(), "missing field `name`"),
            (r#"{"type": "ref/resource"}"#.to_owned(), "missing field `uri`"),
            (r#"{"name": "p"}"#.to_owned(), "missing field `type`"),
            (r#"{"type": 5}"#.to_owned(), "invalid type: integer `5`, expected variant identifier"),
            (r#"{"type": "ref/prompt", "name": null}"#.to_owned(), "invalid type: null, expected a string"),
            (format!(r#"{{"type": "ref/prompt", "name": "{long}"}}"#), "name is longer than 1024 bytes (1025 bytes)"),
            ("5".to_owned(), "invalid type: integer `5`, expected struct Reference"),
        ];
        for (reference, why) in refused {
            let error = read(&reference).err().unwrap_or_default();
            assert!(error.starts_with(why), "{reference}: {error}");
        }
    }
}
