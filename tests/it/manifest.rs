//! The JSON manifest over stdio (and its command tools, limits and reloads over HTTP too): command tools (argv without a shell, injection attempts reach
//! the program verbatim, stdin, environment, exit status, output caps, JSON output, timeouts and
//! cancellation killing the whole process group), prompt templates, resources, `--check`, and
//! reloading when the file changes.

use crate::support::{check, eventually, over_both_transports, process_gone, run_binary, Client, TempDir, Transport};
use serde_json::{json, Value};
use std::time::Duration;

fn string_props(names: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.to_string(), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": props})
}

fn write_manifest(dir: &TempDir, manifest: &Value) -> String {
    dir.write("manifest.json", serde_json::to_string_pretty(manifest).unwrap());
    dir.path().join("manifest.json").to_str().unwrap().to_owned()
}

fn serve(dir: &TempDir, manifest: &Value) -> Client {
    serve_over(Transport::Stdio, dir, manifest)
}

fn serve_over(t: Transport, dir: &TempDir, manifest: &Value) -> Client {
    let file = write_manifest(dir, manifest);
    let mut client = Client::spawn_over(t, &["--manifest", &file, "--watch-interval", "20"]);
    client.initialize("2025-11-25", json!({}));
    client
}

fn call(client: &mut Client, name: &str, arguments: Value) -> Value {
    client.request("tools/call", json!({"name": name, "arguments": arguments}))
}

