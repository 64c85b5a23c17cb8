//! Manifest command tools as tasks (`"task": "never" | "optional" | "required"`): on 2026-07-28
//! with the tasks extension a long command answers with a task, runs on, shows its latest stdout
//! line as `statusMessage`, and `tasks/cancel` ends its whole process group; without the
//! extension a required-task tool is `-32021`; on 2025-11-25 the same tool answers as before,
//! with progress notifications from its output lines, or as a 2025-11-25 task when asked.
//! Over stdio and Streamable HTTP.

use crate::manifest::{pids, write_manifest};
use crate::raw_http::Server;
use crate::support::{
    check, eventually, over_both_transports, process_gone, run_binary, tool_text, wait_for, Client, TempDir, Transport,
    TIMEOUT,
};
use crate::tasks_ext::{call, task_id, until, with_ext, Http, Wire, EXT};
use serde_json::{json, Value};
use std::time::Duration;

/// A job printing three lines 300 ms apart, a failing one, and one that starts a child and
/// waits (the pids go to files beside the manifest); a test manifest may run `sh` on a script.
fn jobs(dir: &TempDir) -> String {
    dir.write("job.sh", "echo 'step 1'\nsleep 0.3\necho 'step 2'\nsleep 0.3\necho done\n");
    dir.write("fail.sh", "echo 'half way'\necho 'broken' >&2\nexit 3\n");
    dir.write("spawner.sh", "echo $$ > parent.pid\nsleep 30 &\necho $! > child.pid\necho started\nwait\n");
    let tool = |name: &str, script: &str, task: &str| json!({"name": name, "description": name, "command": ["sh", script], "task": task, "timeoutMs": 60000});
    write_manifest(
        dir,
        &json!({"tools": [
            tool("build", "job.sh", "optional"),
            tool("broken", "fail.sh", "optional"),
            tool("long", "spawner.sh", "required"),
            tool("quick", "job.sh", "never"),
        ]}),
    )
}

/// The 2026-07-28 wire to a server of `manifest`, over `t`.
fn wire(t: Transport, manifest: &str) -> Box<dyn Wire> {
    match t {
        Transport::Stdio => Box::new(Client::spawn(&["--manifest", manifest])),
        Transport::Http => Box::new(Http(Server::start(&["--manifest", manifest], &[]), 0)),
    }
}

over_both_transports!(
    a_command_task_runs_on_and_shows_its_output_lines,
    cancelling_a_command_task_ends_its_whole_process_group,
    on_2025_11_25_output_lines_are_progress_and_a_task_is_one_when_asked,
);

#[test]
fn check_validates_the_task_field_and_tools_list_shows_it() {
    let dir = TempDir::new("task-check");
    let bad = write_manifest(
        &dir,
        &json!({"tools": [{"name": "t", "command": ["true"], "task": "maybe"}, {"name": "u", "command": ["true"], "task": true}]}),
    );
    let out = run_binary(&["--check", &bad]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("tools[0].task: expected \"never\", \"optional\" or \"required\", got \"maybe\""),
        "{stderr}"
    );
    assert!(stderr.contains("tools[1].task: expected \"never\", \"optional\" or \"required\""), "{stderr}");

    let good = jobs(&dir);
    assert!(run_binary(&["--check", &good]).status.success());
    let mut client = Client::spawn(&["--manifest", &good]);
    client.initialize("2025-11-25", json!({}));
    let tools = client.request("tools/list", json!({}));
    let support: Vec<&Value> = tools["result"]["tools"].as_array().unwrap().iter().map(|t| &t["execution"]).collect();
    assert_eq!(
        support,
        [
            &json!({"taskSupport": "optional"}),
            &json!({"taskSupport": "optional"}),
            &json!({"taskSupport": "required"}),
            &Value::Null
        ],
        "{tools}"
    );
}

