//! `Server`: what is registered (tools, resources, templates, prompts), the server's identity and
//! options, the capabilities that follow from them, and notifications to every connected client.
//! Knows no transport: connections find it through `Arc<Server>`.

pub mod connection;
pub mod context;
pub mod lifecycle;
mod methods;
pub(crate) mod pool;
pub mod session;

use crate::features::completion::CompletionRequest;
use crate::features::content::{Icon, ResourceContents};
use crate::features::prompts;
use crate::features::prompts::{GetPromptResult, Prompt, PromptArguments};
use crate::features::resources::{self, Resource, ResourceTemplate};
use crate::features::tools::{self, CallToolResult, Tool};
use crate::server::context::RequestCx;
use crate::server::pool::Pool;
use crate::server::session::Session;
use crate::util::uri_template::UriTemplate;
use crate::wire::jsonrpc::RpcError;
use crate::wire::version::ProtocolVersion;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Duration;

/// Runs a tool: the arguments (already checked against the input schema) in, a result out.
pub type ToolHandler = dyn Fn(&RequestCx, Value) -> Result<CallToolResult, RpcError> + Send + Sync;
/// Reads a resource: the URI and, for templates, the matched variables.
/// An empty list from a template handler means "no such resource".
pub type ReadHandler =
    dyn Fn(&RequestCx, &str, &HashMap<String, String>) -> Result<Vec<ResourceContents>, RpcError> + Send + Sync;
/// Lists resources computed at call time (a directory, say).
pub type ResourceLister = dyn Fn(&RequestCx) -> Vec<Resource> + Send + Sync;
/// Renders a prompt from its arguments (required ones are checked before).
pub type PromptHandler = dyn Fn(&RequestCx, &PromptArguments) -> Result<GetPromptResult, RpcError> + Send + Sync;
/// Completes a prompt argument or a template variable.
pub type Completer = dyn Fn(&RequestCx, &CompletionRequest) -> Vec<String> + Send + Sync;

pub(crate) struct ToolEntry {
    pub tool: Tool,
    pub handler: Box<ToolHandler>,
}

pub(crate) struct ResourceEntry {
    pub resource: Resource,
    pub handler: Box<ReadHandler>,
}

pub(crate) struct TemplateEntry {
    pub template: ResourceTemplate,
    pub parsed: UriTemplate,
    pub handler: Box<ReadHandler>,
    pub completer: Option<Box<Completer>>,
}

pub(crate) struct PromptEntry {
    pub prompt: Prompt,
    pub handler: Box<PromptHandler>,
    pub completer: Option<Box<Completer>>,
}

/// A snapshot of everything registered. Replaced whole on every change, so a handler that runs
/// for minutes holds no lock and may itself register things.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub tools: Vec<Arc<ToolEntry>>,
    pub resources: Vec<Arc<ResourceEntry>>,
    pub listers: Vec<Arc<ResourceLister>>,
    pub templates: Vec<Arc<TemplateEntry>>,
    pub prompts: Vec<Arc<PromptEntry>>,
}

impl Registry {
    pub fn tool(&self, name: &str) -> Option<&Arc<ToolEntry>> {
        self.tools.iter().find(|t| t.tool.name == name)
    }
    /// Whether task-augmented `tools/call` is declared for this revision (2025-11-25 and a tool that allows it).
    pub fn tasks_enabled(&self, version: ProtocolVersion) -> bool {
        version.has_icons()
            && version.is_stateful()
            && self.tools.iter().any(|t| t.tool.task_support != crate::features::tasks::TaskSupport::Forbidden)
    }
    pub fn prompt(&self, name: &str) -> Option<&Arc<PromptEntry>> {
        self.prompts.iter().find(|p| p.prompt.name == name)
    }
}

/// Tunable limits. The defaults suit a local server.
#[derive(Debug, Clone)]
pub struct Options {
    /// Items per page of every `*/list`.
    pub page_size: usize,
    /// How long a request to the client (sampling, elicitation, roots) may wait for its answer.
    pub client_request_timeout: Duration,
    /// Requests one session may have running at once; more are refused.
    pub max_in_flight: usize,
    /// Worker threads kept for handlers when idle.
    pub resident_workers: usize,
    /// Worker threads at most, across every session.
    pub max_workers: usize,
    /// The largest message (stdio line or HTTP body) accepted, in bytes.
    pub max_message_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            page_size: 100,
            client_request_timeout: Duration::from_secs(60),
            max_in_flight: 256,
            resident_workers: 1,
            max_workers: 1024,
            max_message_bytes: 4 * 1024 * 1024,
        }
    }
}

/// An MCP server: register tools, resources and prompts, then hand it to a transport.
pub struct Server {
    name: String,
    version: String,
    title: Option<String>,
    icons: Vec<Icon>,
    instructions: Option<String>,
    options: Options,
    registry: RwLock<Arc<Registry>>,
    sessions: Mutex<Vec<Weak<Session>>>,
    subscribe_hooks: RwLock<Vec<Box<SubscribeHook>>>,
    pub(crate) pool: Pool,
}

