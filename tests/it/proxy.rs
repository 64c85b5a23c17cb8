//! `tinymcp proxy`: a stdio server (our own binary, with a manifest of hostile command tools)
//! served over HTTP, one child per session. The environment the child gets, a child that exits
//! or hangs mid-call, garbage on its stdout, and the session cap that bounds the children;
//! `--config`: several servers by name on one port.

use crate::manifest::write_manifest;
use crate::raw_http::{
    initialize, proxy_command, read_chunk, read_head, read_reply, sse_events, write_request, Reply, Server,
    ACCEPT_BOTH, JSON,
};
use crate::support::{announced_port, binary, check, eventually, process_gone, tool_text, Client, TempDir};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
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
    let mut command = proxy_command(args);
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

// A client opening sessions without end, all at once, while every place is busy: each is refused
// `503` before a process is started for it (an `initialize` takes its place under the cap
// first), so the children never outnumber `--max-sessions`.
#[test]
fn initializes_sent_at_once_at_a_busy_cap_start_no_children() {
    let dir = TempDir::new("proxy-cap-burst");
    let server = proxy_to_script(&dir, &["--max-sessions", "1"]);
    let busy = server.session(json!({}));
    let _in_flight = call_in_flight(&server, &busy, 2, "never", json!({}));
    let port = server.port;
    let burst: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                let mut stream = crate::raw_http::connect(port);
                let body = initialize(json!({})).to_string();
                write_request(&mut stream, port, "POST", "/mcp", &[ACCEPT_BOTH, JSON], &body);
                read_reply(&mut BufReader::new(stream))
            })
        })
        .collect();
    for refused in burst {
        let refused = refused.join().expect("a reply");
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(refused.body.contains("too many sessions (the limit is 1)"), "{}", refused.body);
    }
    assert_eq!(children_started(&dir), 1, "children were started for sessions over the cap");
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
    let answer = call(&server, &[], &session, 2, "hang").json();
    check(&answer, json!({"id": 2, "error": {"code": -32603}}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("did not answer within 1 s"), "{message}");
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

/// A stdio MCP server in Python that misbehaves on request, for the children a real server
/// should never be. Its tools: `pid`; `echo`; `flood` (one line of 8 MiB, then notifications
/// of 64 KiB and garbage lines without end, never answering); `late` (progress, then, ignoring any
/// cancellation, progress and its answer after `ms`, then the file `mark`); `never` (progress
/// only); `slow`
/// (progress, then its answer after `ms`). Each child adds its pid to the file `started`.
const SCRIPTED_CHILD: &str = r#"
import json, os, sys, threading, time

with open(sys.argv[1], "a") as started:
    started.write(f"{os.getpid()}\n")
lock = threading.Lock()

def write(text):
    with lock:
        sys.stdout.write(text)
        sys.stdout.flush()

def send(message):
    write(json.dumps(message) + "\n")

def answer(id, result):
    send({"jsonrpc": "2.0", "id": id, "result": result})

def text(t):
    return {"content": [{"type": "text", "text": t}]}

def progress(token, n):
    if token is not None:
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": n}})

def flood(token):
    write("x" * (8 << 20) + "\n")
    chunk = "garbage " * 25 + "\n"
    for i in range(8):
        chunk += json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                             "params": {"progressToken": token, "progress": i, "message": "p" * 65536}}) + "\n"
        chunk += json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                             "params": {"level": "info", "data": "m" * 65536}}) + "\n"
    while True:
        write(chunk)

def call(id, name, args, token):
    if name == "pid":
        answer(id, text(str(os.getpid())))
    elif name == "flood":
        flood(token)
    elif name == "late":
        progress(token, 1)
        time.sleep(args["ms"] / 1000)
        progress(token, 2)
        answer(id, text("late"))
        with open(args["mark"], "w") as f:
            f.write("answered")
    elif name == "never":
        progress(token, 0)
    elif name == "slow":
        progress(token, 0)
        time.sleep(args["ms"] / 1000)
        answer(id, text("slow done"))
    else:
        answer(id, text("echo"))

