//! The per-client message loop's core, fed by a transport: each message's era is decided
//! (`meta::era`), requests go to the worker pool, responses complete our pending requests,
//! cancellations set flags, listen streams (2026-07-28) are held open. Every answer leaves
//! through a `Sink` the transport drains, so one writer owns each output stream.

use crate::server::context::{RequestCx, Terms};
use crate::server::listen::ListenStream;
use crate::server::methods::{self, Route};
use crate::server::pool::Job;
use crate::server::session::Session;
use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use crate::wire::frame;
use crate::wire::jsonrpc::{self, Incoming, Malformed, Message, Request};
use crate::wire::meta::{self, Carrier, Era, RequestMeta};
use crate::wire::rpc::{self, RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

/// `subscriptions/listen` streams one connection may hold open at once.
const MAX_LISTEN_STREAMS: usize = 16;

/// A client connection: a session plus the server it talks to. One connection serves both
/// eras side by side, chosen per message (`meta::era`): the handshake era through the session
/// `initialize` settled, the per-request era (2026-07-28) from each request's own `_meta`,
/// using the session only to track requests in flight for cancellation.
pub struct Connection {
    server: Arc<Server>,
    session: Arc<Session>,
    /// Open `subscriptions/listen` streams, by request id; the server holds them weakly.
    listens: Mutex<HashMap<RequestId, Arc<ListenStream>>>,
}

impl Connection {
    /// A new connection; messages not tied to a request go to `notifier`.
    pub fn new(server: Arc<Server>, notifier: Sink) -> Self {
        let session = Arc::new(Session::new(notifier));
        server.add_listener(Arc::clone(&session) as _);
        Connection { server, session, listens: Mutex::default() }
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

    /// Handles one parsed line or body (no transport headers: stdio, memory).
    pub(crate) fn handle(&self, incoming: Result<Incoming, Malformed>, reply: &Sink) {
        self.handle_carried(incoming, reply, Carrier::Stdio);
    }

    /// Handles one parsed line or body with what its transport knows besides it.
    pub(crate) fn handle_carried(&self, incoming: Result<Incoming, Malformed>, reply: &Sink, carrier: Carrier) {
        match incoming {
            Err(bad) => reply.send(Outgoing::Response(frame::error_response(bad.id.as_ref(), &bad.error))),
            Ok(Incoming::Single(message)) => self.handle_message_carried(message, reply, carrier),
            Ok(Incoming::Batch(items)) => self.handle_batch(items, reply),
        }
    }

    /// Handles one message.
    pub(crate) fn handle_message(&self, message: Message, reply: &Sink) {
        self.handle_message_carried(message, reply, Carrier::Stdio);
    }

    fn handle_message_carried(&self, message: Message, reply: &Sink, carrier: Carrier) {
        match message {
            Message::Request(req) => self.on_request(req, reply, carrier),
            Message::Notification(n) => {
                if n.method == "notifications/cancelled" {
                    self.end_listen(&n.params);
                }
                methods::on_notification(&self.session, n)
            }
            Message::Response(res) => {
                if !self.session.answer(&res.id, res.outcome) {
                    log::warn!("answer to unknown or expired request {}", res.id);
                }
            }
        }
    }

    fn on_request(&self, req: Request, reply: &Sink, carrier: Carrier) {
        let answer = |outcome: Result<serde_json::Value, RpcError>| {
            reply.send(Outgoing::Response(frame::response(Some(&req.id), &outcome)));
        };
        if self.server.is_draining() {
            // New work is refused while the server drains; answers to its own requests and
            // cancellations (not requests) still reach the handlers that run.
            return answer(Err(super::shutting_down()));
        }
        let terms: Terms = match meta::era(&req.method, &req.params, carrier) {
            Era::Handshake => {
                if let Route::Answered(outcome) = methods::early(&self.server, &self.session, &req) {
                    return answer(outcome);
                }
                let Some(negotiated) = self.session.negotiated() else {
                    // Invariant: `early` routes to the pool only once the session is initialized.
                    return;
                };
                negotiated.into()
            }
            Era::PerRequest => match RequestMeta::parse(&req.params, carrier) {
                Ok(meta) => return self.per_request(req, meta, reply),
                Err(e) => return answer(Err(e)),
            },
        };
        self.admit(req, terms, reply);
    }

    /// Handles a 2026-07-28 request whose `_meta` its transport has read and checked already
    /// (`RequestMeta::parse`), so it is read once.
    pub(crate) fn per_request(&self, req: Request, meta: RequestMeta, reply: &Sink) {
        if self.server.is_draining() {
            let refusal = Err(super::shutting_down());
            return reply.send(Outgoing::Response(frame::response(Some(&req.id), &refusal)));
        }
        match methods::early_per_request(&self.server, &req) {
            Route::Answered(outcome) => {
                return reply.send(Outgoing::Response(frame::response(Some(&req.id), &outcome)));
            }
            Route::Listen(filter) => return self.listen(req, filter, reply),
            Route::Pool => {}
        }
        let terms = Terms {
            version: meta.protocol_version,
            client_capabilities: Arc::new(meta.client_capabilities),
            log_level: meta.log_level,
        };
        self.admit(req, terms, reply);
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28); it holds no worker.
    fn listen(&self, req: Request, filter: crate::server::listen::Grant, reply: &Sink) {
        let mut listens = self.listens.lock().unwrap_or_else(PoisonError::into_inner);
        let refusal = if listens.len() >= MAX_LISTEN_STREAMS {
            Some(format!("too many subscriptions/listen streams open: at most {MAX_LISTEN_STREAMS} per client"))
        } else if listens.contains_key(&req.id) {
            Some("a subscriptions/listen stream with this id is already open".to_owned())
        } else {
            None
        };
        if let Some(why) = refusal {
            let error = RpcError::invalid_request(why);
            reply.send(Outgoing::Response(frame::error_response(Some(&req.id), &error)));
            return;
        }
        let stream = Arc::new(ListenStream::open(req.id.clone(), filter, reply.clone()));
        self.server.add_listener(Arc::clone(&stream) as _);
        listens.insert(req.id, stream);
    }

    /// Spec (subscriptions/listen): a cancelled stream ends with no response.
    fn end_listen(&self, params: &serde_json::Value) {
        let Some(id) = params.get("requestId").and_then(RequestId::from_value) else { return };
        if let Some(stream) = self.listens.lock().unwrap_or_else(PoisonError::into_inner).remove(&id) {
            stream.end();
            log::debug!("subscriptions/listen {id} cancelled");
        }
    }

    /// Runs a request on the pool under `terms`, or queues it for a slot.
    fn admit(&self, req: Request, terms: Terms, reply: &Sink) {
        let id = req.id.clone();
        // What a queued request holds until a slot frees, counted so the queue has a bound; only
        // measured when the session looks full, so the usual request pays nothing for it.
        let max_in_flight = self.server.options().session_share();
        let size = if self.session.looks_full(max_in_flight) { frame::encoded_len(&req.params) } else { 0 };
        let job = |cancelled| {
            let cx = RequestCx::new(
                Arc::clone(&self.server),
                Arc::clone(&self.session),
                req.id.clone(),
                terms,
                &req.params,
                cancelled,
                reply.clone(),
            );
            let server = Arc::clone(&self.server);
            Job(Box::new(move || run(&server, cx, req)))
        };
        match self.session.admit(&id, max_in_flight, size, job) {
            Ok(Some(job)) => self.server.pool.spawn_job(job),
            // It waits for a slot; the request that frees one runs it.
            Ok(None) => {}
            Err(why) => {
                let error = RpcError::invalid_request(why);
                reply.send(Outgoing::Response(frame::error_response(Some(&id), &error)));
            }
        }
    }

    fn handle_batch(&self, items: Vec<Result<Message, Malformed>>, reply: &Sink) {
        if meta::batch_is_per_request(&items, Carrier::Stdio) {
            reply.send(Outgoing::Response(frame::error_response(None, &meta::batch_refused())));
            return;
        }
        let version = self.session.protocol_version();
        if !version.is_some_and(ProtocolVersion::allows_batches) {
            let why = match version {
                Some(v) => format!("batches are not supported in protocol revision {v}"),
                None => "batches are not allowed before initialize".to_owned(),
            };
            reply.send(Outgoing::Response(frame::error_response(None, &RpcError::invalid_request(why))));
            return;
        }
        // Spec (JSON-RPC batch): the answers travel together as one array; notifications
        // and requests to the client pass straight through. The array leaves from the thread
        // that delivers the last answer: no worker waits for them (issue 11).
        let (batch_sink, guard) = reply.batch();
        let mut expected = 0;
        for item in items {
            match item {
                Ok(Message::Request(req)) => {
                    expected += 1;
                    self.on_request(req, &batch_sink, Carrier::Stdio);
                }
                Ok(other) => self.handle_message(other, &batch_sink),
                Err(bad) => {
                    expected += 1;
                    batch_sink.send(Outgoing::Response(frame::error_response(bad.id.as_ref(), &bad.error)));
                }
            }
        }
        guard.expect(expected);
    }

    /// Ends the connection: running handlers see cancellation, pending client requests fail,
    /// listen streams end.
    pub fn close(&self) {
        self.session.close();
        for (_, stream) in self.listens.lock().unwrap_or_else(PoisonError::into_inner).drain() {
            stream.end();
        }
    }
}

/// Runs one request on a worker and answers it, unless it was cancelled; hands back the
/// queued request that takes its slot.
fn run(server: &Server, mut cx: RequestCx, req: Request) -> Option<Job> {
    if cx.is_cancelled() {
        // Cancelled while it waited for a slot: it never runs.
        log::debug!("request {} cancelled before it ran; no response", req.id);
        return cx.session.finish(&req.id);
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| methods::answer(&mut cx, server, &req.method, req.params)))
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
            if e.code == rpc::INTERNAL_ERROR {
                log::error!("{} failed: {}", req.method, e.message);
            }
        }
        cx.sink.send(Outgoing::Response(frame::response_reply(Some(&req.id), outcome)));
    }
    cx.start_deferred();
    next
}
