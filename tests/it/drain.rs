//! SIGTERM drains (`--drain-secs`): new requests and `/healthz` get 503 with `Retry-After` and
//! `Connection: close`, requests in flight are answered, open streams (GET, listen, legacy SSE)
//! end with a `retry:` hint, and the process exits 0 in time; over stdio too. And behind a
//! proxy: `X-Forwarded-Host` counts only from the `--trusted-proxy` peer.

use crate::raw_http::{read_chunk, read_head, write_request, Server, ACCEPT_BOTH, JSON};
use crate::stateless_http::body;
use crate::support::{check, eventually, wait_for, Client};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

pub(crate) fn sigterm(pid: u32) {
    let status = Command::new("kill").args(["-TERM", &pid.to_string()]).status().expect("run kill");
    assert!(status.success(), "kill -TERM {pid}");
}

pub(crate) fn exit_within(server: &mut Server, within: Duration) -> ExitStatus {
    let child = &mut server.child;
    wait_for("the server to exit", within, || child.try_wait().expect("wait"))
}

/// Reads a chunked SSE body to its end: every chunk, in order.
fn chunks_to_end(reader: &mut impl BufRead) -> Vec<String> {
    let mut chunks = Vec::new();
    while let Some(chunk) = read_chunk(reader) {
        chunks.push(String::from_utf8(chunk).expect("UTF-8"));
    }
    chunks
}

/// Opens a legacy SSE session at 2024-11-05: its stream and the URL to POST to.
pub(crate) fn legacy_session(server: &Server) -> (BufReader<TcpStream>, String) {
    let mut get = server.connect();
    write_request(&mut get, server.port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut reader = BufReader::new(get);
    assert_eq!(read_head(&mut reader).status, 200);
    let first = String::from_utf8(read_chunk(&mut reader).expect("the endpoint event")).unwrap();
    let endpoint = first.lines().find_map(|l| l.strip_prefix("data: ")).expect("endpoint").to_owned();
    let mut init = crate::raw_http::initialize(json!({}));
    init["params"]["protocolVersion"] = json!("2024-11-05");
    assert_eq!(server.send("POST", &endpoint, &[JSON], &init.to_string()).status, 202);
    let answer = String::from_utf8(read_chunk(&mut reader).expect("initialize answered")).unwrap();
    assert!(answer.contains("\"protocolVersion\":\"2024-11-05\""), "{answer}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.send("POST", &endpoint, &[JSON], &initialized.to_string()).status, 202);
    (reader, endpoint)
}

#[test]
fn sigterm_over_http_answers_what_runs_refuses_new_work_ends_streams_and_exits_0() {
    let mut server = Server::start(&["--drain-secs", "10"], &[]);
    assert_eq!(server.send("GET", "/healthz", &[], "").status, 200, "healthy while serving");

    // A slow tool in flight: over legacy SSE a 202 says the request was admitted.
    let (mut legacy, endpoint) = legacy_session(&server);
    let slow = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_slow", "arguments": {"ms": 1500}}});
    assert_eq!(server.send("POST", &endpoint, &[JSON], &slow.to_string()).status, 202);

    // A GET stream of a 2025-11-25 session, past its priming event.
    let session = server.session(json!({}));
    let mut get = server.connect();
    let get_headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", session.as_str())];
    write_request(&mut get, server.port, "GET", "/mcp", &get_headers, "");
    let mut get = BufReader::new(get);
    assert_eq!(read_head(&mut get).status, 200);
    assert!(String::from_utf8(read_chunk(&mut get).unwrap()).unwrap().contains("retry: "), "primed");

    // A 2026-07-28 listen stream, past its acknowledgement.
    let listen = body(7, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    let mut open = server.connect();
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut open, server.port, "POST", "/mcp", &headers, &listen.to_string());
    let mut listen = BufReader::new(open);
    let head = read_head(&mut listen);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("x-accel-buffering"), Some("no"), "nginx must not buffer SSE");
    assert!(String::from_utf8(read_chunk(&mut listen).unwrap()).unwrap().contains("acknowledged"));

    let signalled = Instant::now();
    sigterm(server.child.id());

    // Health checks and new requests: 503, retry in a second, on a connection that closes.
    eventually("/healthz says 503", || server.send("GET", "/healthz", &[], "").status == 503);
    let health = server.send("GET", "/healthz", &[], "");
    assert_eq!(health.header("retry-after"), Some("1"));
    assert_eq!(health.header("connection"), Some("close"));
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let refused = server.post(&[("Mcp-Session-Id", &session)], &ping);
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.header("connection"), Some("close"));
    check(&refused.json(), json!({"id": 9, "error": {"code": -32603}}));
    let fresh = server.post(&[], &crate::raw_http::initialize(json!({})));
    assert_eq!(fresh.status, 503, "no new session either");
    // A legacy client's request is refused on its stream.
    let legacy_ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(server.send("POST", &endpoint, &[JSON], &legacy_ping.to_string()).status, 202);

    // The slow call is answered on its stream, which then ends with a retry hint.
    let rest = chunks_to_end(&mut legacy).join("");
    assert!(rest.contains("slept 1500 ms"), "{rest}");
    assert!(rest.contains(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603"#), "{rest}");
    assert!(rest.ends_with("retry: 3000\n\n"), "{rest}");
    // The GET and listen streams end the same way.
    let get_rest = chunks_to_end(&mut get);
    assert_eq!(get_rest.last().map(String::as_str), Some("retry: 3000\n\n"), "{get_rest:?}");
    let listen_rest = chunks_to_end(&mut listen);
    assert_eq!(listen_rest.last().map(String::as_str), Some("retry: 3000\n\n"), "{listen_rest:?}");

    let status = exit_within(&mut server, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    let took = signalled.elapsed();
    assert!(took >= Duration::from_millis(1000), "the slow call was waited for ({took:?})");
}

/// Calls `test_sampling` on a 2025-11-25 session: the answer's stream, past the sampling
/// request it carries (which proves the call is running), and that request.
fn sampling_call(server: &Server, session: &str) -> (BufReader<TcpStream>, Value) {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}});
    let mut post = server.connect();
    let headers = [ACCEPT_BOTH, JSON, ("Mcp-Session-Id", session)];
    write_request(&mut post, server.port, "POST", "/mcp", &headers, &call.to_string());
    let mut post = BufReader::new(post);
    assert_eq!(read_head(&mut post).status, 200);
    loop {
        let chunk = String::from_utf8(read_chunk(&mut post).expect("an event")).unwrap();
        if let Some((_, message)) = crate::raw_http::sse_events(&chunk).pop() {
            assert_eq!(message["method"], "sampling/createMessage", "{message}");
            return (post, message);
        }
    }
}