/// Called with the URI of each `resources/subscribe`.
type SubscribeHook = dyn Fn(&str) + Send + Sync;

impl Server {
    /// A server that introduces itself with this name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self::with_options(name, version, Options::default())
    }

    /// A server with non-default limits.
    pub fn with_options(name: impl Into<String>, version: impl Into<String>, options: Options) -> Self {
        Server {
            name: name.into(),
            version: version.into(),
            title: None,
            icons: Vec::new(),
            instructions: None,
            pool: Pool::new(options.resident_workers, options.max_workers),
            options,
            registry: RwLock::new(Arc::new(Registry::default())),
            sessions: Mutex::new(Vec::new()),
            subscribe_hooks: RwLock::new(Vec::new()),
        }
    }

    /// Sets the human-readable title sent in `serverInfo` (2025-06-18 and later).
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.title = Some(title.into());
    }

    /// Sets the icons sent in `serverInfo` (2025-11-25 and later).
    pub fn set_icons(&mut self, icons: Vec<Icon>) {
        self.icons = icons;
    }

    /// Sets the `instructions` returned by `initialize`.
    pub fn set_instructions(&mut self, instructions: impl Into<String>) {
        self.instructions = Some(instructions.into());
    }

    /// The limits in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Registers a tool, replacing one of the same name (its place in the list is kept).
    pub fn register_tool(
        &self,
        tool: Tool,
        handler: impl Fn(&RequestCx, Value) -> Result<CallToolResult, RpcError> + Send + Sync + 'static,
    ) {
        self.insert_tool(Arc::new(ToolEntry { tool, handler: Box::new(handler) }));
    }

    // The generic `register_*` only box the handler; the registry update lives here once, not
    // once per registered closure type (which made every provider's code several times larger).
    #[inline(never)]
    fn insert_tool(&self, entry: Arc<ToolEntry>) {
        self.update(|r| upsert(&mut r.tools, entry, |a, b| a.tool.name == b.tool.name));
    }

    #[inline(never)]
    fn insert_resource(&self, entry: Arc<ResourceEntry>) {
        self.update(|r| upsert(&mut r.resources, entry, |a, b| a.resource.uri == b.resource.uri));
    }

    #[inline(never)]
    fn insert_prompt(&self, entry: Arc<PromptEntry>) {
        self.update(|r| upsert(&mut r.prompts, entry, |a, b| a.prompt.name == b.prompt.name));
    }

    /// Removes a tool; says whether it was there.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove_where(|r| &mut r.tools, |t| t.tool.name != name)
    }

    /// Registers a resource with a fixed URI.
    pub fn register_resource(
        &self,
        resource: Resource,
        handler: impl Fn(&RequestCx, &str) -> Result<Vec<ResourceContents>, RpcError> + Send + Sync + 'static,
    ) {
        self.insert_resource(Arc::new(ResourceEntry {
            resource,
            handler: Box::new(move |cx, uri, _| handler(cx, uri)),
        }));
    }

    /// Registers a function that lists resources at call time; they are read through templates.
    pub fn register_resource_lister(&self, lister: impl Fn(&RequestCx) -> Vec<Resource> + Send + Sync + 'static) {
        let lister: Arc<ResourceLister> = Arc::new(lister);
        self.update(|r| r.listers.push(lister));
    }

    /// Registers a resource template. The handler gets the URI and the variables it matched;
    /// returning an empty list means no such resource.
    pub fn register_resource_template(
        &self,
        template: ResourceTemplate,
        handler: impl Fn(&RequestCx, &str, &HashMap<String, String>) -> Result<Vec<ResourceContents>, RpcError>
            + Send
            + Sync
            + 'static,
        completer: Option<Box<Completer>>,
    ) -> Result<(), String> {
        let parsed = UriTemplate::parse(&template.uri_template)?;
        let entry = Arc::new(TemplateEntry { template, parsed, handler: Box::new(handler), completer });
        self.update(|r| upsert(&mut r.templates, entry, |a, b| a.template.uri_template == b.template.uri_template));
        Ok(())
    }

    /// Registers a prompt, with an optional completer for its arguments.
    pub fn register_prompt(
        &self,
        prompt: Prompt,
        handler: impl Fn(&RequestCx, &PromptArguments) -> Result<GetPromptResult, RpcError> + Send + Sync + 'static,
        completer: Option<Box<Completer>>,
    ) {
        self.insert_prompt(Arc::new(PromptEntry { prompt, handler: Box::new(handler), completer }));
    }

    /// Removes a prompt; says whether it was there.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove_where(|r| &mut r.prompts, |t| t.prompt.name != name)
    }

    /// Removes a fixed resource; says whether it was there.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove_where(|r| &mut r.resources, |t| t.resource.uri != uri)
    }

    /// Tells every client that the tool list changed.
    pub fn notify_tool_list_changed(&self) {
        self.broadcast(|_| true, tools::LIST_CHANGED, json!({}));
    }

    /// Tells every client that the resource list changed.
    pub fn notify_resource_list_changed(&self) {
        self.broadcast(|_| true, resources::LIST_CHANGED, json!({}));
    }

    /// Tells every client that the prompt list changed.
    pub fn notify_prompt_list_changed(&self) {
        self.broadcast(|_| true, prompts::LIST_CHANGED, json!({}));
    }

    /// Runs `hook` with the URI of every `resources/subscribe`, before it is answered: a
    /// provider that polls for changes notes there the state later changes are compared with,
    /// so a change right after the subscription is not missed.
    pub fn on_subscribe(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        self.subscribe_hooks.write().unwrap_or_else(PoisonError::into_inner).push(Box::new(hook));
    }

    pub(crate) fn subscribed(&self, uri: &str) {
        for hook in self.subscribe_hooks.read().unwrap_or_else(PoisonError::into_inner).iter() {
            hook(uri);
        }
    }

    /// Tells the clients subscribed to `uri` that it changed.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.broadcast(|s| s.is_subscribed(uri), resources::UPDATED, json!({ "uri": uri }));
    }

    /// Whether any connected client subscribed to `uri` (so a watcher knows what to poll).
    pub fn has_subscribers(&self, uri: &str) -> bool {
        self.live_sessions().iter().any(|s| s.is_subscribed(uri))
    }

    /// Every URI some connected client subscribed to.
    pub fn subscribed_uris(&self) -> Vec<String> {
        let mut uris: Vec<String> = self.live_sessions().iter().flat_map(|s| s.subscriptions()).collect();
        uris.sort();
        uris.dedup();
        uris
    }

    fn broadcast(&self, wanted: impl Fn(&Session) -> bool, method: &str, params: Value) {
        for session in self.live_sessions() {
            if session.is_initialized() && wanted(&session) {
                session.notify(method, &params);
            }
        }
    }

    fn live_sessions(&self) -> Vec<Arc<Session>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|s| s.strong_count() > 0);
        sessions.iter().filter_map(Weak::upgrade).collect()
    }

    pub(crate) fn add_session(&self, session: &Arc<Session>) {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner).push(Arc::downgrade(session));
    }

    /// Removes the entries `keep` refuses from one list; says whether any went.
    fn remove_where<T>(&self, list: impl FnOnce(&mut Registry) -> &mut Vec<Arc<T>>, keep: impl Fn(&T) -> bool) -> bool {
        let mut removed = false;
        self.update(|r| {
            let list = list(r);
            let before = list.len();
            list.retain(|t| keep(t));
            removed = list.len() != before;
        });
        removed
    }

    fn update(&self, change: impl FnOnce(&mut Registry)) {
        let mut current = self.registry.write().unwrap_or_else(PoisonError::into_inner);
        let mut next = Registry::clone(&current);
        change(&mut next);
        *current = Arc::new(next);
    }

    /// The registry as it is now.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// `serverInfo` for a revision.
    pub(crate) fn info(&self, version: ProtocolVersion) -> Value {
        let mut info = Map::new();
        info.insert("name".into(), self.name.clone().into());
        info.insert("version".into(), self.version.clone().into());
        if let (Some(title), true) = (&self.title, version.has_structured()) {
            info.insert("title".into(), title.clone().into());
        }
        if !self.icons.is_empty() && version.has_icons() {
            info.insert("icons".into(), json!(self.icons));
        }
        Value::Object(info)
    }

    pub(crate) fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The capabilities: exactly the features something is registered for.
    pub(crate) fn capabilities(&self, version: ProtocolVersion) -> Value {
        let registry = self.registry();
        let mut caps = Map::new();
        caps.insert("logging".into(), json!({}));
        if !registry.tools.is_empty() {
            caps.insert("tools".into(), json!({ "listChanged": true }));
        }
        let has_resources =
            !registry.resources.is_empty() || !registry.listers.is_empty() || !registry.templates.is_empty();
        if has_resources {
            caps.insert("resources".into(), json!({ "subscribe": true, "listChanged": true }));
        }
        if !registry.prompts.is_empty() {
            caps.insert("prompts".into(), json!({ "listChanged": true }));
        }
        if registry.tasks_enabled(version) {
            caps.insert("tasks".into(), json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }));
        }
        if version.has_audio() && (!registry.prompts.is_empty() || !registry.templates.is_empty()) {
            caps.insert("completions".into(), json!({}));
        }
        Value::Object(caps)
    }
}

/// Replaces the entry that `same` matches, keeping its place, or appends.
fn upsert<T>(list: &mut Vec<Arc<T>>, entry: Arc<T>, same: impl Fn(&T, &T) -> bool) {
    match list.iter().position(|e| same(e, &entry)) {
        Some(i) => list[i] = entry,
        None => list.push(entry),
    }
}
