//! A small synchronous MCP client to one upstream: its requests in flight under ids of its
//! own, each waited for by the thread that sent it (a handler's worker, or the upstream's
//! supervisor), what the upstream sends routed back to that thread: the answer, progress, and
//! its own requests (sampling, elicitation) to be asked of the downstream client.
//! Notifications not tied to a request (list changes, resource updates) go to `on_notice`.
//! Two transports under it: a child process over stdio (`stdio.rs`) and Streamable HTTP
//! (`http.rs`). The era is found as a client would: `initialize` first; an upstream that
//! refuses it and answers `server/discover` speaks a per-request revision (2026-07-28), whose
//! terms then travel in each request's `_meta`, and whose requests for input come back as
//! input-required results, asked of the downstream client and sent again with the answers.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tinymcp::error_codes as rpc;
use tinymcp::{RequestCx, RpcError};

/// The revision the gateway asks its upstreams for; an upstream answers with its own.
pub const REVISION: &str = "2025-11-25";
/// Input-required rounds of one request, at most (an upstream that asks without end fails it).
const INPUT_ROUNDS: usize = 16;
/// The `_meta` keys of a per-request revision's terms.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT: &str = "io.modelcontextprotocol/clientInfo";

/// What the gateway says it can do: sampling and elicitation, asked of its own client. No
/// roots: an upstream asks for them outside any call, where no client can answer.
fn capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {"form": {}, "url": {}}})
}

fn client_info() -> Value {
    json!({"name": "tinymcp-gateway", "version": env!("CARGO_PKG_VERSION")})
}
/// Messages one request may have waiting for its thread (progress, questions, its answer).
const EVENTS_PER_REQUEST: usize = 256;
/// How often a waiting request looks whether its client cancelled it.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// What a transport does: send one message, and end.
pub trait Wire: Send + Sync {
    /// Sends `message` (JSON text); `id` is ours when it is a request awaiting an answer (HTTP
    /// reads that answer on the request's own connection).
    fn send(&self, link: &Arc<Link>, message: String, id: Option<u64>) -> Result<(), String>;
    /// Stops a request's own connection, if it has one (HTTP): a cancelled or late request.
    fn abandon(&self, _id: u64) {}
    /// Ends the connection (the process, the session).
    fn close(&self);
    /// The upstream speaks the per-request revision `version` (no session, its terms in each
    /// request's `_meta`): HTTP sends each request alone, with that revision's headers.
    fn per_request(&self, _version: &str) {}
    /// A `tools/list` result of a per-request revision, read before the link's caller gets it
    /// (HTTP learns the tools' `x-mcp-header` annotations, and leaves out invalid ones).
    fn listed(&self, _result: &mut Value) {}
}

/// What the upstream said that was not an answer to a request of ours.
pub enum Notice {
    /// `notifications/{tools,prompts,resources}/list_changed`.
    ListChanged,
    /// `notifications/resources/updated`, with the upstream's URI.
    Updated(String),
}

/// What the upstream sends a waiting request.
enum Event {
    Answer(Value),
    Ask(Value),
    Progress(Value),
    /// The link ended before the answer came.
    Lost(String),
}

struct Pending {
    events: SyncSender<Event>,
    /// Whether it may be asked things (it has a downstream request to ask them through).
    asks: bool,
}

/// One upstream connection.
pub struct Link {
    /// The upstream's name, for messages.
    pub name: String,
    wire: Mutex<Option<Arc<dyn Wire>>>,
    next: AtomicU64,
    pending: Mutex<HashMap<u64, Pending>>,
    /// Set once it ended (the process exited, the session was lost), with why.
    ended: Mutex<Option<String>>,
    ended_changed: Condvar,
    on_notice: Box<dyn Fn(Notice) + Send + Sync>,
    /// The revision it answered `initialize` with (or chose from `server/discover`).
    pub revision: Mutex<String>,
    /// It speaks a per-request revision only (2026-07-28): the terms go in every request.
    per_request: AtomicBool,
    /// Whether it said it sends resource updates (subscriptions).
    pub subscribe: AtomicBool,
}

