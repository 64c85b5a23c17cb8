//! `tools/list` and `tools/call`: the tool descriptor, the call result, argument and output
//! validation, and the `tools/list_changed` notification. Never names a transport or a thread.

use crate::features::apps::{self, ToolUi};
use crate::features::pagination::{self, ListParams};
use crate::features::tasks_extension;
use crate::features::tasks_handshake::{self, TaskParams, TaskSupport};
use crate::server::context::RequestCx;
use crate::util::metrics::ToolStats;
use crate::util::schema;
use crate::wire::content::{to_map, Icon};
use crate::wire::error::RpcError;
use crate::wire::frame::Reply;
use crate::wire::protocol::ProtocolVersion;
use crate::wire::{content::CallToolResult, frame::ToolReply};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Runs a tool: the arguments (already checked against the input schema) in, a result out.
pub type ToolHandler = dyn Fn(&RequestCx, Value) -> Result<CallToolResult, RpcError> + Send + Sync;

/// A registered tool.
pub(crate) struct ToolEntry {
    pub tool: Tool,
    pub handler: Box<ToolHandler>,
    /// Decided at registration: only a client that declared MCP Apps is offered the tool (its
    /// view says `visibility` without `model`), so a call of any other asks nothing of the client.
    pub app_only: bool,
    /// Where its calls are counted, when the server keeps metrics (found at registration).
    pub stats: Option<Arc<ToolStats>>,
}

impl ToolEntry {
    pub fn new(tool: Tool, handler: Box<ToolHandler>) -> Self {
        let app_only = tool.ui.as_ref().is_some_and(ToolUi::is_app_only);
        ToolEntry { tool, handler, app_only, stats: None }
    }

    /// Whether a client is offered the tool (`apps`: whether it declared MCP Apps, asked only
    /// for an app-only tool).
    fn offered(&self, apps: impl FnOnce() -> bool) -> bool {
        !self.app_only || apps()
    }
}

/// Behaviour hints about a tool (2025-03-26 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling twice with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world (the web, say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// A tool descriptor, as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The unique name (1 to 128 characters of `A-Za-z0-9_-.`).
    pub name: String,
    /// A human-readable title (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    /// JSON Schema of `structuredContent` (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Extra metadata (2025-06-18 and later).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Whether the tool may or must run as a task (2025-11-25 and later; `execution.taskSupport`).
    #[serde(skip)]
    pub task_support: TaskSupport,
    /// On the 2026-07-28 tasks extension: the tool asks for its input in the request
    /// (an input-required result) and becomes a task once the client answered.
    #[serde(skip)]
    pub input_before_task: bool,
    /// Its view (MCP Apps): sent as `_meta.ui` only to a client that declared the extension.
    #[serde(skip)]
    pub ui: Option<ToolUi>,
    /// Scopes an access token must grant for the tool to be listed and called, when the
    /// transport checks scopes (HTTP under OAuth): a token without one of them does not see
    /// the tool, and a call is refused with `INSUFFICIENT_SCOPE` (HTTP 403).
    #[serde(skip)]
    pub required_scopes: Vec<String>,
    /// Its arguments are secret (a password, a key): a logged message that calls it shows
    /// `"arguments": "[redacted]"` instead of them.
    #[serde(skip)]
    pub sensitive: bool,
}

