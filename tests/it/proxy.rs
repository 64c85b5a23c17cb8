//! `tinymcp proxy`: a stdio server (our own binary, with a manifest of hostile command tools)
//! served over HTTP, one child per session. The environment the child gets, a child that exits
//! or hangs mid-call, garbage on its stdout, and the session cap that bounds the children;
//! `--config`: several servers by name on one port.

use crate::manifest::write_manifest;
use crate::raw_http::{initialize, write_request, Reply, Server, ACCEPT_BOTH, JSON};
use crate::support::{announced_port, binary, check, eventually, process_gone, tool_text, TempDir};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "proxy-test-token-0123456789abcdef0123456789";

/// A manifest whose tools expose the child: its pid, and ways to end it.
fn hostile_manifest(dir: &TempDir) -> String {
    let object = json!({"type": "object"});
    write_manifest(
        dir,
        &json!({"tools": [
            {"name": "pid", "description": "the child's pid", "command": ["sh", "-c", "echo $PPID"], "inputSchema": object},
            {"name": "die", "description": "kills the child", "command": ["sh", "-c", "kill -KILL $PPID; sleep 5"], "inputSchema": object},
            {"name": "hang", "description": "stops the child", "command": ["sh", "-c", "kill -STOP $PPID; sleep 5"], "inputSchema": object},
        ]}),
    )
}

/// `tinymcp proxy --http 127.0.0.1:0 FLAGS -- CHILD...` with `env` added to ours.
pub(crate) fn proxy(flags: &[&str], child: &[&str], env: &[(&str, &str)]) -> Server {
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.push("--".into());
    args.extend(child.iter().map(OsString::from));
    start(args, env)
}

/// `tinymcp proxy --http 127.0.0.1:0 ARGS` with `env` added to ours (the token never inherited).
fn start(args: Vec<OsString>, env: &[(&str, &str)]) -> Server {
    let mut command = Command::new(binary());
    command
        .args(["proxy", "--http", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "tinymcp=info")
        .env_remove("TINYMCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("spawn tinymcp proxy");
    let port = announced_port(&mut child);
    Server { child, port }
}

/// A proxy to our own binary serving the hostile manifest.
fn proxy_to_manifest(dir: &TempDir, flags: &[&str], env: &[(&str, &str)]) -> Server {
    let manifest = hostile_manifest(dir);
    proxy(flags, &[binary(), "--manifest", &manifest], env)
}

fn call(server: &Server, headers: &[(&str, &str)], session: &str, id: i64, name: &str) -> Reply {
    let mut all = vec![("Mcp-Session-Id", session)];
    all.extend_from_slice(headers);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}});
    server.post(&all, &body)
}

fn child_pid(server: &Server, session: &str) -> u32 {
    let reply = call(server, &[], session, 90, "pid");
    tool_text(&reply.json()).trim().parse().expect("a pid")
}

// The bearer token guards the proxy; a child that could read it could hand it to anyone.
#[test]
fn the_child_gets_only_the_environment_passed_explicitly_never_the_token() {
    let dir = TempDir::new("proxy-env");
    let seen = dir.path().join("env.txt");
    let script = format!("env > '{}'; exec \"$0\" --everything", seen.display());
    let env = [("TINYMCP_TOKEN", TOKEN), ("PROXY_PASSED", "passed-value"), ("PROXY_KEPT", "kept-value")];
    let server = proxy(&["--pass-env", "PROXY_PASSED"], &["sh", "-c", &script, binary()], &env);
    let bearer = format!("Bearer {TOKEN}");
    let reply = server.post(&[("Authorization", bearer.as_str())], &crate::raw_http::initialize(json!({})));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let text = std::fs::read_to_string(&seen).expect("the child wrote its environment");
    assert!(text.contains("PROXY_PASSED=passed-value"), "{text}");
    assert!(!text.contains(TOKEN), "the token reached the child: {text}");
    assert!(!text.contains("TINYMCP_TOKEN"), "{text}");
    assert!(!text.contains("kept-value"), "a variable not passed reached the child: {text}");
}

