//! The SSE streams of `/mcp` up to 2025-11-25: a POST's answer when it became a stream, GET's
//! standalone stream for messages not tied to a request, and the resumption of a stream after
//! the `Last-Event-ID` a client saw. Each GET stream waits on its own turn at the session's
//! notice channel, holding no lock while it waits. Every one gets keep-alive comments.

use super::http1::Exchange;
use super::sessions::HttpSession;
use super::sse::{self, SseWriter, Stream};
use super::{accepts, ended_with_session, find_session, retry_ms, Answer, Http, SLICE};
use crate::server::sink::Outgoing;
use crate::wire::rpc::{RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// GET opens a standalone stream for messages not tied to a request, or resumes a stream after
/// the `Last-Event-ID` the client saw.
pub(super) fn get(http: &Http, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    if !accepts(exchange, "text/event-stream") {
        let error = RpcError::invalid_request("Accept must list text/event-stream");
        return Answer::rpc_error(406, &error).send(exchange, cors);
    }
    let session = match find_session(http, exchange) {
        Ok(session) => session,
        Err(answer) => return answer.send(exchange, cors),
    };
    session.mark_used();
    let resume = exchange.header("Last-Event-ID").and_then(sse::parse_event_id);
    let resumed = resume.and_then(|(id, seq)| Some((session.stream(id)?, seq)));
    if resume.is_some() && resumed.is_none() {
        return Answer::rpc_error(404, &RpcError::invalid_request("that stream is gone")).send(exchange, cors);
    }
    if let Some((stream, _)) = &resumed {
        if !stream.attach(Duration::from_secs(1)) {
            let error = RpcError::invalid_request("that stream is still open on another connection");
            return Answer::rpc_error(409, &error).send(exchange, cors);
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
        return Answer::rpc_error(429, &error).send(exchange, cors);
    }
    let version = session.connection.session().protocol_version();
    match resumed {
        Some((stream, seq)) => resume_stream(http, exchange, cors, &session, &stream, seq),
        None => {
            let stream = session.new_stream(false);
            match SseWriter::start(exchange, cors) {
                Ok(mut writer) => {
                    let primed = !primes(version)
                        || writer.event(Some(&stream.event_id(0)), None, Some(retry_ms(&http.options)), "").is_ok();
                    if primed {
                        standalone(http, writer, &session, &stream);
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
    let Ok(mut writer) = SseWriter::start(exchange, cors) else {
        stream.detach();
        return;
    };
    let mut last_write = Instant::now();
    loop {
        let (events, done) = stream.after(seq, SLICE);
        let idle = events.is_empty();
        for (s, json) in events {
            if writer.event(Some(&stream.event_id(s)), None, None, &json).is_err() {
                stream.detach();
                return;
            }
            last_write = Instant::now();
            seq = s;
        }
        if done {
            let _ = writer.finish();
            stream.detach();
            return;
        }
        if !stream.for_request {
            // A standalone stream: what was missed is out, now live messages.
            standalone(http, writer, session, stream);
            stream.detach();
            return;
        }
        if idle && !keep_going(http, &mut writer, session, &mut last_write) {
            stream.detach();
            return;
        }
    }
}

/// Between messages on a stream: whether it should go on (the client is there, the session and
/// the server live), with a keep-alive comment when nothing was written for a while.
fn keep_going(http: &Http, writer: &mut SseWriter<'_>, session: &HttpSession, last_write: &mut Instant) -> bool {
    if http.stopping() || http.streams_ending() || session.connection.session().is_closed() || writer.client_gone() {
        return false;
    }
    if last_write.elapsed() >= http.options.keep_alive {
        *last_write = Instant::now();
        return writer.comment("keep-alive").is_ok();
    }
    true
}

/// Forwards the session's messages not tied to a request until the client or session goes.
/// One stream at a time holds the session's notice channel; the others wait for it on their
/// own, holding no lock, and keep their own clients alive meanwhile.
fn standalone(http: &Http, mut writer: SseWriter<'_>, session: &HttpSession, stream: &Stream) {
    let mut notices = None;
    let mut last_write = Instant::now();
    loop {
        if notices.is_none() {
            notices = session.hold_notices(SLICE);
        }
        let next = notices.as_ref().map(|n| n.recv_timeout(SLICE));
        let written = match next {
            Some(Ok(Outgoing::CloseStream)) => Ok(()),
            Some(Ok(message)) => {
                let json = message.json().to_owned();
                let seq = stream.push(json.clone(), false);
                last_write = Instant::now();
                writer.event(Some(&stream.event_id(seq)), None, None, &json)
            }
            Some(Err(RecvTimeoutError::Disconnected)) => {
                let _ = writer.finish();
                return;
            }
            Some(Err(RecvTimeoutError::Timeout)) | None => {
                if !keep_going(http, &mut writer, session, &mut last_write) {
                    log::debug!("GET stream {} ended", stream.id);
                    if http.streams_ending() {
                        writer.end_with_retry(retry_ms(&http.options));
                    } else if !writer.client_gone() {
                        let _ = writer.finish();
                    }
                    return;
                }
                Ok(())
            }
        };
        session.touch();
        if let Err(e) = written {
            log::debug!("GET stream {} closed: {e}", stream.id);
            return;
        }
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
    pub(super) answers: &'a Receiver<Outgoing>,
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
    let stream = session.new_stream(true);
    let mut writer = SseWriter::start(exchange, headers).ok();
    if primes(version) {
        writer = writer.and_then(|mut w| {
            w.event(Some(&stream.event_id(0)), None, Some(retry_ms(&http.options)), "").ok().map(|_| w)
        });
    }
    let mut next = Some(first);
    let mut last_write = Instant::now();
    loop {
        let message = match next.take().or_else(|| next_streamed(http, answers, writer.as_mut(), &mut last_write)) {
            Some(message) => message,
            // The request ended without a response: its session was deleted while it ran.
            None if session.connection.session().is_closed() => Outgoing::Response(ended_with_session(id)),
            None => break,
        };
        if message == Outgoing::CloseStream {
            // Only a primed stream can be resumed: before 2025-11-25 the client may hold no id.
            if let Some(w) = writer.take_if(|_| primes(version)) {
                log::debug!("closing stream {} early; the client polls back for the rest", stream.id);
                let _ = w.finish();
                stream.detach();
            }
            continue;
        }
        let last = matches!(message, Outgoing::Response(_));
        let json = message.json().to_owned();
        let seq = stream.push(json.clone(), last);
        if let Some(w) = writer.as_mut() {
            last_write = Instant::now();
            if let Err(e) = w.event(Some(&stream.event_id(seq)), None, None, &json) {
                log::debug!("stream {} lost ({e}); its messages are kept for resumption", stream.id);
                writer = None;
                stream.detach();
            }
        }
        if last {
            break;
        }
    }
    // Without a writer the stream was detached when it was lost or closed; a resumed
    // connection may hold it by now.
    if let Some(w) = writer {
        let _ = w.finish();
        stream.detach();
    }
}

/// `next_answer` for a request whose answer is a stream: a keep-alive comment whenever nothing
/// was written for `keep_alive`, so a proxy does not time out a slow handler's stream (nginx's
/// `proxy_read_timeout` is 60 s). A failed comment is seen by the next event's write.
fn next_streamed(
    http: &Http,
    answers: &Receiver<Outgoing>,
    mut writer: Option<&mut SseWriter<'_>>,
    last_write: &mut Instant,
) -> Option<Outgoing> {
    loop {
        match answers.recv_timeout(SLICE) {
            Ok(message) => return Some(message),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) if http.stopping() => return None,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(w) = writer.as_deref_mut().filter(|_| last_write.elapsed() >= http.options.keep_alive) {
                    *last_write = Instant::now();
                    let _ = w.comment("keep-alive");
                }
            }
        }
    }
}
