//! One Streamable HTTP session seen from the client side: `initialize` keeps the session id
//! and the negotiated revision for every later request, each message is POSTed (its answer
//! read on a thread of its own, as JSON or as events), and one GET stream carries what the
//! server says unasked. A 2026-07-28 request goes alone instead: no session, its own headers
//! (`modern`), cancelled by closing its POST. Everything the server sends goes to the
//! [`Output`] as lines.

use super::auth::Credentials;
use super::http1::{self, Closer, Response, Sent, Url};
use super::modern::{self, Tools};
use super::sse::Events;
use super::{Output, MESSAGE_CAP};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::io;
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
/// The wait before resuming a stream when the server gave no `retry`, and the longest honoured.
const RETRY_DEFAULT: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(30);
/// Resumptions in a row that bring no new event before the bridge gives up on a stream.
const RESUME_ATTEMPTS: u32 = 5;
/// Cancelled request ids remembered at most.
const CANCELLED_CAP: usize = 4096;
/// Pages of `tools/list` read at most when the bridge reads the tools again itself.
const LISTING_PAGES: usize = 100;
/// Spec (2026-07-28 Server Validation): `HeaderMismatch`.
const HEADER_MISMATCH: i64 = -32020;

/// How a stream ended.
#[derive(Default)]
struct Ended {
    /// The last event id seen, to resume from.
    last_id: Option<String>,
    /// The last `retry` the server asked for.
    retry_ms: Option<u64>,
    /// Whether the answer waited for came.
    answered: bool,
}

impl Ended {
    fn wait(&self) -> Duration {
        self.retry_ms.map_or(RETRY_DEFAULT, Duration::from_millis).min(RETRY_MAX)
    }
}

#[derive(Default)]
struct State {
    /// The `Mcp-Session-Id` the server gave at initialize.
    session: Option<String>,
    /// The revision the server chose, sent as `MCP-Protocol-Version` once known.
    version: Option<String>,
    /// The host's `initialize`, sent again when the server forgets the session (404).
    init: Option<Vec<u8>>,
}

/// A session with one server at one URL.
pub struct Session {
    url: Url,
    /// What the server is sent to let the bridge in: static headers, an OAuth token.
    auth: Arc<Credentials>,
    state: Mutex<State>,
    out: Output,
    get_opened: AtomicBool,
    /// Held while the session is reopened, so that one 404 reopens it once.
    reopening: Mutex<()>,
    /// Requests the host cancelled (their ids as JSON text): a stream that ends without their
    /// answer is not resumed, and no error is made up for them.
    cancelled: Mutex<HashSet<String>>,
    /// The `x-mcp-header` annotations of the tools seen (2026-07-28).
    tools: Mutex<Tools>,
    /// The connections of the 2026-07-28 requests in flight, by id as JSON text: closing one
    /// is how such a request is cancelled.
    open: Mutex<HashMap<String, Closer>>,
}

impl Session {
    /// A session not yet initialized; `auth`'s headers go with every request.
    pub fn new(url: Url, auth: Arc<Credentials>, out: Output) -> Arc<Session> {
        Arc::new(Session {
            url,
            auth,
            state: Mutex::new(State::default()),
            out,
            get_opened: AtomicBool::new(false),
            reopening: Mutex::new(()),
            cancelled: Mutex::new(HashSet::new()),
            tools: Mutex::new(Tools::default()),
            open: Mutex::new(HashMap::new()),
        })
    }

    fn tools(&self) -> std::sync::MutexGuard<'_, Tools> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<String, Closer>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The headers of every request: the credentials, then the session's.
    fn headers(&self, accept: &str) -> Vec<(String, String)> {
        let mut all = self.auth.headers();
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
        if method == Some("notifications/cancelled") {
            if let Some(id) = message.pointer("/params/requestId") {
                {
                    let mut cancelled = self.cancelled.lock().unwrap_or_else(PoisonError::into_inner);
                    // Ids of requests answered before their cancellation arrived would pile up.
                    if cancelled.len() >= CANCELLED_CAP {
                        cancelled.clear();
                    }
                    cancelled.insert(id.to_string());
                }
                // Spec (2026-07-28 Cancellation): over HTTP a request is cancelled by closing
                // its stream; no notification is sent.
                if let Some(closer) = self.open().remove(&id.to_string()) {
                    log::debug!("request {id} cancelled: its connection closed");
                    closer.close();
                    return;
                }
            }
        }
        if let Some(version) = modern::revision(message) {
            return self.forward_modern(message, raw, version);
        }
        let sent = match self.post(raw) {
            Ok(sent) => sent,
            Err(e) => return self.fail(request_id.as_ref(), &format!("cannot POST to {}: {e}", self.url)),
        };
        let me = Arc::clone(self);
        let stale = self.state().session.clone();
        let raw = raw.to_vec();
        thread::Builder::new()
            .name("connect-answer".into())
            .spawn(move || me.answer(sent, request_id.as_ref(), &raw, stale))
            .map(drop)
            .unwrap_or_else(|e| log::error!("cannot start a thread: {e}"));
        if method == Some("notifications/initialized") {
            self.open_get();
        }
    }

