//! `tinymcp proxy` across clients and revisions: `--shared` (one child for every session, ids
//! and progress tokens remapped, list changes to every session, the child's requests to the
//! client whose request caused them), and 2026-07-28 requests, which come without a session,
//! passed as they are to a child that speaks that revision or translated for one that speaks
//! only the handshake.

use crate::proxy::proxy;
use crate::stateless_http::{body, post};
use crate::support::{binary, check, Client};
use serde_json::{json, Value};

fn caps() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

/// What `b` heard before a tool list change that `a` then makes: the shared child writes its
/// messages on one stdout, routed in order, so anything it sent `b` earlier came before that
/// change on `b`'s stream (over HTTP, `b`'s GET stream; a request's own stream is done once
/// its answer came).
fn heard_before_a_change(a: &mut Client, b: &mut Client) -> Vec<Value> {
    a.call_tool("test_trigger_tool_change", json!({}));
    b.wait(|m| m["method"] == "notifications/tools/list_changed");
    a.wait(|m| m["method"] == "notifications/tools/list_changed");
    b.backlog.drain(..).collect()
}

/// A call of `name` with a progress token, as a message with this id.
fn call_with_token(id: i64, name: &str, arguments: Value, token: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": token}}})
}

// Two sessions on one child: each sends the same request id and progress token at once, and
// each gets its own progress and answer; a list change reaches both; the child's sampling
// request reaches only the session whose call caused it.
#[test]
fn a_shared_child_serves_every_session_with_their_own_ids_tokens_and_requests() {
    let mut a = Client::spawn_http(&["proxy", "--shared", "--http", "127.0.0.1:0", "--", binary(), "--everything"]);
    let mut b = a.another_session();
    let init_a = a.initialize("2025-11-25", caps());
    let init_b = b.initialize("2025-11-25", json!({}));
    assert_eq!(init_a, init_b, "both sessions see the one child's initialize");

    a.send(&call_with_token(100, "test_tool_with_progress", json!({}), "same"));
    b.send(&call_with_token(100, "test_tool_with_progress", json!({}), "same"));
    for client in [&mut a, &mut b] {
        let answer = client.response(&json!(100));
        check(&answer, json!({"result": {"content": [{"type": "text", "text": "Progress reported"}]}}));
        let progress: Vec<f64> = client
            .backlog
            .iter()
            .filter(|m| m["method"] == "notifications/progress")
            .map(|m| {
                assert_eq!(m["params"]["progressToken"], "same", "the client's own token comes back: {m}");
                m["params"]["progress"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(progress, [0.0, 50.0, 100.0], "each session gets its own call's progress, once");
        client.backlog.clear();
    }

    // One child: a change it announces reaches every session.
    a.call_tool("test_trigger_tool_change", json!({}));
    for client in [&mut a, &mut b] {
        client.wait(|m| m["method"] == "notifications/tools/list_changed");
    }

    // The sampling request goes to the session whose call is in flight, and its answer back.
    let id = a.send_request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    let asked = a.wait(|m| m["method"] == "sampling/createMessage");
    a.answer(&asked["id"], json!({"role": "assistant", "content": {"type": "text", "text": "from a"}, "model": "m"}));
    check(&a.response(&id), json!({"result": {"content": [{"type": "text", "text": "LLM response: from a"}]}}));
    let heard = heard_before_a_change(&mut a, &mut b);
    assert!(heard.iter().all(|m| m["method"] != "sampling/createMessage"), "{heard:?}");

    // A session that declared no sampling: the child's request is refused, not sent to it.
    let answer = b.call_tool("test_sampling", json!({"prompt": "hi"}));
    let text = answer.to_string();
    assert!(text.contains("sampling"), "{text}");
    let heard = heard_before_a_change(&mut a, &mut b);
    assert!(heard.iter().all(|m| m["method"] != "sampling/createMessage"), "{heard:?}");
}

// A child that speaks 2026-07-28 (it answers `server/discover`) gets such requests as they are:
// the proxy adds nothing, and what the child says comes back whole.
#[test]
fn a_2026_request_passes_as_it_is_to_a_child_that_speaks_2026() {
    let server = proxy(&[], &[binary(), "--everything"], &[]);
    let discover = post(&server, &body(1, "server/discover", json!({}), json!({})), &[]);
    assert_eq!(discover.status, 200, "{}", discover.body);
    let discover = discover.json();
    assert_eq!(discover["result"]["supportedVersions"], json!(["2026-07-28"]), "{discover}");
    assert_eq!(discover["result"]["capabilities"]["tools"], json!({"listChanged": true}), "the child's own");
    let echo =
        post(&server, &body(2, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}}), json!({})), &[]);
    check(
        &echo.json(),
        json!({"id": 2, "result": {"resultType": "complete", "content": [{"type": "text", "text": "Echo: hi"}]}}),
    );
    let removed = post(&server, &body(3, "ping", json!({}), json!({})), &[]);
    assert_eq!(removed.status, 404, "{}", removed.body);
    check(&removed.json(), json!({"id": 3, "error": {"code": -32601}}));
}

