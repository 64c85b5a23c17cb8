//! One other server, as the relay speaks to it: the requests of its clients waiting for its
//! answers under ids of its own (so several clients may share it), their progress tokens, its
//! own requests to a client and who took them, and what it settled when first spoken to. Its
//! lines come in through `Relayed::deliver`, from whatever thread reads them.

use super::translate::{self, Speaks};
use super::Peer;
use crate::features::cache::CacheHint;
use crate::server::listen::SUBSCRIPTION_ID;
use crate::server::scope::{self, RequestScope};
use crate::server::session::Session;
use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use crate::util::condition::{Held, InFlight};
use crate::util::metrics::Metrics;
use crate::wire::error::{self, RpcError};
use crate::wire::frame::{self, Answer, Reply};
use crate::wire::jsonrpc::RequestId;
use crate::wire::jsonrpc::{self, Incoming, Message, Notification, Request};
use crate::wire::meta::LogLevel;
use crate::wire::params::Params;
use crate::wire::protocol::{self, Id};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

/// How long the relay waits for the other server's answer to its own requests (`initialize`,
/// `server/discover`): the HTTP session id is minted from what they settle.
pub(crate) const SETTLE_WAIT: Duration = Duration::from_secs(30);

/// Notifications that concern every client of the other server, not one request.
const BROADCAST: [&str; 4] = [
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
];

/// The other server's side of a relay: where its lines arrive, and how it is ended. Cheap to
/// clone.
#[derive(Clone)]
pub struct Relayed(pub(crate) Arc<Upstream>);

/// One other server and what waits for it.
pub(crate) struct Upstream {
    state: Mutex<State>,
    peer: Mutex<Option<Box<dyn Peer>>>,
    /// What it settled when first spoken to.
    speaks: OnceLock<(Speaks, Arc<Box<RawValue>>)>,
    /// Requests of one client in flight at most.
    max_in_flight: usize,
    /// Whether several clients share it (ids and progress tokens are then remapped).
    shared: bool,
    /// The relaying server whose listen streams hear what concerns every client (a shared
    /// server's), held weakly: the server holds this.
    listeners: OnceLock<Weak<Server>>,
    /// Where its answers' latency is counted (the relaying server's metrics).
    metrics: Option<Arc<Metrics>>,
    /// The relaying server's count of client requests in flight (`Server::drain` waits for it).
    in_flight: Arc<InFlight>,
    /// Its tools' input schemas, by name: read on first need, again after it says its list
    /// changed (`tools_stale`, set by the thread that reads its lines, which must never wait
    /// for the lock held while they are read).
    tools: Mutex<Option<Arc<HashMap<String, Value>>>>,
    tools_stale: std::sync::atomic::AtomicBool,
}

/// Pages of `tools/list` read for the tools' input schemas, at most.
const TOOL_PAGES: usize = 16;

#[derive(Default)]
struct State {
    /// The clients' requests waiting for the other server's answer, by the id it was sent as.
    waiting: HashMap<RequestId, Waiting>,
    /// The same, by client and the client's own id.
    by_client: ByClient,
    /// Progress tokens as the other server knows them, to the request's id.
    progress: HashMap<String, RequestId>,
    /// Its own requests to a client, by id, to the client that has them.
    asked: HashMap<RequestId, u64>,
    /// The sessions it serves, by client: what concerns them all reaches each.
    sessions: Vec<(u64, Weak<Session>)>,
    /// Ids, orders and clients are numbered from here.
    next: u64,
    /// When it last wrote a message.
    heard: Option<Instant>,
    /// Why it ended, once it has.
    ended: Option<String>,
    /// 2026-07-28 calls that wait for their client's input, by the `requestState` it was given.
    parked: HashMap<String, Parked>,
    /// Handshake clients' calls whose input is being asked, by number, and their requests to
    /// the client, to the round and the key they answer.
    rounds: HashMap<u64, Round>,
    inputs: HashMap<RequestId, (u64, String)>,
    /// Resources it was subscribed to for listen streams (`follow`).
    followed: std::collections::HashSet<String>,
}

/// Requests in flight by client and the client's own id, to the id the other server knows, with
/// a count per client (its cap is checked at every request).
#[derive(Default)]
struct ByClient {
    ids: HashMap<(u64, RequestId), RequestId>,
    counts: HashMap<u64, usize>,
}

impl ByClient {
    fn insert(&mut self, key: (u64, RequestId), sent_as: RequestId) {
        let client = key.0;
        if self.ids.insert(key, sent_as).is_none() {
            *self.counts.entry(client).or_default() += 1;
        }
    }

    fn remove(&mut self, key: &(u64, RequestId)) -> Option<RequestId> {
        let removed = self.ids.remove(key)?;
        if let Some(count) = self.counts.get_mut(&key.0) {
            *count -= 1;
            if *count == 0 {
                self.counts.remove(&key.0);
            }
        }
        Some(removed)
    }

    fn get(&self, key: &(u64, RequestId)) -> Option<&RequestId> {
        self.ids.get(key)
    }

    fn contains_key(&self, key: &(u64, RequestId)) -> bool {
        self.ids.contains_key(key)
    }

    fn count(&self, client: u64) -> usize {
        self.counts.get(&client).copied().unwrap_or(0)
    }

    fn ids_of(&self, client: u64) -> Vec<RequestId> {
        self.ids.keys().filter(|(c, _)| *c == client).map(|(_, id)| id.clone()).collect()
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.counts.clear();
    }
}

/// Resources a shared server is subscribed to for listen streams, at most.
const MAX_FOLLOWED: usize = 4096;

/// A 2026-07-28 call whose server asked its client for input: it was answered with an
/// `InputRequiredResult`, and waits (still in flight at the other server) for the client to
/// send it again with the input.
struct Parked {
    /// The call, as the other server knows it.
    sent_as: RequestId,
    /// The other server's request the input answers, and where it is in `inputRequests`.
    asked: RequestId,
    key: String,
    request: Value,
    since: Instant,
}

/// Calls waiting for their client's input at once, at most; beyond, the server's request is
/// refused.
const MAX_PARKED: usize = 1024;

