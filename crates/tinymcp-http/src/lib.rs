//! HTTP: Streamable HTTP at `/mcp` (every revision from 2025-03-26 on: with a session in the
//! handshake era, from 2026-07-28 each request a connection with no session) and the legacy
//! HTTP+SSE transport of 2024-11-05 (`/sse` and `/messages`). Blocking, a thread per
//! connection. `listener` owns the socket, `http1` speaks HTTP/1.1, this file routes and answers;
//! `sessions` keeps the session table, `sse` the event framing and replay, `security` the checks.
//! It stops with `HttpServer::shutdown` (or dropping the `HttpServer`), which ends every session
//! and connection and joins every thread it started; `serve` never returns.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tinymcp::{CallToolResult, Server, Tool};
//! use tinymcp_http::{HttpOptions, HttpServer};
//!
//! let server = Server::new("demo", "1.0.0");
//! server.register_tool(Tool::new("hello", "Says hello", serde_json::json!({"type": "object"})), |_cx, _args| {
//!     Ok(CallToolResult::text("hello"))
//! });
//! // Only loopback clients by default; see `HttpOptions::access` for tokens, hosts and origins.
//! HttpServer::start(Arc::new(server), "127.0.0.1:8080", HttpOptions::default())?.wait();
//! # Ok::<(), tinymcp::Error>(())
//! ```
#![forbid(unsafe_code)]

mod auth;
mod chunked;
mod http1;
#[cfg(feature = "oauth")]
mod introspect;
#[cfg(feature = "oauth")]
mod issuer;
#[cfg(feature = "oauth")]
mod jwt;
mod legacy;
mod listener;
mod mounts;
mod probe;
mod pump;
mod security;
mod sessions;
mod sse;
mod streams;
mod token;

pub use auth::{Grant, OAuth, StaticToken, TokenVerifier};
#[cfg(feature = "oauth")]
pub use introspect::{Introspection, JwtOrIntrospection, CACHE_FOR};
#[cfg(feature = "oauth")]
pub use issuer::{IssuerKeys, JwtVerifier};
#[cfg(feature = "oauth")]
pub use jwt::{Expect, KeySet, Rejection};
pub use security::Access;
pub use sse::{EventLog, Replay};
// For the tinymcp binary (its proxy's mount names, `tinymcp health`, the bearer token files):
// public because it is another crate, hidden because embedders have no use for them.
#[doc(hidden)]
pub use mounts::is_mount_name;
#[doc(hidden)]
pub use probe::probe;
#[doc(hidden)]
pub use security::check_token;

use auth::Failure;
use http1::{BodyError, Exchange};
use mounts::Mount;
use pump::{Pump, Stop};
use security::Refusal;
use sessions::{HttpSession, Missing, Refused, Sessions};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};
use tinymcp::error_codes::{
    HEADER_MISMATCH, INSUFFICIENT_SCOPE, INTERNAL_ERROR, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
};
use tinymcp::metrics::{Refusal as Counted, Watched};
use tinymcp::transport::kit as frame;
use tinymcp::transport::kit::Connection;
use tinymcp::transport::kit::StateKey;
use tinymcp::transport::kit::{self as meta, Arrival, Era};
use tinymcp::transport::kit::{self as jsonrpc, Incoming, Malformed, Message};
use tinymcp::transport::kit::{BoundedReceiver, Outgoing, Sink};
use tinymcp::Error;
use tinymcp::Metrics;
use tinymcp::ProtocolVersion;
use tinymcp::Server;
use tinymcp::{RequestId, RpcError};

/// Settings of the HTTP transport: start from `HttpOptions::default()` and set fields
/// (`#[non_exhaustive]`, so a new setting breaks no embedder).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Who may connect.
    pub access: Access,
    /// Sessions at once, legacy SSE ones included; at the cap the longest-idle session is
    /// evicted, or 503 when all are busy.
    pub max_sessions: usize,
    /// A session unused this long ends.
    pub session_idle: Duration,
    /// How long a session id is accepted after `initialize`, by this replica and every other
    /// sharing the key (the id carries its expiry).
    pub session_ttl: Duration,
    /// GET streams one session may hold open.
    pub max_streams_per_session: usize,
    /// An idle stream gets a comment this often.
    pub keep_alive: Duration,
    /// Sent as SSE `retry:` with the priming event (2025-11-25).
    pub retry: Duration,
    /// Connections open at once; more get 503 and are closed.
    pub max_connections: usize,
    /// A kept-alive connection with no request this long is closed.
    pub idle: Duration,
    /// A session that sent no request after `initialize` ends after this, so abandoned
    /// handshakes cannot fill the cap.
    pub handshake: Duration,
    /// A request's head must be complete this long after its first byte (a new connection's
    /// first byte must come this soon too), and a body gets this long plus a second per 64 KiB:
    /// a client that dribbles holds no thread for longer (408 or 400, and closed).
    pub read_within: Duration,
    /// A write to a client that makes no progress this long ends its connection, and a stream
    /// on it (a client that stopped reading).
    pub write_within: Duration,
    /// Serves `/metrics` (the first server's `Options::metrics`, in the Prometheus text
    /// format) behind the same `Host`/`Origin` and token checks as every path. Off by default.
    pub serve_metrics: bool,
    /// More lines for `/healthz` (a gateway's upstreams), written after the servers' own to a
    /// request that passed the `Host` and `Origin` checks.
    pub health_detail: Option<HealthDetail>,
    /// Where SSE events (up to 2025-11-25) are kept for other replicas, so `Last-Event-ID`
    /// resumes a stream on any of them; none: only where it was opened.
    pub event_log: Option<Arc<dyn EventLog>>,
}

