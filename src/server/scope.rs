//! The request a thread is serving now, for its log lines: the library sets it around a
//! request's work (on the reader while the request is routed, on the worker while its handler
//! runs) and a logger reads it (`RequestScope::with_current`) to add the request's method,
//! id, tool, session, client and trace id to every line logged meanwhile, whoever logs it
//! (the library, a handler, a command tool's provider). The library sets up no logger: the
//! binary's formatter is the reader.
//!
//! A scope exists only for a request that carries a trace context or on a server with
//! tracing on (`Options::trace`): otherwise nothing is built and each request pays one branch.
//!
//! Spans: when a recorder is set (`record_spans`, the binary's `--otlp`), a scope whose trace
//! is sampled is a span of ours too (kind server, a child of the caller's span), and what the
//! request starts (a command, a proxied server's call) a child span of it, whose id is the
//! parent passed on. Each is handed to the recorder when it ends; without a recorder nothing of
//! this is made and the context is passed on exactly as it came.

use crate::wire::jsonrpc::Request;
use crate::wire::protocol::Id;
use crate::wire::trace::TraceContext;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};

/// The longest tool or client name a scope keeps (names are capped by the protocol already;
/// this bounds what a log line holds whatever came).
const MAX_NAME: usize = 128;

thread_local! {
    static CURRENT: RefCell<Option<Arc<RequestScope>>> = const { RefCell::new(None) };
}

/// What a log line says of the request it was logged for.
#[derive(Debug)]
pub struct RequestScope {
    method: String,
    id: String,
    tool: Option<String>,
    session: Option<String>,
    client: Option<String>,
    trace: Option<TraceContext>,
    started: Instant,
    /// Set when the request has its answer, just before the line that says so.
    took: OnceLock<Duration>,
    /// Recording: the context with our span's id as its parent, and when the span began.
    span: Option<(TraceContext, SystemTime)>,
    /// Recording: the child span of the proxied server's call, ended with the request.
    upstream: Mutex<Option<ChildSpan>>,
}

/// A span that ended, for the recorder (`record_spans`): ids in lowercase hex, as OTLP/JSON
/// writes them.
#[derive(Debug, Clone)]
pub struct Span {
    /// The request's method (`tools/call NAME` for a tool), or what a child span does.
    pub name: String,
    /// Served, called, or done here.
    pub kind: SpanKind,
    /// The trace it belongs to (32 hex digits).
    pub trace_id: String,
    /// Its own id (16 hex digits).
    pub span_id: String,
    /// The caller's span (a request's; empty for none), or the request's span (a child's).
    pub parent_id: String,
    /// When it began.
    pub start: SystemTime,
    /// When it ended.
    pub end: SystemTime,
    /// OpenTelemetry's attributes (MCP and JSON-RPC semantic conventions), as strings.
    pub attributes: Vec<(&'static str, String)>,
    /// Why it failed (a JSON-RPC error code, a command's exit), when it did.
    pub error: Option<String>,
}

/// What a span is to tinymcp (OpenTelemetry's span kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// A request tinymcp serves.
    Server,
    /// A call tinymcp makes (a proxied server's).
    Client,
    /// Work of its own (a command tool's run).
    Internal,
}

type Recorder = Box<dyn Fn(Span) + Send + Sync>;
static RECORDER: OnceLock<Recorder> = OnceLock::new();

/// Records spans from now on: `recorder` gets each one as it ends, on the thread that ended it
/// (it should only queue it). One recorder per process: `false` when one was set already.
pub fn record_spans(recorder: impl Fn(Span) + Send + Sync + 'static) -> bool {
    RECORDER.set(Box::new(recorder)).is_ok()
}

/// A child span of a request's (`RequestScope::child`): recorded when it drops.
#[derive(Debug)]
pub struct ChildSpan {
    context: TraceContext,
    parent_id: String,
    name: String,
    kind: SpanKind,
    start: SystemTime,
    attributes: Vec<(&'static str, String)>,
    error: Option<String>,
}

impl ChildSpan {
    /// The context to pass on to what this span covers: its own id as the parent.
    pub fn context(&self) -> &TraceContext {
        &self.context
    }

    /// Adds an attribute.
    pub fn set(&mut self, key: &'static str, value: String) {
        self.attributes.push((key, value));
    }

