//! The per-client message loop's core, fed by a transport: each message's era is decided
//! (`meta::era`), requests go to the worker pool, responses complete our pending requests,
//! cancellations set flags, listen streams (2026-07-28) are held open. Every answer leaves
//! through a `Sink` the transport drains, so one writer owns each output stream.

use crate::server::context::{RequestCx, Terms};
use crate::server::dispatch::{self, Route};
use crate::server::listen::{Grant, ListenStream};
use crate::server::pool::Job;
#[cfg(feature = "http")]
use crate::server::relay::{self, Relay};
use crate::server::session::{Session, Waiting};
use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use crate::wire::frame::{Answer, Reply};
use crate::wire::jsonrpc::{self, Incoming, Malformed, Message, Request};
use crate::wire::meta::{self, Arrival, Era, RequestMeta};
use crate::wire::method::Id;
use crate::wire::params::Params;
use crate::wire::rpc::{self, RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
#[cfg(feature = "http")]
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Another server every message goes to instead of the method table (`Server::set_relay`).
    #[cfg(feature = "http")]
    relay: Option<Relay>,
}

impl Connection {
    /// A new connection; messages not tied to a request go to `notifier`.
    pub fn new(server: Arc<Server>, notifier: Sink) -> Self {
        let session = Arc::new(Session::new(notifier));
        #[cfg(feature = "http")]
        let relay = server.relay().map(|setup| Relay::open(setup, &server, Arc::clone(&session)));
        #[cfg(feature = "http")]
        if let Some(relay) = relay {
            // A relay hears no broadcast; it is ended with the server.
            if let Some(ending) = relay.listener() {
                server.add_listener(ending);
            }
            return Connection { server, session, listens: Mutex::default(), relay: Some(relay) };
        }
        server.add_listener(Arc::clone(&session) as _);
        Connection {
            server,
            session,
            listens: Mutex::default(),
            #[cfg(feature = "http")]
            relay: None,
        }
    }

    /// Whether this connection is one of `server`'s (a listener may serve several).
    #[cfg(feature = "http")]
    pub(crate) fn serves(&self, server: &Arc<Server>) -> bool {
        Arc::ptr_eq(&self.server, server)
    }

