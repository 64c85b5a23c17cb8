//! Many replicas behind a load balancer: `--node-id` prefixes every id a balancer
//! routes on, and a session id sealed with the shared `--state-key-file` key is served by any
//! replica for plain POSTs; forged, tampered, expired or foreign ids stay `404`.

use crate::raw_http::{read_head, write_request, Reply, Server, ACCEPT_BOTH, JSON};
use crate::stateless_http::{body, post};
use crate::support::{eventually, run_binary, TempDir};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};

/// `tools/call` of a 2025-11-25 session with a task, as the stateful tasks tests make one.
fn task_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "slow_compute", "arguments": {"seconds": 0}, "task": {"ttl": 60000}}})
}

/// Opens a legacy SSE stream and returns the `sessionId` its endpoint event names.
fn legacy_session_id(server: &Server) -> String {
    let mut get = server.connect();
    write_request(&mut get, server.port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut reader = BufReader::new(get);
    let mut previous = String::new();
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended before its endpoint");
        if previous.trim_end() == "event: endpoint" {
            let endpoint = line.strip_prefix("data: ").expect("data line").trim();
            return endpoint.strip_prefix("/messages?sessionId=").expect("endpoint").to_owned();
        }
        previous = line;
    }
}

#[test]
fn every_routed_id_starts_with_the_node_id() {
    let server = Server::start(&["--node-id", "a1"], &[]);
    let session = server.session(json!({"tasks": {}}));
    assert!(session.starts_with("a1."), "session id {session}");
    assert!(legacy_session_id(&server).starts_with("a1."));
    let created = server.post(&[("Mcp-Session-Id", &session)], &task_call()).json();
    let old_task = created["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}"));
    assert!(old_task.starts_with("a1."), "2025-11-25 task id {old_task}");
    let ext = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let call = body(1, "tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 0}}), ext.clone());
    let created = post(&server, &call, &[]).json();
    let new_task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    assert!(new_task.starts_with("a1."), "2026-07-28 task id {new_task}");
    // The balancer routes tasks/* on `Mcp-Name`, which carries exactly the task id.
    let got = post(&server, &body(2, "tasks/get", json!({"taskId": new_task}), ext), &[("Mcp-Name", &new_task)]);
    assert_eq!(got.json()["result"]["taskId"], json!(new_task), "{}", got.body);
    // Without --node-id, no prefix.
    let plain = Server::start(&[], &[]);
    assert!(!plain.session(json!({})).contains("a1."));
}

#[test]
fn a_bad_node_id_is_refused_with_the_reason() {
    for bad in ["a.b", "", "x y", &"n".repeat(33)] {
        let out = run_binary(&["--everything", "--http", "127.0.0.1:0", "--node-id", bad]);
        assert!(!out.status.success(), "{bad:?} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("node id") && err.contains("letters, digits or '-'"), "{bad:?}: {err}");
    }
}

/// Replicas sharing one `--state-key-file`, each with its own node id (and `extra` flags).
struct Replicas {
    _dir: TempDir,
    key: String,
}

impl Replicas {
    fn new() -> Replicas {
        let dir = TempDir::new("replicas");
        let key = dir.write("state.key", format!("{}\n", "5a".repeat(32))).to_str().expect("UTF-8").to_owned();
        Replicas { _dir: dir, key }
    }

    fn start(&self, node: &str, extra: &[&str]) -> Server {
        let mut args = vec!["--state-key-file", &self.key, "--node-id", node];
        args.extend_from_slice(extra);
        Server::start(&args, &[])
    }
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn echo(server: &Server, session: &str) -> Reply {
    server.post(
        &[("Mcp-Session-Id", session)],
        &rpc(7, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}})),
    )
}

#[test]
fn a_session_made_on_one_replica_is_served_by_another() {
    let replicas = Replicas::new();
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    let session = a.session(json!({"sampling": {}, "roots": {"listChanged": true}}));
    assert!(session.starts_with("a.") && session.len() <= 512, "{session}");
    let sid = ("Mcp-Session-Id", session.as_str());
    // Plain POSTs on the replica that never saw the initialize.
    let called = echo(&b, &session);
    assert_eq!(called.status, 200, "{}", called.body);
    assert_eq!(called.json()["result"]["content"][0]["text"], "Echo: hi", "{}", called.body);
    let read = b.post(&[sid], &rpc(8, "resources/read", json!({"uri": "test://static-text"})));
    assert_eq!(read.status, 200, "{}", read.body);
    assert!(read.json()["result"]["contents"][0]["text"].is_string(), "{}", read.body);
    for method in ["tools/list", "resources/list", "prompts/list", "ping"] {
        let reply = b.post(&[sid], &rpc(9, method, json!({})));
        assert!(reply.status == 200 && reply.json().get("result").is_some(), "{method}: {}", reply.body);
    }
    let note = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    assert_eq!(b.post(&[sid], &note).status, 202);
    // The negotiated revision travels with the id: B knows this session speaks 2025-11-25.
    let other = b.post(&[sid, ("MCP-Protocol-Version", "2025-06-18")], &rpc(10, "ping", json!({})));
    assert_eq!(other.status, 400, "{}", other.body);
    // An answer to a request B never sent is ignored (202), as for any unknown answer.
    let answer = json!({"jsonrpc": "2.0", "id": 99, "result": {}});
    assert_eq!(b.post(&[sid], &answer).status, 202);
    // A stream may open on B (it carries B's messages for this session).
    let mut get = b.connect();
    let headers = [("Accept", "text/event-stream"), sid];
    write_request(&mut get, b.port, "GET", "/mcp", &headers, "");
    let head = read_head(&mut BufReader::new(get));
    assert_eq!((head.status, head.header("content-type")), (200, Some("text/event-stream")));
    // A still serves it too.
    assert_eq!(echo(&a, &session).status, 200);
}

