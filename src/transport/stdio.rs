//! stdio: one JSON-RPC message per line, UTF-8. A reader thread parses lines and hands them to
//! the connection; one writer thread owns the output. The ONLY code that touches stdout.

use crate::error::Error;
use crate::server::connection::Connection;
use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use crate::util::condition::Condition;
use crate::util::metrics::{Metrics, Refusal};
use crate::wire::error::RpcError;
use crate::wire::jsonrpc::{self, Malformed};
use crate::wire::meta::Arrival;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How long in-flight requests may run on after the input ends.
const DRAIN: Duration = Duration::from_secs(2);
/// How much of a line over the cap is kept to find its id in: the id precedes `params` in
/// practice, so a refusal can name the request it refuses.
pub const KEPT_OF_LONG_LINE: usize = 16 * 1024;
/// Output bytes queued for a client that stopped reading before we stop reading its requests
/// (resuming once it reads again): back-pressure instead of buffering every answer.
const MAX_QUEUED_OUTPUT: usize = 4 * 1024 * 1024;

/// Serves `server` on this process's stdin and stdout until stdin ends.
pub fn serve(server: Arc<Server>) -> Result<(), Error> {
    let stdin = io::stdin();
    serve_io(server, BufReader::with_capacity(64 * 1024, stdin.lock()), io::stdout())
}

/// Serves on any line reader and writer (tests and embedders use pipes or memory).
pub fn serve_io(
    server: Arc<Server>,
    mut input: impl BufRead,
    output: impl Write + Send + 'static,
) -> Result<(), Error> {
    let (sink, outbox, queued) = Sink::metered();
    let output_room = OutputRoom { queued, shared: Arc::new(Room::default()) };
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let writer_room = output_room.clone();
    let metrics = server.metrics().cloned();
    let output = Counting { output, metrics: metrics.clone() };
    thread::Builder::new().name("mcp-stdout".into()).spawn(move || {
        write_loop(outbox, output, &writer_room);
        let _ = done_tx.send(());
    })?;
    // A drain (SIGTERM in the binary) ends the process once the answers are out: the reader
    // may be blocked on stdin for good.
    let flushing = output_room.clone();
    server.add_flush(Box::new(move |deadline| {
        let out = || flushing.queued.load(Ordering::SeqCst) == 0 || flushing.is_closed();
        flushing.shared.written.wait_until(out, Some(deadline));
    }));
    let connection = Connection::new(Arc::clone(&server), sink.clone());
    let cap = server.options().max_message_bytes;
    let mut line = Vec::with_capacity(4096);
    let result = loop {
        output_room.wait();
        match read_line(&mut input, &mut line, cap) {
            Ok(Line::Eof) => break Ok(()),
            Ok(Line::TooLong) => {
                metrics.as_ref().inspect(|m| m.refused(Refusal::Size));
                // Answered with the request's id when its start names one, so the client can
                // match the refusal instead of waiting for its own timeout.
                let id = jsonrpc::leading_id(&line);
                log::warn!(
                    "message over {cap} bytes refused (id {})",
                    id.as_ref().map_or("unknown".into(), |id| id.to_string())
                );
                let error = RpcError::invalid_request(format!(
                    "message too large: the limit is {cap} bytes (the server's --max-message-bytes)"
                ));
                connection.handle(Err(Malformed { id, error }), Arrival::Plain, &sink);
            }
            Ok(Line::Text) => {
                metrics.as_ref().inspect(|m| m.bytes_in(line.len()));
                let text = match std::str::from_utf8(&line) {
                    Ok(t) => t.trim(),
                    Err(e) => {
                        let error = RpcError::parse_error(format!("parse error: invalid UTF-8 ({e})"));
                        connection.handle(Err(Malformed { id: None, error }), Arrival::Plain, &sink);
                        continue;
                    }
                };
                if text.is_empty() {
                    continue;
                }
                log::debug!("<- {}", server.loggable(text));
                connection.handle(jsonrpc::parse(text), Arrival::Plain, &sink);
            }
            Err(e) => break Err(Error::Io(e)),
        }
    };
    // Let running requests answer briefly, then cancel the rest.
    if let Some(session) = connection.session() {
        session.wait_settled(Instant::now() + DRAIN);
    }
    connection.close();
    drop(connection);
    drop(sink);
    // The writer ends once every sink is gone; a handler that ignores cancellation still holds
    // one, so wait only briefly (everything queued so far is flushed batch by batch).
    let _ = done_rx.recv_timeout(Duration::from_millis(500));
    result
}

/// Stdout, its bytes counted when the server keeps metrics (after the buffer: once per write).
struct Counting<W> {
    output: W,
    metrics: Option<Arc<Metrics>>,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.output.write(bytes)?;
        self.metrics.as_ref().inspect(|m| m.bytes_out(n));
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.output.flush()
    }
}

/// What the reader of requests knows of the output: bytes queued and not yet written, and
/// whether the writer gave up (stdout closed).
#[derive(Clone)]
struct OutputRoom {
    queued: Arc<AtomicUsize>,
    shared: Arc<Room>,
}

/// The writer's side of `OutputRoom`.
#[derive(Default)]
struct Room {
    closed: AtomicBool,
    /// Signalled by the writer after each flush and when stdout closes: the paused reader and a
    /// drain's flush wait on it.
    written: Condition,
}

