//! Streamable HTTP and legacy SSE, spoken byte by byte over a TcpStream to the real binary.

use crate::raw_http::{initialize, read_reply, write_request, Server, ACCEPT_BOTH, JSON};
use crate::support::{announced_port, binary, last_id_at_first_progress, wait_for, SchemaBook, TIMEOUT};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn initialize_mints_a_visible_ascii_session_and_answers_json() {
    let server = Server::start(&[], &[]);
    let reply = server.post(&[], &initialize(json!({})));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let id = reply.header("mcp-session-id").unwrap();
    assert!(id.len() >= 32 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{id}");
    SchemaBook::get().validate("2025-11-25", "JSONRPCResponse", &reply.json());
    SchemaBook::get().validate("2025-11-25", "InitializeResult", &reply.json()["result"]);
    let other = server.post(&[], &initialize(json!({})));
    assert_ne!(other.header("mcp-session-id"), Some(id));
}

#[test]
fn bad_requests_get_the_right_status() {
    let server = Server::start(&["--max-message-bytes", "2000"], &[]);
    let session = server.session(json!({}));
    let sid = ("Mcp-Session-Id", session.as_str());
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}).to_string();
    let only_json = server.send("POST", "/mcp", &[("Accept", "application/json"), JSON, sid], &ping);
    assert_eq!(only_json.status, 406);
    let text = server.send("POST", "/mcp", &[ACCEPT_BOTH, ("Content-Type", "text/plain"), sid], &ping);
    assert_eq!(text.status, 415);
    let big = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, sid], &"x".repeat(5000));
    assert_eq!(big.status, 413);
    let broken = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, sid], "{not json");
    assert_eq!(broken.status, 400);
    assert_eq!(broken.json()["error"]["code"], -32700);
    let version = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, sid, ("MCP-Protocol-Version", "1999-01-01")], &ping);
    assert_eq!(version.status, 400);
    assert!(version.body.contains("1999-01-01"));
    // A revision we speak, but not the one this session negotiated.
    let other = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, sid, ("MCP-Protocol-Version", "2025-06-18")], &ping);
    assert_eq!(other.status, 400);
    assert!(other.body.contains("2025-11-25"), "{}", other.body);
    assert_eq!(server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON], &ping).status, 400);
    assert_eq!(server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Mcp-Session-Id", "nope")], &ping).status, 404);
    let ok = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, sid, ("MCP-Protocol-Version", "2025-11-25")], &ping);
    assert_eq!((ok.status, ok.json()["result"].clone()), (200, json!({})));
    assert_eq!(server.send("PUT", "/mcp", &[], "").status, 405);
    assert_eq!(server.send("GET", "/healthz", &[], "").status, 200);
}

#[test]
fn delete_ends_the_session() {
    let server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let sid = ("Mcp-Session-Id", session.as_str());
    assert_eq!(server.send("DELETE", "/mcp", &[sid], "").status, 200);
    assert_eq!(server.post(&[sid], &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).status, 404);
    assert_eq!(server.send("DELETE", "/mcp", &[sid], "").status, 404);
}

#[test]
fn at_the_session_cap_the_longest_idle_session_makes_room_and_busy_ones_get_a_503() {
    let server = Server::start(&["--max-sessions", "1"], &[]);
    let first = server.session(json!({}));
    // The only session is idle: it ends to make room, and its client learns so with a 404.
    let second = server.session(json!({}));
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(server.post(&[("Mcp-Session-Id", &first)], &ping).status, 404);
    // A session holding a stream is busy: the newcomer is told to come back.
    let mut get = server.connect();
    let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", second.as_str())];
    write_request(&mut get, server.port, "GET", "/mcp", &headers, "");
    let mut reader = BufReader::new(get);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    let refused = server.post(&[], &initialize(json!({})));
    assert_eq!(refused.status, 503);
    assert!(refused.header("retry-after").is_some());
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains("too many sessions"));
    assert_eq!(server.post(&[("Mcp-Session-Id", &second)], &ping).status, 200);
}

