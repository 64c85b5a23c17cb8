//! The legacy HTTP+SSE transport (2024-11-05) from the client side: one GET stream whose first
//! `endpoint` event names where to POST; every message is POSTed there (answered 202) and
//! everything the server says, answers included, comes on the stream.

use super::auth::Credentials;
use super::http1::{self, Closer, Url};
use super::sse::Events;
use super::{Output, MESSAGE_CAP};
use serde_json::{json, Value};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// How long the server may take to name its endpoint.
const ENDPOINT_WITHIN: Duration = Duration::from_secs(10);
/// How long one POST's answer (a 202) may take.
const POST_WITHIN: Duration = Duration::from_secs(30);

/// A legacy stream opened: where to POST, and the stream's connection (to close it).
pub(crate) struct Opened {
    pub endpoint: Url,
    /// The gateway closes it when its link ends; `tinymcp connect` keeps it until it exits.
    #[cfg_attr(not(feature = "gateway"), allow(dead_code))]
    pub stream: Option<Closer>,
}

/// Opens the legacy stream at `url` (with `auth`'s headers; a 401 answered) and waits for its
/// `endpoint` event, which must name a URL on the same origin. The stream is read on a thread
/// named `thread`: each message's data goes to `on_message`, and why it ended to `on_end`.
/// `tinymcp connect` and the gateway's legacy upstreams both open theirs so.
pub(crate) fn open_stream(
    url: &Url,
    auth: &Credentials,
    thread: &str,
    mut on_message: impl FnMut(&str) + Send + 'static,
    on_end: impl FnOnce(String) + Send + 'static,
) -> Result<Opened, String> {
    let stream = Mutex::new(None);
    let get = || {
        let mut headers = auth.headers();
        headers.push(("Accept".into(), "text/event-stream".into()));
        let sent = http1::send(url, "GET", &headers, &[])?;
        *stream.lock().unwrap_or_else(PoisonError::into_inner) = sent.closer().ok();
        sent.response(Some(ENDPOINT_WITHIN))
    };
    let response = get().map_err(|e| format!("GET {url}: {e}"))?;
    let mut response = auth.after(url, response, get).map_err(|why| format!("GET {url}: {why}"))?;
    let stream = stream.into_inner().unwrap_or_else(PoisonError::into_inner);
    if response.status != 200 || !response.is_event_stream() {
        return Err(format!("GET {url}: answered HTTP {} without an event stream", response.status));
    }
    // The head had a deadline; the stream may idle as long as the server keeps it (the wait
    // for the endpoint is bounded below).
    response.wait_forever().map_err(|e| format!("GET {url}: {e}"))?;
    let (tx, rx) = mpsc::channel();
    let base = url.clone();
    thread::Builder::new()
        .name(thread.into())
        .spawn(move || {
            let mut events = Events::new(response.body, MESSAGE_CAP);
            let mut tx = Some(tx);
            let why = loop {
                match events.next_event() {
                    Ok(Some(event)) if event.event == "endpoint" => {
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(base.join(event.data.trim()));
                        }
                    }
                    Ok(Some(event)) if event.data.trim().is_empty() => {}
                    Ok(Some(event)) if event.event.is_empty() || event.event == "message" => on_message(&event.data),
                    Ok(Some(event)) => log::debug!("legacy stream: event {:?} skipped", event.event),
                    Ok(None) => break format!("the server ended the stream at {base}"),
                    Err(e) => break format!("the stream from {base} broke: {e}"),
                }
            };
            on_end(why);
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    let endpoint = rx
        .recv_timeout(ENDPOINT_WITHIN)
        .map_err(|_| format!("GET {url}: no `endpoint` event within {} s", ENDPOINT_WITHIN.as_secs()))??;
    Ok(Opened { endpoint, stream })
}

/// A legacy session: the stream is read on its own thread.
pub struct Session {
    /// The stream's URL, the server's credentials are for.
    url: Url,
    endpoint: Url,
    auth: Arc<Credentials>,
    out: Output,
}

impl Session {
    /// Opens the stream at `url` and waits for the `endpoint` event.
    pub fn open(url: &Url, auth: Arc<Credentials>, out: Output) -> Result<Session, String> {
        let stream_out = out.clone();
        let opened =
            open_stream(url, &auth, "connect-sse", move |data| stream_out.line(data), |why| log::warn!("{why}"))?;
        log::info!("legacy SSE session at {url}, posting to {}", opened.endpoint);
        Ok(Session { url: url.clone(), endpoint: opened.endpoint, auth, out })
    }

    /// POSTs one message; its answer comes on the stream.
    pub fn forward(&self, message: &Value, raw: &[u8]) {
        let post = || {
            let mut headers = self.auth.headers();
            headers.push(("Content-Type".into(), "application/json".into()));
            http1::send(&self.endpoint, "POST", &headers, raw).and_then(|sent| sent.response(Some(POST_WITHIN)))
        };
        let status = post()
            .map_err(|e| format!("POST {}: {e}", self.endpoint))
            .and_then(|response| self.auth.after(&self.url, response, post))
            .map(|mut response| (response.status, response.text(4096).unwrap_or_default()));
        let why = match status {
            Ok((200..=299, _)) => return,
            Ok((status, text)) => format!("POST {} answered {status}: {}", self.endpoint, text.trim()),
            Err(why) => why,
        };
        log::warn!("{why}");
        if let (Some(id), Some(_)) = (message.get("id"), message.get("method")) {
            self.out.line(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": why}}).to_string());
        }
    }
}
