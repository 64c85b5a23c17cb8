//! `tinymcp connect URL`: a host speaking stdio to the bridge, the bridge speaking HTTP to a
//! real `tinymcp --http` server.

use crate::support::{announced_port_keeping_log, binary, logged, tool_text, wait_until, Client, Log, TIMEOUT};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// A `tinymcp --everything --http` server on a free port, killed when dropped.
pub(crate) struct Remote {
    child: Child,
    pub(crate) port: u16,
    /// What it logs (`RUST_LOG=info` unless `env` says otherwise).
    log: Log,
}

impl Remote {
    pub(crate) fn start(args: &[&str]) -> Remote {
        Self::start_with_env(args, &[])
    }

    fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Remote {
        let mut child = Command::new(binary())
            .args(["--everything", "--http", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the remote server");
        let (port, log) = announced_port_keeping_log(&mut child);
        Remote { child, port, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn streamable_http_carries_answers_progress_and_server_requests() {
    let remote = Remote::start(&[]);
    let mut host = Client::spawn(&["connect", &remote.url("/mcp")]);
    let init = host.initialize("2025-11-25", json!({"sampling": {}}));
    assert_eq!(init["protocolVersion"], "2025-11-25");

    let echo = host.call_tool("echo", json!({"message": "over the bridge"}));
    assert_eq!(tool_text(&echo), "Echo: over the bridge");

    let call = host.send_request(
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p1"}}),
    );
    let progress = host.wait(|m| m["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(tool_text(&host.response(&call)), "Progress reported");

    let call = host.send_request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hello"}}));
    let ask = host.wait(|m| m["method"] == "sampling/createMessage");
    assert_eq!(ask["params"]["messages"][0]["content"]["text"], "hello");
    host.answer(
        &ask["id"],
        json!({"role": "assistant", "content": {"type": "text", "text": "hi back"}, "model": "test"}),
    );
    assert_eq!(tool_text(&host.response(&call)), "LLM response: hi back");

    assert!(host.close().success(), "connect exits 0 at end of input");
}

/// Initializes, calls `echo` and ends: the bridge worked end to end.
fn echo_through(mut host: Client, revision: &str) {
    host.initialize(revision, json!({}));
    let echo = host.call_tool("echo", json!({"message": "through"}));
    assert_eq!(tool_text(&echo), "Echo: through");
    assert!(host.close().success(), "connect exits 0 at end of input");
}

#[test]
fn legacy_sse_is_spoken_when_asked() {
    let remote = Remote::start(&[]);
    echo_through(Client::spawn(&["connect", "--transport", "sse", &remote.url("/sse")]), "2024-11-05");
}

#[test]
fn auto_falls_back_to_legacy_sse_where_streamable_http_is_refused() {
    let remote = Remote::start(&[]);
    // tinymcp answers a POST to /sse with 404: auto then opens the legacy stream there.
    echo_through(Client::spawn(&["connect", &remote.url("/sse")]), "2024-11-05");
    echo_through(Client::spawn(&["connect", "--transport", "auto", &remote.url("/mcp")]), "2025-11-25");
}

#[test]
fn an_answer_stream_dropped_mid_call_is_resumed_with_last_event_id() {
    let remote = Remote::start(&[]);
    let mut host = Client::spawn_keeping_stderr(&["connect", &remote.url("/mcp")]);
    host.initialize("2025-11-25", json!({}));
    // The tool closes its answer stream before the answer exists; only a resumed stream has it.
    let answer = host.call_tool("test_reconnection", json!({}));
    assert!(tool_text(&answer).starts_with("Reconnection test completed successfully"), "{answer}");
    let log = host.close_keeping_stderr();
    assert!(log.contains("resuming after event"), "{log}");
}

/// A TCP relay in front of a server that cuts, once, the first connection on which the server
/// sends `needle`: right after the SSE event that carries it, both ways, as a network would.
struct Cutter {
    port: u16,
    cut: Arc<AtomicBool>,
}

impl Cutter {
    fn start(upstream: u16, needle: &'static str) -> Cutter {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the relay");
        let port = listener.local_addr().expect("its address").port();
        let cut = Arc::new(AtomicBool::new(false));
        let cutting = Arc::clone(&cut);
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else { return };
                let (mut from_client, mut to_server) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                thread::spawn(move || {
                    let _ = std::io::copy(&mut from_client, &mut to_server);
                    let _ = to_server.shutdown(Shutdown::Write);
                });
                let cut = Arc::clone(&cutting);
                thread::spawn(move || forward_cutting(server, client, needle, &cut));
            }
        });
        Cutter { port, cut }
    }
}

/// Copies the server's bytes to the client; the first time `needle` passes (on any
/// connection), only up to the end of its event (`\n\n`, then the chunk's `\r\n`), and then
/// both sockets are shut.
fn forward_cutting(mut from: TcpStream, mut to: TcpStream, needle: &str, cut: &AtomicBool) {
    let find = |hay: &[u8], what: &[u8]| hay.windows(what.len()).position(|w| w == what);
    let (mut seen, mut forwarded, mut buf) = (Vec::new(), 0, [0; 16384]);
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if cut.load(Ordering::SeqCst) {
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
            continue;
        }
        seen.extend_from_slice(&buf[..n]);
        let upto = match find(&seen, needle.as_bytes()) {
            Some(at) => match find(&seen[at..], b"\n\n\r\n") {
                Some(end) if !cut.swap(true, Ordering::SeqCst) => {
                    let _ = to.write_all(&seen[forwarded..at + end + 4]);
                    let _ = to.shutdown(Shutdown::Both);
                    let _ = from.shutdown(Shutdown::Both);
                    return;
                }
                Some(_) => seen.len(),
                None => at,
            },
            None => seen.len(),
        };
        if to.write_all(&seen[forwarded..upto]).is_err() {
            break;
        }
        forwarded = upto;
    }
    let _ = to.shutdown(Shutdown::Write);
}

// SEP-1699 / Streamable HTTP resumability: an answer stream cut by the network mid-call (after
// the first progress event, before the answer) is resumed with `Last-Event-ID`, and the host
// gets every message once: each progress step and the answer, none twice.
#[test]
fn an_answer_stream_cut_by_the_network_mid_call_resumes_and_delivers_each_message_once() {
    let remote = Remote::start(&[]);
    let relay = Cutter::start(remote.port, "notifications/progress");
    let url = format!("http://127.0.0.1:{}/mcp", relay.port);
    let mut host = Client::spawn_keeping_stderr(&["connect", &url]);
    host.initialize("2025-11-25", json!({}));
    let call = host.send_request(
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "cut"}}),
    );
    assert_eq!(tool_text(&host.response(&call)), "Progress reported");
    assert!(relay.cut.load(Ordering::SeqCst), "the stream was never cut");
    let seen = host.drain(Duration::from_millis(100));
    let answers = seen.iter().filter(|m| m.get("id") == Some(&call)).count();
    assert_eq!(answers, 0, "the answer came twice: {seen:?}");
    let steps: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "cut")
        .map(|m| &m["params"]["progress"])
        .collect();
    assert_eq!(steps, [&json!(0.0), &json!(50.0), &json!(100.0)], "{seen:?}");
    let log = host.close_keeping_stderr();
    assert!(log.contains("resuming after event"), "{log}");
}