struct Waiting {
    reply: Sink,
    /// The client's own id, which its answer carries back.
    client_id: RequestId,
    client: u64,
    order: u64,
    since: Instant,
    /// The progress token as the other server knows it, and the client's own when they differ.
    token: Option<(String, Option<Value>)>,
    shape: Shape,
    logs: Logs,
    /// Answered with an `InputRequiredResult`: waits for its client to come back.
    parked: bool,
    /// Counted in the server's `in_flight` while a client waits for it (not the relay's own
    /// requests, listen streams, or a parked call).
    held: Option<Held>,
    /// The request's log scope (traced), for the line its answer ends it with.
    scope: Option<Arc<RequestScope>>,
    /// Its method's metrics slot, when the relaying server keeps metrics.
    slot: Option<usize>,
}

/// How the other server's answer reaches the client.
pub(crate) enum Shape {
    /// As it came.
    AsIs,
    /// As a 2026-07-28 result (`resultType`, the server's identity, the method's cache hint),
    /// to a client with these capabilities: the server's requests become input-required
    /// rounds.
    Modern(Option<CacheHint>, Arc<Value>, Option<Id>),
    /// To a handshake client, from a 2026-07-28 server: a result that needs the client's input
    /// becomes requests to the client, and the call is sent again with its answers.
    Older(Resend),
    /// A `subscriptions/listen` stream the relay holds open for a handshake session: never in
    /// flight for anyone, its notifications go to the session.
    Listen,
    /// The relay's own request: the outcome goes here.
    Own(mpsc::SyncSender<Result<Value, RpcError>>),
}

/// A handshake client's call to a 2026-07-28 server, kept to be sent again with the client's
/// input.
pub(crate) struct Resend {
    pub(crate) method: String,
    /// Its params with the session's terms.
    pub(crate) params: Value,
}

/// A handshake client's call whose 2026-07-28 server asked for input: the client's answers to
/// the requests it was sent gather here until the call can be sent again.
struct Round {
    reply: Sink,
    client: u64,
    client_id: RequestId,
    resend: Resend,
    state: Option<Value>,
    answers: serde_json::Map<String, Value>,
    left: usize,
}

/// Who caused a message of the other server's that is not an answer (`Upstream::cause`).
enum Cause<'s> {
    /// This client request (the id it was sent as, and what waits for it).
    Request(&'s RequestId, &'s Waiting),
    /// No client request is in flight.
    None,
    /// Requests of this many clients are in flight and the message names none of them.
    Unknown(usize),
}

/// Which of the other server's log messages a request's stream takes.
#[derive(Clone, Copy)]
pub(crate) enum Logs {
    All,
    AtLeast(LogLevel),
    None,
}

/// A client's request on its way to the other server.
pub(crate) struct Outbound<'a> {
    pub(crate) client: u64,
    pub(crate) id: &'a RequestId,
    pub(crate) method: &'a str,
    /// The params to send: as they came, or rewritten.
    pub(crate) params: Body<'a>,
    /// The client's progress token, when it sent one.
    pub(crate) token: Option<Value>,
    pub(crate) reply: Sink,
    pub(crate) shape: Shape,
    pub(crate) logs: Logs,
}

/// Params as they came, or rewritten.
pub(crate) enum Body<'a> {
    Text(&'a Params),
    Value(Value),
}

impl Serialize for Body<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Body::Text(params) => params.serialize(serializer),
            Body::Value(value) => value.serialize(serializer),
        }
    }
}

fn lock(up: &Upstream) -> MutexGuard<'_, State> {
    up.state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An error the client cannot fix by asking again: the other server failed.
pub(crate) fn failed(message: String) -> RpcError {
    RpcError::new(error::INTERNAL_ERROR, message)
}

fn ended(why: &str) -> RpcError {
    failed(format!("the proxied server ended: {why}"))
}

