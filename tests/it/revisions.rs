//! Every answer is valid against the schema of the negotiated revision: fields a revision does
//! not know are left out for it. The support client validates every message it reads. And a
//! server pinned to some revisions (`--revisions`) behaves like one that knows no other.

use crate::raw_http::{initialize, write_request, Server, JSON};
use crate::stateless::meta;
use crate::stateless_http::{body, post};
use crate::support::{check, run_binary, Client, STATEFUL_VERSIONS};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};

/// Exercises every feature once; the support client schema-checks each message.
fn tour(revision: &str) -> Client {
    let mut client = Client::everything(revision);
    client.request("tools/list", json!({}));
    for tool in [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_error_handling",
        "add",
        "test_resource_link",
    ] {
        let args = if tool == "add" { json!({"a": 1, "b": 2}) } else { json!({}) };
        client.request("tools/call", json!({"name": tool, "arguments": args}));
    }
    client.request("logging/setLevel", json!({"level": "debug"}));
    client.request("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}));
    client.request(
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 7}}),
    );
    client.request("resources/list", json!({}));
    client.request("resources/templates/list", json!({}));
    client.request("resources/read", json!({"uri": "test://static-text"}));
    client.request("resources/read", json!({"uri": "test://static-binary"}));
    client.request("resources/read", json!({"uri": "nope://x"}));
    client.request("resources/subscribe", json!({"uri": "test://watched-resource"}));
    client.request("tools/call", json!({"name": "test_trigger_resource_update", "arguments": {}}));
    client.request("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}}));
    client.request("prompts/list", json!({}));
    for prompt in ["test_simple_prompt", "test_prompt_with_image"] {
        client.request("prompts/get", json!({"name": prompt}));
    }
    client.request(
        "prompts/get",
        json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://x"}}),
    );
    if revision != "2024-11-05" {
        client.request("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "p"}}));
    }
    let call = client.send_request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    let req = client.wait(|m| m["method"] == "sampling/createMessage");
    client.answer(&req["id"], json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}));
    client.response(&call);
    // Whatever came after the last answer is read (and so schema-checked) too.
    client.settle();
    client
}

#[test]
fn every_message_is_valid_for_each_revision() {
    for revision in STATEFUL_VERSIONS {
        tour(revision);
    }
}

fn tool(client: &mut Client, name: &str) -> Value {
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone()
}

#[test]
fn old_revisions_get_no_new_fields() {
    let mut old = Client::everything("2024-11-05");
    let add = tool(&mut old, "add");
    for key in ["title", "outputSchema", "annotations", "icons"] {
        assert!(add.get(key).is_none(), "{key} sent to 2024-11-05: {add}");
    }
    let res = old.request("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}));
    assert!(res["result"].get("structuredContent").is_none(), "{res}");
    let audio = old.request("tools/call", json!({"name": "test_audio_content", "arguments": {}}));
    assert_eq!(audio["result"]["content"][0]["type"], "text");
    let link = old.request("tools/call", json!({"name": "test_resource_link", "arguments": {}}));
    assert!(link["result"]["content"].as_array().unwrap().iter().all(|c| c["type"] == "text"), "{link}");

    let mut mid = Client::everything("2025-03-26");
    let add = tool(&mut mid, "add");
    assert!(add.get("annotations").is_some() && add.get("title").is_none(), "{add}");
    let mut new = Client::everything("2025-06-18");
    let add = tool(&mut new, "add");
    assert!(add.get("title").is_some() && add.get("outputSchema").is_some(), "{add}");
}

#[test]
fn the_schema_check_itself_rejects_wrong_shapes() {
    use crate::support::SchemaBook;
    let book = SchemaBook::get();
    if !book.enabled() {
        return;
    }
    book.validate(
        "2025-11-25",
        "ListToolsResult",
        &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}),
    );
    for (revision, def, bad) in [
        ("2025-11-25", "ListToolsResult", json!({"tools": 5})),
        ("2024-11-05", "CallToolResult", json!({"content": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]})),
        ("2025-03-26", "CallToolResult", json!({"content": [{"type": "resource_link", "uri": "a:b", "name": "b"}]})),
        ("2025-11-25", "InitializeResult", json!({"protocolVersion": "2025-11-25", "capabilities": {}})),
    ] {
        let failed = std::panic::catch_unwind(|| book.validate(revision, def, &bad)).is_err();
        assert!(failed, "{revision} {def} accepted {bad}");
    }
}

/// A 2026-07-28 request's params: `params` with the per-request `_meta`.
fn per_request(mut params: Value) -> Value {
    params["_meta"] = meta(json!({}));
    params
}

