//! Subscriptions are accepted only for URIs that resolve to a resource, and capped per
//! client. Before: any URI, any number of times (200 000 short ones kept an idle server busy).

use crate::support::{check, over_both_transports, Client, TempDir, Transport};
use serde_json::json;

over_both_transports!(subscribe_needs_a_resource_and_is_capped);

fn subscribe_needs_a_resource_and_is_capped(t: Transport) {
    let dir = TempDir::new("subscribe");
    dir.write("a.txt", "a\n");
    let mut client = Client::spawn_over(t, &["--everything", "--no-watch", "--root", dir.arg()]);
    client.initialize("2025-11-25", json!({}));
    // Resolving URIs: a static resource, a template match, a served file.
    for uri in ["test://watched-resource".to_owned(), "test://template/7/data".to_owned(), dir.uri("a.txt")] {
        check(&client.request("resources/subscribe", json!({ "uri": uri })), json!({"result": {}}));
    }
    // URIs that name nothing: -32002 with the URI, and no subscription kept.
    for uri in ["test://no-such-resource".to_owned(), dir.uri("missing.txt"), "file:///etc/passwd".to_owned()] {
        let res = client.request("resources/subscribe", json!({ "uri": uri }));
        check(&res, json!({"error": {"code": -32002, "data": {"uri": uri}}}));
    }
    // The cap: 1000 per client; the same URI again costs nothing; beyond, -32602 saying so.
    for n in 0..998 {
        let uri = format!("test://template/{n}/data");
        check(&client.request("resources/subscribe", json!({ "uri": uri })), json!({"result": {}}));
    }
    check(&client.request("resources/subscribe", json!({"uri": "test://watched-resource"})), json!({"result": {}}));
    let over = client.request("resources/subscribe", json!({"uri": "test://template/over/data"}));
    check(&over, json!({"error": {"code": -32602}}));
    let message = over["error"]["message"].as_str().unwrap();
    assert!(message.contains("1000 subscriptions"), "{message}");
    // Unsubscribing frees a place.
    check(&client.request("resources/unsubscribe", json!({"uri": "test://template/3/data"})), json!({"result": {}}));
    check(&client.request("resources/subscribe", json!({"uri": "test://template/over/data"})), json!({"result": {}}));
}