#[test]
fn progress_streams_as_sse_with_ids_priming_and_the_response_last() {
    let server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "t"}}});
    let reply = server.post(&[("Mcp-Session-Id", &session)], &call);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let first = reply.body.split("\n\n").next().unwrap();
    assert!(
        first.contains("id: ") && first.contains("retry: ") && first.contains("data: "),
        "priming event: {first:?}"
    );
    let events = reply.events();
    let methods: Vec<&str> = events.iter().map(|(_, m)| m["method"].as_str().unwrap_or("response")).collect();
    assert_eq!(methods, ["notifications/progress", "notifications/progress", "notifications/progress", "response"]);
    let stream = events[0].0.as_deref().unwrap().split('-').next().unwrap().to_owned();
    for (i, (id, message)) in events.iter().enumerate() {
        assert_eq!(id.as_deref(), Some(format!("{stream}-{}", i + 1).as_str()));
        let name = SchemaBook::definition_for(message, Some("tools/call")).unwrap();
        SchemaBook::get().validate("2025-11-25", name, message.get("result").unwrap_or(message));
    }
    assert_eq!(events[3].1["id"], 7);
}

#[test]
fn a_dropped_stream_is_resumed_with_last_event_id() {
    let server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "r"}}});
    let mut stream = server.connect();
    let body = call.to_string();
    write_request(&mut stream, server.port, "POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Mcp-Session-Id", &session)], &body);
    // Read until the first progress event, then hang up.
    let last_id = last_id_at_first_progress(stream);
    // Resumed as soon as the server let go of the stream it was writing to (a client retries).
    let resumed = wait_for("the stream to resume", TIMEOUT, || {
        let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", &session), ("Last-Event-ID", &last_id)];
        Some(server.send("GET", "/mcp", &headers, "")).filter(|r| r.status == 200)
    });
    let events = resumed.events();
    assert_eq!(events.len(), 3, "{}", resumed.body);
    assert_eq!(events[2].1["id"], 8);
    assert_eq!(events[2].1["result"]["content"][0]["text"], "Progress reported");
    let unknown = server.send(
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &session), ("Last-Event-ID", "999-1")],
        "",
    );
    assert_eq!(unknown.status, 404);
}

#[test]
fn the_server_closes_a_stream_early_and_the_client_polls_back_for_the_answer() {
    let server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let sid = ("Mcp-Session-Id", session.as_str());
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "test_reconnection", "arguments": {}}});
    // The POST stream ends with only the priming event: an id, `retry:`, no answer.
    let closed = server.post(&[sid], &call);
    assert_eq!(closed.status, 200);
    assert!(closed.body.contains("retry: "), "{}", closed.body);
    assert!(closed.events().is_empty(), "the answer came on the closed stream: {}", closed.body);
    let last_id = closed.body.lines().find_map(|l| l.strip_prefix("id: ")).expect("a priming id").to_owned();
    let resumed =
        server.send("GET", "/mcp", &[("Accept", "text/event-stream"), sid, ("Last-Event-ID", last_id.as_str())], "");
    assert_eq!(resumed.status, 200);
    let events = resumed.events();
    assert_eq!(events.len(), 1, "{}", resumed.body);
    assert_eq!(events[0].1["id"], 4);
    assert!(events[0].1["result"]["content"][0]["text"].as_str().unwrap().starts_with("Reconnection test completed"));
    // Before 2025-11-25 streams are not primed, so a client could not resume: the answer stays on the POST.
    let old = server.post(
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}}),
    );
    let old_session = old.header("mcp-session-id").unwrap().to_owned();
    let headers = [("Mcp-Session-Id", old_session.as_str()), ("MCP-Protocol-Version", "2025-06-18")];
    let answered = server.post(&headers, &call);
    assert_eq!(answered.status, 200);
    let answer = if answered.body.starts_with('{') { answered.json() } else { answered.events()[0].1.clone() };
    assert_eq!(answer["id"], 4, "{}", answered.body);
}

