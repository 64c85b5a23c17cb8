//! What is registered: a copy-on-write snapshot of tools, resources, templates and prompts, and
//! the one answer to "what is enabled" for a revision, which feeds both the method table and
//! the advertised capabilities, so the two cannot drift.

use crate::features::prompts::PromptEntry;
use crate::features::resources::{ResourceEntry, ResourceLister, TemplateEntry};
use crate::features::tasks_handshake::TaskSupport;
use crate::features::tools::ToolEntry;
use crate::server::context::RequestCx;
use crate::wire::rpc::RpcError;
use crate::wire::version::ProtocolVersion;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// A snapshot of everything registered. Replaced whole on every change, so a handler that runs
/// for minutes holds no lock and may itself register things.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub tools: Vec<Arc<ToolEntry>>,
    pub resources: Vec<Arc<ResourceEntry>>,
    pub listers: Vec<Arc<ResourceLister>>,
    pub templates: Vec<Arc<TemplateEntry>>,
    pub prompts: Vec<Arc<PromptEntry>>,
    pub extensions: Vec<Arc<ExtensionEntry>>,
    /// Tools not registered, each with what would make it so (`Server::explain_absent_tool`),
    /// read only to answer a call of one.
    pub absent_tools: Vec<(String, String)>,
}

/// Answers the methods of one extension.
pub(crate) type ExtensionHandler = dyn Fn(&RequestCx, &str, Value) -> Result<Value, RpcError> + Send + Sync;

/// A registered extension: its identifier, the settings advertised under
/// `capabilities.extensions`, and the methods it answers.
pub(crate) struct ExtensionEntry {
    pub name: String,
    pub settings: Value,
    pub methods: Vec<String>,
    pub handler: Box<ExtensionHandler>,
}

/// Which method groups a revision may call, given what is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Enabled {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    pub completions: bool,
    pub tasks: bool,
}

impl Registry {
    /// What is enabled at `version`: a feature is on when something is registered for it.
    pub fn enabled(&self, version: ProtocolVersion) -> Enabled {
        let resources = !self.resources.is_empty() || !self.listers.is_empty() || !self.templates.is_empty();
        let prompts = !self.prompts.is_empty();
        Enabled {
            tools: !self.tools.is_empty(),
            resources,
            prompts,
            // Completion needs something to complete: a prompt argument or a template variable.
            // The method answers from 2024-11-05 on; the capability that announces it only
            // exists from 2025-03-26 (see `capabilities`).
            completions: prompts || !self.templates.is_empty(),
            tasks: version.has_tasks() && self.tools.iter().any(|t| t.tool.task_support != TaskSupport::Forbidden),
        }
    }

    /// The capabilities advertised at `version`: exactly what `enabled` allows.
    pub fn capabilities(&self, version: ProtocolVersion) -> Value {
        let enabled = self.enabled(version);
        let mut caps = Map::new();
        caps.insert("logging".into(), json!({}));
        if enabled.tools {
            caps.insert("tools".into(), json!({ "listChanged": true }));
        }
        if enabled.resources {
            caps.insert("resources".into(), json!({ "subscribe": true, "listChanged": true }));
        }
        if enabled.prompts {
            caps.insert("prompts".into(), json!({ "listChanged": true }));
        }
        if enabled.tasks {
            caps.insert("tasks".into(), json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }));
        }
        if !version.is_stateful() && self.tools.iter().any(|t| t.tool.task_support != TaskSupport::Forbidden) {
            let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
            extensions[crate::features::tasks_extension::EXTENSION] = json!({});
        }
        if enabled.completions && version.has_completions() {
            caps.insert("completions".into(), json!({}));
        }
        // MCP Apps: declared where descriptors carry the `_meta` its links travel in.
        if version.has_titles() && self.tools.iter().any(|t| t.tool.ui.is_some()) {
            let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
            extensions[crate::features::apps::EXTENSION] = json!({});
        }
        // Registered extensions join the built-in ones (tasks) in the one `extensions` map.
        for extension in &self.extensions {
            let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
            extensions[extension.name.as_str()] = extension.settings.clone();
        }
        Value::Object(caps)
    }
}
