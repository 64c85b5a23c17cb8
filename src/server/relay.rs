//! A relay: every message of a connection handed to another MCP server (a child process the
//! binary runs for `tinymcp proxy`) instead of to the method table, and its messages back to the
//! right stream. Knows JSON-RPC, sessions and sinks; the other server is a `Peer` that takes
//! lines, never a process or a pipe.

use crate::server::listen::Listener;
use crate::server::session::{Negotiated, Session};
use crate::server::sink::{Outgoing, Sink};
use crate::util::signal::{Held, Tally};
use crate::wire::frame::{self, Answer, Reply};
use crate::wire::jsonrpc::{self, Incoming, Message, Request};
use crate::wire::params::Params;
use crate::wire::rpc::{self, RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long `initialize` waits for the other server's answer: the HTTP session id is minted
/// from what it settles, so the transport waits for it.
const INITIALIZE_WAIT: Duration = Duration::from_secs(30);
/// Cancelled requests whose progress is still recognised (and dropped), the oldest forgotten first.
const CANCELLED_KEPT: usize = 256;

/// The other server, as the relay sees it: somewhere to send lines.
pub trait Peer: Send + Sync {
    /// Sends one JSON-RPC message (one line, no newline); an error says why it cannot be
    /// taken now (its input is full, or it has ended).
    fn send(&self, line: String) -> Result<(), String>;
    /// Ends the other server: its connection closed.
    fn close(&self);
}

/// Opens the other server of one connection; what it writes back goes to `Relayed::deliver`.
pub type OpenPeer = dyn Fn(Relayed) -> Result<Box<dyn Peer>, String> + Send + Sync;

/// The connection's side of a relay: where the other server's lines arrive, and how it is
/// ended. Cheap to clone.
#[derive(Clone)]
pub struct Relayed(Arc<Shared>);

struct Shared {
    session: Arc<Session>,
    max_in_flight: usize,
    /// The server's count of relayed requests in flight (`Server::drain` waits for it).
    in_flight: Arc<Tally>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The client's requests waiting for the other server's answer, by id.
    waiting: HashMap<RequestId, Waiting>,
    /// Progress tokens of requests in flight, to the request's id.
    progress: HashMap<String, RequestId>,
    /// Increases with each request: its messages go to the latest one's stream.
    next: u64,
    /// When the other server last wrote a message.
    heard: Option<Instant>,
    /// Why it ended, once it has.
    ended: Option<String>,
    /// Requests the client cancelled that the other server has not answered, with their
    /// progress tokens, oldest first: what it still sends for them goes nowhere.
    cancelled: VecDeque<(RequestId, String)>,
}

impl State {
    /// The client cancelled `id`: it is no longer waited for, and its progress is dropped.
    fn cancel(&mut self, id: &RequestId) {
        let Some(token) = self.waiting.remove(id).and_then(|w| w.token) else { return };
        self.progress.remove(&token);
        if self.cancelled.len() >= CANCELLED_KEPT {
            self.cancelled.pop_front();
        }
        self.cancelled.push_back((id.clone(), token));
    }

    /// Whether `token` is a cancelled request's.
    fn is_cancelled(&self, token: &str) -> bool {
        self.cancelled.iter().any(|(_, t)| t == token)
    }
}

struct Waiting {
    reply: Sink,
    order: u64,
    since: Instant,
    token: Option<String>,
    /// Counted in the server's `in_flight` until answered or given up.
    _held: Held,
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Relayed {
    pub(crate) fn new(session: Arc<Session>, max_in_flight: usize, in_flight: Arc<Tally>) -> Relayed {
        Relayed(Arc::new(Shared { session, max_in_flight, in_flight, state: Mutex::default() }))
    }

    /// One line the other server wrote: an answer goes to the request it answers, a
    /// notification with a progress token to that request's stream, anything else (its own
    /// requests, logs) to the stream of the latest request in flight, or the session's stream
    /// when none is. A line that is not JSON-RPC is logged and dropped.
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
        let mut state = lock(&self.0);
        state.heard = Some(Instant::now());
        match message {
            Message::Response(res) => {
                let Some(waiting) = state.waiting.remove(&res.id) else {
                    // A late answer to a cancelled request: it is over at the other server too.
                    state.cancelled.retain(|(id, _)| *id != res.id);
                    return log::debug!("relay: answer to {} that no one waits for (cancelled); dropped", res.id);
                };
                if let Some(token) = &waiting.token {
                    state.progress.remove(token);
                }
                drop(state);
                waiting.reply.send(Outgoing::Response(Answer::new(res.id, res.outcome.map(Reply::Value))));
            }
            Message::Notification(n) => {
                let token = progress_of(&n.params).map(|t| token_key(&t));
                if token.as_deref().is_some_and(|t| state.is_cancelled(t)) {
                    // Spec (progress): only tokens of active requests; the client forgot this one.
                    return log::debug!("relay: progress of a cancelled request; dropped");
                }
                let owner = token.and_then(|t| state.progress.get(&t)).and_then(|id| state.waiting.get(id));
                let sink = owner.map(|w| w.reply.clone()).unwrap_or_else(|| latest(&state, &self.0.session));
                drop(state);
                sink.send(Outgoing::Notification(line.to_owned()));
            }
            Message::Request(_) => {
                let sink = latest(&state, &self.0.session);
                drop(state);
                sink.send(Outgoing::Request(line.to_owned()));
            }
        }
    }

    /// The other server is gone (it exited, or hung and was ended): every request in flight is
    /// answered with an error saying `why`, and the session ends, so its client starts a new one.
    pub fn end(&self, why: &str) {
        let waiting: Vec<(RequestId, Waiting)> = {
            let mut state = lock(&self.0);
            if state.ended.is_none() {
                state.ended = Some(why.to_owned());
            }
            state.progress.clear();
            state.waiting.drain().collect()
        };
        // The session ends first: a client that has its error and tries again finds it gone.
        self.0.session.close();
        for (id, waiting) in waiting {
            waiting.reply.send(Outgoing::Response(Answer::error(Some(&id), ended(why))));
        }
    }

    /// Whether requests have waited `longer` than this with nothing heard from the other
    /// server meanwhile: it hangs.
    pub fn stalled(&self, longer: Duration) -> bool {
        let state = lock(&self.0);
        let Some(oldest) = state.waiting.values().map(|w| w.since).min() else { return false };
        let quiet = state.heard.map_or(oldest, |heard| heard.max(oldest));
        quiet.elapsed() > longer
    }

    fn ended(&self) -> Option<String> {
        lock(&self.0).ended.clone()
    }
}

/// The stream of the latest request in flight, else the session's own.
fn latest(state: &State, session: &Session) -> Sink {
    state.waiting.values().max_by_key(|w| w.order).map_or_else(|| session.notifier(), |w| w.reply.clone())
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

fn token_key(token: &Value) -> String {
    token.to_string()
}

/// An error the client cannot fix by asking again: the other server failed.
fn failed(message: String) -> RpcError {
    RpcError::new(rpc::INTERNAL_ERROR, message)
}

fn ended(why: &str) -> RpcError {
    failed(format!("the proxied server ended: {why}"))
}

/// A connection's relay: the other server and the connection's side of it.
pub(crate) struct Relay {
    relayed: Relayed,
    peer: Result<Box<dyn Peer>, String>,
    ending: Arc<Ending>,
}

/// What ends a relay with its server (a drain out of time, a shutdown): registered as a
/// listener that hears no broadcast (the other server makes its own notifications).
struct Ending(Relayed);

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
        self.0.end("the proxy is shutting down and stopped waiting for it");
    }
}

