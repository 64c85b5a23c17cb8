//! A client that goes away cancels what it asked for: over HTTP a 2026-07-28
//! `tools/call` whose client closes the TCP connection mid-call has its handler cancelled (the
//! command it runs is killed), whether it was waiting for a JSON answer or already streaming
//! SSE; over stdio, end of input while a call runs ends the process promptly, the command
//! killed and nothing written after.

use crate::raw_http::{read_chunk, read_head, write_request, Server, ACCEPT_BOTH, JSON};
use crate::stateless::{meta, REV};
use crate::support::{binary, eventually, process_gone, wait_for, TempDir, TIMEOUT};
use serde_json::json;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// A manifest with `slow`: a command that writes its pid to `pid`, prints a line, and sleeps a minute.
fn slow_manifest(dir: &TempDir) -> String {
    let manifest = json!({"tools": [{"name": "slow", "description": "sleeps a minute",
        "command": ["sh", "-c", "echo $$ > pid; echo working; exec sleep 60"]}]});
    let file = dir.write("manifest.json", manifest.to_string());
    file.to_str().expect("utf-8 path").to_owned()
}

/// The pid the command wrote, once it runs.
fn started(dir: &Path) -> u32 {
    let file = dir.join("pid");
    eventually("the command to start", || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.trim().parse::<u32>().is_ok())
    });
    std::fs::read_to_string(&file).expect("pid").trim().parse().expect("a pid")
}

fn call(id: u64, progress: bool) -> String {
    let mut meta = meta(json!({}));
    if progress {
        meta["progressToken"] = json!("p");
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "slow", "arguments": {}, "_meta": meta}})
        .to_string()
}

const HEADERS: [(&str, &str); 5] =
    [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", REV), ("Mcp-Method", "tools/call"), ("Mcp-Name", "slow")];

#[test]
fn over_http_hanging_up_on_a_call_waiting_for_its_answer_cancels_it() {
    let dir = TempDir::new("hangup-json");
    let server = Server::start(&["--manifest", &slow_manifest(&dir)], &[]);
    let mut stream = server.connect();
    write_request(&mut stream, server.port, "POST", "/mcp", &HEADERS, &call(1, false));
    let pid = started(dir.path());
    assert!(!process_gone(pid), "the command runs while the client waits");
    drop(stream);
    // Noticed within a second's slice, then the handler's process group is killed.
    eventually("the cancelled command to be killed", || process_gone(pid));
    // The server goes on serving.
    let reply =
        crate::stateless_http::post(&server, &crate::stateless_http::body(2, "tools/list", json!({}), json!({})), &[]);
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[test]
fn over_http_hanging_up_on_a_streaming_call_cancels_it() {
    let dir = TempDir::new("hangup-sse");
    let server = Server::start(&["--manifest", &slow_manifest(&dir)], &[]);
    let mut stream = server.connect();
    write_request(&mut stream, server.port, "POST", "/mcp", &HEADERS, &call(1, true));
    let mut reader = BufReader::new(stream);
    // Progress comes first, so the answer is an SSE stream.
    let head = read_head(&mut reader);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("text/event-stream"));
    let event = String::from_utf8(read_chunk(&mut reader).expect("an event")).expect("UTF-8");
    assert!(event.contains("notifications/progress"), "{event}");
    let pid = started(dir.path());
    drop(reader);
    eventually("the cancelled command to be killed", || process_gone(pid));
}

#[test]
fn over_stdio_end_of_input_during_a_call_ends_promptly_and_writes_nothing_after() {
    let dir = TempDir::new("hangup-stdio");
    let mut child = Command::new(binary())
        .args(["--manifest", &slow_manifest(&dir)])
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tinymcp");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{}", call(1, false)).expect("write the call");
    let pid = started(dir.path());
    drop(stdin);
    // In-flight requests get a 2 s grace to answer, then are cancelled: the server exits long
    // before the command would end.
    let status = wait_for("the server to exit after end of input", TIMEOUT, || child.try_wait().expect("wait"));
    assert!(status.success(), "{status}");
    assert!(process_gone(pid), "the command outlived the server");
    let mut out = String::new();
    child.stdout.take().expect("stdout").read_to_string(&mut out).expect("read stdout");
    assert_eq!(out, "", "nothing is written for a call cancelled by end of input");
}