fn text_of(result: &Value) -> String {
    result["result"]["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

fn tool(name: &str, command: &[&str], props: &[&str]) -> Value {
    json!({"name": name, "description": name, "command": command, "inputSchema": string_props(props)})
}

// Command tools, their limits and reloads hold over HTTP too (notifications on the GET stream).
over_both_transports!(
    injection_attempts_reach_the_program_verbatim,
    a_failing_command_is_an_error_result_with_status_and_stderr,
    output_beyond_the_cap_is_truncated_with_a_note,
    a_timeout_kills_the_whole_process_group,
    cancellation_kills_the_whole_process_group_and_sends_no_response,
    a_changed_manifest_is_reloaded_and_a_broken_one_keeps_the_old,
    file_resources_report_changes_and_reloads_change_the_resource_list,
);

fn injection_attempts_reach_the_program_verbatim(t: Transport) {
    let dir = TempDir::new("inject");
    let mut client = serve_over(t, &dir, &json!({"tools": [tool("show", &["printf", "%s", "{{x}}"], &["x"])]}));
    for evil in [
        "; rm -rf /tmp/nope",
        "$(id)",
        "`id`",
        "\"quoted\" 'single'",
        "line one\nline two",
        "--help",
        "-n",
        "a && b || c | d > e < f",
        "*",
        "$HOME ${PATH}",
        "{{x}}",
    ] {
        let res = call(&mut client, "show", json!({"x": evil}));
        check(&res, json!({"result": {"content": [{"type": "text", "text": evil}]}}));
        assert!(res["result"].get("isError").is_none(), "{res}");
    }
}

#[test]
fn whole_element_placeholders_expand_arrays_and_vanish_when_absent() {
    let dir = TempDir::new("argv");
    let schema = json!({"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "string"}}, "opt": {"type": "string"}, "n": {"type": "integer"}}});
    let manifest = json!({"tools": [
        {"name": "list", "command": ["printf", "[%s]", "{{items}}", "{{opt}}", "n={{n}}"], "inputSchema": schema}
    ]});
    let mut client = serve(&dir, &manifest);
    let res = call(&mut client, "list", json!({"items": ["a", "b c", "-d"], "n": 3}));
    assert_eq!(text_of(&res), "[a][b c][-d][n=3]");
    let res = call(&mut client, "list", json!({"items": [], "opt": "o"}));
    assert_eq!(text_of(&res), "[o]");
    // Arguments failing the input schema never reach the command.
    let bad = call(&mut client, "list", json!({"n": "three"}));
    check(&bad, json!({"result": {"isError": true}}));
}

#[test]
fn stdin_env_and_cwd_are_as_declared() {
    let dir = TempDir::new("stdio");
    dir.write("sub/here.txt", "");
    let manifest = json!({"tools": [
        {"name": "cat", "command": ["cat"], "stdin": "to stdin: {{x}}", "inputSchema": string_props(&["x"])},
        {"name": "env", "command": ["env"], "env": {"GREETING": "hi there"}},
        {"name": "ls", "command": ["ls"], "cwd": "sub"},
        {"name": "here", "command": ["ls", "manifest.json"]}
    ]});
    let mut client = serve(&dir, &manifest);
    assert_eq!(text_of(&call(&mut client, "cat", json!({"x": "$(id)\n"}))), "to stdin: $(id)\n");
    let env = text_of(&call(&mut client, "env", json!({})));
    let names: Vec<&str> = env.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
    assert!(env.contains("GREETING=hi there\n"), "{env}");
    // The environment is cleared to a minimal set: the test runs tinymcp with RUST_LOG set.
    assert!(!names.contains(&"RUST_LOG"), "{env}");
    assert!(names.iter().all(|n| ["PATH", "HOME", "LANG", "GREETING"].contains(n)), "{names:?}");
    assert_eq!(text_of(&call(&mut client, "ls", json!({}))), "here.txt\n");
    assert_eq!(text_of(&call(&mut client, "here", json!({}))), "manifest.json\n");
}

fn a_failing_command_is_an_error_result_with_status_and_stderr(t: Transport) {
    let dir = TempDir::new("fail");
    let manifest = json!({"tools": [
        {"name": "fail", "command": ["sh", "-c", "echo partial; echo 'it broke' >&2; exit 3"]},
        {"name": "missing", "command": ["/nonexistent/program"]}
    ]});
    let mut client = serve_over(t, &dir, &manifest);
    let res = call(&mut client, "fail", json!({}));
    check(&res, json!({"result": {"isError": true}}));
    let text = text_of(&res);
    assert!(text.contains("exited with status 3") && text.contains("it broke"), "{text}");
    let res = call(&mut client, "missing", json!({}));
    check(&res, json!({"result": {"isError": true}}));
    assert!(text_of(&res).contains("cannot run /nonexistent/program"), "{res}");
}

fn output_beyond_the_cap_is_truncated_with_a_note(t: Transport) {
    let dir = TempDir::new("cap");
    let manifest = json!({"tools": [
        {"name": "loud", "command": ["sh", "-c", "yes | head -c 100000"], "maxOutputBytes": 1000}
    ]});
    let mut client = serve_over(t, &dir, &manifest);
    let res = call(&mut client, "loud", json!({}));
    let text = text_of(&res);
    assert!(text.starts_with(&"y\n".repeat(500)), "{text}");
    assert!(text.ends_with("[output truncated: showing the first 1000 of 100000 bytes]"), "{text}");
}

#[test]
fn json_output_becomes_structured_content_checked_against_the_schema() {
    let dir = TempDir::new("json");
    let out_schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let manifest = json!({"tools": [
        {"name": "count", "command": ["printf", "{\"n\": %s}", "{{n}}"], "inputSchema": string_props(&["n"]),
         "output": "json", "outputSchema": out_schema, "annotations": {"readOnlyHint": true, "title": "Count"}},
        {"name": "prose", "command": ["echo", "not json"], "output": "json"}
    ]});
    let mut client = serve(&dir, &manifest);
    let listed = client.request("tools/list", json!({}));
    check(
        &listed,
        json!({"result": {"tools": [{"name": "count", "outputSchema": out_schema, "annotations": {"readOnlyHint": true, "title": "Count"}}, {"name": "prose"}]}}),
    );
    check(&call(&mut client, "count", json!({"n": "3"})), json!({"result": {"structuredContent": {"n": 3}}}));
    check(&call(&mut client, "count", json!({"n": "\"three\""})), json!({"result": {"isError": true}}));
    let prose = call(&mut client, "prose", json!({}));
    check(&prose, json!({"result": {"isError": true}}));
    assert!(text_of(&prose).contains("not JSON"), "{prose}");
}

/// A command that records its own pid and its child's, then waits for the child (a long sleep).
fn sleeper(dir: &TempDir) -> Value {
    let script = format!("echo $$ > {0}/parent.pid; sleep 30 & echo $! > {0}/child.pid; wait", dir.path().display());
    json!({"name": "sleeper", "command": ["sh", "-c", script], "timeoutMs": 400})
}

fn pids(dir: &TempDir) -> Vec<u32> {
    eventually("the command to write its pids", || dir.path().join("child.pid").exists());
    let read = |name: &str| -> u32 {
        eventually("a complete pid file", || {
            std::fs::read_to_string(dir.path().join(name)).unwrap_or_default().ends_with('\n')
        });
        std::fs::read_to_string(dir.path().join(name)).unwrap().trim().parse().unwrap()
    };
    vec![read("parent.pid"), read("child.pid")]
}

fn a_timeout_kills_the_whole_process_group(t: Transport) {
    let dir = TempDir::new("timeout");
    let mut client = serve_over(t, &dir, &json!({"tools": [sleeper(&dir)]}));
    let res = call(&mut client, "sleeper", json!({}));
    check(&res, json!({"result": {"isError": true}}));
    assert!(text_of(&res).contains("timed out after 400 ms"), "{res}");
    for pid in pids(&dir) {
        eventually(&format!("process {pid} to be gone"), || process_gone(pid));
    }
}

fn cancellation_kills_the_whole_process_group_and_sends_no_response(t: Transport) {
    let dir = TempDir::new("cancel");
    let mut tool = sleeper(&dir);
    tool["timeoutMs"] = json!(60_000);
    let mut client = serve_over(t, &dir, &json!({"tools": [tool]}));
    let id = client.send_request("tools/call", json!({"name": "sleeper", "arguments": {}}));
    let pids = pids(&dir);
    assert!(pids.iter().all(|&pid| !process_gone(pid)), "the command runs until cancelled");
    client.notify("notifications/cancelled", json!({"requestId": id, "reason": "test"}));
    for &pid in &pids {
        eventually(&format!("process {pid} to be gone"), || process_gone(pid));
    }
    let seen = client.drain(Duration::from_millis(300));
    assert!(!seen.iter().any(|m| m.get("id") == Some(&id)), "a cancelled request is never answered: {seen:?}");
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn prompt_templates_fill_arguments_complete_and_embed_files() {
    let dir = TempDir::new("prompts");
    dir.write("STYLE.md", "Be brief.\n");
    dir.write("docs/a.md", "doc a\n");
    let manifest = json!({
        "prompts": [
            {"name": "review", "description": "Review code", "arguments": [
                {"name": "language", "description": "The language", "required": true, "completions": ["rust", "python", "ruby"]},
                {"name": "code", "required": true}],
             "messages": [
                {"role": "user", "text": "Review this {{language}} code:\n{{code}}"},
                {"role": "assistant", "file": "STYLE.md"},
                {"resource": "note://conventions"}]},
            {"name": "doc", "arguments": [{"name": "page", "required": true}], "messages": [{"file": "docs/{{page}}"}]}
        ],
        "resources": [{"uri": "note://conventions", "name": "conventions", "text": "Use snake_case."}]
    });
    let mut client = serve(&dir, &manifest);
    let got = client
        .request("prompts/get", json!({"name": "review", "arguments": {"language": "rust", "code": "fn main() {}"}}));
    check(
        &got,
        json!({"result": {"description": "Review code", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review this rust code:\nfn main() {}"}},
            {"role": "assistant", "content": {"type": "resource", "resource": {"mimeType": "text/markdown", "text": "Be brief.\n"}}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "note://conventions", "text": "Use snake_case."}}}
        ]}}),
    );
    check(
        &client.request("prompts/get", json!({"name": "review", "arguments": {"language": "rust"}})),
        json!({"error": {"code": -32602}}),
    );
    let complete = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "r"}}),
    );
    check(&complete, json!({"result": {"completion": {"values": ["rust", "ruby"], "total": 2}}}));
    let page = client.request("prompts/get", json!({"name": "doc", "arguments": {"page": "a.md"}}));
    check(&page, json!({"result": {"messages": [{"content": {"resource": {"text": "doc a\n"}}}]}}));
    // A file named through an argument stays inside the manifest's folder.
    let escape = client.request("prompts/get", json!({"name": "doc", "arguments": {"page": "../../../etc/passwd"}}));
    check(&escape, json!({"error": {"code": -32602}}));
}

