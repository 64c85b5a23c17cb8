//! Server features over stdio: tools, resources, prompts, completion, logging, pagination,
//! subscriptions, list changes, progress and cancellation. Fixture names come from `--everything`.

use crate::support::{check, Client};
use serde_json::{json, Value};
use std::time::Duration;

fn call(client: &mut Client, name: &str, arguments: Value) -> Value {
    client.request("tools/call", json!({"name": name, "arguments": arguments}))
}

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
    let res = call(&mut client, "echo", json!({"message": "hi there"}));
    check(&res, json!({"result": {"content": [{"type": "text", "text": "Echo: hi there"}]}}));
}

#[test]
fn every_content_type_comes_back() {
    let mut client = Client::everything("2025-11-25");
    check(
        &call(&mut client, "test_image_content", json!({})),
        json!({"result": {"content": [{"type": "image", "mimeType": "image/png"}]}}),
    );
    check(
        &call(&mut client, "test_audio_content", json!({})),
        json!({"result": {"content": [{"type": "audio", "mimeType": "audio/wav"}]}}),
    );
    check(
        &call(&mut client, "test_embedded_resource", json!({})),
        json!({"result": {"content": [{"type": "resource", "resource": {"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}]}}),
    );
    let mixed = call(&mut client, "test_multiple_content_types", json!({}));
    let kinds: Vec<&str> =
        mixed["result"]["content"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let link = call(&mut client, "test_resource_link", json!({}));
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
    let res = call(&mut client, "test_error_handling", json!({}));
    check(
        &res,
        json!({"result": {"isError": true, "content": [{"type": "text", "text": "This tool intentionally returns an error for testing"}]}}),
    );
}

#[test]
fn unknown_tool_is_invalid_params() {
    let mut client = Client::everything("2025-11-25");
    check(&call(&mut client, "nope", json!({})), json!({"error": {"code": -32602}}));
    let res = client.request("tools/call", json!({"arguments": {}}));
    check(&res, json!({"error": {"code": -32602}}));
}

#[test]
fn arguments_failing_the_input_schema_name_the_path() {
    let mut client = Client::everything("2025-11-25");
    let res = call(&mut client, "add", json!({"a": 1, "b": "two"}));
    check(&res, json!({"result": {"isError": true}}));
    let text = res["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/b"), "{text}");
    let res = call(&mut client, "add", json!({"a": 1}));
    assert!(res["result"]["content"][0]["text"].as_str().unwrap().contains("\"b\""), "{res}");
    let res = call(&mut client, "add", json!({"a": 1, "b": 2, "c": 3}));
    check(&res, json!({"result": {"isError": true}}));
    let res = call(&mut client, "echo", json!({"message": 5}));
    check(&res, json!({"result": {"isError": true}}));
}

#[test]
fn structured_output_travels_with_its_text_form() {
    let mut client = Client::everything("2025-11-25");
    let res = call(&mut client, "add", json!({"a": 2, "b": 40}));
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
    let res = call(&mut client, "json_schema_2020_12_tool", json!({"contactMethod": "phone", "email": "a@b"}));
    check(&res, json!({"result": {"isError": true}}));
    let res = call(&mut client, "json_schema_2020_12_tool", json!({"contactMethod": "phone", "phone": "1"}));
    assert!(res["result"].get("isError").is_none(), "{res}");
}

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
    call(&mut client, "test_trigger_resource_update", json!({}));
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    check(&updated, json!({"params": {"uri": "test://watched-resource"}}));
    let read = client.request("resources/read", json!({"uri": "test://watched-resource"}));
    assert!(read["result"]["contents"][0]["text"].as_str().unwrap().contains("update 1"), "{read}");
    check(&client.request("resources/unsubscribe", json!({"uri": "test://watched-resource"})), json!({"result": {}}));
    call(&mut client, "test_trigger_resource_update", json!({}));
    let seen = client.drain(Duration::from_millis(300));
    assert!(!seen.iter().any(|m| m["method"] == "notifications/resources/updated"), "{seen:?}");
}

#[test]
fn list_changed_notifications_follow_changes() {
    let mut client = Client::everything("2025-11-25");
    call(&mut client, "test_trigger_tool_change", json!({}));
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    assert!(tools.as_array().unwrap().iter().any(|t| t["name"] == "test_dynamic_tool"));
    call(&mut client, "test_trigger_prompt_change", json!({}));
    client.wait(|m| m["method"] == "notifications/prompts/list_changed");
    let prompts = client.request("prompts/list", json!({}))["result"]["prompts"].clone();
    assert!(prompts.as_array().unwrap().iter().any(|p| p["name"] == "test_dynamic_prompt"));
}

#[test]
fn prompts_list_and_get_with_every_content_type() {
    let mut client = Client::everything("2025-11-25");
    let prompts = client.request("prompts/list", json!({}))["result"]["prompts"].clone();
    for p in prompts.as_array().unwrap() {
        assert!(p["name"].is_string() && p["description"].is_string(), "{p}");
    }
    check(
        &client.request("prompts/get", json!({"name": "test_simple_prompt"})),
        json!({"result": {"messages": [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]}}),
    );
    check(
        &client.request(
            "prompts/get",
            json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "testValue1", "arg2": "testValue2"}}),
        ),
        json!({"result": {"messages": [{"content": {"text": "Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}]}}),
    );
    check(
        &client.request("prompts/get", json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}})),
        json!({"result": {"messages": [{"content": {"type": "resource", "resource": {"uri": "test://example-resource"}}}, {"content": {"type": "text"}}]}}),
    );
    check(
        &client.request("prompts/get", json!({"name": "test_prompt_with_image"})),
        json!({"result": {"messages": [{"content": {"type": "image", "mimeType": "image/png"}}, {"content": {"type": "text"}}]}}),
    );
}

#[test]
fn prompt_errors_are_invalid_params() {
    let mut client = Client::everything("2025-11-25");
    check(&client.request("prompts/get", json!({"name": "nope"})), json!({"error": {"code": -32602}}));
    let res = client.request("prompts/get", json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}}));
    check(&res, json!({"error": {"code": -32602}}));
    assert!(res["error"]["message"].as_str().unwrap().contains("arg2"), "{res}");
}

#[test]
fn completion_of_prompt_arguments_and_template_variables() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "pa"}}));
    check(&res, json!({"result": {"completion": {"values": ["paris", "park"], "total": 2, "hasMore": false}}}));
    let res = client.request("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"}, "argument": {"name": "id", "value": "12"}, "context": {"arguments": {}}}));
    check(&res, json!({"result": {"completion": {"values": ["123"]}}}));
    let res = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "missing"}, "argument": {"name": "a", "value": ""}}),
    );
    check(&res, json!({"error": {"code": -32602}}));
    let res = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/nothing"}, "argument": {"name": "a", "value": ""}}),
    );
    check(&res, json!({"error": {"code": -32602}}));
}

