//! The stdio transport: nothing but protocol on stdout, hostile input answered, clean exit.

use crate::support::{check, Client};
use serde_json::json;

#[test]
fn end_of_input_exits_zero() {
    let client = Client::everything("2025-11-25");
    assert!(client.close().success());
}

#[test]
fn end_of_input_with_a_slow_request_in_flight_exits_quickly() {
    let mut client = Client::everything("2025-11-25");
    client.send_request("tools/call", json!({"name": "test_slow", "arguments": {"ms": 60000}}));
    // Within `close`'s 10 s, long before the call's 60 s.
    assert!(client.close().success());
}

#[test]
fn an_oversized_message_is_refused_and_serving_goes_on() {
    let mut client = Client::spawn(&["--everything", "--max-message-bytes", "1000"]);
    client.initialize("2025-11-25", json!({}));
    let big = "x".repeat(5000);
    client.send_line(&format!(r#"{{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{big}"}}}}}}"#));
    let res = client.wait(|m| m.get("error").is_some());
    check(&res, json!({"error": {"code": -32600}}));
    assert!(res["error"]["message"].as_str().unwrap().contains("1000"), "{res}");
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let mut client = Client::everything("2025-11-25");
    let mut bytes = br#"{"jsonrpc":"2.0","id":1,"method":"ping","x":""#.to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b"\"}");
    client.send_raw(&bytes);
    let res = client.wait(|m| m.get("error").is_some());
    check(&res, json!({"id": null, "error": {"code": -32700}}));
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut client = Client::everything("2025-11-25");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    client.send_line(&deep);
    let res = client.wait(|m| m.get("error").is_some());
    check(&res, json!({"error": {"code": -32700}}));
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

#[test]
fn many_requests_in_flight_all_get_answers() {
    let mut client = Client::everything("2025-11-25");
    let ids: Vec<_> = (0..200)
        .map(|i| client.send_request("tools/call", json!({"name": "echo", "arguments": {"message": format!("m{i}")}})))
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let res = client.response(id);
        check(&res, json!({"result": {"content": [{"text": format!("Echo: m{i}")}]}}));
    }
}

#[test]
fn a_burst_beyond_the_in_flight_cap_is_answered_in_full() {
    // A burst far beyond the in-flight cap must queue (back-pressure), not be refused.
    let mut client = Client::spawn(&["--everything", "--max-in-flight", "2"]);
    client.initialize("2025-11-25", json!({}));
    let burst: String = (0..1024)
        .map(|i| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":\"b{i}\",\"method\":\"tools/call\",\
                 \"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"{i}\"}}}}}}\n"
            )
        })
        .collect();
    client.send_raw(burst.as_bytes());
    let mut answered = std::collections::HashSet::new();
    while answered.len() < 1024 {
        let res = client.wait(|m| m["id"].as_str().is_some_and(|id| id.starts_with('b')));
        assert!(res.get("error").is_none(), "refused: {res}");
        let id = res["id"].as_str().unwrap().to_owned();
        check(&res, json!({"result": {"content": [{"text": format!("Echo: {}", &id[1..])}]}}));
        assert!(answered.insert(id), "answered twice");
    }
}

/// A line over the cap is refused with the id its start names, so the client
/// matches the refusal at once; an id the part read does not hold whole is `null`.
#[test]
fn an_oversized_message_is_refused_with_its_own_id() {
    let mut client = Client::spawn(&["--everything", "--max-message-bytes", "1000"]);
    client.initialize("2025-11-25", json!({}));
    let big = "x".repeat(5000);
    let call = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0",{id}"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{big}"}}}}}}"#
        )
    };
    for (id, expected) in [(r#""id":7,"#, json!(7)), (r#""id" : "req-ü","#, json!("req-ü"))] {
        client.send_line(&call(id));
        let res = client.wait(|m| m.get("error").is_some());
        check(&res, json!({"id": expected, "error": {"code": -32600}}));
        let message = res["error"]["message"].as_str().unwrap();
        assert!(message.contains("1000") && message.contains("--max-message-bytes"), "{res}");
    }
    // An `id` inside params, or after them, is not the request's.
    let nested = format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"id":9,"x":"{big}"}},"id":10}}"#);
    client.send_line(&nested);
    check(&client.wait(|m| m.get("error").is_some()), json!({"id": null, "error": {"code": -32600}}));
    check(&client.request("ping", json!({})), json!({"result": {}}));
}