fn a_command_task_runs_on_and_shows_its_output_lines(t: Transport) {
    let dir = TempDir::new("task-run");
    let mut w = wire(t, &jobs(&dir));
    let w = w.as_mut();
    let created = call(w, "build", json!({}));
    check(&created, json!({"result": {"resultType": "task", "status": "working"}}));
    let id = task_id(&created);
    // While it runs, tasks/get shows its latest output line.
    let mut messages = Vec::new();
    let done = wait_for("the task to finish", TIMEOUT, || {
        let got = w.rpc("tasks/get", json!({"taskId": id}), with_ext())["result"].clone();
        if let Some(message) = got["statusMessage"].as_str() {
            if got["status"] == "working" && messages.last().map(String::as_str) != Some(message) {
                messages.push(message.to_owned());
            }
        }
        (got["status"] != "working").then_some(got)
    });
    assert!(messages.starts_with(&["step 1".to_owned(), "step 2".to_owned()]), "{messages:?}");
    check(
        &done,
        json!({"status": "completed", "result": {"content": [{"type": "text", "text": "step 1\nstep 2\ndone\n"}]}}),
    );
    assert!(done["result"].get("isError").is_none(), "{done}");

    // A failing command is a tool error: completed, with isError and the status.
    let id = task_id(&call(w, "broken", json!({})));
    let failed = until(w, &id, "completed");
    check(&failed, json!({"result": {"isError": true}}));
    assert!(failed["result"]["content"][0]["text"].as_str().unwrap().contains("exited with status 3"), "{failed}");

    // Without the extension: a required-task tool is -32021 naming it, an optional one runs in
    // the request, and a never-task tool is never a task.
    let res = w.rpc("tools/call", json!({"name": "long", "arguments": {}}), json!({}));
    check(&res, json!({"error": {"code": -32021, "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}}));
    let res = w.rpc("tools/call", json!({"name": "build", "arguments": {}}), json!({}));
    check(&res, json!({"result": {"resultType": "complete", "content": [{"text": "step 1\nstep 2\ndone\n"}]}}));
    let res = call(w, "quick", json!({}));
    check(&res, json!({"result": {"resultType": "complete", "content": [{"text": "step 1\nstep 2\ndone\n"}]}}));
}

fn cancelling_a_command_task_ends_its_whole_process_group(t: Transport) {
    let dir = TempDir::new("task-cancel");
    let mut w = wire(t, &jobs(&dir));
    let w = w.as_mut();
    let id = task_id(&call(w, "long", json!({})));
    let pids = pids(&dir);
    assert!(pids.iter().all(|&pid| !process_gone(pid)), "the command runs on after the answer");
    let got = wait_for("a statusMessage from the output", TIMEOUT, || {
        Some(w.rpc("tasks/get", json!({"taskId": id}), with_ext()))
            .filter(|got| got["result"]["statusMessage"] == "started")
    });
    check(&got, json!({"result": {"status": "working"}}));
    let ack = w.rpc("tasks/cancel", json!({"taskId": id}), with_ext());
    check(&ack, json!({"result": {"resultType": "complete"}}));
    for &pid in &pids {
        eventually(&format!("process {pid} to be gone"), || process_gone(pid));
    }
    let cancelled = until(w, &id, "cancelled");
    assert!(cancelled.get("result").is_none(), "{cancelled}");
}

fn on_2025_11_25_output_lines_are_progress_and_a_task_is_one_when_asked(t: Transport) {
    let dir = TempDir::new("task-old");
    let manifest = jobs(&dir);
    let mut client = Client::spawn_over(t, &["--manifest", &manifest]);
    client.initialize("2025-11-25", json!({}));
    // A plain call: each output line is a progress notification carrying it.
    let id =
        client.send_request("tools/call", json!({"name": "build", "arguments": {}, "_meta": {"progressToken": "p1"}}));
    let mut lines = Vec::new();
    let answer = loop {
        let message = client.wait(|m| m.get("id") == Some(&id) || m["method"] == "notifications/progress");
        if message.get("id") == Some(&id) {
            break message;
        }
        check(&message, json!({"params": {"progressToken": "p1"}}));
        lines.push(message["params"]["message"].as_str().unwrap().to_owned());
    };
    assert!(lines.starts_with(&["step 1".to_owned(), "step 2".to_owned()]), "{lines:?}");
    assert_eq!(tool_text(&answer), "step 1\nstep 2\ndone\n");
    // A required-task tool without the task param is refused as before; with it, a task.
    check(&client.call_tool("long", json!({})), json!({"error": {}}));
    let created = client.request("tools/call", json!({"name": "build", "arguments": {}, "task": {"ttl": 60000}}));
    let task = created["result"]["task"]["taskId"].as_str().expect("a 2025-11-25 task").to_owned();
    let result = client.request("tasks/result", json!({"taskId": task}));
    assert_eq!(tool_text(&result), "step 1\nstep 2\ndone\n");
    check(&client.request("tasks/get", json!({"taskId": task})), json!({"result": {"status": "completed"}}));
}

#[test]
fn the_example_manifest_runs_its_test_suite_as_an_optional_task() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/manifest.json");
    let mut client = Client::spawn(&["--manifest", example]);
    client.initialize("2025-11-25", json!({}));
    let tools = client.request("tools/list", json!({}));
    let run_tests = tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "run_tests").cloned();
    check(&run_tests.expect("run_tests listed"), json!({"execution": {"taskSupport": "optional"}}));
}

/// A task outlives its request, not tinymcp: when stdin ends, the commands of running tasks of
/// both eras are killed with their process groups before the process exits.
#[test]
fn the_commands_of_running_tasks_end_with_the_server() {
    for era in ["2026-07-28", "2025-11-25"] {
        let dir = TempDir::new("task-exit");
        let manifest = jobs(&dir);
        let mut client = Client::spawn(&["--manifest", &manifest]);
        if era == "2026-07-28" {
            task_id(&call(&mut client, "long", json!({})));
        } else {
            client.initialize(era, json!({}));
            let created = client.request("tools/call", json!({"name": "long", "arguments": {}, "task": {}}));
            check(&created, json!({"result": {"task": {"status": "working"}}}));
        }
        let pids = pids(&dir);
        assert!(pids.iter().all(|&pid| !process_gone(pid)), "{era}: the command runs after the answer");
        assert!(client.close().success(), "{era}");
        for &pid in &pids {
            eventually(&format!("{era}: process {pid} to be gone"), || process_gone(pid));
        }
    }
}

/// SIGTERM drains HTTP: a running task is not a request in flight, so its command is killed at
/// once rather than waited for, and nothing it started outlives the process.
#[test]
fn a_draining_server_ends_the_commands_of_its_tasks() {
    use crate::drain::{exit_within, sigterm};
    let dir = TempDir::new("task-drain");
    let manifest = jobs(&dir);
    let mut w = Http(Server::start(&["--manifest", &manifest], &[]), 0);
    task_id(&call(&mut w, "long", json!({})));
    let pids = pids(&dir);
    assert!(pids.iter().all(|&pid| !process_gone(pid)), "the command runs after the answer");
    sigterm(w.0.child.id());
    assert!(exit_within(&mut w.0, Duration::from_secs(5)).success());
    for &pid in &pids {
        eventually(&format!("process {pid} to be gone"), || process_gone(pid));
    }
}
