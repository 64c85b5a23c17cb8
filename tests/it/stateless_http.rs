//! Revision 2026-07-28 over Streamable HTTP: POSTs without a session, statuses per contract
//! §2.9 with JSON rejections that echo the id, SEP-2243 headers, SSE answers with notifications
//! first, input-required rounds across connections, listen streams, and the handshake era
//! served beside it on the same endpoint.

use crate::raw_http::{read_chunk, read_head, write_request, Reply, Server, ACCEPT_BOTH, JSON};
use crate::stateless::{meta, REV};
use crate::support::check;
use serde_json::{json, Value};
use std::io::BufReader;

pub(crate) fn body(id: u64, method: &str, mut params: Value, capabilities: Value) -> Value {
    if params.get("_meta").is_none() {
        params["_meta"] = meta(capabilities);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The standard headers of the stateless wire, plus `extra`; `Mcp-Name` from the body.
pub(crate) fn post(server: &Server, message: &Value, extra: &[(&str, &str)]) -> Reply {
    let method = message["method"].as_str().expect("method").to_owned();
    let name = match method.as_str() {
        "tools/call" | "prompts/get" => message["params"]["name"].as_str().map(str::to_owned),
        "resources/read" => message["params"]["uri"].as_str().map(str::to_owned),
        "tasks/get" | "tasks/update" | "tasks/cancel" => message["params"]["taskId"].as_str().map(str::to_owned),
        _ => None,
    };
    let mut headers = vec![("MCP-Protocol-Version", REV), ("Mcp-Method", method.as_str())];
    if let Some(name) = &name {
        headers.push(("Mcp-Name", name.as_str()));
    }
    headers.retain(|(k, _)| !extra.iter().any(|(e, _)| e.eq_ignore_ascii_case(k)));
    headers.extend_from_slice(extra);
    server.post(&headers, message)
}

fn all_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

/// A message, its extra headers, and the HTTP status and JSON-RPC code it must get.
type Case = (Value, Vec<(&'static str, &'static str)>, u16, i64);

#[test]
fn no_session_and_statuses_by_error() {
    let server = Server::start(&[], &[]);
    let reply = post(&server, &body(1, "server/discover", json!({}), json!({})), &[]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.header("mcp-session-id").is_none());
    check(&reply.json(), json!({"id": 1, "result": {"resultType": "complete", "supportedVersions": [REV]}}));

    let cases: Vec<Case> = vec![
        // _meta missing, or missing a required field: -32602 before the header is compared.
        (json!({"jsonrpc": "2.0", "id": 101, "method": "server/discover", "params": {}}), vec![], 400, -32602),
        (
            body(
                102,
                "server/discover",
                json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
                json!({}),
            ),
            vec![],
            400,
            -32602,
        ),
        // An unsupported version named in both: -32022.
        (
            body(
                301,
                "server/discover",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0", "io.modelcontextprotocol/clientCapabilities": {}}}),
                json!({}),
            ),
            vec![("MCP-Protocol-Version", "v999.0.0")],
            400,
            -32022,
        ),
        // The header and _meta disagree: -32020.
        (
            body(
                302,
                "server/discover",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0", "io.modelcontextprotocol/clientCapabilities": {}}}),
                json!({}),
            ),
            vec![],
            400,
            -32020,
        ),
        (
            body(401, "tools/call", json!({"name": "test_missing_capability", "arguments": {}}), json!({})),
            vec![],
            400,
            -32021,
        ),
        (body(501, "ping", json!({}), json!({})), vec![], 404, -32601),
        (body(502, "initialize", json!({}), json!({})), vec![], 404, -32601),
        (body(503, "unknown/method", json!({}), json!({})), vec![], 404, -32601),
        // SEP-2243 routing headers.
        (body(601, "tools/list", json!({}), json!({})), vec![("Mcp-Method", "prompts/list")], 400, -32020),
        (body(602, "tools/list", json!({}), json!({})), vec![("Mcp-Method", "TOOLS/LIST")], 400, -32020),
        (
            body(603, "tools/call", json!({"name": "echo", "arguments": {}}), json!({})),
            vec![("Mcp-Name", "wrong")],
            400,
            -32020,
        ),
        // A handler's own error is a 200 with the error.
        (body(701, "tools/call", json!({"name": "no_such_tool", "arguments": {}}), json!({})), vec![], 200, -32602),
    ];
    for (message, extra, status, code) in cases {
        let reply = post(&server, &message, &extra);
        assert_eq!(reply.status, status, "{message}: {}", reply.body);
        assert_eq!(reply.header("content-type"), Some("application/json"), "{}", reply.body);
        check(&reply.json(), json!({"id": message["id"], "error": {"code": code}}));
    }
    // Header names are case-insensitive, values trimmed.
    let reply = post(&server, &body(801, "tools/list", json!({}), json!({})), &[("mcp-method", "tools/list")]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let call = body(802, "tools/call", json!({"name": "echo", "arguments": {"message": "x"}}), json!({}));
    let reply = post(&server, &call, &[("Mcp-Name", "  echo  ")]);
    check(&reply.json(), json!({"result": {"content": [{"text": "Echo: x"}]}}));
}

#[test]
fn custom_headers_mirror_marked_arguments() {
    let server = Server::start(&[], &[]);
    let call = |value: &str| {
        body(1, "tools/call", json!({"name": "test_custom_header", "arguments": {"value": value}}), json!({}))
    };
    for (value, header, ok) in [
        ("Hello", Some("=?base64?SGVsbG8=?="), true),
        ("Hello", Some("=?base64?SGVsbG8?="), false),
        ("Hello", Some("=?base64?SGVs!!!bG8=?="), false),
        ("SGVsbG8=", Some("SGVsbG8="), true),
        ("test-value", None, false),
    ] {
        let extra: Vec<(&str, &str)> = header.map(|h| ("Mcp-Param-Value", h)).into_iter().collect();
        let reply = post(&server, &call(value), &extra);
        if ok {
            assert_eq!(reply.status, 200, "{value} {header:?}: {}", reply.body);
            check(&reply.json(), json!({"result": {"content": [{"text": value}]}}));
        } else {
            assert_eq!(reply.status, 400, "{value} {header:?}: {}", reply.body);
            check(&reply.json(), json!({"error": {"code": -32020}}));
        }
    }
}

#[test]
fn notifications_stream_before_the_result_and_input_required_spans_connections() {
    let server = Server::start(&[], &[]);
    let mut params = json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": meta(json!({}))});
    params["_meta"]["progressToken"] = json!("p");
    let reply = post(&server, &body(1, "tools/call", params, json!({})), &[]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"), "{}", reply.body);
    let events = reply.events();
    assert!(events.iter().all(|(id, _)| id.is_none()), "no event ids on this revision: {}", reply.body);
    let (last, notes) = events.split_last().expect("events");
    assert!(notes.len() >= 3 && notes.iter().all(|(_, e)| e["method"] == "notifications/progress"), "{}", reply.body);
    check(&last.1, json!({"id": 1, "result": {"resultType": "complete"}}));

    let tool = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
    let round1 = post(&server, &body(2, "tools/call", tool.clone(), all_capabilities()), &[]).json();
    check(&round1, json!({"result": {"resultType": "input_required", "inputRequests": {"step1": {}}}}));
    let mut retry = tool.clone();
    retry["inputResponses"] = json!({"step1": {"action": "accept", "content": {"name": "Alice"}}});
    retry["requestState"] = round1["result"]["requestState"].clone();
    let round2 = post(&server, &body(3, "tools/call", retry, all_capabilities()), &[]).json();
    let mut retry = tool;
    retry["inputResponses"] = json!({"step2": {"action": "accept", "content": {"color": "blue"}}});
    retry["requestState"] = round2["result"]["requestState"].clone();
    let round3 = post(&server, &body(4, "tools/call", retry, all_capabilities()), &[]).json();
    check(&round3, json!({"result": {"content": [{"text": "Multi-round complete for Alice who likes blue"}]}}));
}

#[test]
fn listen_streams_over_sse_and_the_handshake_era_beside_them() {
    let server = Server::start(&[], &[]);
    let listen = body(7, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    let mut stream = server.connect();
    let text = listen.to_string();
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", REV), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut stream, server.port, "POST", "/mcp", &headers, &text);
    let mut reader = BufReader::new(stream);
    let head = read_head(&mut reader);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("text/event-stream"));
    let mut next_event = || {
        let chunk = read_chunk(&mut reader).expect("an event");
        let text = String::from_utf8(chunk).expect("UTF-8");
        crate::raw_http::sse_events(&text).pop().expect("a data line").1
    };
    check(
        &next_event(),
        json!({"method": "notifications/subscriptions/acknowledged", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}}),
    );
    // A session of the older revision on the same endpoint, unchanged, triggers the change.
    let session = server.session(json!({}));
    let trigger = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_trigger_tool_change", "arguments": {}}});
    let reply = server.post(&[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "2025-11-25")], &trigger);
    let answer = if reply.header("content-type") == Some("text/event-stream") {
        reply.events().pop().expect("answer").1
    } else {
        reply.json()
    };
    assert!(answer["result"].get("resultType").is_none(), "{answer}");
    check(
        &next_event(),
        json!({"method": "notifications/tools/list_changed", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}}),
    );
}

#[test]
fn a_batch_of_2026_07_28_requests_is_refused_as_such() {
    let server = Server::start(&[], &[]);
    let batch = json!([body(1, "tools/list", json!({}), json!({})), body(2, "server/discover", json!({}), json!({}))]);
    let reply = server.post(&[("MCP-Protocol-Version", REV)], &batch);
    assert_eq!(reply.status, 400, "{}", reply.body);
    check(&reply.json(), json!({"id": null, "error": {"code": -32600}}));
    assert!(reply.body.contains("batches are not part of 2026-07-28"), "{}", reply.body);
    // Without the header too: the members' _meta decides.
    let reply = server.post(&[], &batch);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("batches are not part of 2026-07-28"), "{}", reply.body);
}