// The same requests through a child that speaks only the handshake (the shared child, which
// the proxy initializes): discover is made from its `initialize`, the per-request terms are
// taken out, and results gain `resultType`, the child's identity and the cache hints.
#[test]
fn a_2026_request_is_translated_for_a_child_that_speaks_only_the_handshake() {
    let server = proxy(&["--shared"], &[binary(), "--everything"], &[]);
    let discover = post(&server, &body(1, "server/discover", json!({}), json!({})), &[]).json();
    check(
        &discover,
        json!({"id": 1, "result": {"supportedVersions": ["2026-07-28"], "resultType": "complete", "ttlMs": 0,
               "cacheScope": "private", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tinymcp"}}}}),
    );
    // The handshake's tasks are not the 2026-07-28 extension: not declared. List changes and
    // subscriptions come on listen streams of the proxy's own.
    assert_eq!(discover["result"]["capabilities"]["tools"], json!({"listChanged": true}), "{discover}");
    assert!(discover["result"]["capabilities"].get("tasks").is_none(), "{discover}");

    let list = post(&server, &body(2, "tools/list", json!({}), json!({})), &[]).json();
    check(&list, json!({"result": {"resultType": "complete", "ttlMs": 60000, "cacheScope": "public"}}));
    assert!(list["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{list}");

    // Progress and logs come before the result on the request's own stream; logs only at the
    // level the request asked for.
    let mut params = json!({"name": "test_tool_with_progress", "arguments": {}});
    params["_meta"] = crate::stateless::meta(json!({}));
    params["_meta"]["progressToken"] = json!("p1");
    let streamed = post(&server, &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}), &[]);
    let events: Vec<Value> = streamed.events().into_iter().map(|(_, e)| e).collect();
    let progress: Vec<&Value> = events.iter().filter(|e| e["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 3, "{events:?}");
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == "p1"), "{events:?}");
    check(events.last().unwrap(), json!({"id": 3, "result": {"resultType": "complete"}}));

    let quiet = post(
        &server,
        &body(4, "tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}), json!({})),
        &[],
    );
    assert!(!quiet.body.contains("notifications/message"), "no logLevel, no log: {}", quiet.body);
    let mut params = json!({"name": "test_tool_with_logging", "arguments": {}});
    params["_meta"] = crate::stateless::meta(json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let logged = post(&server, &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}), &[]);
    assert!(logged.body.contains("notifications/message"), "{}", logged.body);

    for (id, method) in [(6, "ping"), (7, "logging/setLevel"), (8, "resources/subscribe"), (9, "initialize")] {
        let removed = post(&server, &body(id, method, json!({}), json!({})), &[]);
        assert_eq!(removed.status, 404, "{method}: {}", removed.body);
        check(&removed.json(), json!({"id": id, "error": {"code": -32601}}));
    }
}

/// A 2026-07-28 call of `name` declaring `capabilities`, with `more` params (`inputResponses`,
/// `requestState`).
fn call_2026(id: u64, name: &str, capabilities: Value, more: Value) -> Value {
    let mut message = body(id, "tools/call", json!({"name": name, "arguments": {}}), capabilities);
    for (key, value) in more.as_object().unwrap() {
        message["params"][key] = value.clone();
    }
    message
}

// A child pinned to the handshake revisions asks its client for input with requests of its
// own; a 2026-07-28 client gets each as an input-required round and sends the call again with
// the answer, which reaches the child's call still waiting there.
#[test]
fn a_2026_call_of_a_handshake_child_asks_for_input_in_rounds() {
    let server = proxy(&[], &[binary(), "--everything", "--revisions", "..2025-11-25"], &[]);
    let elicit = json!({"elicitation": {}});
    let first = post(&server, &call_2026(1, "test_input_required_result_multi_round", elicit.clone(), json!({})), &[]);
    let first = first.json();
    check(
        &first,
        json!({"id": 1, "result": {"resultType": "input_required", "inputRequests": {"elicitation": {"method": "elicitation/create"}}}}),
    );
    let state = first["result"]["requestState"].as_str().expect("a requestState").to_owned();

    let answer = |content: Value| json!({"elicitation": {"action": "accept", "content": content}});
    let more = json!({"inputResponses": answer(json!({"name": "Alice"})), "requestState": state});
    let second =
        post(&server, &call_2026(2, "test_input_required_result_multi_round", elicit.clone(), more), &[]).json();
    check(&second, json!({"id": 2, "result": {"resultType": "input_required"}}));
    let state2 = second["result"]["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state, state2, "each round has its own state");

    // A state is used once: the first again, or one altered, is an error that names it.
    let stale = json!({"inputResponses": answer(json!({"color": "blue"})), "requestState": state});
    let stale =
        post(&server, &call_2026(3, "test_input_required_result_multi_round", elicit.clone(), stale), &[]).json();
    check(&stale, json!({"id": 3, "error": {"code": -32602}}));
    assert!(stale["error"]["message"].as_str().unwrap().contains("requestState"), "{stale}");

    let more = json!({"inputResponses": answer(json!({"color": "blue"})), "requestState": state2});
    let done = post(&server, &call_2026(4, "test_input_required_result_multi_round", elicit, more), &[]).json();
    check(
        &done,
        json!({"id": 4, "result": {"resultType": "complete",
               "content": [{"type": "text", "text": "Multi-round complete for Alice who likes blue"}]}}),
    );

    // The child decides on the capabilities it was initialized with: one shared child per set
    // a request declares, so a request without sampling meets a child that knows it.
    let missing = post(&server, &call_2026(5, "test_missing_capability", json!({}), json!({})), &[]);
    assert_eq!(missing.status, 400, "{}", missing.body);
    check(
        &missing.json(),
        json!({"id": 5, "error": {"code": -32021, "data": {"requiredCapabilities": {"sampling": {}}}}}),
    );
    let present =
        post(&server, &call_2026(6, "test_missing_capability", json!({"sampling": {}}), json!({})), &[]).json();
    check(&present, json!({"id": 6, "result": {"content": [{"type": "text", "text": "Success"}]}}));
}

// A child pinned to 2026-07-28 behind a handshake session: `initialize` is made from its
// `server/discover`, the session's terms travel as `_meta`, what 2026-07-28 removed is answered
// by the proxy, the child's input-required rounds become requests to the client, and
// subscriptions and list changes come through a listen stream the proxy holds for the session.
#[test]
fn a_handshake_client_is_served_by_a_child_that_speaks_only_2026() {
    let mut client = Client::spawn_http(&[
        "proxy",
        "--http",
        "127.0.0.1:0",
        "--",
        binary(),
        "--everything",
        "--revisions",
        "2026-07-28..",
    ]);
    let init = client.initialize("2025-11-25", caps());
    check(
        &init,
        json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "tinymcp"},
               "capabilities": {"resources": {"subscribe": true}, "tools": {}}}),
    );
    check(&client.request("ping", json!({})), json!({"result": {}}));
    check(&client.request("logging/setLevel", json!({"level": "debug"})), json!({"result": {}}));

    let id = client.send_request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    let asked = client.wait(|m| m["method"] == "sampling/createMessage");
    let reply = json!({"role": "assistant", "content": {"type": "text", "text": "relayed"}, "model": "m"});
    client.answer(&asked["id"], reply);
    check(&client.response(&id), json!({"result": {"content": [{"type": "text", "text": "LLM response: relayed"}]}}));

    check(&client.request("resources/subscribe", json!({"uri": "test://watched-resource"})), json!({"result": {}}));
    client.call_tool("test_trigger_resource_update", json!({}));
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    client.call_tool("test_trigger_tool_change", json!({}));
    client.wait(|m| m["method"] == "notifications/tools/list_changed");

    let unknown = client.request("resources/read", json!({"uri": "test://nope"}));
    check(&unknown, json!({"error": {"code": -32002}}));
}