#[test]
fn resources_come_from_files_or_inline_text() {
    let dir = TempDir::new("resources");
    dir.write("README.md", "# Read me\n");
    let manifest = json!({
        "instructions": "Tools for this repository.",
        "resources": [
            {"uri": "file:///project/README.md", "path": "README.md", "mimeType": "text/markdown"},
            {"uri": "note://conventions", "name": "conventions", "text": "Use snake_case."}
        ]
    });
    let file = write_manifest(&dir, &manifest);
    let mut client = Client::spawn(&["--manifest", &file]);
    let init = client.initialize("2025-11-25", json!({}));
    assert_eq!(init["instructions"], "Tools for this repository.");
    check(
        &client.request("resources/list", json!({})),
        json!({"result": {"resources": [
            {"uri": "file:///project/README.md", "name": "README.md", "mimeType": "text/markdown"},
            {"uri": "note://conventions", "name": "conventions", "mimeType": "text/plain"}]}}),
    );
    check(
        &client.request("resources/read", json!({"uri": "file:///project/README.md"})),
        json!({"result": {"contents": [{"uri": "file:///project/README.md", "mimeType": "text/markdown", "text": "# Read me\n"}]}}),
    );
    check(
        &client.request("resources/read", json!({"uri": "note://conventions"})),
        json!({"result": {"contents": [{"text": "Use snake_case."}]}}),
    );
    // A manifest alone serves no folder.
    let res = call(&mut client, "read_file", json!({"path": "README.md"}));
    assert!(res.get("error").is_some(), "{res}");
}

