//! `--metrics`: a scripted load against the real binary (echo calls, a failing tool, a refused
//! token, a request from a foreign `Host`, a session opened and closed), then `/metrics` scraped
//! and read back in the Prometheus text format; on the `--http` listener behind its checks, and
//! on a loopback listener of its own for a stdio server.

use crate::raw_http::{initialize, Server, ACCEPT_BOTH, JSON};
use crate::support::{binary, eventually};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

const TOKEN: &str = "metrics-token-0123456789";

/// The value of the sample whose name and labels are exactly `series`.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn value(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"))
}

#[test]
fn a_scripted_session_is_counted_and_scraped_behind_the_listeners_checks() {
    let server = Server::start(&["--metrics"], &[("TINYMCP_TOKEN", TOKEN)]);
    let bearer = format!("Bearer {TOKEN}");
    let auth = ("Authorization", bearer.as_str());
    let scrape = || {
        let reply = server.send("GET", "/metrics", &[auth], "");
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.header("content-type"), Some("text/plain; version=0.0.4; charset=utf-8"));
        reply.body
    };
    // A session opened.
    let opened = server.post(&[auth], &initialize(json!({})));
    assert_eq!(opened.status, 200, "{}", opened.body);
    let id = opened.header("mcp-session-id").expect("Mcp-Session-Id").to_owned();
    let session = ("Mcp-Session-Id", id.as_str());
    let call = |n: u64, name: &str, arguments: Value| {
        let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
        server.post(&[auth, session], &body).json()
    };
    assert_eq!(
        server.post(&[auth, session], &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).status,
        202
    );
    for n in 0..3 {
        let answer = call(10 + n, "echo", json!({"message": format!("m{n}")}));
        assert!(answer["result"]["isError"] != json!(true), "{answer}");
    }
    // A tool that fails (isError), and an unknown one (-32602).
    assert_eq!(call(20, "test_error_handling", json!({}))["result"]["isError"], true);
    assert_eq!(call(21, "no_such_tool", json!({}))["error"]["code"], -32602);
    // A refused token, and a request from a page's foreign Host.
    let wrong = server.post(&[("Authorization", "Bearer not-the-token-0123456789")], &initialize(json!({})));
    assert_eq!(wrong.status, 401);
    let foreign = server.send("POST", "/mcp", &[auth, ACCEPT_BOTH, JSON, ("Host", "evil.example")], "{}");
    assert_eq!(foreign.status, 403);
    // The scrape itself is behind the same checks.
    assert_eq!(server.send("GET", "/metrics", &[], "").status, 401);
    assert_eq!(server.send("GET", "/metrics", &[auth, ("Host", "evil.example")], "").status, 403);

    let during = scrape();
    assert_eq!(value(&during, "tinymcp_sessions_open"), 1.0);
    assert_eq!(value(&during, "tinymcp_tool_calls_total{tool=\"echo\",outcome=\"ok\"}"), 3.0);
    assert_eq!(value(&during, "tinymcp_tool_calls_total{tool=\"test_error_handling\",outcome=\"is_error\"}"), 1.0);
    assert_eq!(value(&during, "tinymcp_tool_calls_total{tool=\"test_error_handling\",outcome=\"ok\"}"), 0.0);
    assert_eq!(value(&during, "tinymcp_tool_duration_seconds_count{tool=\"echo\"}"), 3.0);
    assert_eq!(value(&during, "tinymcp_tool_duration_seconds_bucket{tool=\"echo\",le=\"+Inf\"}"), 3.0);
    assert_eq!(value(&during, "tinymcp_requests_total{method=\"tools/call\",outcome=\"result\"}"), 4.0);
    assert_eq!(value(&during, "tinymcp_requests_total{method=\"tools/call\",outcome=\"-32602\"}"), 1.0);
    assert_eq!(value(&during, "tinymcp_requests_total{method=\"initialize\",outcome=\"result\"}"), 1.0);
    assert_eq!(value(&during, "tinymcp_request_duration_seconds_count{method=\"tools/call\"}"), 5.0);
    assert_eq!(value(&during, "tinymcp_refusals_total{reason=\"auth\"}"), 2.0);
    assert_eq!(value(&during, "tinymcp_refusals_total{reason=\"host_origin\"}"), 2.0);
    assert_eq!(value(&during, "tinymcp_http_responses_total{status=\"401\"}"), 2.0);
    assert_eq!(value(&during, "tinymcp_http_responses_total{status=\"403\"}"), 2.0);
    assert_eq!(value(&during, "tinymcp_requests_in_flight"), 0.0);
    assert!(value(&during, "tinymcp_received_bytes_total") > 0.0 && value(&during, "tinymcp_sent_bytes_total") > 0.0);
    // No client can grow the label set: the unknown tool has no label of its own.
    assert!(!during.contains("no_such_tool"), "{during}");

    // The session closed.
    assert_eq!(server.send("DELETE", "/mcp", &[auth, session], "").status, 200);
    let after = scrape();
    assert_eq!(value(&after, "tinymcp_sessions_open"), 0.0);
    assert!(value(&after, "tinymcp_http_responses_total{status=\"200\"}") >= 6.0, "{after}");
}

