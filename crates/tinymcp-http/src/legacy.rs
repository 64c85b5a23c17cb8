//! The HTTP+SSE transport of 2024-11-05, for old clients: GET `/sse` opens the session's one
//! stream and names the URL to POST to; every answer travels on that stream as `event: message`.
//! Closing the stream ends the session. What waits for the stream is bounded: beyond
//! `WAITING` messages (or `WAITING_BYTES`) the newest are dropped, and a client that stops reading loses its stream
//! (and session) once a write has made no progress for the write timeout.

use super::http1::Exchange;
use super::pump::{Pump, Stop};
use super::{read_message, wait_next, Http, HttpResponse, Mount};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use tinymcp::transport::kit::random;
use tinymcp::transport::kit::Arrival;
use tinymcp::transport::kit::Connection;
use tinymcp::transport::kit::{Outgoing, Sink};
use tinymcp::RpcError;

/// Messages that may wait for a legacy session's stream.
const WAITING: usize = 256;

struct LegacySession {
    connection: Connection,
    /// Where every answer of this session goes: its one stream.
    stream: Sink,
}

/// Legacy sessions by id.
#[derive(Default)]
pub(super) struct Legacy {
    table: Mutex<HashMap<String, Arc<LegacySession>>>,
}

impl Legacy {
    /// Ends every legacy session (at shutdown); their streams notice within a slice.
    pub(super) fn close_all(&self) {
        for session in self.table.lock().unwrap_or_else(PoisonError::into_inner).values() {
            session.connection.close();
        }
    }
}

/// The transport exists only for the handshake revisions: a server that speaks none
/// (`Options::revisions`) has no such endpoints, so an old client fails at its opening GET
/// (spec basic/versioning, Compatibility Matrix: legacy client, modern server).
fn unserved(at: &Mount) -> Option<HttpResponse> {
    let revisions = at.server.options().revisions;
    if revisions.has_handshake() {
        return None;
    }
    let text = format!(
        "not found: this server speaks {revisions} only, at {}/mcp, without the HTTP+SSE transport\n",
        at.prefix
    );
    Some(HttpResponse::text(404, &text))
}

pub(super) fn open(http: &Http, at: &Mount, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    if let Some(answer) = unserved(at) {
        return answer.send(exchange, cors);
    }
    let id = match random::routed_token(at.server.node_id(), 16) {
        Ok(id) => id,
        Err(e) => {
            log::error!("no session id: {e}");
            return HttpResponse::rpc_error(500, &RpcError::internal()).send(exchange, cors);
        }
    };
    let (stream, messages) = Sink::bounded_with_answers(WAITING, super::WAITING_BYTES);
    let session =
        Arc::new(LegacySession { connection: Connection::new(Arc::clone(&at.server), stream.clone()), stream });
    // One cap for every transport: held until the stream ends.
    let _place = match http.sessions.reserve() {
        Ok(place) => place,
        Err(refused) => return super::too_many(http, refused).send(exchange, cors),
    };
    http.legacy.table.lock().unwrap_or_else(PoisonError::into_inner).insert(id.clone(), Arc::clone(&session));
    log::info!("legacy SSE session {id} opened");
    if let Ok(mut pump) = Pump::start(exchange, cors) {
        let endpoint = format!("{}/messages?sessionId={id}", at.prefix);
        let stop = match pump.event(None, Some("endpoint"), None, &endpoint) {
            Err(_) => Stop::Abandon,
            Ok(()) => loop {
                let open = || !session.connection.is_closed();
                match wait_next(|wait| messages.recv_timeout(wait), || pump.idle(http, open(), true)) {
                    Ok(Some(Outgoing::CloseStream)) => {}
                    Ok(Some(message)) => {
                        if pump.event(None, Some("message"), None, &message.to_text()).is_err() {
                            break Stop::Abandon;
                        }
                    }
                    Ok(None) => break Stop::Finish,
                    Err(stop) => break stop,
                }
            },
        };
        pump.end(http, stop);
    }
    http.legacy.table.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    session.connection.close();
    log::info!("legacy SSE session {id} closed");
}

/// A POST to `/messages`; `scopes`: what its access token granted, when scopes are checked,
/// and `subject`: to whom.
pub(super) fn post(
    http: &Http,
    at: &Mount,
    exchange: &mut Exchange<'_>,
    query: &str,
    cors: &[(&'static str, String)],
    scopes: Option<&[String]>,
    subject: Option<&str>,
) {
    if let Some(answer) = unserved(at) {
        return answer.send(exchange, cors);
    }
    let id = query.split('&').find_map(|pair| pair.strip_prefix("sessionId=")).unwrap_or("");
    let session = http.legacy.table.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned();
    // A session is served under the name it began at only.
    let Some(session) = session.filter(|s| s.connection.serves(&at.server)) else {
        let error = RpcError::invalid_request("unknown or closed sessionId: open /sse first");
        return HttpResponse::rpc_error(404, &error).send(exchange, cors);
    };
    match read_message(at, exchange) {
        Ok(incoming) => {
            let arrival = scopes.map_or(Arrival::Plain, |scopes| Arrival::Scoped { scopes, subject });
            session.connection.handle(Ok(incoming), arrival, &session.stream);
            HttpResponse::text(202, "Accepted\n").send(exchange, cors);
        }
        Err(answer) => answer.send(exchange, cors),
    }
}