impl Relay {
    pub(crate) fn open(open: &OpenPeer, session: Arc<Session>, max_in_flight: usize, in_flight: Arc<Tally>) -> Relay {
        let relayed = Relayed::new(session, max_in_flight, in_flight);
        let peer = open(relayed.clone());
        if let Err(why) = &peer {
            log::error!("relay: cannot start the server: {why}");
        }
        let ending = Arc::new(Ending(relayed.clone()));
        Relay { relayed, peer, ending }
    }

    /// What the server closes to end this relay with it (`Server::add_listener`).
    pub(crate) fn listener(&self) -> Arc<dyn Listener> {
        Arc::clone(&self.ending) as _
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
        match message {
            Message::Request(req) => self.on_request(req, reply),
            Message::Notification(n) => {
                if n.method.as_str() == "notifications/cancelled" {
                    // Spec (cancellation): no answer once cancelled; the other server is told too.
                    if let Some(id) = super::methods::cancelled_request(&n.params) {
                        lock(&self.relayed.0).cancel(&id);
                    }
                }
                self.forward(frame::notification(n.method.as_str(), &n.params));
            }
            Message::Response(res) => {
                let answer = Answer::new(res.id, res.outcome.map(Reply::Value));
                self.forward(answer.to_text());
            }
        }
    }