#[test]
fn a_session_the_server_forgot_is_reopened_and_the_log_says_so() {
    let remote = Remote::start(&["--session-ttl-secs", "1"]);
    let mut host = Client::spawn_keeping_stderr(&["connect", &remote.url("/mcp")]);
    host.initialize("2025-11-25", json!({}));
    // A session of our own, opened after the bridge's, expires no sooner: once it is refused,
    // the bridge's is too (an id carries its expiry, in whole seconds).
    let port = remote.port;
    let post = |headers: &[(&str, &str)], body: &str| {
        use crate::raw_http::{connect, read_reply, write_request, ACCEPT_BOTH, JSON};
        let mut stream = connect(port);
        write_request(&mut stream, port, "POST", "/mcp", &[&[ACCEPT_BOTH, JSON], headers].concat(), body);
        read_reply(&mut std::io::BufReader::new(stream))
    };
    let opened = post(&[], &crate::raw_http::initialize(json!({})).to_string());
    let ours = opened.header("mcp-session-id").expect("a session").to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    wait_until("the session ids to expire", TIMEOUT, || post(&[("Mcp-Session-Id", &ours)], &ping).status == 404);
    // The session id has expired: the server answers 404 and the bridge initializes again.
    let echo = host.call_tool("echo", json!({"message": "after expiry"}));
    assert_eq!(tool_text(&echo), "Echo: after expiry");
    let log = host.close_keeping_stderr();
    assert!(log.contains("no longer knows session") && log.contains("session reopened"), "{log}");
}

