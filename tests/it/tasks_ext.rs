//! The tasks extension `io.modelcontextprotocol/tasks` on 2026-07-28 (SEP-2663, contract §2.7),
//! over stdio and over Streamable HTTP: the per-request opt-in, every transition (working ->
//! completed / failed / cancelled, input_required -> working by `tasks/update`), the gate
//! without the extension, and asking before becoming a task.

use crate::raw_http::Server;
use crate::stateless_http::{body, post};
use crate::support::{check, wait_for, wait_until, Client, TIMEOUT};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const REV: &str = "2026-07-28";
pub(crate) const EXT: &str = "io.modelcontextprotocol/tasks";
const SUB: &str = "io.modelcontextprotocol/subscriptionId";

/// One request on the 2026-07-28 wire, its `_meta` declaring `capabilities`; the whole answer.
pub(crate) trait Wire {
    fn rpc(&mut self, method: &str, params: Value, capabilities: Value) -> Value;
}

impl Wire for Client {
    fn rpc(&mut self, method: &str, mut params: Value, capabilities: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": REV,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        self.request(method, params)
    }
}

pub(crate) struct Http(pub(crate) Server, pub(crate) u64);

impl Wire for Http {
    fn rpc(&mut self, method: &str, params: Value, capabilities: Value) -> Value {
        self.1 += 1;
        post(&self.0, &body(self.1, method, params, capabilities), &[]).json()
    }
}

pub(crate) fn with_ext() -> Value {
    json!({"elicitation": {}, "sampling": {}, "extensions": {EXT: {}}})
}

pub(crate) fn call(w: &mut dyn Wire, tool: &str, arguments: Value) -> Value {
    w.rpc("tools/call", json!({"name": tool, "arguments": arguments}), with_ext())
}

pub(crate) fn task_id(answer: &Value) -> String {
    answer["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {answer}")).to_owned()
}

/// Polls `tasks/get` until the status is `status` (10 s at most); the last `tasks/get` result.
pub(crate) fn until(w: &mut dyn Wire, id: &str, status: &str) -> Value {
    wait_for(&format!("task {id} to reach {status}"), TIMEOUT, || {
        let got = w.rpc("tasks/get", json!({"taskId": id}), with_ext());
        (got["result"]["status"] == status).then(|| got["result"].clone())
    })
}

fn both(test: fn(&mut dyn Wire)) {
    test(&mut Client::spawn(&["--everything"]));
    test(&mut Http(Server::start(&[], &[]), 0));
}

#[test]
fn discover_advertises_the_extension_not_capabilities_tasks() {
    both(|w| {
        let res = w.rpc("server/discover", json!({}), json!({}));
        assert!(res["result"]["capabilities"]["extensions"][EXT].is_object(), "{res}");
        assert!(res["result"]["capabilities"].get("tasks").is_none(), "{res}");
    });
}

