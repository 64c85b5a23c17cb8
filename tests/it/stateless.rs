//! Revision 2026-07-28 over stdio: per-request `_meta` (errors in the contract's order),
//! `server/discover`, removed methods, decorated results, input-required results with sealed
//! state, logging by `_meta` level, `subscriptions/listen`, and both eras in one process.

use crate::support::{check, wait_for, Client, TempDir, TIMEOUT};
use serde_json::{json, Value};
use std::time::Duration;

/// The revision, and a request's `_meta` on it (the HTTP tests use them too).
pub(crate) const REV: &str = "2026-07-28";

pub(crate) fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": REV,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "it", "version": "0"},
    })
}

fn all_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

/// `--everything` spoken to at 2026-07-28 only: every message is checked against its schema.
fn client_with(args: &[&str]) -> Client {
    let mut client = Client::spawn(args);
    client.revision = Some(REV.into());
    client
}

fn client() -> Client {
    client_with(&["--everything"])
}

/// A request whose `_meta` declares `capabilities`.
fn request_with(client: &mut Client, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    client.request(method, params)
}

fn request(client: &mut Client, method: &str, params: Value) -> Value {
    request_with(client, method, params, all_capabilities())
}

fn call(client: &mut Client, tool: &str, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Value::Object(extra) = extra {
        params.as_object_mut().expect("object").extend(extra);
    }
    request(client, "tools/call", params)
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}"))
}

#[test]
fn discover_describes_the_server_and_what_its_method_table_answers() {
    let mut c = client();
    let res = request_with(&mut c, "server/discover", json!({}), json!({}));
    check(
        &res["result"],
        json!({
            "resultType": "complete",
            "supportedVersions": [REV],
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tinymcp"}},
        }),
    );
    let caps = &res["result"]["capabilities"];
    for (method, cap) in [("tools/list", "tools"), ("prompts/list", "prompts"), ("resources/list", "resources")] {
        assert!(caps.get(cap).is_some(), "{cap} not declared: {caps}");
        let listed = request(&mut c, method, json!({}));
        assert!(listed.get("result").is_some(), "{method}: {listed}");
    }
    // A server with no prompts declares none, and prompts/list is then -32601.
    let dir = TempDir::new("discover");
    let manifest =
        dir.write("tools.json", r#"{"tools": [{"name": "show", "description": "Shows", "command": ["printf", "x"]}]}"#);
    let mut bare = client_with(&["--manifest", manifest.to_str().expect("UTF-8 path")]);
    let res = request(&mut bare, "server/discover", json!({}));
    assert!(res["result"]["capabilities"].get("prompts").is_none(), "{res}");
    check(&request(&mut bare, "prompts/list", json!({})), json!({"error": {"code": -32601}}));
}

#[test]
fn meta_errors_come_in_the_contract_order_and_echo_the_id() {
    let mut c = client();
    // No _meta, or an incomplete one: -32602.
    let id = c.send_request("server/discover", json!({}));
    let res = c.response(&id);
    check(&res, json!({"id": id, "error": {"code": -32602}}));
    let no_version = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
    check(&c.request("server/discover", no_version), json!({"error": {"code": -32602}}));
    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": REV}});
    check(&c.request("server/discover", no_caps), json!({"error": {"code": -32602}}));
    // An unknown version: -32022 with what we serve and what was asked.
    let v999 = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0", "io.modelcontextprotocol/clientCapabilities": {}}});
    let res = c.request("server/discover", v999);
    check(&res, json!({"error": {"code": -32022, "data": {"supported": [REV], "requested": "v999.0.0"}}}));
    // No clientInfo is fine.
    let no_info = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": REV, "io.modelcontextprotocol/clientCapabilities": {}}});
    check(&c.request("server/discover", no_info), json!({"result": {"resultType": "complete"}}));
    // A bad log level is the client's error too.
    let mut bad_level = json!({"name": "echo", "arguments": {"message": "x"}, "_meta": meta(json!({}))});
    bad_level["_meta"]["io.modelcontextprotocol/logLevel"] = json!("loud");
    check(&c.request("tools/call", bad_level), json!({"error": {"code": -32602}}));
}

#[test]
fn removed_and_unknown_methods_are_method_not_found() {
    let mut c = client();
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/list",
        "unknown/method",
    ] {
        let res = request(&mut c, method, json!({"uri": "test://static-text", "level": "info"}));
        check(&res, json!({"error": {"code": -32601}}));
    }
    // The process still serves the handshake era afterwards: initialize was not taken as one.
    c.revision = None;
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    check(&init, json!({"result": {"protocolVersion": "2025-11-25"}}));
}

