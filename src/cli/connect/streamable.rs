//! One Streamable HTTP session seen from the client side: `initialize` keeps the session id
//! and the negotiated revision for every later request, each message is POSTed (its answer
//! read on a thread of its own, as JSON or as events), and one GET stream carries what the
//! server says unasked. Everything the server sends goes to the [`Output`] as lines.

use super::http1::{self, Response, Sent, Url};
use super::sse::Events;
use super::{Output, MESSAGE_CAP};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// How long `initialize` may take, answer included (the host waits on it).
const INITIALIZE_WITHIN: Duration = Duration::from_secs(60);
/// How long the closing DELETE may take.
const DELETE_WITHIN: Duration = Duration::from_secs(3);
/// How much of an error answer's body is read, for the message.
const ERROR_BODY_CAP: usize = 64 * 1024;

#[derive(Default)]
struct State {
    /// The `Mcp-Session-Id` the server gave at initialize.
    session: Option<String>,
    /// The revision the server chose, sent as `MCP-Protocol-Version` once known.
    version: Option<String>,
}

/// A session with one server at one URL.
pub struct Session {
    url: Url,
    extra: Vec<(String, String)>,
    state: Mutex<State>,
    out: Output,
    get_opened: AtomicBool,
}

impl Session {
    /// A session not yet initialized; `extra` headers go with every request.
    pub fn new(url: Url, extra: Vec<(String, String)>, out: Output) -> Arc<Session> {
        Arc::new(Session { url, extra, state: Mutex::new(State::default()), out, get_opened: AtomicBool::new(false) })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The headers of every request: the user's, then the session's.
    fn headers(&self, accept: &str) -> Vec<(String, String)> {
        let mut all = self.extra.clone();
        all.push(("Accept".into(), accept.into()));
        let state = self.state();
        if let Some(id) = &state.session {
            all.push(("Mcp-Session-Id".into(), id.clone()));
        }
        if let Some(version) = &state.version {
            all.push(("MCP-Protocol-Version".into(), version.clone()));
        }
        all
    }

    /// Sends one message from the host. The request is written before this returns, so the
    /// server sees messages in the host's order; answers are read on their own threads.
    pub fn forward(self: &Arc<Self>, message: &Value, raw: &[u8]) {
        let method = message.get("method").and_then(Value::as_str);
        // Only a request has an answer to wait for; a failure to deliver one is told to the host.
        let request_id = message.get("id").filter(|_| method.is_some()).cloned();
        if method == Some("initialize") {
            self.initialize(raw, request_id.as_ref());
            return;
        }
        let mut headers = self.headers("application/json, text/event-stream");
        headers.push(("Content-Type".into(), "application/json".into()));
        let sent = match http1::send(&self.url, "POST", &headers, raw) {
            Ok(sent) => sent,
            Err(e) => return self.fail(request_id.as_ref(), &format!("cannot POST to {}: {e}", self.url)),
        };
        let me = Arc::clone(self);
        thread::Builder::new()
            .name("connect-answer".into())
            .spawn(move || me.answer(sent, request_id.as_ref()))
            .map(drop)
            .unwrap_or_else(|e| log::error!("cannot start a thread: {e}"));
        if method == Some("notifications/initialized") {
            self.open_get();
        }
    }

    /// `initialize`, waited for: its answer carries the session id every later request needs.
    fn initialize(&self, raw: &[u8], id: Option<&Value>) {
        let _ = self.try_initialize(raw, id, false);
    }

    /// `initialize`; with `probing`, a 4xx other than 401 and 403 (a server that does not speak
    /// Streamable HTTP at this URL) is not told to the host: `Err` carries the status instead.
    pub fn try_initialize(&self, raw: &[u8], id: Option<&Value>, probing: bool) -> Result<(), u16> {
        let headers = vec![
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
            ("Content-Type".to_owned(), "application/json".to_owned()),
        ];
        let headers: Vec<_> = self.extra.iter().cloned().chain(headers).collect();
        *self.state() = State::default();
        let response =
            http1::send(&self.url, "POST", &headers, raw).and_then(|sent| sent.response(Some(INITIALIZE_WITHIN)));
        match response {
            Ok(response)
                if probing && (400..500).contains(&response.status) && !matches!(response.status, 401 | 403) =>
            {
                Err(response.status)
            }
            Ok(response) => {
                self.read_answer(response, id);
                Ok(())
            }
            Err(e) => {
                self.fail(id, &format!("no answer from {}: {e}", self.url));
                Ok(())
            }
        }
    }

    /// Reads the answer to one POST and writes what it carries.
    fn answer(&self, sent: Sent, id: Option<&Value>) {
        match sent.response(None) {
            Ok(response) => self.read_answer(response, id),
            Err(e) => self.fail(id, &format!("no answer from {}: {e}", self.url)),
        }
    }

    /// Writes what an answer carries: a JSON message, events, nothing (202), or an error.
    fn read_answer(&self, mut response: Response, id: Option<&Value>) {
        if let Some(session) = response.header("mcp-session-id") {
            let mut state = self.state();
            if state.session.is_none() {
                log::info!("session {session} at {}", self.url);
                state.session = Some(session.to_owned());
            }
        }
        match response.status {
            202 => {}
            200 | 201 if response.is_event_stream() => self.pump(response, "answer"),
            200 | 201 => match response.text(MESSAGE_CAP) {
                Ok(text) if text.trim().is_empty() => self.fail(id, "the server answered 200 with no body"),
                Ok(text) => self.emit(&text),
                Err(e) => self.fail(id, &format!("reading the answer: {e}")),
            },
            status => {
                let text = response.text(ERROR_BODY_CAP).unwrap_or_default();
                let error = serde_json::from_str::<Value>(&text).ok().filter(|v| v.get("error").is_some());
                match (id, error) {
                    (Some(id), Some(mut error)) => {
                        // The server could not tell which message failed; the host needs the id.
                        error["id"] = id.clone();
                        self.out.line(&error.to_string());
                    }
                    _ => self.fail(id, &format!("the server answered HTTP {status}: {}", text.trim())),
                }
            }
        }
    }

    /// Writes every event of a stream, to its end.
    fn pump(&self, response: Response, what: &str) {
        let mut events = Events::new(response.body, MESSAGE_CAP);
        loop {
            match events.next_event() {
                Ok(Some(event)) if event.data.is_empty() => {}
                Ok(Some(event)) if event.event.is_empty() || event.event == "message" => self.emit(&event.data),
                Ok(Some(event)) => log::debug!("{what} stream: event {:?} skipped", event.event),
                Ok(None) => return log::debug!("{what} stream ended"),
                Err(e) => return log::warn!("{what} stream from {} broke: {e}", self.url),
            }
        }
    }

    /// One message from the server to the host; the first `initialize` answer also sets the
    /// revision every later request names.
    fn emit(&self, text: &str) {
        {
            let mut state = self.state();
            if state.version.is_none() {
                let version = serde_json::from_str::<Value>(text)
                    .ok()
                    .and_then(|m| m.pointer("/result/protocolVersion").and_then(Value::as_str).map(str::to_owned));
                if let Some(version) = version {
                    log::info!("protocol revision {version}");
                    state.version = Some(version);
                }
            }
        }
        self.out.line(text);
    }

    /// Tells the host a request failed here, not at the server (or only logs, for a message
    /// that has no answer).
    fn fail(&self, id: Option<&Value>, why: &str) {
        log::warn!("{why}");
        if let Some(id) = id {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": why}});
            self.out.line(&error.to_string());
        }
    }

    /// Opens the GET stream once, for what the server sends unasked; a 405 means it has none.
    fn open_get(self: &Arc<Self>) {
        if self.get_opened.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = Arc::clone(self);
        let started = thread::Builder::new().name("connect-get".into()).spawn(move || {
            let sent = match http1::send(&me.url, "GET", &me.headers("text/event-stream"), &[]) {
                Ok(sent) => sent,
                Err(e) => return log::warn!("cannot open the GET stream at {}: {e}", me.url),
            };
            match sent.response(None) {
                Ok(response) if response.status == 405 => log::info!("{} offers no GET stream (405)", me.url),
                Ok(response) if response.status == 200 && response.is_event_stream() => me.pump(response, "GET"),
                Ok(response) => log::warn!("GET {} answered {}", me.url, response.status),
                Err(e) => log::warn!("GET {}: {e}", me.url),
            }
        });
        if let Err(e) = started {
            log::error!("cannot start a thread: {e}");
        }
    }

    /// Ends the session at the server (DELETE), when it has one.
    pub fn close(&self) {
        if self.state().session.is_none() {
            return;
        }
        let deleted = http1::send(&self.url, "DELETE", &self.headers("application/json"), &[])
            .and_then(|sent| sent.response(Some(DELETE_WITHIN)));
        match deleted {
            Ok(response) => log::debug!("DELETE {}: {}", self.url, response.status),
            Err(e) => log::debug!("DELETE {}: {e}", self.url),
        }
    }
}