#[test]
fn the_get_stream_carries_list_changed() {
    let server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let mut get = server.connect();
    write_request(
        &mut get,
        server.port,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &session)],
        "",
    );
    let mut reader = BufReader::new(get);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    let trigger = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "test_trigger_tool_change", "arguments": {}}});
    assert_eq!(server.post(&[("Mcp-Session-Id", &session)], &trigger).status, 200);
    let mut seen = String::new();
    while !seen.contains("notifications/tools/list_changed") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "stream ended: {seen}");
        seen.push_str(&line);
    }
}

#[test]
fn connections_that_arrive_together_are_all_served() {
    // Keep-alive connections each hold a thread; the others close. New connections that then
    // arrive together once lost a wake-up in tiny_http's pool and sat unread until some other
    // connection closed.
    let server = Server::start(&[], &[]);
    let mut held = Vec::new();
    for round in 0..20 {
        let mut burst: Vec<TcpStream> = (0..6).map(|_| server.connect()).collect();
        for stream in &mut burst {
            write_request(stream, server.port, "GET", "/healthz", &[], "");
        }
        for (i, stream) in burst.iter_mut().enumerate() {
            stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let reply = read_reply(&mut BufReader::new(&*stream));
            assert_eq!(reply.status, 200, "round {round}, connection {i}");
        }
        held.push(burst.swap_remove(0));
        drop(burst);
        std::thread::sleep(Duration::from_millis(30));
    }
}

#[test]
fn a_burst_of_requests_beside_new_streams_is_all_answered() {
    // A GET stream holds its request thread for good; POSTs that arrive with it, queued behind
    // it, must still be answered (a lost wake-up once left such a burst waiting forever).
    let server = Server::start(&[], &[]);
    for round in 0..10 {
        let session = server.session(json!({}));
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(40));
        let calls: Vec<_> = (0..40)
            .map(|i| {
                let (port, session, barrier) = (server.port, session.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
                    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                    barrier.wait();
                    if i % 10 == 0 {
                        let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", session.as_str())];
                        write_request(&mut stream, port, "GET", "/mcp", &headers, "");
                        let mut reader = BufReader::new(stream);
                        let mut line = String::new();
                        reader.read_line(&mut line).unwrap();
                        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
                        return (None, Some(reader));
                    }
                    let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"message": format!("m{i}")}}});
                    let headers = [ACCEPT_BOTH, JSON, ("Mcp-Session-Id", session.as_str())];
                    write_request(&mut stream, port, "POST", "/mcp", &headers, &call.to_string());
                    (Some(read_reply(&mut BufReader::new(stream))), None)
                })
            })
            .collect();
        let mut streams = Vec::new();
        for (i, call) in calls.into_iter().enumerate() {
            match call.join().unwrap() {
                (Some(reply), _) => {
                    assert_eq!(reply.status, 200, "round {round}, call {i}: {}", reply.body);
                    assert!(reply.body.contains(&format!("Echo: m{i}")), "call {i}: {}", reply.body);
                }
                (None, stream) => streams.extend(stream),
            }
        }
        assert_eq!(streams.len(), 4);
    }
}

#[test]
fn sampling_goes_out_on_the_stream_and_its_answer_comes_back_as_a_post() {
    let server = Server::start(&[], &[]);
    let session = server.session(json!({"sampling": {}}));
    let mut post = server.connect();
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}});
    write_request(
        &mut post,
        server.port,
        "POST",
        "/mcp",
        &[ACCEPT_BOTH, JSON, ("Mcp-Session-Id", &session)],
        &call.to_string(),
    );
    let mut reader = BufReader::new(post);
    let mut seen = String::new();
    let request = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        if let Some(data) = line.strip_prefix("data: ") {
            if data.contains("sampling/createMessage") {
                break serde_json::from_str::<Value>(data).unwrap();
            }
        }
        seen.push_str(&line);
    };
    SchemaBook::get().validate("2025-11-25", "CreateMessageRequest", &request);
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "hello back"}, "model": "m"}});
    assert_eq!(server.post(&[("Mcp-Session-Id", &session)], &answer).status, 202);
    let mut rest = String::new();
    while !rest.contains("\"id\":9") {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        rest.push_str(&line);
    }
    assert!(rest.contains("LLM response: hello back"), "{rest}");
}