#[test]
fn a_capability_the_request_did_not_declare_is_32021_with_the_capability() {
    let mut c = client();
    let params = json!({"name": "test_missing_capability", "arguments": {}});
    let res = request_with(&mut c, "tools/call", params.clone(), json!({}));
    check(&res, json!({"error": {"code": -32021, "data": {"requiredCapabilities": {"sampling": {}}}}}));
    let res = request_with(&mut c, "tools/call", params, json!({"sampling": {}}));
    assert_eq!(text(&res), "Success");
    // Asking the client through cx.elicit without the capability: the same error.
    let params = json!({"name": "test_input_required_result_elicitation", "arguments": {}});
    let res = request_with(&mut c, "tools/call", params, json!({"sampling": {}}));
    check(&res, json!({"error": {"code": -32021, "data": {"requiredCapabilities": {"elicitation": {}}}}}));
}

#[test]
fn results_carry_result_type_server_info_and_cache_hints() {
    let mut c = client();
    for (method, scope) in [
        ("tools/list", "public"),
        ("prompts/list", "public"),
        ("resources/list", "public"),
        ("resources/templates/list", "public"),
    ] {
        let res = request(&mut c, method, json!({}));
        check(&res["result"], json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": scope}));
    }
    let read = request(&mut c, "resources/read", json!({"uri": "test://static-text"}));
    check(
        &read["result"],
        json!({"resultType": "complete", "cacheScope": "private", "contents": [{"uri": "test://static-text"}]}),
    );
    let simple = call(&mut c, "test_simple_text", json!({}));
    check(
        &simple["result"],
        json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tinymcp"}}}),
    );
    assert!(simple["result"].get("ttlMs").is_none(), "a tool result has no cache hint: {simple}");
    // Deterministic order.
    let names = |res: &Value| {
        res["result"]["tools"].as_array().expect("tools").iter().map(|t| t["name"].clone()).collect::<Vec<_>>()
    };
    let first = names(&request(&mut c, "tools/list", json!({})));
    assert_eq!(first, names(&request(&mut c, "tools/list", json!({}))));
    // Not found is -32602 with the URI on this revision.
    let uri = "test://nonexistent-resource-for-conformance-testing";
    let res = request(&mut c, "resources/read", json!({"uri": uri}));
    check(&res, json!({"error": {"code": -32602, "data": {"uri": uri}}}));
}

#[test]
fn cache_hints_follow_cache_ttl_ms() {
    let mut c = client_with(&["--everything", "--cache-ttl-ms", "1234"]);
    let list = request(&mut c, "tools/list", json!({}));
    check(&list["result"], json!({"resultType": "complete", "ttlMs": 1234, "cacheScope": "public"}));
    let read = request(&mut c, "resources/read", json!({"uri": "test://static-text"}));
    check(&read["result"], json!({"resultType": "complete", "ttlMs": 1234, "cacheScope": "private"}));
    // Discover is never cached, whatever the flag says.
    let discover = request_with(&mut c, "server/discover", json!({}), json!({}));
    check(&discover["result"], json!({"ttlMs": 0, "cacheScope": "private"}));
}

#[test]
fn an_elicitation_becomes_an_input_required_result_answered_on_retry() {
    let mut c = client();
    let round1 = call(&mut c, "test_input_required_result_elicitation", json!({}));
    check(
        &round1["result"],
        json!({"resultType": "input_required", "inputRequests": {"user_name": {"method": "elicitation/create", "params": {"message": "What is your name?"}}}}),
    );
    let state = round1["result"]["requestState"].as_str().expect("requestState").to_owned();
    let answer = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let round2 = call(
        &mut c,
        "test_input_required_result_elicitation",
        json!({"inputResponses": answer, "requestState": state}),
    );
    assert_eq!(text(&round2), "Hello, Alice!");
    check(&round2["result"], json!({"resultType": "complete"}));
    // A replay of the same state within its lifetime is the same request again: same answer.
    let replay = call(
        &mut c,
        "test_input_required_result_elicitation",
        json!({"inputResponses": answer, "requestState": state}),
    );
    assert_eq!(text(&replay), "Hello, Alice!");
    // Without a state the answers are taken as given; extra keys are ignored.
    let mut extra = answer.clone();
    extra["unknown_extra_key"] = json!({"action": "accept"});
    let res = call(&mut c, "test_input_required_result_elicitation", json!({"inputResponses": extra}));
    assert_eq!(text(&res), "Hello, Alice!");
    // A wrong key asks again.
    let wrong = json!({"wrong_key": {"action": "accept", "content": {"name": "Bob"}}});
    let res = call(&mut c, "test_input_required_result_elicitation", json!({"inputResponses": wrong}));
    check(
        &res["result"],
        json!({"resultType": "input_required", "inputRequests": {"user_name": {"method": "elicitation/create"}}}),
    );
    // Answers of the wrong shape, or no map at all: -32602.
    for bad in [json!({"user_name": 12345}), json!({"user_name": {"action": "maybe"}}), Value::Null, json!([])] {
        let res = call(&mut c, "test_input_required_result_elicitation", json!({"inputResponses": bad}));
        check(&res, json!({"error": {"code": -32602}}));
    }
    // Nothing was ever written to stdout but answers: no elicitation/create request.
    // Each call's requests to the client would have come before its answer.
    assert!(c.backlog.iter().all(|m| m.get("id").is_some() && m.get("method").is_none()), "{:?}", c.backlog);
}

#[test]
fn several_inputs_in_one_round_and_several_rounds() {
    let mut c = client();
    let round1 = call(&mut c, "test_input_required_result_multiple_inputs", json!({}));
    check(
        &round1["result"],
        json!({"resultType": "input_required", "inputRequests": {
            "user_name": {"method": "elicitation/create"},
            "greeting": {"method": "sampling/createMessage", "params": {"maxTokens": 50}},
            "client_roots": {"method": "roots/list"},
        }}),
    );
    let answers = json!({
        "user_name": {"action": "accept", "content": {"name": "Alice"}},
        "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hello there!"}, "model": "test-model", "stopReason": "endTurn"},
        "client_roots": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]},
    });
    let state = round1["result"]["requestState"].clone();
    let done = call(
        &mut c,
        "test_input_required_result_multiple_inputs",
        json!({"inputResponses": answers, "requestState": state}),
    );
    assert_eq!(text(&done), "Name: Alice; Greeting: Hello there!; Roots: 1");

    let tool = "test_input_required_result_multi_round";
    let round1 = call(&mut c, tool, json!({}));
    check(&round1["result"], json!({"inputRequests": {"step1": {"method": "elicitation/create"}}}));
    let state1 = round1["result"]["requestState"].clone();
    let round2 = call(
        &mut c,
        tool,
        json!({"inputResponses": {"step1": {"action": "accept", "content": {"name": "Alice"}}}, "requestState": state1}),
    );
    check(
        &round2["result"],
        json!({"resultType": "input_required", "inputRequests": {"step2": {"method": "elicitation/create"}}}),
    );
    let state2 = round2["result"]["requestState"].clone();
    assert_ne!(state1, state2, "each round seals a new state");
    let round3 = call(
        &mut c,
        tool,
        json!({"inputResponses": {"step2": {"action": "accept", "content": {"color": "blue"}}}, "requestState": state2}),
    );
    assert_eq!(text(&round3), "Multi-round complete for Alice who likes blue");
}

