//! The per-client message loop's core, fed by a transport: requests go to the worker pool,
//! responses complete our pending requests, cancellations set flags. Every answer leaves
//! through a `Sink` the transport drains, so one writer owns each output stream.

use crate::server::context::RequestCx;
use crate::server::lifecycle;
use crate::server::methods;
use crate::server::session::Session;
use crate::server::Server;
use crate::wire::jsonrpc::{self, Incoming, Malformed, Message, Notification, Request, RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
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
}

impl Sink {
    /// A sink and the receiver its writer drains.
    pub fn channel() -> (Sink, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel();
        (Sink { tx, bound: None }, rx)
    }

    /// A sink whose messages beyond `cap` waiting for the reader are dropped, with a warning:
    /// for messages that wait until a client opens a stream, which it may never do.
    pub(crate) fn bounded(cap: usize) -> (Sink, BoundedReceiver) {
        let (tx, rx) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        (Sink { tx, bound: Some((Arc::clone(&queued), cap)) }, BoundedReceiver { rx, queued })
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
        if self.tx.send(message).is_err() {
            log::debug!("output closed; message dropped");
        }
    }
}

/// The reading end of `Sink::bounded`.
pub(crate) struct BoundedReceiver {
    rx: mpsc::Receiver<Outgoing>,
    queued: Arc<AtomicUsize>,
}

impl BoundedReceiver {
    /// The next message, waiting up to `timeout`.
    pub(crate) fn recv_timeout(&self, timeout: Duration) -> Result<Outgoing, mpsc::RecvTimeoutError> {
        let message = self.rx.recv_timeout(timeout)?;
        self.queued.fetch_sub(1, Ordering::Relaxed);
        Ok(message)
    }
}

/// A client connection: a session plus the server it talks to.
pub struct Connection {
    server: Arc<Server>,
    session: Arc<Session>,
}

impl Connection {
    /// A new connection; messages not tied to a request go to `notifier`.
    pub fn new(server: Arc<Server>, notifier: Sink) -> Self {
        let session = Arc::new(Session::new(notifier));
        server.add_session(&session);
        Connection { server, session }
    }

    /// The session.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The server.
    pub fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// Handles one parsed line or body. Never runs handler code on the caller's thread, so the
    /// reader stays free to deliver the answers handlers wait for.
    pub fn handle(&self, incoming: Result<Incoming, Malformed>, reply: &Sink) {
        match incoming {
            Err(bad) => reply.send(Outgoing::Response(jsonrpc::error_response(bad.id.as_ref(), &bad.error))),
            Ok(Incoming::Single(message)) => self.handle_message(message, reply),
            Ok(Incoming::Batch(items)) => self.handle_batch(items, reply),
        }
    }

    /// Handles one message.
    pub fn handle_message(&self, message: Message, reply: &Sink) {
        match message {
            Message::Request(req) => self.on_request(req, reply),
            Message::Notification(n) => self.on_notification(n),
            Message::Response(res) => {
                if !self.session.answer(&res.id, res.outcome) {
                    log::warn!("answer to unknown or expired request {}", res.id);
                }
            }
        }
    }

    fn on_request(&self, req: Request, reply: &Sink) {
        if req.method == "initialize" {
            let outcome = lifecycle::initialize(&self.server, &self.session, req.params);
            reply.send(Outgoing::Response(jsonrpc::response(Some(&req.id), &outcome)));
            return;
        }
        let Some(negotiated) = self.session.negotiated() else {
            if req.method == "ping" {
                reply.send(Outgoing::Response(jsonrpc::response(Some(&req.id), &Ok(serde_json::json!({})))));
            } else {
                let error =
                    RpcError::invalid_request(format!("{} before initialize: send initialize first", req.method));
                reply.send(Outgoing::Response(jsonrpc::error_response(Some(&req.id), &error)));
            }
            return;
        };
        let cancelled = match self.session.begin(&req.id, self.server.options().max_in_flight) {
            Ok(flag) => flag,
            Err(why) => {
                let error = RpcError::invalid_request(why);
                reply.send(Outgoing::Response(jsonrpc::error_response(Some(&req.id), &error)));
                return;
            }
        };
        let progress_token = req.params.get("_meta").and_then(|m| m.get("progressToken")).cloned();
        let cx = RequestCx {
            server: Arc::clone(&self.server),
            session: Arc::clone(&self.session),
            id: Some(req.id.clone()),
            version: negotiated.version,
            client_capabilities: negotiated.client_capabilities,
            log_level: None,
            progress_token,
            cancelled,
            sink: reply.clone(),
            last_progress: Mutex::new(None),
            task: None,
        };
        self.server.pool.spawn(move || run(cx, req));
    }

