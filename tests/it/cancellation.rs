//! `notifications/cancelled`: no response once cancelled, other requests unaffected.

use crate::support::{check, Client};
use serde_json::json;

#[test]
fn a_cancelled_request_gets_no_response_and_others_keep_flowing() {
    // Two requests at a time: the slow call and one more.
    let mut client = Client::spawn(&["--everything", "--max-in-flight", "2"]);
    client.initialize("2025-11-25", json!({}));
    let slow = client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 60000}}));
    // A slow tool never blocks ping.
    check(&client.request("ping", json!({})), json!({"result": {}}));
    client.notify("notifications/cancelled", json!({"requestId": slow, "reason": "user"}));
    // Another slow call takes the second slot, so the ping after it runs only once the cancelled
    // call has ended and given its slot back: whatever that call wrote came before the pong.
    let blocker = client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 60000}}));
    let seen = client.settle();
    assert!(!seen.iter().any(|m| m.get("id") == Some(&slow)), "{seen:?}");
    client.notify("notifications/cancelled", json!({"requestId": blocker, "reason": "user"}));
    check(&client.request("ping", json!({})), json!({"result": {}}));
}