impl Link {
    pub fn new(name: &str, on_notice: impl Fn(Notice) + Send + Sync + 'static) -> Arc<Link> {
        Arc::new(Link {
            name: name.to_owned(),
            wire: Mutex::new(None),
            next: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            ended: Mutex::new(None),
            ended_changed: Condvar::new(),
            on_notice: Box::new(on_notice),
            revision: Mutex::new(REVISION.to_owned()),
            per_request: AtomicBool::new(false),
            subscribe: AtomicBool::new(false),
        })
    }

    pub fn attach(&self, wire: Arc<dyn Wire>) {
        *self.wire.lock().unwrap_or_else(PoisonError::into_inner) = Some(wire);
    }

    fn wire(&self) -> Option<Arc<dyn Wire>> {
        self.wire.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<u64, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why it ended, once it did.
    pub fn ended(&self) -> Option<String> {
        self.ended.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// It ended: every request waiting hears why, and its wire is closed.
    pub fn end(&self, why: &str) {
        {
            let mut ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
            if ended.is_some() {
                return;
            }
            *ended = Some(why.to_owned());
            self.ended_changed.notify_all();
        }
        for (_, pending) in self.pending().drain() {
            let _ = pending.events.try_send(Event::Lost(why.to_owned()));
        }
        if let Some(wire) = self.wire() {
            wire.close();
        }
    }

    /// Whether it speaks a per-request revision (2026-07-28) only.
    pub fn is_per_request(&self) -> bool {
        self.per_request.load(Ordering::Relaxed)
    }

    /// The MCP handshake: `initialize`, then `notifications/initialized`; the upstream's answer
    /// (its `capabilities`). An upstream that answers `initialize` with an error (one that
    /// speaks only 2026-07-28 refuses it so) is asked `server/discover`: if it names a
    /// per-request revision the gateway speaks, that is the link's era from then on.
    pub fn initialize(self: &Arc<Self>, within: Duration) -> Result<Value, String> {
        let params = json!({"protocolVersion": REVISION, "capabilities": capabilities(), "clientInfo": client_info()});
        let started = Instant::now();
        let answer = match self.request("initialize", params, None, within) {
            Ok(answer) => answer,
            // Answered, with an error: the era may be another. Not at the deadline (nothing
            // answered), nor when the link ended.
            Err(refused) if self.ended().is_none() && started.elapsed() < within => {
                return self.discover(within).map_err(|why| format!("{} ({why})", refused.message));
            }
            Err(e) => return Err(e.message),
        };
        if let Some(version) = answer.get("protocolVersion").and_then(Value::as_str) {
            *self.revision.lock().unwrap_or_else(PoisonError::into_inner) = version.to_owned();
        }
        let subscribe = answer.pointer("/capabilities/resources/subscribe").and_then(Value::as_bool) == Some(true);
        self.subscribe.store(subscribe, Ordering::Relaxed);
        self.notify("notifications/initialized", json!({}));
        Ok(answer)
    }

    /// `server/discover` with a per-request revision's terms: the revision chosen (the newest
    /// both speak), its answer.
    fn discover(self: &Arc<Self>, within: Duration) -> Result<Value, String> {
        let newest = tinymcp::ProtocolVersion::ALL.iter().rev().find(|v| !v.is_stateful()).map(|v| v.as_str());
        let newest = newest.unwrap_or("2026-07-28");
        let params = json!({"_meta": terms(newest)});
        // Asked as that era asks (over HTTP: alone, with its headers); a link whose discover
        // fails is ended by its caller.
        if let Some(wire) = self.wire() {
            wire.per_request(newest);
        }
        let answer = self
            .request("server/discover", params, None, within)
            .map_err(|e| format!("server/discover: {}", e.message))?;
        let offered: Vec<&str> = answer
            .get("supportedVersions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let chosen = tinymcp::ProtocolVersion::ALL
            .iter()
            .rev()
            .filter(|v| !v.is_stateful())
            .map(|v| v.as_str())
            .find(|v| offered.contains(v))
            .ok_or_else(|| format!("server/discover: it offers {offered:?}, none a revision the gateway speaks"))?;
        *self.revision.lock().unwrap_or_else(PoisonError::into_inner) = chosen.to_owned();
        self.per_request.store(true, Ordering::Relaxed);
        // Subscriptions are a listen stream's there, not `resources/subscribe`.
        self.subscribe.store(false, Ordering::Relaxed);
        if let Some(wire) = self.wire() {
            wire.per_request(chosen);
        }
        log::info!("{}: speaks {chosen} (per-request terms, no session)", self.name);
        Ok(answer)
    }

    /// Sends a notification; a failure is only logged (there is nobody to tell).
    pub fn notify(self: &Arc<Self>, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        if let Some(wire) = self.wire() {
            if let Err(e) = wire.send(self, message, None) {
                log::debug!("{}: {method} not sent: {e}", self.name);
            }
        }
    }

    /// Sends a request and waits for its answer, at most `within`. With `cx` (a downstream
    /// request this one serves), the upstream's progress is passed on, its questions asked of
    /// the downstream client and answered back, and the downstream's cancellation cancels it.
    pub fn request(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        cx: Option<&RequestCx>,
        within: Duration,
    ) -> Result<Value, RpcError> {
        self.request_until(method, params, cx, within, None)
    }

    /// [`request`](Link::request) that also ends (cancelled upstream) once `stop` is set: a
    /// listen stream the gateway opens again with another filter.
    pub fn request_until(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        cx: Option<&RequestCx>,
        within: Duration,
        stop: Option<&AtomicBool>,
    ) -> Result<Value, RpcError> {
        if !self.is_per_request() {
            return self.request_once(method, params, cx, within, stop);
        }
        let deadline = Instant::now() + within;
        let version = self.revision.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let mut params = params;
        if let Some(map) = params.as_object_mut() {
            let meta = map.entry("_meta").or_insert_with(|| json!({}));
            if let (Some(meta), Value::Object(terms)) = (meta.as_object_mut(), terms(&version)) {
                meta.extend(terms);
            }
        }
        for _ in 0..INPUT_ROUNDS {
            let left = deadline.saturating_duration_since(Instant::now());
            let mut result = self.request_once(method, params.clone(), cx, left, stop)?;
            if method == "tools/list" {
                if let Some(wire) = self.wire() {
                    wire.listed(&mut result);
                }
            }
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(own_result(result));
            }
            // Its requests for input, asked of the downstream client; the call sent again with
            // the answers and the state it gave.
            let Some(cx) = cx else {
                return Err(RpcError::new(
                    rpc::INTERNAL_ERROR,
                    format!(
                        "upstream {}: {method} asks for input, and the gateway has no client to ask now",
                        self.name
                    ),
                ));
            };
            let asked = result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
            let mut answers = serde_json::Map::new();
            for (key, request) in asked {
                answers.insert(key, ask_downstream(cx, &request)?);
            }
            params["inputResponses"] = Value::Object(answers);
            match result.get("requestState") {
                Some(state) => params["requestState"] = state.clone(),
                None => drop(params.as_object_mut().map(|p| p.remove("requestState"))),
            }
        }
        Err(RpcError::new(
            rpc::INTERNAL_ERROR,
            format!("upstream {}: {method} still asked for input after {INPUT_ROUNDS} rounds; given up", self.name),
        ))
    }

    /// One request and its answer (or error).
    fn request_once(
        self: &Arc<Self>,
        method: &str,
        mut params: Value,
        cx: Option<&RequestCx>,
        within: Duration,
        stop: Option<&AtomicBool>,
    ) -> Result<Value, RpcError> {
        if let Some(why) = self.ended() {
            return Err(down(&self.name, &why));
        }
        let Some(wire) = self.wire() else { return Err(down(&self.name, "not connected")) };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let (Some(cx), Some(map)) = (cx, params.as_object_mut()) {
            // Our id is its progress token: its progress comes back to this thread.
            if cx.wants_progress() {
                let meta = map.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert("progressToken".into(), json!(id));
                }
            }
        }
        let (events, inbox) = mpsc::sync_channel(EVENTS_PER_REQUEST);
        self.pending().insert(id, Pending { events, asks: cx.is_some() });
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        if let Err(why) = wire.send(self, message, Some(id)) {
            self.pending().remove(&id);
            return Err(down(&self.name, &why));
        }
        let outcome = self.wait(id, method, &inbox, (cx, stop), within, &*wire);
        self.pending().remove(&id);
        outcome
    }

    fn wait(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        inbox: &Receiver<Event>,
        // What may end it early: its downstream request's cancellation, and `stop`.
        (cx, stop): (Option<&RequestCx>, Option<&AtomicBool>),
        within: Duration,
        wire: &dyn Wire,
    ) -> Result<Value, RpcError> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.cancel(id, wire, "the gateway's deadline passed");
                return Err(RpcError::new(
                    rpc::INTERNAL_ERROR,
                    format!(
                        "upstream {}: no answer to {method} within {} s (its timeout_secs); the request was cancelled there",
                        self.name,
                        within.as_secs()
                    ),
                ));
            }
            let event = match inbox.recv_timeout(left.min(LOOK_EVERY)) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    if cx.is_some_and(RequestCx::is_cancelled) {
                        self.cancel(id, wire, "the client cancelled it");
                        return Err(RpcError::new(rpc::INTERNAL_ERROR, format!("{method}: request cancelled")));
                    }
                    if stop.is_some_and(|stop| stop.load(Ordering::SeqCst)) {
                        self.cancel(id, wire, "the gateway ends it");
                        return Err(RpcError::new(rpc::INTERNAL_ERROR, format!("{method}: ended by the gateway")));
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(down(&self.name, &self.ended().unwrap_or_else(|| "the connection ended".into())))
                }
            };
            match event {
                Event::Answer(message) => return answer(&message),
                Event::Lost(why) => return Err(down(&self.name, &why)),
                Event::Progress(params) => {
                    if let Some(cx) = cx {
                        let progress = params.get("progress").and_then(Value::as_f64).unwrap_or(0.0);
                        let total = params.get("total").and_then(Value::as_f64);
                        cx.progress(progress, total, params.get("message").and_then(Value::as_str));
                    }
                }
                Event::Ask(request) => {
                    let reply = match cx {
                        Some(cx) => ask_downstream(cx, &request),
                        None => Err(RpcError::new(rpc::METHOD_NOT_FOUND, "the gateway has no client to ask now")),
                    };
                    let mut message =
                        json!({"jsonrpc": "2.0", "id": request.get("id").cloned().unwrap_or(Value::Null)});
                    let failed = match &reply {
                        Ok(result) => {
                            message["result"] = result.clone();
                            None
                        }
                        Err(e) => {
                            message["error"] = json!({"code": e.code, "message": e.message});
                            Some(e.clone())
                        }
                    };
                    if let Err(e) = wire.send(self, message.to_string(), None) {
                        log::debug!("{}: an answer to its request not sent: {e}", self.name);
                    }
                    // 2026-07-28: the question goes back to the client in an input-required
                    // result (whatever the handler returns); the client's retry runs this call
                    // again, with the answer.
                    if let Some(e) = failed.filter(|_| cx.is_some_and(|cx| !cx.version().is_stateful())) {
                        self.cancel(id, wire, "its input is asked of the client");
                        return Err(e);
                    }
                }
            }
        }
    }

    fn cancel(self: &Arc<Self>, id: u64, wire: &dyn Wire, why: &str) {
        let mut params = json!({"requestId": id, "reason": why});
        if self.is_per_request() {
            let version = self.revision.lock().unwrap_or_else(PoisonError::into_inner).clone();
            params["_meta"] = terms(&version);
        }
        self.notify("notifications/cancelled", params);
        wire.abandon(id);
    }

    /// A message from the upstream. `on` is the request whose stream carried it (HTTP); a
    /// question on stdio goes to the newest request that may ask one.
    pub fn deliver(self: &Arc<Self>, text: &str, on: Option<u64>) {
        let message: Value = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(e) => return log::warn!("{}: sent something that is not JSON ({e}); dropped", self.name),
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null());
        match (method, id) {
            (None, Some(id)) => {
                let Some(id) = id.as_u64() else { return };
                let waiting = self.pending().get(&id).map(|p| p.events.clone());
                // Waited for, unlike progress: a full queue is being drained by its thread (and
                // one that returned has dropped its end, which fails the send at once).
                if let Some(events) = waiting {
                    let _ = events.send(Event::Answer(message));
                }
            }
            (Some(method), Some(_)) => {
                // Whose question: the call whose stream carried it (HTTP), the call its progress
                // token names, or the one call that may ask; with several and no sign, none (a
                // question never reaches a client it may not belong to).
                let token = message.pointer("/params/_meta/progressToken").and_then(Value::as_u64);
                let pending = self.pending();
                let askers: Vec<u64> = pending.iter().filter(|(_, p)| p.asks).map(|(id, _)| *id).collect();
                let asker = on
                    .filter(|on| askers.contains(on))
                    .or_else(|| token.filter(|t| askers.contains(t)))
                    .or_else(|| (askers.len() == 1).then(|| askers[0]));
                match asker.and_then(|id| pending.get(&id)) {
                    Some(p) => {
                        let _ = p.events.try_send(Event::Ask(message));
                    }
                    None => {
                        drop(pending);
                        let why = if askers.is_empty() {
                            "the gateway has no call in flight to ask it for"
                        } else {
                            "the gateway cannot tell which of its calls in flight it belongs to"
                        };
                        log::debug!("{}: asked {method}: {why}; refused", self.name);
                        self.refuse(&message, method, why);
                    }
                }
            }
            (Some("notifications/progress"), None) => {
                let params = message.get("params").cloned().unwrap_or_default();
                let token = params.get("progressToken").and_then(Value::as_u64);
                if let Some(pending) = token.and_then(|t| self.pending().get(&t).map(|p| p.events.clone())) {
                    let _ = pending.try_send(Event::Progress(params));
                }
            }
            (Some(m), None) if m.ends_with("/list_changed") => (self.on_notice)(Notice::ListChanged),
            (Some("notifications/resources/updated"), None) => {
                if let Some(uri) = message.pointer("/params/uri").and_then(Value::as_str) {
                    (self.on_notice)(Notice::Updated(uri.to_owned()));
                }
            }
            (Some(method), None) => log::debug!("{}: {method}", self.name),
            (None, None) => log::debug!("{}: sent a message that is neither request nor answer", self.name),
        }
    }

    fn refuse(self: &Arc<Self>, message: &Value, method: &str, why: &str) {
        let Some(wire) = self.wire() else { return };
        let reply = json!({"jsonrpc": "2.0", "id": message.get("id"),
            "error": {"code": rpc::INVALID_REQUEST, "message": format!("{method}: {why}")}});
        let _ = wire.send(self, reply.to_string(), None);
    }
}

