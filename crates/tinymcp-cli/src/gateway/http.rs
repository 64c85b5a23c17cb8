//! An upstream over Streamable HTTP (http:// or https://, through `tinymcp connect`'s HTTP/1.1
//! client and TLS): each request a POST whose answer, JSON or a stream of events, is read on
//! a thread of its own and delivered to the link with the request it belongs to (so a question
//! the upstream asks on that stream goes to the call that caused it); the session's GET stream
//! carries what is not tied to a request (list changes, resource updates).

use super::link::{Link, Wire};
use crate::cli::connect::auth::Credentials;
use crate::cli::connect::http1::{self, Closer, Response, Url};
use crate::cli::connect::modern::{self, Tools};
use crate::cli::connect::sse::Events;
use crate::cli::connect::MESSAGE_CAP;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::thread;
use std::time::Duration;

/// How long a POST that answers nothing of ours (a notification, our answer to a question)
/// may take.
const SHORT: Duration = Duration::from_secs(10);
/// The most of an error body quoted.
const ERROR_BODY: usize = 512;

pub struct HttpWire {
    url: Url,
    /// The gateway's own credentials there (never a caller's): their headers with every
    /// request, every answer passed through `after` (a 401 gets a token, the request is sent
    /// once more).
    auth: Arc<Credentials>,
    session: Mutex<Option<String>>,
    /// Sent as `MCP-Protocol-Version` once the handshake agreed on it.
    version: Mutex<Option<String>>,
    /// The connections of requests in flight, by our id: closing one abandons its request.
    open: Mutex<HashMap<u64, Closer>>,
    get: Mutex<Option<Closer>>,
    closed: AtomicBool,
    /// A per-request revision (2026-07-28) once the handshake found one: each request goes
    /// alone with its headers (`tinymcp connect`'s `modern`), learnt tools' annotations in `tools`.
    per_request: Mutex<Option<String>>,
    tools: Mutex<Tools>,
    /// Itself, for the threads that read answers.
    me: Weak<HttpWire>,
}

impl HttpWire {
    pub fn new(url: Url, auth: Arc<Credentials>) -> Arc<HttpWire> {
        Arc::new_cyclic(|me| HttpWire {
            me: me.clone(),
            url,
            auth,
            session: Mutex::new(None),
            version: Mutex::new(None),
            open: Mutex::new(HashMap::new()),
            get: Mutex::new(None),
            closed: AtomicBool::new(false),
            per_request: Mutex::new(None),
            tools: Mutex::new(Tools::default()),
        })
    }

