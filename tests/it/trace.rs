//! Trace context end to end (SEP-414, W3C Trace Context) and the JSON log: a request's
//! `traceparent` (in its `_meta`, or the HTTP header) reaches every JSON log line of that
//! request, a command tool's environment (`TRACEPARENT`, `TRACESTATE`) and a proxied server's
//! `_meta` (seen by the command tool the proxied tinymcp runs); an invalid one is ignored; and
//! no token, `Authorization` value or sensitive tool's argument is ever logged, even at trace.

use crate::manifest::write_manifest;
use crate::raw_http::{proxy_command, Server};
use crate::stateless::{meta, REV};
use crate::stateless_http::{body, post};
use crate::support::{announced_port_keeping_log, binary, eventually, logged, tool_text, Client, Log, TempDir};
use serde_json::{json, Value};

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const STATE: &str = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
/// Another valid context, for the header path.
const HEADER_PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const HEADER_TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";

/// A manifest with `trace` (prints its TRACEPARENT and TRACESTATE, `|` between), `login`
/// (sensitive: its password must never be logged) and `note` (its argument may be).
fn manifest(dir: &TempDir) -> String {
    let printer = "printf '%s|%s' \"$TRACEPARENT\" \"$TRACESTATE\"";
    let password = json!({"type": "object", "properties": {"password": {"type": "string"}}});
    let text = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    write_manifest(
        dir,
        &json!({"tools": [
            {"name": "trace", "description": "prints its trace context", "command": ["sh", "-c", printer],
             "inputSchema": {"type": "object"}},
            {"name": "login", "description": "takes a secret", "command": ["true", "{{password}}"],
             "inputSchema": password, "sensitive": true},
            {"name": "note", "description": "takes a note", "command": ["true", "{{text}}"], "inputSchema": text},
        ]}),
    )
}

/// Every line of `log` as a JSON object: a line that is not one fails the test.
fn json_lines(log: &str) -> Vec<Value> {
    log.lines()
        .filter(|line| !line.is_empty())
        .map(|line| match serde_json::from_str::<Value>(line) {
            Ok(value @ Value::Object(_)) => value,
            _ => panic!("a log line that is not a JSON object: {line:?}\nin:\n{log}"),
        })
        .collect()
}

/// The log lines of the request with this id.
fn lines_of(lines: &[Value], id: Value) -> Vec<&Value> {
    lines.iter().filter(|l| l["id"] == id).collect()
}

/// `_meta` of a 2026-07-28 request with `members` added.
fn meta_with(members: Value) -> Value {
    let mut meta = meta(json!({}));
    meta.as_object_mut().unwrap().extend(members.as_object().unwrap().clone());
    meta
}

fn kept(log: &Log) -> String {
    log.lock().unwrap().clone()
}

