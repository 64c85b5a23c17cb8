//! The JSON manifest over stdio (and its command tools, limits and reloads over HTTP too): command tools (argv without a shell, injection attempts reach
//! the program verbatim, stdin, environment, exit status, output caps, JSON output, timeouts and
//! cancellation killing the whole process group), prompt templates, resources, `--check`, and
//! reloading when the file changes.

use crate::support::{
    check, eventually, over_both_transports, process_gone, run_binary, tool_text as text_of, Client, TempDir, Transport,
};
use serde_json::{json, Value};
use std::time::Duration;

fn string_props(names: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.to_string(), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": props})
}

pub(crate) fn write_manifest(dir: &TempDir, manifest: &Value) -> String {
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
        "a && b || c | d > e < f",
        "*",
        "$HOME ${PATH}",
        "{{x}}",
    ] {
        let res = client.call_tool("show", json!({"x": evil}));
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
    let res = client.call_tool("list", json!({"items": ["a", "b c", "d-"], "n": 3}));
    assert_eq!(text_of(&res), "[a][b c][d-][n=3]");
    let res = client.call_tool("list", json!({"items": [], "opt": "o"}));
    assert_eq!(text_of(&res), "[o]");
    // Arguments failing the input schema never reach the command.
    let bad = client.call_tool("list", json!({"n": "three"}));
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
    assert_eq!(text_of(&client.call_tool("cat", json!({"x": "$(id)\n"}))), "to stdin: $(id)\n");
    let env = text_of(&client.call_tool("env", json!({})));
    let names: Vec<&str> = env.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
    assert!(env.contains("GREETING=hi there\n"), "{env}");
    // The environment is cleared to a minimal set: the test runs tinymcp with RUST_LOG set.
    // TINYMCP_CALL marks the call's processes, so children that call setsid end with it.
    assert!(!names.contains(&"RUST_LOG"), "{env}");
    assert!(names.iter().all(|n| ["PATH", "HOME", "LANG", "GREETING", "TINYMCP_CALL"].contains(n)), "{names:?}");
    assert_eq!(text_of(&client.call_tool("ls", json!({}))), "here.txt\n");
    assert_eq!(text_of(&client.call_tool("here", json!({}))), "manifest.json\n");
}

fn a_failing_command_is_an_error_result_with_status_and_stderr(t: Transport) {
    let dir = TempDir::new("fail");
    let manifest = json!({"tools": [
        {"name": "fail", "command": ["sh", "-c", "echo partial; echo 'it broke' >&2; exit 3"]},
        {"name": "missing", "command": ["/nonexistent/program"]}
    ]});
    let mut client = serve_over(t, &dir, &manifest);
    let res = client.call_tool("fail", json!({}));
    check(&res, json!({"result": {"isError": true}}));
    let text = text_of(&res);
    assert!(text.contains("exited with status 3") && text.contains("it broke"), "{text}");
    let res = client.call_tool("missing", json!({}));
    check(&res, json!({"result": {"isError": true}}));
    assert!(text_of(&res).contains("cannot run /nonexistent/program"), "{res}");
}

fn output_beyond_the_cap_is_truncated_with_a_note(t: Transport) {
    let dir = TempDir::new("cap");
    let manifest = json!({"tools": [
        {"name": "loud", "command": ["sh", "-c", "yes | head -c 100000"], "maxOutputBytes": 1000}
    ]});
    let mut client = serve_over(t, &dir, &manifest);
    let res = client.call_tool("loud", json!({}));
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
    check(&client.call_tool("count", json!({"n": "3"})), json!({"result": {"structuredContent": {"n": 3}}}));
    check(&client.call_tool("count", json!({"n": "\"three\""})), json!({"result": {"isError": true}}));
    let prose = client.call_tool("prose", json!({}));
    check(&prose, json!({"result": {"isError": true}}));
    assert!(text_of(&prose).contains("not JSON"), "{prose}");
}

