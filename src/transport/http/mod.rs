//! HTTP: Streamable HTTP at `/mcp` (revisions 2025-03-26 to 2025-11-25) and the legacy
//! HTTP+SSE transport of 2024-11-05 (`/sse` and `/messages`). Blocking, a thread per request on
//! top of tiny_http's thread per connection. This file routes and answers; `sessions` keeps the
//! session table, `sse` the event framing and replay, `security` the access checks.

// SEP-2243 request headers (2026-07-28): waits for issue 12's integration to be called.
#[allow(dead_code)]
mod headers;
mod legacy;
mod nudge;
mod security;
mod sessions;
mod sse;

pub use security::Access;

use crate::error::Error;
use crate::server::connection::{Outgoing, Sink};
use crate::server::pool::Pool;
use crate::server::Server;
use crate::wire::jsonrpc::{self, Incoming, Malformed, Message, RpcError};
use crate::wire::version::ProtocolVersion;
use security::Refusal;
use sessions::{HttpSession, Refused, Sessions};
use sse::{SseWriter, Stream};
use std::io::Read;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, PoisonError};
use std::thread;
use std::time::Duration;
use tiny_http::{Header, Method, Request, Response};

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Who may connect.
    pub access: Access,
    /// Sessions at once; more are refused with 503.
    pub max_sessions: usize,
    /// A session unused this long ends.
    pub session_idle: Duration,
    /// GET streams one session may hold open.
    pub max_streams_per_session: usize,
    /// An idle stream gets a comment this often.
    pub keep_alive: Duration,
    /// Sent as SSE `retry:` with the priming event (2025-11-25).
    pub retry: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            access: Access { loopback_only: true, ..Default::default() },
            max_sessions: 1000,
            session_idle: Duration::from_secs(30 * 60),
            max_streams_per_session: 8,
            keep_alive: Duration::from_secs(15),
            retry: Duration::from_secs(3),
        }
    }
}

/// Threads that only move bytes need little stack.
const STACK: usize = 128 * 1024;

struct Http {
    server: Arc<Server>,
    options: HttpOptions,
    sessions: Sessions,
    legacy: legacy::Legacy,
}

/// Serves `server` over HTTP on `addr` until the process ends.
pub fn serve(server: Arc<Server>, addr: &str, options: HttpOptions) -> Result<(), Error> {
    let bound =
        std::net::TcpListener::bind(addr).map_err(|e| Error::Io(std::io::Error::other(format!("{addr}: {e}"))))?;
    // The bound address, not the asked one: with port 0 the log names the port the OS chose.
    let local = bound.local_addr()?;
    let nudger = nudge::Nudger::start(local);
    let listener = tiny_http::Server::from_listener(no_delay(bound), None)
        .map_err(|e| Error::Io(std::io::Error::other(format!("{addr}: {e}"))))?;
    log::info!("listening on http://{local}/mcp");
    let http = Arc::new(Http {
        sessions: Sessions::new(options.max_sessions, options.session_idle),
        legacy: legacy::Legacy::default(),
        server,
        options,
    });
    let reaper = Arc::clone(&http);
    thread::Builder::new().name("mcp-http-reaper".into()).stack_size(STACK).spawn(move || loop {
        thread::sleep(Duration::from_secs(10));
        reaper.sessions.expire();
    })?;
    // Request threads are pooled: starting a thread per request cost more than an `echo`. A
    // request that blocks (an SSE stream) makes the pool's monitor add a thread.
    let requests = Pool::for_blocking_jobs(4, 8192);
    for request in listener.incoming_requests() {
        if let Some(nudger) = &nudger {
            nudger.request_seen();
        }
        let http = Arc::clone(&http);
        requests.spawn(move || route(&http, request));
    }
    Ok(())
}

/// Sets `TCP_NODELAY` on the listening socket, which the sockets it accepts inherit (Linux and
/// the BSDs): tiny_http never sets it, and an answer held back by Nagle waits for a delayed ACK.
/// std has `set_nodelay` only on streams, so the socket passes through one, safely, by its fd.
#[cfg(unix)]
fn no_delay(listener: std::net::TcpListener) -> std::net::TcpListener {
    use std::os::fd::OwnedFd;
    let socket = std::net::TcpStream::from(OwnedFd::from(listener));
    if let Err(e) = socket.set_nodelay(true) {
        log::warn!("cannot set TCP_NODELAY: {e}");
    }
    std::net::TcpListener::from(OwnedFd::from(socket))
}