#[test]
fn a_request_the_host_cancels_is_cancelled_at_the_server_and_never_answered() {
    // One request at a time: the echo below only runs once the slow call has stopped.
    let remote = Remote::start_with_env(&["--max-in-flight", "1"], &[("RUST_LOG", "tinymcp=debug")]);
    let mut host = Client::spawn(&["connect", &remote.url("/mcp")]);
    host.initialize("2025-11-25", json!({}));
    let slow = host.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 60000}}));
    wait_until("the slow call to reach the server", TIMEOUT, || logged(&remote.log, r#""name":"test_slow""#));
    host.notify("notifications/cancelled", json!({"requestId": slow, "reason": "the user stopped it"}));
    // One request at a time: answered (within the client's 10 s) only if the slow call stopped.
    let echo = host.call_tool("echo", json!({"message": "next"}));
    assert_eq!(tool_text(&echo), "Echo: next");
    let later = host.drain(std::time::Duration::from_millis(100));
    assert!(later.iter().all(|m| m.get("id") != Some(&slow)), "the cancelled request was answered: {later:?}");
    assert!(host.close().success());
}

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

#[test]
fn the_bearer_token_comes_from_an_environment_variable() {
    let remote = Remote::start_with_env(&[], &[("TINYMCP_TOKEN", TOKEN)]);
    let env = [("REMOTE_TOKEN", TOKEN)];
    let url = remote.url("/mcp");
    echo_through(Client::spawn_with_env(&["connect", "--token-env", "REMOTE_TOKEN", &url], &env), "2025-11-25");
    let header = ["connect", "--header", "Authorization: Bearer ${REMOTE_TOKEN}", "--transport", "http", &url];
    echo_through(Client::spawn_with_env(&header, &env), "2025-11-25");
    let sse = ["connect", "--transport", "sse", "--token-env", "REMOTE_TOKEN", &remote.url("/sse")];
    echo_through(Client::spawn_with_env(&sse, &env), "2024-11-05");

    // Without it the server refuses, and the host hears why instead of waiting.
    let mut host = Client::spawn(&["connect", &url]);
    let refused = host.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("401"), "{refused}");
}

#[test]
fn a_missing_token_variable_is_refused_before_connecting() {
    let out = crate::support::run_binary(&["connect", "--token-env", "TINYMCP_IT_UNSET_VAR", "http://127.0.0.1:1/mcp"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("TINYMCP_IT_UNSET_VAR"));
}

// A build without the `https` feature refuses https:// saying which build has it (with the
// feature: tests/it/connect_tls.rs).
#[cfg(not(feature = "https"))]
#[test]
fn https_is_refused_saying_what_to_do() {
    let out = crate::support::run_binary(&["connect", "https://example.com/mcp"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the cargo feature `https`") && stderr.contains("release binary"), "{stderr}");
}

/// Runs `tinymcp connect ARGS` with `input` on stdin, then stdin closed, to its exit (bounded):
/// what a host piping lines sees.
fn connect_piped(args: &[&str], env: &[(&str, &str)], input: &str) -> std::process::Output {
    let mut child = Command::new(binary())
        .arg("connect")
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tinymcp connect");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write stdin");
    drop(stdin);
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("connect exited in time").expect("its output")
}

/// One request read off `stream`: its head (lowercase) and body.
fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut seen = Vec::new();
    let mut byte = [0; 1];
    while !seen.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => seen.push(byte[0]),
            _ => return None,
        }
    }
    let head = String::from_utf8_lossy(&seen).to_ascii_lowercase();
    let length =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).ok()?;
    Some((head, body))
}

