//! Server-sent events: the wire framing, and the replay buffer behind every stream.
//!
//! An SSE answer is an HTTP/1.1 chunked body, one chunk per event, flushed at once, so no event
//! waits in a buffer; the chunked framing keeps the connection reusable after the stream ends.
//! A write that cannot progress (a client that stopped reading) fails after `HttpOptions::write_within`.

use super::http1::{Exchange, RawOut};
use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// Where the events of SSE streams (up to 2025-11-25) are kept for the other replicas, so a
/// client resumes with `Last-Event-ID` on any of them (`HttpOptions::event_log`; the binary's
/// `--store`). Without one, a stream is resumed only where it was opened.
pub trait EventLog: Send + Sync {
    /// Keeps event `seq` of `stream` (`last`: the response that ends a POST's stream;
    /// `for_request`: a POST's stream, not a GET's). Must not block: called as events are sent.
    fn append(&self, stream: &str, seq: u64, for_request: bool, last: bool, json: &str);
    /// What is kept of `stream` after `seq`, or `None` when nothing is (never kept, expired).
    fn after(&self, stream: &str, seq: u64) -> Result<Option<Replay>, String>;
    /// The first stream id of this process: distinct for each replica that shares the log, so
    /// the streams of one session on two replicas never share an id (the stream ids of a
    /// session count up from it, below 2^20 apart).
    fn first_stream_id(&self) -> u64;
    /// Keeps `state` (JSON) of `session` for `ttl` (the rest of its id's lifetime), replacing
    /// what was kept: what changes after `initialize` (the log level, the subscriptions), for a
    /// replica that rebuilds the session. Written before the request that changed it is
    /// answered, so the client's next request finds it on any replica. None by default.
    fn keep_session(&self, _session: &str, _state: &str, _ttl: std::time::Duration) -> Result<(), String> {
        Ok(())
    }
    /// What `keep_session` kept of `session`, if anything.
    fn session_state(&self, _session: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
}

impl std::fmt::Debug for dyn EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventLog")
    }
}

/// A stream's events after an id, as an `EventLog` keeps them.
#[derive(Debug, Default)]
pub struct Replay {
    /// `(seq, json)`, oldest first.
    pub events: Vec<(u64, String)>,
    /// The stream's last event (a POST's response) is among what is kept.
    pub done: bool,
    /// A POST's stream (it ends with its response), not a GET's.
    pub for_request: bool,
}

/// Events a stream keeps for a client that reconnects with `Last-Event-ID`, and their bytes at
/// most (the newest event is kept whatever its size: it may be the response).
const REPLAY: usize = 256;
const REPLAY_BYTES: usize = 4 * 1024 * 1024;

/// The writing end of one SSE answer.
pub(super) struct SseWriter<'a> {
    out: RawOut<'a>,
}

impl<'a> SseWriter<'a> {
    /// Writes the response head; `headers` are extra `name: value` pairs.
    pub(super) fn start(exchange: &'a mut Exchange<'_>, headers: &[(&str, String)]) -> io::Result<SseWriter<'a>> {
        let mut all: Vec<(&str, &str)> =
            vec![("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")];
        all.extend(headers.iter().map(|(n, v)| (*n, v.as_str())));
        Ok(SseWriter { out: exchange.stream(200, &all)? })
    }

    /// One event. `data` is one line of JSON (serde_json's compact output has no newline).
    pub(super) fn event(
        &mut self,
        id: Option<&str>,
        event: Option<&str>,
        retry_ms: Option<u64>,
        data: &str,
    ) -> io::Result<()> {
        let mut text = String::with_capacity(data.len() + 48);
        if let Some(event) = event {
            text.push_str(&format!("event: {event}\n"));
        }
        if let Some(id) = id {
            text.push_str(&format!("id: {id}\n"));
        }
        if let Some(ms) = retry_ms {
            text.push_str(&format!("retry: {ms}\n"));
        }
        text.push_str("data: ");
        text.push_str(data);
        text.push_str("\n\n");
        if !data.is_empty() {
            log::debug!("-> {data}");
        }
        self.chunk(&text)
    }

    /// A `retry:` field alone: no event is dispatched, the client's reconnection delay is set.
    /// Sent before a stream ends while the server drains, so the client comes back (to another
    /// replica, behind a load balancer) after that long.
    pub(super) fn retry(&mut self, ms: u64) -> io::Result<()> {
        self.chunk(&format!("retry: {ms}\n\n"))
    }

    /// Ends a stream the server chose to end (it drains): the `retry:` hint, then the body's end.
    pub(super) fn end_with_retry(mut self, ms: u64) {
        if !self.client_gone() && self.retry(ms).is_ok() {
            let _ = self.finish();
        }
    }

    /// A comment line: keeps idle connections (and proxies) from timing out.
    pub(super) fn comment(&mut self, text: &str) -> io::Result<()> {
        self.chunk(&format!(": {text}\n\n"))
    }

    fn chunk(&mut self, body: &str) -> io::Result<()> {
        // One write per event: head, body and trailer together.
        let framed = format!("{:x}\r\n{body}\r\n", body.len());
        self.out.write(framed.as_bytes())
    }

    /// Whether the client has hung up (checked without blocking).
    pub(super) fn client_gone(&self) -> bool {
        self.out.peer_closed()
    }

    /// Ends the body; the connection stays open for the next request.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.out.write(b"0\r\n\r\n")?;
        self.out.end();
        Ok(())
    }
}

