//! `tinymcp connect URL`: a host speaking stdio to the bridge, the bridge speaking HTTP to a
//! real `tinymcp --http` server.

use crate::support::{announced_port, binary, tool_text, Client};
use serde_json::json;
use std::process::{Child, Command, Stdio};

/// A `tinymcp --everything --http` server on a free port, killed when dropped.
struct Remote {
    child: Child,
    port: u16,
}

impl Remote {
    fn start(args: &[&str]) -> Remote {
        let mut child = Command::new(binary())
            .args(["--everything", "--http", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the remote server");
        let port = announced_port(&mut child);
        Remote { child, port }
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

#[test]
fn https_is_refused_saying_what_to_do() {
    let out = crate::support::run_binary(&["connect", "https://example.com/mcp"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("TLS-terminating proxy"), "{stderr}");
}
