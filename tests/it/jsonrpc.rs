//! JSON-RPC framing errors: each gets the right code and the server keeps serving.

use crate::support::{check, Client};
use serde_json::json;

#[test]
fn a_line_that_is_not_json_is_a_parse_error_with_null_id() {
    let mut client = Client::everything("2025-11-25");
    client.send_line("{not json");
    let res = client.wait(|m| m.get("error").is_some());
    check(&res, json!({"id": null, "error": {"code": -32700}}));
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn json_that_is_not_a_request_is_invalid_request() {
    let mut client = Client::everything("2025-11-25");
    for line in [
        "42",
        r#"{"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
    ] {
        client.send_line(line);
        let res = client.wait(|m| m.get("error").is_some());
        check(&res, json!({"error": {"code": -32600}}));
    }
}

#[test]
fn invalid_request_keeps_a_valid_id() {
    let mut client = Client::everything("2025-11-25");
    client.send_line(r#"{"jsonrpc":"1.0","id":"keep-me","method":"ping"}"#);
    let res = client.wait(|m| m.get("error").is_some());
    check(&res, json!({"id": "keep-me", "error": {"code": -32600}}));
}

#[test]
fn unknown_method_is_method_not_found() {
    let mut client = Client::everything("2025-11-25");
    let res = client.request("tools/frobnicate", json!({}));
    check(&res, json!({"error": {"code": -32601}}));
}

#[test]
fn params_that_are_not_an_object_are_invalid_params() {
    let mut client = Client::everything("2025-11-25");
    client.send_line(r#"{"jsonrpc":"2.0","id":77,"method":"tools/list","params":[1,2]}"#);
    let res = client.wait(|m| m.get("id") == Some(&json!(77)));
    check(&res, json!({"error": {"code": -32602}}));
}

#[test]
fn null_params_read_as_empty() {
    let mut client = Client::everything("2025-11-25");
    client.send_line(r#"{"jsonrpc":"2.0","id":78,"method":"tools/list","params":null}"#);
    let res = client.wait(|m| m.get("id") == Some(&json!(78)));
    assert!(res["result"]["tools"].is_array(), "{res}");
}

#[test]
fn ids_are_echoed_exactly_strings_and_large_integers() {
    let mut client = Client::everything("2025-11-25");
    client.send_line(r#"{"jsonrpc":"2.0","id":"abc-ü","method":"ping"}"#);
    check(&client.wait(|m| m.get("id") == Some(&json!("abc-ü"))), json!({"result": {}}));
    client.send_line(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#);
    let res = client.wait(|m| m.get("id").and_then(serde_json::Value::as_u64) == Some(u64::MAX));
    check(&res, json!({"result": {}}));
    client.send_line(r#"{"jsonrpc":"2.0","id":-5,"method":"ping"}"#);
    check(&client.wait(|m| m.get("id") == Some(&json!(-5))), json!({"result": {}}));
}

#[test]
fn notifications_are_never_answered() {
    let mut client = Client::everything("2025-11-25");
    client.notify("notifications/unknown", json!({}));
    client.notify("tools/list", json!({}));
    client.notify("notifications/cancelled", json!({"requestId": 999}));
    // The reader takes messages in order: an answer to any of them would precede the ping's.
    let seen = client.settle();
    assert!(seen.is_empty(), "unexpected: {seen:?}");
}

#[test]
fn batches_work_only_in_2025_03_26() {
    let mut client = Client::everything("2025-03-26");
    client.send_line(r#"[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b2","method":"nope"}]"#);
    // The batch's answers arrive as one array line; the test client sees it as an array value.
    let batch = client.wait(|m| m.is_array());
    let items = batch.as_array().unwrap();
    assert_eq!(items.len(), 2, "{batch}");
    assert!(items.iter().any(|i| i["id"] == "b1" && i["result"] == json!({})));
    assert!(items.iter().any(|i| i["id"] == "b2" && i["error"]["code"] == -32601));

    let mut client = Client::everything("2025-11-25");
    client.send_line(r#"[{"jsonrpc":"2.0","id":"b1","method":"ping"}]"#);
    let res = client.wait(|m| m.get("error").is_some());
    check(&res, json!({"error": {"code": -32600}}));
}

/// Every id that is not a string or an integer is `-32600` with `id: null`,
/// `1e400` (out of range) and a lone surrogate included, never taken for a notification.
#[test]
fn every_invalid_id_is_invalid_request_with_null_id() {
    let mut client = Client::everything("2025-11-25");
    for id in ["1e400", "-1e400", "1.5", "true", "[1]", r#""\ud800""#] {
        client.send_line(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        let res = client.wait(|m| m.get("error").is_some() || m.get("result").is_some());
        check(&res, json!({"id": null, "error": {"code": -32600}}));
        assert!(res["error"]["message"].as_str().unwrap().contains("id must be a string or an integer"), "{id}: {res}");
    }
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

/// A lone surrogate escape is named as what it is, wherever it is.
#[test]
fn a_lone_surrogate_is_named_in_the_error() {
    let mut client = Client::everything("2025-11-25");
    for (n, text) in [r#""\ud800""#, r#""\udc00x""#, r#""a\ud800b""#].iter().enumerate() {
        let id = 40 + n;
        client.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":{text}}}}}}}"#
        ));
        let res = client.wait(|m| m.get("id") == Some(&json!(id)));
        check(&res, json!({"error": {"code": -32602}}));
        let message = res["error"]["message"].as_str().unwrap();
        assert!(message.contains("lone surrogate") && message.contains("\\u"), "{text}: {res}");
    }
    // In a method name the whole line is read again by serde_json: a parse error, named too.
    client.send_line(r#"{"jsonrpc":"2.0","id":50,"method":"pi\ud800ng"}"#);
    let res = client.wait(|m| m.get("error").is_some());
    assert!(res["error"]["message"].as_str().unwrap().contains("lone surrogate"), "{res}");
}
