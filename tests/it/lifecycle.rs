//! Spec `basic/lifecycle`: version negotiation, capabilities, the gate before initialize, ping.

use crate::support::{check, Client, STATEFUL_VERSIONS};
use serde_json::json;

#[test]
fn initialize_echoes_each_known_revision() {
    for revision in STATEFUL_VERSIONS {
        let mut client = Client::spawn(&["--everything"]);
        let result = client.initialize(revision, json!({}));
        check(&result, json!({"protocolVersion": revision, "serverInfo": {"name": "tinymcp"}}));
    }
}

#[test]
fn initialize_answers_latest_for_an_unknown_revision() {
    let mut client = Client::spawn(&["--everything"]);
    let result = client.initialize("2099-01-01", json!({}));
    check(&result, json!({"protocolVersion": "2025-11-25"}));
}

#[test]
fn capabilities_advertise_what_is_registered() {
    let mut client = Client::spawn(&["--everything"]);
    let result = client.initialize("2025-11-25", json!({}));
    check(
        &result["capabilities"],
        json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true},
               "prompts": {"listChanged": true}, "logging": {}, "completions": {}}),
    );
    // A server with nothing registered advertises no tools, resources or prompts. (The binary
    // always serves something, so this one is embedded and fed one line from memory.)
    #[derive(Clone, Default)]
    struct Buffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(b)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let bare = std::sync::Arc::new(tinymcp::Server::new("bare", "0"));
    let input =
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
    let output = Buffer::default();
    tinymcp::transport::stdio::serve_io(bare, std::io::Cursor::new(format!("{input}\n")), output.clone()).unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&output.0.lock().unwrap()).unwrap();
    let caps = &answer["result"]["capabilities"];
    assert!(caps.get("tools").is_none() && caps.get("prompts").is_none() && caps.get("resources").is_none(), "{caps}");
}

#[test]
fn completions_capability_is_absent_for_2024_11_05() {
    let mut client = Client::spawn(&["--everything"]);
    let result = client.initialize("2024-11-05", json!({}));
    assert!(result["capabilities"].get("completions").is_none(), "{result}");
}

#[test]
fn requests_before_initialize_get_an_error_but_ping_works() {
    let mut client = Client::spawn(&["--everything"]);
    let res = client.request("tools/list", json!({}));
    check(&res, json!({"error": {"code": -32600}}));
    assert!(res["error"]["message"].as_str().unwrap().contains("initialize"), "{res}");
    let res = client.request("ping", json!({}));
    check(&res, json!({"result": {}}));
}

#[test]
fn second_initialize_is_refused() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
    );
    check(&res, json!({"error": {"code": -32600}}));
}

#[test]
fn ping_answers_exactly_an_empty_object() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request("ping", json!({}));
    assert_eq!(res["result"], json!({}));
}

#[test]
fn initialize_without_protocol_version_is_invalid_params() {
    let mut client = Client::spawn(&["--everything"]);
    let res = client.request("initialize", json!({"capabilities": {}}));
    check(&res, json!({"error": {"code": -32602}}));
}