    fn open(&self) -> MutexGuard<'_, HashMap<u64, Closer>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn headers(&self, accept: &str) -> Vec<(String, String)> {
        let mut all = self.auth.headers();
        all.push(("Accept".into(), accept.into()));
        if let Some(id) = self.session.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            all.push(("Mcp-Session-Id".into(), id));
        }
        if let Some(version) = self.version.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            all.push(("MCP-Protocol-Version".into(), version));
        }
        all
    }

    /// The handshake is done: later requests carry its revision, and the GET stream opens.
    pub fn initialized(self: &Arc<Self>, link: &Arc<Link>) {
        let version = link.revision.lock().unwrap_or_else(PoisonError::into_inner).clone();
        *self.version.lock().unwrap_or_else(PoisonError::into_inner) = Some(version);
        let (me, link) = (Arc::clone(self), Arc::clone(link));
        let _ = thread::Builder::new().name("gateway-get".into()).spawn(move || me.listen(&link));
    }

    /// The session's GET stream, while it lasts (a server without one answers 405).
    fn listen(&self, link: &Arc<Link>) {
        let get = || {
            let sent = http1::send(&self.url, "GET", &self.headers("text/event-stream"), b"")?;
            if let Ok(closer) = sent.closer() {
                *self.get.lock().unwrap_or_else(PoisonError::into_inner) = Some(closer);
            }
            if self.closed.load(Ordering::SeqCst) {
                return Err(std::io::Error::other("its session was closed"));
            }
            sent.response(Some(SHORT))
        };
        let response = get().map_err(|e| e.to_string()).and_then(|r| self.auth.after(&self.url, r, get));
        match response {
            Ok(mut response) if response.status == 200 && response.is_event_stream() => {
                let _ = response.wait_forever();
                self.read_events(response, link, None);
            }
            Ok(response) => log::debug!("{}: no GET stream (HTTP {})", link.name, response.status),
            Err(e) => log::debug!("{}: GET stream: {e}", link.name),
        }
    }

    /// A POST's headers: the credentials, the session's, and for a per-request revision those
    /// its body asks for (SEP-2243: the revision, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
    fn post_headers(&self, body: &[u8]) -> std::io::Result<Vec<(String, String)>> {
        let mut headers = self.headers("application/json, text/event-stream");
        headers.push(("Content-Type".into(), "application/json".into()));
        let per_request = self.per_request.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(version) = per_request {
            let message: Value = serde_json::from_slice(body).map_err(std::io::Error::other)?;
            let tools = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
            headers.extend(modern::headers(&message, &version, &tools).map_err(std::io::Error::other)?);
        }
        Ok(headers)
    }

    /// POSTs `body` (again, after a new token) and reads the answer's head within `within`;
    /// request `id`'s connection can be closed meanwhile (`abandon`).
    fn post(&self, body: &[u8], id: Option<u64>, within: Option<Duration>) -> std::io::Result<Response> {
        let headers = self.post_headers(body)?;
        let sent = http1::send(&self.url, "POST", &headers, body)?;
        if let (Ok(closer), Some(id)) = (sent.closer(), id) {
            self.open().insert(id, closer);
        }
        sent.response(within)
    }

    /// Reads the answer to request `id` (or to a notification: `None`), its head `response`
    /// read within `within` (a 401 gets a token and `body` is sent once more).
    fn answer(
        &self,
        link: &Arc<Link>,
        response: std::io::Result<Response>,
        (body, within): (&[u8], Option<Duration>),
        id: Option<u64>,
    ) {
        let response = response
            .map_err(|e| format!("{}: {e}", self.url))
            .and_then(|r| self.auth.after(&self.url, r, || self.post(body, id, within)));
        let mut response = match response {
            Ok(response) => response,
            Err(why) => return fail(link, id, &why),
        };
        if let Some(session) = response.header("mcp-session-id") {
            let mut held = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            if held.is_none() {
                *held = Some(session.to_owned());
            }
        }
        match response.status {
            200 if response.is_event_stream() => {
                let _ = response.wait_forever();
                self.read_events(response, link, id);
            }
            200 => match response.text(MESSAGE_CAP) {
                Ok(text) if !text.trim().is_empty() => link.deliver(&text, id),
                Ok(_) => {}
                Err(e) => fail(link, id, &format!("reading the answer: {e}")),
            },
            202 | 204 => {}
            404 if self.session.lock().unwrap_or_else(PoisonError::into_inner).is_some() => {
                link.end("it forgot the session (HTTP 404)");
            }
            status => {
                let body = response.text(MESSAGE_CAP).unwrap_or_default();
                // A JSON-RPC error in the body is the upstream's answer, passed on as it is.
                if body.trim_start().starts_with('{') && id.is_some() {
                    return link.deliver(&body, id);
                }
                let body: String = body.chars().take(ERROR_BODY).collect();
                let hint = match status {
                    401 | 403 => " (its credentials: the upstream's headers or oauth in the gateway's config)",
                    _ => "",
                };
                fail(link, id, &format!("it answered HTTP {status}{hint}: {}", body.trim()));
            }
        }
    }
}

/// How often a request's stream that ended before its answer is resumed (SEP-1699), at most.
const RESUMES: usize = 5;