impl Upstream {
    /// Opens the other server with `open`; `shared`: for several clients.
    pub(crate) fn open(
        open: &super::OpenPeer,
        max_in_flight: usize,
        shared: bool,
        in_flight: Arc<InFlight>,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<Arc<Upstream>, String> {
        let up = Arc::new(Upstream {
            state: Mutex::default(),
            peer: Mutex::new(None),
            speaks: OnceLock::new(),
            max_in_flight,
            shared,
            listeners: OnceLock::new(),
            in_flight,
            tools: Mutex::new(None),
            tools_stale: std::sync::atomic::AtomicBool::new(false),
            metrics,
        });
        let peer = open(Relayed(Arc::clone(&up)))?;
        *up.peer.lock().unwrap_or_else(PoisonError::into_inner) = Some(peer);
        Ok(up)
    }

    /// Makes `server`'s listen streams (2026-07-28 clients) hear what concerns every client.
    pub(crate) fn hear_with(&self, server: Weak<Server>) {
        let _ = self.listeners.set(server);
    }

    /// Subscribes the other server to `uri` for the listen streams that follow it, once: it
    /// stays subscribed while it runs (at most `MAX_FOLLOWED` resources).
    pub(crate) fn follow(&self, uri: &str) {
        {
            let mut state = lock(self);
            if state.followed.len() >= MAX_FOLLOWED || !state.followed.insert(uri.to_owned()) {
                return;
            }
        }
        let (reply, _) = Sink::channel();
        let client = self.new_client();
        let id = RequestId::String(format!("tinymcp-follow-{client}"));
        let out = Outbound {
            client,
            id: &id,
            method: "resources/subscribe",
            params: Body::Value(json!({ "uri": uri })),
            token: None,
            reply,
            shape: Shape::Listen,
            logs: Logs::None,
        };
        if let Err(e) = self.request(out) {
            log::warn!("relay: cannot subscribe the server to {uri}: {}", e.message);
        }
    }

    /// The input schema of its tool `name`, its tools listed first if they are not known.
    pub(crate) fn tool_schema(&self, name: &str) -> Option<Value> {
        let stale = self.tools_stale.swap(false, std::sync::atomic::Ordering::SeqCst);
        let known = self.tools.lock().unwrap_or_else(PoisonError::into_inner).clone().filter(|_| !stale);
        let known = match known {
            Some(known) => known,
            None => {
                // Read with no lock held: the answers come through the thread that reads its lines.
                let listed = Arc::new(self.list_tools());
                *self.tools.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&listed));
                listed
            }
        };
        known.get(name).cloned()
    }

    /// Every tool's input schema, by name, from `tools/list` (`TOOL_PAGES` pages at most).
    fn list_tools(&self) -> HashMap<String, Value> {
        let terms = matches!(self.speaks(), Some((Speaks::PerRequest { .. }, _)));
        let mut known = HashMap::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..TOOL_PAGES {
            let mut params = if terms { translate::own_terms() } else { json!({}) };
            if let Some(cursor) = cursor.take() {
                params["cursor"] = cursor;
            }
            let Ok(page) = self.call("tools/list", params) else { break };
            for tool in page["tools"].as_array().into_iter().flatten() {
                if let (Some(name), Some(schema)) = (tool["name"].as_str(), tool.get("inputSchema")) {
                    known.insert(name.to_owned(), schema.clone());
                }
            }
            match page.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => break,
            }
        }
        known
    }

    /// Whether several clients share it.
    pub(crate) fn is_shared(&self) -> bool {
        self.shared
    }

    /// A number for a new client.
    pub(crate) fn new_client(&self) -> u64 {
        let mut state = lock(self);
        state.next += 1;
        state.next
    }

    /// Makes `session` one that hears what concerns every client.
    pub(crate) fn attach(&self, client: u64, session: &Arc<Session>) {
        let mut state = lock(self);
        state.sessions.retain(|(_, s)| s.strong_count() > 0);
        state.sessions.push((client, Arc::downgrade(session)));
    }

    /// What the other server settled, once it has.
    pub(crate) fn speaks(&self) -> Option<&(Speaks, Arc<Box<RawValue>>)> {
        self.speaks.get()
    }

    pub(crate) fn settle(&self, speaks: Speaks) -> &(Speaks, Arc<Box<RawValue>>) {
        let info = speaks.info();
        self.speaks.get_or_init(|| (speaks, info))
    }

    /// Why it ended, if it has.
    pub(crate) fn ended(&self) -> Option<String> {
        lock(self).ended.clone()
    }

    fn send_line(&self, line: String) -> Result<(), String> {
        match self.peer.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
            Some(peer) => peer.send(line),
            None => Err("it has ended".into()),
        }
    }

    /// Sends a client's request; its answer goes to `out.reply` shaped as `out.shape`.
    pub(crate) fn request(&self, out: Outbound<'_>) -> Result<(), RpcError> {
        let refuse_early = {
            let mut state = lock(self);
            if let Some(why) = &state.ended {
                Err(ended(why))
            } else if state.by_client.contains_key(&(out.client, out.id.clone())) {
                Err(RpcError::invalid_request("a request with this id is already in flight"))
            } else if state.by_client.count(out.client) >= self.max_in_flight {
                let max = self.max_in_flight;
                Err(RpcError::invalid_request(format!("too many requests in flight (the limit is {max})")))
            } else {
                state.next += 1;
                let order = state.next;
                // A shared server sees every client's ids: each request gets one of its own.
                let sent_as = if self.shared { RequestId::from(order as i64) } else { out.id.clone() };
                let token = out.token.map(|token| {
                    if self.shared {
                        (format!("\"relay-{order}\""), Some(token))
                    } else {
                        (token.to_string(), None)
                    }
                });
                if let Some((key, _)) = &token {
                    state.progress.insert(key.clone(), sent_as.clone());
                }
                state.by_client.insert((out.client, out.id.clone()), sent_as.clone());
                let counted = !matches!(out.shape, Shape::Own(_) | Shape::Listen);
                let held = counted.then(|| self.in_flight.hold());
                state.waiting.insert(
                    sent_as.clone(),
                    Waiting {
                        reply: out.reply,
                        client_id: out.id.clone(),
                        client: out.client,
                        order,
                        since: Instant::now(),
                        token,
                        shape: out.shape,
                        logs: out.logs,
                        parked: false,
                        held,
                        scope: scope::current(),
                        slot: self.metrics.as_ref().and_then(|_| protocol::spec(out.method)).map(|s| s.id as usize),
                    },
                );
                Ok((sent_as, order))
            }
        };
        let (sent_as, order) = refuse_early?;
        let line = match (self.shared, out.params) {
            (true, Body::Text(params)) if params.meta_keys().is_some_and(|keys| keys.progress_token.is_some()) => {
                let token = json!(format!("relay-{order}"));
                frame::request_text(&sent_as, out.method, &translate::with_token(params.to_value(), &token))
            }
            (true, Body::Value(value)) if value.get("_meta").and_then(|m| m.get("progressToken")).is_some() => {
                let token = json!(format!("relay-{order}"));
                frame::request_text(&sent_as, out.method, &translate::with_token(value, &token))
            }
            (_, params) => frame::request_text(&sent_as, out.method, &params),
        };
        if let Err(why) = self.send_line(line) {
            self.forget(&sent_as);
            return Err(failed(format!("the proxied server cannot take the request: {why}")));
        }
        Ok(())
    }

    /// Forgets a request in flight (answered, cancelled, or never sent): what waited for it.
    fn forget(&self, sent_as: &RequestId) -> Option<Waiting> {
        let mut state = lock(self);
        let waiting = state.waiting.remove(sent_as)?;
        state.by_client.remove(&(waiting.client, waiting.client_id.clone()));
        if let Some((key, _)) = &waiting.token {
            state.progress.remove(key);
        }
        Some(waiting)
    }

    /// The relay's own request, answered within `SETTLE_WAIT`.
    pub(crate) fn call(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let (tx, rx) = mpsc::sync_channel(1);
        let client = self.new_client();
        let id = RequestId::String(format!("tinymcp-relay-{client}"));
        let (reply, _) = Sink::channel();
        let out = Outbound {
            client,
            id: &id,
            method,
            params: Body::Value(params),
            token: None,
            reply,
            shape: Shape::Own(tx),
            logs: Logs::None,
        };
        self.request(out)?;
        match rx.recv_timeout(SETTLE_WAIT) {
            Ok(outcome) => outcome,
            Err(RecvTimeoutError::Timeout) => {
                self.cancel(client, &id);
                Err(failed(format!("the proxied server did not answer {method} within {SETTLE_WAIT:?}")))
            }
            Err(RecvTimeoutError::Disconnected) => Err(ended(&self.ended().unwrap_or_else(|| "no answer".to_owned()))),
        }
    }

    /// Sends a client's notification as it came (`notifications/cancelled` is `cancel`).
    pub(crate) fn notify(&self, method: &str, params: &Params) {
        if let Err(why) = self.send_line(frame::notification(method, params)) {
            log::warn!("relay: a notification to the server was dropped: {why}");
        }
    }

    /// The client cancelled its request `id`: no answer reaches it, and the other server is
    /// told under the id it knows.
    pub(crate) fn cancel(&self, client: u64, id: &RequestId) {
        let sent_as = lock(self).by_client.get(&(client, id.clone())).cloned();
        let Some(sent_as) = sent_as else { return };
        self.forget(&sent_as);
        let params = json!({"requestId": sent_as, "reason": "cancelled by the client"});
        if let Err(why) = self.send_line(frame::notification("notifications/cancelled", &params)) {
            log::debug!("relay: the cancellation was not delivered: {why}");
        }
    }

    /// A client's answer to one of the other server's requests: passed on if that client was
    /// the one asked.
    pub(crate) fn answer(&self, client: u64, id: RequestId, outcome: Result<Value, RpcError>) {
        // An answer to a request the relay made for a 2026-07-28 server's input round.
        let outcome = match self.input_answered(client, &id, outcome) {
            Ok(()) => return,
            Err(outcome) => outcome,
        };
        let asked = lock(self).asked.remove(&id);
        if asked != Some(client) {
            if let Some(other) = asked {
                lock(self).asked.insert(id.clone(), other);
            }
            return log::warn!("relay: an answer to {id}, which was not asked of this client; dropped");
        }
        let line = Answer::new(id, outcome.map(Reply::Value)).to_text();
        if let Err(why) = self.send_line(line) {
            log::warn!("relay: an answer to the server was dropped: {why}");
        }
    }

    /// A client is gone: its requests are forgotten (the other server is told they are
    /// cancelled) and it no longer hears broadcasts.
    pub(crate) fn detach(&self, client: u64) {
        let ids: Vec<RequestId> = {
            let mut state = lock(self);
            state.sessions.retain(|(c, s)| *c != client && s.strong_count() > 0);
            state.asked.retain(|_, c| *c != client);
            let gone: Vec<u64> = state.rounds.iter().filter(|(_, r)| r.client == client).map(|(n, _)| *n).collect();
            for round in gone {
                state.rounds.remove(&round);
                state.inputs.retain(|_, (r, _)| *r != round);
            }
            state.by_client.ids_of(client)
        };
        for id in ids {
            self.cancel(client, &id);
        }
    }

    /// Ends the other server: its process goes, and what waited for it is answered.
    pub(crate) fn close(&self, why: &str) {
        let peer = self.peer.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(peer) = peer {
            peer.close();
        }
        Relayed::end_upstream(self, why);
    }

    /// The client request a message of the other server's that is not an answer belongs to.
    /// JSON-RPC links nothing to its cause, so it is named only when it can be told: the
    /// request whose progress token the message carries (`_meta.progressToken`), else, when
    /// the requests in flight are all one client's, that client's latest. Never guessed
    /// between clients.
    fn cause<'s>(state: &'s State, params: &Params) -> Cause<'s> {
        let counted = |w: &Waiting| !w.parked && !matches!(w.shape, Shape::Own(_) | Shape::Listen);
        let named = crate::wire::meta::progress_token(params)
            .and_then(|token| state.progress.get_key_value(&token.to_string()))
            .and_then(|(_, id)| state.waiting.get_key_value(id))
            .filter(|(_, w)| counted(w));
        if let Some((id, waiting)) = named {
            return Cause::Request(id, waiting);
        }
        let mut in_flight = state.waiting.iter().filter(|(_, w)| counted(w));
        let Some(first) = in_flight.next() else { return Cause::None };
        let mut latest = first;
        for (id, waiting) in in_flight {
            if waiting.client != first.1.client {
                let clients: std::collections::HashSet<u64> =
                    state.waiting.values().filter(|w| counted(w)).map(|w| w.client).collect();
                return Cause::Unknown(clients.len());
            }
            if waiting.order > latest.1.order {
                latest = (id, waiting);
            }
        }
        Cause::Request(latest.0, latest.1)
    }

    /// The other server asked the client of the 2026-07-28 call `call` (the id it was sent as)
    /// for input (`request`, its request `asked`): that call is answered with an `InputRequiredResult` naming it,
    /// and waits, in flight, for the client to send it again with the input
    /// (`resume`). Refused when the client did not declare the capability the request needs.
    fn park(
        &self,
        mut state: MutexGuard<'_, State>,
        call: &RequestId,
        asked: RequestId,
        request: Value,
    ) -> Result<(), String> {
        let method = request["method"].as_str().unwrap_or_default().to_owned();
        expire(&mut state, self);
        if state.parked.len() >= MAX_PARKED {
            return Err(format!("{method}: {MAX_PARKED} calls already wait for their client's input"));
        }
        let Some(call) = state.waiting.get_mut(call).filter(|w| !w.parked) else {
            return Err(format!("{method}: the call that caused it is no longer in flight"));
        };
        let Shape::Modern(_, caps, _) = &call.shape else { return Err(format!("{method}: not a 2026-07-28 call")) };
        if let Some(cap) = translate::lacking(&method, &request["params"], caps) {
            return Err(format!("{method}: the client did not declare the {cap} capability"));
        }
        let state_token = crate::util::random::hex_token(16).map_err(|e| format!("no randomness: {e}"))?;
        let key = translate::input_key(&method);
        call.parked = true;
        call.held = None;
        let (reply, client, client_id) = (call.reply.clone(), call.client, call.client_id.clone());
        call.reply = Sink::channel().0;
        let sent_as = state.by_client.remove(&(client, client_id.clone())).unwrap_or_else(|| client_id.clone());
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {key.as_str(): request},
            "requestState": state_token,
        });
        state.parked.insert(state_token, Parked { sent_as, asked, key, request, since: Instant::now() });
        drop(state);
        let result = match self.speaks() {
            Some((_, info)) => crate::server::dispatch::decorate_with(Arc::clone(info), None, Reply::Value(result)),
            None => Reply::Value(result),
        };
        reply.send(Outgoing::Response(Answer::new(client_id, Ok(result))));
        Ok(())
    }

    /// A 2026-07-28 call sent again with the `requestState` `park` gave it: the input it
    /// carries for the parked request goes to the other server, and the call, still in flight
    /// there, is this request's again (its answer, or the next input-required round, comes
    /// here). Input that answers nothing asked gets the same request again, under a new state.
    pub(crate) fn resume(&self, state_token: &str, inputs: Option<&Value>, out: Outbound<'_>) -> Result<(), RpcError> {
        let mut state = lock(self);
        expire(&mut state, self);
        let Some(parked) = state.parked.remove(state_token) else {
            return Err(RpcError::invalid_params(
                "requestState: unknown, expired or already used (it is valid once, at the proxy that issued it)",
            ));
        };
        let input = inputs.and_then(|i| i.get(&parked.key)).cloned();
        state.next += 1;
        let order = state.next;
        let Some(call) = state.waiting.get_mut(&parked.sent_as) else {
            return Err(failed("the proxied server no longer runs this call".to_owned()));
        };
        call.reply = out.reply;
        call.client = out.client;
        call.client_id = out.id.clone();
        call.logs = out.logs;
        call.shape = out.shape;
        call.parked = false;
        call.held = Some(self.in_flight.hold());
        call.order = order;
        call.since = Instant::now();
        state.by_client.insert((out.client, out.id.clone()), parked.sent_as.clone());
        let Some(input) = input else {
            // Nothing for the request asked: it is asked again.
            return self.park(state, &parked.sent_as, parked.asked, parked.request).map_err(failed);
        };
        drop(state);
        let line = Answer::new(parked.asked, Ok(Reply::Value(input))).to_text();
        self.send_line(line).map_err(|why| failed(format!("the proxied server cannot take the input: {why}")))
    }

    /// A 2026-07-28 server answered a handshake client's call with an `InputRequiredResult`:
    /// each of its input requests goes to the client as a request of the server's own, and once
    /// all are answered the call is sent again with them (`input_answered`).
    fn ask_client(&self, reply: Sink, client: u64, client_id: RequestId, resend: Resend, result: Value) {
        let asked = result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut state = lock(self);
        if state.rounds.len() >= MAX_PARKED {
            drop(state);
            let error = failed(format!("{MAX_PARKED} calls already wait for their client's input"));
            return reply.send(Outgoing::Response(Answer::error(Some(&client_id), error)));
        }
        state.next += 1;
        let round = state.next;
        let mut lines = Vec::with_capacity(asked.len());
        for (key, request) in &asked {
            state.next += 1;
            let id = RequestId::String(format!("tinymcp-input-{}", state.next));
            let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
            lines.push(frame::request_text(&id, method, request.get("params").unwrap_or(&json!({}))));
            state.inputs.insert(id, (round, key.clone()));
        }
        let left = lines.len();
        let entry = Round {
            reply: reply.clone(),
            client,
            client_id,
            resend,
            state: result.get("requestState").cloned(),
            answers: serde_json::Map::new(),
            left,
        };
        state.rounds.insert(round, entry);
        drop(state);
        if left == 0 {
            return self.send_again(round);
        }
        for line in lines {
            reply.send(Outgoing::Request(line));
        }
    }

    /// The client answered one of the requests `ask_client` sent it: once every one is, the
    /// call goes again with the answers (an error ends the call with it).
    /// Hands `outcome` back when `id` is no request of an input round of this client's.
    fn input_answered(
        &self,
        client: u64,
        id: &RequestId,
        outcome: Result<Value, RpcError>,
    ) -> Result<(), Result<Value, RpcError>> {
        let mut state = lock(self);
        let Some((round, key)) = state.inputs.get(id).cloned() else { return Err(outcome) };
        if state.rounds.get(&round).is_none_or(|r| r.client != client) {
            return Err(outcome);
        }
        state.inputs.remove(id);
        let Some(entry) = state.rounds.get_mut(&round) else { return Ok(()) };
        match outcome {
            Ok(answer) => {
                entry.answers.insert(key, answer);
                entry.left = entry.left.saturating_sub(1);
                if entry.left == 0 {
                    drop(state);
                    self.send_again(round);
                }
            }
            Err(error) => {
                let Some(entry) = state.rounds.remove(&round) else { return Ok(()) };
                state.inputs.retain(|_, (r, _)| *r != round);
                drop(state);
                let error = RpcError::new(
                    error.code,
                    format!("the client refused the server's {key} request: {}", error.message),
                );
                entry.reply.send(Outgoing::Response(Answer::error(Some(&entry.client_id), error)));
            }
        }
        Ok(())
    }

    fn send_again(&self, round: u64) {
        let Some(entry) = lock(self).rounds.remove(&round) else { return };
        let mut params = entry.resend.params.clone();
        if let Some(object) = params.as_object_mut() {
            object.insert("inputResponses".into(), Value::Object(entry.answers));
            match entry.state {
                Some(state) => object.insert("requestState".into(), state),
                None => object.remove("requestState"),
            };
        }
        let token = params.get("_meta").and_then(|m| m.get("progressToken")).cloned();
        let method = entry.resend.method.clone();
        let out = Outbound {
            client: entry.client,
            id: &entry.client_id,
            method: &method,
            params: Body::Value(params.clone()),
            token,
            reply: entry.reply.clone(),
            shape: Shape::Older(Resend { method: entry.resend.method, params }),
            logs: Logs::All,
        };
        if let Err(error) = self.request(out) {
            entry.reply.send(Outgoing::Response(Answer::error(Some(&entry.client_id), error)));
        }
    }

    /// Opens (or replaces) the `subscriptions/listen` stream of a handshake session with a
    /// 2026-07-28 server: `params` say what it listens for; `old`, the stream it replaces.
    pub(crate) fn listen(&self, client: u64, id: &RequestId, params: Value, old: Option<&RequestId>) {
        if let Some(old) = old {
            self.cancel(client, old);
        }
        let (reply, _) = Sink::channel();
        let out = Outbound {
            client,
            id,
            method: "subscriptions/listen",
            params: Body::Value(params),
            token: None,
            reply,
            shape: Shape::Listen,
            logs: Logs::None,
        };
        if let Err(e) = self.request(out) {
            log::warn!("relay: cannot listen for the session's notifications: {}", e.message);
        }
    }

    fn on_answer(&self, id: RequestId, outcome: Result<Value, RpcError>) {
        let Some(waiting) = self.forget(&id) else {
            return log::debug!("relay: answer to {id} that no one waits for (cancelled); dropped");
        };
        if let Some(metrics) = &self.metrics {
            metrics.upstream(waiting.since.elapsed());
            // A client's request (not the relay's own, not a listen stream) counts as one served.
            if !matches!(waiting.shape, Shape::Own(_) | Shape::Listen) {
                let code = outcome.as_ref().map(|_| ()).map_err(|e| e.code);
                metrics.request(waiting.slot, Some(waiting.since), Some(code));
            }
        }
        let outcome = match waiting.shape {
            Shape::Own(tx) => {
                let _ = tx.try_send(outcome);
                return;
            }
            Shape::AsIs => outcome.map(Reply::Value),
            Shape::Modern(hint, _, method) => match (outcome, self.speaks()) {
                (Ok(result @ Value::Object(_)), Some((_, info))) => {
                    Ok(crate::server::dispatch::decorate_with(Arc::clone(info), hint, Reply::Value(result)))
                }
                (Err(error), _) => Err(translate::newer_error(method, error)),
                (outcome, _) => outcome.map(Reply::Value),
            },
            Shape::Older(resend) => match outcome {
                Ok(result) if translate::needs_input(&result) => {
                    return self.ask_client(waiting.reply, waiting.client, waiting.client_id, resend, result)
                }
                Err(error) => Err(translate::older_error(&resend.method, error)),
                Ok(result) => Ok(Reply::Value(result)),
            },
            Shape::Listen => return log::debug!("relay: a subscriptions/listen stream ended"),
        };
        if let Some(scope) = &waiting.scope {
            let _in = scope::enter(scope);
            scope::answered(scope, outcome.as_ref().err().map(|e| e.code), " by the proxied server");
        }
        waiting.reply.send(Outgoing::Response(Answer::new(waiting.client_id, outcome)));
    }

    fn on_notification(&self, n: Notification, line: &str) {
        let method = n.method.as_str();
        let state = lock(self);
        // A frame of a `subscriptions/listen` stream a 2026-07-28 client opened through the
        // relay: to that stream, under the id the client gave it.
        let stream = subscription_of(&n.params).and_then(|id| state.waiting.get(&id).map(|w| (id, w)));
        if let Some((sent_as, listen)) = stream.filter(|(_, w)| !matches!(w.shape, Shape::Listen)) {
            let line = if sent_as == listen.client_id {
                line.to_owned()
            } else {
                let mut params = n.params.to_value();
                params["_meta"][SUBSCRIPTION_ID] = json!(listen.client_id);
                frame::notification(method, &params)
            };
            let reply = listen.reply.clone();
            drop(state);
            return reply.send(Outgoing::Notification(line));
        }
        if method == "notifications/progress" {
            let key = progress_of(&n.params).map(|t| t.to_string());
            let owner = key.and_then(|k| state.progress.get(&k)).and_then(|id| state.waiting.get(id));
            let Some(owner) = owner else {
                return log::debug!("relay: progress for no request in flight; dropped");
            };
            let line = match &owner.token {
                Some((_, Some(theirs))) => {
                    let mut params = n.params.to_value();
                    params["progressToken"] = theirs.clone();
                    frame::notification(method, &params)
                }
                _ => line.to_owned(),
            };
            let reply = owner.reply.clone();
            drop(state);
            return reply.send(Outgoing::Notification(line));
        }
        if method == "notifications/tools/list_changed" {
            self.tools_stale.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        // A listen stream the relay opened for a handshake session: its acknowledgement is the
        // relay's, and a handshake client knows no such notification.
        if method == "notifications/subscriptions/acknowledged" {
            return;
        }
        let cause = Self::cause(&state, &n.params);
        let broadcast = BROADCAST.contains(&method) || (self.shared && matches!(cause, Cause::None));
        if broadcast && self.shared {
            let sessions: Vec<Arc<Session>> = state.sessions.iter().filter_map(|(_, s)| s.upgrade()).collect();
            drop(state);
            for session in sessions {
                session.notifier().send(Outgoing::Notification(line.to_owned()));
            }
            if let Some(server) = self.listeners.get().and_then(Weak::upgrade) {
                server.relay_broadcast(method, &n.params.to_value());
            }
            return;
        }
        let sink = match cause {
            Cause::Request(_, w) if method == "notifications/message" => match w.logs {
                Logs::All => Some(w.reply.clone()),
                Logs::AtLeast(least) => {
                    let level = n.params.to_value().get("level").and_then(Value::as_str).and_then(LogLevel::parse);
                    level.filter(|l| *l >= least).map(|_| w.reply.clone())
                }
                Logs::None => None,
            },
            Cause::Request(_, w) if matches!(w.shape, Shape::Modern(..)) => None,
            Cause::Request(_, w) => Some(w.reply.clone()),
            Cause::None => state.sessions.first().and_then(|(_, s)| s.upgrade()).map(|s| s.notifier()),
            Cause::Unknown(clients) => {
                return log::debug!(
                    "relay: {method} names no request ({clients} clients have requests in flight); dropped"
                );
            }
        };
        drop(state);
        match sink {
            Some(sink) => sink.send(Outgoing::Notification(line.to_owned())),
            None => log::debug!("relay: {method} for no client that takes it; dropped"),
        }
    }

    fn on_request(&self, req: Request, line: &str) {
        let method = req.method.as_str().to_owned();
        let refusal = {
            let mut state = lock(self);
            let target = match Self::cause(&state, &req.params) {
                Cause::Request(call, w) => {
                    Ok((w.client, w.reply.clone(), matches!(w.shape, Shape::Modern(..)).then(|| call.clone())))
                }
                // A server's own session: its requests go to the session's stream.
                Cause::None if !self.shared => state
                    .sessions
                    .first()
                    .and_then(|(c, s)| s.upgrade().map(|s| (*c, s.notifier(), None)))
                    .ok_or_else(|| (error::METHOD_NOT_FOUND, format!("{method}: its session has ended"))),
                Cause::None => Err((error::METHOD_NOT_FOUND, format!(
                    "{method}: no client request is in flight to carry it to (this proxy sends a server's requests to the client whose request caused them)"
                ))),
                // Never guessed: the wrong client would see (and could answer) another's prompt.
                Cause::Unknown(clients) => Err((error::INVALID_REQUEST, format!(
                    "{method}: the proxy cannot tell which client's request caused it ({clients} clients have requests in flight on this server and it names none by its progress token), so it is refused rather than sent to a client that may not be its own"
                ))),
            };
            match target {
                Err(refusal) => Some(refusal),
                Ok((_, _, Some(call))) => {
                    let request = json!({"method": method, "params": req.params.to_value()});
                    self.park(state, &call, req.id.clone(), request).err().map(|why| (error::METHOD_NOT_FOUND, why))
                }
                Ok((client, reply, None)) => {
                    let session = state.sessions.iter().find(|(c, _)| *c == client).and_then(|(_, s)| s.upgrade());
                    let declared = session.and_then(|s| s.negotiated()).map(|n| n.client_capabilities);
                    let params = req.params.to_value();
                    let lacking = declared.and_then(|d| translate::lacking(&method, &params, &d));
                    match lacking {
                        Some(cap) => Some((
                            error::METHOD_NOT_FOUND,
                            format!("{method}: the client did not declare the {cap} capability"),
                        )),
                        None => {
                            state.asked.insert(req.id.clone(), client);
                            drop(state);
                            reply.send(Outgoing::Request(line.to_owned()));
                            None
                        }
                    }
                }
            }
        };
        if let Some((code, why)) = refusal {
            log::warn!("relay: the server's request refused: {why}");
            let error = RpcError::new(code, why);
            if let Err(e) = self.send_line(Answer::error(Some(&req.id), error).to_text()) {
                log::debug!("relay: the refusal was not delivered: {e}");
            }
        }
    }
}

