//! `prompts/list` and `prompts/get`: descriptors, argument checks, messages, and the
//! `prompts/list_changed` notification. Never names a transport or a thread.

use crate::features::completer::Completer;
use crate::features::pagination::{self, ListParams};
use crate::server::context::RequestCx;
use crate::wire::content::{to_map, Content, Icon, Role};
use crate::wire::error::RpcError;
use crate::wire::protocol::ProtocolVersion;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Renders a prompt from its arguments (required ones are checked before).
pub type PromptHandler = dyn Fn(&RequestCx, &PromptArguments) -> Result<GetPromptResult, RpcError> + Send + Sync;

/// A registered prompt.
pub(crate) struct PromptEntry {
    pub prompt: Prompt,
    pub handler: Box<PromptHandler>,
    pub completer: Option<Box<Completer>>,
}

/// The prompt called `name`.
pub(crate) fn find<'a>(prompts: &'a [Arc<PromptEntry>], name: &str) -> Option<&'a Arc<PromptEntry>> {
    prompts.iter().find(|p| p.prompt.name == name)
}

/// One argument a prompt takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// The name.
    pub name: String,
    /// A human-readable title (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must carry it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

impl PromptArgument {
    /// An argument with a name, a description and whether it is required.
    pub fn new(name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        PromptArgument { name: name.into(), title: None, description: Some(description.into()), required }
    }
}

/// A prompt descriptor, as listed by `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// The unique name.
    pub name: String,
    /// A human-readable title (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Scopes an access token must grant for the prompt to be listed and got, when the
    /// transport checks scopes (HTTP under OAuth), as for a tool's `required_scopes`.
    #[serde(skip)]
    pub required_scopes: Vec<String>,
}

impl Prompt {
    /// A prompt with a name, a description and its arguments.
    pub fn new(name: impl Into<String>, description: impl Into<String>, arguments: Vec<PromptArgument>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            arguments,
            icons: None,
            required_scopes: Vec::new(),
        }
    }

    /// Sets the scopes a token must grant to list and get the prompt.
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The descriptor as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        let mut map = to_map(self);
        if !version.has_titles() {
            map.remove("title");
            if let Some(Value::Array(args)) = map.get_mut("arguments") {
                for arg in args.iter_mut().filter_map(Value::as_object_mut) {
                    arg.remove("title");
                }
            }
        }
        if !version.has_icons() {
            map.remove("icons");
        }
        Value::Object(map)
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A user message.
    pub fn user(content: Content) -> Self {
        PromptMessage { role: Role::User, content }
    }
    /// An assistant message.
    pub fn assistant(content: Content) -> Self {
        PromptMessage { role: Role::Assistant, content }
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GetPromptResult {
    /// A description of this instance of the prompt.
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult { description: None, messages }
    }

    /// The result as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        let messages: Vec<Value> =
            self.messages.iter().map(|m| json!({ "role": m.role, "content": m.content.to_wire(version) })).collect();
        let mut map = Map::new();
        if let Some(d) = &self.description {
            map.insert("description".into(), d.clone().into());
        }
        map.insert("messages".into(), Value::Array(messages));
        Value::Object(map)
    }
}

/// The arguments of `prompts/get`, by name.
pub type PromptArguments = HashMap<String, String>;

#[derive(Debug, Deserialize)]
pub(crate) struct GetParams {
    #[serde(deserialize_with = "crate::wire::params::name")]
    pub name: String,
    #[serde(default)]
    pub arguments: Option<HashMap<String, Value>>,
}

/// `prompts/list`.
pub(crate) fn list(cx: &RequestCx, prompts: &[Arc<PromptEntry>], params: ListParams) -> Result<Value, RpcError> {
    let to_wire = |p: &Arc<PromptEntry>| p.prompt.to_wire(cx.version());
    if prompts.iter().all(|p| cx.grants(&p.prompt.required_scopes)) {
        return pagination::list_result("prompts", prompts, params.cursor.as_deref(), cx.page_size(), to_wire);
    }
    let visible: Vec<Arc<PromptEntry>> =
        prompts.iter().filter(|p| cx.grants(&p.prompt.required_scopes)).cloned().collect();
    pagination::list_result("prompts", &visible, params.cursor.as_deref(), cx.page_size(), to_wire)
}

/// Refuses (`-32003`) a prompt the request's token lacks a scope for: what `prompts/get` and
/// the completion of its arguments answer.
pub(crate) fn check_scopes(cx: &RequestCx, prompt: &Prompt) -> Result<(), RpcError> {
    if cx.grants(&prompt.required_scopes) {
        return Ok(());
    }
    Err(RpcError::insufficient_scope(&format!("the prompt {}", prompt.name), &prompt.required_scopes))
}

/// `prompts/get`: checks the arguments, then runs the handler.
pub(crate) fn get(cx: &RequestCx, prompts: &[Arc<PromptEntry>], params: GetParams) -> Result<Value, RpcError> {
    let entry = find(prompts, &params.name)
        .ok_or_else(|| RpcError::invalid_params(format!("unknown prompt: {}", params.name)))?;
    check_scopes(cx, &entry.prompt)?;
    let mut arguments = PromptArguments::new();
    for (name, value) in params.arguments.unwrap_or_default() {
        let text = match value {
            Value::String(s) => s,
            Value::Null => continue,
            other => other.to_string(),
        };
        arguments.insert(name, text);
    }
    if let Some(missing) = entry.prompt.arguments.iter().find(|a| a.required && !arguments.contains_key(&a.name)) {
        return Err(RpcError::invalid_params(format!(
            "missing required argument {:?} for prompt {}",
            missing.name, params.name
        )));
    }
    let result = (entry.handler)(cx, &arguments)?;
    Ok(result.to_wire(cx.version()))
}

/// Method of the notification that the prompt list changed.
pub(crate) const LIST_CHANGED: &str = "notifications/prompts/list_changed";