impl Tool {
    /// A tool with a name, a description and an input schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            meta: None,
            task_support: TaskSupport::Forbidden,
            input_before_task: false,
            ui: None,
            required_scopes: Vec::new(),
            sensitive: false,
        }
    }
    /// Marks its arguments as secret: never logged (see `sensitive`).
    pub fn with_sensitive(mut self, sensitive: bool) -> Self {
        self.sensitive = sensitive;
        self
    }
    /// Sets the scopes a token must grant to list and call the tool (see `required_scopes`).
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Asks for input in the request before becoming a task (2026-07-28 tasks extension).
    pub fn with_input_before_task(mut self) -> Self {
        self.input_before_task = true;
        self
    }
    /// Sets whether the tool may or must run as a task.
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }
    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }
    /// Sets the annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
    /// Links the tool to its view (MCP Apps); [`Server::register_app_tool`](crate::Server::register_app_tool)
    /// does it while registering the view.
    pub fn with_ui(mut self, ui: ToolUi) -> Self {
        self.ui = Some(ui);
        self
    }
    /// Sets the icons.
    pub fn with_icons(mut self, icons: Vec<Icon>) -> Self {
        self.icons = Some(icons);
        self
    }

    /// The descriptor as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        let mut map = to_map(self);
        if !version.has_tool_annotations() {
            map.remove("annotations");
        }
        if !version.has_titles() {
            map.remove("title");
            map.remove("_meta");
        }
        if !version.has_structured_output() {
            map.remove("outputSchema");
        }
        if !version.has_icons() {
            map.remove("icons");
        } else if self.task_support != TaskSupport::Forbidden {
            map.insert("execution".into(), json!({ "taskSupport": self.task_support }));
        }
        Value::Object(map)
    }
}

/// Params of `tools/call`.
#[derive(Debug, Deserialize)]
pub(crate) struct CallParams<'a> {
    #[serde(borrow, deserialize_with = "crate::wire::params::name_borrowed")]
    pub name: std::borrow::Cow<'a, str>,
    #[serde(default)]
    pub arguments: Option<Value>,
    #[serde(default)]
    pub task: Option<TaskParams>,
}

/// `tools/list`: in registration order, a page at a time. A client that declared MCP Apps sees
/// each tool's view (`_meta.ui`) and the app-only tools (its host keeps those from the model);
/// any other client gets the same tools without links, and no app-only ones. A tool the
/// request's token lacks a scope for is left out.
pub(crate) fn list(cx: &RequestCx, tools: &[Arc<ToolEntry>], params: ListParams) -> Result<Value, RpcError> {
    let (cursor, size) = (params.cursor.as_deref(), cx.page_size());
    let scoped = |t: &Arc<ToolEntry>| cx.grants(&t.tool.required_scopes);
    if !tools.iter().any(|t| t.tool.ui.is_some()) && tools.iter().all(scoped) {
        return pagination::list_result("tools", tools, cursor, size, |t| t.tool.to_wire(cx.version()));
    }
    let apps = apps::client_supports(cx);
    let offered: Vec<Arc<ToolEntry>> = tools.iter().filter(|t| t.offered(|| apps) && scoped(t)).cloned().collect();
    pagination::list_result("tools", &offered, cursor, size, |t| {
        let mut descriptor = t.tool.to_wire(cx.version());
        if let (Some(ui), true) = (&t.tool.ui, apps) {
            apps::link(&mut descriptor, ui);
        }
        descriptor
    })
}

/// `tools/call`: runs the tool now, or as a task when the client asks and the tool allows it.
pub(crate) fn call(
    cx: &RequestCx,
    tools: &[Arc<ToolEntry>],
    absent: &[(String, String)],
    tasks_enabled: bool,
    ext_tasks: &tasks_extension::Table,
    params: CallParams<'_>,
) -> Result<Reply, RpcError> {
    let unknown = || match absent.iter().find(|(name, _)| name.as_str() == &*params.name) {
        Some((_, why)) => RpcError::invalid_params(format!("unknown tool: {} ({why})", params.name)),
        None => RpcError::invalid_params(format!("unknown tool: {}", params.name)),
    };
    let entry = Arc::clone(
        tools
            .iter()
            .find(|t| t.tool.name == params.name && t.offered(|| apps::client_supports(cx)))
            .ok_or_else(unknown)?,
    );
    if !cx.grants(&entry.tool.required_scopes) {
        return Err(RpcError::insufficient_scope(&format!("the tool {}", params.name), &entry.tool.required_scopes));
    }
    let arguments = match params.arguments {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v,
        Some(_) => return Err(RpcError::invalid_params("arguments must be an object")),
    };
    if !cx.version().is_stateful() && !matches!(entry.tool.task_support, TaskSupport::Forbidden) {
        return call_per_request(cx, ext_tasks, entry, arguments).map(Reply::Value);
    }
    // Spec (tasks): a server that does not declare task support runs every call normally.
    let support = if tasks_enabled { entry.tool.task_support } else { TaskSupport::Optional };
    match (params.task, support) {
        (Some(task), TaskSupport::Optional | TaskSupport::Required) if tasks_enabled => {
            let scopes = entry.tool.required_scopes.clone();
            tasks_handshake::spawn(cx, task, scopes, move |cx| run(cx, &entry, arguments)).map(Reply::Value)
        }
        (Some(_), TaskSupport::Forbidden) => Err(RpcError::method_not_found(&format!(
            "tools/call as a task: tool {} does not support tasks",
            params.name
        ))),
        (None, TaskSupport::Required) => {
            Err(RpcError::method_not_found(&format!("tools/call: tool {} must be called as a task", params.name)))
        }
        // The usual call: its result kept typed for the writer.
        _ => outcome(cx, &entry, arguments).map(|r| Reply::Tool(ToolReply(r, cx.version(), None))),
    }
}