for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if id is None or method is None:
        continue
    params = message.get("params") or {}
    if method == "initialize":
        answer(id, {"protocolVersion": params.get("protocolVersion", "2025-11-25"), "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "0"}})
    elif method == "tools/call":
        token = (params.get("_meta") or {}).get("progressToken")
        arguments = params.get("arguments") or {}
        threading.Thread(target=call, args=(id, params["name"], arguments, token), daemon=True).start()
    else:
        answer(id, {})
"#;

/// A proxy whose children run `SCRIPTED_CHILD`.
fn proxy_to_script(dir: &TempDir, flags: &[&str]) -> Server {
    let script = dir.write("child.py", SCRIPTED_CHILD);
    let started = dir.path().join("started");
    proxy(flags, &["python3", script.to_str().expect("UTF-8 path"), started.to_str().expect("UTF-8 path")], &[])
}

/// How many children `SCRIPTED_CHILD` started so far.
fn children_started(dir: &TempDir) -> usize {
    std::fs::read_to_string(dir.path().join("started")).map_or(0, |text| text.lines().count())
}

/// Sends a `tools/call` with a progress token on a connection of its own and reads the head of
/// its answer (a stream, as progress comes first): the call is at the child.
fn call_in_flight(server: &Server, session: &str, id: i64, name: &str, arguments: Value) -> BufReader<TcpStream> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": format!("t{id}")}}});
    let mut stream = server.connect();
    let headers = [ACCEPT_BOTH, JSON, ("Mcp-Session-Id", session)];
    write_request(&mut stream, server.port, "POST", "/mcp", &headers, &body.to_string());
    let mut reader = BufReader::new(stream);
    let head = read_head(&mut reader);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("text/event-stream"));
    reader
}

/// Every message of an SSE body read to its end.
fn messages_to_end(reader: &mut BufReader<TcpStream>) -> Vec<Value> {
    let mut body = String::new();
    while let Some(chunk) = read_chunk(reader) {
        body.push_str(&String::from_utf8(chunk).expect("UTF-8"));
    }
    sse_events(&body).into_iter().map(|(_, message)| message).collect()
}

