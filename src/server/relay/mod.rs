//! A relay: every message of a connection handed to another MCP server (a child process the
//! binary runs for `tinymcp proxy`) instead of to the method table, and its messages back to
//! the right stream. Knows JSON-RPC, sessions and sinks; the other server is a `Peer` that
//! takes lines, never a process or a pipe.
//!
//! Each session has another server of its own, or (`Server::set_shared_relay`) all share one.
//! A 2026-07-28 request, which comes without a session, goes to one other server shared by all
//! such requests. When the client and the other server speak different eras the relay
//! translates (`translate`): the other server is asked once what it speaks (`Upstream`).

mod translate;
mod upstream;

use crate::features::cache::CacheHint;
use crate::server::listen::{Filter, Grant, ListenStream, Listener};
use crate::server::session::{Negotiated, Session};
use crate::server::sink::{Outgoing, Sink};
use crate::server::Options;
use crate::server::Server;
use crate::wire::error::RpcError;
use crate::wire::frame::{Answer, Reply};
use crate::wire::jsonrpc::RequestId;
use crate::wire::jsonrpc::{Incoming, Message, Request};
use crate::wire::meta::RequestMeta;
use crate::wire::protocol::{Cache, Id, ProtocolVersion};
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError};
use translate::{ClientTerms, Speaks};
use upstream::{failed, Body, Logs, Outbound, Resend, Shape, Upstream};

pub use upstream::Relayed;

/// The other server, as the relay sees it: somewhere to send lines.
pub trait Peer: Send + Sync {
    /// Sends one JSON-RPC message (one line, no newline); an error says why it cannot be
    /// taken now (its input is full, or it has ended).
    fn send(&self, line: String) -> Result<(), String>;
    /// Ends the other server: its connection closed.
    fn close(&self);
}

/// Opens one other server; what it writes back goes to `Relayed::deliver`.
pub type OpenPeer = dyn Fn(Relayed) -> Result<Box<dyn Peer>, String> + Send + Sync;

/// What a relaying server was set up with (`Server::set_relay`): how to open another server,
/// whether sessions share one, and the other servers shared by 2026-07-28 requests (and by
/// every session when shared), opened on first use and again after they end.
pub(crate) struct Setup {
    open: Box<OpenPeer>,
    shared: bool,
    /// The shared other servers, by the client capabilities declared to them (`Declared`).
    hubs: Mutex<Vec<Hub>>,
}

/// A shared other server, the capabilities declared to it, and what ends it with the server.
struct Hub {
    declared: Declared,
    up: Arc<Upstream>,
    _ending: Arc<Ending>,
}

/// The client capabilities (sampling, elicitation, roots) a shared other server was
/// initialized with, as bits. A handshake server decides what it may ask of its client on
/// the capabilities `initialize` settled, so 2026-07-28 requests, each with capabilities of its
/// own, are served by one such server per set they declare (eight at most); a server that
/// speaks 2026-07-28 reads them from each request and serves every set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared(u8);

impl Declared {
    const ALL: Declared = Declared(0b111);

    fn of(capabilities: &Value) -> Declared {
        let bit = |i: usize, name: &str| if capabilities.get(name).is_some() { 1 << i } else { 0 };
        Declared(bit(0, "sampling") | bit(1, "elicitation") | bit(2, "roots"))
    }

    fn has(self, name: &str) -> bool {
        let i = match name {
            "sampling" => 0,
            "elicitation" => 1,
            _ => 2,
        };
        self.0 & (1 << i) != 0
    }
}

impl Setup {
    pub(crate) fn new(open: Box<OpenPeer>, shared: bool) -> Setup {
        Setup { open, shared, hubs: Mutex::new(Vec::new()) }
    }

