//! `RequestCx`: what a handler knows of the request it serves and can do with it: the revision
//! and client capabilities (per request, ready for stateless revisions), cancellation, progress,
//! logging, and requests to the client (sampling, elicitation, roots) with a timeout.
//! Knows no feature type; it holds the `Server` that runs the request, and a feature reads
//! what it needs of it through the narrow accessors here, never `Server` itself.

use crate::server::scope::RequestScope;
use crate::server::session::{Negotiated, Session};
use crate::server::sink::{Outgoing, Sink};
use crate::server::task_share::TaskShare;
pub(crate) use crate::server::task_share::{TaskAsk, TaskStore, TaskTicket};
use crate::server::Server;
use crate::util::lit;
use crate::wire::error::{self, RpcError, MISSING_CLIENT_CAPABILITY};
use crate::wire::frame;
use crate::wire::jsonrpc::RequestId;
use crate::wire::meta::{Capabilities, LogLevel, RequestMeta, RELATED_TASK};
use crate::wire::protocol::ProtocolVersion;
use crate::wire::trace::TraceContext;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

/// The input-required bookkeeping of one 2026-07-28 request (`tools/call`, `prompts/get`,
/// `resources/read`): the answers the client gave, and the requests this round still needs.
/// A handler's `elicit_raw` (and the typed forms over it), `sample`, `list_roots` and `ask`
/// read answers here instead of sending a request to the client; a missing one is recorded
/// and the handler is stopped with [`input_required`], so one handler serves both eras.
#[derive(Debug, Default)]
pub(crate) struct Inputs {
    /// The client's answers, by key (from the sealed state and this retry's `inputResponses`).
    pub answers: Map<String, Value>,
    /// What this round could not answer: key -> `{method, params}`.
    pub pending: Mutex<Map<String, Value>>,
    /// Requests asked so far this round, for the default keys (`elicitation-1`, `sampling-2`, ...).
    pub asked: AtomicUsize,
}

/// What a handler's request to the client stopped on: the answer is not there yet, and the
/// method table turns the request into an `InputRequiredResult` whatever the handler returns.
pub(crate) fn input_required() -> RpcError {
    RpcError::new(error::INTERNAL_ERROR, "input required: answered with an InputRequiredResult")
}

/// One request a handler needs the client to answer (see [`RequestCx::ask`]).
#[derive(Debug, Clone)]
pub struct InputRequest {
    /// The key the answer comes back under (2026-07-28 `inputRequests`), unique in a request.
    pub key: String,
    /// `sampling/createMessage`, `elicitation/create` or `roots/list`.
    pub method: String,
    /// The request's params.
    pub params: Value,
}

impl InputRequest {
    /// An `elicitation/create` under `key`.
    pub fn elicit(key: impl Into<String>, params: Value) -> Self {
        InputRequest { key: key.into(), method: ELICIT.into(), params }
    }
    /// A `sampling/createMessage` under `key`.
    pub fn sample(key: impl Into<String>, params: Value) -> Self {
        InputRequest { key: key.into(), method: SAMPLE.into(), params }
    }
    /// A `roots/list` under `key`.
    pub fn list_roots(key: impl Into<String>) -> Self {
        InputRequest { key: key.into(), method: ROOTS.into(), params: json!({}) }
    }
}

const ELICIT: &str = "elicitation/create";
const SAMPLE: &str = "sampling/createMessage";
const ROOTS: &str = "roots/list";
/// What a handler may ask of the client, and the capability the client must declare for it.
const ASKABLE: [(&str, &str); 3] = [(SAMPLE, "sampling"), (ELICIT, "elicitation"), (ROOTS, "roots")];

/// The background task a context runs for (2025-11-25 tasks), as far as the context needs it.
pub(crate) trait TaskLink: Send + Sync {
    /// The task's id, for `_meta` of the requests it sends.
    fn id(&self) -> &str;
    /// Marks the task as waiting for the client's input, or working again.
    fn set_waiting(&self, waiting: bool);
    /// Sets the task's `statusMessage` (what `progress` reports with a message).
    fn set_message(&self, _message: &str) {}
}

