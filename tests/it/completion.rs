//! `completion/complete`: prompt arguments and template variables.

use crate::support::{check, Client};
use serde_json::json;

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
