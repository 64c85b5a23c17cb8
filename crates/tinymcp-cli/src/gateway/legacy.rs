//! An upstream over the legacy HTTP+SSE transport (2024-11-05), `"transport": "sse"`: one GET
//! stream whose first `endpoint` event names where to POST (same origin only); every message
//! is POSTed there (answered 202) and everything the upstream says, answers included, comes
//! on the stream, delivered to the link. The stream's end ends the link.

use super::link::{Link, Wire};
use crate::cli::connect::auth::Credentials;
use crate::cli::connect::http1::{self, Closer, Url};
use crate::cli::connect::sse::Events;
use crate::cli::connect::MESSAGE_CAP;
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// How long the upstream may take to name its endpoint, and to answer one POST (a 202).
const ENDPOINT_WITHIN: Duration = Duration::from_secs(10);
const POST_WITHIN: Duration = Duration::from_secs(30);

pub struct LegacyWire {
    /// The stream's URL: the resource the credentials are for.
    url: Url,
    endpoint: Url,
    /// The gateway's own credentials there: with every request, a 401 answered (`after`).
    auth: Arc<Credentials>,
    stream: Mutex<Option<Closer>>,
}

/// Opens the stream at `url` for `link` and waits for the `endpoint` event.
pub fn open(link: &Arc<Link>, url: &Url, auth: Arc<Credentials>) -> Result<Arc<LegacyWire>, String> {
    let closer = Mutex::new(None);
    let get = || {
        let mut headers = auth.headers();
        headers.push(("Accept".into(), "text/event-stream".into()));
        let sent = http1::send(url, "GET", &headers, &[])?;
        *closer.lock().unwrap_or_else(PoisonError::into_inner) = sent.closer().ok();
        sent.response(Some(ENDPOINT_WITHIN))
    };
    let response = get().map_err(|e| format!("GET {url}: {e}"))?;
    let mut response = auth.after(url, response, get).map_err(|why| format!("GET {url}: {why}"))?;
    let closer = closer.into_inner().unwrap_or_else(PoisonError::into_inner);
    if response.status != 200 || !response.is_event_stream() {
        return Err(format!("GET {url}: answered HTTP {} without an event stream", response.status));
    }
    response.wait_forever().map_err(|e| format!("GET {url}: {e}"))?;
    let (tx, rx) = mpsc::channel();
    let (base, reading) = (url.clone(), Arc::clone(link));
    thread::Builder::new()
        .name("gateway-sse".into())
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
                    Ok(Some(event)) if event.event.is_empty() || event.event == "message" => {
                        reading.deliver(&event.data, None)
                    }
                    Ok(Some(_)) => {}
                    Ok(None) => break "it ended its event stream".to_owned(),
                    Err(e) => break format!("its event stream broke: {e}"),
                }
            };
            reading.end(&why);
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    let endpoint = rx
        .recv_timeout(ENDPOINT_WITHIN)
        .map_err(|_| format!("GET {url}: no `endpoint` event within {} s", ENDPOINT_WITHIN.as_secs()))??;
    Ok(Arc::new(LegacyWire { url: url.clone(), endpoint, auth, stream: Mutex::new(closer) }))
}

impl Wire for LegacyWire {
    fn send(&self, link: &Arc<Link>, message: String, _: Option<u64>) -> Result<(), String> {
        let post = || {
            let mut headers = self.auth.headers();
            headers.push(("Content-Type".into(), "application/json".into()));
            http1::send(&self.endpoint, "POST", &headers, message.as_bytes())
                .and_then(|sent| sent.response(Some(POST_WITHIN)))
        };
        let response = match post() {
            Ok(response) => response,
            Err(e) => {
                let why = format!("cannot reach {}: {e}", self.endpoint);
                link.end(&why);
                return Err(why);
            }
        };
        let answer = self
            .auth
            .after(&self.url, response, post)
            .map(|mut response| (response.status, response.text(4096).unwrap_or_default()));
        match answer {
            Ok((200..=299, _)) => Ok(()),
            Ok((status, text)) => Err(format!("POST {} answered HTTP {status}: {}", self.endpoint, text.trim())),
            Err(why) => Err(format!("POST {}: {why}", self.endpoint)),
        }
    }

    fn close(&self) {
        if let Some(closer) = self.stream.lock().unwrap_or_else(PoisonError::into_inner).take() {
            closer.close();
        }
    }
}