impl Relayed {
    /// One line the other server wrote: an answer goes to the request it answers, a
    /// notification with a progress token to that request's stream, what concerns every
    /// client to each (a shared server's list changes and resource updates), anything else
    /// (its own requests, logs) to the client request that caused it (`Upstream::cause`: the
    /// one its progress token names, or the one client with requests in flight), or the
    /// session's stream when none is in flight; when no single client can be named, a request
    /// is refused and a notification dropped. A line that is not JSON-RPC is logged and dropped.
    pub fn deliver(&self, line: &str) {
        let message = match jsonrpc::parse(line) {
            Ok(Incoming::Single(message)) => message,
            Ok(Incoming::Batch(_)) => return log::warn!("relay: the server sent a batch; dropped"),
            Err(bad) => {
                return log::warn!(
                    "relay: the server wrote a line that is not JSON-RPC ({}); dropped",
                    bad.error.message
                )
            }
        };
        lock(&self.0).heard = Some(Instant::now());
        match message {
            Message::Response(res) => self.0.on_answer(res.id, res.outcome),
            Message::Notification(n) => self.0.on_notification(n, line),
            Message::Request(req) => self.0.on_request(req, line),
        }
    }

    /// The other server wrote a line over the longest taken from it, of which `head` is the
    /// beginning: when that beginning shows an answer and its id, the request it answers fails
    /// at once with `why` (the other server goes on); when it shows a request of the other
    /// server's, that request is refused with `why`. False when neither can be told (the line
    /// is then dropped as any other).
    pub fn too_long(&self, head: &[u8], why: &str) -> bool {
        let jsonrpc::Head { id: Some(id), answer: Some(answer) } = jsonrpc::head(head) else { return false };
        lock(&self.0).heard = Some(Instant::now());
        if answer {
            self.0.on_answer(id, Err(failed(format!("the proxied server's answer was dropped: {why}"))));
        } else {
            let error = RpcError::invalid_request(format!("this request was dropped by the proxy: {why}"));
            if let Err(e) = self.0.send_line(Answer::error(Some(&id), error).to_text()) {
                log::debug!("relay: the refusal was not delivered: {e}");
            }
        }
        true
    }