#[test]
fn a_stdio_request_at_2026_is_followed_through_the_json_log_into_a_command_tools_environment() {
    let dir = TempDir::new("trace-stdio");
    let file = manifest(&dir);
    let mut client = Client::spawn_keeping_stderr(&["--manifest", &file, "--log-format", "json"]);
    client.revision = Some(REV.into());
    let params = json!({"name": "trace", "arguments": {},
                        "_meta": meta_with(json!({"traceparent": PARENT, "tracestate": STATE}))});
    let answer = client.request("tools/call", params);
    assert_eq!(tool_text(&answer), format!("{PARENT}|{STATE}"), "{answer}");
    let id = answer["id"].clone();
    let log = client.close_keeping_stderr();
    let lines = json_lines(&log);
    let ours = lines_of(&lines, id);
    assert!(ours.len() >= 2, "the command run and the answer, at least: {log}");
    for line in &ours {
        assert_eq!(line["trace_id"], TRACE_ID, "{line}");
        assert_eq!(
            (&line["method"], &line["tool"], &line["client"]),
            (&json!("tools/call"), &json!("trace"), &json!("it"))
        );
        let time = line["time"].as_str().unwrap_or_default();
        assert!(time.ends_with('Z') && time.len() == 24, "RFC 3339 UTC: {line}");
        assert!(line["level"].is_string() && line["target"].is_string() && line["message"].is_string(), "{line}");
    }
    // The command tool's own line (the provider logs it) and the answer's, with its duration.
    assert!(ours.iter().any(|l| l["message"].as_str().is_some_and(|m| m.starts_with("running"))), "{log}");
    let done = ours.iter().find(|l| l["target"] == "tinymcp::request").unwrap_or_else(|| panic!("{log}"));
    assert!(done["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{done}");
}

// In a handshake session the context comes in `_meta` too (SEP-414 is not tied to a
// revision), and the log names the client `initialize` named.
#[test]
fn a_session_request_is_followed_too_and_its_lines_name_the_client() {
    let dir = TempDir::new("trace-session");
    let file = manifest(&dir);
    let mut client = Client::spawn_keeping_stderr(&["--manifest", &file, "--log-format", "json"]);
    client.initialize("2025-11-25", json!({}));
    // Answered on the reader, before the session named its client: its end line still comes.
    client.request("ping", json!({"_meta": {"traceparent": HEADER_PARENT}}));
    let params = json!({"name": "trace", "arguments": {}, "_meta": {"traceparent": PARENT}});
    let answer = client.request("tools/call", params);
    assert_eq!(tool_text(&answer), format!("{PARENT}|"), "{answer}");
    let id = answer["id"].clone();
    let log = client.close_keeping_stderr();
    let lines = json_lines(&log);
    let ours = lines_of(&lines, id);
    assert!(ours.len() >= 2, "{log}");
    assert!(ours.iter().all(|l| l["trace_id"] == TRACE_ID && l["client"] == "it"), "{log}");
    let ping = lines.iter().find(|l| l["method"] == "ping" && l["target"] == "tinymcp::request");
    assert!(ping.is_some_and(|l| l["trace_id"] == HEADER_TRACE_ID && l["duration_ms"].is_number()), "{log}");
    // Every request has one (initialize too, with a fresh context: tracing is on).
    let ends = lines.iter().filter(|l| l["target"] == "tinymcp::request").count();
    assert_eq!(ends, 3, "initialize, ping, the call: {log}");
}

#[test]
fn an_http_request_at_2026_carries_its_trace_id_into_the_log_and_the_command() {
    let dir = TempDir::new("trace-http");
    let file = manifest(&dir);
    let (server, log) =
        Server::start_keeping_log(&["--manifest", &file, "--log-format", "json"], &[("RUST_LOG", "trace")]);
    let params = json!({"name": "trace", "arguments": {}, "_meta": meta_with(json!({"traceparent": PARENT}))});
    let reply = post(&server, &body(41, "tools/call", params, json!({})), &[]);
    assert_eq!(tool_text(&reply.json()), format!("{PARENT}|"), "{}", reply.body);
    eventually("the answer's log line", || logged(&log, "\"target\":\"tinymcp::request\""));
    let log = kept(&log);
    let lines = json_lines(&log);
    let ours = lines_of(&lines, json!(41));
    assert!(ours.len() >= 2, "{log}");
    assert!(ours.iter().all(|l| l["trace_id"] == TRACE_ID), "{log}");
}

// Without `_meta.traceparent`, the HTTP `traceparent` header gives the context: at 2026-07-28
// and in a session; `_meta` wins over the header when both come. No `--trace` here: a
// request's own context is passed on whether tracing is on or not.
#[test]
fn the_http_traceparent_header_is_the_context_of_a_request_without_one_in_meta() {
    let dir = TempDir::new("trace-header");
    let file = manifest(&dir);
    let server = Server::start(&["--manifest", &file], &[]);
    let headers = [("traceparent", HEADER_PARENT), ("tracestate", "k=v")];
    let call = json!({"name": "trace", "arguments": {}});
    let reply = post(&server, &body(1, "tools/call", call.clone(), json!({})), &headers);
    assert_eq!(tool_text(&reply.json()), format!("{HEADER_PARENT}|k=v"), "{}", reply.body);

    let params = json!({"name": "trace", "arguments": {}, "_meta": meta_with(json!({"traceparent": PARENT}))});
    let both = post(&server, &body(2, "tools/call", params, json!({})), &headers);
    assert_eq!(tool_text(&both.json()), format!("{PARENT}|"), "_meta wins: {}", both.body);

    let session = server.session(json!({}));
    let message = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call});
    let in_session = server.post(
        &[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "2025-11-25"), headers[0], headers[1]],
        &message,
    );
    let answer = in_session.events().into_iter().map(|(_, e)| e).find(|e| e["id"] == 3);
    let answer = answer.unwrap_or_else(|| in_session.json());
    assert_eq!(tool_text(&answer), format!("{HEADER_PARENT}|k=v"), "{}", in_session.body);
}