    /// POSTs one message in the session.
    fn post(&self, raw: &[u8]) -> io::Result<Sent> {
        let mut headers = self.headers("application/json, text/event-stream");
        headers.push(("Content-Type".into(), "application/json".into()));
        http1::send(&self.url, "POST", &headers, raw)
    }

    /// POSTs an `initialize` (no session yet) and reads its answer's head; a 401 gets a new
    /// token and the POST once more.
    fn post_initialize(&self, raw: &[u8]) -> Result<Response, String> {
        let send = || {
            let mut headers = self.auth.headers();
            headers.push(("Accept".to_owned(), "application/json, text/event-stream".to_owned()));
            headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
            http1::send(&self.url, "POST", &headers, raw).and_then(|sent| sent.response(Some(INITIALIZE_WITHIN)))
        };
        let response = send().map_err(|e| format!("no answer from {}: {e}", self.url))?;
        self.auth.after(&self.url, response, send)
    }

    /// `initialize`, waited for: its answer carries the session id every later request needs.
    fn initialize(&self, raw: &[u8], id: Option<&Value>) {
        let _ = self.try_initialize(raw, id, false);
    }

    /// `initialize`; with `probing`, a 4xx other than 401 and 403 without a JSON-RPC error (a
    /// server that does not speak Streamable HTTP at this URL) is not told to the host: `Err`
    /// carries the status instead.
    pub fn try_initialize(&self, raw: &[u8], id: Option<&Value>, probing: bool) -> Result<(), u16> {
        *self.state() = State { init: Some(raw.to_vec()), ..State::default() };
        match self.post_initialize(raw) {
            Ok(mut response)
                if probing && (400..500).contains(&response.status) && !matches!(response.status, 401 | 403) =>
            {
                // Spec (2026-07-28 Backward Compatibility): a JSON-RPC error in the body is a
                // Streamable HTTP server's answer (one that speaks only 2026-07-28 refuses
                // `initialize` so), for the host to read; only a bare 4xx means another transport.
                let text = response.text(ERROR_BODY_CAP).unwrap_or_default();
                let code = serde_json::from_str::<Value>(&text).ok().and_then(|v| v.pointer("/error/code")?.as_i64());
                if code.is_none() {
                    return Err(response.status);
                }
                self.refused(response.status, &text, id);
                Ok(())
            }
            Ok(response) => {
                self.read_answer(response, id);
                Ok(())
            }
            Err(why) => {
                self.fail(id, &why);
                Ok(())
            }
        }
    }

    /// Reads the answer to one POST of `raw` and writes what it carries. A 401 gets a new token
    /// and the message sent once more; `stale` is the session it was sent in: on a 404 the
    /// session is reopened and the message sent once more.
    fn answer(&self, sent: Sent, id: Option<&Value>, raw: &[u8], stale: Option<String>) {
        let response = sent
            .response(None)
            .map_err(|e| format!("no answer from {}: {e}", self.url))
            .and_then(|response| self.auth.after(&self.url, response, || self.post(raw)?.response(None)));
        match response {
            Ok(response) if response.status == 404 && stale.is_some() => {
                let Some(stale) = stale else { return };
                if !self.reopen(&stale) {
                    return self.read_answer(response, id);
                }
                match self.post(raw) {
                    Ok(sent) => self.answer(sent, id, raw, None),
                    Err(e) => self.fail(id, &format!("cannot POST to {}: {e}", self.url)),
                }
            }
            Ok(response) => self.read_answer(response, id),
            Err(why) => self.fail(id, &why),
        }
    }