#[test]
fn check_accepts_a_valid_manifest_and_names_every_problem_of_a_bad_one() {
    let dir = TempDir::new("check");
    let good = write_manifest(&dir, &json!({"tools": [tool("t", &["echo", "{{x}}"], &["x"])]}));
    let out = run_binary(&["--check", &good]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("OK (1 tool, 0 prompts, 0 resources)"), "{out:?}");
    let bad = json!({
        "tools": [
            {"name": "has space", "command": ["echo", "{{nope}}"], "inputSchema": string_props(&["x"])},
            {"name": "t", "command": "echo hi", "timeoutMs": -1, "extra": true},
            {"name": "t", "command": ["x"], "inputSchema": {"type": "object", "properties": 3}}
        ],
        "prompts": [{"name": "p", "messages": [{"role": "robot", "text": "{{who}}"}]}],
        "resources": [{"uri": "x://y", "path": "missing.md"}],
        "extras": 1
    });
    let file = write_manifest(&dir, &bad);
    let out = run_binary(&["--check", &file]);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "extras: unknown key",
        "tools[0].name: expected a name of 1 to 128 characters of A-Za-z0-9_-.",
        "tools[0].command[1]: placeholder {{nope}} names no property of inputSchema (declared: x)",
        "tools[1].command: expected a non-empty array of strings",
        "tools[1].timeoutMs: expected a whole number",
        "tools[1].extra: unknown key",
        "tools[2].name: duplicate tool name \"t\"",
        "tools[2].inputSchema: expected a valid JSON Schema",
        "prompts[0].messages[0].role: expected \"user\" or \"assistant\"",
        "prompts[0].messages[0].text: placeholder {{who}} names no prompt argument",
        "resources[0].path: expected a file",
    ] {
        assert!(stderr.contains(&format!("{file}: {expected}")), "no {expected:?} in:\n{stderr}");
    }
    let not_json = dir.write("broken.json", "{ \"tools\": [ }");
    let out = run_binary(&["--check", not_json.to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("invalid JSON"), "{out:?}");
    // Serving a broken manifest fails at start, with the same messages.
    let out = run_binary(&["--manifest", &file]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("extras: unknown key"), "{out:?}");
}

fn a_changed_manifest_is_reloaded_and_a_broken_one_keeps_the_old(t: Transport) {
    let dir = TempDir::new("reload");
    let first = json!({"tools": [tool("one", &["echo", "1"], &[])]});
    let mut client = serve_over(t, &dir, &first);
    let second = json!({
        "tools": [tool("one", &["echo", "uno"], &[]), tool("two", &["echo", "2"], &[])],
        "prompts": [{"name": "hello", "messages": [{"text": "hello"}]}]
    });
    write_manifest(&dir, &second);
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    client.wait(|m| m["method"] == "notifications/prompts/list_changed");
    let tools = client.request("tools/list", json!({}));
    check(&tools, json!({"result": {"tools": [{"name": "one"}, {"name": "two"}]}}));
    assert_eq!(text_of(&call(&mut client, "one", json!({}))), "uno\n");
    // A broken manifest changes nothing (the error goes to the log).
    write_manifest(&dir, &json!({"tools": [{"name": "bad name", "command": []}], "padding": "x".repeat(100)}));
    let seen = client.drain(Duration::from_millis(400));
    assert!(seen.iter().all(|m| m.get("method").is_none()), "{seen:?}");
    assert_eq!(text_of(&call(&mut client, "two", json!({}))), "2\n");
    // Removing a tool removes it.
    write_manifest(&dir, &json!({"tools": [tool("two", &["echo", "deux"], &[])]}));
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    let tools = client.request("tools/list", json!({}));
    check(&tools, json!({"result": {"tools": [{"name": "two"}]}}));
    check(&call(&mut client, "one", json!({})), json!({"error": {"code": -32602}}));
}