    /// The other server is gone (it exited, or hung and was ended): every request in flight is
    /// answered with an error saying `why`, and its sessions end, so their clients start anew.
    pub fn end(&self, why: &str) {
        Relayed::end_upstream(&self.0, why);
    }

    fn end_upstream(up: &Upstream, why: &str) {
        let (waiting, sessions) = {
            let mut state = lock(up);
            if state.ended.is_none() {
                state.ended = Some(why.to_owned());
            }
            state.progress.clear();
            state.by_client.clear();
            state.asked.clear();
            let sessions: Vec<Arc<Session>> = state.sessions.drain(..).filter_map(|(_, s)| s.upgrade()).collect();
            (state.waiting.drain().map(|(_, w)| w).collect::<Vec<_>>(), sessions)
        };
        // The sessions end first: a client that has its error and tries again finds it gone.
        for session in sessions {
            session.close();
        }
        for waiting in waiting {
            match waiting.shape {
                Shape::Own(tx) => drop(tx.try_send(Err(ended(why)))),
                _ => waiting.reply.send(Outgoing::Response(Answer::error(Some(&waiting.client_id), ended(why)))),
            }
        }
    }

    /// Whether requests have waited `longer` than this with nothing heard from the other
    /// server meanwhile: it hangs.
    pub fn stalled(&self, longer: Duration) -> bool {
        let state = lock(&self.0);
        let waited = state.waiting.values().filter(|w| !w.parked && !matches!(w.shape, Shape::Listen));
        let Some(oldest) = waited.map(|w| w.since).min() else { return false };
        let quiet = state.heard.map_or(oldest, |heard| heard.max(oldest));
        quiet.elapsed() > longer
    }
}

