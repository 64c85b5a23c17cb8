//! The SSE streams of `/mcp` up to 2025-11-25: a POST's answer when it became a stream, GET's
//! standalone stream for messages not tied to a request, and the resumption of a stream after
//! the `Last-Event-ID` a client saw. Each GET stream waits on its own turn at the session's
//! notice channel, holding no lock while it waits. Every one gets keep-alive comments.

use super::http1::Exchange;
use super::pump::{Pump, Stop};
use super::sessions::{event_key, HttpSession};
use super::sse::{self, EventLog, Replay, Stream};
use super::{accepts, ended_with_session, find_session, retry_ms, wait_next, Http, HttpResponse, Mount, SLICE};
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::Duration;
use tinymcp::transport::kit::{BoundedReceiver, Outgoing};
use tinymcp::ProtocolVersion;
use tinymcp::{RequestId, RpcError};

/// GET opens a standalone stream for messages not tied to a request, or resumes a stream after
/// the `Last-Event-ID` the client saw.
pub(super) fn get(http: &Http, at: &Mount, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    if !accepts(exchange, "text/event-stream") {
        let error = RpcError::invalid_request("Accept must list text/event-stream");
        return HttpResponse::rpc_error(406, &error).send(exchange, cors);
    }
    let session = match find_session(http, at, exchange) {
        Ok(session) => session,
        Err(answer) => return answer.send(exchange, cors),
    };
    session.mark_used();
    let resume = exchange.header("Last-Event-ID").and_then(sse::parse_event_id);
    let resumed = resume.and_then(|(id, seq)| Some((session.stream(id)?, seq)));
    if let (Some((id, seq)), None, Some(log)) = (resume, &resumed, &http.options.event_log) {
        // Not this replica's stream: what the others kept of it.
        let replay = match log.after(&event_key(session.id(), id), seq) {
            Ok(Some(replay)) => replay,
            Ok(None) => {
                return HttpResponse::rpc_error(404, &RpcError::invalid_request("that stream is gone"))
                    .send(exchange, cors)
            }
            Err(e) => {
                let error = RpcError::new(
                    tinymcp::error_codes::INTERNAL_ERROR,
                    format!("that stream cannot be resumed here now: {e}"),
                );
                return HttpResponse::rpc_error(503, &error).send(exchange, cors);
            }
        };
        return replay_elsewhere(http, exchange, cors, &session, log, (id, seq), replay);
    }
    if resume.is_some() && resumed.is_none() {
        return HttpResponse::rpc_error(404, &RpcError::invalid_request("that stream is gone")).send(exchange, cors);
    }
    if let Some((stream, _)) = &resumed {
        if !stream.attach(Duration::from_secs(1)) {
            let error = RpcError::invalid_request("that stream is still open on another connection");
            return HttpResponse::rpc_error(409, &error).send(exchange, cors);
        }
    }
    let open = session.open_streams.fetch_add(1, Ordering::SeqCst);
    if open >= http.options.max_streams_per_session {
        session.open_streams.fetch_sub(1, Ordering::SeqCst);
        if let Some((stream, _)) = &resumed {
            stream.detach();
        }
        let error = RpcError::invalid_request(format!(
            "too many open streams for this session (the limit is {})",
            http.options.max_streams_per_session
        ));
        return HttpResponse::rpc_error(429, &error).send(exchange, cors);
    }
    let version = session.connection.protocol_version();
    match resumed {
        Some((stream, seq)) => resume_stream(http, exchange, cors, &session, &stream, seq),
        None => {
            let stream = session.new_stream(false, http.options.event_log.as_ref());
            match Pump::start(exchange, cors) {
                Ok(mut pump) => {
                    let primed = !primes(version)
                        || pump.event(Some(&stream.event_id(0)), None, Some(retry_ms(&http.options)), "").is_ok();
                    if primed {
                        standalone(http, pump, &session, &stream);
                    }
                }
                Err(e) => log::debug!("GET stream failed to start: {e}"),
            }
            stream.detach();
        }
    }
    session.open_streams.fetch_sub(1, Ordering::SeqCst);
}