    fn forward(&self, line: String) {
        if let Ok(peer) = &self.peer {
            if let Err(why) = peer.send(line) {
                log::warn!("relay: a message to the server was dropped: {why}");
            }
        }
    }

    fn on_request(&self, req: Request, reply: &Sink) {
        let refuse = |error: RpcError| reply.send(Outgoing::Response(Answer::error(Some(&req.id), error)));
        let peer = match &self.peer {
            Ok(peer) => peer,
            Err(why) => return refuse(failed(format!("the proxied server did not start: {why}"))),
        };
        if let Some(why) = self.relayed.ended() {
            return refuse(ended(&why));
        }
        let initialize = req.method.as_str() == "initialize";
        // `initialize` is answered before the transport moves on: what it settles names the session.
        let (sink, settled) = if initialize {
            let (sink, answers) = Sink::channel();
            (sink, Some(answers))
        } else {
            (reply.clone(), None)
        };
        {
            let mut state = lock(&self.relayed.0);
            if state.waiting.contains_key(&req.id) {
                drop(state);
                return refuse(RpcError::invalid_request("a request with this id is already in flight"));
            }
            if state.waiting.len() >= self.relayed.0.max_in_flight {
                let max = self.relayed.0.max_in_flight;
                drop(state);
                return refuse(RpcError::invalid_request(format!("too many requests in flight (the limit is {max})")));
            }
            let token = crate::wire::meta::progress_token(&req.params).map(|t| token_key(&t));
            if let Some(token) = &token {
                state.progress.insert(token.clone(), req.id.clone());
            }
            state.next += 1;
            let order = state.next;
            let _held = self.relayed.0.in_flight.hold();
            state.waiting.insert(req.id.clone(), Waiting { reply: sink, order, since: Instant::now(), token, _held });
        }
        if let Err(why) = peer.send(frame::request_text(&req.id, req.method.as_str(), &req.params)) {
            lock(&self.relayed.0).waiting.remove(&req.id);
            return refuse(failed(format!("the proxied server cannot take the request: {why}")));
        }
        let Some(answers) = settled else { return };
        let deadline = Instant::now() + INITIALIZE_WAIT;
        loop {
            let message = match answers.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => {
                    lock(&self.relayed.0).waiting.remove(&req.id);
                    let why = format!("the proxied server did not answer initialize within {INITIALIZE_WAIT:?}");
                    return refuse(failed(why));
                }
                Err(RecvTimeoutError::Disconnected) => return,
            };
            if let Outgoing::Response(answer) = &message {
                if let Ok(Reply::Value(result)) = &answer.outcome {
                    if let Err(error) = self.settle(&req.params, result) {
                        return refuse(error);
                    }
                }
                return reply.send(message);
            }
            reply.send(message);
        }
    }

    /// Records what the other server's `initialize` answer settled, as if this server had.
    fn settle(&self, params: &Params, result: &Value) -> Result<(), RpcError> {
        let answered = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        let version = ProtocolVersion::parse(answered).filter(|v| v.is_stateful()).ok_or_else(|| {
            failed(format!(
                "the proxied server answered initialize with revision {answered:?}, which this proxy does not speak"
            ))
        })?;
        #[derive(serde::Deserialize)]
        struct Initialize {
            #[serde(default)]
            capabilities: Value,
        }
        let capabilities = params.parse::<Initialize>().map(|p| p.capabilities).unwrap_or_default();
        let capabilities = if capabilities.is_object() { capabilities } else { Value::default() };
        self.relayed.0.session.set_negotiated(Negotiated { version, client_capabilities: Arc::new(capabilities) });
        Ok(())
    }

    /// The connection closed: the other server ends, and what waited for it is answered.
    pub(crate) fn close(&self) {
        if let Ok(peer) = &self.peer {
            peer.close();
        }
        self.relayed.end("its session ended");
    }
}