/// A per-request revision's terms, for a request's `_meta`.
fn terms(version: &str) -> Value {
    json!({META_VERSION: version, META_CAPABILITIES: capabilities(), META_CLIENT: client_info()})
}

/// A per-request revision's result without what is the upstream's own protocol (`resultType`,
/// cache hints, its identity in `_meta`): the gateway's server decorates its own answers.
fn own_result(mut result: Value) -> Value {
    if let Some(map) = result.as_object_mut() {
        for key in ["resultType", "ttlMs", "cacheScope"] {
            map.remove(key);
        }
        if let Some(meta) = map.get_mut("_meta").and_then(Value::as_object_mut) {
            meta.retain(|key, _| !key.starts_with("io.modelcontextprotocol/"));
            if meta.is_empty() {
                map.remove("_meta");
            }
        }
    }
    result
}

/// The result of an answer, or its error as the upstream gave it.
fn answer(message: &Value) -> Result<Value, RpcError> {
    if let Some(error) = message.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(rpc::INTERNAL_ERROR);
        let text = error.get("message").and_then(Value::as_str).unwrap_or("error");
        let mut e = RpcError::new(code, text);
        if let Some(data) = error.get("data") {
            e = e.with_data(data.clone());
        }
        return Err(e);
    }
    Ok(message.get("result").cloned().unwrap_or_else(|| json!({})))
}

/// Asks the downstream client what the upstream asked (`sampling/createMessage`,
/// `elicitation/create`, `roots/list`, `ping`).
fn ask_downstream(cx: &RequestCx, request: &Value) -> Result<Value, RpcError> {
    let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
    let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
    if let Some(map) = params.as_object_mut() {
        // Its progress token and task are the upstream's, meaningless to the client.
        map.remove("_meta");
    }
    match method {
        "sampling/createMessage" => cx.sample(params),
        "elicitation/create" => cx.elicit_raw(params),
        "roots/list" => cx.list_roots(),
        "ping" => Ok(json!({})),
        other => Err(RpcError::method_not_found(other)),
    }
}

/// The error of a call to an upstream that is down, naming it.
pub fn down(name: &str, why: &str) -> RpcError {
    RpcError::new(rpc::INTERNAL_ERROR, format!("upstream {name} is unavailable: {why}; the gateway retries it"))
}