// The attack: two sessions on one child, A's call asks A for input twice. While A answers the
// first prompt, B's call is the latest in flight; the child's second prompt names no request
// (no progress token), so it cannot be attributed to one client and is refused to the child,
// never sent to B (who could read and answer A's prompt while A's call hung). With one client
// request in flight, that one is the cause: A gets its prompts and finishes.
#[test]
fn a_childs_request_never_reaches_a_client_whose_request_did_not_cause_it() {
    let mut a = Client::spawn_http(&["proxy", "--shared", "--http", "127.0.0.1:0", "--", binary(), "--everything"]);
    let mut b = a.another_session();
    a.initialize("2025-11-25", caps());
    b.initialize("2025-11-25", caps());

    let call = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
    let a_call = a.send_request("tools/call", call);
    let first = a.wait(|m| m["method"] == "elicitation/create");
    assert!(first.to_string().contains("Step 1"), "{first}");

    // B's call is in flight with A's: the child's prompt for it names neither call.
    let b_call = b.send_request("tools/call", json!({"name": "test_elicitation", "arguments": {"message": "for b"}}));
    let seen = b.wait(|m| m["method"] == "elicitation/create" || m.get("id") == Some(&b_call));
    assert!(seen.get("method").is_none(), "a prompt that cannot be attributed reached a client: {seen}");
    assert!(seen.to_string().contains("cannot tell which client"), "{seen}");

    // Only A's call is in flight now: the second prompt is A's, and A finishes.
    a.answer(&first["id"], json!({"action": "accept", "content": {"name": "Alice"}}));
    let second = a.wait(|m| m["method"] == "elicitation/create");
    assert!(second.to_string().contains("Step 2"), "{second}");
    a.answer(&second["id"], json!({"action": "accept", "content": {"color": "blue"}}));
    check(
        &a.response(&a_call),
        json!({"result": {"content": [{"type": "text", "text": "Multi-round complete for Alice who likes blue"}]}}),
    );
    let leaked = heard_before_a_change(&mut a, &mut b);
    assert!(!leaked.iter().any(|m| m.to_string().contains("Step")), "A's prompt reached B: {leaked:?}");
}