/// Opens the session's GET stream; every message it carries goes to the receiver.
fn get_stream(server: &Server, session: &str) -> mpsc::Receiver<Value> {
    let mut stream = server.connect();
    stream.set_read_timeout(None).expect("no read timeout");
    let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", session)];
    write_request(&mut stream, server.port, "GET", "/mcp", &headers, "");
    let mut reader = BufReader::new(stream);
    assert_eq!(read_head(&mut reader).status, 200);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        while let Some(chunk) = read_chunk(&mut reader) {
            for (_, message) in sse_events(&String::from_utf8_lossy(&chunk)) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// A field of `/proc/PID/FILE` (`VmRSS:` in kB, `wchar:` in bytes).
fn proc_field(pid: u32, file: &str, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).expect("the process is there");
    let line = text.lines().find_map(|l| l.strip_prefix(field)).unwrap_or_else(|| panic!("no {field} in {text}"));
    line.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a number")
}

// A child that writes without end (an 8 MiB line, then notifications and garbage as fast as a
// pipe takes them) to a client that reads none of it: what waits for that client is capped
// (`Sink::bounded`), and the other sessions' children keep answering while the child writes
// 96 MiB. The proxy's memory meanwhile is printed, not asserted (a figure for
// `scripts/bench.sh`: a threshold here would flake on a loaded machine).
#[test]
fn a_child_that_floods_stdout_holds_the_proxy_to_bounded_memory_and_others_are_served() {
    let dir = TempDir::new("proxy-flood");
    let server = proxy_to_script(&dir, &[]);
    let (flooding, other) = (server.session(json!({})), server.session(json!({})));
    let child: u32 = tool_text(&call(&server, &[], &flooding, 2, "pid").json()).parse().expect("a pid");
    let proxy = server.child.id();
    let before = proc_field(proxy, "status", "VmRSS:");
    // The flood's answer stream is opened and never read.
    let _unread = call_in_flight(&server, &flooding, 3, "flood", json!({}));
    // Until the child has written 96 MiB (at most 30 s): the proxy's memory is looked at
    // throughout, and the other session is served meanwhile.
    let (started, mut peak, mut calls, mut written) = (Instant::now(), before, 0, 0);
    while written < 96 << 20 && started.elapsed() < Duration::from_secs(30) {
        peak = peak.max(proc_field(proxy, "status", "VmRSS:"));
        let reply = call(&server, &[], &other, 10 + calls, "echo").json();
        check(&reply, json!({"id": 10 + calls, "result": {"content": [{"text": "echo"}]}}));
        calls += 1;
        std::thread::sleep(Duration::from_millis(10));
        written = proc_field(child, "io", "wchar:");
    }
    let grown = peak.saturating_sub(before) >> 10;
    // Past the harness's capture: the figures are worth seeing.
    let _ = writeln!(
        std::io::stderr(),
        "flood: the child wrote {} MiB in {:?}; the proxy's RSS grew {grown} MiB (from {} MiB); {calls} calls answered meanwhile",
        written >> 20,
        started.elapsed(),
        before >> 10
    );
    assert!(written >= 96 << 20, "the child wrote only {} MiB: no flood to speak of", written >> 20);
    assert!(calls > 0, "no call was answered while the child flooded");
}

// Spec (cancellation): a cancelled request is never answered, and its progress stops. A child
// that goes on anyway has its late progress and answer dropped; the request's in-flight slot
// was freed at the cancellation, and the session and its child go on.
#[test]
fn a_cancelled_call_answered_late_reaches_no_client_and_frees_its_slot() {
    let dir = TempDir::new("proxy-late");
    let server = proxy_to_script(&dir, &["--max-in-flight", "1"]);
    let session = server.session(json!({}));
    let pid = tool_text(&call(&server, &[], &session, 2, "pid").json());
    let heard = get_stream(&server, &session);
    let mark = dir.path().join("answered");
    let mut late = call_in_flight(&server, &session, 3, "late", json!({"ms": 800, "mark": mark.to_str().unwrap()}));
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}});
    assert_eq!(server.post(&[("Mcp-Session-Id", &session)], &cancel).status, 202);
    // Its stream ends at once, with its first progress and no answer.
    let streamed = messages_to_end(&mut late);
    assert!(streamed.iter().all(|m| m.get("id").is_none()), "{streamed:?}");
    // One slot in all, free again: another call runs while the child still works on the first.
    check(&call(&server, &[], &session, 4, "echo").json(), json!({"id": 4, "result": {}}));
    eventually("the child to answer the cancelled call", || mark.exists());
    // Answered after the late lines were written, so after the proxy read them.
    assert_eq!(tool_text(&call(&server, &[], &session, 5, "pid").json()), pid, "the same child");
    let leaked: Vec<Value> = std::iter::from_fn(|| heard.recv_timeout(Duration::from_millis(100)).ok()).collect();
    let about_3 =
        |m: &&Value| m.get("id") == Some(&json!(3)) || m.pointer("/params/progressToken") == Some(&json!("t3"));
    assert!(leaked.iter().find(about_3).is_none(), "the cancelled call's late messages reached the client: {leaked:?}");
}