    /// Initializes a new session with the host's own `initialize` after the server forgot
    /// `stale` (the answer is not the host's to see: it has one), then says `initialized`.
    /// `false` when that failed; several threads that met the same 404 reopen it once.
    fn reopen(&self, stale: &str) -> bool {
        let _one = self.reopening.lock().unwrap_or_else(PoisonError::into_inner);
        let (current, init) = {
            let state = self.state();
            (state.session.clone(), state.init.clone())
        };
        if current.as_deref() != Some(stale) {
            return current.is_some();
        }
        let Some(init) = init else { return false };
        log::warn!("the server no longer knows session {stale} (404): reopening it with the host's initialize");
        let mut response = match self.post_initialize(&init) {
            Ok(response) if response.status == 200 => response,
            Ok(response) => return log_false(&format!("reopening: initialize answered {}", response.status)),
            Err(why) => return log_false(&format!("reopening: {why}")),
        };
        let session = response.header("mcp-session-id").map(str::to_owned);
        let text = if response.is_event_stream() {
            let mut events = Events::new(response.body, MESSAGE_CAP);
            loop {
                match events.next_event() {
                    Ok(Some(event)) if event.data.is_empty() => {}
                    Ok(Some(event)) => break event.data,
                    Ok(None) => break String::new(),
                    Err(e) => return log_false(&format!("reopening: {e}")),
                }
            }
        } else {
            response.text(MESSAGE_CAP).unwrap_or_default()
        };
        let version = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|m| m.pointer("/result/protocolVersion").and_then(Value::as_str).map(str::to_owned));
        let Some(version) = version else { return log_false(&format!("reopening: initialize answered {text}")) };
        {
            let mut state = self.state();
            state.session = session.clone();
            state.version = Some(version);
        }
        let mut headers = self.headers("application/json, text/event-stream");
        headers.push(("Content-Type".into(), "application/json".into()));
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        if let Err(e) =
            http1::send(&self.url, "POST", &headers, initialized).and_then(|s| s.response(Some(INITIALIZE_WITHIN)))
        {
            return log_false(&format!("reopening: notifications/initialized: {e}"));
        }
        log::warn!("session reopened as {}", session.as_deref().unwrap_or("(none)"));
        true
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
            200 | 201 if response.is_event_stream() => self.follow(response, id),
            200 | 201 => match response.text(MESSAGE_CAP) {
                Ok(text) if text.trim().is_empty() => self.fail(id, "the server answered 200 with no body"),
                Ok(text) => self.emit(&text),
                Err(e) => self.fail(id, &format!("reading the answer: {e}")),
            },
            status => {
                let text = response.text(ERROR_BODY_CAP).unwrap_or_default();
                self.refused(status, &text, id);
            }
        }
    }

    /// Tells the host of an HTTP error answer: its JSON-RPC error, with the host's id (the
    /// server may not have known which message failed), or one made of the status.
    fn refused(&self, status: u16, text: &str, id: Option<&Value>) {
        let error = serde_json::from_str::<Value>(text).ok().filter(|v| v.get("error").is_some());
        match (id, error) {
            (Some(id), Some(mut error)) => {
                error["id"] = id.clone();
                self.out.line(&error.to_string());
            }
            _ => self.fail(id, &format!("the server answered HTTP {status}: {}", text.trim())),
        }
    }

    /// Writes every event of a stream, to its end; says how it ended and whether the answer to
    /// `wanted` came.
    fn pump(&self, response: Response, what: &str, wanted: Option<&Value>, listing: bool) -> Ended {
        let mut events = Events::new(response.body, MESSAGE_CAP);
        let mut ended = Ended::default();
        loop {
            let event = match events.next_event() {
                Ok(Some(event)) => event,
                Ok(None) => break log::debug!("{what} stream ended"),
                // A cancelled request's stream is closed here, on purpose.
                Err(e) if wanted.is_some_and(|id| self.is_cancelled(id)) => {
                    break log::debug!("{what} stream closed: {e}")
                }
                Err(e) => break log::warn!("{what} stream from {} broke: {e}", self.url),
            };
            if event.id.is_some() {
                ended.last_id = event.id.clone();
            }
            if event.retry_ms.is_some() {
                ended.retry_ms = event.retry_ms;
            }
            if event.data.is_empty() {
                continue;
            }
            if !(event.event.is_empty() || event.event == "message") {
                log::debug!("{what} stream: event {:?} skipped", event.event);
                continue;
            }
            if let Some(wanted) = wanted {
                let message = serde_json::from_str::<Value>(&event.data).unwrap_or_default();
                let answer = message.get("id") == Some(wanted) && message.get("method").is_none();
                ended.answered |= answer;
                if answer && listing {
                    self.listed(message);
                    continue;
                }
            }
            self.emit(&event.data);
        }
        ended
    }

    /// Follows an answer stream to the answer: a stream that ends before it is resumed with
    /// `Last-Event-ID` (a GET) where the server gave event ids.
    fn follow(&self, response: Response, id: Option<&Value>) {
        let mut ended = self.pump(response, "answer", id, false);
        let mut attempts = 0;
        while let Some(id) = id.filter(|_| !ended.answered) {
            if self.was_cancelled(id) {
                return log::debug!("the answer stream to cancelled request {id} ended");
            }
            let Some(last) = ended.last_id.clone() else {
                return self
                    .fail(Some(id), "the answer stream ended before the answer, without an event id to resume from");
            };
            attempts += 1;
            if attempts > RESUME_ATTEMPTS {
                return self
                    .fail(Some(id), &format!("the answer stream ended {RESUME_ATTEMPTS} times in a row; gave up"));
            }
            thread::sleep(ended.wait());
            log::info!("answer stream to {id} ended early: resuming after event {last}");
            let mut headers = self.headers("text/event-stream");
            headers.push(("Last-Event-ID".into(), last.clone()));
            let response = match http1::send(&self.url, "GET", &headers, &[]).and_then(|sent| sent.response(None)) {
                Ok(response) if response.status == 200 && response.is_event_stream() => response,
                Ok(response) => {
                    return self.fail(
                        Some(id),
                        &format!("resuming after event {last}: the server answered {}", response.status),
                    )
                }
                Err(e) => {
                    log::warn!("resuming after event {last}: {e}");
                    continue;
                }
            };
            let next = self.pump(response, "resumed answer", Some(id), false);
            if next.last_id.as_ref().is_some_and(|l| *l != last) {
                attempts = 0;
            }
            ended = Ended {
                last_id: next.last_id.or(Some(last)),
                retry_ms: next.retry_ms.or(ended.retry_ms),
                answered: next.answered,
            };
        }
    }

    /// Sends a 2026-07-28 message: alone, with its SEP-2243 headers and no session. The POST is
    /// written before this returns (the server sees the host's order); its answer is read on a
    /// thread of its own, which a cancellation ends by closing the connection.
    fn forward_modern(self: &Arc<Self>, message: &Value, raw: &[u8], version: &str) {
        let request_id = message.get("id").filter(|_| message.get("method").is_some());
        let sent = match self.post_modern(message, raw, version) {
            Ok(sent) => sent,
            Err(why) => return self.fail(request_id, &why),
        };
        let me = Arc::clone(self);
        let (message, raw, version) = (message.clone(), raw.to_vec(), version.to_owned());
        thread::Builder::new()
            .name("connect-answer".into())
            .spawn(move || me.answer_modern(sent, &message, &raw, &version))
            .map(drop)
            .unwrap_or_else(|e| log::error!("cannot start a thread: {e}"));
    }

    /// POSTs a 2026-07-28 message with the headers its body asks for; a request's connection is
    /// kept, by its id, for a cancellation to close.
    fn post_modern(&self, message: &Value, raw: &[u8], version: &str) -> Result<Sent, String> {
        let mirrored = modern::headers(message, version, &self.tools())?;
        let mut headers = self.auth.headers();
        headers.push(("Accept".into(), "application/json, text/event-stream".into()));
        headers.push(("Content-Type".into(), "application/json".into()));
        headers.extend(mirrored);
        let sent =
            http1::send(&self.url, "POST", &headers, raw).map_err(|e| format!("cannot POST to {}: {e}", self.url))?;
        if let (Some(id), Some(_)) = (message.get("id"), message.get("method")) {
            match sent.closer() {
                Ok(closer) => drop(self.open().insert(id.to_string(), closer)),
                Err(e) => log::debug!("request {id} cannot be cancelled: {e}"),
            }
        }
        Ok(sent)
    }

    /// Reads the answer to a 2026-07-28 POST. A `tools/call` refused for its `Mcp-Param-*`
    /// headers (`-32020`) is sent once more after reading the tools again, as the spec's
    /// Client Behavior says: the bridge may not have seen the tool's schema, or it changed.
    fn answer_modern(&self, mut sent: Sent, message: &Value, raw: &[u8], version: &str) {
        let id = message.get("id").filter(|_| message.get("method").is_some());
        let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
        let mut retried = false;
        loop {
            let resend = || self.post_modern(message, raw, version).map_err(io::Error::other)?.response(None);
            let response = sent
                .response(None)
                .map_err(|e| format!("no answer from {}: {e}", self.url))
                .and_then(|response| self.auth.after(&self.url, response, resend));
            let mut response = match response {
                Ok(response) => response,
                Err(why) => break self.fail(id, &why),
            };
            if response.status != 400 || method != "tools/call" || retried {
                break self.read_modern(response, id, method == "tools/list");
            }
            let text = response.text(ERROR_BODY_CAP).unwrap_or_default();
            let code = serde_json::from_str::<Value>(&text).ok().and_then(|v| v.pointer("/error/code")?.as_i64());
            if code != Some(HEADER_MISMATCH) {
                break self.refused(400, &text, id);
            }
            retried = true;
            log::info!(
                "the server wants other Mcp-Param headers for this call ({}): reading tools/list again",
                text.trim()
            );
            self.learn_tools(message, version);
            sent = match self.post_modern(message, raw, version) {
                Ok(sent) => sent,
                Err(why) => break self.fail(id, &why),
            };
        }
        if let Some(id) = id {
            self.open().remove(&id.to_string());
        }
    }

    /// Writes what a 2026-07-28 answer carries. Its stream is not resumed (the revision has no
    /// resumption), and no session id is kept.
    fn read_modern(&self, mut response: Response, id: Option<&Value>, listing: bool) {
        match response.status {
            202 if id.is_none() => {}
            200 | 201 if response.is_event_stream() => {
                let ended = self.pump(response, "answer", id, listing);
                match id.filter(|_| !ended.answered) {
                    Some(id) if self.was_cancelled(id) => log::debug!("the stream of cancelled request {id} closed"),
                    Some(id) => self.fail(Some(id), "the answer stream ended before the answer"),
                    None => {}
                }
            }
            200 | 201 => match response.text(MESSAGE_CAP) {
                Ok(text) if text.trim().is_empty() => self.fail(id, "the server answered 200 with no body"),
                Ok(text) if listing => match serde_json::from_str::<Value>(&text) {
                    Ok(message) => self.listed(message),
                    Err(_) => self.emit(&text),
                },
                Ok(text) => self.emit(&text),
                Err(e) => self.fail(id, &format!("reading the answer: {e}")),
            },
            status => {
                let text = response.text(ERROR_BODY_CAP).unwrap_or_default();
                self.refused(status, &text, id);
            }
        }
    }

    /// A `tools/list` answer: the tools' header annotations learnt, the invalid tools left out.
    fn listed(&self, mut message: Value) {
        if let Some(result) = message.get_mut("result") {
            self.tools().learn(result);
        }
        self.out.line(&message.to_string());
    }

    /// Reads every page of `tools/list` with the `_meta` of `message`, for the tools' header
    /// annotations (the answers are the bridge's own, not the host's).
    fn learn_tools(&self, message: &Value, version: &str) {
        let meta = message.pointer("/params/_meta").cloned().unwrap_or_else(|| json!({}));
        let mut cursor = None;
        for page in 0..LISTING_PAGES {
            let id = json!(format!("tinymcp-connect-tools-{page}"));
            let mut params = json!({"_meta": meta});
            if let Some(cursor) = cursor.take() {
                params["cursor"] = cursor;
            }
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
            let answer = self.post_modern(&request, request.to_string().as_bytes(), version).and_then(|sent| {
                let response = sent.response(Some(INITIALIZE_WITHIN)).map_err(|e| e.to_string());
                self.open().remove(&id.to_string());
                one_answer(response?, &id)
            });
            let mut result = match answer {
                Ok(mut answer) if answer.get("result").is_some() => answer["result"].take(),
                Ok(answer) => return log::warn!("reading tools/list: {answer}"),
                Err(why) => return log::warn!("reading tools/list: {why}"),
            };
            self.tools().learn(&mut result);
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                return;
            }
        }
    }

    /// One message from the server to the host; the first `initialize` answer also sets the
    /// revision every later request names.
    fn emit(&self, text: &str) {
        {
            let mut state = self.state();
            // Only an `initialize` answer names the session's revision.
            if state.version.is_none() && state.init.is_some() {
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

    /// Whether the host cancelled request `id` (and forgets it: this is asked once, at the end).
    fn was_cancelled(&self, id: &Value) -> bool {
        self.cancelled.lock().unwrap_or_else(PoisonError::into_inner).remove(&id.to_string())
    }

    /// Whether the host cancelled request `id` (asked while its stream is read: not forgotten).
    fn is_cancelled(&self, id: &Value) -> bool {
        self.cancelled.lock().unwrap_or_else(PoisonError::into_inner).contains(&id.to_string())
    }

    /// Tells the host a request failed here, not at the server (or only logs, for a message
    /// that has no answer or a request the host cancelled).
    fn fail(&self, id: Option<&Value>, why: &str) {
        log::warn!("{why}");
        if let Some(id) = id.filter(|id| !self.was_cancelled(id)) {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": why}});
            self.out.line(&error.to_string());
        }
    }

    /// Opens the GET stream once, for what the server sends unasked; a 405 means it has none.
    /// A stream that ends is opened again, from its last event id while the session is the
    /// same; a 404 reopens the session.
    fn open_get(self: &Arc<Self>) {
        if self.get_opened.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = Arc::clone(self);
        let started = thread::Builder::new().name("connect-get".into()).spawn(move || me.get_loop());
        if let Err(e) = started {
            log::error!("cannot start a thread: {e}");
        }
    }

    fn get_loop(&self) {
        let mut last: Option<(String, String)> = None;
        let mut failures = 0;
        let mut ended = Ended::default();
        while failures < RESUME_ATTEMPTS {
            let session = self.state().session.clone();
            let mut headers = self.headers("text/event-stream");
            headers.extend(headers_last(&last, &session));
            let got = http1::send(&self.url, "GET", &headers, &[]).and_then(|sent| sent.response(None));
            let got = got.map_err(|e| e.to_string()).and_then(|response| {
                self.auth.after(&self.url, response, || {
                    let mut headers = self.headers("text/event-stream");
                    headers.extend(headers_last(&last, &session));
                    http1::send(&self.url, "GET", &headers, &[])?.response(None)
                })
            });
            match got {
                Ok(response) if response.status == 405 => {
                    return log::info!("{} offers no GET stream (405)", self.url);
                }
                Ok(response) if response.status == 404 => {
                    let reopened = session.as_deref().is_some_and(|stale| self.reopen(stale));
                    if !reopened {
                        failures += 1;
                    }
                    continue;
                }
                Ok(response) if response.status == 200 && response.is_event_stream() => {
                    failures = 0;
                    ended = self.pump(response, "GET", None, false);
                    if let (Some(id), Some(session)) = (ended.last_id.clone(), session) {
                        last = Some((session, id));
                    }
                }
                Ok(response) => {
                    failures += 1;
                    log::warn!("GET {} answered {}", self.url, response.status);
                }
                Err(e) => {
                    failures += 1;
                    log::warn!("GET {}: {e}", self.url);
                }
            }
            thread::sleep(ended.wait());
        }
        log::warn!("GET {}: gave up after {RESUME_ATTEMPTS} failures in a row", self.url);
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

/// The answer to request `id` in a response, JSON or events (what comes before it is dropped:
/// it is the bridge's own request).
fn one_answer(mut response: Response, id: &Value) -> Result<Value, String> {
    if response.status != 200 && response.status != 201 {
        let status = response.status;
        return Err(format!("HTTP {status}: {}", response.text(ERROR_BODY_CAP).unwrap_or_default().trim()));
    }
    if !response.is_event_stream() {
        let text = response.text(MESSAGE_CAP).map_err(|e| e.to_string())?;
        return serde_json::from_str(&text).map_err(|e| format!("not JSON ({e})"));
    }
    let mut events = Events::new(response.body, MESSAGE_CAP);
    while let Some(event) = events.next_event().map_err(|e| e.to_string())? {
        let message = serde_json::from_str::<Value>(&event.data).unwrap_or_default();
        if message.get("id") == Some(id) && message.get("method").is_none() {
            return Ok(message);
        }
    }
    Err("the stream ended before the answer".into())
}

/// `Last-Event-ID` for the GET stream, when the last event seen was in the current session.
fn headers_last(last: &Option<(String, String)>, session: &Option<String>) -> Option<(String, String)> {
    match (last, session) {
        (Some((in_session, id)), Some(now)) if in_session == now => Some(("Last-Event-ID".into(), id.clone())),
        _ => None,
    }
}

fn log_false(why: &str) -> bool {
    log::warn!("{why}");
    false
}