#[test]
fn passing_the_token_variable_is_refused() {
    let out = Command::new(binary())
        .args(["proxy", "--http", "127.0.0.1:0", "--pass-env", "TINYMCP_TOKEN", "--", "true"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("never passed"), "{stderr}");
}

// A stdio server assumes one client: each session is its own process.
#[test]
fn each_session_gets_its_own_child_which_ends_with_its_session() {
    let dir = TempDir::new("proxy-sessions");
    let server = proxy_to_manifest(&dir, &[], &[]);
    let (one, two) = (server.session(json!({})), server.session(json!({})));
    let (first, second) = (child_pid(&server, &one), child_pid(&server, &two));
    assert_ne!(first, second);
    let deleted = server.send("DELETE", "/mcp", &[("Mcp-Session-Id", &one)], "");
    assert_eq!(deleted.status, 200);
    eventually("the deleted session's child to end", || process_gone(first));
    assert!(!process_gone(second));
}

// The cap on sessions is the cap on children: at the cap the longest-idle session (and its
// process) makes room.
#[test]
fn the_session_cap_bounds_the_children() {
    let dir = TempDir::new("proxy-cap");
    let server = proxy_to_manifest(&dir, &["--max-sessions", "2"], &[]);
    let sessions: Vec<String> = (0..2).map(|_| server.session(json!({}))).collect();
    let pids: Vec<u32> = sessions.iter().map(|s| child_pid(&server, s)).collect();
    let third = server.session(json!({}));
    child_pid(&server, &third);
    eventually("the evicted session's child to end", || process_gone(pids[0]));
    assert!(!process_gone(pids[1]));
    let gone = call(&server, &[], &sessions[0], 3, "pid");
    assert_eq!(gone.status, 404, "{}", gone.body);
}

#[test]
fn a_child_that_exits_mid_call_fails_the_call_and_ends_its_session() {
    let dir = TempDir::new("proxy-exit");
    let server = proxy_to_manifest(&dir, &[], &[]);
    let (doomed, other) = (server.session(json!({})), server.session(json!({})));
    let reply = call(&server, &[], &doomed, 2, "die");
    let answer = reply.json();
    check(&answer, json!({"id": 2, "error": {"code": -32603}}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("exited"), "{message}");
    // The client is told to start again, which gets a new process.
    assert_eq!(call(&server, &[], &doomed, 3, "pid").status, 404);
    let again = server.session(json!({}));
    child_pid(&server, &again);
    // Other sessions never noticed.
    child_pid(&server, &other);
}

#[test]
fn a_child_that_stops_answering_is_ended_with_an_error_to_what_waited() {
    let dir = TempDir::new("proxy-hang");
    let server = proxy_to_manifest(&dir, &["--answer-within-secs", "1"], &[]);
    let session = server.session(json!({}));
    let pid = child_pid(&server, &session);
    let started = Instant::now();
    let answer = call(&server, &[], &session, 2, "hang").json();
    check(&answer, json!({"id": 2, "error": {"code": -32603}}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("did not answer within 1 s"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    eventually("the hung child to be ended", || process_gone(pid));
    assert_eq!(call(&server, &[], &session, 3, "pid").status, 404);
}

// What a child writes on stdout that is not JSON-RPC never reaches a client.
#[test]
fn lines_that_are_not_json_rpc_are_dropped() {
    let script = "echo 'not json at all'; echo '{\"no\": \"jsonrpc\"}'; echo; exec \"$0\" --everything";
    let server = proxy(&[], &["sh", "-c", script, binary()], &[]);
    let session = server.session(json!({}));
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}});
    let reply = server.post(&[("Mcp-Session-Id", &session)], &body);
    let answer: Value = reply.json();
    check(&answer, json!({"id": 2, "result": {"content": [{"text": "Echo: hi"}]}}));
}

/// `tinymcp proxy --http 127.0.0.1:0 FLAGS --config FILE` with `env` added to ours.
fn proxy_config(flags: &[&str], config: &std::path::Path, env: &[(&str, &str)]) -> Server {
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.extend(["--config".into(), config.as_os_str().to_owned()]);
    start(args, env)
}

fn post_at(server: &Server, path: &str, headers: &[(&str, &str)], body: &Value) -> Reply {
    let mut all = vec![ACCEPT_BOTH, JSON];
    all.extend_from_slice(headers);
    server.send("POST", path, &all, &body.to_string())
}

/// Two servers, `a` and `b`: each our binary, writing its environment to `NAME.env` first.
fn two_servers(dir: &TempDir) -> std::path::PathBuf {
    let script = "env > \"$ENV_FILE\"; exec \"$0\" --everything";
    let entry = |name: &str| {
        let file = dir.path().join(format!("{name}.env"));
        json!({"command": "sh", "args": ["-c", script, binary()],
               "env": {"ENV_FILE": file.to_str().unwrap(), "WHO": format!("server-{name}")}})
    };
    dir.write("servers.json", json!({"mcpServers": {"a": entry("a"), "b": entry("b")}}).to_string())
}

// One port for every configured server: each at its own prefix, with exactly its own `env`.
#[test]
fn a_config_serves_each_server_at_its_prefix_with_its_own_environment() {
    let dir = TempDir::new("proxy-config");
    let config = two_servers(&dir);
    let server = proxy_config(&[], &config, &[("PROXY_KEPT", "kept-value")]);
    let reply = post_at(&server, "/a/mcp", &[], &initialize(json!({})));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let session = reply.header("mcp-session-id").expect("Mcp-Session-Id").to_owned();
    let seen = std::fs::read_to_string(dir.path().join("a.env")).expect("server a wrote its environment");
    assert!(seen.contains("WHO=server-a"), "{seen}");
    assert!(seen.contains("PATH="), "{seen}");
    assert!(!seen.contains("kept-value"), "a variable not passed reached the child: {seen}");
    assert!(!dir.path().join("b.env").exists(), "server b started for a session of a");

    let echo = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}});
    let answer = post_at(&server, "/a/mcp", &[("Mcp-Session-Id", &session)], &echo);
    check(&answer.json(), json!({"id": 2, "result": {"content": [{"text": "Echo: hi"}]}}));
    // A session is served only under the name it began at.
    let elsewhere = post_at(&server, "/b/mcp", &[("Mcp-Session-Id", &session)], &echo);
    assert_eq!(elsewhere.status, 404, "{}", elsewhere.body);
    let deleted = server.send("DELETE", "/b/mcp", &[("Mcp-Session-Id", &session)], "");
    assert_eq!(deleted.status, 404, "{}", deleted.body);

    let reply = post_at(&server, "/b/mcp", &[], &initialize(json!({})));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let seen = std::fs::read_to_string(dir.path().join("b.env")).expect("server b wrote its environment");
    assert!(seen.contains("WHO=server-b") && !seen.contains("server-a"), "{seen}");

    for path in ["/c/mcp", "/mcp", "/a/other", "/../a/mcp"] {
        let unknown = post_at(&server, path, &[], &initialize(json!({})));
        assert_eq!(unknown.status, 404, "{path}: {}", unknown.body);
    }
    let health = server.send("GET", "/healthz", &[], "");
    assert_eq!(health.status, 200, "{}", health.body);
    assert!(health.body.contains("a: ok\n") && health.body.contains("b: ok\n"), "{}", health.body);
}