    /// The shared other server for clients that declared `declared` (every session of a shared
    /// relay counts as declaring all: each of the server's requests goes to the session whose
    /// request caused it, which is checked then), opened and asked what it speaks if none runs.
    fn hub(&self, server: &Arc<Server>, declared: Declared) -> Result<Arc<Upstream>, String> {
        let options = server.options();
        let declared = if self.shared { Declared::ALL } else { declared };
        let mut hubs = self.hubs.lock().unwrap_or_else(PoisonError::into_inner);
        hubs.retain(|hub| hub.up.ended().is_none());
        let modern = |up: &Arc<Upstream>| matches!(up.speaks(), Some((Speaks::PerRequest { .. }, _)));
        if let Some(hub) = hubs.iter().find(|hub| hub.declared == declared || modern(&hub.up)) {
            return Ok(Arc::clone(&hub.up));
        }
        let up = Upstream::open(
            &self.open,
            options.max_in_flight,
            true,
            Arc::clone(server.relayed()),
            server.metrics().cloned(),
        )?;
        up.hear_with(Arc::downgrade(server));
        // Sessions speak the handshake: a server shared by them is initialized. One that only
        // 2026-07-28 requests share is asked `server/discover` first, so a server that speaks
        // that revision gets its requests as they are.
        if let Err(e) = settle_own(&up, !self.shared, declared) {
            up.close("it did not settle");
            return Err(e.message);
        }
        let ending = Arc::new(Ending(Arc::clone(&up)));
        server.add_listener(Arc::clone(&ending) as _);
        hubs.push(Hub { declared, up: Arc::clone(&up), _ending: ending });
        Ok(up)
    }
}

/// What a connection asks of a relaying server (`Server::set_relay`). The server holds its
/// `Setup` as this trait object, made only by `set_relay`, so a program that never relays (an
/// embedder's) links none of the relay's code.
pub(crate) trait Relaying: Send + Sync {
    /// The relay of a new connection with a session, to the other server it speaks to.
    fn open(&self, server: &Arc<Server>, session: Arc<Session>) -> Box<dyn ConnectionRelay>;
    /// A 2026-07-28 request with no session, served by the shared other server (`serve_alone`).
    fn serve_alone(&self, server: &Arc<Server>, req: Request, meta: &RequestMeta, reply: &Sink) -> Served;
    /// The input schema of the relayed server's tool `name` (`tool_schema`).
    fn tool_schema(&self, server: &Arc<Server>, meta: &RequestMeta, name: &str) -> Option<Value>;
}

/// A connection's relay as the connection sees it (`Relay`).
pub(crate) trait ConnectionRelay: Send + Sync {
    /// What the server closes to end this relay with it (`Relay::listener`).
    fn listener(&self) -> Option<Arc<dyn Listener>>;
    /// Hands one parsed message (or batch) to the other server (`Relay::handle`).
    fn handle(&self, incoming: Incoming, reply: &Sink);
    /// The connection closed (`Relay::close`).
    fn close(&self);
}

impl Relaying for Setup {
    fn open(&self, server: &Arc<Server>, session: Arc<Session>) -> Box<dyn ConnectionRelay> {
        Box::new(Relay::open(self, server, session))
    }

    fn serve_alone(&self, server: &Arc<Server>, req: Request, meta: &RequestMeta, reply: &Sink) -> Served {
        serve_alone(self, server, req, meta, reply)
    }

    fn tool_schema(&self, server: &Arc<Server>, meta: &RequestMeta, name: &str) -> Option<Value> {
        tool_schema(self, server, meta, name)
    }
}

impl ConnectionRelay for Relay {
    fn listener(&self) -> Option<Arc<dyn Listener>> {
        Relay::listener(self)
    }

    fn handle(&self, incoming: Incoming, reply: &Sink) {
        Relay::handle(self, incoming, reply)
    }

    fn close(&self) {
        Relay::close(self)
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        for hub in self.hubs.get_mut().unwrap_or_else(PoisonError::into_inner).drain(..) {
            hub.up.close("the proxy stopped");
        }
    }
}

/// The cache hint of a 2026-07-28 result, by the method table's `Cache`.
fn hint(options: &Options, cache: Cache) -> Option<CacheHint> {
    match cache {
        Cache::None => None,
        Cache::List => Some(options.list_cache),
        Cache::Read => Some(options.read_cache),
    }
}

