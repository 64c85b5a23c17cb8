//! The per-client message loop's core, fed by a transport: each message's era is decided
//! (`meta::era`, once: here, or by the transport that chose the connection with it), requests
//! go to the worker pool, responses complete our pending requests, cancellations set flags,
//! listen streams (2026-07-28) are held open. A 2026-07-28 request that comes with no session
//! (a Streamable HTTP POST) is a connection of its own with none. Every answer leaves through a
//! `Sink` the transport drains, so one writer owns each output stream.

use crate::server::context::{RequestCx, Terms};
use crate::server::dispatch::{self, Route};
use crate::server::listen::{Grant, ListenStream, Listener};
use crate::server::pool::Job;
use crate::server::relay::{self, ConnectionRelay};
use crate::server::scope::{self, RequestScope};
use crate::server::session::{Negotiated, Session, Waiting};
use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use crate::wire::error::{self, RpcError};
use crate::wire::frame::{Answer, Reply};
use crate::wire::jsonrpc::RequestId;
use crate::wire::jsonrpc::{self, Incoming, Malformed, Message, Request};
use crate::wire::mcp_header::{self, Header};
use crate::wire::meta::{self, Arrival, Era, RequestMeta};
use crate::wire::params::{Meta, Params};
use crate::wire::protocol::{Id, ProtocolVersion};
use crate::wire::trace::{self, TraceContext};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// `subscriptions/listen` streams one connection may hold open at once.
const MAX_LISTEN_STREAMS: usize = 16;

/// A client connection: a session plus the server it talks to. One connection serves both
/// eras side by side, chosen per message (`meta::era`): the handshake era through the session
/// `initialize` settled, the per-request era (2026-07-28) from each request's own `_meta`,
/// using the session only to track requests in flight for cancellation. A connection with no
/// session (`Connection::sessionless`) serves one 2026-07-28 request the same way.
pub struct Connection {
    server: Arc<Server>,
    /// `None`: a connection with no session (`Connection::sessionless`).
    session: Option<Arc<Session>>,
    /// What a connection with no session holds instead: its request's cancellation flag, where
    /// a relaying server sent it.
    alone: Sessionless,
    /// Open `subscriptions/listen` streams, by request id; the server holds them weakly.
    listens: Mutex<HashMap<RequestId, Arc<ListenStream>>>,
    /// Another server every message goes to instead of the method table (`Server::set_relay`).
    relay: Option<Box<dyn ConnectionRelay>>,
}

impl Connection {
    /// A new connection; messages not tied to a request go to `notifier`.
    pub fn new(server: Arc<Server>, notifier: Sink) -> Self {
        let session = Arc::new(Session::new(notifier));
        let relay = server.relay().map(|setup| setup.open(&server, Arc::clone(&session)));
        if let Some(relay) = relay {
            // A relay hears no broadcast; it is ended with the server.
            if let Some(ending) = relay.listener() {
                server.add_listener(ending);
            }
            let alone = Sessionless::default();
            return Connection { server, session: Some(session), alone, listens: Mutex::default(), relay: Some(relay) };
        }
        server.add_listener(Arc::clone(&session) as _);
        // Its subscriptions end with it (after `closed` is set: it no longer counts).
        let (ending, of) = (Arc::downgrade(&server), Arc::downgrade(&session));
        session.on_end(Box::new(move || {
            if let (Some(server), Some(session)) = (ending.upgrade(), of.upgrade()) {
                for uri in session.subscription_uris() {
                    server.unsubscribed(&uri, None);
                }
            }
        }));
        Connection {
            server,
            session: Some(session),
            alone: Sessionless::default(),
            listens: Mutex::default(),
            relay: None,
        }
    }

    /// A connection with no session, for one 2026-07-28 request that came with none (a
    /// Streamable HTTP POST): served through `handle` as on any connection, and `close`d when
    /// its client has its answer or hangs up (a handler still running sees cancellation, a
    /// listen stream ends, a relayed request is withdrawn). It hears no broadcast but on a
    /// listen stream it opens.
    pub fn sessionless(server: Arc<Server>) -> Self {
        Connection { server, session: None, alone: Sessionless::default(), listens: Mutex::default(), relay: None }
    }

    /// Whether this connection is one of `server`'s (a listener may serve several).
    pub fn serves(&self, server: &Arc<Server>) -> bool {
        Arc::ptr_eq(&self.server, server)
    }

