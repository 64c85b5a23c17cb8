//! `Server`: what is registered (tools, resources, templates, prompts), the server's identity and
//! options, the capabilities that follow from them, and notifications to every connected client.
//! Knows no transport: connections find it through `Arc<Server>`.

pub mod connection;
pub mod context;
mod dispatch;
pub mod lifecycle;
pub(crate) mod listen;
pub(crate) mod pool;
pub(crate) mod registry;
pub mod relay;
pub mod scope;
pub mod session;
pub(crate) mod sink;
pub(crate) mod task_share;

use crate::features::apps::{AppView, ToolUi};
use crate::features::cache::{CacheHint, CacheScope};
use crate::features::completer::Completer;
use crate::features::prompts::{self, GetPromptResult, Prompt, PromptArguments, PromptEntry};
use crate::features::resources::{self, ResourceEntry, ResourceLister, ResourceTemplate, TemplateEntry};
use crate::features::tasks_extension;
use crate::features::tools::{self, Tool, ToolEntry, ToolHandler};
use crate::server::context::RequestCx;
use crate::server::listen::{ListenSlots, Listener};
use crate::server::pool::Pool;
use crate::server::registry::{ExtensionEntry, ExtensionMethod, Registry};
use crate::util::condition::InFlight;
use crate::util::metrics::{Metrics, Refusal, Watched};
use crate::util::seal::StateKey;
use crate::util::uri_template::UriTemplate;
use crate::wire::content::CallToolResult;
use crate::wire::content::Resource;
use crate::wire::content::{Icon, ResourceContents};
use crate::wire::error::RpcError;
use crate::wire::frame::Decoration;
use crate::wire::jsonrpc::Method;
use crate::wire::mcp_header;
use crate::wire::protocol::{ProtocolVersion, Revisions, Runs, Spec, METHODS};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

/// Tunable limits. The defaults suit a local server; change them with the `with_*` methods
/// (`Options::default().with_max_in_flight(16)`), so a new option breaks no embedder.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Items per page of every `*/list`.
    pub page_size: usize,
    /// How long a request to the client (sampling, elicitation, roots) may wait for its answer.
    pub client_request_timeout: Duration,
    /// Requests one session may have running at once; more wait in a bounded queue.
    pub max_in_flight: usize,
    /// Worker threads kept for handlers when idle.
    pub resident_workers: usize,
    /// Worker threads at most, across every session.
    pub max_workers: usize,
    /// The largest message (stdio line or HTTP body) accepted, in bytes.
    pub max_message_bytes: usize,
    /// Cache hint of every 2026-07-28 `*/list` result (default 60000 ms, public).
    pub list_cache: CacheHint,
    /// Cache hint of every 2026-07-28 `resources/read` result (default 60000 ms, private).
    pub read_cache: CacheHint,
    /// How long a 2026-07-28 `requestState` stays valid (default 10 minutes).
    pub state_ttl: Duration,
    /// 2026-07-28 `subscriptions/listen` streams open at once, across every client (default
    /// 1024, half the HTTP connections, each stream holding one); beyond, `-32603` (HTTP 503).
    pub max_listen_streams: usize,
    /// How long a finished tasks-extension task stays readable (its `ttlMs`), and the `ttl` of
    /// a 2025-11-25 task whose client asks for none (default 5 minutes).
    pub task_ttl: Duration,
    /// The protocol revisions served (default [`Revisions::ALL`]); see
    /// [`Options::with_revisions`].
    pub revisions: Revisions,
    /// Tracing on (default off): a request that came without a trace context gets a fresh
    /// one, and every request has a log scope ([`RequestScope`](crate::RequestScope)), whose
    /// end is logged (target `tinymcp::request`) with how long it took.
    pub trace: bool,
    /// Where requests, tool calls and the transport's events are counted (default: nowhere);
    /// see [`Options::with_metrics`].
    pub metrics: Option<Arc<Metrics>>,
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
            list_cache: CacheHint { ttl_ms: 60_000, scope: CacheScope::Public },
            read_cache: CacheHint { ttl_ms: 60_000, scope: CacheScope::Private },
            state_ttl: Duration::from_secs(10 * 60),
            max_listen_streams: 1024,
            task_ttl: Duration::from_secs(5 * 60),
            revisions: Revisions::ALL,
            trace: false,
            metrics: None,
        }
    }
}