/// A legacy SSE server that names an endpoint on another origin (another loopback port),
/// answering a POST with `405` as a server without Streamable HTTP does; and the listener on
/// that other port, which records the head of every request it gets.
struct HostileLegacy {
    port: u16,
    elsewhere: Arc<std::sync::Mutex<Vec<String>>>,
    other_port: u16,
}

impl HostileLegacy {
    fn start() -> HostileLegacy {
        let other = TcpListener::bind("127.0.0.1:0").expect("bind the other origin");
        let other_port = other.local_addr().expect("its address").port();
        let elsewhere = Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = Arc::clone(&elsewhere);
        thread::spawn(move || {
            for stream in other.incoming() {
                let Ok(mut stream) = stream else { return };
                if let Some((head, _)) = read_request(&mut stream) {
                    record.lock().unwrap().push(head);
                }
                let _ = stream.write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            }
        });
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the hostile server");
        let port = listener.local_addr().expect("its address").port();
        thread::spawn(move || {
            let mut streams = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let Some((head, _)) = read_request(&mut stream) else { continue };
                if head.starts_with("post") {
                    let _ = stream.write_all(
                        b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                    continue;
                }
                let endpoint = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
                     event: endpoint\ndata: http://127.0.0.1:{other_port}/messages?sessionId=x\n\n"
                );
                let _ = stream.write_all(endpoint.as_bytes());
                // Kept open, as a stream is, until the test ends.
                streams.push(stream);
            }
        });
        HostileLegacy { port, elsewhere, other_port }
    }
}

// A legacy `endpoint` on another origin would get every POST, the bearer token
// with it. Both official SDKs refuse it; so does the bridge, naming both origins, whether the
// legacy transport was asked for or reached by `auto` after a 405.
#[test]
fn a_legacy_endpoint_on_another_origin_is_refused_and_gets_nothing() {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"it","version":"0"}}}"#;
    let input = format!("{init}\n{}\n", r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    for transport in ["sse", "auto"] {
        let hostile = HostileLegacy::start();
        let url = format!("http://127.0.0.1:{}/sse", hostile.port);
        let args = ["--transport", transport, "--token-env", "REMOTE_TOKEN", &url];
        let out = connect_piped(&args, &[("REMOTE_TOKEN", TOKEN)], &input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let got = hostile.elsewhere.lock().unwrap().clone();
        assert!(got.is_empty(), "{transport}: the other origin got {got:?}");
        assert!(!out.status.success(), "{transport}: connect went on: {stderr}");
        let (ours, theirs) =
            (format!("http://127.0.0.1:{}", hostile.port), format!("http://127.0.0.1:{}", hostile.other_port));
        assert!(
            stderr.contains(&ours) && stderr.contains(&theirs) && stderr.contains("origin"),
            "{transport}: {stderr}"
        );
        if transport == "auto" {
            // The host's initialize is answered, not left waiting.
            let stdout = String::from_utf8_lossy(&out.stdout);
            let answer: Value = serde_json::from_str(stdout.lines().next().unwrap_or_default()).unwrap_or_default();
            assert_eq!(answer["id"], 1, "{stdout}");
            assert!(answer["error"]["message"].as_str().unwrap_or_default().contains("origin"), "{stdout}");
        }
    }
}

// A host that pipes its requests and closes stdin gets every answer to the
// requests it sent before the end of input, not only the first.
#[test]
fn answers_in_flight_at_the_end_of_input_are_printed_before_exiting() {
    let remote = Remote::start(&[]);
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "last"}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "test_slow", "arguments": {"ms": 300}}}),
    ];
    let input: String = input.iter().map(|m| format!("{m}\n")).collect();
    for transport in ["http", "sse"] {
        let url = remote.url(if transport == "http" { "/mcp" } else { "/sse" });
        let out = connect_piped(&["--transport", transport, &url], &[], &input);
        assert!(out.status.success(), "{transport}: {}", String::from_utf8_lossy(&out.stderr));
        let answers: Vec<Value> =
            String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let by_id = |id: i64| answers.iter().find(|m| m["id"] == id).cloned().unwrap_or_default();
        assert!(by_id(1)["result"]["protocolVersion"].is_string(), "{transport}: {answers:?}");
        assert_eq!(tool_text(&by_id(2)), "Echo: last", "{transport}: {answers:?}");
        assert!(by_id(3)["result"]["content"].is_array(), "{transport}: {answers:?}");
    }
}

