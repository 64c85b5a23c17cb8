//! Progress notifications: sent only when the request carried a token.

use crate::support::{check, Client};
use serde_json::{json, Value};

#[test]
fn progress_is_reported_only_with_a_token() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request(
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "progress-test-1"}}),
    );
    assert!(res.get("result").is_some());
    let progress: Vec<Value> =
        client.backlog.iter().filter(|m| m["method"] == "notifications/progress").cloned().collect();
    assert_eq!(progress.len(), 3, "{progress:?}");
    let values: Vec<f64> = progress.iter().map(|p| p["params"]["progress"].as_f64().unwrap()).collect();
    assert_eq!(values, [0.0, 50.0, 100.0]);
    check(&progress[2], json!({"params": {"progressToken": "progress-test-1", "total": 100.0}}));
    client.backlog.clear();
    client.call_tool("test_tool_with_progress", json!({}));
    assert!(client.backlog.is_empty(), "{:?}", client.backlog);
}