#[test]
fn foreign_hosts_and_origins_are_forbidden_and_listed_origins_get_cors() {
    let server = Server::start(&["--allow-origin", "https://app.example"], &[]);
    let body = initialize(json!({})).to_string();
    let evil_host = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Host", "evil.example.com")], &body);
    assert_eq!(evil_host.status, 403);
    let evil_origin = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Origin", "http://evil.example.com")], &body);
    assert_eq!(evil_origin.status, 403);
    let local = format!("http://127.0.0.1:{}", server.port);
    assert_eq!(server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Origin", &local)], &body).status, 200);
    let listed = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Origin", "https://app.example")], &body);
    assert_eq!(listed.status, 200);
    assert_eq!(listed.header("access-control-allow-origin"), Some("https://app.example"));
    assert!(listed.header("access-control-expose-headers").unwrap().contains("Mcp-Session-Id"));
    let preflight = server.send("OPTIONS", "/mcp", &[("Origin", "https://app.example")], "");
    assert_eq!(preflight.status, 204);
    assert!(preflight.header("access-control-allow-headers").unwrap().contains("MCP-Protocol-Version"));
}

#[test]
fn a_bearer_token_is_required_when_configured() {
    let server = Server::start(&[], &[("TINYMCP_TOKEN", "let-me-in-0123456789")]);
    let body = initialize(json!({})).to_string();
    let without = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON], &body);
    assert_eq!(without.status, 401);
    assert_eq!(without.header("www-authenticate"), Some("Bearer"));
    let wrong =
        server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Authorization", "Bearer let-me-out-0123456789")], &body);
    assert_eq!(wrong.status, 401);
    let right =
        server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Authorization", "Bearer let-me-in-0123456789")], &body);
    assert_eq!(right.status, 200);
}

#[test]
fn a_hundred_requests_on_one_keep_alive_connection_are_answered_in_turn() {
    // How long they take (a delayed-ACK stall costs 40 ms a request) is `scripts/bench.sh`'s
    // HTTP figure, not a threshold here.
    let server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let stream = server.connect();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    for i in 0..100 {
        let ping = json!({"jsonrpc": "2.0", "id": i, "method": "ping"}).to_string();
        write_request(
            &mut writer,
            server.port,
            "POST",
            "/mcp",
            &[ACCEPT_BOTH, JSON, ("Mcp-Session-Id", &session)],
            &ping,
        );
        let reply = read_reply(&mut reader);
        assert_eq!(reply.json()["id"], i);
    }
}

#[test]
fn legacy_sse_names_its_endpoint_and_answers_on_the_stream() {
    let server = Server::start(&[], &[]);
    let mut get = server.connect();
    write_request(&mut get, server.port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut reader = BufReader::new(get);
    let mut seen = String::new();
    let endpoint = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        if seen.ends_with("event: endpoint\n") {
            break line.strip_prefix("data: ").unwrap().trim().to_owned();
        }
        seen.push_str(&line);
    };
    assert!(endpoint.starts_with("/messages?sessionId="), "{endpoint}");
    let mut init = initialize(json!({}));
    init["params"]["protocolVersion"] = json!("2024-11-05");
    let accepted = server.send("POST", &endpoint, &[JSON], &init.to_string());
    assert_eq!(accepted.status, 202);
    let mut rest = String::new();
    let answer = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        if rest.ends_with("event: message\n") {
            break serde_json::from_str::<Value>(line.strip_prefix("data: ").unwrap()).unwrap();
        }
        rest.push_str(&line);
    };
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");
    SchemaBook::get().validate("2024-11-05", "InitializeResult", &answer["result"]);
    assert_eq!(server.send("POST", "/messages?sessionId=unknown", &[JSON], "{}").status, 404);
}