    /// The session; `None` on a connection with none (`Connection::sessionless`).
    pub fn session(&self) -> Option<&Arc<Session>> {
        self.session.as_ref()
    }

    /// What the session's `initialize` settled, if it has.
    pub fn negotiated(&self) -> Option<Negotiated> {
        self.session.as_ref().and_then(|s| s.negotiated())
    }

    /// The revision the session negotiated, if any.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.session.as_ref().and_then(|s| s.protocol_version())
    }

    /// Whether the connection has ended (`close`, or its session ended from within).
    pub fn is_closed(&self) -> bool {
        match &self.session {
            Some(session) => session.is_closed(),
            None => self.alone.cancelled.load(Ordering::SeqCst),
        }
    }

    /// Whether a request was refused for its `_meta` or its headers before it ran (a
    /// connection with no session serves one request: its transport answers such a refusal
    /// with 400, whatever the code).
    pub fn refused(&self) -> bool {
        self.alone.refused.load(Ordering::Relaxed)
    }

    /// Handles one message (or batch) as text, with no transport facts (an embedder's own
    /// transport, the in-memory client): `Connection::handle` after parsing.
    pub fn handle_text(&self, text: &str, reply: &Sink) {
        self.handle(jsonrpc::parse(text), Arrival::Plain, reply);
    }

    /// THE entry point of every transport and era: one parsed line or body, what its transport
    /// knows besides it (`arrival`: headers, whether it came in a session, the era if the
    /// transport decided it), and where its answers go. Each message's era is decided once;
    /// never runs handler code on the caller's thread, so the reader stays free to deliver the
    /// answers handlers wait for.
    pub fn handle(&self, incoming: Result<Incoming, Malformed>, arrival: Arrival, reply: &Sink) {
        let incoming = match (incoming, &self.relay) {
            (Ok(Incoming::Single(Message::Request(req))), Some(relay)) => {
                // Relayed as it came, but for its trace context: the one it carries, or the
                // one its headers or tracing gave it, in the `_meta` the other server reads.
                let scope = self.scope_of(&req, arrival);
                let _in = scope.as_ref().map(scope::enter);
                let req = carry_trace(req, scope.as_deref());
                if scope.is_some() {
                    log::info!(target: "tinymcp::request", "relayed to the proxied server");
                }
                return relay.handle(Incoming::Single(Message::Request(req)), reply);
            }
            (Ok(incoming), Some(relay)) => return relay.handle(incoming, reply),
            (incoming, _) => incoming,
        };
        match incoming {
            Err(bad) => {
                self.server.count_unparsed(bad.error.code);
                reply.send(Outgoing::Response(Answer::error(bad.id.as_ref(), bad.error)));
            }
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
                match &self.session {
                    Some(session) => dispatch::on_notification(session, n),
                    // No session holds anything a notification could change: a request is
                    // cancelled by closing its POST.
                    None => log::debug!("notification without a session ignored: {}", n.method),
                }
            }
            Message::Response(res) => {
                if !self.session.as_ref().is_some_and(|s| s.answer(&res.id, res.outcome)) {
                    log::warn!("answer to unknown or expired request {}", res.id);
                }
            }
        }
    }

    /// What the log lines of `req` say of it, with its trace context: the valid one its
    /// `_meta` carries, else its HTTP `traceparent` header's, else (tracing on) a fresh one.
    /// `None`, building nothing, for a request with neither while tracing is off.
    fn scope_of(&self, req: &Request, arrival: Arrival) -> Option<Arc<RequestScope>> {
        let meta = req.params.read_meta();
        let headers = match arrival {
            Arrival::Http { headers, .. } => headers,
            Arrival::Plain | Arrival::Scoped { .. } => &[],
        };
        // The usual request, with no context and tracing off, reads no further (and runs no
        // code of the trace module).
        let carried = meta.as_ref().is_some_and(|m| m.keys.as_ref().is_ok_and(|keys| keys.traceparent.is_some()))
            || headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("traceparent"));
        let tracing = self.server.options().trace;
        if !carried && !tracing {
            return None;
        }
        self.build_scope(req, meta, headers, tracing)
    }

    /// `scope_of` past its first check: kept out of line, so the usual request's path stays
    /// as it was.
    #[cold]
    #[inline(never)]
    fn build_scope(
        &self,
        req: &Request,
        meta: Option<Meta>,
        headers: &[(String, String)],
        tracing: bool,
    ) -> Option<Arc<RequestScope>> {
        let trace = trace::of_meta(meta.as_ref()).or_else(|| trace::of_headers(headers));
        if trace.is_none() && !tracing {
            return None;
        }
        let trace = trace.or_else(TraceContext::fresh);
        let session = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id")).map(|(_, v)| v.as_str());
        // A 2026-07-28 request names its client; a session's `initialize` did, once.
        let client = meta
            .as_ref()
            .and_then(|m| m.keys.as_ref().ok()?.client_info)
            .and_then(|info| serde_json::from_str::<serde_json::Value>(info).ok())
            .and_then(|info| info.get("name")?.as_str().map(str::to_owned))
            .or_else(|| self.session.as_ref()?.client().map(str::to_owned));
        Some(Arc::new(RequestScope::of(req, trace, session, client)))
    }

    fn on_request(&self, req: Request, reply: &Sink, arrival: Arrival) {
        let scope = self.scope_of(&req, arrival);
        let _in = scope.as_ref().map(scope::enter);
        let (scopes, subject) = (arrival.scopes(), arrival.subject());
        let revisions = self.server.options().revisions;
        // `_meta` read once, for the era and the 2026-07-28 terms.
        enum Read {
            /// The handshake era, and the request's progress token.
            Handshake(Option<serde_json::Value>),
            PerRequest(Result<RequestMeta, RpcError>),
        }
        let read = {
            let meta = req.params.read_meta();
            let era = arrival.era().unwrap_or_else(|| meta::era_of(&req.method, meta.as_ref(), arrival, revisions));
            match era {
                Era::Handshake => Read::Handshake(meta::progress_token_of(meta.as_ref())),
                // The contract's order (§2.5, §2.9): a method no served revision has (-32601),
                // the `_meta` fields (-32602), the version header against `_meta` (-32020), the
                // version (-32022), then the routing headers (-32020).
                Era::PerRequest => Read::PerRequest(
                    meta::method_served(&req.method, revisions)
                        .and_then(|()| RequestMeta::read(meta, arrival, revisions))
                        .and_then(|meta| self.check_headers(&req, &meta, arrival).map(|()| meta)),
                ),
            }
        };
        match read {
            Read::Handshake(token) => {
                let negotiated = self.negotiated();
                let terms =
                    negotiated.map(|n| Terms::from(n).granting(scopes, subject).with_progress(token).scoped(scope));
                self.serve(req, terms, reply);
            }
            Read::PerRequest(Ok(meta)) if self.session.is_none() && self.server.relay().is_some() => {
                if scope.is_some() {
                    log::info!(target: "tinymcp::request", "relayed to the proxied server");
                }
                self.relay_alone(carry_trace(req, scope.as_deref()), &meta, reply);
            }
            Read::PerRequest(Ok(meta)) => {
                self.serve(req, Some(Terms::from(meta).granting(scopes, subject).scoped(scope)), reply)
            }
            Read::PerRequest(Err(e)) => {
                if let Some(scope) = &scope {
                    scope::answered(scope, Some(e.code), "");
                }
                self.alone.refused.store(e.code != error::METHOD_NOT_FOUND, Ordering::Relaxed);
                let answer = Answer::error(Some(&req.id), e);
                self.server.count_request(&req.method, None, Some(&answer.outcome));
                reply.send(Outgoing::Response(answer));
            }
        }
    }

    /// A 2026-07-28 request's SEP-2243 headers against its body (HTTP), the arguments only
    /// for a tool whose input schema (a registered tool's, not copied, or a relayed server's)
    /// asks for headers: looked up here, where the tool is.
    fn check_headers(&self, req: &Request, meta: &RequestMeta, arrival: Arrival) -> Result<(), RpcError> {
        let Arrival::Http { headers, .. } = arrival else { return Ok(()) };
        let pairs: Vec<Header> = headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes())).collect();
        let check = |schema: Option<&serde_json::Value>| mcp_header::validate(&pairs, &req.method, &req.params, schema);
        let tool = req.method.spec().filter(|s| s.id == Id::ToolsCall).and_then(|_| req.params.string_member("name"));
        match tool.as_deref().map(|name| (name, self.server.registered_tool(name))) {
            None => check(None),
            Some((_, Some(entry))) => check(Some(&entry.tool.input_schema)),
            Some((name, None)) => {
                check(self.server.relay().and_then(|r| r.tool_schema(&self.server, meta, name)).as_ref())
            }
        }
    }

    /// A relaying server's 2026-07-28 request with no session: the relay serves it, and what
    /// it opens (the request in flight at the other server, a listen stream) ends with `close`.
    fn relay_alone(&self, req: Request, meta: &RequestMeta, reply: &Sink) {
        let Some(setup) = self.server.relay() else { return };
        let id = req.id.clone();
        match setup.serve_alone(&self.server, req, meta, reply) {
            relay::Served::Done => {}
            relay::Served::Relayed(withdraw) => {
                *self.alone.relayed.lock().unwrap_or_else(PoisonError::into_inner) = Some(withdraw);
            }
            relay::Served::Listening(stream) => {
                self.listens.lock().unwrap_or_else(PoisonError::into_inner).insert(id, stream);
            }
        }
    }

    /// Serves one request under the terms its era settled (`None`: the session's handshake has
    /// not happened yet): refused while draining, answered on the reader where the method table
    /// says so, else run on the pool.
    fn serve(&self, req: Request, terms: Option<Terms>, reply: &Sink) {
        match route(&self.server, self.session.as_deref(), &req, terms, reply) {
            Routed::Done => {}
            Routed::Listen(grant) => self.listen(req, grant, reply),
            Routed::Pool(terms) => self.admit(req, terms, reply),
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
        let stream = self.listens.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
        if let Some(stream) = stream {
            self.listen_ended(&stream);
            log::debug!("subscriptions/listen {id} cancelled");
        }
    }

    /// A listen stream ended: its subscriptions end with it (the hooks run outside the lock).
    fn listen_ended(&self, stream: &ListenStream) {
        if stream.end() {
            for uri in stream.subscriptions() {
                self.server.unsubscribed(&uri, None);
            }
        }
    }

    /// Runs a request on the pool under `terms`, or queues it for a slot.
    fn admit(&self, req: Request, terms: Terms, reply: &Sink) {
        let Some(session) = &self.session else {
            // No session: its one request runs now, cancelled through the connection's flag.
            let cancelled = Arc::clone(&self.alone.cancelled);
            let cx = RequestCx::new(Arc::clone(&self.server), None, req.id.clone(), terms, cancelled, reply.clone());
            return self.server.pool.spawn_job(Job { started: self.server.clock(&req.method), cx, req });
        };
        let (id, spec) = (req.id.clone(), req.method.spec());
        // What a queued request holds until a slot frees, counted so the queue has a bound; only
        // measured when the session looks full, so the usual request pays nothing for it.
        let max_in_flight = self.server.options().session_share();
        let size = if session.looks_full(max_in_flight) { req.params.len() } else { 0 };
        let job = |cancelled| {
            let cx = RequestCx::new(
                Arc::clone(&self.server),
                Some(Arc::clone(session)),
                req.id.clone(),
                terms,
                cancelled,
                reply.clone(),
            );
            Job { started: self.server.clock(&req.method), cx, req }
        };
        let wait = |job: Job| Waiting::new(move || job.answer());
        match session.admit(&id, max_in_flight, size, job, wait) {
            Ok(Some(job)) => self.server.pool.spawn_job(job),
            // It waits for a slot; the request that frees one runs it.
            Ok(None) => {}
            Err(why) => {
                let answer = Answer::error(Some(&id), RpcError::invalid_request(why));
                self.server.count_queue_full(spec, &answer.outcome);
                reply.send(Outgoing::Response(answer));
            }
        }
    }

    fn on_batch(&self, items: Vec<Result<Message, Malformed>>, arrival: Arrival, reply: &Sink) {
        if meta::batch_is_per_request(&items, arrival, self.server.options().revisions) {
            reply.send(Outgoing::Response(Answer::error(None, meta::batch_refused())));
            return;
        }
        let version = self.protocol_version();
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
        if let Some(relay) = &self.relay {
            relay.close();
        }
        match &self.session {
            Some(session) => session.close(),
            None => self.alone.close(),
        }
        let streams: Vec<_> = self.listens.lock().unwrap_or_else(PoisonError::into_inner).drain().collect();
        for (_, stream) in streams {
            self.listen_ended(&stream);
        }
    }
}