impl OutputRoom {
    /// Waits while more than `MAX_QUEUED_OUTPUT` bytes wait for a client that is not reading;
    /// the wait ends when it reads again or stdout is closed. The usual check is two atomic
    /// loads, no lock.
    fn wait(&self) {
        let full = || self.queued.load(Ordering::SeqCst) > MAX_QUEUED_OUTPUT && !self.is_closed();
        if !full() {
            return;
        }
        log::debug!("the client is not reading: {} bytes wait; input paused", self.queued.load(Ordering::Relaxed));
        self.shared.written.wait_until(|| !full(), None);
        log::debug!("output drained; reading input again");
    }

    fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::SeqCst)
    }

    /// The writer gave up: nothing queued will be written.
    fn close(&self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.written.notify();
    }

    /// The writer wrote out `bytes` of what was queued.
    fn written(&self, bytes: usize) {
        self.queued.fetch_sub(bytes, Ordering::SeqCst);
        self.shared.written.notify();
    }
}

/// What [`read_line`] found.
// For the tinymcp binary (a proxied child's output), not for embedders.
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, in the buffer without its newline (the last one may end without one).
    Text,
    /// A line longer than the cap, skipped to its end; the buffer keeps its first
    /// [`KEPT_OF_LONG_LINE`] bytes at most (or fewer, when the cap is smaller).
    TooLong,
    /// The end of the input.
    Eof,
}

/// Reads one line of at most `cap` bytes into `buf` (without its newline), never holding more
/// than `cap + 1` bytes of it: a longer line is skipped to its end, its start kept. Line ends are found by
/// std's `read_until` (a word-at-a-time search), a buffer at a time. Also the bridge's reader
/// of a child server's output.
// For the tinymcp binary (a proxied child's output), not for embedders.
#[doc(hidden)]
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<Line> {
    buf.clear();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    if input.by_ref().take(limit).read_until(b'\n', buf)? == 0 {
        return Ok(Line::Eof);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Line::Text);
    }
    if buf.len() <= cap {
        // The input ended without a newline.
        return Ok(Line::Text);
    }
    buf.truncate(KEPT_OF_LONG_LINE.min(cap));
    loop {
        let (used, found) = {
            let available = input.fill_buf()?;
            if available.is_empty() {
                return Ok(Line::TooLong);
            }
            match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            }
        };
        input.consume(used);
        if found {
            return Ok(Line::TooLong);
        }
    }
}

/// Writes every message as one line: a response is serialised here, once, straight into the
/// output buffer.
fn write_loop(outbox: Receiver<Outgoing>, output: impl Write, room: &OutputRoom) {
    let mut out = BufWriter::with_capacity(64 * 1024, output);
    while let Ok(mut message) = outbox.recv() {
        // Counted off once flushed, so nothing queued means everything is out (what a drain
        // waits for before the process exits): what the sink counted for each (`metered`).
        let mut written = 0;
        loop {
            if !matches!(message, Outgoing::CloseStream) {
                if log::log_enabled!(log::Level::Debug) {
                    log::debug!("-> {}", message.to_text());
                }
                let wrote = message.write_to(&mut out).and_then(|_| out.write_all(b"\n"));
                written += message.metered();
                if let Err(e) = wrote {
                    log::debug!("stdout closed: {e}");
                    room.close();
                    return;
                }
            }
            // Batch whatever is already queued into one write; give busy workers one chance
            // to add theirs first (one write and one wake-up for many answers under load).
            match outbox.try_recv() {
                Ok(next) => message = next,
                Err(_) => {
                    thread::yield_now();
                    match outbox.try_recv() {
                        Ok(next) => message = next,
                        Err(_) => break,
                    }
                }
            }
        }
        let flushed = out.flush();
        room.written(written);
        if let Err(e) = flushed {
            log::debug!("stdout closed: {e}");
            room.close();
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{read_line, Line};
    use std::io::BufReader;

    #[test]
    fn lines_over_the_cap_are_skipped_whole() {
        let mut reader =
            BufReader::with_capacity(4, &b"short\nmuch too long a line\nok\n12345678\n123456789\nlast"[..]);
        let mut line = Vec::new();
        let mut next = || (read_line(&mut reader, &mut line, 8).unwrap(), String::from_utf8(line.clone()).unwrap());
        assert_eq!(next(), (Line::Text, "short".into()));
        assert_eq!(next(), (Line::TooLong, "much too".into()));
        assert_eq!(next(), (Line::Text, "ok".into()));
        assert_eq!(next(), (Line::Text, "12345678".into()));
        assert_eq!(next(), (Line::TooLong, "12345678".into()));
        assert_eq!(next(), (Line::Text, "last".into()));
        assert_eq!(next(), (Line::Eof, "".into()));
    }

    #[test]
    fn a_long_last_line_without_a_newline_is_too_long() {
        let mut reader = BufReader::with_capacity(4, &b"0123456789abcdef"[..]);
        let mut line = Vec::new();
        assert_eq!(read_line(&mut reader, &mut line, 8).unwrap(), Line::TooLong);
        assert_eq!(read_line(&mut reader, &mut line, 8).unwrap(), Line::Eof);
    }
}