#[test]
fn the_url_shows_at_the_default_log_level_and_debug_shows_every_frame() {
    let mut quiet = Command::new(binary())
        .args(["--everything", "--http", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tinymcp");
    let port = announced_port(&mut quiet);
    assert!(port > 0);
    let _ = quiet.kill();
    let _ = quiet.wait();
    let mut child = Command::new(binary())
        .args(["--everything", "--http", "127.0.0.1:0"])
        .env("RUST_LOG", "debug")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tinymcp");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let port = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no listening line");
        if let Some(rest) = line.split_once("listening on http://127.0.0.1:") {
            break rest.1.split('/').next().unwrap().parse::<u16>().unwrap();
        }
    };
    let mut server = Server { child, port };
    let reply = server.post(&[], &initialize(json!({})));
    assert_eq!(reply.status, 200);
    let (mut saw_in, mut saw_out) = (false, false);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(saw_in && saw_out) && Instant::now() < deadline {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0);
        saw_in |= line.contains("<- {") && line.contains("\"initialize\"");
        saw_out |= line.contains("-> {") && line.contains("protocolVersion");
    }
    assert!(saw_in && saw_out, "frames in {saw_in}, out {saw_out}");
    let _ = server.child.kill();
}

#[test]
fn an_embedded_server_shuts_down_and_joins_its_threads() {
    use std::io::Read;
    use tinymcp_http::{HttpOptions, HttpServer};
    let server = std::sync::Arc::new(tinymcp::Server::new("embedded", "1.0.0"));
    let http = HttpServer::start(server, "127.0.0.1:0", HttpOptions::default()).expect("start");
    let port = http.local_addr().port();
    // A kept-alive connection, idle after one answer, and an SSE stream in progress.
    let mut idle = crate::raw_http::connect(port);
    write_request(&mut idle, port, "GET", "/healthz", &[], "");
    let mut idle = BufReader::new(idle);
    assert_eq!(read_reply(&mut idle).status, 200);
    let mut legacy = crate::raw_http::connect(port);
    write_request(&mut legacy, port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut legacy = BufReader::new(legacy);
    assert_eq!(crate::raw_http::read_head(&mut legacy).status, 200);
    http.shutdown();
    let mut rest = Vec::new();
    assert_eq!(idle.read_to_end(&mut rest).unwrap(), 0, "the idle connection was not closed");
    let _ = legacy.read_to_end(&mut rest);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "still accepting after shutdown");
}

/// Spec (transports: a POST carrying a request gets `application/json` or `text/event-stream`;
/// cancellation: a cancelled request is never answered): a request cancelled before anything
/// was written for it gets an event stream that ends with no event, not an empty `202` (which
/// the Python SDK's client reads as a broken answer, `-32600`). The proxy answers so too.
#[test]
fn a_cancelled_requests_post_gets_an_empty_event_stream_not_a_202() {
    for server in [Server::start(&[], &[]), Server::proxy(&["--", binary(), "--everything"])] {
        cancelled_before_anything_was_written(&server);
    }
}

fn cancelled_before_anything_was_written(server: &Server) {
    let session = server.session(json!({}));
    let sid = ("Mcp-Session-Id", session.as_str());
    let slow = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_slow", "arguments": {"ms": 60000}}});
    let mut stream = server.connect();
    write_request(&mut stream, server.port, "POST", "/mcp", &[ACCEPT_BOTH, JSON, sid], &slow.to_string());
    // A ping on the same session answered means the call is running.
    let ping = server.post(&[sid], &json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    assert_eq!(ping.status, 200, "{}", ping.body);
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "test"}});
    assert_eq!(server.post(&[sid], &cancel).status, 202);
    // The ping came on another connection: on a loaded machine the call's own connection may not
    // have handed it over yet, and a cancel before that is (rightly) ignored. So until its
    // stream says something, the cancel again (a cancel of nothing running is ignored too).
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    for _ in 0..50 {
        match stream.peek(&mut [0u8; 1]) {
            Ok(_) => break,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                assert_eq!(server.post(&[sid], &cancel).status, 202);
            }
            Err(e) => panic!("reading the cancelled call's stream: {e}"),
        }
    }
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // Read within the stream's 10 s timeout, long before the call's 60 s would run out.
    let reply = read_reply(&mut BufReader::new(stream));
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"), "{}", reply.body);
    assert!(reply.events().is_empty(), "a cancelled request is never answered: {}", reply.body);
}
