//! GET on `/mcp`: the standalone stream for messages not tied to a request, and the resumption
//! of a stream after the `Last-Event-ID` a client saw. Each stream waits on its own turn at the
//! session's notice channel, holding no lock while it waits.

use super::http1::Exchange;
use super::sessions::HttpSession;
use super::sse::{self, SseWriter, Stream};
use super::{accepts, find_session, primes, retry_ms, Answer, Http, SLICE};
use crate::server::connection::Outgoing;
use crate::wire::jsonrpc::RpcError;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
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