#[test]
fn a_rebuilt_session_keeps_the_client_capabilities() {
    let replicas = Replicas::new();
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    let sample = rpc(3, "tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    // Declared on A: B asks the client (the answer turns into a stream carrying the request).
    let with = a.session(json!({"sampling": {}}));
    let mut post = b.connect();
    let body = sample.to_string();
    let headers = [ACCEPT_BOTH, JSON, ("Mcp-Session-Id", with.as_str())];
    write_request(&mut post, b.port, "POST", "/mcp", &headers, &body);
    let head = read_head(&mut BufReader::new(post));
    assert_eq!((head.status, head.header("content-type")), (200, Some("text/event-stream")));
    // Not declared: B refuses at once, as A would.
    let without = a.session(json!({}));
    let refused = b.post(&[("Mcp-Session-Id", &without)], &sample);
    assert!(refused.body.contains("-32021"), "{}", refused.body);
}

#[test]
fn forged_tampered_and_foreign_session_ids_are_404() {
    let replicas = Replicas::new();
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    let session = a.session(json!({}));
    // A process with another key: the same token is foreign.
    let other = Server::start(&["--node-id", "a"], &[]);
    assert_eq!(echo(&other, &session).status, 404);
    // Any changed character, anywhere, is refused by every replica.
    for at in [0, 2, session.len() / 2, session.len() - 1] {
        let mut bytes = session.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        for server in [&a, &b] {
            assert_eq!(echo(server, &tampered).status, 404, "byte {at}: {tampered}");
        }
    }
    for forged in ["a.AAAA.AAAA", "b.x.y", "...", &format!("{session}A"), &"A".repeat(600)] {
        assert_eq!(echo(&b, forged).status, 404, "{forged}");
    }
}

#[test]
fn an_expired_session_id_is_404_everywhere() {
    let replicas = Replicas::new();
    let (a, b) = (replicas.start("a", &["--session-ttl-secs", "1"]), replicas.start("b", &["--session-ttl-secs", "1"]));
    let session = a.session(json!({}));
    // The lifetime counts from `initialize`, not from the last request: polling does not extend it.
    eventually("the expired id refused by the replica that never saw it", || echo(&b, &session).status == 404);
    eventually("the expired id refused by the replica that made it", || echo(&a, &session).status == 404);
}

#[test]
fn delete_ends_the_session_on_the_replica_that_got_it() {
    let replicas = Replicas::new();
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    let session = a.session(json!({}));
    assert_eq!(echo(&b, &session).status, 200);
    assert_eq!(b.send("DELETE", "/mcp", &[("Mcp-Session-Id", &session)], "").status, 200);
    assert_eq!(echo(&b, &session).status, 404);
    // Another replica keeps accepting the token until it expires (documented).
    assert_eq!(echo(&a, &session).status, 200);
    assert_eq!(a.send("DELETE", "/mcp", &[("Mcp-Session-Id", &session)], "").status, 200);
    assert_eq!(echo(&a, &session).status, 404);
}

#[test]
fn sessions_rebuilt_from_tokens_count_against_the_cap() {
    let replicas = Replicas::new();
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &["--max-sessions", "1"]));
    let (first, second) = (a.session(json!({})), a.session(json!({})));
    // Rebuilt on B one after the other: the idle one makes room, and is rebuilt again later.
    assert_eq!(echo(&b, &first).status, 200);
    assert_eq!(echo(&b, &second).status, 200);
    assert_eq!(echo(&b, &first).status, 200);
    // A stream keeps `first` busy on B: `second` cannot take its place.
    let mut get = b.connect();
    write_request(&mut get, b.port, "GET", "/mcp", &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &first)], "");
    let head = read_head(&mut BufReader::new(get));
    assert_eq!(head.status, 200);
    let refused = echo(&b, &second);
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(refused.header("retry-after").is_some());
    assert_eq!(echo(&a, &second).status, 200);
}

#[test]
fn a_session_id_has_no_alias_that_outlives_its_delete() {
    // Without --node-id an id is `payload.tag`; `.payload.tag` must not be the same session.
    let replicas = Replicas::new();
    let a = Server::start(&["--state-key-file", &replicas.key], &[]);
    let c = Server::start(&["--state-key-file", &replicas.key], &[]);
    let session = a.session(json!({}));
    assert_eq!(echo(&c, &session).status, 200);
    assert_eq!(c.send("DELETE", "/mcp", &[("Mcp-Session-Id", &session)], "").status, 200);
    assert_eq!(echo(&c, &session).status, 404);
    let alias = format!(".{session}");
    assert_eq!(echo(&c, &alias).status, 404, "{alias} rebuilt after its DELETE");
    assert_eq!(echo(&a, &alias).status, 404);
    assert_eq!(c.send("DELETE", "/mcp", &[("Mcp-Session-Id", &alias)], "").status, 404);
}
