//! An upstream over the legacy HTTP+SSE transport (2024-11-05), `"transport": "sse"`: one GET
//! stream whose first `endpoint` event names where to POST (same origin only); every message
//! is POSTed there (answered 202) and everything the upstream says, answers included, comes
//! on the stream, delivered to the link. The stream's end ends the link.

use super::link::{Link, Wire};
use crate::cli::connect::auth::Credentials;
use crate::cli::connect::http1::{self, Closer, Url};
use crate::cli::connect::legacy;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long the upstream may take to answer one POST (a 202).
const POST_WITHIN: Duration = Duration::from_secs(30);

pub struct LegacyWire {
    /// The stream's URL: the resource the credentials are for.
    url: Url,
    endpoint: Url,
    /// The gateway's own credentials there: with every request, a 401 answered (`after`).
    auth: Arc<Credentials>,
    stream: Mutex<Option<Closer>>,
}

/// Opens the stream at `url` for `link` (as `tinymcp connect` opens its own): what it carries
/// is delivered to the link, and its end ends the link.
pub fn open(link: &Arc<Link>, url: &Url, auth: Arc<Credentials>) -> Result<Arc<LegacyWire>, String> {
    let (reading, ending) = (Arc::clone(link), Arc::clone(link));
    let opened = legacy::open_stream(
        url,
        &auth,
        "gateway-sse",
        move |data| reading.deliver(data, None),
        move |why| ending.end(&why),
    )?;
    Ok(Arc::new(LegacyWire { url: url.clone(), endpoint: opened.endpoint, auth, stream: Mutex::new(opened.stream) }))
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
