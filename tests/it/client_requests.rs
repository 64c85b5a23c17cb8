//! Server-to-client requests from inside a tool: sampling, elicitation (form and URL), roots.
//! Each only when the client declared the capability; answers matched by id.

use crate::support::{check, Client};
use serde_json::json;

#[test]
fn sampling_round_trip_during_a_tool_call() {
    let mut client = Client::everything("2025-11-25");
    let call = client.send_request(
        "tools/call",
        json!({"name": "test_sampling", "arguments": {"prompt": "Test prompt for sampling"}}),
    );
    let req = client.wait(|m| m["method"] == "sampling/createMessage");
    check(
        &req,
        json!({"params": {"maxTokens": 100, "messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}]}}),
    );
    // A ping while the tool waits is still answered.
    check(&client.request("ping", json!({})), json!({"result": {}}));
    client.answer(&req["id"], json!({"role": "assistant", "content": {"type": "text", "text": "This is a test response from the client"}, "model": "test-model", "stopReason": "endTurn"}));
    let res = client.response(&call);
    check(
        &res,
        json!({"result": {"content": [{"type": "text", "text": "LLM response: This is a test response from the client"}]}}),
    );
}

#[test]
fn elicitation_form_mode_round_trip() {
    let mut client = Client::everything("2025-11-25");
    let call = client.send_request("tools/call", json!({"name": "test_elicitation_sep1034_defaults", "arguments": {}}));
    let req = client.wait(|m| m["method"] == "elicitation/create");
    check(
        &req,
        json!({"params": {"requestedSchema": {"properties": {"name": {"default": "John Doe"}, "age": {"type": "integer", "default": 30}, "status": {"default": "active"}}}}}),
    );
    client.answer(&req["id"], json!({"action": "accept", "content": {"name": "Jane Smith", "age": 25}}));
    let res = client.response(&call);
    let text = res["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("action=accept") && text.contains("Jane Smith"), "{text}");
}

#[test]
fn elicitation_enum_shapes_of_sep_1330() {
    let mut client = Client::everything("2025-11-25");
    let call = client.send_request("tools/call", json!({"name": "test_elicitation_sep1330_enums", "arguments": {}}));
    let req = client.wait(|m| m["method"] == "elicitation/create");
    let props = &req["params"]["requestedSchema"]["properties"];
    assert!(props["untitledSingle"]["enum"].is_array() && props["untitledSingle"].get("oneOf").is_none());
    assert!(props["titledSingle"]["oneOf"].is_array() && props["titledSingle"].get("enum").is_none());
    assert_eq!(props["legacyEnum"]["enumNames"].as_array().unwrap().len(), 3);
    assert!(props["titledMulti"]["items"]["anyOf"].is_array());
    client.answer(&req["id"], json!({"action": "decline"}));
    let res = client.response(&call);
    assert!(res["result"]["content"][0]["text"].as_str().unwrap().contains("action=decline"));
}

// A 2025-06-18 client's schema has single-select enums only (no titled `oneOf`, no
// multi-select arrays): the fixture sends it what its revision can describe (the support code
// checks the request against the 2025-06-18 schema).
#[test]
fn sep_1330_enums_are_shaped_for_2025_06_18_clients() {
    let mut client = Client::everything("2025-06-18");
    let call = client.send_request("tools/call", json!({"name": "test_elicitation_sep1330_enums", "arguments": {}}));
    let req = client.wait(|m| m["method"] == "elicitation/create");
    let props = req["params"]["requestedSchema"]["properties"].as_object().unwrap();
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["legacyEnum", "untitledSingle"]);
    client.answer(&req["id"], json!({"action": "accept", "content": {"untitledSingle": "option1"}}));
    let res = client.response(&call);
    assert!(res["result"]["content"][0]["text"].as_str().unwrap().contains("action=accept"));
}

#[test]
fn url_elicitation_needs_the_url_capability_and_completes() {
    let mut client = Client::spawn(&["--everything"]);
    client.initialize("2025-11-25", json!({"elicitation": {"form": {}, "url": {}}}));
    let call = client.send_request("tools/call", json!({"name": "test_url_elicitation", "arguments": {}}));
    let req = client.wait(|m| m["method"] == "elicitation/create");
    check(
        &req,
        json!({"params": {"mode": "url", "url": "https://example.com/authorize", "elicitationId": "everything-url-1"}}),
    );
    client.answer(&req["id"], json!({"action": "accept"}));
    client.wait(|m| m["method"] == "notifications/elicitation/complete");
    assert!(client.response(&call).get("result").is_some());

    let mut form_only = Client::everything("2025-11-25");
    let res = form_only.request("tools/call", json!({"name": "test_url_elicitation", "arguments": {}}));
    check(&res, json!({"error": {"code": -32021}}));
}

#[test]
fn roots_are_listed_from_the_client() {
    let mut client = Client::everything("2025-11-25");
    let call = client.send_request("tools/call", json!({"name": "test_roots", "arguments": {}}));
    let req = client.wait(|m| m["method"] == "roots/list");
    client.answer(&req["id"], json!({"roots": [{"uri": "file:///tmp/project", "name": "project"}]}));
    check(&client.response(&call), json!({"result": {"content": [{"text": "Roots: file:///tmp/project"}]}}));
    // The change notification is accepted silently.
    client.notify("notifications/roots/list_changed", json!({}));
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn no_request_is_sent_for_an_undeclared_capability() {
    let mut client = Client::spawn(&["--everything"]);
    client.initialize("2025-11-25", json!({}));
    for (tool, args) in [
        ("test_sampling", json!({"prompt": "x"})),
        ("test_elicitation", json!({"message": "x"})),
        ("test_roots", json!({})),
    ] {
        let res = client.request("tools/call", json!({"name": tool, "arguments": args}));
        check(&res, json!({"error": {"code": -32021}}));
    }
    assert!(client.backlog.iter().all(|m| m.get("method").is_none()), "{:?}", client.backlog);
}

#[test]
fn a_client_error_answer_reaches_the_tool() {
    let mut client = Client::everything("2025-11-25");
    let call = client.send_request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "x"}}));
    let req = client.wait(|m| m["method"] == "sampling/createMessage");
    client
        .send(&json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -1, "message": "user rejected sampling"}}));
    let res = client.response(&call);
    check(&res, json!({"error": {"code": -1, "message": "user rejected sampling"}}));
}

#[test]
fn sampling_with_tools_needs_the_sampling_tools_capability() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request("tools/call", json!({"name": "test_sampling_with_tools", "arguments": {}}));
    check(&res, json!({"error": {"code": -32021}}));
    let mut client = Client::spawn(&["--everything"]);
    client.initialize("2025-11-25", json!({"sampling": {"tools": {}}}));
    let call = client.send_request("tools/call", json!({"name": "test_sampling_with_tools", "arguments": {}}));
    let req = client.wait(|m| m["method"] == "sampling/createMessage");
    check(&req, json!({"params": {"tools": [{"name": "get_weather"}], "toolChoice": {"mode": "auto"}}}));
    client.answer(&req["id"], json!({"role": "assistant", "content": {"type": "text", "text": "sunny"}, "model": "m", "stopReason": "endTurn"}));
    assert!(client.response(&call).get("result").is_some());
}
