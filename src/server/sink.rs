//! `Sink` and `Outgoing`: a message on its way to the client, and the channel that carries it
//! to the one writer of its stream, which serialises a response there, once. Knows nothing else
//! of the crate but the frames it carries.

use crate::wire::frame::{self, Answer};
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// One message on its way to the client: a response as a value (its writer serialises it), the
/// rest as JSON text.
#[derive(Debug)]
pub enum Outgoing {
    /// The answer to a client request.
    Response(Answer),
    /// The answers to a batch's requests, written as one JSON array.
    Batch(Vec<Answer>),
    /// A notification.
    Notification(String),
    /// A request from the server to the client.
    Request(String),
    /// Not a message: the handler lets the transport close the stream that carries its
    /// request's messages now (2025-11-25, SEP-1699); the client resumes the stream and gets
    /// the rest there. Transports without resumable streams ignore it.
    CloseStream,
}

impl Outgoing {
    /// Writes the message as compact JSON (nothing for `CloseStream`).
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Outgoing::Response(answer) => answer.write_to(out),
            Outgoing::Batch(answers) => frame::write_batch(out, answers),
            Outgoing::Notification(text) | Outgoing::Request(text) => out.write_all(text.as_bytes()),
            Outgoing::CloseStream => Ok(()),
        }
    }

    /// The message as JSON text (empty for `CloseStream`): for writers that need text.
    pub fn to_text(&self) -> String {
        match self {
            Outgoing::Notification(text) | Outgoing::Request(text) => text.clone(),
            other => frame::text_of(|out| other.write_to(out)),
        }
    }

    /// What a metered sink counted for the message: its text's length, or the size its
    /// answers were estimated at (`Answer::size_hint`) when sent.
    pub(crate) fn metered(&self) -> usize {
        match self {
            Outgoing::Response(answer) => answer.metered,
            Outgoing::Batch(answers) => answers.iter().map(|a| a.metered).sum(),
            Outgoing::Notification(text) | Outgoing::Request(text) => text.len(),
            Outgoing::CloseStream => 0,
        }
    }

    /// Whether this is the answer (or a batch's answers) that ends a request's stream.
    pub fn is_response(&self) -> bool {
        matches!(self, Outgoing::Response(_) | Outgoing::Batch(_))
    }
}

/// Where outgoing messages go: a channel drained by one writer.
#[derive(Clone)]
pub struct Sink {
    tx: Sender<Outgoing>,
    /// For a reader that may be slow or absent for long: what waits for it, and how much may.
    bound: Option<Arc<Bound>>,
    /// For a writer whose reader may stop reading: bytes queued and not yet written.
    meter: Option<Arc<AtomicUsize>>,
    /// For the requests of one JSON-RPC batch: where their responses gather.
    batch: Option<Arc<Batch>>,
}

impl Sink {
    /// A sink and the receiver its writer drains.
    pub fn channel() -> (Sink, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel();
        (Sink { tx, bound: None, meter: None, batch: None }, rx)
    }

    /// A sink that counts the bytes of JSON waiting for its writer, which subtracts each
    /// message's once written: the reader of requests stops reading while too much waits. A
    /// response, not serialised until its writer takes it, counts as its estimated size
    /// (`Answer::size_hint`: the data it carries, exact for a `Value`), which travels with it.
    pub fn metered() -> (Sink, mpsc::Receiver<Outgoing>, Arc<AtomicUsize>) {
        let (tx, rx) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        (Sink { tx, bound: None, meter: Some(Arc::clone(&queued)), batch: None }, rx, queued)
    }

    /// A sink whose messages beyond `max_messages`, or beyond `max_bytes` of JSON, waiting for
    /// the reader are dropped, newest first, with a warning: for messages that wait until a
    /// client opens a stream, which it may never do, or reads it, which it may do slowly, while
    /// a handler (or a relayed server) writes as fast as it can. A message waiting alone passes
    /// whatever its size, and responses always pass: a request's answer is never dropped.
    pub fn bounded(max_messages: usize, max_bytes: usize) -> (Sink, BoundedReceiver) {
        Sink::bounded_as(max_messages, max_bytes, false)
    }

    /// `Sink::bounded` for a stream that carries the answers of every request of a session (the
    /// legacy transport's): answers count and are dropped too, since a client that does not
    /// read its stream would otherwise hold every answer it asks for until the write timeout.
    pub fn bounded_with_answers(max_messages: usize, max_bytes: usize) -> (Sink, BoundedReceiver) {
        Sink::bounded_as(max_messages, max_bytes, true)
    }

    fn bounded_as(max_messages: usize, max_bytes: usize, answers: bool) -> (Sink, BoundedReceiver) {
        let (tx, rx) = mpsc::channel();
        let bound = Arc::new(Bound {
            messages: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
            max_messages,
            max_bytes,
            answers,
            dropped: AtomicUsize::new(0),
        });
        (Sink { tx, bound: Some(Arc::clone(&bound)), meter: None, batch: None }, BoundedReceiver { rx, bound })
    }