    /// Marks the span failed, saying why.
    pub fn fail(&mut self, why: String) {
        self.error = Some(why);
    }
}

impl Drop for ChildSpan {
    fn drop(&mut self) {
        if let Some(record) = RECORDER.get() {
            record(Span {
                name: std::mem::take(&mut self.name),
                kind: self.kind,
                trace_id: self.context.trace_id(),
                span_id: self.context.parent_id(),
                parent_id: std::mem::take(&mut self.parent_id),
                start: self.start,
                end: SystemTime::now(),
                attributes: std::mem::take(&mut self.attributes),
                error: self.error.take(),
            });
        }
    }
}

impl RequestScope {
    /// The scope of `req`: `session` is its HTTP session id, logged only as a digest (the id is
    /// a capability; its digest still tells a session's lines apart), `client` the client's
    /// name where the request names it (a 2026-07-28 `_meta`).
    pub(crate) fn of(
        req: &Request,
        trace: Option<TraceContext>,
        session: Option<&str>,
        client: Option<String>,
    ) -> RequestScope {
        let tool = req
            .method
            .spec()
            .filter(|s| s.id == Id::ToolsCall)
            .and_then(|_| req.params.string_member("name"))
            .map(|name| capped(&name));
        RequestScope {
            method: capped(req.method.as_str()),
            id: req.id.to_string(),
            tool,
            session: session.map(|id| {
                let digest = Sha256::digest(id.as_bytes());
                digest[..6].iter().map(|b| format!("{b:02x}")).collect()
            }),
            client: client.map(|c| capped(&c)),
            span: RECORDER
                .get()
                .and(trace.as_ref())
                .filter(|t| t.sampled())
                .and_then(TraceContext::with_fresh_parent)
                .map(|t| (t, SystemTime::now())),
            trace,
            started: Instant::now(),
            took: OnceLock::new(),
            upstream: Mutex::new(None),
        }
    }

    /// The context to pass on to what the request starts: its own span's (recording), else the
    /// one it came with (or the fresh one).
    pub fn passed_on(&self) -> Option<&TraceContext> {
        self.span.as_ref().map(|(t, _)| t).or(self.trace.as_ref())
    }

    /// A child span of this request's, named `name` (recording a sampled trace only): what the
    /// request starts passes on its `context()`.
    pub fn child(&self, name: String, kind: SpanKind) -> Option<ChildSpan> {
        let (ours, _) = self.span.as_ref()?;
        Some(ChildSpan {
            context: ours.with_fresh_parent()?,
            parent_id: ours.parent_id(),
            name,
            kind,
            start: SystemTime::now(),
            attributes: Vec::new(),
            error: None,
        })
    }

    /// The context a proxied server's call carries: a child span's (kept until the request
    /// ends), else what `passed_on` says.
    pub(crate) fn upstream(&self) -> Option<TraceContext> {
        let name = match &self.tool {
            Some(tool) => format!("{} {tool}", self.method),
            None => self.method.clone(),
        };
        match self.child(name, SpanKind::Client) {
            Some(mut child) => {
                child.set("mcp.method.name", self.method.clone());
                let context = child.context().clone();
                *self.upstream.lock().unwrap_or_else(PoisonError::into_inner) = Some(child);
                Some(context)
            }
            None => self.passed_on().cloned(),
        }
    }

    /// Hands this request's span to the recorder, once, as it ends (with `error`'s code).
    fn record(&self, error: Option<i64>) {
        let (Some(record), Some((ours, start))) = (RECORDER.get(), &self.span) else { return };
        let failed = error.map(|code| code.to_string());
        if let Some(mut upstream) = self.upstream.lock().unwrap_or_else(PoisonError::into_inner).take() {
            upstream.error = failed.clone();
        }
        let mut attributes =
            vec![("mcp.method.name", self.method.clone()), ("jsonrpc.protocol.version", "2.0".to_owned())];
        // A string id's text, without the quotes of its JSON.
        attributes.push(("jsonrpc.request.id", self.id.trim_matches('"').to_owned()));
        if let Some(tool) = &self.tool {
            attributes.push(("gen_ai.tool.name", tool.clone()));
            attributes.push(("gen_ai.operation.name", "execute_tool".to_owned()));
        }
        if let Some(session) = &self.session {
            attributes.push(("mcp.session.id", session.clone()));
        }
        if let Some(code) = &failed {
            attributes.push(("error.type", code.clone()));
            attributes.push(("rpc.response.status_code", code.clone()));
        }
        record(Span {
            name: match &self.tool {
                Some(tool) => format!("{} {tool}", self.method),
                None => self.method.clone(),
            },
            kind: SpanKind::Server,
            trace_id: ours.trace_id(),
            span_id: ours.parent_id(),
            // A trace begun here has no caller's span: ours is its root.
            parent_id: self.trace.as_ref().filter(|t| !t.is_fresh()).map(TraceContext::parent_id).unwrap_or_default(),
            start: *start,
            end: SystemTime::now(),
            attributes,
            error: failed,
        });
    }