// An invalid traceparent is ignored: with tracing on the request gets a fresh valid one (the
// garbage reaches neither the command nor the log); with tracing off, none at all.
#[test]
fn an_invalid_traceparent_is_ignored_and_replaced_by_a_fresh_one_when_tracing() {
    let dir = TempDir::new("trace-invalid");
    let file = manifest(&dir);
    let garbage = "00-NOT-A-TRACE-PARENT-garbage-01";
    let call = |server: &Server, id: u64| {
        let params = json!({"name": "trace", "arguments": {},
                            "_meta": meta_with(json!({"traceparent": garbage, "tracestate": "k=v"}))});
        tool_text(&post(server, &body(id, "tools/call", params, json!({})), &[]).json())
    };
    let (server, log) =
        Server::start_keeping_log(&["--manifest", &file, "--log-format", "json"], &[("RUST_LOG", "tinymcp=info")]);
    let seen = call(&server, 7);
    let (fresh, state) = seen.split_once('|').unwrap();
    assert_eq!(state, "", "a tracestate goes with its traceparent only: {seen}");
    let parts: Vec<&str> = fresh.split('-').collect();
    assert_eq!(parts.len(), 4, "{seen}");
    assert!(parts[1].len() == 32 && parts[1].bytes().all(|b| b.is_ascii_hexdigit()), "{seen}");
    eventually("the answer's log line", || logged(&log, "\"target\":\"tinymcp::request\""));
    let log = kept(&log);
    assert!(!log.contains("NOT-A-TRACE"), "{log}");
    let lines = json_lines(&log);
    assert!(lines_of(&lines, json!(7)).iter().all(|l| l["trace_id"] == parts[1]), "{log}");

    let quiet = Server::start(&["--manifest", &file], &[]);
    assert_eq!(call(&quiet, 8), "|", "tracing off: no context at all");
}

// The proxy passes the context on in the `_meta` its child reads: the child (tinymcp with the
// manifest) gives it to its command tool. From `_meta` and from the header, at 2026-07-28 (the
// shared child) and in a session (a child of its own).
#[test]
fn a_proxied_server_gets_the_trace_context_in_its_meta() {
    let dir = TempDir::new("trace-proxy");
    let file = manifest(&dir);
    let mut child = proxy_command(["--log-format", "json", "--", binary(), "--manifest", &file]).spawn().unwrap();
    let (port, log) = announced_port_keeping_log(&mut child);
    let server = Server { child, port };
    let params = json!({"name": "trace", "arguments": {},
                        "_meta": meta_with(json!({"traceparent": PARENT, "tracestate": STATE}))});
    let reply = post(&server, &body(1, "tools/call", params, json!({})), &[]);
    assert_eq!(tool_text(&reply.json()), format!("{PARENT}|{STATE}"), "{}", reply.body);

    let call = json!({"name": "trace", "arguments": {}});
    let headers = [("traceparent", HEADER_PARENT)];
    let reply = post(&server, &body(2, "tools/call", call.clone(), json!({})), &headers);
    assert_eq!(tool_text(&reply.json()), format!("{HEADER_PARENT}|"), "{}", reply.body);
    // The proxy's own lines for it name the trace too: relayed, then answered, how long after.
    eventually("the proxy's end line", || {
        json_lines(&kept(&log)).iter().any(|l| {
            l["id"] == 2
                && l["trace_id"] == HEADER_TRACE_ID
                && l["message"].as_str().is_some_and(|m| m.starts_with("answered by the proxied server"))
                && l["duration_ms"].is_number()
        })
    });

    let session = server.session(json!({}));
    let message = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call});
    let in_session =
        server.post(&[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "2025-11-25"), headers[0]], &message);
    let answer = in_session.events().into_iter().map(|(_, e)| e).find(|e| e["id"] == 3);
    let answer = answer.unwrap_or_else(|| in_session.json());
    assert_eq!(tool_text(&answer), format!("{HEADER_PARENT}|"), "{}", in_session.body);

    // With `--log-format json` the proxy traces: a request with none gets a fresh context,
    // which its child sees.
    let reply = post(&server, &body(4, "tools/call", call, json!({})), &[]);
    let seen = tool_text(&reply.json());
    assert!(seen.starts_with("00-") && seen.len() == PARENT.len() + 1, "{seen}");
}