#[test]
fn logging_respects_the_level_set() {
    let mut client = Client::everything("2025-11-25");
    check(&client.request("logging/setLevel", json!({"level": "debug"})), json!({"result": {}}));
    let res = call(&mut client, "test_tool_with_logging", json!({}));
    check(&res, json!({"result": {"content": [{"type": "text"}]}}));
    let logs: Vec<Value> = client.backlog.iter().filter(|m| m["method"] == "notifications/message").cloned().collect();
    assert_eq!(logs.len(), 3, "{logs:?}");
    check(&logs[0], json!({"params": {"level": "info", "data": "Tool execution started"}}));
    client.backlog.clear();
    client.request("logging/setLevel", json!({"level": "error"}));
    call(&mut client, "test_tool_with_logging", json!({}));
    assert!(!client.backlog.iter().any(|m| m["method"] == "notifications/message"), "{:?}", client.backlog);
    check(&client.request("logging/setLevel", json!({"level": "loud"})), json!({"error": {"code": -32602}}));
}

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
    call(&mut client, "test_tool_with_progress", json!({}));
    assert!(client.backlog.is_empty(), "{:?}", client.backlog);
}

#[test]
fn a_cancelled_request_gets_no_response_and_others_keep_flowing() {
    let mut client = Client::everything("2025-11-25");
    let slow = client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 5000}}));
    // A slow tool never blocks ping.
    check(&client.request("ping", json!({})), json!({"result": {}}));
    client.notify("notifications/cancelled", json!({"requestId": slow, "reason": "user"}));
    let seen = client.drain(Duration::from_millis(800));
    assert!(!seen.iter().any(|m| m.get("id") == Some(&slow)), "{seen:?}");
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn pagination_cursor_errors_are_invalid_params() {
    let mut client = Client::everything("2025-11-25");
    for method in ["tools/list", "resources/list", "prompts/list", "resources/templates/list"] {
        let res = client.request(method, json!({"cursor": "not-a-cursor"}));
        check(&res, json!({"error": {"code": -32602}}));
    }
}

#[test]
fn lists_page_through_every_item_with_opaque_cursors() {
    let mut client = Client::spawn(&["--everything", "--page-size", "4"]);
    client.initialize("2025-11-25", json!({}));
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let res = client.request("tools/list", params);
        let tools = res["result"]["tools"].as_array().unwrap().clone();
        assert!(tools.len() <= 4);
        names.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        pages += 1;
        match res["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    let all =
        Client::everything("2025-11-25").request("tools/list", json!({}))["result"]["tools"].as_array().unwrap().len();
    assert_eq!(names.len(), all);
    assert!(pages > 1);
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(unique, names, "no item twice");
}
