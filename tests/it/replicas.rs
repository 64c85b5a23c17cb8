//! Many replicas behind a load balancer (issue 15): `--node-id` prefixes every id a balancer
//! routes on, and a session id sealed with the shared `--state-key-file` key is served by any
//! replica for plain POSTs; forged, tampered, expired or foreign ids stay `404`.

use crate::raw_http::{write_request, Server};
use crate::stateless_http::{body, post};
use crate::support::run_binary;
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
