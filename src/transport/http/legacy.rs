//! The HTTP+SSE transport of 2024-11-05, for old clients: GET `/sse` opens the session's one
//! stream and names the URL to POST to; every answer travels on that stream as `event: message`.
//! Closing the stream ends the session. What waits for the stream is bounded: beyond
//! `WAITING` messages the newest are dropped, and a client that stops reading loses its stream
//! (and session) once a write has made no progress for the write timeout.

use super::http1::Exchange;
use super::sse::SseWriter;
use super::{read_message, Answer, Http, SLICE};
use crate::server::connection::{Connection, Outgoing, Sink};
use crate::util::random;
use crate::wire::jsonrpc::RpcError;
use std::collections::HashMap;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

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

pub(super) fn open(http: &Http, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    let id = match random::routed_token(http.server.node_id(), 16) {
        Ok(id) => id,
        Err(e) => {
            log::error!("no session id: {e}");
            return Answer::rpc_error(500, &RpcError::internal()).send(exchange, cors);
        }
    };
    let (stream, messages) = Sink::bounded(WAITING);
    let session =
        Arc::new(LegacySession { connection: Connection::new(Arc::clone(&http.server), stream.clone()), stream });
    // One cap for every transport: held until the stream ends.
    let _place = match http.sessions.reserve() {
        Ok(place) => place,
        Err(refused) => return super::too_many(refused).send(exchange, cors),
    };
    http.legacy.table.lock().unwrap_or_else(PoisonError::into_inner).insert(id.clone(), Arc::clone(&session));
    log::info!("legacy SSE session {id} opened");
    if let Ok(mut writer) = SseWriter::start(exchange, cors) {
        let mut alive = writer.event(None, Some("endpoint"), None, &format!("/messages?sessionId={id}")).is_ok();
        let mut last_write = Instant::now();
        while alive && !session.connection.session().is_closed() && !http.stopping() {
            alive = match messages.recv_timeout(SLICE) {
                Ok(Outgoing::CloseStream) => true,
                Ok(message) => {
                    last_write = Instant::now();
                    writer.event(None, Some("message"), None, message.json()).is_ok()
                }
                Err(RecvTimeoutError::Timeout) if writer.client_gone() => false,
                Err(RecvTimeoutError::Timeout) if http.streams_ending() => break,
                Err(RecvTimeoutError::Timeout) if last_write.elapsed() >= http.options.keep_alive => {
                    last_write = Instant::now();
                    writer.comment("keep-alive").is_ok()
                }
                Err(RecvTimeoutError::Timeout) => true,
                Err(RecvTimeoutError::Disconnected) => false,
            };
        }
        if http.streams_ending() {
            writer.end_with_retry(super::retry_ms(&http.options));
        }
    }
    http.legacy.table.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    session.connection.close();
    log::info!("legacy SSE session {id} closed");
}

pub(super) fn post(http: &Http, exchange: &mut Exchange<'_>, query: &str, cors: &[(&'static str, String)]) {
    let id = query.split('&').find_map(|pair| pair.strip_prefix("sessionId=")).unwrap_or("");
    let session = http.legacy.table.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned();
    let Some(session) = session else {
        let error = RpcError::invalid_request("unknown or closed sessionId: open /sse first");
        return Answer::rpc_error(404, &error).send(exchange, cors);
    };
    match read_message(http, exchange) {
        Ok(incoming) => {
            session.connection.handle(Ok(incoming), &session.stream);
            Answer::text(202, "Accepted\n").send(exchange, cors);
        }
        Err(answer) => answer.send(exchange, cors),
    }
}