// A child that never answers a cancelled call holds nothing: its slot was freed at the
// cancellation, and the watchdog (`--answer-within-secs`) waits only for requests a client
// still waits for, so a child busy with what was cancelled but answering the rest is not ended.
#[test]
fn a_cancelled_call_never_answered_holds_no_slot_and_never_trips_the_watchdog() {
    let dir = TempDir::new("proxy-never");
    let server = proxy_to_script(&dir, &["--max-in-flight", "1", "--answer-within-secs", "1"]);
    let session = server.session(json!({}));
    let pid = tool_text(&call(&server, &[], &session, 2, "pid").json());
    // The watchdog looks four times a second for a request older than one: past this, it has
    // looked since the cancelled call turned one second old.
    let window = Instant::now() + Duration::from_millis(1500);
    let mut never = call_in_flight(&server, &session, 3, "never", json!({}));
    let refused = call(&server, &[], &session, 4, "echo").json();
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("too many requests in flight"), "{refused}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}});
    assert_eq!(server.post(&[("Mcp-Session-Id", &session)], &cancel).status, 202);
    // The cancelled call's stream is over, with no answer.
    let streamed = messages_to_end(&mut never);
    assert!(streamed.iter().all(|m| m.get("id").is_none()), "{streamed:?}");
    check(&call(&server, &[], &session, 5, "echo").json(), json!({"id": 5, "result": {}}));
    // Through the watchdog's window: nothing the client waits for is unanswered, so the same
    // child answers throughout (a window, not an event: what is checked is that nothing happens).
    for id in 6.. {
        assert_eq!(tool_text(&call(&server, &[], &session, id, "pid").json()), pid, "the same child");
        if Instant::now() > window {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

// SIGTERM drains: calls already at the child get their real answers (the drain waits for the
// relay's requests in flight as for its own handlers, before streams and sessions end), over
// Streamable HTTP and over legacy SSE, whose answers travel on the session's stream; a new
// request gets 503, and the proxy exits 0 once the answers are out.
#[test]
fn sigterm_lets_relayed_calls_in_flight_finish_and_refuses_new_ones() {
    let dir = TempDir::new("proxy-drain");
    let mut server = proxy_to_script(&dir, &["--drain-secs", "10"]);
    let (session, other) = (server.session(json!({})), server.session(json!({})));
    let mut streamed = call_in_flight(&server, &session, 2, "slow", json!({"ms": 1500}));
    let (mut legacy, endpoint) = crate::drain::legacy_session(&server);
    let slow = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "slow", "arguments": {"ms": 1500}, "_meta": {"progressToken": "t3"}}});
    assert_eq!(server.send("POST", &endpoint, &[JSON], &slow.to_string()).status, 202);
    let first = String::from_utf8(read_chunk(&mut legacy).expect("its progress")).unwrap();
    assert!(first.contains("notifications/progress"), "{first}");
    let started = Instant::now();
    crate::drain::sigterm(server.child.id());
    // New work is refused while the calls run.
    eventually("the proxy to refuse new work", || call(&server, &[], &other, 4, "echo").status == 503);
    let messages = messages_to_end(&mut streamed);
    let answer = messages.iter().find(|m| m.get("id") == Some(&json!(2))).expect("the call was answered");
    check(answer, json!({"id": 2, "result": {"content": [{"text": "slow done"}]}}));
    let messages = messages_to_end(&mut legacy);
    let answer = messages.iter().find(|m| m.get("id") == Some(&json!(3)));
    let answer = answer.unwrap_or_else(|| panic!("the legacy call was not answered: {messages:?}"));
    check(answer, json!({"id": 3, "result": {"content": [{"text": "slow done"}]}}));
    assert!(started.elapsed() >= Duration::from_millis(1000), "answered before the child finished?");
    let status = crate::drain::exit_within(&mut server, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
}

// A call the child never answers holds the drain only until `--drain-secs`: then it is answered
// with an error saying why, and the proxy exits.
#[test]
fn a_drain_ends_at_its_deadline_answering_what_the_child_did_not() {
    let dir = TempDir::new("proxy-drain-late");
    let mut server = proxy_to_script(&dir, &["--drain-secs", "1"]);
    let session = server.session(json!({}));
    let mut stuck = call_in_flight(&server, &session, 2, "slow", json!({"ms": 60000}));
    crate::drain::sigterm(server.child.id());
    let messages = messages_to_end(&mut stuck);
    let answer = messages.iter().find(|m| m.get("id") == Some(&json!(2)));
    let answer = answer.unwrap_or_else(|| panic!("the call was not answered: {messages:?}"));
    check(answer, json!({"id": 2, "error": {"code": -32603}}));
    let status = crate::drain::exit_within(&mut server, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
}

/// The pids a forking child (`forking_child`) wrote: its own and its grandchild's, per session.
fn forked_pids(file: &std::path::Path, sessions: usize) -> Vec<(u32, u32)> {
    let read = || -> Vec<(u32, u32)> {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        text.lines()
            .filter_map(|l| l.split_once(' '))
            .filter_map(|(c, g)| Some((c.parse().ok()?, g.parse().ok()?)))
            .collect()
    };
    eventually("the children to write their pids", || read().len() >= sessions);
    read()
}

/// `tinymcp proxy --http 127.0.0.1:0 ARGS`, and what it logs until it exits.
fn proxy_logging(args: &[&str]) -> (Server, std::thread::JoinHandle<String>) {
    let mut child = proxy_command(args).spawn().expect("spawn tinymcp proxy");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr piped")).lines().map_while(Result::ok);
    let mut log = String::new();
    let port = lines
        .by_ref()
        .inspect(|line| log.push_str(&format!("{line}\n")))
        .find_map(|line| line.split_once("listening on http://127.0.0.1:")?.1.split('/').next()?.parse().ok())
        .expect("the HTTP server did not start");
    let log = std::thread::spawn(move || {
        lines.for_each(|line| log.push_str(&format!("{line}\n")));
        log
    });
    (Server { child, port }, log)
}

/// Whether nothing is left of `pid`: no process, no zombie waiting to be reaped.
fn no_trace(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

// A server that forks (a language server, an `npx` wrapper) leaves a grandchild holding its
// stdout: the whole process group ends with the session (and with the proxy), the child is
// reaped without waiting for the grandchild's end of its stdout, and a normal end is logged as
// such, not as a SIGKILL warning.
#[test]
fn a_forking_child_leaves_no_grandchild_or_zombie_after_its_session_or_the_proxy() {
    let dir = TempDir::new("proxy-fork");
    let pids = dir.path().join("pids");
    let script = format!("sleep 1000 & echo \"$$ $!\" >> '{}'; exec \"$0\" --everything", pids.display());
    let (mut server, log) = proxy_logging(&["--", "sh", "-c", &script, binary()]);
    let one = server.session(json!({}));
    let (child, grandchild) = forked_pids(&pids, 1)[0];
    let deleted = server.send("DELETE", "/mcp", &[("Mcp-Session-Id", &one)], "");
    assert_eq!(deleted.status, 200);
    eventually("the session's grandchild to end", || no_trace(grandchild));
    eventually("the session's child to be reaped", || no_trace(child));

    let _two = server.session(json!({}));
    let (child, grandchild) = forked_pids(&pids, 2)[1];
    crate::drain::sigterm(server.child.id());
    let status = crate::drain::exit_within(&mut server, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    eventually("the grandchild to end with the proxy", || no_trace(grandchild));
    eventually("the child to end with the proxy", || process_gone(child));

    let log = log.join().expect("the log was read");
    assert!(log.contains("ended with its session"), "{log}");
    assert!(!log.contains("SIGKILL"), "a normal end logged as a kill: {log}");
    let warned: Vec<&str> = log.lines().filter(|l| l.contains("WARN") && l.contains("session #")).collect();
    assert!(warned.is_empty(), "a normal end logged as a warning: {warned:?}");
}

// An answer over the proxy's line limit (`--max-message-bytes`): the request fails at once
// with an error naming the limit and the flag, and the child, which did nothing wrong, goes
// on serving (the rest of its long line is skipped).
#[test]
fn an_answer_over_the_line_limit_fails_its_request_at_once_and_keeps_the_child() {
    let dir = TempDir::new("proxy-long");
    dir.write("big.txt", "a".repeat(2 << 20));
    let root = dir.path().to_str().expect("UTF-8 path");
    let mut client = Client::spawn_http(&[
        "proxy",
        "--http",
        "127.0.0.1:0",
        "--max-message-bytes",
        "1048576",
        "--answer-within-secs",
        "5",
        "--",
        binary(),
        "--root",
        root,
    ]);
    client.initialize("2025-11-25", json!({}));
    let listed = client.request("resources/list", json!({}));
    let uri = listed["result"]["resources"]
        .as_array()
        .and_then(|r| r.iter().find_map(|r| r["uri"].as_str().filter(|u| u.ends_with("big.txt"))))
        .unwrap_or_else(|| panic!("big.txt is listed: {listed}"))
        .to_owned();
    let read = client.request("resources/read", json!({"uri": uri}));
    let message = read["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("1048576") && message.contains("--max-message-bytes"), "{read}");
    // The same child answers the next request.
    let again = client.request("resources/list", json!({}));
    assert_eq!(again["result"], listed["result"], "{again}");
}