/// The listen stream a notification from the other server belongs to, by the
/// `_meta["io.modelcontextprotocol/subscriptionId"]` it carries.
fn subscription_of(params: &Params) -> Option<RequestId> {
    let meta = params.meta_text()?;
    let meta: Value = serde_json::from_str(meta).ok()?;
    RequestId::from_value(meta.get(SUBSCRIPTION_ID)?)
}

/// The `progressToken` of a `notifications/progress` from the other server.
fn progress_of(params: &Params) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Progress {
        #[serde(rename = "progressToken")]
        token: Value,
    }
    params.parse::<Progress>().ok().map(|p| p.token)
}

/// Calls whose client has not come back with its input within `PARKED_FOR` are given up: the
/// other server's request gets an error and the call is cancelled there.
fn expire(state: &mut State, up: &Upstream) {
    let expired: Vec<String> =
        state.parked.iter().filter(|(_, p)| p.since.elapsed() > PARKED_FOR).map(|(k, _)| k.clone()).collect();
    for key in expired {
        let Some(parked) = state.parked.remove(&key) else { continue };
        state.waiting.remove(&parked.sent_as);
        let error = RpcError::new(error::INTERNAL_ERROR, "the client did not send the input in time");
        let refused = Answer::error(Some(&parked.asked), error).to_text();
        let cancelled = frame::notification(
            "notifications/cancelled",
            &json!({"requestId": parked.sent_as, "reason": "the client did not send the input in time"}),
        );
        for line in [refused, cancelled] {
            if let Err(why) = up.send_line(line) {
                log::debug!("relay: {why}");
            }
        }
    }
}