/// What `/healthz` adds to its body, asked at each request (`HttpOptions::health_detail`).
#[derive(Clone)]
pub struct HealthDetail(pub Arc<dyn Fn() -> String + Send + Sync>);

impl std::fmt::Debug for HealthDetail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HealthDetail")
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            access: Access { loopback_only: true, ..Default::default() },
            max_sessions: 1000,
            session_idle: Duration::from_secs(30 * 60),
            session_ttl: Duration::from_secs(24 * 60 * 60),
            max_streams_per_session: 8,
            keep_alive: Duration::from_secs(15),
            retry: Duration::from_secs(3),
            max_connections: 2048,
            idle: Duration::from_secs(30),
            handshake: Duration::from_secs(30),
            read_within: Duration::from_secs(5),
            write_within: Duration::from_secs(10),
            serve_metrics: false,
            health_detail: None,
            event_log: None,
        }
    }
}

/// How often a thread waiting on a stream looks at its client and at shutdown: a client that
/// hung up is noticed within this, and its thread and descriptor freed.
const SLICE: Duration = Duration::from_secs(1);
/// How often the reaper ends expired sessions, at most: with a shorter idle or handshake limit
/// it looks four times per limit (`reap_every`).
const REAP_EVERY: Duration = Duration::from_secs(5);
/// The reaper's period: `REAP_EVERY`, or a quarter of the shortest limit it enforces, so a
/// session ends within a quarter more than its limit.
fn reap_every(options: &HttpOptions) -> Duration {
    let shortest = options.session_idle.min(options.handshake);
    REAP_EVERY.min(shortest / 4).max(Duration::from_millis(10))
}
/// Bytes of notifications and requests that may wait for a stream's writer (one message of any
/// size may wait alone); more are dropped until the client catches up (`Sink::bounded`). A
/// handler, or a relayed server, that writes faster than its client reads, or to a client that
/// stopped reading, is not held in memory.
const WAITING_BYTES: usize = 4 * 1024 * 1024;
/// Messages that may wait for a request's stream.
const WAITING_FOR_REQUEST: usize = 1024;

struct Http {
    /// Never empty; the first one's key seals session ids.
    mounts: Vec<Mount>,
    options: HttpOptions,
    sessions: Sessions,
    legacy: legacy::Legacy,
    connections: listener::Connections,
    stopping: AtomicBool,
    /// Set by `drain`: new requests and `/healthz` get 503.
    draining: AtomicBool,
    /// Set by `drain` once handlers are done: streams not tied to a request end with `retry:`.
    streams_ending: AtomicBool,
    /// Wakes the reaper at shutdown.
    stop: (Mutex<bool>, Condvar),
    /// The first server's metrics: what the transport counts goes there too.
    metrics: Option<Arc<Metrics>>,
}

impl Http {
    /// Counts a refusal, when the server keeps metrics.
    fn refused(&self, why: Counted) {
        self.metrics.as_ref().inspect(|m| m.refused(why));
    }

    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Whether a stream not tied to a request (GET, listen, legacy) should end now, with a
    /// `retry:` hint so its client reconnects (to another replica, behind a load balancer).
    fn streams_ending(&self) -> bool {
        self.streams_ending.load(Ordering::Relaxed)
    }
}

/// A running HTTP server: its accept loop, connection threads and session reaper. Dropping it
/// (or `shutdown`) stops them all.
pub struct HttpServer {
    http: Arc<Http>,
    local: SocketAddr,
    accept: Option<JoinHandle<()>>,
    reaper: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Binds `addr` and starts serving `server` on threads of its own.
    pub fn start(server: Arc<Server>, addr: &str, options: HttpOptions) -> Result<HttpServer, Error> {
        HttpServer::start_mounted(vec![(String::new(), server)], addr, options)
    }