/// Replays what a stream holds after `seq`, then follows it: to its end for a POST's stream,
/// on as a standalone stream otherwise.
fn resume_stream(
    http: &Http,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    session: &HttpSession,
    stream: &Arc<Stream>,
    mut seq: u64,
) {
    let Ok(mut pump) = Pump::start(exchange, cors) else {
        stream.detach();
        return;
    };
    let stop = loop {
        let (events, done) = stream.after(seq, SLICE);
        let idle = events.is_empty();
        if let Some(lost) = events.into_iter().find_map(|(s, json)| {
            seq = s;
            pump.event(Some(&stream.event_id(s)), None, None, &json).err()
        }) {
            log::debug!("resumed stream {} lost: {lost}", stream.id);
            break Stop::Abandon;
        }
        if done {
            break Stop::Finish;
        }
        if !stream.for_request {
            // A standalone stream: what was missed is out, now live messages.
            standalone(http, pump, session, stream);
            stream.detach();
            return;
        }
        if idle {
            if let Err(stop) = pump.idle(http, !session.connection.is_closed(), true) {
                break stop;
            }
        }
    };
    pump.end(http, stop);
    stream.detach();
}

/// How often a POST's stream kept by another replica is read again until its response is in.
const LOG_POLL: Duration = Duration::from_millis(100);

/// Resumes stream `id`, which another replica opened, from what the `EventLog` kept: its events
/// after the client's id, then, for a POST's stream, the rest as that replica keeps it (read
/// again every 100 ms) until its response; a GET's stream goes on as a new one of this replica.
fn replay_elsewhere(
    http: &Http,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    session: &HttpSession,
    log: &Arc<dyn EventLog>,
    (id, mut seq): (u64, u64),
    mut replay: Replay,
) {
    let Ok(mut pump) = Pump::start(exchange, cors) else { return };
    let stop = loop {
        for (s, json) in std::mem::take(&mut replay.events) {
            seq = s;
            if let Err(e) = pump.event(Some(&format!("{id}-{s}")), None, None, &json) {
                log::debug!("stream {id} resumed from the store lost: {e}");
                return;
            }
        }
        if replay.done {
            break Stop::Finish;
        }
        if !replay.for_request {
            let open = session.open_streams.fetch_add(1, Ordering::SeqCst);
            let stream = session.new_stream(false, Some(log));
            if open < http.options.max_streams_per_session {
                standalone(http, pump, session, &stream);
            }
            stream.detach();
            session.open_streams.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        if let Err(stop) = pump.idle(http, !session.connection.is_closed(), true) {
            break stop;
        }
        std::thread::sleep(LOG_POLL);
        replay = match log.after(&event_key(session.id(), id), seq) {
            Ok(Some(replay)) => replay,
            Ok(None) => break Stop::Finish,
            Err(e) => {
                log::debug!("stream {id}: the store failed while it was resumed: {e}");
                break Stop::Abandon;
            }
        };
    };
    pump.end(http, stop);
}

/// Forwards the session's messages not tied to a request until the client or session goes.
/// One stream at a time holds the session's notice channel; the others wait for it on their
/// own, holding no lock, and keep their own clients alive meanwhile.
fn standalone(http: &Http, mut pump: Pump<'_>, session: &HttpSession, stream: &Stream) {
    let mut notices = None;
    let stop = loop {
        let next = wait_next(
            |wait| {
                if notices.is_none() {
                    notices = session.hold_notices(wait);
                }
                notices.as_ref().map_or(Err(RecvTimeoutError::Timeout), |n| n.recv_timeout(wait))
            },
            || {
                session.touch();
                pump.idle(http, !session.connection.is_closed(), true)
            },
        );
        let written = match next {
            Ok(Some(Outgoing::CloseStream)) => Ok(()),
            Ok(Some(message)) => {
                let json = message.to_text();
                let seq = stream.push(json.clone(), false);
                pump.event(Some(&stream.event_id(seq)), None, None, &json)
            }
            Ok(None) => break Stop::Finish,
            Err(stop) => {
                log::debug!("GET stream {} ended", stream.id);
                break stop;
            }
        };
        session.touch();
        if let Err(e) = written {
            log::debug!("GET stream {} closed: {e}", stream.id);
            break Stop::Abandon;
        }
    };
    pump.end(http, stop);
}

/// The answer to a POST whose request was cancelled before anything was written for it: an
/// event stream that ends with no event. Spec (cancellation): a cancelled request is never
/// answered; (transports): a POST carrying a request gets JSON or an event stream, never the
/// `202` of a notification. Not primed, so the client has no event id to poll back with.
pub(super) fn unanswered(exchange: &mut Exchange<'_>, headers: &[(&'static str, String)]) {
    match sse::SseWriter::start(exchange, headers) {
        Ok(writer) => {
            let _ = writer.finish();
        }
        Err(e) => log::debug!("client went away before the answer: {e}"),
    }
}

