//! `prompts/list` and `prompts/get`: every content type, argument errors.

use crate::support::{check, Client};
use serde_json::json;

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