/// `tools/call` of a task-supporting tool on 2026-07-28 (tasks extension, SEP-2663): a task when
/// the request declared the extension, `-32021` for a required-task tool when it did not, else
/// a plain call. The legacy `task` param is ignored.
fn call_per_request(
    cx: &RequestCx,
    ext_tasks: &tasks_extension::Table,
    entry: Arc<ToolEntry>,
    arguments: Value,
) -> Result<Value, RpcError> {
    if !tasks_extension::opted_in(cx) {
        if entry.tool.task_support == TaskSupport::Required {
            return Err(tasks_extension::missing());
        }
        return run(cx, &entry, arguments);
    }
    let answers = cx.inputs.as_ref().map(|i| i.answers.clone()).unwrap_or_default();
    if entry.tool.input_before_task && answers.is_empty() {
        // Stops at its first question, which becomes the input-required result.
        return run(cx, &entry, arguments);
    }
    let scopes = entry.tool.required_scopes.clone();
    let work: tasks_extension::Work = Arc::new(move |cx: &RequestCx| run(cx, &entry, arguments.clone()));
    tasks_extension::spawn(cx, ext_tasks, work, answers, scopes)
}

/// Runs the tool (`outcome`) and shapes its result for the request's revision.
fn run(cx: &RequestCx, entry: &ToolEntry, arguments: Value) -> Result<Value, RpcError> {
    outcome(cx, entry, arguments).map(|result| result.to_wire(cx.version()))
}

/// `checked`, counted in the tool's stats (its outcome, its latency) when the server keeps
/// metrics: every way a tool is called ends here.
fn outcome(cx: &RequestCx, entry: &ToolEntry, arguments: Value) -> Result<CallToolResult, RpcError> {
    let Some(stats) = &entry.stats else { return checked(cx, entry, arguments) };
    stats.time(|| checked(cx, entry, arguments), |o| o.as_ref().map(|r| r.is_error).map_err(|_| ()))
}

/// Validates the arguments, runs the handler, validates structured output.
fn checked(cx: &RequestCx, entry: &ToolEntry, arguments: Value) -> Result<CallToolResult, RpcError> {
    let name = &entry.tool.name;
    if let Err(e) = schema::validate(&entry.tool.input_schema, &arguments) {
        return Ok(CallToolResult::error(format!("invalid arguments for tool {name}: {e}")));
    }
    let mut result = (entry.handler)(cx, arguments)?;
    if let (Some(out_schema), Some(structured), false) =
        (&entry.tool.output_schema, &result.structured_content, result.is_error)
    {
        if let Err(e) = schema::validate(out_schema, structured) {
            log::error!("tool {name} returned structured content that fails its output schema: {e}");
            result = CallToolResult::error(format!("tool {name} produced invalid structured output: {e}"));
        }
    }
    Ok(result)
}

/// The `notifications/tools/list_changed` params.
pub(crate) const LIST_CHANGED: &str = "notifications/tools/list_changed";