/// Whether streams start with a priming event (an id and `retry:`, empty data) so a client can
/// resume them after the server or the network closes them (2025-11-25, SEP-1699).
pub(super) fn primes(version: Option<ProtocolVersion>) -> bool {
    version.is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
}

/// A request whose answer became a stream.
pub(super) struct Streamed<'a> {
    pub(super) session: &'a HttpSession,
    pub(super) first: Outgoing,
    pub(super) answers: &'a BoundedReceiver,
    pub(super) version: Option<ProtocolVersion>,
    pub(super) id: Option<&'a RequestId>,
}

/// Answers a POST as an SSE stream: every message of the request in order, the response last.
/// Messages go through the stream's replay buffer, and the request's messages keep being
/// collected after the client drops the connection, so a GET with `Last-Event-ID` gets them.
pub(super) fn answer(
    http: &Http,
    exchange: &mut Exchange<'_>,
    headers: &[(&'static str, String)],
    request: Streamed<'_>,
) {
    let Streamed { session, first, answers, version, id } = request;
    let stream = session.new_stream(true, http.options.event_log.as_ref());
    let mut pump = Pump::start(exchange, headers).ok();
    if primes(version) {
        pump = pump.and_then(|mut p| {
            p.event(Some(&stream.event_id(0)), None, Some(retry_ms(&http.options)), "").ok().map(|_| p)
        });
    }
    let mut next = Some(first);
    loop {
        let message = match next.take().or_else(|| next_streamed(http, answers, &mut pump, &stream)) {
            Some(message) => message,
            // The request ended without a response: its session was deleted while it ran.
            None if session.connection.is_closed() => Outgoing::Response(ended_with_session(id)),
            None => break,
        };
        if matches!(message, Outgoing::CloseStream) {
            // Only a primed stream can be resumed: before 2025-11-25 the client may hold no id.
            if let Some(p) = pump.take_if(|_| primes(version)) {
                log::debug!("closing stream {} early; the client polls back for the rest", stream.id);
                p.end(http, Stop::Finish);
                stream.detach();
            }
            continue;
        }
        let last = message.is_response();
        let json = message.to_text();
        let seq = stream.push(json.clone(), last);
        if let Some(p) = pump.as_mut() {
            if let Err(e) = p.event(Some(&stream.event_id(seq)), None, None, &json) {
                log::debug!("stream {} lost ({e}); its messages are kept for resumption", stream.id);
                pump = None;
                stream.detach();
            }
        }
        if last {
            break;
        }
    }
    // Without a pump the stream was detached when it was lost or closed; a resumed
    // connection may hold it by now.
    if let Some(p) = pump {
        p.end(http, Stop::Finish);
        stream.detach();
    }
}

/// `next_answer` for a request whose answer is a stream. Its messages are collected until the
/// response even after the client hangs up (kept for resumption); only a server that stops
/// ends the wait. The pump, while there is one, keeps the stream alive in between.
fn next_streamed(
    http: &Http,
    answers: &BoundedReceiver,
    pump: &mut Option<Pump<'_>>,
    stream: &Stream,
) -> Option<Outgoing> {
    let between = || {
        if http.stopping() {
            return Err(());
        }
        if pump.as_mut().is_some_and(|p| p.idle(http, true, false).is_err()) {
            log::debug!("stream {} lost; its messages are kept for resumption", stream.id);
            *pump = None;
            stream.detach();
        }
        Ok(())
    };
    wait_next(|wait| answers.recv_timeout(wait), between).ok().flatten()
}