    /// The session.
    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Handles one message (or batch) as text, with no transport facts (an embedder's own
    /// transport, the in-memory client): `Connection::handle` after parsing.
    pub fn handle_text(&self, text: &str, reply: &Sink) {
        self.handle(jsonrpc::parse(text), Arrival::Plain, reply);
    }

    /// THE entry point of every transport: one parsed line or body, what its transport knows
    /// besides it (`arrival`: headers, whether it came in a session), and where its answers
    /// go. Each message's era is decided here once; never runs handler code on the caller's
    /// thread, so the reader stays free to deliver the answers handlers wait for.
    pub(crate) fn handle(&self, incoming: Result<Incoming, Malformed>, arrival: Arrival, reply: &Sink) {
        #[cfg(feature = "http")]
        let incoming = match (incoming, &self.relay) {
            (Ok(incoming), Some(relay)) => return relay.handle(incoming, reply),
            (incoming, _) => incoming,
        };
        match incoming {
            Err(bad) => reply.send(Outgoing::Response(Answer::error(bad.id.as_ref(), bad.error))),
            Ok(Incoming::Single(message)) => self.on_message(message, arrival, reply),
            Ok(Incoming::Batch(items)) => self.on_batch(items, arrival, reply),
        }
    }

    fn on_message(&self, message: Message, arrival: Arrival, reply: &Sink) {
        match message {
            Message::Request(req) => self.on_request(req, reply, arrival),
            Message::Notification(n) => {
                if n.method.spec().is_some_and(|s| s.id == Id::Cancelled) {
                    self.end_listen(&n.params);
                }
                dispatch::on_notification(&self.session, n)
            }
            Message::Response(res) => {
                if !self.session.answer(&res.id, res.outcome) {
                    log::warn!("answer to unknown or expired request {}", res.id);
                }
            }
        }
    }

    fn on_request(&self, req: Request, reply: &Sink, arrival: Arrival) {
        let scopes = arrival.scopes();
        let revisions = self.server.options().revisions;
        // `_meta` read once, for the era and the 2026-07-28 terms.
        enum Read {
            /// The handshake era, and the request's progress token.
            Handshake(Option<serde_json::Value>),
            PerRequest(Result<RequestMeta, RpcError>),
        }
        let read = {
            let meta = req.params.read_meta();
            match meta::era_of(&req.method, meta.as_ref(), arrival, revisions) {
                Era::Handshake => Read::Handshake(meta::progress_token_of(meta.as_ref())),
                Era::PerRequest => Read::PerRequest(
                    meta::method_served(&req.method, revisions)
                        .and_then(|()| RequestMeta::read(meta, arrival, revisions)),
                ),
            }
        };
        match read {
            Read::Handshake(token) => {
                let negotiated = self.session.negotiated();
                self.serve(req, negotiated.map(|n| Terms::from(n).granting(scopes).with_progress(token)), reply);
            }
            Read::PerRequest(Ok(meta)) => self.serve(req, Some(Terms::from(meta).granting(scopes)), reply),
            Read::PerRequest(Err(e)) => reply.send(Outgoing::Response(Answer::error(Some(&req.id), e))),
        }
    }

    /// Serves one request under the terms its era settled (`None`: the session's handshake has
    /// not happened yet): refused while draining, answered on the reader where the method table
    /// says so, else run on the pool.
    fn serve(&self, req: Request, terms: Option<Terms>, reply: &Sink) {
        match route(&self.server, Some(&self.session), &req, terms, reply) {
            Routed::Done => {}
            Routed::Listen(grant) => self.listen(req, grant, reply),
            Routed::Pool(terms) => self.admit(req, terms, reply),
        }
    }

    /// Serves one 2026-07-28 request that comes with no connection of its own (a Streamable
    /// HTTP POST without a session), its `_meta` read and checked by its transport already:
    /// the same way as on a connection, with no session. What it gets instead is returned: its
    /// cancellation flag and its listen stream, which its transport ends when the client hangs
    /// up or has its answer. `scopes`: what its access token granted, when scopes are checked.
    #[cfg(feature = "http")]
    pub(crate) fn serve_alone(
        server: &Arc<Server>,
        req: Request,
        meta: RequestMeta,
        scopes: Option<&[String]>,
        reply: &Sink,
    ) -> Sessionless {
        let mut alone = Sessionless::default();
        if let Some(setup) = server.relay() {
            match relay::serve_alone(setup, server, req, &meta, reply) {
                relay::Served::Done => {}
                relay::Served::Relayed(relayed) => alone.relayed = Some(relayed),
                relay::Served::Listening(stream) => alone.listen = Some(stream),
            }
            return alone;
        }
        match route(server, None, &req, Some(Terms::from(meta).granting(scopes)), reply) {
            Routed::Done => {}
            Routed::Listen(grant) => {
                let stream = Arc::new(ListenStream::open(req.id, grant, reply.clone()));
                server.add_listener(Arc::clone(&stream) as _);
                alone.listen = Some(stream);
            }
            Routed::Pool(terms) => {
                let cx = RequestCx::new(
                    Arc::clone(server),
                    None,
                    req.id.clone(),
                    terms,
                    Arc::clone(&alone.cancelled),
                    reply.clone(),
                );
                server.pool.spawn_job(Job { run, cx, req });
            }
        }
        alone
    }

    /// `f` of the input schema of tool `name` as a 2026-07-28 request with this `_meta` would
    /// meet it: a registered tool's (not copied), or a relayed server's (SEP-2243's headers are
    /// checked against it).
    #[cfg(feature = "http")]
    pub(crate) fn with_tool_input_schema<R>(
        server: &Arc<Server>,
        meta: &RequestMeta,
        name: &str,
        f: impl FnOnce(Option<&serde_json::Value>) -> R,
    ) -> R {
        match server.tool(name) {
            Some(entry) => f(Some(&entry.tool.input_schema)),
            None => f(relay::tool_schema(server, meta, name).as_ref()),
        }
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28); it holds no worker.
    fn listen(&self, req: Request, filter: Grant, reply: &Sink) {
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
            reply.send(Outgoing::Response(Answer::error(Some(&req.id), error)));
            return;
        }
        let stream = Arc::new(ListenStream::open(req.id.clone(), filter, reply.clone()));
        self.server.add_listener(Arc::clone(&stream) as _);
        listens.insert(req.id, stream);
    }

    /// Spec (subscriptions/listen): a cancelled stream ends with no response.
    fn end_listen(&self, params: &Params) {
        let Some(id) = dispatch::cancelled_request(params) else { return };
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
        let size = if self.session.looks_full(max_in_flight) { req.params.len() } else { 0 };
        let job = |cancelled| {
            let cx = RequestCx::new(
                Arc::clone(&self.server),
                Some(Arc::clone(&self.session)),
                req.id.clone(),
                terms,
                cancelled,
                reply.clone(),
            );
            Job { run, cx, req }
        };
        let wait = |job: Job| Waiting::new(move || (job.run)(job.cx, job.req));
        match self.session.admit(&id, max_in_flight, size, job, wait) {
            Ok(Some(job)) => self.server.pool.spawn_job(job),
            // It waits for a slot; the request that frees one runs it.
            Ok(None) => {}
            Err(why) => {
                let error = RpcError::invalid_request(why);
                reply.send(Outgoing::Response(Answer::error(Some(&id), error)));
            }
        }
    }