/// The terms a request is served under. Up to 2025-11-25 they come from what `initialize`
/// settled for the session (`From<Negotiated>`); from 2026-07-28 from the request's own
/// `_meta`, which that revision's handling fills in here, and nowhere else.
pub(crate) struct Terms {
    pub version: ProtocolVersion,
    pub client_capabilities: Capabilities,
    /// The level the request itself asked for; `None` reads the session's.
    pub log_level: Option<LogLevel>,
    /// The scopes the request's access token granted, when its transport checks scopes;
    /// `None`: nothing is withheld for want of a scope (stdio, no OAuth).
    pub scopes: Option<Arc<[String]>>,
    /// The subject (`sub`) of the request's verified access token, when it named one.
    pub subject: Option<Arc<str>>,
    /// The request's `_meta.progressToken`, read with the rest of its `_meta`.
    pub progress_token: Option<Value>,
    /// What its log lines say of it, with its trace context (`None`: no trace context and
    /// tracing off).
    pub scope: Option<Arc<RequestScope>>,
}

impl Terms {
    /// These terms for a request logged and traced under `scope`.
    pub(crate) fn scoped(self, scope: Option<Arc<RequestScope>>) -> Terms {
        Terms { scope, ..self }
    }

    /// These terms for a request that asked for progress with `token`.
    pub(crate) fn with_progress(self, progress_token: Option<Value>) -> Terms {
        Terms { progress_token, ..self }
    }

    /// These terms for a request whose transport says its token granted `scopes` to
    /// `subject` (nothing is allocated for a request without a token).
    pub(crate) fn granting(self, scopes: Option<&[String]>, subject: Option<&str>) -> Terms {
        Terms { scopes: scopes.map(Arc::from), subject: subject.map(Arc::from), ..self }
    }
}

/// Whether a request whose token granted `granted` (`None`: scopes are not checked) may use
/// what needs every scope of `needed`.
pub(crate) fn grants(granted: Option<&[String]>, needed: &[String]) -> bool {
    needed.is_empty() || granted.is_none_or(|granted| needed.iter().all(|s| granted.contains(s)))
}

impl From<RequestMeta> for Terms {
    fn from(meta: RequestMeta) -> Terms {
        Terms {
            version: meta.protocol_version,
            client_capabilities: meta.client_capabilities,
            log_level: meta.log_level,
            scopes: None,
            subject: None,
            progress_token: meta.progress_token,
            scope: None,
        }
    }
}

impl From<Negotiated> for Terms {
    fn from(negotiated: Negotiated) -> Terms {
        Terms {
            version: negotiated.version,
            client_capabilities: Capabilities::Value(negotiated.client_capabilities),
            log_level: None,
            scopes: None,
            subject: None,
            progress_token: None,
            scope: None,
        }
    }
}

/// Task work to start once a request's response has been queued (`RequestCx::after_response`).
type Deferred = (TaskTicket, Box<dyn FnOnce() + Send>);

/// What a task keeps of the request that started it, to make the context of each of its rounds:
/// all of it but the server, held weakly, so a finished task kept for its `ttlMs` does not keep
/// a server alive that its embedder dropped.
pub(crate) struct Detached {
    server: Weak<Server>,
    session: Option<Arc<Session>>,
    version: ProtocolVersion,
    client_capabilities: Capabilities,
    log_level: Option<LogLevel>,
    scopes: Option<Arc<[String]>>,
    subject: Option<Arc<str>>,
    progress_token: Option<Value>,
    scope: Option<Arc<RequestScope>>,
}

impl Detached {
    /// The context of one round of `task`; `None` once the server is gone.
    pub(crate) fn revive(&self, task: Arc<dyn TaskLink>, cancelled: Arc<AtomicBool>) -> Option<RequestCx> {
        Some(self.attach(self.server.upgrade()?, task, cancelled))
    }

    fn attach(&self, server: Arc<Server>, task: Arc<dyn TaskLink>, cancelled: Arc<AtomicBool>) -> RequestCx {
        // A request served alone has no stream left: a 2026-07-28 task's status goes to listen
        // streams, and what the round sends otherwise goes nowhere.
        let sink = self.session.as_ref().map_or_else(|| Sink::channel().0, |s| s.notifier());
        RequestCx {
            server,
            session: self.session.clone(),
            id: None,
            version: self.version,
            client_capabilities: self.client_capabilities.clone(),
            capabilities_read: OnceLock::new(),
            log_level: self.log_level,
            scopes: self.scopes.clone(),
            subject: self.subject.clone(),
            progress_token: self.progress_token.clone(),
            scope: self.scope.clone(),
            cancelled,
            sink,
            last_progress: Mutex::new(None),
            task: Some(task),
            deferred: Mutex::new(Vec::new()),
            inputs: None,
        }
    }
}

