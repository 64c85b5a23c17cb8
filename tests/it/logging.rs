//! `logging/setLevel` and `notifications/message`: the level the client set filters.

use crate::support::{check, Client};
use serde_json::{json, Value};

#[test]
fn logging_respects_the_level_set() {
    let mut client = Client::everything("2025-11-25");
    check(&client.request("logging/setLevel", json!({"level": "debug"})), json!({"result": {}}));
    let res = client.call_tool("test_tool_with_logging", json!({}));
    check(&res, json!({"result": {"content": [{"type": "text"}]}}));
    let logs: Vec<Value> = client.backlog.iter().filter(|m| m["method"] == "notifications/message").cloned().collect();
    assert_eq!(logs.len(), 3, "{logs:?}");
    check(&logs[0], json!({"params": {"level": "info", "data": "Tool execution started"}}));
    client.backlog.clear();
    client.request("logging/setLevel", json!({"level": "error"}));
    client.call_tool("test_tool_with_logging", json!({}));
    assert!(!client.backlog.iter().any(|m| m["method"] == "notifications/message"), "{:?}", client.backlog);
    check(&client.request("logging/setLevel", json!({"level": "loud"})), json!({"error": {"code": -32602}}));
}