    /// A sink for the requests of one JSON-RPC batch: their responses gather and leave
    /// through this sink as one array once all `BatchGuard::expect` counted have come, sent by
    /// whichever thread delivers the last (no thread waits for them); everything else passes
    /// straight through. Responses that never come (a cancelled request) do not hold the
    /// array back past the last clone of the sink.
    pub(crate) fn batch(&self) -> (Sink, BatchGuard) {
        let batch = Arc::new(Batch {
            out: self.clone(),
            state: Mutex::new(Gathered { answers: Vec::new(), received: 0, expected: None }),
        });
        let sink = Sink { batch: Some(Arc::clone(&batch)), ..self.clone() };
        (sink, BatchGuard(batch))
    }

    /// Sends; a closed stream drops the message (the client is gone).
    pub fn send(&self, message: Outgoing) {
        let message = match (&self.batch, message) {
            (Some(batch), Outgoing::Response(answer)) => return batch.add(answer),
            (_, message) => message,
        };
        if let Some(bound) = &self.bound {
            if !bound.admit(&message) {
                return;
            }
        }
        let mut message = message;
        if self.meter.is_some() {
            // An answer's size is estimated, not serialised twice; the estimate travels with it
            // so its writer counts off exactly what was added here.
            match &mut message {
                Outgoing::Response(answer) => answer.metered = answer.size_hint(),
                Outgoing::Batch(answers) => answers.iter_mut().for_each(|a| a.metered = a.size_hint()),
                _ => {}
            }
        }
        let len = message.metered();
        if let Some(meter) = &self.meter {
            meter.fetch_add(len, Ordering::Relaxed);
        }
        let waiting = self.bound.as_ref().map_or(0, |bound| bound.len(&message));
        if self.tx.send(message).is_err() {
            if let Some(meter) = &self.meter {
                meter.fetch_sub(len, Ordering::Relaxed);
            }
            if let Some(bound) = &self.bound {
                bound.release(waiting);
            }
            log::debug!("output closed; message dropped");
        }
    }
}

/// Where a batch's responses gather (`Sink::batch`).
struct Batch {
    out: Sink,
    state: Mutex<Gathered>,
}

struct Gathered {
    answers: Vec<Answer>,
    /// Responses come so far.
    received: usize,
    /// Responses the batch holds in all, once it has been read (`BatchGuard::expect`).
    expected: Option<usize>,
}

impl Gathered {
    /// The answers, once all of them came (taken once).
    fn complete(&mut self) -> Option<Vec<Answer>> {
        (self.expected == Some(self.received)).then(|| std::mem::take(&mut self.answers))
    }
}

impl Batch {
    fn add(&self, answer: Answer) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.answers.push(answer);
        state.received += 1;
        let complete = state.complete();
        drop(state);
        self.flush(complete);
    }

    fn flush(&self, answers: Option<Vec<Answer>>) {
        if let Some(answers) = answers.filter(|a| !a.is_empty()) {
            self.out.send(Outgoing::Batch(answers));
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        let answers = std::mem::take(&mut self.state.get_mut().unwrap_or_else(PoisonError::into_inner).answers);
        self.flush(Some(answers));
    }
}

/// Held while a batch is read: the array is not sent before every response is counted.
pub(crate) struct BatchGuard(Arc<Batch>);

impl BatchGuard {
    /// The batch holds `responses` responses in all: once they have come, the array leaves.
    pub(crate) fn expect(self, responses: usize) {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.expected = Some(responses);
        let complete = state.complete();
        drop(state);
        self.0.flush(complete);
    }
}

/// What waits for the reader of a bounded sink (`Sink::bounded`).
struct Bound {
    messages: AtomicUsize,
    /// Bytes of JSON text (notifications and requests: responses are not capped).
    bytes: AtomicUsize,
    max_messages: usize,
    max_bytes: usize,
    /// Whether answers count and may be dropped too (`Sink::bounded_with_answers`).
    answers: bool,
    /// Messages dropped since the reader last caught up: one warning when dropping starts, one
    /// with the count when it ends, however long a flood lasts.
    dropped: AtomicUsize,
}

impl Bound {
    /// Counts `message` as waiting, or says it must be dropped.
    fn admit(&self, message: &Outgoing) -> bool {
        let len = self.len(message);
        let before = self.messages.fetch_add(1, Ordering::Relaxed);
        let bytes = self.bytes.fetch_add(len, Ordering::Relaxed).saturating_add(len);
        let room = before == 0 || (before < self.max_messages && bytes <= self.max_bytes);
        if room || (message.is_response() && !self.answers) || matches!(message, Outgoing::CloseStream) {
            let dropped = self.dropped.swap(0, Ordering::Relaxed);
            if dropped > 0 {
                log::warn!("{dropped} messages were dropped while the client did not read them");
            }
            return true;
        }
        self.release(len);
        if self.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
            log::warn!(
                "{} messages ({} bytes) already wait for a client that is not reading them (at most {} or {} \
                 bytes): dropping more until it catches up",
                before,
                bytes - len,
                self.max_messages,
                self.max_bytes
            );
        }
        false
    }

    /// What a message counts: the length of a notification's or request's text, and an
    /// answer's estimated size where answers count.
    fn len(&self, message: &Outgoing) -> usize {
        match message {
            Outgoing::Response(answer) if self.answers => answer.size_hint(),
            Outgoing::Batch(answers) if self.answers => answers.iter().map(Answer::size_hint).sum(),
            other => waiting_len(other),
        }
    }

    /// One message of `len` bytes no longer waits.
    fn release(&self, len: usize) {
        self.messages.fetch_sub(1, Ordering::Relaxed);
        self.bytes.fetch_sub(len, Ordering::Relaxed);
    }
}