/// Asks a shared other server what it speaks, as its one client: `server/discover` first when
/// `discover_first`, then `initialize` (then `notifications/initialized`, and the most
/// detailed log level, so each client's own level can be applied here), else
/// `server/discover` for one that speaks only 2026-07-28.
fn settle_own(up: &Upstream, discover_first: bool, declared: Declared) -> Result<(), RpcError> {
    if discover_first {
        match up.call("server/discover", translate::own_terms()) {
            Ok(discover) if discover.get("supportedVersions").is_some() => {
                log::info!("relay: the proxied server speaks 2026-07-28: its requests pass as they are");
                up.settle(Speaks::PerRequest { discover });
                return Ok(());
            }
            Ok(_) => {}
            Err(e) if e.message.starts_with("the proxied server ended") => return Err(e),
            Err(e) => log::debug!("relay: server/discover refused ({}); trying initialize", e.message),
        }
    }
    let capabilities = ["sampling", "elicitation", "roots"].into_iter().filter(|c| declared.has(c));
    let initialize = translate::own_initialize(capabilities);
    let speaks = match up.call("initialize", initialize).map(Speaks::from_initialize) {
        Ok(Some(speaks)) => {
            let logging =
                matches!(&speaks, Speaks::Handshake { result, .. } if result["capabilities"].get("logging").is_some());
            up.notify("notifications/initialized", &crate::wire::params::Params::default());
            if logging {
                let level = serde_json::json!({"level": "debug"});
                if let Err(e) = up.call("logging/setLevel", level) {
                    log::debug!("relay: logging/setLevel debug refused: {}", e.message);
                }
            }
            speaks
        }
        Ok(None) | Err(_) => {
            let discover = up.call("server/discover", translate::own_terms())?;
            Speaks::PerRequest { discover }
        }
    };
    log::info!("relay: the proxied server speaks {}", describe(&speaks));
    up.settle(speaks);
    Ok(())
}

fn describe(speaks: &Speaks) -> String {
    match speaks {
        Speaks::Handshake { version, .. } => format!("{version} (initialize)"),
        Speaks::PerRequest { .. } => "2026-07-28 only (server/discover)".to_owned(),
    }
}

/// A connection's relay: the other server it speaks to and who it is there.
pub(crate) struct Relay {
    up: Result<Arc<Upstream>, String>,
    client: u64,
    session: Arc<Session>,
    /// What the session's `initialize` settled, for a 2026-07-28 server.
    terms: Mutex<ClientTerms>,
    /// The listen stream held open for the session on a 2026-07-28 server.
    listen: Mutex<Listening>,
    /// What the server closes to end this relay with it (its own other server's).
    ending: Option<Arc<Ending>>,
}

/// What ends another server with the relaying server (a drain out of time, a shutdown):
/// registered as a listener that hears no broadcast (the other server makes its own).
pub(crate) struct Ending(Arc<Upstream>);

impl Listener for Ending {
    fn is_listening(&self) -> bool {
        false
    }

    fn is_subscribed(&self, _: &str) -> bool {
        false
    }

    fn subscriptions(&self) -> Vec<String> {
        Vec::new()
    }

    fn notify(&self, _: &str, _: &Value) {}

    fn close(&self) {
        // Answered now, while their streams are still open: the drain gave up waiting.
        Relayed(Arc::clone(&self.0)).end("the proxy is shutting down and stopped waiting for it");
    }
}

/// A handshake session's listen stream on a 2026-07-28 server: the resources it follows.
#[derive(Default)]
struct Listening {
    stream: Option<RequestId>,
    uris: Vec<String>,
    opened: u64,
}

/// Resources one session may follow at once.
const MAX_SUBSCRIPTIONS: usize = 1024;