/// How long a call waits for its client's input (`requestState`'s life at the proxy).
const PARKED_FOR: Duration = Duration::from_secs(10 * 60);

#[cfg(test)]
mod tests {
    use super::{jsonrpc, Body, Logs, Outbound, RequestId, Shape, Upstream};
    use crate::server::relay::Peer;
    use crate::server::sink::{Outgoing, Sink};
    use serde_json::{json, Value};
    use std::sync::mpsc::Receiver;
    use std::sync::{Arc, Mutex};

    /// Another server that keeps the lines sent to it.
    struct Lines(Arc<Mutex<Vec<String>>>);

    impl Peer for Lines {
        fn send(&self, line: String) -> Result<(), String> {
            self.0.lock().unwrap().push(line);
            Ok(())
        }
        fn close(&self) {}
    }

    /// Sends client `client`'s call with id 1 and a progress token; where its messages go.
    fn call(up: &Upstream, client: u64, token: &str) -> Receiver<Outgoing> {
        let (reply, heard) = Sink::channel();
        let out = Outbound {
            client,
            id: &RequestId::from(1),
            method: "tools/call",
            params: Body::Value(json!({"name": "t", "_meta": {"progressToken": token}})),
            token: Some(json!(token)),
            reply,
            shape: Shape::AsIs,
            logs: Logs::All,
        };
        up.request(out).unwrap();
        heard
    }

