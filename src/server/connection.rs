//! The per-client message loop's core, fed by a transport: requests go to the worker pool,
//! responses complete our pending requests, cancellations set flags. Every answer leaves
//! through a `Sink` the transport drains, so one writer owns each output stream.

use crate::server::context::RequestCx;
use crate::server::methods::{self, Route};
use crate::server::session::{Job, Session};
pub(crate) use crate::server::sink::BoundedReceiver;
pub use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use crate::wire::jsonrpc::{self, Incoming, Malformed, Message, Request, RpcError};
use crate::wire::version::ProtocolVersion;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// A client connection: a session plus the server it talks to.
pub struct Connection {
    server: Arc<Server>,
    session: Arc<Session>,
}

impl Connection {
    /// A new connection; messages not tied to a request go to `notifier`.
    pub fn new(server: Arc<Server>, notifier: Sink) -> Self {
        let session = Arc::new(Session::new(notifier));
        server.add_listener(Arc::clone(&session) as _);
        Connection { server, session }
    }

    /// The session.
    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Handles one message (or batch) as text: a line of stdio, an HTTP body. Answers go to
    /// `reply`. Never runs handler code on the caller's thread, so the reader stays free to
    /// deliver the answers handlers wait for.
    pub fn handle_text(&self, text: &str, reply: &Sink) {
        self.handle(jsonrpc::parse(text), reply);
    }

    /// Handles one parsed line or body.
    pub(crate) fn handle(&self, incoming: Result<Incoming, Malformed>, reply: &Sink) {
        match incoming {
            Err(bad) => reply.send(Outgoing::Response(jsonrpc::error_response(bad.id.as_ref(), &bad.error))),
            Ok(Incoming::Single(message)) => self.handle_message(message, reply),
            Ok(Incoming::Batch(items)) => self.handle_batch(items, reply),
        }
    }

    /// Handles one message.
    pub(crate) fn handle_message(&self, message: Message, reply: &Sink) {
        match message {
            Message::Request(req) => self.on_request(req, reply),
            Message::Notification(n) => methods::on_notification(&self.session, n),
            Message::Response(res) => {
                if !self.session.answer(&res.id, res.outcome) {
                    log::warn!("answer to unknown or expired request {}", res.id);
                }
            }
        }
    }

    fn on_request(&self, req: Request, reply: &Sink) {
        if let Route::Answered(outcome) = methods::early(&self.server, &self.session, &req) {
            reply.send(Outgoing::Response(jsonrpc::response(Some(&req.id), &outcome)));
            return;
        }
        let Some(negotiated) = self.session.negotiated() else {
            // Invariant: `early` routes to the pool only once the session is initialized.
            return;
        };
        let id = req.id.clone();
        // What a queued request holds until a slot frees, counted so the queue has a bound; only
        // measured when the session looks full, so the usual request pays nothing for it.
        let max_in_flight = self.server.options().max_in_flight;
        let size = if self.session.looks_full(max_in_flight) { jsonrpc::encoded_len(&req.params) } else { 0 };
        let job = |cancelled| {
            let cx = RequestCx::new(
                Arc::clone(&self.server) as _,
                Arc::clone(&self.session),
                req.id.clone(),
                negotiated.into(),
                &req.params,
                cancelled,
                reply.clone(),
            );
            let server = Arc::clone(&self.server);
            Job(Box::new(move || run(&server, cx, req)))
        };
        match self.session.admit(&id, max_in_flight, size, job) {
            Ok(Some(job)) => self.server.pool.spawn(move || job.run()),
            // It waits for a slot; the request that frees one runs it.
            Ok(None) => {}
            Err(why) => {
                let error = RpcError::invalid_request(why);
                reply.send(Outgoing::Response(jsonrpc::error_response(Some(&id), &error)));
            }
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

/// Runs one request on a worker and answers it, unless it was cancelled; hands back the
/// queued request that takes its slot.
fn run(server: &Server, cx: RequestCx, req: Request) -> Option<Job> {
    if cx.is_cancelled() {
        // Cancelled while it waited for a slot: it never runs.
        log::debug!("request {} cancelled before it ran; no response", req.id);
        return cx.session.finish(&req.id);
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| methods::dispatch(&cx, server, &req.method, req.params)))
        .unwrap_or_else(|_| {
            log::error!("handler for {} panicked", req.method);
            Err(RpcError::internal())
        });
    let next = cx.session.finish(&req.id);
    if cx.is_cancelled() {
        // Spec (cancellation): no response once cancelled.
        log::debug!("request {} cancelled; no response", req.id);
    } else {
        if let Err(e) = &outcome {
            if e.code == jsonrpc::INTERNAL_ERROR {
                log::error!("{} failed: {}", req.method, e.message);
            }
        }
        cx.sink.send(Outgoing::Response(jsonrpc::response(Some(&req.id), &outcome)));
    }
    cx.start_deferred();
    next
}
