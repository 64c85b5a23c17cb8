//! What is registered: a copy-on-write snapshot of tools, resources, templates and prompts, and
//! the one answer to "what is enabled" for a revision, which feeds both the method table and
//! the advertised capabilities, so the two cannot drift.

use crate::features::prompts::PromptEntry;
use crate::features::resources::{ResourceEntry, ResourceLister, TemplateEntry};
use crate::features::tasks_handshake::TaskSupport;
use crate::features::tools::ToolEntry;
use crate::server::context::RequestCx;
use crate::util::lit;
use crate::wire::error::RpcError;
use crate::wire::protocol::{Cache, ProtocolVersion, Revisions};
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
    /// What is enabled at each revision (`ProtocolVersion as usize`): decided by `settle` when
    /// the registry changes, read by every request's gate.
    pub enabled: [Enabled; ProtocolVersion::ALL.len()],
}

/// Answers the methods of one extension.
pub(crate) type ExtensionHandler = dyn Fn(&RequestCx, &str, Value) -> Result<Value, RpcError> + Send + Sync;

/// A registered extension: its identifier, the settings advertised under
/// `capabilities.extensions`, and the methods it answers, each with its row.
pub(crate) struct ExtensionEntry {
    pub name: String,
    pub settings: Value,
    pub methods: Vec<ExtensionMethod>,
    pub handler: Box<ExtensionHandler>,
}

/// One method an extension answers, as the method table's row of it: its name, the revisions
/// it exists in (default: every one), and the cache hint its 2026-07-28 results carry (default:
/// none). It runs on the worker pool, as every handler that may block; outside its revisions it
/// is `-32601`. Given to [`Server::register_extension`](crate::Server::register_extension).
///
/// ```
/// use tinymcp::{ExtensionMethod, Revisions};
/// let list = ExtensionMethod::new("notes/list").with_list_cache();
/// let get = ExtensionMethod::new("notes/get").with_revisions("2025-06-18..".parse::<Revisions>().unwrap());
/// # let _ = (list, get);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionMethod {
    pub(crate) name: String,
    pub(crate) revisions: Revisions,
    pub(crate) cache: Cache,
}

impl ExtensionMethod {
    /// The method `name`, in every revision, with no cache hint.
    pub fn new(name: impl Into<String>) -> Self {
        ExtensionMethod { name: name.into(), revisions: Revisions::ALL, cache: Cache::None }
    }

    /// Exists only in `revisions`.
    pub fn with_revisions(mut self, revisions: Revisions) -> Self {
        self.revisions = revisions;
        self
    }

    /// Its 2026-07-28 results carry the lists' cache hint (`Options::list_cache`).
    pub fn with_list_cache(mut self) -> Self {
        self.cache = Cache::List;
        self
    }

    /// Its 2026-07-28 results carry the reads' cache hint (`Options::read_cache`).
    pub fn with_read_cache(mut self) -> Self {
        self.cache = Cache::Read;
        self
    }

    /// The method's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Which method groups a revision may call, given what is registered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Enabled {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    pub completions: bool,
    pub tasks: bool,
}

impl Registry {
    /// The registered extension that answers `method`, and its row of it.
    pub fn extension_method(&self, method: &str) -> Option<(&ExtensionEntry, &ExtensionMethod)> {
        self.extensions.iter().find_map(|e| e.methods.iter().find(|m| m.name == method).map(|m| (&**e, m)))
    }

    /// Decides again what is enabled at each revision (`enabled`): called after every change.
    pub fn settle(&mut self) {
        for version in ProtocolVersion::ALL {
            self.enabled[version as usize] = self.decide(version);
        }
    }

    /// What is enabled at `version`, as `settle` decided it.
    pub fn enabled(&self, version: ProtocolVersion) -> Enabled {
        self.enabled[version as usize]
    }

    /// What is enabled at `version`: a feature is on when something is registered for it.
    fn decide(&self, version: ProtocolVersion) -> Enabled {
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
            caps.insert("tasks".into(), lit(r#"{"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}"#));
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

#[cfg(test)]
mod tests {
    use crate::features::tasks_handshake::TaskSupport;
    use crate::features::tools::Tool;
    use crate::wire::content::CallToolResult;
    use crate::wire::protocol::ProtocolVersion;
    use crate::Server;
    use serde_json::json;

    /// What is enabled is decided again on every change, registration and removal alike, and
    /// is what a fresh decision says.
    #[test]
    fn enabled_follows_every_change() {
        let server = Server::new("t", "1.0");
        let tasks = |v| server.registry().enabled(v).tasks;
        assert!(!server.registry().enabled(ProtocolVersion::V2025_11_25).tools);
        let tool = Tool::new("slow", "d", json!({"type": "object"})).with_task_support(TaskSupport::Optional);
        server.register_tool(tool, |_, _| Ok(CallToolResult::text("done")));
        assert!(server.registry().enabled(ProtocolVersion::V2025_11_25).tools);
        assert!(tasks(ProtocolVersion::V2025_11_25) && !tasks(ProtocolVersion::V2025_06_18));
        for v in ProtocolVersion::ALL {
            assert_eq!(server.registry().enabled(v), server.registry().decide(v), "{v}");
        }
        assert!(server.remove_tool("slow"));
        assert!(!tasks(ProtocolVersion::V2025_11_25) && !server.registry().enabled(ProtocolVersion::V2025_11_25).tools);
    }
}
