//! `resources/*`: listing, reading text, binary and templated resources, unknown URIs,
//! subscriptions and list changes (tools and prompts too).

use crate::support::{check, Client};
use serde_json::{json, Value};

#[test]
fn resources_list_read_text_binary_and_template() {
    let mut client = Client::everything("2025-11-25");
    let list = client.request("resources/list", json!({}));
    let uris: Vec<&str> =
        list["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert!(uris.contains(&"test://static-text") && uris.contains(&"test://static-binary"), "{uris:?}");
    check(
        &client.request("resources/read", json!({"uri": "test://static-text"})),
        json!({"result": {"contents": [{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}]}}),
    );
    let bin = client.request("resources/read", json!({"uri": "test://static-binary"}));
    check(&bin, json!({"result": {"contents": [{"mimeType": "image/png"}]}}));
    assert!(!bin["result"]["contents"][0]["blob"].as_str().unwrap().is_empty());
    let templates = client.request("resources/templates/list", json!({}));
    check(&templates, json!({"result": {"resourceTemplates": [{"uriTemplate": "test://template/{id}/data"}]}}));
    let read = client.request("resources/read", json!({"uri": "test://template/123/data"}));
    let text: Value = serde_json::from_str(read["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["id"], "123");
}

#[test]
fn unknown_resource_is_32002_with_the_uri() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request("resources/read", json!({"uri": "test://nonexistent-resource-for-conformance-testing"}));
    check(
        &res,
        json!({"error": {"code": -32002, "data": {"uri": "test://nonexistent-resource-for-conformance-testing"}}}),
    );
}

#[test]
fn subscribed_resources_get_updates_and_others_do_not() {
    let mut client = Client::everything("2025-11-25");
    check(&client.request("resources/subscribe", json!({"uri": "test://watched-resource"})), json!({"result": {}}));
    client.call_tool("test_trigger_resource_update", json!({}));
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    check(&updated, json!({"params": {"uri": "test://watched-resource"}}));
    let read = client.request("resources/read", json!({"uri": "test://watched-resource"}));
    assert!(read["result"]["contents"][0]["text"].as_str().unwrap().contains("update 1"), "{read}");
    check(&client.request("resources/unsubscribe", json!({"uri": "test://watched-resource"})), json!({"result": {}}));
    client.call_tool("test_trigger_resource_update", json!({}));
    // The trigger notifies its subscribers before it answers.
    let seen = client.settle();
    assert!(!seen.iter().any(|m| m["method"] == "notifications/resources/updated"), "{seen:?}");
}

#[test]
fn list_changed_notifications_follow_changes() {
    let mut client = Client::everything("2025-11-25");
    client.call_tool("test_trigger_tool_change", json!({}));
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    assert!(tools.as_array().unwrap().iter().any(|t| t["name"] == "test_dynamic_tool"));
    client.call_tool("test_trigger_prompt_change", json!({}));
    client.wait(|m| m["method"] == "notifications/prompts/list_changed");
    let prompts = client.request("prompts/list", json!({}))["result"]["prompts"].clone();
    assert!(prompts.as_array().unwrap().iter().any(|p| p["name"] == "test_dynamic_prompt"));
}
