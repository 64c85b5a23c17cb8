//! `tools/list` and `tools/call`: registration order, content types, errors as results, input and
//! output schemas.

use crate::support::{check, Client};
use serde_json::{json, Value};

#[test]
fn tools_list_has_every_fixture_tool_in_registration_order() {
    let mut client = Client::everything("2025-11-25");
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names[0], "echo");
    for needed in [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_tool_with_logging",
        "test_tool_with_progress",
        "test_error_handling",
        "test_sampling",
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
        "json_schema_2020_12_tool",
        "test_reconnection",
    ] {
        assert!(names.contains(&needed), "missing {needed}");
    }
    for tool in tools.as_array().unwrap() {
        assert!(tool["description"].is_string() && tool["inputSchema"]["type"] == "object", "{tool}");
    }
    let again = client.request("tools/list", json!({}))["result"]["tools"].clone();
    assert_eq!(tools, again, "order must be deterministic");
}

#[test]
fn echo_answers_with_the_message() {
    let mut client = Client::everything("2025-11-25");
    let res = client.call_tool("echo", json!({"message": "hi there"}));
    check(&res, json!({"result": {"content": [{"type": "text", "text": "Echo: hi there"}]}}));
}

#[test]
fn every_content_type_comes_back() {
    let mut client = Client::everything("2025-11-25");
    check(
        &client.call_tool("test_image_content", json!({})),
        json!({"result": {"content": [{"type": "image", "mimeType": "image/png"}]}}),
    );
    check(
        &client.call_tool("test_audio_content", json!({})),
        json!({"result": {"content": [{"type": "audio", "mimeType": "audio/wav"}]}}),
    );
    check(
        &client.call_tool("test_embedded_resource", json!({})),
        json!({"result": {"content": [{"type": "resource", "resource": {"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}]}}),
    );
    let mixed = client.call_tool("test_multiple_content_types", json!({}));
    let kinds: Vec<&str> =
        mixed["result"]["content"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let link = client.call_tool("test_resource_link", json!({}));
    check(
        &link,
        json!({"result": {"content": [{"type": "text", "annotations": {"audience": ["user"]}}, {"type": "resource_link", "uri": "test://static-text"}]}}),
    );
}

#[test]
fn a_call_without_arguments_reads_them_as_empty() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request("tools/call", json!({"name": "test_simple_text"}));
    check(
        &res,
        json!({"result": {"content": [{"type": "text", "text": "This is a simple text response for testing."}]}}),
    );
}

#[test]
fn tool_failure_is_a_result_with_is_error() {
    let mut client = Client::everything("2025-11-25");
    let res = client.call_tool("test_error_handling", json!({}));
    check(
        &res,
        json!({"result": {"isError": true, "content": [{"type": "text", "text": "This tool intentionally returns an error for testing"}]}}),
    );
}

#[test]
fn unknown_tool_is_invalid_params() {
    let mut client = Client::everything("2025-11-25");
    check(&client.call_tool("nope", json!({})), json!({"error": {"code": -32602}}));
    let res = client.request("tools/call", json!({"arguments": {}}));
    check(&res, json!({"error": {"code": -32602}}));
}

#[test]
fn arguments_failing_the_input_schema_name_the_path() {
    let mut client = Client::everything("2025-11-25");
    let res = client.call_tool("add", json!({"a": 1, "b": "two"}));
    check(&res, json!({"result": {"isError": true}}));
    let text = res["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/b"), "{text}");
    let res = client.call_tool("add", json!({"a": 1}));
    assert!(res["result"]["content"][0]["text"].as_str().unwrap().contains("\"b\""), "{res}");
    let res = client.call_tool("add", json!({"a": 1, "b": 2, "c": 3}));
    check(&res, json!({"result": {"isError": true}}));
    let res = client.call_tool("echo", json!({"message": 5}));
    check(&res, json!({"result": {"isError": true}}));
}

#[test]
fn structured_output_travels_with_its_text_form() {
    let mut client = Client::everything("2025-11-25");
    let res = client.call_tool("add", json!({"a": 2, "b": 40}));
    check(&res, json!({"result": {"structuredContent": {"sum": 42}, "content": [{"type": "text"}]}}));
    let text: Value = serde_json::from_str(res["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, json!({"sum": 42}));
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let add = tools.as_array().unwrap().iter().find(|t| t["name"] == "add").unwrap().clone();
    check(&add, json!({"title": "Add", "outputSchema": {"required": ["sum"]}, "annotations": {"readOnlyHint": true}}));
}

#[test]
fn json_schema_2020_12_tool_is_served_verbatim() {
    let mut client = Client::everything("2025-11-25");
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let tool = tools.as_array().unwrap().iter().find(|t| t["name"] == "json_schema_2020_12_tool").unwrap().clone();
    check(
        &tool["inputSchema"],
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"address": {"$anchor": "addressDef"}},
            "additionalProperties": false,
            "then": {"required": ["phone"]}
        }),
    );
    // The schema is enforced too: if/then/else and allOf/anyOf.
    let res = client.call_tool("json_schema_2020_12_tool", json!({"contactMethod": "phone", "email": "a@b"}));
    check(&res, json!({"result": {"isError": true}}));
    let res = client.call_tool("json_schema_2020_12_tool", json!({"contactMethod": "phone", "phone": "1"}));
    assert!(res["result"].get("isError").is_none(), "{res}");
}