/// A command that records its own pid and its child's, then waits for the child (a long sleep).
fn sleeper(dir: &TempDir) -> Value {
    let script = format!("echo $$ > {0}/parent.pid; sleep 30 & echo $! > {0}/child.pid; wait", dir.path().display());
    json!({"name": "sleeper", "command": ["sh", "-c", script], "timeoutMs": 400})
}

pub(crate) fn pids(dir: &TempDir) -> Vec<u32> {
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
    let res = client.call_tool("sleeper", json!({}));
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
    let seen = client.drain(Duration::from_millis(100));
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
    let res = client.call_tool("read_file", json!({"path": "README.md"}));
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
    assert_eq!(text_of(&client.call_tool("one", json!({}))), "uno\n");
    // A broken manifest changes nothing (the error goes to the log).
    write_manifest(&dir, &json!({"tools": [{"name": "bad name", "command": []}], "padding": "x".repeat(100)}));
    let seen = client.drain(Duration::from_millis(400));
    assert!(seen.iter().all(|m| m.get("method").is_none()), "{seen:?}");
    assert_eq!(text_of(&client.call_tool("two", json!({}))), "2\n");
    // Removing a tool removes it.
    write_manifest(&dir, &json!({"tools": [tool("two", &["echo", "deux"], &[])]}));
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    let tools = client.request("tools/list", json!({}));
    check(&tools, json!({"result": {"tools": [{"name": "two"}]}}));
    check(&client.call_tool("one", json!({})), json!({"error": {"code": -32602}}));
}

#[test]
fn the_example_manifest_is_valid_and_its_tools_run() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/manifest.json");
    let out = run_binary(&["--check", example]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut client = Client::spawn(&["--manifest", example]);
    client.initialize("2025-11-25", json!({}));
    let stats = client.call_tool("line_stats", json!({"path": "Cargo.toml"}));
    let structured = &stats["result"]["structuredContent"];
    assert!(structured["lines"].as_u64().unwrap() > 10 && structured["bytes"].as_u64().unwrap() > 100, "{stats}");
    let words = client.call_tool("word_count", json!({"path": "Cargo.toml"}));
    assert!(text_of(&words).ends_with("/Cargo.toml\n"), "{words}");
    let sorted = client.call_tool("sort_lines", json!({"text": "b\na\nc\n", "order": "-r"}));
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
    assert_eq!(text_of(&client.call_tool("bg", json!({}))), "started\n");
    let pid: u32 = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap().trim().parse().unwrap();
    eventually(&format!("the background process {pid} to be gone"), || process_gone(pid));
}

// Command tools are safe by construction. A value that starts with `-` is refused
// where the program would take it for an option, unless the tool declares the argument as an
// option or the manifest puts it after `--`.
over_both_transports!(values_starting_with_a_dash_are_refused_unless_declared_or_after_the_separator);

fn values_starting_with_a_dash_are_refused_unless_declared_or_after_the_separator(t: Transport) {
    let dir = TempDir::new("dash");
    let schema = json!({"type": "object", "properties": {
        "x": {"type": "string"}, "items": {"type": "array", "items": {"type": "string"}}}});
    let manifest = json!({"tools": [
        {"name": "show", "command": ["printf", "[%s]", "{{x}}", "{{items}}"], "inputSchema": schema},
        {"name": "after", "command": ["echo", "--", "{{x}}"], "inputSchema": string_props(&["x"])},
        {"name": "literal", "command": ["printf", "%s", "x={{x}}"], "inputSchema": string_props(&["x"])},
        {"name": "option", "command": ["printf", "[%s]", "{{x}}"], "inputSchema": string_props(&["x"]), "optionArguments": ["x"]}
    ]});
    let mut client = serve_over(t, &dir, &manifest);
    for args in [json!({"x": "--help"}), json!({"x": "-n"}), json!({"items": ["a", "--output=/tmp/x"]})] {
        let res = client.call_tool("show", args.clone());
        check(&res, json!({"result": {"isError": true}}));
        assert!(text_of(&res).contains("starts with '-'"), "{args}: {res}");
    }
    assert_eq!(text_of(&client.call_tool("show", json!({"x": "a-b", "items": ["c"]}))), "[a-b][c]");
    assert_eq!(text_of(&client.call_tool("after", json!({"x": "-n"}))), "-- -n\n");
    assert_eq!(text_of(&client.call_tool("literal", json!({"x": "-n"}))), "x=-n");
    assert_eq!(text_of(&client.call_tool("option", json!({"x": "-n"}))), "[-n]");
}