/// Spec basic/versioning, Compatibility Matrix (modern client, legacy server): an older server
/// knows no `server/discover` (-32601, the TypeScript SDK's answer) and takes any other
/// 2026-07-28 request for a request before `initialize`; `initialize` asking for a revision it
/// does not speak gets its newest (spec lifecycle, version negotiation).
#[test]
fn pinned_to_the_handshake_revisions_a_2026_request_is_one_before_initialize_over_stdio() {
    let mut old = Client::spawn(&["--everything", "--revisions", "..2025-11-25"]);
    let discover = old.request("server/discover", per_request(json!({})));
    check(&discover, json!({"error": {"code": -32601}}));
    let early = old.request("tools/list", per_request(json!({})));
    check(&early, json!({"error": {"code": -32600, "message": "tools/list before initialize: send initialize first"}}));
    let bare_discover = old.request("server/discover", json!({}));
    check(&bare_discover, json!({"error": {"code": -32601}}));
    let result = old.initialize("2026-07-28", json!({}));
    assert_eq!(result["protocolVersion"], "2025-11-25");
    check(&old.request("server/discover", per_request(json!({}))), json!({"error": {"code": -32601}}));
    // In the session the request's `_meta` is only `_meta`: the session's revision answers.
    let echo = old.request("tools/call", per_request(json!({"name": "echo", "arguments": {"message": "hi"}})));
    check(&echo, json!({"result": {"content": [{"type": "text", "text": "Echo: hi"}]}}));
    assert!(echo["result"].get("resultType").is_none(), "{echo}");

    for (asked, answered) in [("2025-11-25", "2025-06-18"), ("2024-11-05", "2025-06-18"), ("2025-03-26", "2025-03-26")]
    {
        let mut mid = Client::spawn(&["--everything", "--revisions", "2025-03-26..2025-06-18"]);
        assert_eq!(mid.initialize(asked, json!({}))["protocolVersion"], answered, "{asked}");
    }
}