impl Options {
    /// Items per page of every `*/list`.
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size;
        self
    }

    /// How long a request to the client (sampling, elicitation, roots) may wait for its answer.
    pub fn with_client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// Requests one session may have running at once; more wait in a bounded queue.
    pub fn with_max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.max_in_flight = max_in_flight;
        self
    }

    /// Worker threads kept for handlers when idle.
    pub fn with_resident_workers(mut self, resident_workers: usize) -> Self {
        self.resident_workers = resident_workers;
        self
    }

    /// Worker threads at most, across every session.
    pub fn with_max_workers(mut self, max_workers: usize) -> Self {
        self.max_workers = max_workers;
        self
    }

    /// The largest message (stdio line or HTTP body) accepted, in bytes.
    pub fn with_max_message_bytes(mut self, max_message_bytes: usize) -> Self {
        self.max_message_bytes = max_message_bytes;
        self
    }

    /// Cache hint of every 2026-07-28 `*/list` result (default 60000 ms, public).
    pub fn with_list_cache(mut self, hint: CacheHint) -> Self {
        self.list_cache = hint;
        self
    }

    /// Cache hint of every 2026-07-28 `resources/read` result (default 60000 ms, private).
    pub fn with_read_cache(mut self, hint: CacheHint) -> Self {
        self.read_cache = hint;
        self
    }

    /// How long a 2026-07-28 `requestState` stays valid (default 10 minutes).
    pub fn with_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// 2026-07-28 `subscriptions/listen` streams open at once, across every client (default 1024).
    pub fn with_max_listen_streams(mut self, max: usize) -> Self {
        self.max_listen_streams = max;
        self
    }

    /// How long a finished task stays readable, and the default `ttl` of 2025-11-25 tasks
    /// (default 5 minutes).
    pub fn with_task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// Serves only the protocol revisions in `revisions` (default: every one), so the server
    /// behaves exactly like one that knows no other, e.g. to test a client or a proxy against
    /// an older or a newer-only server:
    /// - without 2026-07-28 (`..2025-11-25`), a request carrying 2026-07-28 `_meta` is read as
    ///   a handshake-era one (before `initialize`: `-32600`; in a session its `_meta` is
    ///   ignored), `server/discover` and the other 2026-07-28 methods are `-32601`, and over
    ///   HTTP a POST without a session is refused for want of one;
    /// - without a handshake revision (`2026-07-28..`), `initialize` is `-32601` naming the
    ///   revisions served (over HTTP `404`), every request must carry its `_meta`, and the
    ///   legacy HTTP+SSE endpoints answer `404`;
    /// - `initialize` asking for a revision outside the range gets the newest handshake
    ///   revision inside it; `server/discover` and `-32022`'s `data.supported` list the
    ///   per-request revisions inside it.
    ///
    /// ```
    /// use tinymcp::{Options, ProtocolVersion, Revisions};
    /// let old = Revisions::new(ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_11_25).unwrap();
    /// let options = Options::default().with_revisions(old);
    /// assert_eq!(options.revisions, "..2025-11-25".parse().unwrap());
    /// ```
    pub fn with_revisions(mut self, revisions: Revisions) -> Self {
        self.revisions = revisions;
        self
    }

    /// Turns tracing on or off (see [`Options::trace`]). A request's own trace context
    /// (`_meta.traceparent`, or the HTTP `traceparent` header) is passed on either way.
    pub fn with_trace(mut self, trace: bool) -> Self {
        self.trace = trace;
        self
    }

    /// Counts requests (by method and outcome, with latency), tool calls, and the transport's
    /// sessions, streams, statuses, bytes and refusals into `metrics`, which
    /// [`Metrics::render`] writes in the Prometheus text format (the HTTP transport serves it at
    /// `/metrics` when `HttpOptions::serve_metrics` is set). Several servers may share one.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Requests one session may have running at once: `max_in_flight`, and never more than
    /// half the workers, so one client cannot take the whole pool (the rest wait in its queue).
    pub(crate) fn session_share(&self) -> usize {
        self.max_in_flight.min((self.max_workers / 2).max(1))
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
    listeners: Mutex<Vec<Weak<dyn Listener>>>,
    subscribe_hooks: RwLock<Vec<Arc<SubscribeHook>>>,
    unsubscribe_hooks: RwLock<Vec<Arc<SubscribeHook>>>,
    /// Seals 2026-07-28 `requestState`s and HTTP session ids: random per process unless a key
    /// file is set, drawn on first use (the first hash also probes the CPU for SHA instructions:
    /// neither is start-up work).
    state_key: std::sync::OnceLock<Option<StateKey>>,
    /// `info(2026-07-28)` as JSON text, made on first use (every such result carries it).
    latest_info: std::sync::OnceLock<Arc<Box<serde_json::value::RawValue>>>,
    /// What every 2026-07-28 result is decorated with, one per cache hint of the method table
    /// (none, lists, reads), made on first use and shared by the results.
    decorations: [std::sync::OnceLock<Arc<Decoration>>; 3],
    /// Prefixes every id a load balancer may route on (`--node-id`).
    node_id: Option<String>,
    /// Open `subscriptions/listen` streams, under `Options::max_listen_streams`.
    listen_slots: ListenSlots,
    pub(crate) pool: Pool,
    task_share: Arc<task_share::TaskShare>,
    /// The tasks extension's tasks (2026-07-28): this server's own, ended with it.
    ext_tasks: tasks_extension::Table,
    /// Where replicas share their tasks (`set_task_store`); none: in this process only.
    task_store: Option<Arc<dyn crate::server::task_share::TaskStore>>,
    /// Where notifications go to reach other replicas (`set_notice_bus`); none: nowhere.
    notice_bus: Option<Arc<dyn listen::NoticeBus>>,
    /// Set by `drain`: new requests are refused, `/healthz` says 503.
    draining: AtomicBool,
    /// A drain ran out of time: every handler still running sees cancellation (requests
    /// served alone, with no session to close, included).
    drain_expired: AtomicBool,
    /// What `drain` waits for once handlers are done: a transport's answers written out.
    flushes: Mutex<Vec<Flush>>,
    /// Another server each connection's messages go to instead of the method table.
    relay: Option<Box<dyn relay::Relaying>>,
    /// Requests its relays handed on and not yet answered: `drain` waits for them too.
    relayed: Arc<InFlight>,
}