#[test]
fn only_the_declared_capabilities_are_asked_and_prompts_ask_too() {
    let mut c = client();
    let params = json!({"name": "test_input_required_result_capabilities", "arguments": {}});
    let res = request_with(&mut c, "tools/call", params.clone(), json!({"sampling": {}}));
    let asked = res["result"]["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["sample_input"], "{res}");
    let res = request_with(&mut c, "tools/call", params, json!({}));
    assert_eq!(text(&res), "No supported capabilities declared");

    let prompt = json!({"name": "test_input_required_result_prompt"});
    let round1 = request(&mut c, "prompts/get", prompt.clone());
    check(
        &round1["result"],
        json!({"resultType": "input_required", "inputRequests": {"user_context": {"method": "elicitation/create"}}}),
    );
    let mut retry = prompt;
    retry["inputResponses"] = json!({"user_context": {"action": "accept", "content": {"context": "test context"}}});
    retry["requestState"] = round1["result"]["requestState"].clone();
    let done = request(&mut c, "prompts/get", retry);
    check(
        &done["result"],
        json!({"resultType": "complete", "messages": [{"role": "user", "content": {"text": "Prompt with context: test context"}}]}),
    );
    // Lists never need input.
    assert_eq!(request(&mut c, "prompts/list", json!({}))["result"]["resultType"], "complete");
}

#[test]
fn tampered_and_foreign_states_are_errors_never_results() {
    let mut c = client();
    let round1 = call(&mut c, "test_input_required_result_tampered_state", json!({}));
    let state = round1["result"]["requestState"].as_str().expect("requestState").to_owned();
    let ok = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let tampered = call(
        &mut c,
        "test_input_required_result_tampered_state",
        json!({"inputResponses": ok, "requestState": format!("{state}-TAMPERED")}),
    );
    check(&tampered, json!({"error": {"code": -32602}}));
    // Authentic, but issued for another tool: refused as foreign.
    let foreign =
        call(&mut c, "test_input_required_result_request_state", json!({"inputResponses": ok, "requestState": state}));
    check(&foreign, json!({"error": {"code": -32602}}));
    assert!(foreign["error"]["message"].as_str().unwrap_or("").contains("another request"), "{foreign}");
    // Another argument list is another request too.
    let other_args = call(
        &mut c,
        "test_input_required_result_tampered_state",
        json!({"arguments": {"x": 1}, "inputResponses": ok, "requestState": state}),
    );
    check(&other_args, json!({"error": {"code": -32602}}));
    let not_a_string = call(&mut c, "test_input_required_result_tampered_state", json!({"requestState": 7}));
    check(&not_a_string, json!({"error": {"code": -32602}}));
    // The untouched state still completes.
    let done =
        call(&mut c, "test_input_required_result_tampered_state", json!({"inputResponses": ok, "requestState": state}));
    assert!(text(&done).contains("state-ok"), "{done}");
}

#[test]
fn an_expired_state_is_an_error_saying_so() {
    let mut c = client_with(&["--everything", "--state-ttl-secs", "1"]);
    let tool = "test_input_required_result_request_state";
    let round1 = call(&mut c, tool, json!({}));
    let retry = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}, "requestState": round1["result"]["requestState"]});
    // Retried until the state's second has passed (before, the retry completes: nothing is kept).
    let expired = wait_for("the request state to expire", TIMEOUT, || {
        Some(call(&mut c, tool, retry.clone())).filter(|answer| answer.get("error").is_some())
    });
    check(&expired, json!({"error": {"code": -32602}}));
    assert!(expired["error"]["message"].as_str().unwrap_or("").contains("expired"), "{expired}");
}