/// What a bounded sink counts of a message: the length of a notification's or request's text;
/// responses are not capped.
fn waiting_len(message: &Outgoing) -> usize {
    match message {
        Outgoing::Notification(text) | Outgoing::Request(text) => text.len(),
        _ => 0,
    }
}

/// The reading end of `Sink::bounded`.
pub struct BoundedReceiver {
    rx: mpsc::Receiver<Outgoing>,
    bound: Arc<Bound>,
}

impl BoundedReceiver {
    /// The next message, waiting up to `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Outgoing, mpsc::RecvTimeoutError> {
        let message = self.rx.recv_timeout(timeout)?;
        self.bound.release(self.bound.len(&message));
        Ok(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::frame::Reply;
    use serde_json::json;

    fn text(message: Result<Outgoing, impl std::fmt::Debug>) -> String {
        message.map(|m| m.to_text()).unwrap_or_default()
    }

    fn answer(id: i64) -> Outgoing {
        Outgoing::Response(Answer::new(id.into(), Ok(Reply::Value(json!(id)))))
    }

    #[test]
    fn a_bounded_sink_drops_what_no_reader_takes_and_accepts_again_once_read() {
        let (sink, rx) = Sink::bounded(2, 1 << 20);
        for n in 0..3 {
            sink.send(Outgoing::Notification(n.to_string()));
        }
        let short = Duration::from_millis(20);
        assert_eq!(text(rx.recv_timeout(short)), "0");
        assert_eq!(text(rx.recv_timeout(short)), "1");
        assert!(rx.recv_timeout(short).is_err(), "the third was over the bound");
        sink.send(Outgoing::Notification("3".into()));
        assert_eq!(text(rx.recv_timeout(short)), "3");
    }

    #[test]
    fn a_bounded_sink_caps_bytes_but_passes_one_message_alone_and_every_response() {
        let (sink, rx) = Sink::bounded(100, 10);
        let short = Duration::from_millis(20);
        // Alone, a message over the byte cap passes; behind it, nothing more does but answers.
        sink.send(Outgoing::Notification("a".repeat(20)));
        sink.send(Outgoing::Notification("b".into()));
        sink.send(answer(7));
        assert_eq!(text(rx.recv_timeout(short)), "a".repeat(20));
        assert!(text(rx.recv_timeout(short)).contains("\"id\":7"), "the answer passed the full queue");
        assert!(rx.recv_timeout(short).is_err(), "b was over the bound");
        for n in 0..3 {
            sink.send(Outgoing::Notification(format!("{n}{n}{n}{n}")));
        }
        assert_eq!(text(rx.recv_timeout(short)), "0000");
        assert_eq!(text(rx.recv_timeout(short)), "1111");
        assert!(rx.recv_timeout(short).is_err(), "the third was over 10 bytes");
    }

    #[test]
    fn a_batch_sink_sends_one_array_once_every_counted_response_came_and_passes_the_rest() {
        let (reply, rx) = Sink::channel();
        let (batch, guard) = reply.batch();
        batch.send(answer(1));
        batch.send(answer(2));
        batch.send(Outgoing::Notification("n".into()));
        assert_eq!(text(rx.try_recv()), "n", "notifications pass straight through");
        guard.expect(3);
        assert!(rx.try_recv().is_err(), "one response is still due");
        batch.send(answer(3));
        let array = r#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":2},{"jsonrpc":"2.0","id":3,"result":3}]"#;
        assert_eq!(text(rx.try_recv()), array);
        drop(batch);
        assert!(rx.try_recv().is_err(), "sent once");
    }

    #[test]
    fn a_batch_sink_sends_what_came_when_a_response_never_comes() {
        let (reply, rx) = Sink::channel();
        let (batch, guard) = reply.batch();
        batch.send(answer(1));
        guard.expect(2);
        assert!(rx.try_recv().is_err());
        drop(batch);
        assert_eq!(text(rx.try_recv()), r#"[{"jsonrpc":"2.0","id":1,"result":1}]"#);
    }

    #[test]
    fn a_metered_sink_counts_what_its_writer_counts_off() {
        let (sink, rx, queued) = Sink::metered();
        sink.send(answer(12));
        sink.send(Outgoing::Notification("{}".into()));
        let counted: usize = rx.try_iter().map(|m| m.metered()).sum();
        assert_eq!(queued.load(Ordering::Relaxed), counted);
        assert!(counted >= r#"{"jsonrpc":"2.0","id":12,"result":12}{}"#.len());
    }
}
