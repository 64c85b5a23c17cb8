//! `--otlp URL`: spans exported over OTLP/HTTP as JSON. No OpenTelemetry Collector installs
//! from the package registries here, so the receiver is the test's own (a thread answering
//! POSTs), and every body it gets is read by OpenTelemetry's own protobuf definitions and their
//! strict JSON parser (PyPI `opentelemetry-proto` in .cache/otlp, from scripts/deps.sh): checked
//! against the format, not against a collector. The assertions follow one request from the
//! caller's `_meta.traceparent` to tinymcp's span (a child of the caller's) and to a command
//! tool's child span, whose id is the parent in the `TRACEPARENT` the command saw.

use crate::manifest::write_manifest;
use crate::raw_http::{proxy_command, Server};
use crate::stateless::{meta, REV};
use crate::stateless_http::{body, post};
use crate::support::{announced_port, binary, eventually, tool_text, wait_for, Client, TempDir};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

/// One POST the receiver got: its path, `Content-Type` and body.
#[derive(Clone, Debug)]
struct Post {
    path: String,
    content_type: String,
    body: String,
}

/// A loopback OTLP/HTTP receiver: answers each POST `200 {}` and keeps it.
struct Receiver {
    port: u16,
    posts: Arc<Mutex<Vec<Post>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let posts = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&posts);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
                let (mut length, mut content_type) = (0usize, String::new());
                loop {
                    let mut header = String::new();
                    reader.read_line(&mut header).unwrap();
                    let header = header.trim_end();
                    if header.is_empty() {
                        break;
                    }
                    let (name, value) = header.split_once(':').unwrap();
                    match name.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.trim().parse().unwrap(),
                        "content-type" => content_type = value.trim().to_owned(),
                        _ => {}
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                // Kept before it is answered: once the exporter has the answer, the test sees it.
                kept.lock().unwrap().push(Post { path, content_type, body: String::from_utf8(body).unwrap() });
                let mut stream = reader.into_inner();
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            }
        });
        Receiver { port, posts }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1/traces", self.port)
    }

    /// Every span received so far.
    fn spans(&self) -> Vec<Value> {
        let posts = self.posts.lock().unwrap();
        posts
            .iter()
            .flat_map(|post| {
                let body: Value = serde_json::from_str(&post.body).unwrap();
                let resource = &body["resourceSpans"][0];
                assert_eq!(
                    resource["resource"]["attributes"][0],
                    json!({"key": "service.name", "value": {"stringValue": "tinymcp"}}),
                    "{body}"
                );
                resource["scopeSpans"][0]["spans"].as_array().cloned().unwrap_or_default()
            })
            .collect()
    }

    /// Waits for a span named `name`.
    fn span(&self, name: &str) -> Value {
        self.span_of_kind(name, None)
    }

    /// Waits for a span named `name`, of this kind when given.
    fn span_of_kind(&self, name: &str, kind: Option<u64>) -> Value {
        wait_for(&format!("the span {name:?}"), crate::support::TIMEOUT, || {
            self.spans().into_iter().find(|s| s["name"] == name && kind.is_none_or(|k| s["kind"] == k))
        })
    }

    /// Every body read by OpenTelemetry's protobuf JSON parser (strict: an unknown field is an
    /// error), when .cache/otlp has it; else one line saying the check was skipped.
    fn check_format(&self) {
        let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cache/otlp/bin/python");
        if !python.exists() {
            let why = "otlp: skipped the check with opentelemetry-proto: run scripts/deps.sh to install it";
            let _ = writeln!(std::io::stderr(), "{why}");
            return;
        }
        let posts = self.posts.lock().unwrap().clone();
        for post in &posts {
            assert_eq!((post.path.as_str(), post.content_type.as_str()), ("/v1/traces", "application/json"));
        }
        let bodies: Vec<&str> = posts.iter().map(|p| p.body.as_str()).collect();
        let script = "import json, sys\n\
            from google.protobuf import json_format\n\
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest\n\
            n = 0\n\
            for body in json.load(sys.stdin):\n\
            \x20   request = json_format.Parse(body, ExportTraceServiceRequest())\n\
            \x20   n += sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)\n\
            print(n)\n";
        let mut child = Command::new(python)
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(serde_json::to_string(&bodies).unwrap().as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "opentelemetry-proto refused a body: {stderr}\nbodies: {bodies:?}");
        let parsed: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        // Counted in the same bodies (more may arrive meanwhile).
        let sent: usize = posts
            .iter()
            .map(|p| serde_json::from_str::<Value>(&p.body).unwrap())
            .map(|b| b["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().map_or(0, Vec::len))
            .sum();
        assert_eq!(parsed, sent, "the parser read every span");
    }
}

/// The value of attribute `key` of `span`.
fn attribute<'a>(span: &'a Value, key: &str) -> &'a Value {
    span["attributes"]
        .as_array()
        .and_then(|all| all.iter().find(|a| a["key"] == key))
        .map_or(&Value::Null, |a| &a["value"]["stringValue"])
}