// Legacy clients too: the stream names the POST endpoint under the server's prefix.
#[test]
fn a_configured_server_serves_legacy_sse_under_its_prefix() {
    let dir = TempDir::new("proxy-config-sse");
    let config = two_servers(&dir);
    let server = proxy_config(&[], &config, &[]);
    let mut get = server.connect();
    write_request(&mut get, server.port, "GET", "/b/sse", &[("Accept", "text/event-stream")], "");
    let mut reader = BufReader::new(get);
    let mut seen = String::new();
    let endpoint = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "{seen}");
        if seen.ends_with("event: endpoint\n") {
            break line.strip_prefix("data: ").unwrap().trim().to_owned();
        }
        seen.push_str(&line);
    };
    assert!(endpoint.starts_with("/b/messages?sessionId="), "{endpoint}");
    let mut init = initialize(json!({}));
    init["params"]["protocolVersion"] = json!("2024-11-05");
    let elsewhere = server.send("POST", &endpoint.replacen("/b/", "/a/", 1), &[JSON], &init.to_string());
    assert_eq!(elsewhere.status, 404, "{}", elsewhere.body);
    let accepted = server.send("POST", &endpoint, &[JSON], &init.to_string());
    assert_eq!(accepted.status, 202, "{}", accepted.body);
    let answer = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        if let Some(data) = line.strip_prefix("data: ").filter(|d| d.contains("\"id\"")) {
            break serde_json::from_str::<Value>(data).unwrap();
        }
    };
    check(&answer, json!({"id": 1, "result": {"protocolVersion": "2024-11-05"}}));
    eventually("server b started", || dir.path().join("b.env").exists());
}