    /// Calls `f` with the scope of the request this thread is serving, if any.
    pub fn with_current<R>(f: impl FnOnce(Option<&RequestScope>) -> R) -> R {
        CURRENT.with(|current| f(current.borrow().as_deref()))
    }

    /// The request's method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request's JSON-RPC id, as text (a string id in quotes).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool a `tools/call` names.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// A digest of the HTTP session id (12 hex digits), for a request in a session.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The client's name, when the request names it.
    pub fn client(&self) -> Option<&str> {
        self.client.as_deref()
    }

    /// The request's trace context: the one it came with, or a fresh one (tracing on).
    pub fn trace(&self) -> Option<&TraceContext> {
        self.trace.as_ref()
    }

    /// How long the request took, once it has its answer.
    pub fn took(&self) -> Option<Duration> {
        self.took.get().copied()
    }

    /// Records that the request has its answer now.
    pub(crate) fn finish(&self) -> Duration {
        *self.took.get_or_init(|| self.started.elapsed())
    }
}

/// Ends `scope` with the line that says its request was answered (`by` whom, when not this
/// server's handlers), with `error`'s code when it failed: target `tinymcp::request`, at info.
/// Out of line: the usual request has no scope.
#[cold]
#[inline(never)]
pub(crate) fn answered(scope: &RequestScope, error: Option<i64>, by: &str) {
    let first = scope.took().is_none();
    let took = scope.finish();
    if first {
        scope.record(error);
    }
    match error {
        None => log::info!(target: "tinymcp::request", "answered{by} in {took:.1?}"),
        Some(code) => log::info!(target: "tinymcp::request", "answered{by} with error {code} in {took:.1?}"),
    }
}

fn capped(text: &str) -> String {
    match text.char_indices().nth(MAX_NAME) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The scope of the request this thread serves, to keep for what ends it on another thread (a
/// relayed request's answer).
pub(crate) fn current() -> Option<Arc<RequestScope>> {
    CURRENT.with(|current| current.borrow().clone())
}

/// This thread serves `scope` until the guard drops; then what it served before again.
pub(crate) fn enter(scope: &Arc<RequestScope>) -> Entered {
    Entered(CURRENT.with(|current| current.replace(Some(Arc::clone(scope)))))
}

/// Restores the scope a thread served before (`enter`).
pub(crate) struct Entered(Option<Arc<RequestScope>>);

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.0.take();
        CURRENT.with(|current| *current.borrow_mut() = before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::jsonrpc::{self, Incoming, Message};

    fn request(text: &str) -> Request {
        match jsonrpc::parse(text) {
            Ok(Incoming::Single(Message::Request(r))) => r,
            _ => panic!("not a request: {text}"),
        }
    }

    #[test]
    fn a_scope_is_seen_on_its_thread_until_its_guard_drops() {
        let req = request(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo"}}"#);
        let scope = Arc::new(RequestScope::of(&req, TraceContext::fresh(), Some("secret-session"), None));
        assert!(RequestScope::with_current(|s| s.is_none()));
        {
            let _in = enter(&scope);
            RequestScope::with_current(|s| {
                let s = s.unwrap();
                assert_eq!((s.method(), s.id(), s.tool()), ("tools/call", "\"a\"", Some("echo")));
                let session = s.session().unwrap();
                assert!(session.len() == 12 && !session.contains("secret"), "{session}");
            });
            std::thread::spawn(|| assert!(RequestScope::with_current(|s| s.is_none()))).join().unwrap();
            let other = Arc::new(RequestScope::of(&req, None, None, None));
            {
                let _nested = enter(&other);
                assert!(RequestScope::with_current(|s| s.unwrap().trace().is_none()));
            }
            assert!(RequestScope::with_current(|s| s.unwrap().trace().is_some()), "the outer scope again");
        }
        assert!(RequestScope::with_current(|s| s.is_none()));
        assert!(scope.took().is_none());
        scope.finish();
        assert!(scope.took().is_some());
    }
}