#[test]
fn without_the_extension_task_methods_and_required_task_tools_are_32021() {
    both(|w| {
        for (method, params) in [
            ("tasks/get", json!({"taskId": "gate-test"})),
            ("tasks/update", json!({"taskId": "gate-test", "inputResponses": {}})),
            ("tasks/cancel", json!({"taskId": "gate-test"})),
        ] {
            check(&w.rpc(method, params, json!({})), json!({"error": {"code": -32021}}));
        }
        let res = w.rpc("tools/call", json!({"name": "failing_job", "arguments": {}}), json!({}));
        check(&res, json!({"error": {"code": -32021, "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}}));
        // An optional-task tool runs in the request; the legacy `task` param changes nothing.
        let res = w.rpc(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0}, "task": {"ttl": 1}}),
            json!({}),
        );
        check(&res, json!({"result": {"resultType": "complete"}}));
        assert!(res["result"]["content"].is_array() && res["result"].get("taskId").is_none(), "{res}");
    });
}

#[test]
fn an_opted_in_request_gets_a_flat_task_that_completes_or_fails() {
    both(|w| {
        let created = call(w, "slow_compute", json!({"seconds": 0.3, "label": "sum"}));
        let keys: Vec<&str> = created["result"].as_object().expect("result").keys().map(String::as_str).collect();
        for key in keys {
            assert!(
                ["resultType", "taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs", "_meta"]
                    .contains(&key),
                "{created}"
            );
        }
        check(
            &created,
            json!({"result": {"resultType": "task", "status": "working", "ttlMs": 300000, "pollIntervalMs": 1000}}),
        );
        let id = task_id(&created);
        let done = until(w, &id, "completed");
        check(
            &done,
            json!({"resultType": "complete", "taskId": id, "result": {"content": [{"text": "sum finished after 300 ms"}]}}),
        );
        assert!(done["result"]["_meta"].get("io.modelcontextprotocol/related-task").is_none(), "{done}");
        // Still there after finishing (it lives ttlMs: its expiry is after_the_ttl_...'s).
        until(w, &id, "completed");

        // A tool error completes with isError; a protocol error fails with the error inlined.
        let id = task_id(&call(w, "failing_job", json!({})));
        check(&until(w, &id, "completed"), json!({"result": {"isError": true}}));
        let id = task_id(&call(w, "protocol_error_job", json!({})));
        let failed = until(w, &id, "failed");
        check(&failed, json!({"error": {"code": -32602}}));
        assert!(failed.get("result").is_none(), "{failed}");

        // This wire has no tasks/result nor tasks/list; unknown ids are -32602.
        check(&w.rpc("tasks/result", json!({"taskId": id}), with_ext()), json!({"error": {"code": -32601}}));
        check(&w.rpc("tasks/list", json!({}), with_ext()), json!({"error": {"code": -32601}}));
        check(&w.rpc("tasks/get", json!({"taskId": "no-such-task"}), with_ext()), json!({"error": {"code": -32602}}));
    });
}

#[test]
fn cancel_is_an_idempotent_ack_and_the_task_ends_cancelled() {
    both(|w| {
        let id = task_id(&call(w, "slow_compute", json!({"seconds": 60})));
        for _ in 0..2 {
            let ack = w.rpc("tasks/cancel", json!({"taskId": id}), with_ext());
            check(&ack, json!({"result": {"resultType": "complete"}}));
            assert!(ack["result"].get("taskId").is_none() && ack["result"].get("status").is_none(), "{ack}");
        }
        until(w, &id, "cancelled");
        // A finished task: the same ack, and it stays completed.
        let id = task_id(&call(w, "slow_compute", json!({"seconds": 0})));
        until(w, &id, "completed");
        check(&w.rpc("tasks/cancel", json!({"taskId": id}), with_ext()), json!({"result": {"resultType": "complete"}}));
        until(w, &id, "completed");
    });
}

#[test]
fn input_required_tasks_take_partial_answers_through_update() {
    both(|w| {
        let id = task_id(&call(w, "confirm_delete", json!({"filename": "a.txt"})));
        let waiting = until(w, &id, "input_required");
        assert!(waiting.get("requestState").is_none(), "{waiting}");
        let (key, request) = waiting["inputRequests"].as_object().expect("inputRequests").iter().next().expect("one");
        assert_eq!(request["method"], "elicitation/create");
        let answers =
            json!({key.clone(): {"action": "accept", "content": {"confirm": true}}, "unknown-key": {"ignored": true}});
        let ack = w.rpc("tasks/update", json!({"taskId": id, "inputResponses": answers}), with_ext());
        check(&ack, json!({"result": {"resultType": "complete"}}));
        check(&until(w, &id, "completed"), json!({"result": {"content": [{"text": "Deleted a.txt"}]}}));

        let id = task_id(&call(w, "multi_input", json!({})));
        let waiting = until(w, &id, "input_required");
        let keys: Vec<String> = waiting["inputRequests"].as_object().expect("map").keys().cloned().collect();
        assert_eq!(keys.len(), 2, "{waiting}");
        let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
        w.rpc("tasks/update", json!({"taskId": id, "inputResponses": {keys[0].clone(): answer("Ada")}}), with_ext());
        let still = until(w, &id, "input_required");
        let left: Vec<&String> = still["inputRequests"].as_object().expect("map").keys().collect();
        assert_eq!(left, vec![&keys[1]], "{still}");
        w.rpc("tasks/update", json!({"taskId": id, "inputResponses": {keys[1].clone(): answer("blue")}}), with_ext());
        until(w, &id, "completed");
    });
}

#[test]
fn a_tool_asks_first_then_becomes_a_task() {
    both(|w| {
        let first = call(w, "test_tool_with_task", json!({}));
        check(&first, json!({"result": {"resultType": "input_required"}}));
        assert!(first["result"].get("taskId").is_none(), "{first}");
        let key = first["result"]["inputRequests"].as_object().expect("map").keys().next().expect("key").clone();
        let params = json!({
            "name": "test_tool_with_task",
            "arguments": {},
            "inputResponses": {key: {"action": "accept", "content": {"name": "Alice"}}},
            "requestState": first["result"]["requestState"],
        });
        let created = w.rpc("tools/call", params, with_ext());
        check(&created, json!({"result": {"resultType": "task"}}));
        assert!(created["result"].get("requestState").is_none(), "{created}");
        let done = until(w, &task_id(&created), "completed");
        assert!(done["result"]["content"][0]["text"].as_str().is_some_and(|t| t.contains("Alice")), "{done}");
    });
}

#[test]
fn unfinished_tasks_are_capped_per_server() {
    let mut c = Client::spawn(&["--everything"]);
    let w: &mut dyn Wire = &mut c;
    let mut ids = Vec::new();
    let refused = loop {
        let answer = call(w, "slow_compute", json!({"seconds": 30}));
        match answer["result"]["taskId"].as_str() {
            Some(id) => ids.push(id.to_owned()),
            None => break answer,
        }
        assert!(ids.len() <= 256, "more than 256 unfinished tasks were accepted");
    };
    assert_eq!(ids.len(), 256, "{refused}");
    check(&refused, json!({"error": {"code": -32600}}));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("too many unfinished tasks: at most 256") && message.contains("tasks/cancel"),
        "{message}"
    );
    // Cancelling one makes room for one more.
    check(&w.rpc("tasks/cancel", json!({"taskId": ids[0]}), with_ext()), json!({"result": {}}));
    let again = call(w, "slow_compute", json!({"seconds": 30}));
    ids.push(task_id(&again));
    for id in &ids {
        w.rpc("tasks/cancel", json!({"taskId": id}), with_ext());
    }
}