impl HttpWire {
    /// Every event of a stream to the link, as carried by request `id`'s stream, until the
    /// answer to `id` (a server that keeps the stream open after it holds no thread of ours);
    /// a stream that ends first is resumed with `Last-Event-ID` (SEP-1699), else its call fails.
    fn read_events(&self, mut response: Response, link: &Arc<Link>, id: Option<u64>) {
        let mut resumes = 0;
        loop {
            let mut last = None;
            let mut events = Events::new(response.body, MESSAGE_CAP);
            let why = loop {
                match events.next_event() {
                    Ok(Some(event)) => {
                        if event.id.is_some() {
                            last = event.id.clone();
                        }
                        if event.data.trim().is_empty() {
                            continue;
                        }
                        link.deliver(&event.data, id);
                        if id.is_some() && answers(&event.data, id) {
                            return;
                        }
                    }
                    Ok(None) => break "its stream ended before the answer".to_owned(),
                    Err(e) => break format!("its stream broke before the answer: {e}"),
                }
            };
            let (Some(_), Some(last)) = (id, last) else { return fail(link, id, &why) };
            if resumes == RESUMES || self.closed.load(Ordering::SeqCst) {
                return fail(link, id, &why);
            }
            resumes += 1;
            let mut headers = self.headers("text/event-stream");
            headers.push(("Last-Event-ID".into(), last));
            let resume = || {
                let sent = http1::send(&self.url, "GET", &headers, b"")?;
                if let (Ok(closer), Some(id)) = (sent.closer(), id) {
                    self.open().insert(id, closer);
                }
                sent.response(None)
            };
            let resumed = resume().map_err(|e| e.to_string()).and_then(|r| self.auth.after(&self.url, r, resume));
            response = match resumed {
                Ok(r) if r.status == 200 && r.is_event_stream() => r,
                Ok(r) => return fail(link, id, &format!("{why}, and resuming it answered HTTP {}", r.status)),
                Err(e) => return fail(link, id, &format!("{why}, and resuming it failed: {e}")),
            };
        }
    }
}

/// Whether `data` is the answer to request `id` (an id and no method).
fn answers(data: &str, id: Option<u64>) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<serde_json::Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Head>(data).is_ok_and(|h| h.method.is_none() && h.id.and_then(|i| i.as_u64()) == id)
}

/// Request `id` failed at the transport: its thread hears why (an answer that came first wins).
fn fail(link: &Arc<Link>, id: Option<u64>, why: &str) {
    match id {
        Some(id) => {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                "message": format!("upstream {}: {why}", link.name)}});
            link.deliver(&error.to_string(), Some(id));
        }
        None => log::debug!("{}: {why}", link.name),
    }
}

impl Wire for HttpWire {
    fn send(&self, link: &Arc<Link>, message: String, id: Option<u64>) -> Result<(), String> {
        if self.closed.load(Ordering::SeqCst) {
            return Err("its session was closed".into());
        }
        let per_request = self.per_request.lock().unwrap_or_else(PoisonError::into_inner).is_some();
        if per_request && id.is_none() {
            // Spec (2026-07-28): over HTTP a request is cancelled by closing its connection
            // (`abandon`); there is no session a notification could belong to.
            return Ok(());
        }
        let headers = self.post_headers(message.as_bytes()).map_err(|e| e.to_string())?;
        let sent = match http1::send(&self.url, "POST", &headers, message.as_bytes()) {
            Ok(sent) => sent,
            Err(e) => {
                let why = format!("cannot reach {}: {e}", self.url);
                // Nothing answers there: the supervisor reconnects when it does again.
                link.end(&why);
                return Err(why);
            }
        };
        let Some(id) = id else {
            self.answer(link, sent.response(Some(SHORT)), (message.as_bytes(), Some(SHORT)), None);
            return Ok(());
        };
        if let Ok(closer) = sent.closer() {
            self.open().insert(id, closer);
        }
        let link = Arc::clone(link);
        // The wire outlives the request: the link holds it until the link ends.
        let me = self.me.upgrade().ok_or("its session was closed")?;
        thread::Builder::new()
            .name("gateway-answer".into())
            .spawn(move || {
                me.answer(&link, sent.response(None), (message.as_bytes(), None), Some(id));
                me.open().remove(&id);
            })
            .map(drop)
            .map_err(|e| format!("cannot start a thread: {e}"))
    }

    fn per_request(&self, version: &str) {
        *self.per_request.lock().unwrap_or_else(PoisonError::into_inner) = Some(version.to_owned());
    }

    fn listed(&self, result: &mut Value) {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner).learn(result);
    }

    fn abandon(&self, id: u64) {
        if let Some(closer) = self.open().remove(&id) {
            closer.close();
        }
    }

    fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        for (_, closer) in self.open().drain() {
            closer.close();
        }
        if let Some(closer) = self.get.lock().unwrap_or_else(PoisonError::into_inner).take() {
            closer.close();
        }
        // The session ends upstream too (best effort: it may be gone already).
        if self.session.lock().unwrap_or_else(PoisonError::into_inner).is_some() {
            let headers = self.headers("application/json");
            if let Ok(sent) = http1::send(&self.url, "DELETE", &headers, b"") {
                let _ = sent.response(Some(Duration::from_secs(2)));
            }
        }
    }
}