/// The context of one request, given to every handler.
pub struct RequestCx {
    pub(crate) server: Arc<Server>,
    /// The client's session; `None` for a 2026-07-28 request served alone (a Streamable HTTP
    /// POST), which has only its cancellation flag.
    pub(crate) session: Option<Arc<Session>>,
    pub(crate) id: Option<RequestId>,
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: Capabilities,
    /// A 2026-07-28 request's capabilities read into a value, once a handler asks for them whole.
    capabilities_read: OnceLock<Value>,
    /// The level the request itself asked for (2026-07-28); `None` reads the session's.
    pub(crate) log_level: Option<LogLevel>,
    /// What the request's access token granted (`Terms::scopes`).
    pub(crate) scopes: Option<Arc<[String]>>,
    /// Whom the request's access token was issued to (`Terms::subject`).
    pub(crate) subject: Option<Arc<str>>,
    pub(crate) progress_token: Option<Value>,
    /// What its log lines say of it, and its trace context (`Terms::scope`).
    pub(crate) scope: Option<Arc<RequestScope>>,
    pub(crate) cancelled: Arc<AtomicBool>,
    pub(crate) sink: Sink,
    pub(crate) last_progress: Mutex<Option<f64>>,
    pub(crate) task: Option<Arc<dyn TaskLink>>,
    pub(crate) deferred: Mutex<Vec<Deferred>>,
    /// 2026-07-28 input-required bookkeeping; `None` sends requests to the client instead.
    pub(crate) inputs: Option<Inputs>,
}

impl RequestCx {
    /// The protocol revision of this request.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The capabilities the client declared (for this request, on stateless revisions).
    pub fn client_capabilities(&self) -> &Value {
        match &self.client_capabilities {
            Capabilities::Value(value) => value,
            Capabilities::Text(text) => self.capabilities_read.get_or_init(|| Capabilities::read(text)),
        }
    }

    /// Whether the client declared the capability `name` (e.g. `sampling`).
    pub fn client_supports(&self, name: &str) -> bool {
        self.client_capabilities.declares(name)
    }

    /// The request's W3C trace context: the one it came with (`_meta.traceparent`, or the HTTP
    /// `traceparent` header), or a fresh one when tracing is on (`Options::trace`). What it
    /// starts should carry it on (a command's `TRACEPARENT`, another server's `_meta`).
    pub fn trace(&self) -> Option<&TraceContext> {
        self.scope.as_ref().and_then(|scope| scope.trace())
    }

    /// The id of the request, if this is one.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The scopes the request's access token granted, when its transport checks scopes (HTTP
    /// under OAuth); `None` when nothing is withheld for want of a scope (stdio, a static
    /// token, no authorization).
    pub fn granted_scopes(&self) -> Option<&[String]> {
        self.scopes.as_deref()
    }

    /// The subject (`sub` claim, or the introspection answer's `sub`) of the request's
    /// verified access token: who is calling, for an audit line or a per-user decision.
    /// `None` when the request came with no token (stdio, no authorization), with a static
    /// token (`--token`, which names nobody), or with a token that names no subject. Set by
    /// the transport that verified the token (tinymcp-http under OAuth), never read from the
    /// message.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// Whether the request may use what needs every scope of `needed`: always, unless its
    /// transport checks scopes and the token lacks one.
    pub fn grants(&self, needed: &[String]) -> bool {
        grants(self.scopes.as_deref(), needed)
    }