/// Whether the bridge's transcript (`RUST_LOG=debug`) shows no answer to request `id` written to the host.
fn host_saw_no_answer_to(log: &str, id: &Value) -> bool {
    log.lines()
        .filter_map(|l| l.split_once("host <- "))
        .filter_map(|(_, m)| serde_json::from_str::<Value>(m).ok())
        .all(|m| m.get("id") != Some(id))
}

/// A 2026-07-28 request's params: `params` with the request's `_meta`.
pub(crate) fn modern(mut params: Value) -> Value {
    params["_meta"] = crate::stateless::meta(json!({}));
    params
}

// A 2026-07-28 host is carried: each request POSTed with its
// `MCP-Protocol-Version` and the SEP-2243 headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`,
// Base64 where the value needs it), no session; a listen stream stays open and its
// cancellation closes it. The default `auto` does not turn it into a 2025-11-25 session.
#[test]
fn a_2026_07_28_host_is_carried_with_its_headers_and_no_session() {
    let remote = Remote::start(&[]);
    let mut host = Client::spawn_keeping_stderr(&["connect", &remote.url("/mcp")]);
    host.revision = Some("2026-07-28".into());
    let discover = host.request("server/discover", modern(json!({})));
    let versions = discover["result"]["supportedVersions"].as_array().cloned().unwrap_or_default();
    assert!(versions.contains(&json!("2026-07-28")), "{discover}");

    let listed = host.request("tools/list", modern(json!({})));
    let tools = listed["result"]["tools"].as_array().cloned().unwrap_or_default();
    assert!(tools.iter().any(|t| t["name"] == "test_custom_header"), "{listed}");
    let echo = host.request("tools/call", modern(json!({"name": "echo", "arguments": {"message": "modern"}})));
    assert_eq!((tool_text(&echo).as_str(), &echo["result"]["resultType"]), ("Echo: modern", &json!("complete")));
    // The tool's `value` travels in `Mcp-Param-Value`, Base64-encoded (it is not ASCII).
    let custom = json!({"name": "test_custom_header", "arguments": {"value": "Hello, 世界"}});
    assert_eq!(tool_text(&host.request("tools/call", modern(custom.clone()))), "Hello, 世界");
    let read = host.request("resources/read", modern(json!({"uri": "test://static-text"})));
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");

    let listen =
        host.send_request("subscriptions/listen", modern(json!({"notifications": {"toolsListChanged": true}})));
    host.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    host.request("tools/call", modern(json!({"name": "test_trigger_tool_change", "arguments": {}})));
    host.wait(|m| m["method"] == "notifications/tools/list_changed");
    host.notify("notifications/cancelled", json!({"requestId": listen, "_meta": crate::stateless::meta(json!({}))}));
    let echo = host.request("tools/call", modern(json!({"name": "echo", "arguments": {"message": "after"}})));
    assert_eq!(tool_text(&echo), "Echo: after");
    let log = host.close_keeping_stderr();
    assert!(log.contains(&format!("request {listen} cancelled: its connection closed")), "{log}");
    assert!(host_saw_no_answer_to(&log, &listen), "{log}");
    let session_made = format!(" at {}", remote.url("/mcp"));
    assert!(!log.lines().any(|l| l.contains("session") && l.contains(&session_made)), "a session was made: {log}");

    // A bridge that has not seen the tool's schema learns it when the server asks for the header.
    let mut host = Client::spawn(&["connect", &remote.url("/mcp")]);
    host.revision = Some("2026-07-28".into());
    assert_eq!(tool_text(&host.request("tools/call", modern(custom))), "Hello, 世界");
    assert!(host.close().success());
}