    /// Binds `addr` and serves each server under its name: `/NAME/mcp`, `/NAME/sse` and
    /// `/NAME/messages` (an empty name: `/mcp`...). Sessions, their cap, the checks and
    /// draining are the listener's, for all together; each name must pass `is_mount_name`,
    /// and session ids are sealed with the first server's key.
    pub fn start_mounted(
        servers: Vec<(String, Arc<Server>)>,
        addr: &str,
        mut options: HttpOptions,
    ) -> Result<HttpServer, Error> {
        options.access.validate().map_err(Error::Config)?;
        let mounts = mounts::table(servers, options.access.oauth.as_ref()).map_err(Error::Config)?;
        let listener = TcpListener::bind(addr).map_err(|e| Error::Bind(format!("{addr}: {e}")))?;
        // The bound address, not the asked one: with port 0 the log names the port the OS chose.
        let local = listener.local_addr()?;
        options.access.listening = Some(local.ip());
        if !local.ip().is_loopback() && !options.access.authenticates() {
            log::warn!(
                "serving http://{local}/mcp beyond loopback with no authentication: anyone who can reach this \
                 address can call every tool and read what it serves; require a bearer token (--token-file or \
                 TINYMCP_TOKEN), or listen on 127.0.0.1 behind a proxy that authenticates"
            );
        }
        let listener = no_delay(listener);
        // Session ids are sealed with the server's key: the key file's, shared by replicas.
        let first = &mounts[0].server;
        let key = match first.sealing_key() {
            Some(key) => key.clone(),
            None => StateKey::random()?,
        };
        let node = first.node_id().map(str::to_owned);
        let http = Arc::new(Http {
            sessions: Sessions::new(&options, key, node)?,
            legacy: legacy::Legacy::default(),
            connections: listener::Connections::default(),
            stopping: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            streams_ending: AtomicBool::new(false),
            stop: (Mutex::new(false), Condvar::new()),
            metrics: first.metrics().cloned(),
            mounts,
            options,
        });
        if let Some(metrics) = &http.metrics {
            let (sessions, connections) = (Arc::downgrade(&http), Arc::downgrade(&http));
            metrics.watch(
                Watched::Sessions,
                Box::new(move || sessions.upgrade().map_or(0, |h| h.sessions.count() as i64)),
            );
            metrics.watch(
                Watched::Connections,
                Box::new(move || connections.upgrade().map_or(0, |h| h.connections.count() as i64)),
            );
        }
        let reaping = Arc::clone(&http);
        let every = reap_every(&http.options);
        let reaper = thread::Builder::new().name("mcp-http-reaper".into()).stack_size(128 * 1024).spawn(move || {
            let (lock, wake) = &reaping.stop;
            let mut stopped = lock.lock().unwrap_or_else(PoisonError::into_inner);
            while !*stopped {
                stopped = wake.wait_timeout(stopped, every).unwrap_or_else(PoisonError::into_inner).0;
                reaping.sessions.expire();
            }
        })?;
        let accepting = Arc::clone(&http);
        let accept = thread::Builder::new()
            .name("mcp-http-accept".into())
            .stack_size(128 * 1024)
            .spawn(move || listener::accept_loop(&accepting, &listener))?;
        // The one line a user (and a script) needs: logged at the default level.
        let first = http.mounts.first().map_or("", |m| m.prefix.as_str());
        log::info!(target: "tinymcp::listening", "listening on http://{local}{first}/mcp");
        for mount in http.mounts.iter().skip(1) {
            log::info!("serving http://{local}{}/mcp", mount.prefix);
        }
        Ok(HttpServer { http, local, accept: Some(accept), reaper: Some(reaper) })
    }

    /// The address it listens on (the port the OS chose, when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Serves on the calling thread's behalf until the process ends.
    pub fn wait(mut self) {
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }

    /// Stops accepting, ends every session and connection, and joins every thread it started.
    pub fn shutdown(mut self) {
        self.stop();
    }

    /// Stops gracefully within about `within`, then shuts down:
    /// 1. from now on every new request, and `/healthz`, is answered `503` with `Retry-After: 1`
    ///    and `Connection: close` (it did no work, so a proxy may send it to another server);
    ///    POSTs carrying only answers to the server's requests or notifications still pass, so
    ///    running handlers can finish. The listener stays open until the end, so a health check
    ///    or a request already in the backlog gets that clean `503` rather than a refused or
    ///    reset connection;
    /// 2. requests in flight run to their end, up to `within`; after it they are cancelled and
    ///    each is answered with an error (`Server::drain`);
    /// 3. streams not tied to a request (GET streams, `subscriptions/listen`, legacy SSE) get a
    ///    `retry:` field and end (each within a second);
    /// 4. once every answer is written (at most two seconds past `within`), `shutdown`.
    ///
    /// Returns whether every request finished before `within` ran out.
    pub fn drain(mut self, within: Duration) -> bool {
        let http = Arc::clone(&self.http);
        let deadline = Instant::now() + within;
        http.draining.store(true, Ordering::SeqCst);
        log::info!("draining: new requests get 503; waiting up to {within:?} for requests in flight");
        // One deadline for all: each server gets what is left of it.
        let mut finished = true;
        for mount in &http.mounts {
            finished &= mount.server.drain(deadline.saturating_duration_since(Instant::now()));
        }
        http.streams_ending.store(true, Ordering::SeqCst);
        // Answers are written and streams notice within a slice; cancelled requests still
        // get an answer, so a little past the deadline.
        http.connections.wait_quiet(deadline.max(Instant::now()) + 2 * SLICE);
        self.stop();
        finished
    }

    fn stop(&mut self) {
        let http = &self.http;
        http.stopping.store(true, Ordering::SeqCst);
        *http.stop.0.lock().unwrap_or_else(PoisonError::into_inner) = true;
        http.stop.1.notify_all();
        if let Some(accept) = self.accept.take() {
            // A connection wakes the blocked `accept`; it then sees the flag.
            let _ = TcpStream::connect_timeout(&listener::reachable(self.local), Duration::from_secs(1));
            let _ = accept.join();
        }
        if let Some(reaper) = self.reaper.take() {
            let _ = reaper.join();
        }
        http.sessions.close_all();
        http.legacy.close_all();
        http.connections.close_all();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if self.accept.is_some() {
            self.stop();
        }
    }
}

/// Serves `server` over HTTP on `addr` until the process ends.
pub fn serve(server: Arc<Server>, addr: &str, options: HttpOptions) -> Result<(), Error> {
    HttpServer::start(server, addr, options)?.wait();
    Ok(())
}

/// Sets `TCP_NODELAY` on the listening socket, which the sockets it accepts inherit (Linux and
/// the BSDs), saving a system call per connection; each connection sets it again where that is
/// not so. std has `set_nodelay` only on streams, so the socket passes through one, by its fd.
#[cfg(unix)]
fn no_delay(listener: TcpListener) -> TcpListener {
    use std::os::fd::OwnedFd;
    let socket = TcpStream::from(OwnedFd::from(listener));
    if let Err(e) = socket.set_nodelay(true) {
        log::warn!("cannot set TCP_NODELAY: {e}");
    }
    TcpListener::from(OwnedFd::from(socket))
}

#[cfg(not(unix))]
fn no_delay(listener: TcpListener) -> TcpListener {
    listener
}

