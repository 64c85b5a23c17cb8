//! Server-sent events: the wire framing, and the replay buffer behind every stream.
//!
//! tiny_http's chunked `Response` buffers 8 KiB, which would hold events back, so an SSE answer
//! takes the raw writer: we write the head ourselves and frame the body as HTTP/1.1 chunks, one
//! chunk per event, flushed at once. The chunked framing keeps the connection reusable after the
//! stream ends.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// Events a stream keeps for a client that reconnects with `Last-Event-ID`.
const REPLAY: usize = 256;

/// The writing end of one SSE answer.
pub(super) struct SseWriter {
    out: Box<dyn Write + Send>,
}

impl SseWriter {
    /// Writes the response head; `headers` are extra `name: value` pairs.
    pub(super) fn start(request: tiny_http::Request, headers: &[(&str, String)]) -> io::Result<SseWriter> {
        let mut out = request.into_writer();
        let mut head = String::from(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
             X-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\n",
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        out.write_all(head.as_bytes())?;
        out.flush()?;
        Ok(SseWriter { out })
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
        self.chunk(&text)
    }

    /// A comment line: keeps idle connections (and proxies) from timing out.
    pub(super) fn comment(&mut self, text: &str) -> io::Result<()> {
        self.chunk(&format!(": {text}\n\n"))
    }

    fn chunk(&mut self, body: &str) -> io::Result<()> {
        // One write per event: head, body and trailer together.
        let framed = format!("{:x}\r\n{body}\r\n", body.len());
        self.out.write_all(framed.as_bytes())?;
        self.out.flush()
    }

    /// Ends the body; the connection stays open for the next request.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.out.write_all(b"0\r\n\r\n")?;
        self.out.flush()
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
}

struct StreamState {
    events: VecDeque<(u64, String)>,
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
            state: Mutex::new(StreamState { events: VecDeque::new(), next_seq: 1, done: false, attached: true }),
            changed: Condvar::new(),
        }
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
        state.events.push_back((seq, json));
        if state.events.len() > REPLAY {
            state.events.pop_front();
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

    /// Takes the stream over for a resumed connection; refuses while another writer holds it.
    pub(super) fn attach(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
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
}