#[cfg(not(unix))]
fn no_delay(listener: std::net::TcpListener) -> std::net::TcpListener {
    listener
}

fn header<'a>(request: &'a Request, name: &'static str) -> Option<&'a str> {
    request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str())
}

fn make_header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// An answer under construction: status, body and headers, sent in one write.
struct Answer {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
}

impl Answer {
    fn new(status: u16) -> Self {
        Answer { status, body: String::new(), headers: Vec::new() }
    }

    fn json(status: u16, body: String) -> Self {
        Answer { status, body, headers: vec![("Content-Type", "application/json".into())] }
    }

    /// A JSON-RPC error as the body, for statuses that explain a refused message.
    fn rpc_error(status: u16, error: &RpcError) -> Self {
        Answer::json(status, jsonrpc::error_response(None, error))
    }

    fn text(status: u16, text: &str) -> Self {
        Answer { status, body: text.into(), headers: vec![("Content-Type", "text/plain; charset=utf-8".into())] }
    }

    fn with(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    fn send(self, request: Request, cors: &[(&'static str, String)]) {
        let mut response = Response::from_string(self.body).with_status_code(self.status);
        for (name, value) in self.headers.iter().chain(cors) {
            if let Some(h) = make_header(name, value) {
                response.add_header(h);
            }
        }
        if let Err(e) = request.respond(response) {
            log::debug!("client went away before the answer: {e}");
        }
    }
}

fn route(http: &Http, request: Request) {
    let url = request.url().to_owned();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    if path == "/healthz" {
        return Answer::text(200, "ok\n").send(request, &[]);
    }
    let origin = header(&request, "Origin").map(str::to_owned);
    let cors = cors_headers(&http.options.access, origin.as_deref());
    let checked =
        http.options.access.check(header(&request, "Host"), origin.as_deref(), header(&request, "Authorization"));
    // A preflight carries no credentials; it only learns what the real request may do.
    if *request.method() == Method::Options && checked.as_ref().is_err_and(|r| *r == Refusal::Unauthorized) {
        return preflight(request, &cors);
    }
    match checked {
        Err(Refusal::Forbidden(why)) => {
            log::warn!("refused {} {path}: {why}", request.method());
            return Answer::text(403, &format!("forbidden: {why}\n")).send(request, &cors);
        }
        Err(Refusal::Unauthorized) => {
            return Answer::text(401, "a valid bearer token is required\n")
                .with("WWW-Authenticate", "Bearer")
                .send(request, &cors);
        }
        Ok(()) => {}
    }
    let method = request.method().clone();
    match (&method, path) {
        (Method::Options, _) => preflight(request, &cors),
        (Method::Post, "/mcp") => post(http, request, &cors),
        (Method::Get, "/mcp") => get(http, request, &cors),
        (Method::Delete, "/mcp") => delete(http, request, &cors),
        (Method::Get, "/sse") => legacy::open(http, request, &cors),
        (Method::Post, "/messages") => legacy::post(http, request, query, &cors),
        (_, "/mcp") => {
            Answer::text(405, "use POST, GET or DELETE\n").with("Allow", "GET, POST, DELETE").send(request, &cors)
        }
        _ => Answer::text(404, "not found: the MCP endpoint is /mcp\n").send(request, &cors),
    }
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

fn preflight(request: Request, cors: &[(&'static str, String)]) {
    Answer::new(204)
        .with("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
        .with(
            "Access-Control-Allow-Headers",
            "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
        )
        .with("Access-Control-Max-Age", "600")
        .send(request, cors)
}

/// Reads the body up to the cap; `None` when it is larger.
fn read_body(request: &mut Request, cap: usize) -> std::io::Result<Option<String>> {
    if request.body_length().is_some_and(|n| n > cap) {
        return Ok(None);
    }
    let mut body = Vec::new();
    request.as_reader().take(cap as u64 + 1).read_to_end(&mut body)?;
    if body.len() > cap {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&body).into_owned()))
}

fn accepts(request: &Request, kind: &str) -> bool {
    header(request, "Accept").is_some_and(|a| {
        a.split(',').any(|t| {
            let t = t.split(';').next().unwrap_or("").trim();
            t == kind || t == "*/*"
        })
    })
}

/// Parses and checks a POSTed body: the shared part of `/mcp` and the legacy `/messages`.
fn read_message(http: &Http, request: &mut Request) -> Result<Incoming, Answer> {
    let is_json = header(request, "Content-Type")
        .is_some_and(|c| c.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(Answer::rpc_error(415, &RpcError::invalid_request("Content-Type must be application/json")));
    }
    let cap = http.server.options().max_message_bytes;
    let body = match read_body(request, cap) {
        Ok(Some(body)) => body,
        Ok(None) => {
            return Err(Answer::rpc_error(413, &RpcError::invalid_request(format!("body over the {cap}-byte limit"))))
        }
        Err(e) => return Err(Answer::rpc_error(400, &RpcError::invalid_request(format!("cannot read the body: {e}")))),
    };
    jsonrpc::parse(&body)
        .map_err(|bad: Malformed| Answer::json(400, jsonrpc::error_response(bad.id.as_ref(), &bad.error)))
}

fn post(http: &Http, mut request: Request, cors: &[(&'static str, String)]) {
    if !(accepts(&request, "application/json") && accepts(&request, "text/event-stream")) {
        let error = RpcError::invalid_request("Accept must list both application/json and text/event-stream");
        return Answer::rpc_error(406, &error).send(request, cors);
    }
    if let Some(version) = header(&request, "MCP-Protocol-Version") {
        if !ProtocolVersion::parse(version).is_some_and(ProtocolVersion::is_stateful) {
            let error = RpcError::invalid_request(format!("unsupported MCP-Protocol-Version {version:?}"));
            return Answer::rpc_error(400, &error).send(request, cors);
        }
    }
    let incoming = match read_message(http, &mut request) {
        Ok(incoming) => incoming,
        Err(answer) => return answer.send(request, cors),
    };
    let initialize = matches!(&incoming, Incoming::Single(Message::Request(r)) if r.method == "initialize");
    let session = if initialize {
        match http.sessions.create(&http.server) {
            Ok(session) => session,
            Err(Refused::Full(max)) => {
                let error = RpcError::invalid_request(format!("too many sessions (the limit is {max}); try later"));
                return Answer::rpc_error(503, &error).with("Retry-After", "5").send(request, cors);
            }
            Err(Refused::NoRandom(e)) => {
                log::error!("no session id: {e}");
                return Answer::rpc_error(500, &RpcError::internal()).send(request, cors);
            }
        }
    } else {
        match find_session(http, &request) {
            Ok(session) => session,
            Err(answer) => return answer.send(request, cors),
        }
    };
    let has_requests = match &incoming {
        Incoming::Single(message) => matches!(message, Message::Request(_)),
        Incoming::Batch(items) => items.iter().any(|i| matches!(i, Ok(Message::Request(_)) | Err(_))),
    };
    let (reply, answers) = Sink::channel();
    session.connection.handle(Ok(incoming), &reply);
    drop(reply);
    if !has_requests {
        return Answer::new(202).send(request, cors);
    }
    let mut headers: Vec<(&'static str, String)> = cors.to_vec();
    if initialize {
        if session.connection.session().protocol_version().is_none() {
            // A failed initialize leaves no session behind.
            http.sessions.remove(&session.id);
        } else {
            headers.push(("Mcp-Session-Id", session.id.clone()));
        }
    }
    // The first thing the request produces decides the answer's form: its response alone is
    // JSON; anything before it (progress, logs, requests to the client) makes it a stream.
    match answers.recv() {
        Ok(Outgoing::Response(json)) => Answer::json(200, json).send(request, &headers),
        Ok(first) => {
            let version = session.connection.session().protocol_version();
            stream_answers(request, &headers, &session, first, &answers, version, &http.options);
        }
        // Cancelled: nothing will come.
        Err(_) => Answer::new(202).send(request, &headers),
    }
}

/// Whether streams start with a priming event (an id and `retry:`, empty data) so a client can
/// resume them after the server or the network closes them (2025-11-25, SEP-1699).
fn primes(version: Option<ProtocolVersion>) -> bool {
    version.is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
}

/// Answers a POST as an SSE stream: every message of the request in order, the response last.
/// Messages go through the stream's replay buffer, and the request's messages keep being
/// collected after the client drops the connection, so a GET with `Last-Event-ID` gets them.
fn stream_answers(
    request: Request,
    headers: &[(&'static str, String)],
    session: &HttpSession,
    first: Outgoing,
    answers: &Receiver<Outgoing>,
    version: Option<ProtocolVersion>,
    options: &HttpOptions,
) {
    let stream = session.new_stream(true);
    let mut writer = SseWriter::start(request, headers).ok();
    if primes(version) {
        writer = writer
            .and_then(|mut w| w.event(Some(&stream.event_id(0)), None, Some(retry_ms(options)), "").ok().map(|_| w));
    }
    let mut next = Some(first);
    while let Some(message) = next.take().or_else(|| answers.recv().ok()) {
        if message == Outgoing::CloseStream {
            // Only a primed stream can be resumed: before 2025-11-25 the client may hold no id.
            if let Some(w) = writer.take_if(|_| primes(version)) {
                log::debug!("closing stream {} early; the client polls back for the rest", stream.id);
                let _ = w.finish();
                stream.detach();
            }
            continue;
        }
        let last = matches!(message, Outgoing::Response(_));
        let json = message.json().to_owned();
        let seq = stream.push(json.clone(), last);
        if let Some(w) = writer.as_mut() {
            if let Err(e) = w.event(Some(&stream.event_id(seq)), None, None, &json) {
                log::debug!("stream {} lost ({e}); its messages are kept for resumption", stream.id);
                writer = None;
                stream.detach();
            }
        }
        if last {
            break;
        }
    }
    // Without a writer the stream was detached when it was lost or closed; a resumed
    // connection may hold it by now.
    if let Some(w) = writer {
        let _ = w.finish();
        stream.detach();
    }
}

fn retry_ms(options: &HttpOptions) -> u64 {
    u64::try_from(options.retry.as_millis()).unwrap_or(u64::MAX)
}

fn find_session(http: &Http, request: &Request) -> Result<Arc<HttpSession>, Answer> {
    let Some(id) = header(request, "Mcp-Session-Id") else {
        return Err(Answer::rpc_error(
            400,
            &RpcError::invalid_request("Mcp-Session-Id header required: initialize first"),
        ));
    };
    let session = http.sessions.get(id).ok_or_else(|| {
        Answer::rpc_error(404, &RpcError::invalid_request("unknown or ended session: initialize again"))
    })?;
    // Spec (2025-06-18 transports): the header carries the negotiated revision; another one is
    // a client confused about its own session.
    if let (Some(sent), Some(negotiated)) =
        (header(request, "MCP-Protocol-Version"), session.connection.session().protocol_version())
    {
        if ProtocolVersion::parse(sent) != Some(negotiated) {
            let error = RpcError::invalid_request(format!(
                "MCP-Protocol-Version {sent:?} differs from the revision this session negotiated ({negotiated})"
            ));
            return Err(Answer::rpc_error(400, &error));
        }
    }
    Ok(session)
}

/// GET opens a standalone stream for messages not tied to a request, or resumes a stream after
/// the `Last-Event-ID` the client saw.
fn get(http: &Http, request: Request, cors: &[(&'static str, String)]) {
    if !accepts(&request, "text/event-stream") {
        let error = RpcError::invalid_request("Accept must list text/event-stream");
        return Answer::rpc_error(406, &error).send(request, cors);
    }
    let session = match find_session(http, &request) {
        Ok(session) => session,
        Err(answer) => return answer.send(request, cors),
    };
    let resume = header(&request, "Last-Event-ID").and_then(sse::parse_event_id);
    let resumed = resume.and_then(|(id, seq)| Some((session.stream(id)?, seq)));
    if resume.is_some() && resumed.is_none() {
        return Answer::rpc_error(404, &RpcError::invalid_request("that stream is gone")).send(request, cors);
    }
    if let Some((stream, _)) = &resumed {
        if !stream.attach() {
            let error = RpcError::invalid_request("that stream is still open on another connection");
            return Answer::rpc_error(409, &error).send(request, cors);
        }
    }
    let open = session.open_streams.fetch_add(1, Ordering::SeqCst);
    if open >= http.options.max_streams_per_session {
        session.open_streams.fetch_sub(1, Ordering::SeqCst);
        if let Some((stream, _)) = &resumed {
            stream.detach();
        }
        let error = RpcError::invalid_request(format!(
            "too many open streams for this session (the limit is {})",
            http.options.max_streams_per_session
        ));
        return Answer::rpc_error(429, &error).send(request, cors);
    }
    let version = session.connection.session().protocol_version();
    match resumed {
        Some((stream, seq)) => resume_stream(request, cors, &session, &stream, seq, &http.options),
        None => {
            let stream = session.new_stream(false);
            match SseWriter::start(request, cors) {
                Ok(mut writer) => {
                    let primed = !primes(version)
                        || writer.event(Some(&stream.event_id(0)), None, Some(retry_ms(&http.options)), "").is_ok();
                    if primed {
                        standalone(writer, &session, &stream, &http.options);
                    }
                }
                Err(e) => log::debug!("GET stream failed to start: {e}"),
            }
            stream.detach();
        }
    }
    session.open_streams.fetch_sub(1, Ordering::SeqCst);
}

/// Replays what a stream holds after `seq`, then follows it: to its end for a POST's stream,
/// on as a standalone stream otherwise.
fn resume_stream(
    request: Request,
    cors: &[(&'static str, String)],
    session: &HttpSession,
    stream: &Arc<Stream>,
    mut seq: u64,
    options: &HttpOptions,
) {
    let Ok(mut writer) = SseWriter::start(request, cors) else {
        stream.detach();
        return;
    };
    loop {
        let (events, done) = stream.after(seq, options.keep_alive);
        let idle = events.is_empty();
        for (s, json) in events {
            if writer.event(Some(&stream.event_id(s)), None, None, &json).is_err() {
                stream.detach();
                return;
            }
            seq = s;
        }
        if done {
            let _ = writer.finish();
            stream.detach();
            return;
        }
        if !stream.for_request {
            // A standalone stream: what was missed is out, now live messages.
            standalone(writer, session, stream, options);
            stream.detach();
            return;
        }
        if idle && (writer.comment("keep-alive").is_err() || session.connection.session().is_closed()) {
            stream.detach();
            return;
        }
    }
}

/// Forwards the session's messages not tied to a request until the client or session goes.
fn standalone(mut writer: SseWriter, session: &HttpSession, stream: &Stream, options: &HttpOptions) {
    loop {
        if session.connection.session().is_closed() {
            let _ = writer.finish();
            return;
        }
        let next = session.notices.lock().unwrap_or_else(PoisonError::into_inner).recv_timeout(options.keep_alive);
        let written = match next {
            Ok(Outgoing::CloseStream) => Ok(()),
            Ok(message) => {
                let json = message.json().to_owned();
                let seq = stream.push(json.clone(), false);
                writer.event(Some(&stream.event_id(seq)), None, None, &json)
            }
            Err(RecvTimeoutError::Timeout) => writer.comment("keep-alive"),
            Err(RecvTimeoutError::Disconnected) => {
                let _ = writer.finish();
                return;
            }
        };
        session.touch();
        if let Err(e) = written {
            log::debug!("GET stream {} closed: {e}", stream.id);
            return;
        }
    }
}

fn delete(http: &Http, request: Request, cors: &[(&'static str, String)]) {
    match header(&request, "Mcp-Session-Id") {
        None => {
            Answer::rpc_error(400, &RpcError::invalid_request("Mcp-Session-Id header required")).send(request, cors)
        }
        Some(id) if http.sessions.remove(id) => Answer::new(200).send(request, cors),
        Some(_) => Answer::rpc_error(404, &RpcError::invalid_request("unknown or ended session")).send(request, cors),
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