// An argument declared in pathArguments is a path inside the tool's folder: it is
// resolved through the same sandbox as served folders, and the program gets the checked path.
#[test]
fn path_arguments_stay_inside_the_tools_folder() {
    let dir = TempDir::new("path-args");
    let outside = TempDir::new("path-args-outside");
    dir.write("inside.txt", "one two three\n");
    outside.write("secret.txt", "secret\n");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("link")).unwrap();
    let manifest = json!({"tools": [
        {"name": "cat", "command": ["cat", "{{path}}"], "inputSchema": string_props(&["path"]), "pathArguments": ["path"]}
    ]});
    let mut client = serve(&dir, &manifest);
    assert_eq!(text_of(&client.call_tool("cat", json!({"path": "inside.txt"}))), "one two three\n");
    for bad in ["/etc/passwd", "../x", "link", "-n", "%2e%2e/x", ".hidden", "missing.txt"] {
        let res = client.call_tool("cat", json!({"path": bad}));
        check(&res, json!({"result": {"isError": true}}));
        assert!(!text_of(&res).contains("secret"), "{bad}: {res}");
    }
}

// The shipped example manifest holds against the attacks the issue found.
#[test]
fn the_example_manifest_is_safe_against_the_issues_attacks() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/manifest.json");
    let target = std::env::temp_dir().join(format!("tinymcp-it-written-{}", std::process::id()));
    let mut client = Client::spawn(&["--manifest", example]);
    client.initialize("2025-11-25", json!({}));
    let written = format!("--output={}", target.display());
    let attacks = [
        ("recent_commits", json!({"count": 1, "paths": [written]})),
        ("recent_commits", json!({"count": 1, "paths": ["-p"]})),
        ("word_count", json!({"path": "/etc/passwd"})),
        ("word_count", json!({"path": "../../../../../../etc/passwd"})),
        ("word_count", json!({"path": "--files0-from=/etc/passwd"})),
        ("line_stats", json!({"path": "/etc/passwd"})),
        ("line_stats", json!({"path": "../../../../../../etc/passwd"})),
        ("sort_lines", json!({"text": "x", "order": "-o/tmp/x"})),
    ];
    for (tool, args) in attacks {
        let res = client.call_tool(tool, args.clone());
        check(&res, json!({"result": {"isError": true}}));
        assert!(!res.to_string().contains("root:"), "{tool} {args}: {res}");
    }
    assert!(!target.exists(), "a tool wrote {}", target.display());
    let commits = client.call_tool("recent_commits", json!({"count": 2, "paths": ["README.md"]}));
    assert!(commits["result"].get("isError").is_none(), "{commits}");
    let out = run_binary(&["--check", example]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stderr).is_empty(), "{out:?}");
}

// --check warns about code run by a shell or interpreter that holds a placeholder, and
// about tools marked read-only whose command writes; warnings do not fail the check.
#[test]
fn check_warns_about_shell_injection_and_read_only_tools_that_write() {
    let dir = TempDir::new("warn");
    let file = write_manifest(
        &dir,
        &json!({"tools": [
            tool("shell", &["sh", "-c", "echo {{x}}"], &["x"]),
            tool("bash", &["/bin/bash", "-c", "ls {{x}}"], &["x"]),
            tool("py", &["python3", "-c", "print('{{x}}')"], &["x"]),
            tool("cmd", &["cmd", "/c", "dir {{x}}"], &["x"]),
            tool("fine", &["sh", "-c", "echo \"$1\"", "sh", "{{x}}"], &["x"]),
            {"name": "rm", "command": ["rm", "-f", "--", "{{x}}"], "inputSchema": string_props(&["x"]), "annotations": {"readOnlyHint": true}},
            {"name": "sed", "command": ["sed", "-i", "s/a/b/", "--", "f.txt"], "annotations": {"readOnlyHint": true}},
            {"name": "out", "command": ["git", "log", "--output=log.txt"], "annotations": {"readOnlyHint": true}},
            {"name": "reader", "command": ["cat", "--", "f.txt"], "annotations": {"readOnlyHint": true}}
        ]}),
    );
    let out = run_binary(&["--check", &file]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "tools[0].command[2]: warning: sh -c runs this text as code",
        "tools[1].command[2]: warning: bash -c runs this text as code",
        "tools[2].command[2]: warning: python3 -c runs this text as code",
        "tools[3].command[2]: warning: cmd /c runs this text as code",
        "tools[5].annotations.readOnlyHint: warning: rm writes",
        "tools[6].annotations.readOnlyHint: warning: sed -i writes",
        "tools[7].annotations.readOnlyHint: warning: --output=log.txt writes",
    ] {
        assert!(stderr.contains(&format!("{file}: {expected}")), "no {expected:?} in:\n{stderr}");
    }
    assert!(!stderr.contains("tools[4]") && !stderr.contains("tools[8]"), "{stderr}");
}