    fn requests(heard: &Receiver<Outgoing>) -> Vec<String> {
        heard.try_iter().filter_map(|o| if let Outgoing::Request(line) = o { Some(line) } else { None }).collect()
    }

    // A shared server's request reaches the client whose call its progress token names, or the
    // only client with calls in flight; between two clients it names neither of, it is refused
    // to the server and reaches no one.
    #[test]
    fn a_servers_request_goes_to_the_client_that_caused_it_or_is_refused() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&sent);
        let up = Upstream::open(&move |_| Ok(Box::new(Lines(Arc::clone(&lines))) as _), 8, true, Arc::default(), None)
            .unwrap();
        let (a, b) = (up.new_client(), up.new_client());
        let (heard_a, heard_b) = (call(&up, a, "same"), call(&up, b, "same"));
        // What the server knows of each call: its id and its token, remapped.
        let calls: Vec<Value> = sent.lock().unwrap().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        let token_of_b = calls[1]["params"]["_meta"]["progressToken"].clone();
        let ask = |id: &str, meta: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {"message": id, "_meta": meta}})
                .to_string()
        };
        let relayed = super::Relayed(Arc::clone(&up));

        relayed.deliver(&ask("named", json!({"progressToken": token_of_b})));
        assert!(requests(&heard_a).is_empty());
        assert_eq!(requests(&heard_b).len(), 1, "the call its token names");

        relayed.deliver(&ask("unnamed", json!({})));
        assert!(requests(&heard_a).is_empty() && requests(&heard_b).is_empty(), "guessed");
        let refusal: Value = serde_json::from_str(sent.lock().unwrap().last().unwrap()).unwrap();
        assert_eq!(refusal["id"], "unnamed");
        assert_eq!(refusal["error"]["code"], -32600, "{refusal}");

        // B's call answered: A's is the only one in flight, so the cause.
        let b_sent_as = calls[1]["id"].clone();
        relayed.deliver(&json!({"jsonrpc": "2.0", "id": b_sent_as, "result": {}}).to_string());
        relayed.deliver(&ask("only", json!({})));
        assert_eq!(requests(&heard_a).len(), 1);
        assert!(requests(&heard_b).is_empty());
    }

    fn head(text: &str) -> (Option<RequestId>, Option<bool>) {
        let seen = jsonrpc::head(text.as_bytes());
        (seen.id, seen.answer)
    }

    // The beginning of a line cut at the limit: the id and the kind are read where they come
    // before the cut, never guessed after it.
    #[test]
    fn the_beginning_of_a_long_line_tells_its_id_and_kind() {
        let answer = r#"{"jsonrpc":"2.0","id":7,"result":{"contents":[{"text":"aaaa"#;
        assert_eq!(head(answer), (Some(RequestId::from(7)), Some(true)));
        let error = r#"{"id":"x","jsonrpc":"2.0","error":{"code":1,"message":"aaa"#;
        assert_eq!(head(error), (Some(RequestId::String("x".into())), Some(true)));
        let request = r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"a":"#;
        assert_eq!(head(request), (Some(RequestId::from(3)), Some(false)));
        let late_id = r#"{"jsonrpc":"2.0","result":{"contents":[{"text":"aaaa"#;
        assert_eq!(head(late_id), (None, Some(true)));
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"#;
        assert_eq!(head(notification), (None, Some(false)));
    }
}