#[test]
fn the_example_manifest_is_valid_and_its_tools_run() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/manifest.json");
    let out = run_binary(&["--check", example]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut client = Client::spawn(&["--manifest", example]);
    client.initialize("2025-11-25", json!({}));
    let stats = call(&mut client, "line_stats", json!({"path": "Cargo.toml"}));
    let structured = &stats["result"]["structuredContent"];
    assert!(structured["lines"].as_u64().unwrap() > 10 && structured["bytes"].as_u64().unwrap() > 100, "{stats}");
    let words = call(&mut client, "word_count", json!({"path": "Cargo.toml"}));
    assert!(text_of(&words).ends_with(" Cargo.toml\n"), "{words}");
    let sorted = call(&mut client, "sort_lines", json!({"text": "b\na\nc\n", "order": "-r"}));
    assert_eq!(text_of(&sorted), "c\nb\na\n");
    let prompt = client.request("prompts/get", json!({"name": "review", "arguments": {"language": "go", "code": "x"}}));
    check(&prompt, json!({"result": {"messages": [{}, {"content": {"type": "resource"}}]}}));
}

fn file_resources_report_changes_and_reloads_change_the_resource_list(t: Transport) {
    let dir = TempDir::new("watch-resources");
    dir.write("notes.md", "v1\n");
    let manifest = json!({"resources": [{"uri": "note://notes", "path": "notes.md"}]});
    let mut client = serve_over(t, &dir, &manifest);
    // A change is relative to what the client last read.
    client.request("resources/read", json!({"uri": "note://notes"}));
    check(&client.request("resources/subscribe", json!({"uri": "note://notes"})), json!({"result": {}}));
    dir.write("notes.md", "version two\n");
    check(
        &client.wait(|m| m["method"] == "notifications/resources/updated"),
        json!({"params": {"uri": "note://notes"}}),
    );
    check(
        &client.request("resources/read", json!({"uri": "note://notes"})),
        json!({"result": {"contents": [{"text": "version two\n", "mimeType": "text/markdown"}]}}),
    );
    let more = json!({"resources": [
        {"uri": "note://notes", "path": "notes.md"}, {"uri": "note://inline", "text": "inline"}]});
    write_manifest(&dir, &more);
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let listed = client.request("resources/list", json!({}));
    check(&listed, json!({"result": {"resources": [{"uri": "note://notes"}, {"uri": "note://inline"}]}}));
}

#[test]
fn a_file_resource_changed_right_after_an_unread_subscription_is_reported() {
    // The watcher looks every 500 ms; the change comes before its next look, so only what the
    // subscription noted tells that the file changed.
    let dir = TempDir::new("subscribe-unread");
    dir.write("notes.md", "v1\n");
    let file = write_manifest(&dir, &json!({"resources": [{"uri": "note://notes", "path": "notes.md"}]}));
    let mut client = Client::spawn(&["--manifest", &file, "--watch-interval", "500"]);
    client.initialize("2025-11-25", json!({}));
    check(&client.request("resources/subscribe", json!({"uri": "note://notes"})), json!({"result": {}}));
    dir.write("notes.md", "version two\n");
    check(
        &client.wait(|m| m["method"] == "notifications/resources/updated"),
        json!({"params": {"uri": "note://notes"}}),
    );
}

#[test]
fn what_a_command_leaves_running_is_killed_when_it_exits() {
    let dir = TempDir::new("leftover");
    let script = format!("sleep 30 & echo $! > {}/bg.pid; echo started", dir.path().display());
    let mut client = serve(&dir, &json!({"tools": [{"name": "bg", "command": ["sh", "-c", script]}]}));
    assert_eq!(text_of(&call(&mut client, "bg", json!({}))), "started\n");
    let pid: u32 = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap().trim().parse().unwrap();
    eventually(&format!("the background process {pid} to be gone"), || process_gone(pid));
}