/// A manifest with `trace`, which prints the `TRACEPARENT` it was given.
fn manifest(dir: &TempDir) -> String {
    write_manifest(
        dir,
        &json!({"tools": [
            {"name": "trace", "description": "prints its trace context",
             "command": ["sh", "-c", "printf '%s' \"$TRACEPARENT\""], "inputSchema": {"type": "object"}},
        ]}),
    )
}

#[test]
fn a_command_tools_call_is_a_span_of_the_callers_trace_with_the_commands_run_its_child() {
    let receiver = Receiver::start();
    let dir = TempDir::new("otlp-stdio");
    let file = manifest(&dir);
    let mut client = Client::spawn(&["--manifest", &file, "--otlp", &receiver.url()]);
    client.revision = Some(REV.into());
    let mut with_parent = meta(json!({}));
    with_parent["traceparent"] = json!(PARENT);
    let answer = client.request("tools/call", json!({"name": "trace", "arguments": {}, "_meta": with_parent}));
    let id = answer["id"].clone();
    // The command saw the caller's trace, with a span of tinymcp's as its parent.
    let seen = tool_text(&answer);
    let fields: Vec<&str> = seen.split('-').collect();
    assert_eq!(fields.len(), 4, "{seen}");
    assert_eq!((fields[0], fields[1], fields[3]), ("00", TRACE_ID, "01"), "{seen}");
    assert_ne!(fields[2], CALLER_SPAN, "tinymcp records, so the command's parent is a span of its own");

    let call = receiver.span("tools/call trace");
    assert_eq!(
        (&call["traceId"], &call["parentSpanId"], &call["kind"]),
        (&json!(TRACE_ID), &json!(CALLER_SPAN), &json!(2))
    );
    assert_eq!(attribute(&call, "mcp.method.name"), "tools/call");
    assert_eq!(attribute(&call, "gen_ai.tool.name"), "trace");
    assert_eq!(attribute(&call, "jsonrpc.request.id"), &json!(id.to_string().trim_matches('"')));
    assert!(call["status"].get("code").is_none(), "a call answered is no error: {call}");
    let run = receiver.span("run sh");
    assert_eq!(run["traceId"], TRACE_ID);
    assert_eq!(run["parentSpanId"], call["spanId"], "the run is a child of the call");
    assert_eq!(run["spanId"], fields[2], "the command's TRACEPARENT names the run's span");
    assert_eq!(run["kind"], 1);
    let (start, end) = (&call["startTimeUnixNano"], &call["endTimeUnixNano"]);
    let nanos = |v: &Value| v.as_str().and_then(|s| s.parse::<u128>().ok()).unwrap_or_else(|| panic!("{v}"));
    assert!(nanos(start) <= nanos(&run["startTimeUnixNano"]) && nanos(&run["endTimeUnixNano"]) <= nanos(end));

    // A request that fails is a span with an error status; one without a context begins a trace.
    let missing = client.request("tools/call", json!({"name": "nope", "arguments": {}, "_meta": meta(json!({}))}));
    assert!(missing.get("error").is_some(), "{missing}");
    let failed = receiver.span("tools/call nope");
    assert_eq!(failed["status"]["code"], 2, "{failed}");
    assert_eq!(attribute(&failed, "error.type"), &json!(missing["error"]["code"].to_string()));
    assert!(failed.get("parentSpanId").is_none(), "a trace begun here: {failed}");
    assert_ne!(failed["traceId"], TRACE_ID);
    client.close();
    receiver.check_format();
}