// Spec (2026-07-28 Backward Compatibility): `auto` falls back to legacy SSE only when the 4xx
// carries no JSON-RPC error. A server that speaks 2026-07-28 only refuses `initialize` with one
// (-32601, naming its revisions): the host reads it, and the bridge still carries its
// 2026-07-28 requests.
#[test]
fn auto_passes_a_modern_servers_refusal_of_initialize_to_the_host() {
    let remote = Remote::start(&["--revisions", "2026-07-28.."]);
    let mut host = Client::spawn(&["connect", &remote.url("/mcp")]);
    let refused = host.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("2026-07-28"), "{refused}");
    host.revision = Some("2026-07-28".into());
    let echo = host.request("tools/call", modern(json!({"name": "echo", "arguments": {"message": "modern"}})));
    assert_eq!(tool_text(&echo), "Echo: modern");
    assert!(host.close().success());
}

/// A Streamable HTTP server that keeps its connections alive: JSON answers framed by
/// `Content-Length` or by chunks (alternately), 202 to a notification, 405 to the GET stream.
/// Counts the connections it accepts and the requests it answers.
struct KeepAlive {
    port: u16,
    connections: Arc<std::sync::atomic::AtomicUsize>,
    requests: Arc<std::sync::atomic::AtomicUsize>,
}

impl KeepAlive {
    fn start() -> KeepAlive {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the keep-alive server");
        let port = listener.local_addr().expect("its address").port();
        let connections = Arc::<std::sync::atomic::AtomicUsize>::default();
        let requests = Arc::<std::sync::atomic::AtomicUsize>::default();
        let (accepted, answered) = (Arc::clone(&connections), Arc::clone(&requests));
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                accepted.fetch_add(1, Ordering::SeqCst);
                let answered = Arc::clone(&answered);
                thread::spawn(move || {
                    while let Some((head, body)) = read_request(&mut stream) {
                        let n = answered.fetch_add(1, Ordering::SeqCst);
                        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
                        let answer = if !head.starts_with("post") {
                            "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n".to_owned()
                        } else if message["id"].is_null() {
                            "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_owned()
                        } else {
                            let result = match message["method"].as_str() {
                                Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {},
                                    "serverInfo": {"name": "keep-alive", "version": "0"}}),
                                _ => json!({}),
                            };
                            let json = json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string();
                            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\n";
                            if n % 2 == 0 {
                                format!("{head}Content-Length: {}\r\n\r\n{json}", json.len())
                            } else {
                                format!(
                                    "{head}Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{json}\r\n0\r\n\r\n",
                                    json.len()
                                )
                            }
                        };
                        if stream.write_all(answer.as_bytes()).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        KeepAlive { port, connections, requests }
    }
}

// The bridge keeps its connections alive: requests one after another reuse one connection
// instead of each opening its own (and paying a TCP, and a TLS, handshake).
#[test]
fn requests_in_turn_reuse_a_kept_alive_connection() {
    let server = KeepAlive::start();
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let mut host = Client::spawn(&["connect", "--transport", "http", &url]);
    host.initialize("2025-11-25", json!({}));
    for _ in 0..6 {
        let answer = host.request("ping", json!({}));
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    assert!(host.close().success(), "connect exits 0 at end of input");
    let (connections, requests) = (server.connections.load(Ordering::SeqCst), server.requests.load(Ordering::SeqCst));
    assert!(requests >= 8, "{requests} requests");
    assert!(connections <= 3, "{connections} connections for {requests} requests");
}