impl Relay {
    pub(crate) fn open(setup: &Setup, server: &Arc<Server>, session: Arc<Session>) -> Relay {
        let options = server.options();
        let up = if setup.shared {
            setup.hub(server, Declared::ALL)
        } else {
            Upstream::open(
                &setup.open,
                options.max_in_flight,
                false,
                Arc::clone(server.relayed()),
                server.metrics().cloned(),
            )
            .map_err(|why| {
                log::error!("relay: cannot start the server: {why}");
                why
            })
        };
        let client = up.as_ref().map_or(0, |up| up.new_client());
        if let Ok(up) = &up {
            up.attach(client, &session);
        }
        // Its own other server ends with the relaying server; a shared one has its own `Ending`.
        let ending = match &up {
            Ok(up) if !up.is_shared() => Some(Arc::new(Ending(Arc::clone(up)))),
            _ => None,
        };
        Relay { up, client, session, terms: Mutex::default(), listen: Mutex::default(), ending }
    }

    /// What the server closes to end this relay with it (`Server::add_listener`): a listener
    /// that hears nothing. None for a shared other server, which has its own.
    pub(crate) fn listener(&self) -> Option<Arc<dyn Listener>> {
        self.ending.as_ref().map(|ending| Arc::clone(ending) as _)
    }

    /// Hands one parsed message (or batch) to the other server; answers come through `reply`.
    pub(crate) fn handle(&self, incoming: Incoming, reply: &Sink) {
        match incoming {
            Incoming::Single(message) => self.on_message(message, reply),
            Incoming::Batch(_) => {
                let error = RpcError::invalid_request("batches are not relayed: send one message at a time");
                reply.send(Outgoing::Response(Answer::error(None, error)));
            }
        }
    }

    fn on_message(&self, message: Message, reply: &Sink) {
        let Ok(up) = &self.up else {
            if let Message::Request(req) = message {
                let why = self.up.as_ref().err().cloned().unwrap_or_default();
                let error = failed(format!("the proxied server did not start: {why}"));
                reply.send(Outgoing::Response(Answer::error(Some(&req.id), error)));
            }
            return;
        };
        match message {
            Message::Request(req) => self.on_request(up, req, reply),
            Message::Notification(n) => match n.method.spec().map(|s| s.id) {
                // Spec (cancellation): no answer once cancelled; the other server is told too.
                Some(Id::Cancelled) => {
                    if let Some(id) = super::dispatch::cancelled_request(&n.params) {
                        up.cancel(self.client, &id);
                    }
                }
                // A shared or 2026-07-28 server was initialized by the relay itself, and the
                // latter has no roots list to change (it asks for roots with each call).
                Some(Id::Initialized | Id::RootsListChanged) if !self.forwards_handshake(up) => {}
                _ => up.notify(n.method.as_str(), &n.params),
            },
            Message::Response(res) => up.answer(self.client, res.id, res.outcome),
        }
    }

    /// Whether this session's handshake is the other server's own (its own server, speaking
    /// a handshake revision).
    fn forwards_handshake(&self, up: &Upstream) -> bool {
        !up.is_shared() && !matches!(up.speaks(), Some((Speaks::PerRequest { .. }, _)))
    }

    fn on_request(&self, up: &Upstream, req: Request, reply: &Sink) {
        let refuse = |error: RpcError| reply.send(Outgoing::Response(Answer::error(Some(&req.id), error)));
        let id = req.method.spec().map(|s| s.id);
        if id == Some(Id::Initialize) {
            return match self.initialize(up, &req) {
                Ok(result) => reply.send(Outgoing::Response(Answer::new(req.id, Ok(Reply::Value(result))))),
                Err(error) => refuse(error),
            };
        }
        let (shape, params) = match up.speaks() {
            Some((Speaks::PerRequest { .. }, _)) => {
                let mut terms = self.terms.lock().unwrap_or_else(PoisonError::into_inner);
                match id {
                    // What 2026-07-28 removed is answered here, as the session it belonged to.
                    Some(Id::Ping) => return reply.send(ok(req.id, Value::Object(Default::default()))),
                    Some(Id::LoggingSetLevel) => {
                        match translate::level_of(&req.params.to_value()) {
                            Some(level) => terms.log_level = Some(level),
                            None => return refuse(RpcError::invalid_params("logging/setLevel: unknown level")),
                        }
                        return reply.send(ok(req.id, Value::Object(Default::default())));
                    }
                    // Subscriptions are the session's listen stream's.
                    Some(Id::ResourcesSubscribe | Id::ResourcesUnsubscribe) => {
                        drop(terms);
                        return match self.subscribe(up, id == Some(Id::ResourcesSubscribe), &req.params.to_value()) {
                            Ok(()) => reply.send(ok(req.id, Value::Object(Default::default()))),
                            Err(error) => refuse(error),
                        };
                    }
                    Some(_) if !req.method.spec().is_some_and(|s| s.exists_in(ProtocolVersion::V2026_07_28)) => {
                        return refuse(RpcError::method_not_found(&req.method));
                    }
                    _ => {
                        let params = terms.add_to(req.params.to_value());
                        let resend = Resend { method: req.method.as_str().to_owned(), params: params.clone() };
                        (Shape::Older(resend), Body::Value(params))
                    }
                }
            }
            _ => (Shape::AsIs, Body::Text(&req.params)),
        };
        let out = Outbound {
            client: self.client,
            id: &req.id,
            method: req.method.as_str(),
            params,
            token: crate::wire::meta::progress_token(&req.params),
            reply: reply.clone(),
            shape,
            logs: Logs::All,
        };
        if let Err(error) = up.request(out) {
            refuse(error);
        }
    }