// `--max-sessions` bounds the children of every configured server together, not each.
#[test]
fn the_session_cap_is_shared_by_every_configured_server() {
    let dir = TempDir::new("proxy-config-cap");
    let config = two_servers(&dir);
    let server = proxy_config(&["--max-sessions", "1"], &config, &[]);
    let opened = post_at(&server, "/a/mcp", &[], &initialize(json!({})));
    assert_eq!(opened.status, 200, "{}", opened.body);
    let first = opened.header("mcp-session-id").expect("Mcp-Session-Id").to_owned();
    let opened = post_at(&server, "/b/mcp", &[], &initialize(json!({})));
    assert_eq!(opened.status, 200, "{}", opened.body);
    // The one place went to b's session: a's, idle, made room.
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let evicted = post_at(&server, "/a/mcp", &[("Mcp-Session-Id", &first)], &ping);
    assert_eq!(evicted.status, 404, "{}", evicted.body);
}

// A bad config is refused at start, its problem named by its JSON path.
#[test]
fn a_bad_config_is_refused_naming_the_json_path_of_the_problem() {
    let dir = TempDir::new("proxy-config-bad");
    let cases = [
        (json!({"servers": {}}), "servers: unknown key"),
        (json!({"mcpServers": {"a": {"args": ["x"]}}}), "mcpServers.a.command: missing"),
        (json!({"mcpServers": {"a": {"command": "x", "url": "http://x"}}}), "mcpServers.a.url: unknown key"),
        (json!({"mcpServers": {"a b": {"command": "x"}}}), "mcpServers.a b: the name is a path segment"),
        (json!({"mcpServers": {"a": {"command": "x", "args": ["ok", 2]}}}), "mcpServers.a.args[1]: expected a string"),
        (json!({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}), "mcpServers.a.env.K: expected a string"),
        (
            json!({"mcpServers": {"a": {"command": "x", "cwd": "/no/such/folder"}}}),
            "mcpServers.a.cwd: expected a folder",
        ),
    ];
    for (config, expected) in cases {
        let file = dir.write("bad.json", config.to_string());
        let out = Command::new(binary())
            .args(["proxy", "--http", "127.0.0.1:0", "--config"])
            .arg(&file)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{config} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{config}: {stderr}");
    }
    let out = Command::new(binary())
        .args(["proxy", "--http", "127.0.0.1:0", "--config", "x.json", "--", "true"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