// The proxy records too: its span of the request, and a child span of the call it relays,
// whose id is the parent in the `_meta` the proxied server reads (and gives its command).
#[test]
fn a_proxied_call_is_a_client_span_whose_id_the_proxied_server_sees() {
    let receiver = Receiver::start();
    let dir = TempDir::new("otlp-proxy");
    let file = manifest(&dir);
    let url = receiver.url();
    let mut child = proxy_command(["--otlp", &url, "--", binary(), "--manifest", &file]).spawn().unwrap();
    let port = announced_port(&mut child);
    let server = Server { child, port };
    let mut with_parent = meta(json!({}));
    with_parent["traceparent"] = json!(PARENT);
    let params = json!({"name": "trace", "arguments": {}, "_meta": with_parent});
    let reply = post(&server, &body(1, "tools/call", params, json!({})), &[]);
    let seen = tool_text(&reply.json());
    let fields: Vec<&str> = seen.split('-').collect();
    assert_eq!((fields.len(), fields[1]), (4, TRACE_ID), "{seen}");

    let served = receiver.span_of_kind("tools/call trace", Some(2));
    assert_eq!((&served["traceId"], &served["parentSpanId"]), (&json!(TRACE_ID), &json!(CALLER_SPAN)));
    let relayed = receiver.span_of_kind("tools/call trace", Some(3));
    assert_eq!(relayed["parentSpanId"], served["spanId"], "the relayed call is a child of the request");
    assert_eq!(relayed["spanId"], fields[2], "the proxied server's parent is the relayed call's span");
    assert_eq!(attribute(&relayed, "mcp.method.name"), "tools/call");
    receiver.check_format();
}

// The spans of a session's last requests are sent before the process exits (stdin's end).
#[test]
fn the_last_spans_are_sent_before_the_process_exits() {
    let receiver = Receiver::start();
    let mut client = Client::spawn(&["--otlp", &receiver.url()]);
    client.initialize("2025-11-25", json!({}));
    client.request("ping", json!({}));
    client.close();
    let spans = receiver.spans();
    assert!(spans.iter().any(|s| s["name"] == "ping"), "{spans:?}");
    receiver.check_format();
}

// Without --otlp the context is passed on exactly as it came (tests/it/trace.rs has the rest).
#[test]
fn without_otlp_the_command_sees_the_callers_own_span() {
    let dir = TempDir::new("otlp-off");
    let file = manifest(&dir);
    let mut client = Client::spawn(&["--manifest", &file, "--trace"]);
    client.initialize("2025-11-25", json!({}));
    let answer =
        client.request("tools/call", json!({"name": "trace", "arguments": {}, "_meta": {"traceparent": PARENT}}));
    assert_eq!(tool_text(&answer), PARENT);
    client.close();
}

#[test]
fn an_unreachable_collector_costs_the_requests_nothing_and_is_warned_of_once() {
    // A port nobody listens on: bound, then freed.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1/traces");
    let dir = TempDir::new("otlp-down");
    let file = manifest(&dir);
    let mut client = Client::spawn_keeping_stderr(&["--manifest", &file, "--otlp", &url]);
    client.initialize("2025-11-25", json!({}));
    for _ in 0..3 {
        let answer = client.request("tools/call", json!({"name": "trace", "arguments": {}}));
        assert!(tool_text(&answer).starts_with("00-"), "{answer}");
    }
    eventually("the warning", || client.stderr_text().contains("--otlp:"));
    // More spans, another failed export: still the one warning (once a minute at most).
    client.request("ping", json!({}));
    let log = client.close_keeping_stderr();
    assert_eq!(log.matches("--otlp:").count(), 1, "{log}");
    assert!(log.contains(&url) && log.contains("failed"), "{log}");
}

#[test]
fn a_bad_otlp_url_is_refused_at_start() {
    let out = crate::support::run_binary(&["--otlp", "ftp://collector/v1/traces"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--otlp") && stderr.contains("http://HOST"), "{stderr}");
}