    /// The session's `initialize`: its own server's answer (or, for a server that speaks only
    /// 2026-07-28, one made from its `server/discover`), or the shared server's, settled once.
    /// What it settles is recorded as if this server had.
    fn initialize(&self, up: &Upstream, req: &Request) -> Result<Value, RpcError> {
        if self.session.is_initialized() {
            return Err(RpcError::invalid_request("initialize: this session is already initialized"));
        }
        let params = req.params.to_value();
        let requested = params.get("protocolVersion").and_then(Value::as_str).and_then(ProtocolVersion::parse);
        let terms = ClientTerms::of_initialize(&params);
        let result = match up.speaks() {
            Some((speaks, _)) => speaks.initialize(requested),
            None => match up.call("initialize", params.clone()) {
                Ok(result) => match Speaks::from_initialize(result.clone()) {
                    Some(speaks) => {
                        up.settle(speaks);
                        result
                    }
                    None => {
                        let answered = result.get("protocolVersion").cloned().unwrap_or_default();
                        return Err(failed(format!(
                            "the proxied server answered initialize with revision {answered}, which this proxy does not speak"
                        )));
                    }
                },
                // A server that speaks only 2026-07-28 has no `initialize`.
                Err(e) if e.code == crate::wire::error::METHOD_NOT_FOUND => {
                    let discover = up.call("server/discover", terms.add_to(serde_json::json!({})))?;
                    up.settle(Speaks::PerRequest { discover }).0.initialize(requested)
                }
                Err(e) => return Err(e),
            },
        };
        let version = result.get("protocolVersion").and_then(Value::as_str).and_then(ProtocolVersion::parse);
        let Some(version) = version.filter(|v| v.is_stateful()) else {
            return Err(failed("the proxied server settled no handshake revision".to_owned()));
        };
        let capabilities = Arc::new(terms.capabilities.clone());
        if let Some(name) = terms.info.get("name").and_then(Value::as_str) {
            self.session.set_client(name);
        }
        *self.terms.lock().unwrap_or_else(PoisonError::into_inner) = terms;
        self.session.set_negotiated(Negotiated { version, client_capabilities: capabilities });
        if let Some((Speaks::PerRequest { .. }, _)) = up.speaks() {
            self.relisten(up, &Vec::new());
        }
        Ok(result)
    }

