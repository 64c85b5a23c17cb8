//! Spec 2025-11-25 `basic/utilities/tasks`: task-augmented tools/call, polling, results,
//! listing, cancellation, input_required with related-task metadata, per-tool negotiation.

use crate::support::{check, wait_for, Client, TIMEOUT};
use serde_json::{json, Value};

fn create(client: &mut Client, name: &str, arguments: Value) -> String {
    let res = client.request("tools/call", json!({"name": name, "arguments": arguments, "task": {"ttl": 60000}}));
    check(&res, json!({"result": {"task": {"status": "working", "ttl": 60000}}}));
    res["result"]["task"]["taskId"].as_str().unwrap().to_owned()
}

fn wait_status(client: &mut Client, id: &str, wanted: &str) -> Value {
    wait_for(&format!("task {id} to reach {wanted}"), TIMEOUT, || {
        let res = client.request("tasks/get", json!({"taskId": id}));
        (res["result"]["status"] == wanted).then(|| res["result"].clone())
    })
}

#[test]
fn capabilities_and_tool_execution_are_declared_for_2025_11_25_only() {
    let mut client = Client::spawn(&["--everything"]);
    let init = client.initialize("2025-11-25", json!({}));
    check(&init, json!({"capabilities": {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}}));
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let by_name = |n: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == n).unwrap().clone();
    check(&by_name("slow_compute"), json!({"execution": {"taskSupport": "optional"}}));
    check(&by_name("failing_job"), json!({"execution": {"taskSupport": "required"}}));
    assert!(by_name("greet").get("execution").is_none());

    let mut old = Client::spawn(&["--everything"]);
    let init = old.initialize("2025-06-18", json!({}));
    assert!(init["capabilities"].get("tasks").is_none());
    // No task support declared: a required-task tool simply runs.
    let res = old.request("tools/call", json!({"name": "failing_job", "arguments": {}, "task": {}}));
    check(&res, json!({"result": {"isError": true}}));
    check(&old.request("tasks/list", json!({})), json!({"error": {"code": -32601}}));
}

#[test]
fn a_task_runs_in_the_background_and_its_result_is_retrievable() {
    let mut client = Client::everything("2025-11-25");
    // Long enough to still be working when asked on a loaded machine.
    let id = create(&mut client, "slow_compute", json!({"seconds": 3, "label": "sum"}));
    let got = client.request("tasks/get", json!({"taskId": id}));
    check(&got, json!({"result": {"taskId": id, "status": "working"}}));
    // tasks/result blocks until the task ends.
    let result = client.request("tasks/result", json!({"taskId": id}));
    check(
        &result,
        json!({"result": {"content": [{"type": "text", "text": "sum finished after 3000 ms"}],
                                      "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}}}),
    );
    let done = wait_status(&mut client, &id, "completed");
    assert!(done["createdAt"].as_str().unwrap().ends_with('Z'));
    client.wait(|m| m["method"] == "notifications/tasks/status" && m["params"]["status"] == "completed");
    let list = client.request("tasks/list", json!({}));
    assert!(list["result"]["tasks"].as_array().unwrap().iter().any(|t| t["taskId"] == id));
}

#[test]
fn tool_errors_complete_and_protocol_errors_fail() {
    let mut client = Client::everything("2025-11-25");
    let id = create(&mut client, "failing_job", json!({}));
    wait_status(&mut client, &id, "completed");
    check(&client.request("tasks/result", json!({"taskId": id})), json!({"result": {"isError": true}}));
    let id = create(&mut client, "protocol_error_job", json!({}));
    wait_status(&mut client, &id, "failed");
    check(&client.request("tasks/result", json!({"taskId": id})), json!({"error": {"code": -32602}}));
}

#[test]
fn cancelling_a_task_stops_it_and_a_second_cancel_is_invalid() {
    let mut client = Client::everything("2025-11-25");
    let id = create(&mut client, "slow_compute", json!({"seconds": 60}));
    let res = client.request("tasks/cancel", json!({"taskId": id}));
    check(&res, json!({"result": {"taskId": id, "status": "cancelled"}}));
    check(&client.request("tasks/get", json!({"taskId": id})), json!({"result": {"status": "cancelled"}}));
    check(&client.request("tasks/cancel", json!({"taskId": id})), json!({"error": {"code": -32602}}));
    check(&client.request("tasks/get", json!({"taskId": "no-such-task"})), json!({"error": {"code": -32602}}));
}

#[test]
fn negotiation_per_tool() {
    let mut client = Client::everything("2025-11-25");
    // Required without a task, forbidden with one: -32601.
    check(
        &client.request("tools/call", json!({"name": "failing_job", "arguments": {}})),
        json!({"error": {"code": -32601}}),
    );
    let res = client.request("tools/call", json!({"name": "greet", "arguments": {"name": "x"}, "task": {}}));
    check(&res, json!({"error": {"code": -32601}}));
    // Optional runs either way.
    let res = client.request("tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 0}}));
    check(&res, json!({"result": {"content": [{"type": "text"}]}}));
    check(
        &client.request("tools/call", json!({"name": "greet", "arguments": {"name": "sep"}})),
        json!({"result": {"content": [{"text": "Hello, sep!"}]}}),
    );
}

#[test]
fn a_task_waiting_for_the_user_is_input_required_and_its_request_names_the_task() {
    let mut client = Client::everything("2025-11-25");
    let id = create(&mut client, "confirm_delete", json!({"filename": "a.txt"}));
    let req = client.wait(|m| m["method"] == "elicitation/create");
    check(&req, json!({"params": {"_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}}}));
    wait_status(&mut client, &id, "input_required");
    client.answer(&req["id"], json!({"action": "accept", "content": {"confirm": true}}));
    check(
        &client.request("tasks/result", json!({"taskId": id})),
        json!({"result": {"content": [{"text": "Deleted a.txt"}]}}),
    );
}