#[test]
fn a_post_carrying_an_answer_still_passes_while_draining() {
    let mut server = Server::start(&["--drain-secs", "10"], &[]);
    let session = server.session(json!({"sampling": {}}));
    let (mut post, request) = sampling_call(&server, &session);
    sigterm(server.child.id());
    eventually("/healthz says 503", || server.send("GET", "/healthz", &[], "").status == 503);
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}});
    let accepted = server.post(&[("Mcp-Session-Id", &session)], &answer);
    assert_eq!(accepted.status, 202, "an answer the running call waits for: {}", accepted.body);
    let rest = chunks_to_end(&mut post).join("");
    let events = crate::raw_http::sse_events(&rest);
    let (_, response) = events.last().expect("the call's response");
    check(response, json!({"id": 2, "result": {"content": [{"type": "text"}]}}));
    assert!(exit_within(&mut server, Duration::from_secs(10)).success());
}

#[test]
fn an_idle_http_server_drains_at_once() {
    let mut server = Server::start(&[], &[]);
    sigterm(server.child.id());
    // Well before the drain's 10 s: nothing was waited for.
    assert!(exit_within(&mut server, Duration::from_secs(5)).success());
}

#[test]
fn sigterm_over_stdio_answers_what_runs_and_exits_0() {
    let mut client = Client::spawn(&["--everything", "--drain-secs", "10"]);
    client.initialize("2025-11-25", json!({}));
    let slow = client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 1000}}));
    // Lines are read in order: once the ping is answered, the slow call was taken.
    client.request("ping", json!({}));
    sigterm(client.pid());
    let answer = client.response(&slow);
    check(&answer, json!({"result": {"content": [{"text": "slept 1000 ms"}]}}));
    assert!(client.exit_within(Duration::from_secs(10)).success());
}

#[test]
fn past_drain_secs_what_still_runs_is_cancelled_and_the_process_exits_0() {
    let mut client = Client::spawn(&["--everything", "--drain-secs", "1"]);
    client.initialize("2025-11-25", json!({}));
    client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 60000}}));
    client.request("ping", json!({}));
    let signalled = Instant::now();
    sigterm(client.pid());
    // Well before the call's 60 s, and not before the drain's second.
    assert!(client.exit_within(Duration::from_secs(10)).success());
    let took = signalled.elapsed();
    assert!(took >= Duration::from_secs(1), "{took:?}");
}

