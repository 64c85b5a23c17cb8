//! `notifications/cancelled`: no response once cancelled, other requests unaffected.

use crate::support::{check, Client};
use serde_json::json;
use std::time::Duration;

#[test]
fn a_cancelled_request_gets_no_response_and_others_keep_flowing() {
    let mut client = Client::everything("2025-11-25");
    let slow = client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 5000}}));
    // A slow tool never blocks ping.
    check(&client.request("ping", json!({})), json!({"result": {}}));
    client.notify("notifications/cancelled", json!({"requestId": slow, "reason": "user"}));
    let seen = client.drain(Duration::from_millis(100));
    assert!(!seen.iter().any(|m| m.get("id") == Some(&slow)), "{seen:?}");
    check(&client.request("ping", json!({})), json!({"result": {}}));
}