// A child that leaves the process group (setsid) is found through the call's mark in
// its environment and ended with the call; output is read to the cap even when a grandchild
// holds the pipe. What survives: a process that clears its environment and leaves the group
// (`env -i setsid ...`), shown here and documented in docs/manifest.md.
#[test]
fn children_that_call_setsid_are_ended_with_the_call() {
    let dir = TempDir::new("setsid");
    let script = format!("setsid sleep 30 & echo $! > {}/escaped.pid; echo started", dir.path().display());
    let held = format!("echo hello; setsid sleep 30 & echo $! > {}/held.pid", dir.path().display());
    let manifest = json!({"tools": [
        {"name": "escape", "command": ["sh", "-c", script]},
        {"name": "hold", "command": ["sh", "-c", held]}
    ]});
    let mut client = serve(&dir, &manifest);
    assert_eq!(text_of(&client.call_tool("escape", json!({}))), "started\n");
    let pid: u32 = std::fs::read_to_string(dir.path().join("escaped.pid")).unwrap().trim().parse().unwrap();
    eventually(&format!("the setsid child {pid} to be gone"), || process_gone(pid));
    // A setsid child that holds stdout: the output still arrives (before: it was lost), and the
    // child is ended with the call rather than left holding the pipe. No timing bound here: under
    // load a prompt answer and one after the 2 s drain are too close to tell apart reliably.
    assert_eq!(text_of(&client.call_tool("hold", json!({}))), "hello\n");
    let held: u32 = std::fs::read_to_string(dir.path().join("held.pid")).unwrap().trim().parse().unwrap();
    eventually(&format!("the setsid child {held} holding stdout to be gone"), || process_gone(held));
}

#[test]
fn what_clears_its_environment_and_leaves_the_group_survives_the_call() {
    let dir = TempDir::new("survivor");
    // The script waits until the survivor has left (its session id is its own pid): a call that
    // ended before that would end it with the group, which is not what this test is about.
    let script = format!(
        "env -i /usr/bin/setsid /bin/sleep 30 & p=$!; echo $p > {}/survivor.pid; i=0; \
         until [ \"$(cut -d' ' -f6 /proc/$p/stat)\" = \"$p\" ] || [ $i -ge 1000 ]; do sleep 0.01; i=$((i+1)); done; \
         echo hello",
        dir.path().display()
    );
    let manifest = json!({"tools": [{"name": "survivor", "command": ["sh", "-c", script]}]});
    let mut client = serve(&dir, &manifest);
    // The output is read to the end the command wrote, even though the survivor holds the pipe:
    // answered within the client's 10 s, well under the survivor's 30 s.
    assert_eq!(text_of(&client.call_tool("survivor", json!({}))), "hello\n");
    let pid: u32 = std::fs::read_to_string(dir.path().join("survivor.pid")).unwrap().trim().parse().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let survived = !process_gone(pid);
    let _ = std::process::Command::new("kill").arg(pid.to_string()).status();
    assert!(survived, "the documented limit changed: update docs/manifest.md");
}