#[test]
fn a_batch_of_2026_07_28_requests_is_refused_as_such() {
    let mut c = Client::spawn(&["--everything"]);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(json!({}))}});
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    c.send(&json!([list, ping]));
    let answer = c.next_message(Duration::from_secs(10)).expect("an answer");
    check(&answer, json!({"id": null, "error": {"code": -32600}}));
    let message = answer["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("batches are not part of 2026-07-28"), "{answer}");
    // The process still serves the same request on its own.
    c.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta(json!({}))}}));
    let answer = c.next_message(Duration::from_secs(10)).expect("an answer");
    assert!(answer["result"]["tools"].is_array(), "{answer}");
}

#[test]
fn replicas_sharing_a_state_key_file_accept_each_others_state() {
    let dir = TempDir::new("state-key");
    let key = dir.write("state.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
    let key = key.to_str().expect("UTF-8 path");
    let mut first = client_with(&["--everything", "--state-key-file", key]);
    let mut second = client_with(&["--everything", "--state-key-file", key]);
    let mut stranger = client();
    let tool = "test_input_required_result_request_state";
    let round1 = call(&mut first, tool, json!({}));
    let retry = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}, "requestState": round1["result"]["requestState"]});
    assert!(text(&call(&mut second, tool, retry.clone())).contains("state-ok"));
    check(&call(&mut stranger, tool, retry), json!({"error": {"code": -32602}}));
    // A key file that is too short stops the binary with a message.
    let short = dir.write("short.key", "abcd");
    let out = crate::support::run_binary(&["--everything", "--state-key-file", short.to_str().expect("UTF-8")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("too short"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn logging_only_with_a_level_in_meta_and_no_requests_on_the_wire() {
    let mut c = client();
    let res = call(&mut c, "test_logging_tool", json!({}));
    assert_eq!(text(&res), "Logging evaluated");
    assert!(c.backlog.iter().all(|m| m["method"] != "notifications/message"), "{:?}", c.backlog);
    let mut params = json!({"name": "test_logging_tool", "arguments": {}, "_meta": meta(json!({}))});
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let id = c.send_request("tools/call", params.clone());
    let log = c.wait(|m| m["method"] == "notifications/message");
    check(&log, json!({"params": {"level": "info", "data": "Diagnostic trace logging activated"}}));
    c.response(&id);
    // A higher threshold filters it out.
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    let res = c.request("tools/call", params);
    assert_eq!(text(&res), "Logging evaluated");
    // A call's log messages travel before its answer.
    assert!(c.backlog.iter().all(|m| m["method"] != "notifications/message"), "{:?}", c.backlog);
    // Progress still travels before the result when asked for.
    let mut params =
        json!({"name": "test_streaming_elicitation", "arguments": {}, "_meta": meta(json!({"elicitation": {}}))});
    params["_meta"]["progressToken"] = json!("p1");
    let id = c.send_request("tools/call", params);
    check(&c.wait(|m| m["method"] == "notifications/progress"), json!({"params": {"progressToken": "p1"}}));
    assert_eq!(text(&c.response(&id)), "Streaming complete");
}

#[test]
fn listen_streams_acknowledge_filter_and_end_on_cancel() {
    let mut c = client();
    let mut params =
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": false}, "_meta": meta(json!({}))});
    let tools_id = c.send_request("subscriptions/listen", params.clone());
    let ack = c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    check(
        &ack,
        json!({"params": {"_meta": {"io.modelcontextprotocol/subscriptionId": tools_id}, "notifications": {"toolsListChanged": true}}}),
    );
    assert!(ack["params"]["notifications"].get("promptsListChanged").is_none(), "{ack}");
    params["notifications"] = json!({"promptsListChanged": true});
    let prompts_id = c.send_request("subscriptions/listen", params);
    c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");

    assert_eq!(text(&call(&mut c, "test_trigger_tool_change", json!({}))), "Mutation triggered");
    let changed = c.wait(|m| m["method"] == "notifications/tools/list_changed");
    check(&changed, json!({"params": {"_meta": {"io.modelcontextprotocol/subscriptionId": tools_id}}}));
    // Listen streams hear a change as it is made, before the call that made it is answered.
    let later = c.barrier("tools/list", json!({"_meta": meta(json!({}))}));
    assert!(later.iter().all(|m| m["method"] != "notifications/tools/list_changed"), "{later:?}");

    call(&mut c, "test_trigger_prompt_change", json!({}));
    let changed = c.wait(|m| m["method"] == "notifications/prompts/list_changed");
    check(&changed, json!({"params": {"_meta": {"io.modelcontextprotocol/subscriptionId": prompts_id}}}));

    // Cancelled: no response, and nothing more on it.
    c.notify("notifications/cancelled", json!({"requestId": tools_id, "_meta": meta(json!({}))}));
    call(&mut c, "test_trigger_tool_change", json!({}));
    let later = c.barrier("tools/list", json!({"_meta": meta(json!({}))}));
    assert!(
        later.iter().all(|m| m["method"] != "notifications/tools/list_changed" && m.get("id") != Some(&tools_id)),
        "{later:?}"
    );
    // A missing filter is the client's error.
    check(&request(&mut c, "subscriptions/listen", json!({})), json!({"error": {"code": -32602}}));
}

#[test]
fn both_eras_in_one_process_and_the_older_one_unchanged() {
    let mut c = Client::spawn(&["--everything"]);
    // Per-request first, before any initialize.
    let res = request(&mut c, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}}));
    check(&res["result"], json!({"resultType": "complete", "content": [{"text": "Echo: hi"}]}));
    // A handshake-era request before initialize is still refused.
    check(&c.request("tools/list", json!({})), json!({"error": {"code": -32600}}));
    c.initialize("2025-11-25", json!({"elicitation": {}}));
    let old = c.request("tools/list", json!({"_meta": {"progressToken": 1}}));
    assert!(old["result"].get("resultType").is_none() && old["result"].get("ttlMs").is_none(), "{old}");
    assert!(c.request("ping", json!({}))["result"] == json!({}));
    // The same handler asks the client directly on the older revision.
    let id = c.send_request("tools/call", json!({"name": "test_input_required_result_elicitation", "arguments": {}}));
    let asked = c.wait(|m| m["method"] == "elicitation/create");
    check(&asked, json!({"params": {"message": "What is your name?"}}));
    c.answer(&asked["id"], json!({"action": "accept", "content": {"name": "Carol"}}));
    assert_eq!(text(&c.response(&id)), "Hello, Carol!");
    // And the per-request era is still served next to the session.
    c.revision = None;
    let res = request(&mut c, "server/discover", json!({}));
    check(&res["result"], json!({"supportedVersions": [REV]}));
}

#[test]
fn listen_streams_carry_updates_of_the_resources_they_name() {
    let mut c = client();
    let params =
        json!({"notifications": {"resourceSubscriptions": ["test://watched-resource"]}, "_meta": meta(json!({}))});
    let id = c.send_request("subscriptions/listen", params);
    let ack = c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    check(&ack, json!({"params": {"notifications": {"resourceSubscriptions": ["test://watched-resource"]}}}));
    call(&mut c, "test_trigger_resource_update", json!({}));
    let updated = c.wait(|m| m["method"] == "notifications/resources/updated");
    check(
        &updated,
        json!({"params": {"uri": "test://watched-resource", "_meta": {"io.modelcontextprotocol/subscriptionId": id}}}),
    );
}