    /// `resources/subscribe` (`on`) or `unsubscribe` of a handshake session on a 2026-07-28
    /// server: the session's listen stream is opened again with the resources it now follows.
    fn subscribe(&self, up: &Upstream, on: bool, params: &Value) -> Result<(), RpcError> {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("uri must be a string"));
        };
        let uris = {
            let mut listen = self.listen.lock().unwrap_or_else(PoisonError::into_inner);
            listen.uris.retain(|u| u != uri);
            if on {
                if listen.uris.len() >= MAX_SUBSCRIPTIONS {
                    return Err(RpcError::invalid_request(format!(
                        "too many subscriptions: at most {MAX_SUBSCRIPTIONS} per session"
                    )));
                }
                listen.uris.push(uri.to_owned());
            }
            listen.uris.clone()
        };
        self.relisten(up, &uris);
        Ok(())
    }

    /// Opens the session's listen stream on a 2026-07-28 server (replacing the one before),
    /// for every list change the server declares and the resources in `uris`.
    fn relisten(&self, up: &Upstream, uris: &[String]) {
        let Some((Speaks::PerRequest { discover }, _)) = up.speaks() else { return };
        let params =
            self.terms.lock().unwrap_or_else(PoisonError::into_inner).add_to(translate::listen_filter(discover, uris));
        let mut listen = self.listen.lock().unwrap_or_else(PoisonError::into_inner);
        listen.opened += 1;
        let id = RequestId::String(format!("tinymcp-listen-{}", listen.opened));
        up.listen(self.client, &id, params, listen.stream.as_ref());
        listen.stream = Some(id);
    }

    /// The connection closed: its own other server ends, a shared one forgets it, and what
    /// waited is answered.
    pub(crate) fn close(&self) {
        if let Ok(up) = &self.up {
            if up.is_shared() {
                up.detach(self.client);
            } else {
                up.close("its session ended");
            }
        }
    }
}

fn ok(id: RequestId, result: Value) -> Outgoing {
    Outgoing::Response(Answer::new(id, Ok(Reply::Value(result))))
}

/// What a 2026-07-28 request served without a session holds in a relay: called when the
/// client has its answer or is gone, it cancels the request at the other server if it is still
/// in flight there.
pub(crate) type Withdraw = Box<dyn Fn() + Send + Sync>;

/// Serves one 2026-07-28 request that came without a session, for its connection with none
/// (`Connection::sessionless`, its `_meta` and headers checked already) on the shared other
/// server: as it is to one that speaks 2026-07-28, translated to one that speaks a handshake
/// revision.
fn serve_alone(setup: &Setup, server: &Arc<Server>, req: Request, meta: &RequestMeta, reply: &Sink) -> Served {
    let options = server.options();
    let refuse = |error: RpcError| reply.send(Outgoing::Response(Answer::error(Some(&req.id), error)));
    let up = match setup.hub(server, Declared::of(&meta.client_capabilities.to_value())) {
        Ok(up) => up,
        Err(why) => {
            refuse(failed(format!("the proxied server did not start: {why}")));
            return Served::Done;
        }
    };
    let spec = req.method.spec();
    let (shape, params) = match up.speaks() {
        Some((Speaks::Handshake { .. }, info)) => {
            match spec.map(|s| s.id) {
                Some(_) if !spec.is_some_and(|s| s.exists_in(ProtocolVersion::V2026_07_28)) => {
                    refuse(RpcError::method_not_found(&req.method));
                    return Served::Done;
                }
                Some(Id::ServerDiscover) => {
                    let discover = up.speaks().map(|(s, _)| s.discover()).unwrap_or_default();
                    let result = crate::server::dispatch::decorate_with(Arc::clone(info), None, Reply::Value(discover));
                    reply.send(Outgoing::Response(Answer::new(req.id, Ok(result))));
                    return Served::Done;
                }
                Some(Id::SubscriptionsListen) => return listen(server, &up, req, reply),
                // The tasks extension has no handshake counterpart (discover does not declare it).
                Some(Id::TasksUpdate) => {
                    refuse(RpcError::method_not_found(&req.method));
                    return Served::Done;
                }
                _ => {}
            }
            let hint = spec.and_then(|s| hint(options, s.cache));
            let shape = Shape::Modern(hint, meta.client_capabilities.to_value(), spec.map(|s| s.id));
            (shape, Body::Value(translate::strip_terms(req.params.to_value())))
        }
        _ => (Shape::AsIs, Body::Text(&req.params)),
    };
    let logs = match meta.log_level {
        Some(level) => Logs::AtLeast(level),
        None => Logs::None,
    };
    let client = up.new_client();
    let out = Outbound {
        client,
        id: &req.id,
        method: req.method.as_str(),
        params,
        token: crate::wire::meta::progress_token(&req.params),
        reply: reply.clone(),
        shape,
        logs,
    };
    // The call again, with the input its server asked for: it resumes where it waits.
    let reserved = req.params.reserved();
    let state = reserved.request_state.filter(|_| matches!(out.shape, Shape::Modern(..)));
    let sent = match state {
        Some(state) => {
            let state: String = serde_json::from_str(state).unwrap_or_default();
            let inputs = reserved.input_responses.and_then(|i| serde_json::from_str::<Value>(i).ok());
            up.resume(&state, inputs.as_ref(), out)
        }
        None => up.request(out),
    };
    match sent {
        Ok(()) => {
            let id = req.id;
            Served::Relayed(Box::new(move || up.cancel(client, &id)))
        }
        Err(error) => {
            refuse(error);
            Served::Done
        }
    }
}