/// An answer under construction: status, body and headers, sent in one write.
struct HttpResponse {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
}

impl HttpResponse {
    fn new(status: u16) -> Self {
        HttpResponse { status, body: String::new(), headers: Vec::new() }
    }

    fn json(status: u16, body: String) -> Self {
        HttpResponse { status, body, headers: vec![("Content-Type", "application/json".into())] }
    }

    /// A JSON-RPC error as the body, for statuses that explain a refused message.
    fn rpc_error(status: u16, error: &RpcError) -> Self {
        HttpResponse::json(status, frame::error_response(None, error))
    }

    fn text(status: u16, text: &str) -> Self {
        HttpResponse { status, body: text.into(), headers: vec![("Content-Type", "text/plain; charset=utf-8".into())] }
    }

    /// A request's JSON answer: `200`, or `403` with an `insufficient_scope` challenge naming
    /// every scope the operation needs when its token lacks one (spec, authorization: scope
    /// challenges), so the client can step up and retry; `at`: the server that answered.
    fn of(http: &Http, at: &Mount, answer: &frame::Answer) -> Self {
        let json = HttpResponse::json(200, answer.to_text());
        let (Some(oauth), Err(error)) = (&http.options.access.oauth, &answer.outcome) else { return json };
        if error.code != INSUFFICIENT_SCOPE {
            return json;
        }
        let needed: Vec<&str> = error
            .data
            .as_ref()
            .and_then(|d| d.get("scopes"))
            .and_then(serde_json::Value::as_array)
            .map_or_else(Vec::new, |list| list.iter().filter_map(serde_json::Value::as_str).collect());
        let challenge = oauth.scope_challenge(&needed, &error.message, &at.resource);
        HttpResponse { status: 403, ..json }.with("WWW-Authenticate", challenge)
    }

    fn with_body(mut self, body: String) -> Self {
        self.body = body;
        self
    }

