//! The one SSE pump every stream is written through (a POST's answer stream of either era, GET
//! streams, listen streams, the legacy stream): the writer, the keep-alive clock, and the one
//! decision taken between messages: go on, or stop because the server stops, the client hung
//! up, the stream's source is gone, or the server drains. Where messages come from stays with
//! each stream's owner.

use super::http1::Exchange;
use super::sse::SseWriter;
use super::{retry_ms, Http};
use std::io;
use std::time::Instant;

/// Why a stream stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// The server stops or the client hung up: nothing more is written.
    Abandon,
    /// The stream's messages are over: the body ends, so the connection can be reused.
    Finish,
    /// The server drains: a `retry:` hint, then the body's end, so the client comes back
    /// (to another replica, behind a load balancer).
    Retry,
}

/// An SSE answer being written.
pub(super) struct Pump<'w> {
    writer: SseWriter<'w>,
    last_write: Instant,
}

impl<'w> Pump<'w> {
    /// Writes the answer's head; `headers` are extra `name: value` pairs.
    pub(super) fn start(exchange: &'w mut Exchange<'_>, headers: &[(&str, String)]) -> io::Result<Pump<'w>> {
        Ok(Pump { writer: SseWriter::start(exchange, headers)?, last_write: Instant::now() })
    }

    /// One event (see `SseWriter::event`).
    pub(super) fn event(
        &mut self,
        id: Option<&str>,
        name: Option<&str>,
        retry_ms: Option<u64>,
        data: &str,
    ) -> io::Result<()> {
        self.last_write = Instant::now();
        self.writer.event(id, name, retry_ms, data)
    }

    /// Between messages (a wait for one ran out): `Ok` when the stream goes on, with a
    /// keep-alive comment when nothing was written for a while (nginx's `proxy_read_timeout`
    /// is 60 s). `source_open` is false once what feeds the stream is gone (its session
    /// closed); `drains` says whether the server's drain ends the stream (streams not tied to
    /// a request in flight).
    pub(super) fn idle(&mut self, http: &Http, source_open: bool, drains: bool) -> Result<(), Stop> {
        if http.stopping() || self.writer.client_gone() {
            return Err(Stop::Abandon);
        }
        if !source_open {
            return Err(Stop::Finish);
        }
        if drains && http.streams_ending() {
            return Err(Stop::Retry);
        }
        if self.last_write.elapsed() >= http.options.keep_alive {
            self.last_write = Instant::now();
            self.writer.comment("keep-alive").map_err(|_| Stop::Abandon)?;
        }
        Ok(())
    }

    /// Ends the stream as `stop` says.
    pub(super) fn end(self, http: &Http, stop: Stop) {
        match stop {
            Stop::Abandon => {}
            Stop::Finish => {
                let _ = self.writer.finish();
            }
            Stop::Retry => self.writer.end_with_retry(retry_ms(&http.options)),
        }
    }
}