/// The input schema of the relayed server's tool `name`, for the headers of a 2026-07-28
/// request that mirror its arguments (SEP-2243), from the shared server such a request goes
/// to (`None` when the tool is unknown).
fn tool_schema(setup: &Setup, server: &Arc<Server>, meta: &RequestMeta, name: &str) -> Option<Value> {
    let up = setup.hub(server, Declared::of(&meta.client_capabilities.to_value())).ok()?;
    up.tool_schema(name)
}

/// What became of a 2026-07-28 request served without a session.
pub(crate) enum Served {
    /// Answered (or refused) already.
    Done,
    /// In flight at the other server, withdrawn with this.
    Relayed(Withdraw),
    /// A listen stream, open until its client hangs up.
    Listening(Arc<ListenStream>),
}

/// `subscriptions/listen` of a 2026-07-28 client on a handshake server: a listen stream of this
/// server's, which hears the server's list changes and the updates of the resources it names
/// (the server is subscribed to each, once: `Upstream::follow`). What the server does not
/// offer is left out of the honoured filter.
fn listen(server: &Arc<Server>, up: &Upstream, req: Request, reply: &Sink) -> Served {
    let refuse = |error: RpcError| {
        reply.send(Outgoing::Response(Answer::error(Some(&req.id), error)));
        Served::Done
    };
    let Some((Speaks::Handshake { result, .. }, _)) = up.speaks() else { return Served::Done };
    let offered = |key: &str, flag: &str| result["capabilities"][key][flag].as_bool() == Some(true);
    let params = req.params.to_value();
    let asked = |key: &str| params["notifications"][key].as_bool() == Some(true);
    let uris: Vec<String> = match &params["notifications"]["resourceSubscriptions"] {
        Value::Array(uris) if uris.len() <= MAX_SUBSCRIPTIONS => {
            uris.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        Value::Null => Vec::new(),
        _ => {
            return refuse(RpcError::invalid_params(format!(
                "subscriptions/listen: resourceSubscriptions must be an array of at most {MAX_SUBSCRIPTIONS} URIs"
            )))
        }
    };
    if !params["notifications"].is_object() {
        return refuse(RpcError::invalid_params("subscriptions/listen: notifications must be an object (a filter)"));
    }
    let filter = Filter {
        tools_list_changed: offered("tools", "listChanged") && asked("toolsListChanged"),
        prompts_list_changed: offered("prompts", "listChanged") && asked("promptsListChanged"),
        resources_list_changed: offered("resources", "listChanged") && asked("resourcesListChanged"),
        resource_subscriptions: if offered("resources", "subscribe") { uris } else { Vec::new() },
        task_ids: Vec::new(),
    };
    let slot = match server.listen_slots().take(server.options().max_listen_streams) {
        Ok(slot) => slot,
        Err(error) => return refuse(error),
    };
    for uri in &filter.resource_subscriptions {
        up.follow(uri);
    }
    let stream = Arc::new(ListenStream::open(req.id, Grant::new(filter, slot), reply.clone()));
    server.add_listener(Arc::clone(&stream) as _);
    Served::Listening(stream)
}