#[test]
fn without_the_flag_there_is_no_metrics_path() {
    let server = Server::start(&[], &[]);
    assert_eq!(server.send("GET", "/metrics", &[], "").status, 404);
}

/// A stdio server has no HTTP listener: `--metrics ADDR` gives the metrics one of their own,
/// on loopback, with the same `Host` check.
#[test]
fn a_stdio_server_serves_its_metrics_on_a_loopback_listener_of_their_own() {
    let mut child = Command::new(binary())
        .args(["--everything", "--metrics", "127.0.0.1:0"])
        .env("RUST_LOG", "tinymcp=info")
        .env_remove("TINYMCP_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tinymcp");
    let stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let port: u16 = stderr
        .lines()
        .map_while(Result::ok)
        .find_map(|line| line.split_once("metrics on http://127.0.0.1:")?.1.split('/').next()?.parse().ok())
        .expect("the metrics listener did not start");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    for message in [
        initialize(json!({})),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "x"}}}),
    ] {
        writeln!(stdin, "{message}").expect("write");
        if message.get("id").is_some() {
            line.clear();
            stdout.read_line(&mut line).expect("an answer");
        }
    }
    assert!(line.contains("\"id\":2"), "{line}");
    let get = |host: &str| {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        write!(stream, "GET /metrics HTTP/1.1\r\nHost: {host}\r\n\r\n").expect("write");
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("read");
        text
    };
    assert!(get("evil.example").starts_with("HTTP/1.1 403"));
    let text = get(&format!("127.0.0.1:{port}"));
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert_eq!(value(&text, "tinymcp_tool_calls_total{tool=\"echo\",outcome=\"ok\"}"), 1.0);
    assert_eq!(value(&text, "tinymcp_requests_total{method=\"initialize\",outcome=\"result\"}"), 1.0);
    assert!(value(&text, "tinymcp_received_bytes_total") > 0.0);
    assert!(value(&text, "tinymcp_sent_bytes_total") > 0.0);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn metrics_with_no_address_needs_the_http_listener() {
    let out = Command::new(binary()).args(["--everything", "--metrics"]).stdin(Stdio::null()).output().expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--metrics with no address serves /metrics on the --http listener"), "{stderr}");
}

/// `tinymcp proxy --metrics`: a session's child counted while it runs, the relayed requests'
/// latency, and the child gone once the session is closed.
#[test]
fn the_proxy_counts_its_children_and_their_latency() {
    let server = Server::proxy(&["--metrics", "--", binary(), "--everything"]);
    let scrape = || {
        let reply = server.send("GET", "/metrics", &[], "");
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.body
    };
    assert_eq!(value(&scrape(), "tinymcp_proxy_children_running"), 0.0);
    let opened = server.post(&[], &initialize(json!({})));
    assert_eq!(opened.status, 200, "{}", opened.body);
    let id = opened.header("mcp-session-id").expect("Mcp-Session-Id").to_owned();
    let session = ("Mcp-Session-Id", id.as_str());
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "x"}}});
    assert_eq!(server.post(&[session], &call).json()["result"]["content"][0]["text"], "Echo: x");
    let during = scrape();
    assert_eq!(value(&during, "tinymcp_proxy_children_running"), 1.0);
    assert_eq!(value(&during, "tinymcp_sessions_open"), 1.0);
    // The relay's initialize and the call, at least, were answered by the child.
    assert!(value(&during, "tinymcp_upstream_duration_seconds_count") >= 2.0, "{during}");
    assert_eq!(value(&during, "tinymcp_proxy_child_restarts_total"), 0.0);
    // A relayed request is one served, by its method, timed from its sending to the answer.
    assert_eq!(value(&during, "tinymcp_requests_total{method=\"tools/call\",outcome=\"result\"}"), 1.0);
    assert_eq!(value(&during, "tinymcp_request_duration_seconds_count{method=\"tools/call\"}"), 1.0);
    assert_eq!(server.send("DELETE", "/mcp", &[session], "").status, 200);
    eventually("the session's child to be reaped", || sample(&scrape(), "tinymcp_proxy_children_running") == Some(0.0));
}