    fn on_notification(&self, n: Notification) {
        match n.method.as_str() {
            "notifications/initialized" => self.session.mark_initialized_notified(),
            "notifications/cancelled" => match n.params.get("requestId").and_then(RequestId::from_value) {
                Some(id) => {
                    if !self.session.cancel(&id) {
                        log::debug!("cancellation of unknown or finished request {id} ignored");
                    }
                }
                None => log::warn!("notifications/cancelled without a valid requestId"),
            },
            "notifications/roots/list_changed" => log::debug!("client roots changed"),
            other => log::debug!("notification {other} ignored"),
        }
    }

    fn handle_batch(&self, items: Vec<Result<Message, Malformed>>, reply: &Sink) {
        let version = self.session.protocol_version();
        if !version.is_some_and(ProtocolVersion::allows_batches) {
            let why = match version {
                Some(v) => format!("batches are not supported in protocol revision {v}"),
                None => "batches are not allowed before initialize".to_owned(),
            };
            reply.send(Outgoing::Response(jsonrpc::error_response(None, &RpcError::invalid_request(why))));
            return;
        }
        // Spec (JSON-RPC batch): the answers travel together as one array; notifications
        // and requests to the client pass straight through.
        let (batch_sink, answers) = Sink::channel();
        let mut expected = 0;
        for item in items {
            match item {
                Ok(Message::Request(req)) => {
                    expected += 1;
                    self.on_request(req, &batch_sink);
                }
                Ok(other) => self.handle_message(other, &batch_sink),
                Err(bad) => {
                    expected += 1;
                    batch_sink.send(Outgoing::Response(jsonrpc::error_response(bad.id.as_ref(), &bad.error)));
                }
            }
        }
        drop(batch_sink);
        if expected == 0 {
            return;
        }
        let reply = reply.clone();
        self.server.pool.spawn(move || {
            let mut collected = Vec::with_capacity(expected);
            for message in answers.iter() {
                match message {
                    Outgoing::Response(json) => collected.push(json),
                    other => reply.send(other),
                }
            }
            if !collected.is_empty() {
                reply.send(Outgoing::Response(format!("[{}]", collected.join(","))));
            }
        });
    }

    /// Ends the connection: running handlers see cancellation, pending client requests fail.
    pub fn close(&self) {
        self.session.close();
    }
}

/// Runs one request on a worker and answers it, unless it was cancelled.
fn run(cx: RequestCx, req: Request) {
    let outcome =
        catch_unwind(AssertUnwindSafe(|| methods::request(&cx, &req.method, req.params))).unwrap_or_else(|_| {
            log::error!("handler for {} panicked", req.method);
            Err(RpcError::internal())
        });
    cx.session.finish(&req.id);
    if cx.is_cancelled() {
        // Spec (cancellation): no response once cancelled.
        log::debug!("request {} cancelled; no response", req.id);
        return;
    }
    if let Err(e) = &outcome {
        if e.code == jsonrpc::INTERNAL_ERROR {
            log::error!("{} failed: {}", req.method, e.message);
        }
    }
    cx.sink.send(Outgoing::Response(jsonrpc::response(Some(&req.id), &outcome)));
}

#[cfg(test)]
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