/// Spec basic/versioning, Compatibility Matrix (legacy client, modern server): `initialize` does
/// not exist (-32601, naming the revisions served, as a modern-only server SHOULD), and every
/// request must carry its `_meta` (-32602 without).
#[test]
fn pinned_to_2026_07_28_initialize_is_not_found_and_every_request_carries_its_meta_over_stdio() {
    let mut new = Client::spawn(&["--everything", "--revisions", "2026-07-28.."]);
    // Every answer is checked against the 2026-07-28 schema.
    new.revision = Some("2026-07-28".into());
    let init = new.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    check(&init, json!({"error": {"code": -32601, "data": {"supported": ["2026-07-28"]}}}));
    assert!(init["error"]["message"].as_str().unwrap().contains("2026-07-28 only"), "{init}");
    check(&new.request("ping", json!({})), json!({"error": {"code": -32601}}));
    check(&new.request("tools/list", json!({})), json!({"error": {"code": -32602}}));
    let discover = new.request("server/discover", per_request(json!({})));
    check(&discover, json!({"result": {"supportedVersions": ["2026-07-28"], "resultType": "complete"}}));
    let echo = new.request("tools/call", per_request(json!({"name": "echo", "arguments": {"message": "hi"}})));
    check(&echo, json!({"result": {"resultType": "complete", "content": [{"text": "Echo: hi"}]}}));
    let mut handshake_meta = per_request(json!({}));
    handshake_meta["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let unsupported = new.request("server/discover", handshake_meta);
    check(
        &unsupported,
        json!({"error": {"code": -32022, "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}}),
    );
}

/// Reads a legacy SSE stream up to the data of the next event named `event`.
fn next_event(reader: &mut impl BufRead, event: &str) -> String {
    let mut previous = String::new();
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended before an {event} event");
        if previous.trim_end() == format!("event: {event}") {
            return line.strip_prefix("data: ").unwrap().trim().to_owned();
        }
        previous = line;
    }
}

/// Over Streamable HTTP an older server refuses a POST without a session for want of one (the
/// TypeScript SDK: 400 before the version header is read), and serves sessions and the legacy
/// HTTP+SSE transport as before.
#[test]
fn pinned_to_the_handshake_revisions_a_2026_post_needs_a_session_over_http() {
    let server = Server::start(&["--revisions", "..2025-11-25"], &[]);
    for method in ["server/discover", "tools/list"] {
        let reply = post(&server, &body(1, method, json!({}), json!({})), &[]);
        assert_eq!(reply.status, 400, "{method}: {}", reply.body);
        check(&reply.json(), json!({"error": {"code": -32600}}));
        assert!(reply.body.contains("Mcp-Session-Id header required"), "{method}: {}", reply.body);
    }
    let mut init = initialize(json!({}));
    init["params"]["protocolVersion"] = json!("2026-07-28");
    let reply = server.post(&[], &init);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["result"]["protocolVersion"], "2025-11-25");
    let session = reply.header("mcp-session-id").expect("a session").to_owned();
    let in_session = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let discover = server.post(&in_session, &body(2, "server/discover", json!({}), json!({})));
    assert_eq!(discover.status, 200, "{}", discover.body);
    check(&discover.json(), json!({"id": 2, "error": {"code": -32601}}));

    let mut get = server.connect();
    write_request(&mut get, server.port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut stream = BufReader::new(get);
    let endpoint = next_event(&mut stream, "endpoint");
    assert_eq!(server.send("POST", &endpoint, &[JSON], &init.to_string()).status, 202);
    let answer: Value = serde_json::from_str(&next_event(&mut stream, "message")).unwrap();
    check(&answer, json!({"result": {"protocolVersion": "2025-11-25"}}));
    let discover = body(3, "server/discover", json!({}), json!({})).to_string();
    assert_eq!(server.send("POST", &endpoint, &[JSON], &discover).status, 202);
    let answer: Value = serde_json::from_str(&next_event(&mut stream, "message")).unwrap();
    check(&answer, json!({"id": 3, "error": {"code": -32601}}));
}

/// Over Streamable HTTP a 2026-07-28-only server answers `initialize` as it answers any removed
/// method (404, -32601, the served revisions named) and opens no session; a request without
/// `_meta` is 400; the legacy HTTP+SSE endpoints do not exist (spec basic/versioning: a client
/// on that transport fails at its opening GET).
#[test]
fn pinned_to_2026_07_28_initialize_is_404_and_there_is_no_legacy_sse_over_http() {
    let server = Server::start(&["--revisions", "2026-07-28"], &[]);
    let legacy = server.post(&[], &initialize(json!({})));
    assert_eq!(legacy.status, 404, "{}", legacy.body);
    check(&legacy.json(), json!({"error": {"code": -32601, "data": {"supported": ["2026-07-28"]}}}));
    assert!(legacy.header("mcp-session-id").is_none());
    let modern = post(&server, &body(2, "initialize", json!({}), json!({})), &[]);
    assert_eq!(modern.status, 404, "{}", modern.body);
    check(&modern.json(), json!({"id": 2, "error": {"code": -32601}}));
    let bare = server
        .post(&[("MCP-Protocol-Version", "2025-11-25")], &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert_eq!(bare.status, 400, "{}", bare.body);
    check(&bare.json(), json!({"id": 3, "error": {"code": -32602}}));
    let discover = post(&server, &body(4, "server/discover", json!({}), json!({})), &[]);
    assert_eq!(discover.status, 200, "{}", discover.body);
    check(&discover.json(), json!({"result": {"supportedVersions": ["2026-07-28"]}}));
    let echo =
        post(&server, &body(5, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}}), json!({})), &[]);
    check(&echo.json(), json!({"result": {"resultType": "complete", "content": [{"text": "Echo: hi"}]}}));
    let sse = server.send("GET", "/sse", &[("Accept", "text/event-stream")], "");
    assert_eq!(sse.status, 404, "{}", sse.body);
    assert!(sse.body.contains("2026-07-28 only"), "{}", sse.body);
    assert_eq!(server.send("POST", "/messages?sessionId=x", &[JSON], "{}").status, 404);
}

#[test]
fn an_empty_or_unknown_revision_range_is_refused_at_start_naming_the_known_revisions() {
    let known = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28";
    for (range, why) in [
        ("2026-07-28..2025-11-25", "is empty"),
        ("2027-01-01..", "unknown revision \"2027-01-01\""),
        ("..2024-10-07", "unknown revision \"2024-10-07\""),
        ("latest", "unknown revision \"latest\""),
    ] {
        let out = run_binary(&["--everything", "--revisions", range]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{range}: {stderr}");
        assert!(stderr.contains("--revisions") && stderr.contains(why) && stderr.contains(known), "{range}: {stderr}");
        assert!(out.stdout.is_empty(), "{range}");
    }
    let out = run_binary(&["proxy", "--http", "127.0.0.1:0", "--revisions", "..2025-11-25", "--", "true"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--revisions does not apply"), "{out:?}");
}