/// The events of one stream (a POST's answer or a GET stream), kept so that a client that lost
/// the connection can resume from the last id it saw.
pub(super) struct Stream {
    pub(super) id: u64,
    /// A POST's stream ends with its response; a GET stream never ends by itself.
    pub(super) for_request: bool,
    state: Mutex<StreamState>,
    changed: Condvar,
    /// Where its events are kept for other replicas too, under this key.
    log: Option<(Arc<dyn EventLog>, String)>,
}

struct StreamState {
    events: VecDeque<(u64, String)>,
    /// The bytes of `events`.
    bytes: usize,
    next_seq: u64,
    /// The stream's last event (a POST's response) is in.
    done: bool,
    /// A writer is attached (the original connection or a resumed one).
    attached: bool,
}

impl Stream {
    pub(super) fn new(id: u64, for_request: bool) -> Self {
        Stream {
            id,
            for_request,
            state: Mutex::new(StreamState {
                events: VecDeque::new(),
                bytes: 0,
                next_seq: 1,
                done: false,
                attached: true,
            }),
            changed: Condvar::new(),
            log: None,
        }
    }

    /// The stream, its events kept in `log` under `key` too.
    pub(super) fn logged(mut self, log: Arc<dyn EventLog>, key: String) -> Self {
        self.log = Some((log, key));
        self
    }

    /// The event id for sequence number `seq`: the stream is in it, so a resumption finds it.
    pub(super) fn event_id(&self, seq: u64) -> String {
        format!("{}-{seq}", self.id)
    }

    /// Appends an event and returns its sequence number.
    pub(super) fn push(&self, json: String, last: bool) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let seq = state.next_seq;
        state.next_seq += 1;
        if let Some((log, key)) = &self.log {
            log.append(key, seq, self.for_request, last, &json);
        }
        state.bytes += json.len();
        state.events.push_back((seq, json));
        while state.events.len() > REPLAY || (state.bytes > REPLAY_BYTES && state.events.len() > 1) {
            let Some((_, dropped)) = state.events.pop_front() else { break };
            state.bytes -= dropped.len();
        }
        state.done |= last;
        drop(state);
        self.changed.notify_all();
        seq
    }

    pub(super) fn is_done(&self) -> bool {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).done
    }

    /// Marks the writer gone, so a resumption may take the stream over.
    pub(super) fn detach(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).attached = false;
        self.changed.notify_all();
    }

    /// Takes the stream over for a resumed connection; refuses while another writer holds it
    /// after `grace`. The grace covers a writer that has ended its answer but not yet let go: a
    /// client polling back at once after an early close can arrive in between.
    pub(super) fn attach(&self, grace: Duration) -> bool {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut state, _) =
            self.changed.wait_timeout_while(state, grace, |s| s.attached).unwrap_or_else(PoisonError::into_inner);
        if state.attached {
            return false;
        }
        state.attached = true;
        true
    }

    /// Events after `seq`, waiting up to `wait` for one when there is none yet. The flag says
    /// whether the stream has ended.
    pub(super) fn after(&self, seq: u64, wait: Duration) -> (Vec<(u64, String)>, bool) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let newest = |s: &StreamState| s.events.back().map_or(0, |e| e.0);
        let state = if newest(&state) <= seq && !state.done {
            self.changed.wait_timeout(state, wait).unwrap_or_else(PoisonError::into_inner).0
        } else {
            state
        };
        let events = state.events.iter().filter(|(s, _)| *s > seq).cloned().collect();
        (events, state.done)
    }
}

/// Parses a `Last-Event-ID` we issued: `<stream>-<seq>`.
pub(super) fn parse_event_id(text: &str) -> Option<(u64, u64)> {
    let (stream, seq) = text.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_round_trip_and_replay_skips_what_was_seen() {
        let stream = Stream::new(7, true);
        let a = stream.push("a".into(), false);
        let b = stream.push("b".into(), true);
        assert_eq!(parse_event_id(&stream.event_id(a)), Some((7, a)));
        let (events, done) = stream.after(a, Duration::ZERO);
        assert_eq!(events, vec![(b, "b".to_owned())]);
        assert!(done);
        assert_eq!(parse_event_id("x-1"), None);
    }

    #[test]
    fn a_resumption_waits_for_a_writer_that_is_letting_go() {
        let stream = std::sync::Arc::new(Stream::new(1, true));
        assert!(!stream.attach(Duration::ZERO), "the first writer still holds it");
        let writer = std::sync::Arc::clone(&stream);
        let letting_go = std::thread::spawn(move || {
            // The first writer lets go a moment later: the resumption must wait for it.
            std::thread::sleep(Duration::from_millis(50));
            writer.detach();
        });
        assert!(stream.attach(Duration::from_secs(5)), "taken over once the first writer let go");
        letting_go.join().unwrap();
        assert!(!stream.attach(Duration::from_millis(20)), "a second resumption is refused");
    }
}