/// `req` with the trace context of `scope` in its `_meta` (`traceparent`, `tracestate`), where
/// it does not carry that one already: what a relay passes on (SEP-414).
fn carry_trace(mut req: Request, scope: Option<&RequestScope>) -> Request {
    let Some(trace) = scope.and_then(RequestScope::upstream) else { return req };
    if trace::of_meta(req.params.read_meta().as_ref()).as_ref() == Some(&trace) {
        return req;
    }
    let mut members = vec![("traceparent", serde_json::Value::String(trace.traceparent()))];
    if let Some(state) = trace.tracestate() {
        members.push(("tracestate", serde_json::Value::String(state.to_owned())));
    }
    req.params = req.params.with_meta(&members);
    req
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
    let started = server.clock(&req.method);
    let answer = |outcome: Result<Reply, RpcError>| {
        // Answered on the reader (`initialize`, `ping`, a refusal): its end line here.
        RequestScope::with_current(|scope| {
            if let Some(scope) = scope {
                scope::answered(scope, outcome.as_ref().err().map(|e| e.code), "");
            }
        });
        server.count_request(&req.method, started, Some(&outcome));
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

/// What a connection with no session holds instead of one (`Connection::sessionless`); its
/// listen stream, if it opens one, is among the connection's.
#[derive(Default)]
struct Sessionless {
    /// Its request's cancellation flag.
    cancelled: Arc<AtomicBool>,
    /// Whether its request was refused before it ran (`Connection::refused`).
    refused: AtomicBool,
    /// Where a relaying server sent it.
    relayed: Mutex<Option<relay::Withdraw>>,
}

impl Sessionless {
    /// The client has its answer or is gone: a handler still running sees cancellation, a
    /// relayed request is withdrawn.
    fn close(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(withdraw) = &*self.relayed.lock().unwrap_or_else(PoisonError::into_inner) {
            withdraw();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::content::CallToolResult;
    use crate::wire::error::HEADER_MISMATCH;
    use crate::Tool;
    use serde_json::{json, Value};
    use std::time::Duration;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect()
    }

    /// What one 2026-07-28 `tools/call` over HTTP with these headers gets from a connection with
    /// no session, and whether it was refused before it ran.
    fn call_alone(server: &Arc<Server>, meta: Value, sent: &[(&str, &str)]) -> (Value, bool) {
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "region", "arguments": {"region": "eu"}, "_meta": meta}});
        let headers = headers(sent);
        let arrival = Arrival::Http {
            protocol_version: Some("2026-07-28"),
            session: false,
            scopes: None,
            subject: None,
            headers: &headers,
            era: Some(Era::PerRequest),
        };
        let connection = Connection::sessionless(Arc::clone(server));
        let (reply, answers) = Sink::channel();
        connection.handle(jsonrpc::parse(&text.to_string()), arrival, &reply);
        let answer = answers.recv_timeout(Duration::from_secs(10)).map(|m| m.to_text()).unwrap_or_default();
        let refused = connection.refused();
        connection.close();
        (serde_json::from_str(&answer).unwrap_or_default(), refused)
    }

    /// A request with no session enters the one entry point, `handle`, as every other does: its
    /// `_meta` is read there, and its SEP-2243 headers, passed down as data, are checked where its
    /// tool is looked up (an `x-mcp-header` argument's header against the argument).
    #[test]
    fn a_request_without_a_session_is_served_by_handle_its_headers_checked_at_its_tool() {
        let server = Arc::new(Server::new("t", "1.0"));
        let schema = json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
        server.register_tool(Tool::new("region", "Echoes the region", schema), |_, args| {
            Ok(CallToolResult::text(args["region"].as_str().unwrap_or_default()))
        });
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        let routing = [("Mcp-Method", "tools/call"), ("Mcp-Name", "region")];
        let (ok, refused) = call_alone(&server, meta.clone(), &[routing[0], routing[1], ("Mcp-Param-Region", "eu")]);
        assert_eq!(ok["result"]["content"][0]["text"], "eu", "{ok}");
        assert!(!refused);
        let (wrong, refused) = call_alone(&server, meta.clone(), &[routing[0], routing[1], ("Mcp-Param-Region", "us")]);
        assert_eq!(wrong["error"]["code"], HEADER_MISMATCH, "{wrong}");
        assert!(refused, "a header refusal is one before the request ran");
        let (no_meta, refused) = call_alone(&server, json!({}), &routing);
        assert_eq!(no_meta["error"]["code"], error::INVALID_PARAMS, "{no_meta}");
        assert!(refused, "a `_meta` refusal is one before the request ran");
    }

    /// The subject the transport verified reaches the handler as `RequestCx::subject`; a
    /// request without one has none (and nothing read from the message can set it).
    #[test]
    fn the_tokens_subject_reaches_the_handler() {
        let server = Arc::new(Server::new("t", "1.0"));
        server.register_tool(Tool::new("whoami", "Says who called", json!({"type": "object"})), |cx, _| {
            Ok(CallToolResult::text(cx.subject().unwrap_or("nobody")))
        });
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}, "subject": "mallory"});
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}, "_meta": meta}})
        .to_string();
        let granted = ["mcp:use".to_owned()];
        let routing = headers(&[("Mcp-Method", "tools/call"), ("Mcp-Name", "whoami")]);
        let call = |subject: Option<&str>| {
            let arrival = Arrival::Http {
                protocol_version: Some("2026-07-28"),
                session: false,
                scopes: Some(&granted),
                subject,
                headers: &routing,
                era: Some(Era::PerRequest),
            };
            let connection = Connection::sessionless(Arc::clone(&server));
            let (reply, answers) = Sink::channel();
            connection.handle(jsonrpc::parse(&text), arrival, &reply);
            let answer = answers.recv_timeout(Duration::from_secs(10)).map(|m| m.to_text()).unwrap_or_default();
            connection.close();
            let answer = serde_json::from_str::<Value>(&answer).unwrap_or_default();
            answer["result"]["content"][0]["text"].as_str().map(str::to_owned).ok_or(answer)
        };
        assert_eq!(call(Some("alice")), Ok("alice".to_owned()));
        assert_eq!(call(None), Ok("nobody".to_owned()));
    }

    /// A subscription that ends runs the unsubscribe hooks once it no longer counts (so
    /// `has_subscribers` tells whether another remains): a `resources/unsubscribe` of a URI
    /// held (with its request), a session that ends holding it, a listen stream naming it
    /// cancelled; nothing for a URI not held.
    #[test]
    fn a_subscription_that_ends_runs_the_unsubscribe_hooks_once_it_no_longer_counts() {
        let server = Arc::new(Server::new("t", "1.0"));
        let read = |_: &RequestCx, uri: &str| Ok(vec![crate::ResourceContents::text(uri, "text/plain", "")]);
        server.register_resource(crate::Resource::new("test://a", "a"), read);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (noted, watched) = (Arc::clone(&seen), Arc::downgrade(&server));
        server.on_unsubscribe_from(move |uri, by| {
            let others = watched.upgrade().is_some_and(|s| s.has_subscribers(uri));
            noted.lock().unwrap().push((uri.to_owned(), by.is_some(), others));
        });
        let (reply, answers) = Sink::channel();
        let ask = |connection: &Connection, id: u64, method: &str, params: Value| {
            let text = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
            connection.handle_text(&text, &reply);
            let answer = answers.recv_timeout(Duration::from_secs(10)).map(|m| m.to_text()).unwrap_or_default();
            serde_json::from_str::<Value>(&answer).unwrap_or_default()
        };
        let subscribed = |id| {
            let connection = Connection::new(Arc::clone(&server), Sink::channel().0);
            let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
            assert!(ask(&connection, id, "initialize", init)["result"].is_object());
            let done = ask(&connection, id + 1, "resources/subscribe", json!({"uri": "test://a"}));
            assert!(done["result"].is_object(), "{done}");
            connection
        };
        let (a, b) = (subscribed(1), subscribed(3));
        let seen_now = || std::mem::take(&mut *seen.lock().unwrap());
        assert!(ask(&a, 5, "resources/unsubscribe", json!({"uri": "test://a"}))["result"].is_object());
        assert_eq!(seen_now(), [("test://a".to_owned(), true, true)], "b still holds it");
        assert!(ask(&a, 6, "resources/unsubscribe", json!({"uri": "test://a"}))["result"].is_object());
        assert_eq!(seen_now(), [], "not held: nothing ends");
        b.close();
        b.close();
        assert_eq!(seen_now(), [("test://a".to_owned(), false, false)], "once, the last gone");

        let listening = Connection::new(Arc::clone(&server), Sink::channel().0);
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        let text = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": ["test://a"]}, "_meta": meta}});
        listening.handle_text(&text.to_string(), &reply);
        let acknowledged = answers.recv_timeout(Duration::from_secs(10)).map(|m| m.to_text()).unwrap_or_default();
        assert!(acknowledged.contains("acknowledged"), "{acknowledged}");
        assert!(server.has_subscribers("test://a"));
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
        listening.handle_text(&cancel.to_string(), &reply);
        assert_eq!(seen_now(), [("test://a".to_owned(), false, false)]);
        listening.close();
        a.close();
        assert_eq!(seen_now(), [], "nothing held");
    }
}