/// Waits, up to the deadline, until a transport has written out every answer queued so far.
pub(crate) type Flush = Box<dyn Fn(Instant) + Send + Sync>;

/// A hook run as a subscription is made or ends: its URI, and the request that made or ended it
/// (`resources/subscribe`, `resources/unsubscribe`; none for a 2026-07-28 listen stream's, or a
/// session's that ends).
type SubscribeHook = dyn Fn(&str, Option<&RequestCx>) + Send + Sync;

/// Runs each of `hooks` with `uri` on a copy of the list, with no lock held: a hook may add a hook.
fn run_hooks(hooks: &RwLock<Vec<Arc<SubscribeHook>>>, uri: &str, by: Option<&RequestCx>) {
    let hooks = hooks.read().unwrap_or_else(PoisonError::into_inner).clone();
    for hook in hooks {
        hook(uri, by);
    }
}

impl Server {
    /// A server that introduces itself with this name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self::with_options(name, version, Options::default())
    }

    /// A server with non-default limits.
    pub fn with_options(name: impl Into<String>, version: impl Into<String>, options: Options) -> Self {
        let pool = Pool::new(options.resident_workers, options.max_workers);
        if let Some(metrics) = &options.metrics {
            metrics.name_methods(method_labels());
            let (queued, workers) = (pool.sizes(), pool.sizes());
            metrics.watch(Watched::QueueDepth, Box::new(move || queued().0 as i64));
            metrics.watch(Watched::Workers, Box::new(move || workers().1 as i64));
        }
        Server {
            name: name.into(),
            version: version.into(),
            title: None,
            icons: Vec::new(),
            instructions: None,
            latest_info: std::sync::OnceLock::new(),
            decorations: Default::default(),
            pool,
            task_share: task_share::TaskShare::new(options.session_share().min(options.max_workers / 4)),
            options,
            registry: RwLock::new(Arc::new(Registry::default())),
            listeners: Mutex::new(Vec::new()),
            subscribe_hooks: RwLock::new(Vec::new()),
            unsubscribe_hooks: RwLock::new(Vec::new()),
            listen_slots: ListenSlots::default(),
            state_key: std::sync::OnceLock::new(),
            node_id: None,
            ext_tasks: tasks_extension::Table::default(),
            task_store: None,
            notice_bus: None,
            draining: AtomicBool::new(false),
            drain_expired: AtomicBool::new(false),
            flushes: Mutex::new(Vec::new()),
            relay: None,
            relayed: Arc::default(),
        }
    }

    /// Seals and opens 2026-07-28 `requestState`s with the key in `path` (hex, at least 64
    /// digits, e.g. from `openssl rand -hex 32`) instead of a random one, so replicas that
    /// share the file accept each other's states, and states survive a restart.
    pub fn set_state_key_file(&mut self, path: &std::path::Path) -> Result<(), crate::Error> {
        self.state_key = std::sync::OnceLock::from(Some(StateKey::from_file(path).map_err(crate::Error::Config)?));
        Ok(())
    }

    /// Names this replica: every id a load balancer may route on (HTTP and legacy SSE session
    /// ids, task ids) then starts with `ID.`. `ID` is 1 to 32 ASCII letters, digits or `-`.
    pub fn set_node_id(&mut self, id: &str) -> Result<(), crate::Error> {
        let fits = (1..=32).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !fits {
            return Err(crate::Error::Config(format!(
                "node id {id:?}: expected 1 to 32 ASCII letters, digits or '-' (no dot: it ends the prefix)"
            )));
        }
        self.node_id = Some(id.to_owned());
        Ok(())
    }

    /// Shares this server's tasks (both eras) with the replicas that use the same `store`:
    /// each task's record is written there, and a task another replica runs is answered from
    /// it (`tasks/get`, `tasks/result`, `tasks/cancel`). Only task methods touch the store.
    pub fn set_task_store(&mut self, store: Arc<dyn crate::server::task_share::TaskStore>) {
        self.task_store = Some(store);
    }

    /// Passes every server-wide notification this server sends (list changes, resource
    /// updates, tasks-extension statuses) to `bus` too, for the listeners of other replicas.
    pub fn set_notice_bus(&mut self, bus: Arc<dyn listen::NoticeBus>) {
        self.notice_bus = Some(bus);
    }

    /// A notification another replica sent its listeners (through the `NoticeBus`), delivered
    /// to this server's listeners as if it were this server's own, filtered the same way: a
    /// resource update to its subscribers, a task's status to the streams that asked for the
    /// task, a list change to all; anything else is ignored. It is not passed on again.
    pub fn deliver_notice(&self, method: &str, params: &Value) {
        match method {
            resources::UPDATED => {
                if let Some(uri) = params.get("uri").and_then(Value::as_str) {
                    self.broadcast_here(|s| s.is_subscribed(uri), method, json!({ "uri": uri }));
                }
            }
            tasks_extension::NOTIFICATION => {
                if let Some(id) = params.get("taskId").and_then(Value::as_str) {
                    let wanted = |l: &dyn Listener| l.task_ids().iter().any(|t| t == id);
                    self.broadcast_here(wanted, method, params.clone());
                }
            }
            tools::LIST_CHANGED | resources::LIST_CHANGED | prompts::LIST_CHANGED => {
                self.broadcast_here(|_| true, method, json!({}));
            }
            _ => log::debug!("a notice from another replica ignored: {method}"),
        }
    }

    /// The store tasks are shared through, if any.
    pub(crate) fn task_store(&self) -> Option<&Arc<dyn crate::server::task_share::TaskStore>> {
        self.task_store.as_ref()
    }

    // For the tinymcp binary (`tinymcp proxy`), not for embedders.
    #[doc(hidden)]
    /// Makes this server a relay (`tinymcp proxy`): every connection opens its own other
    /// server with `open`, and every message goes there instead of to what is registered here.
    /// The transport, its limits and checks stay this server's.
    /// A 2026-07-28 request, which comes without a session, goes to one other server shared by
    /// all such requests, translated when that server speaks only the handshake revisions.
    pub fn set_relay(
        &mut self,
        open: impl Fn(relay::Relayed) -> Result<Box<dyn relay::Peer>, String> + Send + Sync + 'static,
    ) {
        self.relay = Some(Box::new(relay::Setup::new(Box::new(open), false)));
    }

    // For the tinymcp binary (`tinymcp proxy --shared`), not for embedders.
    #[doc(hidden)]
    /// Makes this server a relay to one other server that every session shares (`tinymcp
    /// proxy --shared`), opened with `open` on first use (and again if it ends): each client's
    /// request ids and progress tokens are remapped, what concerns every client (list changes,
    /// resource updates) reaches each session, and the other server's requests go to the
    /// client whose request is in flight.
    pub fn set_shared_relay(
        &mut self,
        open: impl Fn(relay::Relayed) -> Result<Box<dyn relay::Peer>, String> + Send + Sync + 'static,
    ) {
        self.relay = Some(Box::new(relay::Setup::new(Box::new(open), true)));
    }

    /// Whether this server relays to another (`Server::set_relay`): a transport makes
    /// room for the session before `initialize` reaches the other server.
    pub fn is_relay(&self) -> bool {
        self.relay.is_some()
    }

    pub(crate) fn relay(&self) -> Option<&dyn relay::Relaying> {
        self.relay.as_deref()
    }

    /// The count of relayed requests not yet answered, which `drain` waits for.
    pub(crate) fn relayed(&self) -> &Arc<InFlight> {
        &self.relayed
    }

    /// The node id set with [`Server::set_node_id`].
    pub fn node_id(&self) -> Option<&str> {
        self.node_id.as_deref()
    }

    /// The key that seals session ids and `requestState`: the key file's, else random per
    /// process; `None` if the OS gave no randomness and no key file was set (then
    /// input-required results are refused).
    pub fn sealing_key(&self) -> Option<&StateKey> {
        self.state_key
            .get_or_init(|| {
                StateKey::random()
                    .map_err(|e| log::error!("no random state key ({e}): input-required results are refused"))
                    .ok()
            })
            .as_ref()
    }

    /// Sets the human-readable title sent in `serverInfo` (2025-06-18 and later).
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.title = Some(title.into());
        self.latest_info = std::sync::OnceLock::new();
    }

    /// Sets the icons sent in `serverInfo` (2025-11-25 and later).
    pub fn set_icons(&mut self, icons: Vec<Icon>) {
        self.icons = icons;
        self.latest_info = std::sync::OnceLock::new();
    }

    /// Sets the `instructions` returned by `initialize`.
    pub fn set_instructions(&mut self, instructions: impl Into<String>) {
        self.instructions = Some(instructions.into());
    }

    /// The limits in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The metrics this server counts into (`Options::with_metrics`), if any.
    pub fn metrics(&self) -> Option<&Arc<Metrics>> {
        self.options.metrics.as_ref()
    }

    /// When a request of `method` begins, when metrics are kept and its latency is sampled.
    pub(crate) fn clock(&self, method: &Method) -> Option<Instant> {
        self.options.metrics.as_ref()?.start(method.spec().map(|s| s.id as usize))
    }

    /// Counts a request's answer since `started` (`outcome` `None`: cancelled, not answered).
    pub(crate) fn count_request<T>(
        &self,
        method: &Method,
        started: Option<Instant>,
        outcome: Option<&Result<T, RpcError>>,
    ) {
        if let Some(metrics) = &self.options.metrics {
            let outcome = outcome.map(|o| o.as_ref().map(|_| ()).map_err(|e| e.code));
            metrics.request(method.spec().map(|s| s.id as usize), started, outcome);
        }
    }

    /// Counts a request refused because its session's queue is full: a request and a refusal.
    pub(crate) fn count_queue_full<T>(&self, spec: Option<&'static Spec>, outcome: &Result<T, RpcError>) {
        if let Some(metrics) = &self.options.metrics {
            metrics.refused(Refusal::Queue);
            let outcome = outcome.as_ref().map(|_| ()).map_err(|e| e.code);
            metrics.request(spec.map(|s| s.id as usize), None, Some(outcome));
        }
    }

    /// Counts a message that could not be read as one (`code`: -32700, -32600), method `other`.
    pub(crate) fn count_unparsed(&self, code: i64) {
        if let Some(metrics) = &self.options.metrics {
            metrics.request(None, None, Some(Err(code)));
        }
    }

    /// Registers a tool, replacing one of the same name (its place in the list is kept). A tool
    /// whose `x-mcp-header` annotations are invalid (not an HTTP token, used twice, on a property
    /// that is not a string, integer or boolean, or not reachable through `properties`) is not
    /// registered, and the reason is logged as an error.
    pub fn register_tool(
        &self,
        tool: Tool,
        handler: impl Fn(&RequestCx, Value) -> Result<CallToolResult, RpcError> + Send + Sync + 'static,
    ) {
        self.insert_tool(tool, Box::new(handler));
    }

    /// Says why the tool `name` is not registered, and what would make it so: a call of it is
    /// still refused as an unknown tool (`-32602`), with `why` in the message. A provider that
    /// registers some tools only on request (a flag) tells a model that calls one why it is
    /// missing. Registering the tool later makes this moot.
    pub fn explain_absent_tool(&self, name: impl Into<String>, why: impl Into<String>) {
        let (name, why) = (name.into(), why.into());
        self.update(|r| match r.absent_tools.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = why,
            None => r.absent_tools.push((name, why)),
        });
    }

    // The generic `register_*` only box the handler; the registry update lives here once, not
    // once per registered closure type (which made every provider's code several times larger).
    #[inline(never)]
    fn insert_tool(&self, tool: Tool, handler: Box<ToolHandler>) {
        let mut entry = ToolEntry::new(tool, handler);
        entry.stats = self.options.metrics.as_ref().map(|m| m.tool(&entry.tool.name));
        let entry = Arc::new(entry);
        // Clients drop a tool whose `x-mcp-header` annotations break the rules, so it is not served.
        if let Err(e) = mcp_header::check_annotations(&entry.tool.input_schema) {
            log::error!("tool {:?} not registered: {e}", entry.tool.name);
            return;
        }
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
            handler: Arc::new(move |cx, uri, _| handler(cx, uri)),
            cache: None,
            contents_meta: None,
        }));
    }

    /// Registers a tool with its HTML view (MCP Apps, SEP-1865) in one call: the view becomes a
    /// `ui://` resource of type `text/html;profile=mcp-app`, listed and read like any other
    /// (its `_meta.ui` on the listing and on every read), and the tool is linked to it
    /// (`_meta.ui.resourceUri`; keep a visibility set with [`Tool::with_ui`], such as
    /// [`ToolUi::app_only`](crate::ToolUi::app_only)). Only clients that declare the extension
    /// see the link and app-only tools; the others get the same tool without it, so its
    /// result's `content` should make sense as text. Several tools may share one view.
    pub fn register_app_tool(
        &self,
        tool: Tool,
        view: AppView,
        handler: impl Fn(&RequestCx, Value) -> Result<CallToolResult, RpcError> + Send + Sync + 'static,
    ) {
        let ui = match tool.ui.clone() {
            Some(ui) => ToolUi { resource_uri: view.uri.clone(), ..ui },
            None => ToolUi::new(view.uri.clone()),
        };
        self.register_app_view(view);
        self.register_tool(tool.with_ui(ui), handler);
    }

    /// Registers an HTML view alone (MCP Apps), for tools that link to it with [`Tool::with_ui`];
    /// replaces a resource of the same URI.
    pub fn register_app_view(&self, view: AppView) {
        let contents_meta = Some(view.meta.to_meta());
        let resource = view.resource();
        self.insert_resource(Arc::new(ResourceEntry {
            resource,
            handler: Arc::new(move |cx, _, _| view.read(cx)),
            cache: None,
            contents_meta,
        }));
    }

    /// The name the server introduces itself with.
    pub fn name(&self) -> &str {
        &self.name
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
        let completer = completer.map(Arc::from);
        let entry = Arc::new(TemplateEntry { template, parsed, handler: Arc::new(handler), completer, cache: None });
        self.update(|r| upsert(&mut r.templates, entry, |a, b| a.template.uri_template == b.template.uri_template));
        Ok(())
    }

    /// Sets the cache hint 2026-07-28 clients get with `resources/read` of one registered
    /// resource (by URI) or template (by URI template), over `Options::read_cache`; call it
    /// right after registering, since registering again starts without a hint. Says whether
    /// such a registration exists.
    pub fn set_read_cache(&self, uri_or_template: &str, hint: CacheHint) -> bool {
        let mut found = false;
        self.update(|r| {
            for entry in r.resources.iter_mut().filter(|e| e.resource.uri == uri_or_template) {
                *entry = Arc::new(ResourceEntry { cache: Some(hint), ..ResourceEntry::clone(entry) });
                found = true;
            }
            for entry in r.templates.iter_mut().filter(|e| e.template.uri_template == uri_or_template) {
                *entry = Arc::new(TemplateEntry { cache: Some(hint), ..TemplateEntry::clone(entry) });
                found = true;
            }
        });
        found
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

    /// Registers an extension (SEP-2133): `settings` is advertised under
    /// `capabilities.extensions[name]`, and `handler` answers each of `methods` (called with the
    /// method's name and params) on the worker pool. Each [`ExtensionMethod`] is the method's row
    /// in the server's table: the revisions it exists in and its results' cache hint. A name the
    /// built-in table already has stays the built-in method's.
    ///
    /// ```
    /// use serde_json::json;
    /// use tinymcp::{ExtensionMethod, Server};
    /// let server = Server::new("notes", "1.0");
    /// server.register_extension(
    ///     "example.com/notes",
    ///     json!({}),
    ///     &[ExtensionMethod::new("notes/list").with_list_cache()],
    ///     |_cx, _method, _params| Ok(json!({ "notes": [] })),
    /// );
    /// ```
    pub fn register_extension(
        &self,
        name: &str,
        settings: Value,
        methods: &[ExtensionMethod],
        handler: impl Fn(&RequestCx, &str, Value) -> Result<Value, RpcError> + Send + Sync + 'static,
    ) {
        let entry = Arc::new(ExtensionEntry {
            name: name.to_owned(),
            settings,
            methods: methods.to_vec(),
            handler: Box::new(handler),
        });
        self.update(|r| upsert(&mut r.extensions, entry, |a, b| a.name == b.name));
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

    /// Runs `hook` with the URI of every `resources/subscribe`, before it is answered, and of
    /// each of a 2026-07-28 `subscriptions/listen`'s `resourceSubscriptions`: a
    /// provider that polls for changes notes there the state later changes are compared with,
    /// so a change right after the subscription is not missed.
    pub fn on_subscribe(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        self.on_subscribe_from(move |uri, _| hook(uri));
    }

    /// [`on_subscribe`](Server::on_subscribe), with the context of the `resources/subscribe`
    /// request that made the subscription (its client's session, say); `None` for a 2026-07-28
    /// listen stream's.
    pub fn on_subscribe_from(&self, hook: impl Fn(&str, Option<&RequestCx>) + Send + Sync + 'static) {
        self.subscribe_hooks.write().unwrap_or_else(PoisonError::into_inner).push(Arc::new(hook));
    }

    pub(crate) fn subscribed(&self, uri: &str, by: Option<&RequestCx>) {
        run_hooks(&self.subscribe_hooks, uri, by);
    }

    /// Runs `hook` with the URI of each subscription that ends: a `resources/unsubscribe` of a
    /// URI its client held (with that request's context), and, with `None`, each URI held by a
    /// session that ends (its connection closed: `DELETE`, expiry, eviction, the stream gone) or
    /// named by a 2026-07-28 `subscriptions/listen` stream that ends. It runs once that
    /// subscriber no longer counts, so [`has_subscribers`](Server::has_subscribers) says whether
    /// another client still holds the URI: a gateway ends its own subscription upstream with
    /// the last one.
    pub fn on_unsubscribe_from(&self, hook: impl Fn(&str, Option<&RequestCx>) + Send + Sync + 'static) {
        self.unsubscribe_hooks.write().unwrap_or_else(PoisonError::into_inner).push(Arc::new(hook));
    }

    pub(crate) fn unsubscribed(&self, uri: &str, by: Option<&RequestCx>) {
        run_hooks(&self.unsubscribe_hooks, uri, by);
    }

    /// Tells the clients subscribed to `uri` that it changed.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.broadcast(|s| s.is_subscribed(uri), resources::UPDATED, json!({ "uri": uri }));
    }

    /// `notify_resource_updated` for this replica's listeners only, not published to the other
    /// replicas (`NoticeBus`): a change a replica saw on a disk it serves, which every replica
    /// serving that disk sees with its own watcher (so a stream hears it once, not once per
    /// replica), and which a replica serving another disk does not have.
    pub fn notify_resource_updated_here(&self, uri: &str) {
        self.broadcast_here(|s| s.is_subscribed(uri), resources::UPDATED, json!({ "uri": uri }));
    }

    /// `notify_resource_list_changed` for this replica's listeners only (see
    /// [`Server::notify_resource_updated_here`]).
    pub fn notify_resource_list_changed_here(&self) {
        self.broadcast_here(|_| true, resources::LIST_CHANGED, json!({}));
    }

    /// Whether any connected client subscribed to `uri` (so a watcher knows what to poll).
    pub fn has_subscribers(&self, uri: &str) -> bool {
        // One that ended (a closed session not dropped yet) hears nothing: it does not count.
        self.live_listeners().iter().any(|s| s.is_listening() && s.is_subscribed(uri))
    }

    /// Every URI some connected client subscribed to.
    pub fn subscribed_uris(&self) -> Vec<String> {
        let mut uris: Vec<String> =
            self.live_listeners().iter().filter(|s| s.is_listening()).flat_map(|s| s.subscriptions()).collect();
        uris.sort_unstable();
        uris.dedup();
        uris
    }

    /// Sends to every listener that hears it (a session once initialized; later a listen stream).
    /// A relayed server's list change or resource update, to the listen streams that asked.
    pub(crate) fn relay_broadcast(&self, method: &str, params: &Value) {
        match params.get("uri").and_then(Value::as_str) {
            Some(uri) if method == resources::UPDATED => self.notify_resource_updated(uri),
            _ => self.broadcast(|_| true, method, json!({})),
        }
    }

    /// Sends to this server's listeners that hear it, and to the other replicas (`NoticeBus`).
    fn broadcast(&self, wanted: impl Fn(&dyn Listener) -> bool, method: &str, params: Value) {
        if let Some(bus) = &self.notice_bus {
            bus.publish(method, &params);
        }
        self.broadcast_here(wanted, method, params);
    }

    fn broadcast_here(&self, wanted: impl Fn(&dyn Listener) -> bool, method: &str, params: Value) {
        for listener in self.live_listeners() {
            if listener.is_listening() && wanted(&*listener) {
                listener.notify(method, &params);
            }
        }
    }

    fn live_listeners(&self) -> Vec<Arc<dyn Listener>> {
        let mut listeners = self.listeners.lock().unwrap_or_else(PoisonError::into_inner);
        listeners.retain(|s| s.strong_count() > 0);
        listeners.iter().filter_map(Weak::upgrade).collect()
    }

    /// Adds a listener for server-wide notifications; it is dropped once nothing else holds it.
    pub(crate) fn add_listener(&self, listener: Arc<dyn Listener>) {
        let mut listeners = self.listeners.lock().unwrap_or_else(PoisonError::into_inner);
        // A `Weak` keeps its target's memory: without broadcasts (which prune too) every
        // session an HTTP server ever had would stay (seen in scripts/soak.sh).
        listeners.retain(|l| l.strong_count() > 0);
        listeners.push(Arc::downgrade(&listener));
        drop(listeners);
        // A stream asking for tasks hears where each stands now (a change from here on follows).
        for id in listener.task_ids() {
            tasks_extension::replay(&self.ext_tasks, id, |params| {
                listener.notify(tasks_extension::NOTIFICATION, params)
            });
        }
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

    /// Changes the registry: in place while no snapshot of it is held (registration before
    /// serving, one entry at a time, copies nothing), else on a copy that replaces it, so a
    /// handler holding a snapshot keeps reading the registry it started with.
    fn update(&self, change: impl FnOnce(&mut Registry)) {
        let mut current = self.registry.write().unwrap_or_else(PoisonError::into_inner);
        let registry = Arc::make_mut(&mut current);
        change(registry);
        registry.settle();
    }

    /// The registered tool `name` (for transports that check request headers against its
    /// arguments, SEP-2243).
    pub(crate) fn registered_tool(&self, name: &str) -> Option<Arc<ToolEntry>> {
        self.registry().tools.iter().find(|t| t.tool.name == name).cloned()
    }

    /// A message as a log line may show it: a `tools/call` of a tool marked sensitive
    /// (`Tool::sensitive`) with its arguments replaced. Only called when the line is logged
    /// (the transports' frame lines, at debug): what a transport logs of a frame it read.
    pub fn loggable<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        use std::borrow::Cow;
        // Without a sensitive tool, or a call in the text, nothing to read.
        if !text.contains("tools/call") || !self.registry().tools.iter().any(|t| t.tool.sensitive) {
            return Cow::Borrowed(text);
        }
        let Ok(mut value) = serde_json::from_str::<Value>(text) else { return Cow::Borrowed(text) };
        let registry = self.registry();
        let mut redacted = false;
        let mut redact = |message: &mut Value| {
            let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else { return };
            let name = params.get("name").and_then(Value::as_str);
            let sensitive = registry.tools.iter().any(|t| t.tool.sensitive && Some(t.tool.name.as_str()) == name);
            if sensitive && params.contains_key("arguments") {
                params.insert("arguments".into(), Value::String("[redacted]".into()));
                redacted = true;
            }
        };
        match &mut value {
            Value::Array(batch) => batch.iter_mut().for_each(&mut redact),
            message => redact(message),
        }
        if redacted {
            Cow::Owned(value.to_string())
        } else {
            Cow::Borrowed(text)
        }
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
        if let (Some(title), true) = (&self.title, version.has_titles()) {
            info.insert("title".into(), title.clone().into());
        }
        if !self.icons.is_empty() && version.has_icons() {
            info.insert("icons".into(), json!(self.icons));
        }
        Value::Object(info)
    }

    /// `info` of 2026-07-28, which every result of that revision carries: made once.
    pub(crate) fn latest_info(&self) -> Arc<Box<serde_json::value::RawValue>> {
        Arc::clone(self.latest_info.get_or_init(|| {
            let text = serde_json::to_string(&self.info(ProtocolVersion::V2026_07_28)).unwrap_or_else(|_| "{}".into());
            // Invariant: serde_json wrote that text, so it is valid JSON.
            Arc::new(serde_json::value::RawValue::from_string(text).unwrap_or_default())
        }))
    }

    /// The decoration of this server's 2026-07-28 results for a method of cache hint `cache`.
    pub(crate) fn decoration(&self, cache: crate::wire::protocol::Cache) -> Arc<Decoration> {
        use crate::wire::protocol::Cache;
        let (slot, hint) = match cache {
            Cache::None => (0, None),
            Cache::List => (1, Some(self.options.list_cache)),
            // What a resource holds may depend on who reads it.
            Cache::Read => (2, Some(self.options.read_cache)),
        };
        Arc::clone(
            self.decorations[slot].get_or_init(|| Arc::new(Decoration::new(self.latest_info(), hint.map(Into::into)))),
        )
    }

    pub(crate) fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// Stops the server: every connection's running handlers see cancellation and their
    /// requests to the client fail at once; the worker threads finish their current job and
    /// are joined (a handler that ignores cancellation for 5 s is left to finish alone). Requests that arrive later get no answer, so stop the transports first:
    /// stdio ends with its input, HTTP with `HttpServer::shutdown`. Dropping the last
    /// `Arc<Server>` does the same.
    pub fn shutdown(&self) {
        for listener in self.live_listeners() {
            listener.close();
        }
        // Tasks outlive their requests, not the server: their work is told to stop (a command
        // kills its process group) before the pool waits for it.
        self.cancel_tasks();
        self.pool.shutdown(SHUTDOWN_GRACE);
    }

    /// Tells every unfinished tasks-extension task's work to stop (a command kills its process
    /// group); tasks outlive their requests, not their server.
    fn cancel_tasks(&self) {
        tasks_extension::end_all(&self.ext_tasks, false, &|id, params| self.notify_task(id, params));
    }

    /// Stops taking new work and waits up to `within` for the work in flight: new requests are
    /// refused from now on (over HTTP with `503`; `/healthz` answers `503` too), while answers
    /// to the server's own requests and cancellations still arrive, so running handlers can
    /// finish. Returns `true` once every handler is done and its answer written out; `false`
    /// when `within` ran out, after cancelling what still runs (its requests get no answer, as
    /// for any cancelled request). Tasks-extension tasks are cancelled at once; with a task
    /// store, tasks of both eras run on instead, and those unfinished at the end are failed,
    /// saying that their replica shut down. Transports are the caller's to stop afterwards:
    /// `HttpServer::drain` does all of it for HTTP.
    pub fn drain(&self, within: Duration) -> bool {
        self.draining.store(true, Ordering::SeqCst);
        // Without a task store a task's request was answered long ago and the task dies with
        // the process anyway (its result unreadable, every request here refused): its work is
        // stopped now (a command's process group killed), not waited for. With one, another
        // replica reads what it becomes: it may finish within the drain (its work runs on the
        // pool, waited for below); what is unfinished then is failed, saying so.
        if self.task_store.is_none() {
            self.cancel_tasks();
        }
        let deadline = Instant::now() + within;
        // A relay's requests run elsewhere (its child process), not on the pool: waited for too.
        let quiet = self.pool.wait_quiet(deadline) && self.relayed.wait_zero(deadline);
        if let Some(store) = &self.task_store {
            tasks_extension::end_all(&self.ext_tasks, true, &|id, params| self.notify_task(id, params));
            store.shut_down();
        }
        if !quiet {
            log::warn!("handlers still running after {within:?} of draining: cancelled");
            self.drain_expired.store(true, Ordering::SeqCst);
            for listener in self.live_listeners() {
                listener.close();
            }
            return false;
        }
        for flush in self.flushes.lock().unwrap_or_else(PoisonError::into_inner).iter() {
            flush(deadline);
        }
        true
    }

    /// Whether a drain ran out of time: every handler still running is cancelled.
    pub(crate) fn drain_expired(&self) -> bool {
        self.drain_expired.load(Ordering::Relaxed)
    }

    /// Whether `drain` was called: new requests are refused.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Makes `drain` wait for a transport's output too (stdio's writer).
    pub(crate) fn add_flush(&self, flush: Flush) {
        self.flushes.lock().unwrap_or_else(PoisonError::into_inner).push(flush);
    }

    /// Whether every handler thread (`max_workers`) is busy, so a new request waits for one to
    /// finish; HTTP's `/healthz` answers 503 while it is.
    pub fn saturated(&self) -> bool {
        self.pool.saturated()
    }

    /// The server-wide count of open `subscriptions/listen` streams.
    pub(crate) fn listen_slots(&self) -> &ListenSlots {
        &self.listen_slots
    }

    /// The share of the pool all task work runs in: a quarter of the workers (at least one), and
    /// no more than one session's, so one client's requests and tasks together leave room.
    pub(crate) fn task_share(&self) -> &Arc<task_share::TaskShare> {
        &self.task_share
    }

    /// The tasks extension's tasks.
    pub(crate) fn ext_tasks(&self) -> &tasks_extension::Table {
        &self.ext_tasks
    }

    /// Sends a tasks-extension status (`notifications/tasks`) to the listen streams that asked
    /// for task `task_id`.
    pub(crate) fn notify_task(&self, task_id: &str, params: &Value) {
        let wanted = |l: &dyn Listener| l.task_ids().iter().any(|id| id == task_id);
        self.broadcast(wanted, tasks_extension::NOTIFICATION, params.clone());
    }

    /// The capabilities: exactly the features something is registered for.
    pub(crate) fn capabilities(&self, version: ProtocolVersion) -> Value {
        self.registry().capabilities(version)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.cancel_tasks();
        self.pool.shutdown(SHUTDOWN_GRACE);
    }
}

/// The metrics' method labels, by the slot `Server::count_request` counts each in (its `Id`):
/// the requests of the method table; notifications are never answered.
fn method_labels() -> Vec<Option<&'static str>> {
    let mut names = vec![None; 32];
    for spec in METHODS.iter().filter(|s| s.runs != Runs::Nowhere) {
        if let Some(slot) = names.get_mut(spec.id as usize) {
            *slot = Some(spec.name);
        }
    }
    names
}

/// The error a request gets while the server drains: it did no work, so another server (or
/// this one, restarted) may take it.
pub fn shutting_down() -> RpcError {
    RpcError::new(crate::wire::error::INTERNAL_ERROR, "the server is shutting down: send this request again later")
}

/// How long stopping a server waits for handlers to end; one that ignores cancellation longer
/// is left to finish alone.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Replaces the entry that `same` matches, keeping its place, or appends.
fn upsert<T>(list: &mut Vec<Arc<T>>, entry: Arc<T>, same: impl Fn(&T, &T) -> bool) {
    match list.iter().position(|e| same(e, &entry)) {
        Some(i) => list[i] = entry,
        None => list.push(entry),
    }
}