    /// The client session's value of type `T`, made (`T::default()`) on first use and kept
    /// until the session ends: what a handler keeps per client (a connection of its own to
    /// another server, say). `None` for a request without a session (2026-07-28 over HTTP).
    pub fn session_state<T: Default + Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.session.as_ref().map(|session| session.state::<T>())
    }

    /// Runs `hook` once when the client's session ends (`DELETE`, idle expiry, eviction at the
    /// session cap, the connection or stream closing, the server shutting down), or at once when
    /// it has ended already; `false`, and `hook` dropped unrun, for a request without a session.
    pub fn on_session_end(&self, hook: impl FnOnce() + Send + 'static) -> bool {
        match &self.session {
            Some(session) => {
                session.on_end(Box::new(hook));
                true
            }
            None => false,
        }
    }

    /// Whether this request will be answered with an `InputRequiredResult` (2026-07-28): an
    /// [`ask`](RequestCx::ask) this round left a request for the client unanswered, so what the
    /// handler returns is replaced (an error it passed on with `?` is not a failure).
    pub fn input_pending(&self) -> bool {
        self.inputs
            .as_ref()
            .is_some_and(|inputs| !inputs.pending.lock().unwrap_or_else(PoisonError::into_inner).is_empty())
    }

    /// The context of one request: revision, client capabilities, log level and the progress
    /// token (from the request's own `_meta`) from `terms`.
    pub(crate) fn new(
        server: Arc<Server>,
        session: Option<Arc<Session>>,
        id: RequestId,
        terms: Terms,
        cancelled: Arc<AtomicBool>,
        sink: Sink,
    ) -> RequestCx {
        let Terms { version, client_capabilities, log_level, scopes, subject, progress_token, scope } = terms;
        RequestCx {
            server,
            session,
            id: Some(id),
            version,
            client_capabilities,
            capabilities_read: OnceLock::new(),
            log_level,
            scopes,
            subject,
            progress_token,
            scope,
            cancelled,
            sink,
            last_progress: Mutex::new(None),
            task: None,
            deferred: Mutex::new(Vec::new()),
            inputs: None,
        }
    }

    /// A context for `task`'s background run: its own cancellation flag, and messages sent to
    /// the session's stream because the request that created it has been answered.
    pub(crate) fn for_task(&self, task: Arc<dyn TaskLink>, cancelled: Arc<AtomicBool>) -> RequestCx {
        self.detach().attach(Arc::clone(&self.server), task, cancelled)
    }

    /// What a task keeps of this request to make a context for each of its rounds later.
    pub(crate) fn detach(&self) -> Detached {
        Detached {
            server: Arc::downgrade(&self.server),
            session: self.session.clone(),
            version: self.version,
            client_capabilities: self.client_capabilities.clone(),
            log_level: self.log_level,
            scopes: self.scopes.clone(),
            subject: self.subject.clone(),
            progress_token: self.progress_token.clone(),
            scope: self.scope.clone(),
        }
    }

    /// The server, to register things or send list-changed notifications from a handler.
    pub fn server(&self) -> Arc<Server> {
        Arc::clone(&self.server)
    }

    /// This replica's node id (`--node-id`), which prefixes the ids it hands out.
    pub(crate) fn node_id(&self) -> Option<&str> {
        self.server.node_id()
    }

    /// The share of the pool all task work runs in.
    pub(crate) fn task_share(&self) -> &Arc<TaskShare> {
        self.server.task_share()
    }

    /// The store tasks are shared through (`Server::set_task_store`), if any.
    pub(crate) fn task_store(&self) -> Option<&Arc<dyn crate::server::task_share::TaskStore>> {
        self.server.task_store()
    }

    /// How long a finished task stays readable (`Options::task_ttl`).
    pub(crate) fn task_ttl(&self) -> Duration {
        self.server.options().task_ttl
    }

    /// How long a sealed `requestState` stays valid (`Options::state_ttl`).
    pub(crate) fn state_ttl(&self) -> Duration {
        self.server.options().state_ttl
    }

    /// Runs the server's subscribe hooks for `uri` (before `resources/subscribe` is answered).
    pub(crate) fn subscribed(&self, uri: &str) {
        self.server.subscribed(uri, Some(self));
    }

    /// Runs the server's unsubscribe hooks for `uri` (the session no longer holds it).
    pub(crate) fn unsubscribed(&self, uri: &str) {
        self.server.unsubscribed(uri, Some(self));
    }

    /// Sends a tasks-extension status (`notifications/tasks`) to the listen streams that asked
    /// for task `task_id`.
    pub(crate) fn notify_task(&self, task_id: &str, params: &Value) {
        self.server.notify_task(task_id, params);
    }

    /// The client's session, for the features that live in one (up to 2025-11-25; the method
    /// table never routes them to a request without one).
    pub(crate) fn session(&self) -> Result<&Arc<Session>, RpcError> {
        self.session.as_ref().ok_or_else(|| RpcError::invalid_request("this request has no session: initialize first"))
    }

    /// How many items a page of a list answer holds ([`Options::page_size`](crate::Options::page_size)),
    /// for an extension's own list method through [`list_result`](crate::list_result).
    pub fn page_size(&self) -> usize {
        self.server.options().page_size
    }

    /// Runs task work under `ticket` (`TaskShare::reserve`) once this request's response
    /// has been queued, so nothing it sends can reach the client before that response (a
    /// task's first `elicitation/create` after the `CreateTaskResult` naming the task).
    pub(crate) fn after_response(&self, ticket: TaskTicket, job: impl FnOnce() + Send + 'static) {
        self.deferred.lock().unwrap_or_else(PoisonError::into_inner).push((ticket, Box::new(job)));
    }

    /// Starts what `after_response` deferred; the connection calls it after the response.
    pub(crate) fn start_deferred(&self) {
        let jobs = std::mem::take(&mut *self.deferred.lock().unwrap_or_else(PoisonError::into_inner));
        for (ticket, job) in jobs {
            if let Some(job) = self.server.task_share().start(ticket, job) {
                self.server.pool.spawn_boxed(job);
            }
        }
    }

    /// The level at or above which log messages go to the client; `None` sends none.
    pub(crate) fn log_threshold(&self) -> Option<LogLevel> {
        match self.log_level {
            Some(l) => Some(l),
            None if self.version.is_stateful() => self.session.as_ref().map(|s| s.log_level()),
            // Stateless revisions log only when the request asked for a level.
            None => None,
        }
    }

    /// Whether the client cancelled this request (check between units of work). A 2025-11-25
    /// task is cancelled too once its session ends (nobody can ask for it any more).
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
            || self.server.drain_expired()
            || (self.task.is_some() && self.session.as_ref().is_some_and(|s| s.is_closed()))
    }

    /// Whether progress reports go anywhere: the request carried a progress token, or it runs
    /// as a task (whose `statusMessage` a report's message becomes).
    pub fn wants_progress(&self) -> bool {
        self.progress_token.is_some() || self.task.is_some()
    }

    /// Reports progress, when the request asked for it; in a task, `message` also becomes the
    /// task's `statusMessage`. `progress` must increase; a value that does not is dropped (spec:
    /// progress MUST increase with each notification). A 2026-07-28 task sends no progress
    /// notifications (SEP-2663: a client polls or listens for the task's status instead).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let (Some(task), Some(message)) = (&self.task, message) {
            task.set_message(message);
        }
        let Some(token) = self.progress_token.as_ref().filter(|_| self.task.is_none() || self.version.is_stateful())
        else {
            return;
        };
        {
            let mut last = self.last_progress.lock().unwrap_or_else(PoisonError::into_inner);
            if last.is_some_and(|l| progress <= l) {
                log::warn!("progress {progress} does not increase; not sent");
                return;
            }
            *last = Some(progress);
        }
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), json!(progress));
        if let Some(total) = total {
            params.insert("total".into(), json!(total));
        }
        if let (Some(message), true) = (message, self.version.has_progress_message()) {
            params.insert("message".into(), message.into());
        }
        self.send_notification("notifications/progress", &Value::Object(params));
    }

    /// Sends a notification tied to this request (it travels with the request's answer).
    pub fn send_notification(&self, method: &str, params: &Value) {
        self.sink.send(Outgoing::Notification(frame::notification(method, params)));
    }

    /// Lets the transport close the stream carrying this request's messages now: over
    /// Streamable HTTP at 2025-11-25 the client polls back with `Last-Event-ID` and gets the
    /// rest, the answer included (SEP-1699). Frees a connection during a long wait; elsewhere
    /// it does nothing.
    pub fn close_stream(&self) {
        self.sink.send(Outgoing::CloseStream);
    }

    /// Asks the client's model for a completion (`sampling/createMessage`) and waits for it.
    /// On 2026-07-28 the answer comes from the client's retry (key `sampling-N`): see [`RequestCx::ask`].
    pub fn sample(&self, params: Value) -> Result<Value, RpcError> {
        self.sample_as(&self.default_key("sampling"), params)
    }

    /// [`RequestCx::sample`] under an explicit `inputRequests` key (2026-07-28).
    pub fn sample_as(&self, key: &str, params: Value) -> Result<Value, RpcError> {
        self.ask_one(InputRequest::sample(key, params))
    }

    /// Asks the user for input (`elicitation/create`, form or URL mode, the params as they go
    /// out) and waits for the answer, as it came. On 2026-07-28 the answer comes from the
    /// client's retry (key `elicitation-N`). The typed forms are `elicit::<T>(message)`
    /// (feature `schemars`) and `elicit_with::<T>(message, schema)`.
    pub fn elicit_raw(&self, params: Value) -> Result<Value, RpcError> {
        self.elicit_raw_as(&self.default_key("elicitation"), params)
    }

    /// [`RequestCx::elicit_raw`] under an explicit `inputRequests` key (2026-07-28).
    pub fn elicit_raw_as(&self, key: &str, params: Value) -> Result<Value, RpcError> {
        self.ask_one(InputRequest::elicit(key, params))
    }

    /// Tells the client that a URL-mode elicitation finished (`notifications/elicitation/complete`).
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        self.send_notification("notifications/elicitation/complete", &json!({ "elicitationId": elicitation_id }));
    }

    /// Asks the client for its roots (`roots/list`) and waits for them (key `roots-N` on 2026-07-28).
    pub fn list_roots(&self) -> Result<Value, RpcError> {
        self.list_roots_as(&self.default_key("roots"))
    }

    /// [`RequestCx::list_roots`] under an explicit `inputRequests` key (2026-07-28).
    pub fn list_roots_as(&self, key: &str) -> Result<Value, RpcError> {
        self.ask_one(InputRequest::list_roots(key))
    }

    /// Asks the client several things at once; the answers come back in the same order.
    /// Up to 2025-11-25 each is a request to the client, in turn. On 2026-07-28 they are one
    /// round of an `InputRequiredResult`: answers the client already gave are returned, and
    /// if any is missing the handler gets an error it should pass on with `?` (the request is
    /// then answered with every missing request at once, and the handler runs again on the
    /// client's retry, so do side effects after the last `ask`). A capability the request did
    /// not declare is `-32021` on both eras.
    pub fn ask(&self, requests: &[InputRequest]) -> Result<Vec<Value>, RpcError> {
        for request in requests {
            self.check_capability(&request.method, &request.params)?;
        }
        let Some(inputs) = &self.inputs else {
            return requests.iter().map(|r| self.send_request(&r.method, r.params.clone())).collect();
        };
        let mut answers = Vec::with_capacity(requests.len());
        let mut missing = false;
        for request in requests {
            inputs.asked.fetch_add(1, Ordering::Relaxed);
            match inputs.answers.get(&request.key) {
                Some(answer) => {
                    check_answer(&request.key, &request.method, answer)?;
                    answers.push(answer.clone());
                }
                None => {
                    missing = true;
                    let mut pending = inputs.pending.lock().unwrap_or_else(PoisonError::into_inner);
                    pending.insert(request.key.clone(), json!({ "method": request.method, "params": request.params }));
                }
            }
        }
        if missing {
            Err(input_required())
        } else {
            Ok(answers)
        }
    }

    fn ask_one(&self, request: InputRequest) -> Result<Value, RpcError> {
        let mut answers = self.ask(std::slice::from_ref(&request))?;
        // Invariant: `ask` answers every request it was given, or fails.
        Ok(answers.pop().unwrap_or(Value::Null))
    }

    /// `elicitation-1`, `sampling-2`, ...: the next request's default key, numbered by call order.
    fn default_key(&self, kind: &str) -> String {
        let n = self.inputs.as_ref().map_or(0, |i| i.asked.load(Ordering::Relaxed)) + 1;
        format!("{kind}-{n}")
    }

    /// Whether a handler's `ask` could get past `check_capability`: the request declared one
    /// of the capabilities it needs. Without one every `ask` fails before it looks for answers.
    pub(crate) fn may_ask(&self) -> bool {
        ASKABLE.iter().any(|(_, capability)| self.client_supports(capability))
    }

    /// `-32021` unless the client declared what `method` needs (for these params).
    fn check_capability(&self, method: &str, params: &Value) -> Result<(), RpcError> {
        let Some(&(_, capability)) = ASKABLE.iter().find(|(askable, _)| *askable == method) else {
            return Err(RpcError::invalid_params(format!(
                "{method} cannot be asked of the client: expected {SAMPLE}, {ELICIT} or {ROOTS}"
            )));
        };
        self.require_capability(capability)?;
        match method {
            SAMPLE
                if params.get("tools").is_some()
                    && !self.client_capabilities().pointer("/sampling/tools").is_some_and(Value::is_object) =>
            {
                Err(missing_capability("sampling.tools", lit(r#"{"sampling": {"tools": {}}}"#)))
            }
            ELICIT
                if params.get("mode").and_then(Value::as_str) == Some("url")
                    && !self.client_capabilities().pointer("/elicitation/url").is_some_and(Value::is_object) =>
            {
                Err(missing_capability("elicitation.url", lit(r#"{"elicitation": {"url": {}}}"#)))
            }
            _ => Ok(()),
        }
    }

    /// `-32021` with `data.requiredCapabilities` unless the client declared `capability`
    /// (e.g. `sampling`) for this request (2026-07-28) or this session.
    pub fn require_capability(&self, capability: &str) -> Result<(), RpcError> {
        if self.client_supports(capability) {
            Ok(())
        } else {
            Err(missing_capability(capability, json!({ capability: {} })))
        }
    }

    /// Sends a request to the client and waits for its answer, the timeout, or cancellation.
    pub fn send_request(&self, method: &str, mut params: Value) -> Result<Value, RpcError> {
        if let (Some(task), Some(map)) = (&self.task, params.as_object_mut()) {
            // Spec (tasks): requests a task depends on carry its id, and it waits in `input_required`.
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            meta[RELATED_TASK] = json!({ "taskId": task.id() });
            task.set_waiting(true);
        }
        let outcome = self.request_and_wait(method, &params);
        if let Some(task) = &self.task {
            task.set_waiting(false);
        }
        outcome
    }

    fn request_and_wait(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let session = self.session()?;
        let (id, answer) = session.expect_answer();
        self.sink.send(Outgoing::Request(frame::request_text(&id, method, params)));
        let deadline = Instant::now() + self.server.options().client_request_timeout;
        let outcome = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break Err(RpcError::new(
                    error::INTERNAL_ERROR,
                    format!("{method}: the client did not answer in time"),
                ));
            }
            match answer.recv_timeout(left.min(Duration::from_millis(100))) {
                Ok(outcome) => return outcome,
                Err(RecvTimeoutError::Timeout) if self.is_cancelled() => {
                    break Err(RpcError::new(error::INTERNAL_ERROR, format!("{method}: request cancelled")))
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(RpcError::new(error::INTERNAL_ERROR, format!("{method}: the connection closed")))
                }
            }
        };
        session.forget_answer(&id);
        // Spec (cancellation): tell the client we no longer wait for this request.
        self.send_notification(
            "notifications/cancelled",
            &json!({ "requestId": id, "reason": "timed out or cancelled" }),
        );
        outcome
    }
}

/// Refuses an answer of the wrong shape for its request (`-32602`): an elicitation answer is an
/// object with `action` accept, decline or cancel; a sampling answer has `role` and `content`;
/// a roots answer has a `roots` array.
fn check_answer(key: &str, method: &str, answer: &Value) -> Result<(), RpcError> {
    let fits = match method {
        ELICIT => {
            answer.get("action").and_then(Value::as_str).is_some_and(|a| matches!(a, "accept" | "decline" | "cancel"))
        }
        SAMPLE => answer.get("role").is_some_and(Value::is_string) && answer.get("content").is_some(),
        ROOTS => answer.get("roots").is_some_and(Value::is_array),
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        let expected = match method {
            ELICIT => "an ElicitResult with action accept, decline or cancel",
            SAMPLE => "a CreateMessageResult with role and content",
            _ => "a ListRootsResult with a roots array",
        };
        Err(RpcError::invalid_params(format!("inputResponses[{key:?}] answers {method}: expected {expected}")))
    }
}

/// `-32021` with the capability the client must declare.
pub(crate) fn missing_capability(name: &str, required: Value) -> RpcError {
    RpcError::new(MISSING_CLIENT_CAPABILITY, format!("the client did not declare the {name} capability"))
        .with_data(json!({ "requiredCapabilities": required }))
}
