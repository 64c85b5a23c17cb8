//! Every answer is valid against the schema of the negotiated revision: fields a revision does
//! not know are left out for it. The support client validates every message it reads.

use crate::support::{Client, STATEFUL_VERSIONS};
use serde_json::{json, Value};

/// Exercises every feature once; the support client schema-checks each message.
fn tour(revision: &str) -> Client {
    let mut client = Client::everything(revision);
    client.request("tools/list", json!({}));
    for tool in [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_error_handling",
        "add",
        "test_resource_link",
    ] {
        let args = if tool == "add" { json!({"a": 1, "b": 2}) } else { json!({}) };
        client.request("tools/call", json!({"name": tool, "arguments": args}));
    }
    client.request("logging/setLevel", json!({"level": "debug"}));
    client.request("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}));
    client.request(
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 7}}),
    );
    client.request("resources/list", json!({}));
    client.request("resources/templates/list", json!({}));
    client.request("resources/read", json!({"uri": "test://static-text"}));
    client.request("resources/read", json!({"uri": "test://static-binary"}));
    client.request("resources/read", json!({"uri": "nope://x"}));
    client.request("resources/subscribe", json!({"uri": "test://watched-resource"}));
    client.request("tools/call", json!({"name": "test_trigger_resource_update", "arguments": {}}));
    client.request("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}}));
    client.request("prompts/list", json!({}));
    for prompt in ["test_simple_prompt", "test_prompt_with_image"] {
        client.request("prompts/get", json!({"name": prompt}));
    }
    client.request(
        "prompts/get",
        json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://x"}}),
    );
    if revision != "2024-11-05" {
        client.request("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "p"}}));
    }
    let call = client.send_request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    let req = client.wait(|m| m["method"] == "sampling/createMessage");
    client.answer(&req["id"], json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}));
    client.response(&call);
    client.drain(std::time::Duration::from_millis(100));
    client
}

#[test]
fn every_message_is_valid_for_each_revision() {
    for revision in STATEFUL_VERSIONS {
        tour(revision);
    }
}

fn tool(client: &mut Client, name: &str) -> Value {
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone()
}

#[test]
fn old_revisions_get_no_new_fields() {
    let mut old = Client::everything("2024-11-05");
    let add = tool(&mut old, "add");
    for key in ["title", "outputSchema", "annotations", "icons"] {
        assert!(add.get(key).is_none(), "{key} sent to 2024-11-05: {add}");
    }
    let res = old.request("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}));
    assert!(res["result"].get("structuredContent").is_none(), "{res}");
    let audio = old.request("tools/call", json!({"name": "test_audio_content", "arguments": {}}));
    assert_eq!(audio["result"]["content"][0]["type"], "text");
    let link = old.request("tools/call", json!({"name": "test_resource_link", "arguments": {}}));
    assert!(link["result"]["content"].as_array().unwrap().iter().all(|c| c["type"] == "text"), "{link}");

    let mut mid = Client::everything("2025-03-26");
    let add = tool(&mut mid, "add");
    assert!(add.get("annotations").is_some() && add.get("title").is_none(), "{add}");
    let mut new = Client::everything("2025-06-18");
    let add = tool(&mut new, "add");
    assert!(add.get("title").is_some() && add.get("outputSchema").is_some(), "{add}");
}

#[test]
fn the_schema_check_itself_rejects_wrong_shapes() {
    use crate::support::SchemaBook;
    let book = SchemaBook::get();
    if !book.enabled() {
        return;
    }
    book.validate(
        "2025-11-25",
        "ListToolsResult",
        &json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}),
    );
    for (revision, def, bad) in [
        ("2025-11-25", "ListToolsResult", json!({"tools": 5})),
        ("2024-11-05", "CallToolResult", json!({"content": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]})),
        ("2025-03-26", "CallToolResult", json!({"content": [{"type": "resource_link", "uri": "a:b", "name": "b"}]})),
        ("2025-11-25", "InitializeResult", json!({"protocolVersion": "2025-11-25", "capabilities": {}})),
    ] {
        let failed = std::panic::catch_unwind(|| book.validate(revision, def, &bad)).is_err();
        assert!(failed, "{revision} {def} accepted {bad}");
    }
}