    fn on_batch(&self, items: Vec<Result<Message, Malformed>>, arrival: Arrival, reply: &Sink) {
        if meta::batch_is_per_request(&items, arrival, self.server.options().revisions) {
            reply.send(Outgoing::Response(Answer::error(None, meta::batch_refused())));
            return;
        }
        let version = self.session.protocol_version();
        if !version.is_some_and(ProtocolVersion::allows_batches) {
            let why = match version {
                Some(v) => format!("batches are not supported in protocol revision {v}"),
                None => "batches are not allowed before initialize".to_owned(),
            };
            reply.send(Outgoing::Response(Answer::error(None, RpcError::invalid_request(why))));
            return;
        }
        // Spec (JSON-RPC batch): the answers travel together as one array; notifications
        // and requests to the client pass straight through. The array leaves from the thread
        // that delivers the last answer: no worker waits for them.
        let (batch_sink, guard) = reply.batch();
        let mut expected = 0;
        for item in items {
            match item {
                Ok(Message::Request(req)) => {
                    expected += 1;
                    self.on_request(req, &batch_sink, arrival);
                }
                Ok(other) => self.on_message(other, arrival, &batch_sink),
                Err(bad) => {
                    expected += 1;
                    batch_sink.send(Outgoing::Response(Answer::error(bad.id.as_ref(), bad.error)));
                }
            }
        }
        guard.expect(expected);
    }

    /// Ends the connection: running handlers see cancellation, pending client requests fail,
    /// listen streams end.
    pub fn close(&self) {
        #[cfg(feature = "http")]
        if let Some(relay) = &self.relay {
            relay.close();
        }
        self.session.close();
        for (_, stream) in self.listens.lock().unwrap_or_else(PoisonError::into_inner).drain() {
            stream.end();
        }
    }
}

/// Where a request goes once its terms are settled.
enum Routed {
    /// Answered (or refused) already.
    Done,
    /// Opens a `subscriptions/listen` stream.
    Listen(Grant),
    /// Runs on the pool under these terms.
    Pool(Terms),
}

/// The one way every request takes, on a connection or alone: refused while the server
/// drains, answered on the reader where the method table says so, else bound for the pool.
fn route(server: &Server, session: Option<&Session>, req: &Request, terms: Option<Terms>, reply: &Sink) -> Routed {
    let answer = |outcome: Result<Reply, RpcError>| {
        reply.send(Outgoing::Response(Answer::new(req.id.clone(), outcome)));
        Routed::Done
    };
    if server.is_draining() {
        // New work is refused while the server drains; answers to its own requests and
        // cancellations (not requests) still reach the handlers that run.
        return answer(Err(super::shutting_down()));
    }
    let scopes = terms.as_ref().and_then(|t| t.scopes.as_deref());
    match dispatch::early(server, session, req, terms.as_ref().map(|t| t.version), scopes) {
        Route::Answered(outcome) => answer(outcome),
        Route::Listen(grant) => Routed::Listen(grant),
        // Invariant: `early` routes to the pool only with terms (a settled session or `_meta`).
        Route::Pool => terms.map_or(Routed::Done, Routed::Pool),
    }
}

/// What a request served alone holds instead of a session (`Connection::serve_alone`).
#[cfg(feature = "http")]
#[derive(Default)]
pub(crate) struct Sessionless {
    cancelled: Arc<AtomicBool>,
    listen: Option<Arc<ListenStream>>,
    /// Where a relaying server sent it.
    relayed: Option<relay::Forwarded>,
}

#[cfg(feature = "http")]
impl Sessionless {
    /// The client has its answer or is gone: a handler still running sees cancellation, a
    /// listen stream ends.
    pub(crate) fn close(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(stream) = &self.listen {
            stream.end();
        }
        if let Some(relayed) = &self.relayed {
            relayed.close();
        }
    }
}

/// Runs one request on a worker and answers it, unless it was cancelled; hands back the
/// queued request that takes its slot.
fn run(mut cx: RequestCx, req: Request) -> Option<Waiting> {
    let server = Arc::clone(&cx.server);
    if cx.is_cancelled() {
        // Cancelled while it waited for a slot: it never runs.
        log::debug!("request {} cancelled before it ran; no response", req.id);
        return cx.session.as_ref().and_then(|s| s.finish(&req.id));
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| dispatch::answer(&mut cx, &server, &req.method, &req.params)))
        .unwrap_or_else(|_| {
            log::error!("handler for {} panicked", req.method);
            Err(RpcError::internal())
        });
    let next = cx.session.as_ref().and_then(|s| s.finish(&req.id));
    if cx.is_cancelled() {
        // Spec (cancellation): no response once cancelled.
        log::debug!("request {} cancelled; no response", req.id);
    } else {
        if let Err(e) = &outcome {
            if e.code == rpc::INTERNAL_ERROR {
                log::error!("{} failed: {}", req.method, e.message);
            }
        }
        cx.sink.send(Outgoing::Response(Answer::new(req.id, outcome)));
    }
    cx.start_deferred();
    next
}