/// `subscriptions/listen` params asking for `notifications`, with or without the extension.
fn listen_params(notifications: Value, capabilities: Value) -> Value {
    json!({"notifications": notifications, "_meta": crate::stateless::meta(capabilities)})
}

#[test]
fn listen_streams_that_asked_for_a_task_hear_its_status_over_stdio() {
    let mut c = Client::spawn(&["--everything"]);
    let id = task_id(&call(&mut c, "slow_compute", json!({"seconds": 0.5, "label": "heard"})));
    // Without the extension, asking for task statuses is -32021.
    let refused = c.request("subscriptions/listen", listen_params(json!({"taskIds": [id]}), json!({})));
    check(&refused, json!({"error": {"code": -32021, "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}}));
    let other = c.send_request("subscriptions/listen", listen_params(json!({"toolsListChanged": true}), with_ext()));
    c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    let sub = c.send_request("subscriptions/listen", listen_params(json!({"taskIds": [id]}), with_ext()));
    let ack = c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    check(&ack, json!({"params": {"_meta": {SUB: sub}, "notifications": {"taskIds": [id]}}}));
    let working = c.wait(|m| m["method"] == "notifications/tasks");
    check(&working, json!({"params": {"_meta": {SUB: sub}, "taskId": id, "status": "working"}}));
    let done = c.wait(|m| m["method"] == "notifications/tasks");
    check(
        &done,
        json!({"params": {"_meta": {SUB: sub}, "taskId": id, "status": "completed",
               "result": {"content": [{"text": "heard finished after 500 ms"}]}}}),
    );
    // Nothing for the stream that did not ask, nor for another task.
    let quick = task_id(&call(&mut c, "slow_compute", json!({"seconds": 0})));
    // A task's statuses are announced with the task locked: once `tasks/get` reads it completed,
    // what was announced is queued before that answer, and is in the backlog.
    until(&mut c, &quick, "completed");
    let later: Vec<Value> = c.backlog.drain(..).collect();
    assert!(later.iter().all(|m| m["method"] != "notifications/tasks"), "{later:?}");
    assert!(later.iter().all(|m| m["params"]["_meta"][SUB] != other), "{later:?}");
}

#[test]
fn listen_streams_that_asked_for_a_task_hear_its_status_over_http() {
    use crate::raw_http::{read_chunk, read_head, sse_events, write_request, ACCEPT_BOTH, JSON};
    use std::io::BufReader;
    let server = Server::start(&[], &[]);
    let mut w = Http(server, 100);
    let id = task_id(&call(&mut w, "confirm_delete", json!({"filename": "b.txt"})));
    until(&mut w, &id, "input_required");
    let open = |n: u64, notifications: Value| {
        let listen = json!({"jsonrpc": "2.0", "id": n, "method": "subscriptions/listen",
                            "params": listen_params(notifications, with_ext())});
        let mut stream = w.0.connect();
        let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", REV), ("Mcp-Method", "subscriptions/listen")];
        write_request(&mut stream, w.0.port, "POST", "/mcp", &headers, &listen.to_string());
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut reader = BufReader::new(stream);
        assert_eq!(read_head(&mut reader).status, 200);
        reader
    };
    let next = |reader: &mut BufReader<std::net::TcpStream>| -> Option<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let chunk = read_chunk(reader)?;
            // Keep-alive comments carry no data.
            if let Some((_, event)) = sse_events(&String::from_utf8(chunk).unwrap()).pop() {
                return Some(event);
            }
        }
        None
    };
    let mut asked = open(7, json!({"taskIds": [id]}));
    let mut other = open(8, json!({"toolsListChanged": true}));
    check(&next(&mut asked).unwrap(), json!({"method": "notifications/subscriptions/acknowledged"}));
    check(&next(&mut other).unwrap(), json!({"method": "notifications/subscriptions/acknowledged"}));
    check(
        &next(&mut asked).unwrap(),
        json!({"method": "notifications/tasks", "params": {"_meta": {SUB: 7}, "taskId": id, "status": "input_required"}}),
    );
    let key = until(&mut w, &id, "input_required")["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let answers = json!({key: {"action": "accept", "content": {"confirm": true}}});
    w.rpc("tasks/update", json!({"taskId": id, "inputResponses": answers}), with_ext());
    check(&next(&mut asked).unwrap(), json!({"params": {"_meta": {SUB: 7}, "taskId": id, "status": "working"}}));
    check(
        &next(&mut asked).unwrap(),
        json!({"params": {"_meta": {SUB: 7}, "status": "completed", "result": {"content": [{"text": "Deleted b.txt"}]}}}),
    );
    // The stream that did not ask heard nothing: the first thing it hears is a list change
    // made after the task ended (a stream's messages go through one queue, in order).
    w.rpc("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}}), with_ext());
    check(&next(&mut other).unwrap(), json!({"method": "notifications/tools/list_changed"}));
}

#[test]
fn after_the_ttl_a_task_id_is_unknown_on_both_task_apis() {
    let ttl = ["--task-ttl-ms", "500"];
    // The extension (2026-07-28), over stdio and HTTP: the ttl counts from the end.
    let mut args = vec!["--everything"];
    args.extend(ttl);
    let wires: [Box<dyn Wire>; 2] = [Box::new(Client::spawn(&args)), Box::new(Http(Server::start(&ttl, &[]), 0))];
    for mut w in wires {
        let w = w.as_mut();
        let created = call(w, "slow_compute", json!({"seconds": 0}));
        check(&created, json!({"result": {"ttlMs": 500}}));
        let id = task_id(&created);
        until(w, &id, "completed");
        wait_until("the task to expire", TIMEOUT, || {
            w.rpc("tasks/get", json!({"taskId": id}), with_ext()).get("error").is_some()
        });
        for (method, params) in [
            ("tasks/get", json!({"taskId": id})),
            ("tasks/cancel", json!({"taskId": id})),
            ("tasks/update", json!({"taskId": id, "inputResponses": {}})),
        ] {
            let gone = w.rpc(method, params, with_ext());
            check(&gone, json!({"error": {"code": -32602}}));
            assert!(gone["error"]["message"].as_str().unwrap().contains("unknown or expired task"), "{gone}");
        }
    }
    // 2025-11-25 tasks: the ttl is the default when the client asks for none, from creation
    // (a second at least).
    let mut c = Client::spawn(&["--everything", "--task-ttl-ms", "1000"]);
    c.initialize("2025-11-25", json!({}));
    let created = c.request("tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 0}, "task": {}}));
    check(&created, json!({"result": {"task": {"ttl": 1000}}}));
    let id = created["result"]["task"]["taskId"].as_str().expect("a task").to_owned();
    wait_until("the task to expire", TIMEOUT, || c.request("tasks/get", json!({"taskId": id})).get("error").is_some());
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        check(&c.request(method, json!({"taskId": id})), json!({"error": {"code": -32602}}));
    }
}
