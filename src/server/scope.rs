//! The request a thread is serving now, for its log lines: the library sets it around a
//! request's work (on the reader while the request is routed, on the worker while its handler
//! runs) and a logger reads it (`RequestScope::with_current`) to add the request's method,
//! id, tool, session, client and trace id to every line logged meanwhile, whoever logs it
//! (the library, a handler, a command tool's provider). The library sets up no logger: the
//! binary's formatter is the reader.
//!
//! A scope exists only for a request that carries a trace context or on a server with
//! tracing on (`Options::trace`): otherwise nothing is built and each request pays one branch.

use crate::wire::jsonrpc::Request;
use crate::wire::method::Id;
use crate::wire::trace::TraceContext;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

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
            trace,
            started: Instant::now(),
            took: OnceLock::new(),
        }
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
    let took = scope.finish();
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