    fn with(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    fn send(self, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
        if self.headers.first().is_some_and(|(_, v)| v == "application/json") {
            log::debug!("-> {}", self.body);
        }
        let headers: Vec<(&str, &str)> = self.headers.iter().chain(cors).map(|(n, v)| (*n, v.as_str())).collect();
        exchange.respond(self.status, &headers, self.body.as_bytes());
    }
}

fn route(http: &Http, exchange: &mut Exchange<'_>) {
    let target = exchange.head.target.clone();
    let method = exchange.head.method.clone();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mounted = mounts::find(&http.mounts, path);
    // Checked before anything else, the body unread: nothing is allocated by a declared length.
    // Invariant: `mounts::table` made at least one mount.
    let cap = mounted.map_or(&http.mounts[0], |(m, _)| m).server.options().max_message_bytes;
    if exchange.declares_over(cap) {
        http.refused(Counted::Size);
        exchange.close_after();
        let error = RpcError::invalid_request(format!("body over the {cap}-byte limit"));
        return HttpResponse::rpc_error(413, &error).send(exchange, &[]);
    }
    let origin = exchange.header("Origin").map(str::to_owned);
    let cors = cors_headers(&http.options.access, origin.as_deref());
    // Repeated lines are one list: a proxy appends its own, and the last entry is what counts.
    let (forwarded_host, forwarded_proto) =
        (exchange.header_list("X-Forwarded-Host"), exchange.header_list("X-Forwarded-Proto"));
    let target = http.options.access.target(
        || exchange.peer_ip(),
        exchange.header("Host"),
        forwarded_host.as_deref(),
        forwarded_proto.as_deref(),
    );
    // Without a token (a load balancer's probe has none), but checked like every path: what
    // fails the `Host` or `Origin` check gets the bare status, never the servers' names.
    if path == "/healthz" {
        if http.draining() {
            return draining(exchange, None, &[], "draining: this server is shutting down\n");
        }
        let place = http.options.access.check_place(&target, origin.as_deref());
        if let Err(why) = &place {
            log::debug!("{method} /healthz: {why}; the bare status only");
        }
        let (status, mut body) = mounts::health(&http.mounts, place.is_ok());
        if let (Ok(()), Some(detail)) = (&place, &http.options.health_detail) {
            body.push_str(&(detail.0)());
        }
        return HttpResponse::text(status, &body).send(exchange, &[]);
    }
    if let Some(oauth) = &http.options.access.oauth {
        if let Some(described) = mounts::metadata_at(&http.mounts, path) {
            let place = http.options.access.check_place(&target, None);
            return resource_metadata(exchange, &oauth.metadata(&described.resource), place);
        }
    }
    // Each server is a resource of its own: a token is checked for the one its path names (a
    // path under none, which is a 404 behind the check, as for the first).
    let resource = mounted.map_or(&http.mounts[0], |(m, _)| m).resource.as_str();
    let checked = http.options.access.check(&target, origin.as_deref(), exchange.header("Authorization"), resource);
    // A preflight carries no credentials; it only learns what the real request may do.
    if method == "OPTIONS" && checked.as_ref().is_err_and(|r| matches!(r, Refusal::Unauthorized(_))) {
        return preflight(exchange, &cors);
    }
    let grant = match checked {
        Err(Refusal::Forbidden(why)) => {
            http.refused(Counted::HostOrigin);
            log::warn!("refused {method} {path}: {why}");
            return HttpResponse::text(403, &format!("forbidden: {why}\n")).send(exchange, &cors);
        }
        Err(Refusal::Unauthorized(failure)) => {
            http.refused(Counted::Auth);
            let challenge = http.options.access.challenge(&failure, resource);
            // Spec (authorization, scope challenges): a valid token short of a scope is a 403.
            let answer = match &failure {
                Failure::Scope(why) => HttpResponse::text(403, &format!("insufficient scope: {why}\n")),
                Failure::Invalid(why) => {
                    log::debug!("refused {method} {path}: {why}");
                    HttpResponse::text(401, "a valid bearer token is required\n")
                }
                Failure::Missing => HttpResponse::text(401, "a valid bearer token is required\n"),
            };
            return answer.with("WWW-Authenticate", challenge).send(exchange, &cors);
        }
        Ok(grant) => grant,
    };
    if path == "/metrics" && http.options.serve_metrics {
        return metrics_page(http, exchange, &cors);
    }
    let scopes = grant.as_ref().map(|g| g.scopes.as_slice());
    let subject = grant.as_ref().and_then(|g| g.subject.as_deref());
    // While draining, only POSTs are read (they may carry answers a running handler waits for;
    // the requests among them are refused, a legacy one on its stream) and DELETEs (they end a
    // session, which is no new work).
    let (at, path) = match mounted {
        Some((at, rest)) => (Some(at), rest),
        None => (None, path),
    };
    let passes = matches!((method.as_str(), path), ("POST", "/mcp" | "/messages") | ("DELETE", "/mcp"));
    if http.draining() && !passes {
        return draining(exchange, None, &cors, "");
    }
    let Some(at) = at.filter(|_| matches!(path, "/mcp" | "/sse" | "/messages") || method == "OPTIONS") else {
        let first = &http.mounts[0].prefix;
        let text = format!("not found: the MCP endpoint is {}/mcp\n", if first.is_empty() { "" } else { "/NAME" });
        return HttpResponse::text(404, &text).send(exchange, &cors);
    };
    match (method.as_str(), path) {
        ("OPTIONS", _) => preflight(exchange, &cors),
        ("POST", "/mcp") => post(http, at, exchange, &cors, scopes, subject),
        ("GET", "/mcp") => streams::get(http, at, exchange, &cors),
        ("DELETE", "/mcp") => delete(http, at, exchange, &cors),
        ("GET", "/sse") => legacy::open(http, at, exchange, &cors),
        ("POST", "/messages") => legacy::post(http, at, exchange, query, &cors, scopes, subject),
        (_, "/mcp") => HttpResponse::text(405, "use POST, GET or DELETE\n")
            .with("Allow", "GET, POST, DELETE")
            .send(exchange, &cors),
        _ => HttpResponse::text(404, "not found: the MCP endpoint is /mcp\n").send(exchange, &cors),
    }
}

/// `/metrics`: every metric in the Prometheus text format (version 0.0.4), or 404 when the
/// server keeps none.
fn metrics_page(http: &Http, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    let Some(metrics) = &http.metrics else {
        return HttpResponse::text(404, "not found: this server keeps no metrics\n").send(exchange, cors);
    };
    match exchange.head.method.as_str() {
        "GET" => HttpResponse::new(200)
            .with("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            .with_body(metrics.render())
            .send(exchange, cors),
        _ => HttpResponse::text(405, "use GET\n").with("Allow", "GET").send(exchange, cors),
    }
}

/// The protected resource metadata (RFC 9728), served without a token since it is how a
/// client learns where to get one; `Host` is still checked. A public document, so any page
/// may read it (CORS `*`).
fn resource_metadata(exchange: &mut Exchange<'_>, metadata: &str, place: Result<(), String>) {
    let cors = [("Access-Control-Allow-Origin", "*".to_owned())];
    if let Err(why) = place {
        return HttpResponse::text(403, &format!("forbidden: {why}\n")).send(exchange, &[]);
    }
    match exchange.head.method.as_str() {
        "GET" => HttpResponse::json(200, metadata.to_owned()).send(exchange, &cors),
        "OPTIONS" => HttpResponse::new(204).with("Access-Control-Allow-Methods", "GET, OPTIONS").send(exchange, &cors),
        _ => HttpResponse::text(405, "use GET\n").with("Allow", "GET").send(exchange, &cors),
    }
}

/// The `503` of a draining server: no work was done, so the client (or a proxy) may send the
/// request again, elsewhere or later. A JSON-RPC error when `text` is empty.
fn draining(exchange: &mut Exchange<'_>, id: Option<&RequestId>, cors: &[(&'static str, String)], text: &str) {
    exchange.close_after();
    let answer = if text.is_empty() {
        HttpResponse::json(503, frame::error_response(id, &tinymcp::transport::kit::shutting_down()))
    } else {
        HttpResponse::text(503, text)
    };
    answer.with("Retry-After", "1").send(exchange, cors)
}

fn cors_headers(access: &Access, origin: Option<&str>) -> Vec<(&'static str, String)> {
    match access.cors_origin(origin) {
        Some(origin) => vec![
            ("Access-Control-Allow-Origin", origin.to_owned()),
            ("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version".into()),
            ("Vary", "Origin".into()),
        ],
        None => Vec::new(),
    }
}

