//! `Sink` and `Outgoing`: a message on its way to the client, and the channel that carries it
//! to the one writer of its stream. Knows nothing else of the crate.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
#[cfg(feature = "http")]
use std::time::Duration;

/// One serialized message on its way to the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// The answer to a client request (or a batch of answers, as a JSON array).
    Response(String),
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
    /// The JSON text (empty for `CloseStream`).
    pub fn json(&self) -> &str {
        match self {
            Outgoing::Response(s) | Outgoing::Notification(s) | Outgoing::Request(s) => s,
            Outgoing::CloseStream => "",
        }
    }
}

/// Where outgoing messages go: a channel drained by one writer.
#[derive(Clone)]
pub struct Sink {
    tx: Sender<Outgoing>,
    /// For a reader that may be absent for long: messages waiting, and how many may wait.
    bound: Option<(Arc<AtomicUsize>, usize)>,
    /// For a writer whose reader may stop reading: bytes queued and not yet written.
    meter: Option<Arc<AtomicUsize>>,
}

impl Sink {
    /// A sink and the receiver its writer drains.
    pub fn channel() -> (Sink, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel();
        (Sink { tx, bound: None, meter: None }, rx)
    }

    /// A sink that counts the bytes of JSON waiting for its writer, which subtracts each
    /// message's once written: the reader of requests stops reading while too much waits.
    pub fn metered() -> (Sink, mpsc::Receiver<Outgoing>, Arc<AtomicUsize>) {
        let (tx, rx) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        (Sink { tx, bound: None, meter: Some(Arc::clone(&queued)) }, rx, queued)
    }

    /// A sink whose messages beyond `cap` waiting for the reader are dropped, with a warning:
    /// for messages that wait until a client opens a stream, which it may never do.
    #[cfg(feature = "http")]
    pub(crate) fn bounded(cap: usize) -> (Sink, BoundedReceiver) {
        let (tx, rx) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        (Sink { tx, bound: Some((Arc::clone(&queued), cap)), meter: None }, BoundedReceiver { rx, queued })
    }

    /// Sends; a closed stream drops the message (the client is gone).
    pub fn send(&self, message: Outgoing) {
        if let Some((queued, cap)) = &self.bound {
            if queued.fetch_add(1, Ordering::Relaxed) >= *cap {
                queued.fetch_sub(1, Ordering::Relaxed);
                log::warn!("{cap} messages already wait for a stream the client has not opened; one dropped");
                return;
            }
        }
        let len = message.json().len();
        if let Some(meter) = &self.meter {
            meter.fetch_add(len, Ordering::Relaxed);
        }
        if self.tx.send(message).is_err() {
            if let Some(meter) = &self.meter {
                meter.fetch_sub(len, Ordering::Relaxed);
            }
            log::debug!("output closed; message dropped");
        }
    }
}

/// The reading end of `Sink::bounded`.
#[cfg(feature = "http")]
pub(crate) struct BoundedReceiver {
    rx: mpsc::Receiver<Outgoing>,
    queued: Arc<AtomicUsize>,
}

#[cfg(feature = "http")]
impl BoundedReceiver {
    /// The next message, waiting up to `timeout`.
    pub(crate) fn recv_timeout(&self, timeout: Duration) -> Result<Outgoing, mpsc::RecvTimeoutError> {
        let message = self.rx.recv_timeout(timeout)?;
        self.queued.fetch_sub(1, Ordering::Relaxed);
        Ok(message)
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[test]
    fn a_bounded_sink_drops_what_no_reader_takes_and_accepts_again_once_read() {
        let (sink, rx) = Sink::bounded(2);
        for n in 0..3 {
            sink.send(Outgoing::Notification(n.to_string()));
        }
        let short = Duration::from_millis(20);
        assert_eq!(rx.recv_timeout(short), Ok(Outgoing::Notification("0".into())));
        assert_eq!(rx.recv_timeout(short), Ok(Outgoing::Notification("1".into())));
        assert!(rx.recv_timeout(short).is_err(), "the third was over the bound");
        sink.send(Outgoing::Notification("3".into()));
        assert_eq!(rx.recv_timeout(short), Ok(Outgoing::Notification("3".into())));
    }
}