// Secrets never reach the log, even at trace level with every frame logged: the bearer token
// (right or wrong), the `Authorization` header, and the arguments of a tool marked sensitive.
// A tool that is not sensitive has its arguments logged, which shows the frames were.
#[test]
fn tokens_authorization_and_sensitive_arguments_are_never_logged() {
    let dir = TempDir::new("trace-secrets");
    let file = manifest(&dir);
    let token = "right-token-0123456789abcdef";
    let (server, log) = Server::start_keeping_log(
        &["--manifest", &file, "--log-format", "json"],
        &[("RUST_LOG", "trace"), ("TINYMCP_TOKEN", token)],
    );
    let bearer = format!("Bearer {token}");
    let call = |id: u64, name: &str, arguments: Value, authorization: &str| {
        let params = json!({"name": name, "arguments": arguments});
        post(&server, &body(id, "tools/call", params, json!({})), &[("Authorization", authorization)])
    };
    let refused = call(1, "note", json!({"text": "x"}), "Bearer wrong-token-0123456789abcdef");
    assert_eq!(refused.status, 401, "{}", refused.body);
    let secret = call(2, "login", json!({"password": "hunter2-secret-password"}), &bearer);
    assert_eq!(secret.status, 200, "{}", secret.body);
    let note = call(3, "note", json!({"text": "visible-note-text"}), &bearer);
    assert_eq!(note.status, 200, "{}", note.body);
    eventually("the note's frame", || logged(&log, "visible-note-text"));
    eventually("the note's answer", || {
        json_lines(&kept(&log)).iter().any(|l| l["id"] == 3 && l["target"] == "tinymcp::request")
    });
    let log = kept(&log);
    json_lines(&log);
    for secret in [token, "wrong-token-0123456789abcdef", "Bearer", "hunter2-secret-password"] {
        assert!(!log.contains(secret), "{secret:?} logged:\n{log}");
    }
    assert!(!log.to_ascii_lowercase().contains("authorization:"), "{log}");
    assert!(log.contains("[redacted]"), "the sensitive call's frame, its arguments redacted: {log}");
}

// `--trace` without JSON: the text lines name the request too, after the message.
#[test]
fn trace_in_text_adds_the_request_to_its_lines() {
    let dir = TempDir::new("trace-text");
    let file = manifest(&dir);
    let mut client = Client::spawn_keeping_stderr(&["--manifest", &file, "--trace"]);
    client.revision = Some(REV.into());
    let params = json!({"name": "trace", "arguments": {}, "_meta": meta_with(json!({"traceparent": PARENT}))});
    let answer = client.request("tools/call", params);
    assert_eq!(tool_text(&answer), format!("{PARENT}|"), "{answer}");
    let log = client.close_keeping_stderr();
    let ours = format!("(trace_id={TRACE_ID} method=tools/call id={} tool=trace", answer["id"]);
    let end = log.lines().find(|l| l.contains("tinymcp::request] answered in")).unwrap_or_else(|| panic!("{log}"));
    assert!(end.contains(&ours) && end.contains("duration_ms="), "{end}");
    assert!(log.lines().any(|l| l.contains("running") && l.contains(&ours)), "{log}");
}