#[test]
fn past_drain_secs_an_http_request_in_flight_is_cancelled_and_answered_with_an_error() {
    let mut server = Server::start(&["--drain-secs", "1"], &[]);
    let session = server.session(json!({"sampling": {}}));
    let (mut post, _) = sampling_call(&server, &session);
    let signalled = Instant::now();
    sigterm(server.child.id());
    // Never answered: after a second the call is cancelled, and its POST still gets an answer.
    let rest = chunks_to_end(&mut post).join("");
    let (_, response) = crate::raw_http::sse_events(&rest).pop().expect("an answer");
    check(&response, json!({"id": 2, "error": {"code": -32600}}));
    assert!(exit_within(&mut server, Duration::from_secs(10)).success());
    let took = signalled.elapsed();
    assert!(took >= Duration::from_secs(1), "{took:?}");
}

/// A request as a reverse proxy sends it: `Host` names the upstream, the client's own host is
/// in `X-Forwarded-Host`.
fn proxied_status(server: &Server, forwarded_host: &str) -> u16 {
    let headers = [("Host", "mcp_replicas"), ("X-Forwarded-Host", forwarded_host), ("X-Forwarded-Proto", "http")];
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let mut all = vec![ACCEPT_BOTH, JSON];
    all.extend_from_slice(&headers);
    server.send("POST", "/mcp", &all, &ping.to_string()).status
}

#[test]
fn forwarded_host_counts_from_the_trusted_proxy_only() {
    // The test connects from 127.0.0.1: the trusted proxy.
    let trusted = Server::start(&["--trusted-proxy", "127.0.0.1"], &[]);
    assert_ne!(proxied_status(&trusted, "localhost:8080"), 403, "the client's own host is loopback");
    assert_eq!(proxied_status(&trusted, "evil.example"), 403, "DNS rebinding through the proxy");
    // Another proxy is trusted: this peer's forged X-Forwarded-Host is ignored, Host decides.
    let other = Server::start(&["--trusted-proxy", "10.9.9.9"], &[]);
    assert_eq!(proxied_status(&other, "localhost:8080"), 403);
    let bad = crate::support::run_binary(&["--trusted-proxy", "proxy.example:80"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected an IP address"));
}

/// An embedded server with a very short keep-alive (10 ms) and a tool that reports progress,
/// then works quietly until the flag it returns is set.
fn embedded_with_quiet_tool() -> (tinymcp_http::HttpServer, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use tinymcp::{CallToolResult, Tool};
    use tinymcp_http::{HttpOptions, HttpServer};
    let server = tinymcp::Server::new("embedded", "1.0.0");
    let release = std::sync::Arc::new(AtomicBool::new(false));
    let released = std::sync::Arc::clone(&release);
    server.register_tool(
        Tool::new("quiet", "Progress, then silence until released", json!({"type": "object"})),
        move |cx, _| {
            cx.progress(1.0, None, None);
            let waited = std::time::Instant::now();
            while !released.load(Ordering::SeqCst) && waited.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(CallToolResult::text("done"))
        },
    );
    let mut options = HttpOptions::default();
    options.keep_alive = Duration::from_millis(10);
    let http = HttpServer::start(std::sync::Arc::new(server), "127.0.0.1:0", options).expect("start");
    (http, release)
}

#[test]
fn a_post_answer_stream_gets_keep_alive_comments_while_its_handler_is_quiet() {
    let (http, release) = embedded_with_quiet_tool();
    let port = http.local_addr().port();
    let post = |headers: &[(&str, &str)], message: &Value| {
        let mut stream = crate::raw_http::connect(port);
        let mut all = vec![ACCEPT_BOTH, JSON];
        all.extend_from_slice(headers);
        write_request(&mut stream, port, "POST", "/mcp", &all, &message.to_string());
        BufReader::new(stream)
    };
    let init = crate::raw_http::read_reply(&mut post(&[], &crate::raw_http::initialize(json!({}))));
    let session = init.header("mcp-session-id").expect("a session").to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "quiet", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let mut reply = post(&[("Mcp-Session-Id", &session)], &call);
    let head = read_head(&mut reply);
    assert_eq!(head.header("x-accel-buffering"), Some("no"));
    // Progress, then a keep-alive comment while the tool is quiet; released, then the response.
    let mut seen = String::new();
    while !seen.contains(": keep-alive") {
        seen.push_str(&String::from_utf8(read_chunk(&mut reply).expect("an event")).unwrap());
    }
    release.store(true, std::sync::atomic::Ordering::SeqCst);
    seen.push_str(&chunks_to_end(&mut reply).join(""));
    let progress = seen.find("notifications/progress").expect("progress first");
    let comment = seen.find(": keep-alive").expect("a keep-alive comment while the tool is quiet");
    let response = seen.find("\"id\":2").expect("the response");
    assert!(progress < comment && comment < response, "{seen}");
    // The library's drain: nothing in flight any more, so it finishes in time.
    assert!(http.drain(Duration::from_secs(5)));
}