fn preflight(exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    HttpResponse::new(204)
        .with("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
        .with(
            "Access-Control-Allow-Headers",
            "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
        )
        .with("Access-Control-Max-Age", "600")
        .send(exchange, cors)
}

fn accepts(exchange: &Exchange<'_>, kind: &str) -> bool {
    exchange.header("Accept").is_some_and(|a| {
        a.split(',').any(|t| {
            let t = t.split(';').next().unwrap_or("").trim();
            t == kind || t == "*/*"
        })
    })
}

/// Parses and checks a POSTed body: the shared part of `/mcp` and the legacy `/messages`.
fn read_message(at: &Mount, exchange: &mut Exchange<'_>) -> Result<Incoming, HttpResponse> {
    let is_json = exchange
        .header("Content-Type")
        .is_some_and(|c| c.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(HttpResponse::rpc_error(415, &RpcError::invalid_request("Content-Type must be application/json")));
    }
    let cap = at.server.options().max_message_bytes;
    let body = match exchange.read_body(cap) {
        Ok(body) => body,
        Err(BodyError::TooLarge) => {
            at.server.metrics().inspect(|m| m.refused(Counted::Size));
            return Err(HttpResponse::rpc_error(
                413,
                &RpcError::invalid_request(format!("body over the {cap}-byte limit")),
            ));
        }
        Err(BodyError::Malformed(why)) => {
            return Err(HttpResponse::rpc_error(400, &RpcError::invalid_request(format!("bad chunked body: {why}"))))
        }
        Err(BodyError::Io(e)) => {
            return Err(HttpResponse::rpc_error(400, &RpcError::invalid_request(format!("cannot read the body: {e}"))))
        }
    };
    // As over stdio: a body that is not UTF-8 is not JSON, and is not silently repaired.
    let text = String::from_utf8(body).map_err(|e| {
        let error = RpcError::parse_error(format!("parse error: invalid UTF-8 ({})", e.utf8_error()));
        HttpResponse::json(400, frame::error_response(None, &error))
    })?;
    log::debug!("<- {}", at.server.loggable(&text));
    jsonrpc::parse(&text)
        .map_err(|bad: Malformed| HttpResponse::json(400, frame::error_response(bad.id.as_ref(), &bad.error)))
}

/// THE wait for the next outgoing message of a request or a stream, every transport's: the
/// next message from `source`, a slice at a time; `Ok(None)` once nothing more can come (every
/// sender gone). Between slices `between` says whether to wait on (`Ok`) or to stop, and why
/// (the server stopping, the client gone; it may write a keep-alive meanwhile).
fn wait_next<S>(
    mut source: impl FnMut(Duration) -> Result<Outgoing, RecvTimeoutError>,
    mut between: impl FnMut() -> Result<(), S>,
) -> Result<Option<Outgoing>, S> {
    loop {
        match source(SLICE) {
            Ok(message) => return Ok(Some(message)),
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
            Err(RecvTimeoutError::Timeout) => between()?,
        }
    }
}

/// What waiting for a request's next message ended with (`next_answer`).
enum Next {
    Message(Outgoing),
    /// Nothing more will come (cancelled, its session closed), or the server stops.
    Ended,
    /// The client hung up (watched only when `next_answer` is given its exchange).
    ClientGone,
}

/// The next message of a request: `wait_next`, stopping when the server does and, given its
/// exchange, when the client hangs up.
fn next_answer(http: &Http, answers: &BoundedReceiver, client: Option<&Exchange<'_>>) -> Next {
    let between = || match () {
        () if http.stopping() => Err(false),
        () if client.is_some_and(|c| c.client_gone()) => Err(true),
        () => Ok(()),
    };
    match wait_next(|wait| answers.recv_timeout(wait), between) {
        Ok(Some(message)) => Next::Message(message),
        Ok(None) | Err(false) => Next::Ended,
        Err(true) => Next::ClientGone,
    }
}

/// The answer a request gets when its session was deleted while it ran: its handler saw the
/// cancellation and sent nothing, but the client is still owed an answer to its POST.
fn ended_with_session(id: Option<&RequestId>) -> frame::Answer {
    frame::Answer::error(id, RpcError::invalid_request("the session ended before this request finished"))
}

/// A POST to `/mcp`; `scopes`: what its access token granted, when scopes are checked, and
/// `subject`: to whom.
fn post(
    http: &Http,
    at: &Mount,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    scopes: Option<&[String]>,
    subject: Option<&str>,
) {
    if !(accepts(exchange, "application/json") && accepts(exchange, "text/event-stream")) {
        let error = RpcError::invalid_request("Accept must list both application/json and text/event-stream");
        return HttpResponse::rpc_error(406, &error).send(exchange, cors);
    }
    let incoming = match read_message(at, exchange) {
        Ok(incoming) => incoming,
        Err(answer) => return answer.send(exchange, cors),
    };
    let has_requests = match &incoming {
        Incoming::Single(message) => matches!(message, Message::Request(_)),
        Incoming::Batch(items) => items.iter().any(|i| matches!(i, Ok(Message::Request(_)) | Err(_))),
    };
    let request_id = match &incoming {
        Incoming::Single(Message::Request(r)) => Some(r.id.clone()),
        _ => None,
    };
    if has_requests && http.draining() {
        return draining(exchange, request_id.as_ref(), cors, "");
    }
    // The era is decided per message (contract §2.1), once, here: it chooses the connection
    // (2026-07-28 requests need no session) and travels with the message. A server that speaks
    // one era only reads every message in it (`Options::revisions`).
    let revisions = at.server.options().revisions;
    let has_session = exchange.header("Mcp-Session-Id").is_some();
    let mut arrival = Arrival::Http {
        protocol_version: exchange.header("MCP-Protocol-Version").map(str::trim),
        session: has_session,
        scopes,
        subject,
        headers: &exchange.head.headers,
        era: None,
    };
    let era = match &incoming {
        Incoming::Batch(items) if meta::batch_is_per_request(items, arrival, revisions) => {
            return HttpResponse::rpc_error(400, &meta::batch_refused()).send(exchange, cors);
        }
        Incoming::Batch(_) | Incoming::Single(Message::Response(_)) => Era::Handshake,
        Incoming::Single(Message::Request(r)) => meta::era(&r.method, &r.params, arrival, revisions),
        Incoming::Single(Message::Notification(n)) => meta::era(&n.method, &n.params, arrival, revisions),
    };
    if let Arrival::Http { era: decided, .. } = &mut arrival {
        *decided = Some(era);
    }
    if era == Era::PerRequest {
        let listen = matches!(&incoming, Incoming::Single(Message::Request(r))
            if r.method.as_str() == "subscriptions/listen");
        // No session: the request is a connection of its own, ended when the client has its
        // answer or hangs up.
        let connection = Connection::sessionless(Arc::clone(&at.server));
        let (reply, answers) = Sink::bounded(WAITING_FOR_REQUEST, WAITING_BYTES);
        connection.handle(Ok(incoming), arrival, &reply);
        drop(reply);
        if !has_requests {
            return HttpResponse::new(202).send(exchange, cors);
        }
        answer_alone(http, at, exchange, cors, &connection, (request_id.as_ref(), listen), &answers);
        return connection.close();
    }
    let initialize = matches!(&incoming, Incoming::Single(Message::Request(r)) if r.method == "initialize");
    // Without a session (only a server pinned to the handshake revisions keeps a 2026-07-28
    // POST here), the missing session is the refusal, as an older server's.
    if let (Some(version), true) = (exchange.header("MCP-Protocol-Version"), initialize || has_session) {
        if !ProtocolVersion::parse(version).is_some_and(ProtocolVersion::is_stateful) {
            let error = RpcError::invalid_request(format!("unsupported MCP-Protocol-Version {version:?}"));
            return HttpResponse::rpc_error(400, &error).send(exchange, cors);
        }
    }
    // A relaying server's `initialize` starts a process: it takes its place under the cap first,
    // so initializes sent at once cannot start more processes than there are places.
    let place = match (initialize && at.server.is_relay()).then(|| http.sessions.reserve()).transpose() {
        Ok(place) => place,
        Err(refused) => return too_many(http, refused).send(exchange, cors),
    };
    let session = if initialize {
        http.sessions.create(&at.server)
    } else {
        match find_session(http, at, exchange) {
            Ok(session) => session,
            Err(answer) => return answer.send(exchange, cors),
        }
    };
    if has_requests && !initialize {
        session.mark_used();
    }
    // Not evicted while it waits for its answers; counted only until the answer is written (a
    // client may act on the answer before this thread has moved on).
    let busy = session.busy();
    let (reply, answers) = Sink::bounded(WAITING_FOR_REQUEST, WAITING_BYTES);
    session.connection.handle(Ok(incoming), arrival, &reply);
    drop(reply);
    if !has_requests {
        drop(busy);
        return HttpResponse::new(202).send(exchange, cors);
    }
    let mut headers: Vec<(&'static str, String)> = cors.to_vec();
    if initialize {
        // The id says what `initialize` settled, so it is minted now; a failed one leaves
        // no session behind.
        match session.connection.negotiated().map(|n| http.sessions.establish(&session, n, place)) {
            None => session.connection.close(),
            Some(Ok(id)) => headers.push(("Mcp-Session-Id", id)),
            Some(Err(refused)) => {
                session.connection.close();
                drop(busy);
                return too_many(http, refused).send(exchange, cors);
            }
        }
    }
    // The first thing the request produces decides the answer's form: its response alone is
    // JSON; anything before it (progress, logs, requests to the client) makes it a stream.
    let first = match next_answer(http, &answers, None) {
        Next::Message(Outgoing::Response(answer)) => {
            drop(busy);
            if let Some(log) = &http.options.event_log {
                session.keep_state(log);
            }
            return HttpResponse::of(http, at, &answer).send(exchange, &headers);
        }
        Next::Message(Outgoing::Batch(answers)) => {
            drop(busy);
            if let Some(log) = &http.options.event_log {
                session.keep_state(log);
            }
            let body = frame::text_of(|out| frame::write_batch(out, &answers));
            return HttpResponse::json(200, body).send(exchange, &headers);
        }
        Next::Ended | Next::ClientGone => {
            drop(busy);
            if session.connection.is_closed() {
                return HttpResponse::json(200, ended_with_session(request_id.as_ref()).to_text())
                    .send(exchange, &headers);
            }
            // Cancelled: nothing will come.
            return streams::unanswered(exchange, &headers);
        }
        Next::Message(first) => first,
    };
    let version = session.connection.protocol_version();
    let request = streams::Streamed { session: &session, first, answers: &answers, version, id: request_id.as_ref() };
    streams::answer(http, exchange, &headers, request);
}

/// The answer to a 2026-07-28 request served by a connection with no session: its response
/// alone as JSON, with the status its error code says (contract §2.9); an SSE stream when
/// something comes before it (progress, log messages) and for `subscriptions/listen`, whose
/// stream lasts until the client hangs up. Closing the POST cancels the request.
fn answer_alone(
    http: &Http,
    at: &Mount,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    connection: &Connection,
    (id, listen): (Option<&RequestId>, bool),
    answers: &BoundedReceiver,
) {
    let first = match next_answer(http, answers, Some(exchange)) {
        Next::Message(message) => message,
        // Spec (2026-07-28 cancellation over HTTP): closing the POST cancels the request.
        Next::ClientGone => return log::debug!("client hung up; request cancelled"),
        // Cancelled by a drain that ran out of time: the client is still owed an answer.
        Next::Ended if http.draining() => {
            let error = RpcError::invalid_request("the server stopped before this request finished");
            return HttpResponse::json(200, frame::error_response(id, &error)).send(exchange, cors);
        }
        // Ended with nothing written (cancelled): never answered, yet the POST gets a stream.
        Next::Ended => return streams::unanswered(exchange, cors),
    };
    let Outgoing::Response(answer) = first else { return stream_alone(http, exchange, cors, first, answers) };
    let response = match answer.code() {
        // Refused for its `_meta` or its headers before it ran.
        Some(code) if connection.refused() && code != METHOD_NOT_FOUND => HttpResponse::json(400, answer.to_text()),
        // A listen stream refused at the server-wide cap (-32603): capacity, not the request,
        // so 503 with `Retry-After`, as at the other caps.
        Some(INTERNAL_ERROR) if listen => HttpResponse::json(503, answer.to_text()).with("Retry-After", "5"),
        Some(INSUFFICIENT_SCOPE) => HttpResponse::of(http, at, &answer),
        // Header, capability and version errors are 400, an unknown or removed method 404,
        // anything else (a result, a handler's error) 200.
        Some(HEADER_MISMATCH | MISSING_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION) => {
            HttpResponse::json(400, answer.to_text())
        }
        Some(METHOD_NOT_FOUND) => HttpResponse::json(404, answer.to_text()),
        _ => HttpResponse::json(200, answer.to_text()),
    };
    response.send(exchange, cors);
}

/// Writes a 2026-07-28 request's messages as SSE, one JSON per `data:` line (no event ids: no
/// resumption), until its response (or, for a listen stream, until the client hangs up or the
/// server stops or drains).
fn stream_alone(
    http: &Http,
    exchange: &mut Exchange<'_>,
    cors: &[(&'static str, String)],
    first: Outgoing,
    answers: &BoundedReceiver,
) {
    let Ok(mut pump) = Pump::start(exchange, cors) else { return };
    let mut next = Some(first);
    let stop = loop {
        let message = match next
            .take()
            .map_or_else(|| wait_next(|w| answers.recv_timeout(w), || pump.idle(http, true, true)), |m| Ok(Some(m)))
        {
            Ok(Some(message)) => message,
            Ok(None) => break Stop::Finish,
            Err(stop) => break stop,
        };
        if matches!(message, Outgoing::CloseStream) {
            continue;
        }
        if let Err(e) = pump.event(None, None, None, &message.to_text()) {
            log::debug!("per-request stream lost: {e}");
            break Stop::Abandon;
        }
        if message.is_response() {
            break Stop::Finish;
        }
    };
    pump.end(http, stop);
}

fn retry_ms(options: &HttpOptions) -> u64 {
    u64::try_from(options.retry.as_millis()).unwrap_or(u64::MAX)
}

fn find_session(http: &Http, at: &Mount, exchange: &Exchange<'_>) -> Result<Arc<HttpSession>, HttpResponse> {
    let Some(id) = exchange.header("Mcp-Session-Id") else {
        return Err(HttpResponse::rpc_error(
            400,
            &RpcError::invalid_request("Mcp-Session-Id header required: initialize first"),
        ));
    };
    let unknown =
        || HttpResponse::rpc_error(404, &RpcError::invalid_request("unknown or ended session: initialize again"));
    let session =
        http.sessions.get(&at.server, id, http.options.event_log.as_ref()).map_err(|missing| match missing {
            Missing::Unknown => unknown(),
            Missing::Full(max) => too_many(http, Refused::Full(max)),
        })?;
    // A session is served under the name it began at only.
    if !session.connection.serves(&at.server) {
        return Err(unknown());
    }
    // Spec (2025-06-18 transports): the header carries the negotiated revision; another one is
    // a client confused about its own session.
    if let (Some(sent), Some(negotiated)) =
        (exchange.header("MCP-Protocol-Version"), session.connection.protocol_version())
    {
        if ProtocolVersion::parse(sent) != Some(negotiated) {
            let error = RpcError::invalid_request(format!(
                "MCP-Protocol-Version {sent:?} differs from the revision this session negotiated ({negotiated})"
            ));
            return Err(HttpResponse::rpc_error(400, &error));
        }
    }
    Ok(session)
}

/// The answer when no session can be made or rebuilt: `503` at the cap, `500` without randomness.
fn too_many(http: &Http, refused: Refused) -> HttpResponse {
    match refused {
        Refused::Full(max) => {
            http.refused(Counted::SessionCap);
            let error = RpcError::invalid_request(format!("too many sessions (the limit is {max}); try later"));
            HttpResponse::rpc_error(503, &error).with("Retry-After", "5")
        }
        Refused::NoRandom(e) => {
            log::error!("no session id: {e}");
            HttpResponse::rpc_error(500, &RpcError::internal())
        }
    }
}

fn delete(http: &Http, at: &Mount, exchange: &mut Exchange<'_>, cors: &[(&'static str, String)]) {
    match exchange.header("Mcp-Session-Id").map(str::to_owned) {
        None => HttpResponse::rpc_error(400, &RpcError::invalid_request("Mcp-Session-Id header required"))
            .send(exchange, cors),
        Some(id) if http.sessions.delete(&at.server, &id) => HttpResponse::new(200).send(exchange, cors),
        Some(_) => {
            HttpResponse::rpc_error(404, &RpcError::invalid_request("unknown or ended session")).send(exchange, cors)
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::no_delay;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn accepted_sockets_inherit_no_delay() {
        let listener = no_delay(TcpListener::bind("127.0.0.1:0").unwrap());
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (accepted, _) = listener.accept().unwrap();
        assert!(accepted.nodelay().unwrap());
    }
}
