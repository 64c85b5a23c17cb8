//! Every per-request cost is bounded and roughly linear. Over-long URIs, names and
//! globs are refused at once with a clear error; what stays under the caps costs time linear in
//! the input. Each answer must come within the client's 10 s (`support::TIMEOUT`), far below
//! what the quadratic paths once cost (48 s, 55 s) and far above a debug build on a loaded
//! machine; how long they take is no threshold here.

use crate::support::{check, over_both_transports, Client, TempDir, Transport};
use serde_json::json;

fn everything_over(t: Transport, extra: &[&str]) -> Client {
    let mut args = vec!["--everything"];
    args.extend_from_slice(extra);
    let mut client = Client::spawn_over(t, &args);
    client.initialize("2025-11-25", json!({}));
    client
}

over_both_transports!(over_long_uris_and_names_are_refused_at_once, templates_match_long_uris_in_linear_time);

// Before: a 400 000-character URI cost 55 s of CPU in the template matcher. The bound is the
// client's 10 s (a fixed 2 s once failed under load).
fn over_long_uris_and_names_are_refused_at_once(t: Transport) {
    let dir = TempDir::new("long-uri");
    dir.write("a.txt", "a\n");
    let mut client = everything_over(t, &["--root", dir.arg()]);
    let long_uri = format!("{}{}", dir.uri(""), "a/".repeat(200_000));
    for method in ["resources/read", "resources/subscribe", "resources/unsubscribe"] {
        let res = client.request(method, json!({"uri": long_uri}));
        check(&res, json!({"error": {"code": -32602}}));
        let message = res["error"]["message"].as_str().unwrap();
        assert!(message.contains("longer than") && message.len() < 300, "{method}: {message}");
    }
    let long_name = "x".repeat(1 << 20);
    for (method, params) in [
        ("tools/call", json!({"name": long_name, "arguments": {}})),
        ("prompts/get", json!({"name": long_name})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": long_name}, "argument": {"name": "a", "value": ""}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": long_uri}, "argument": {"name": "a", "value": ""}}),
        ),
    ] {
        let res = client.request(method, params);
        check(&res, json!({"error": {"code": -32602}}));
        let message = res["error"]["message"].as_str().unwrap();
        assert!(message.contains("longer than") && message.len() < 300, "{method}: {message}");
    }
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

// Under the cap, a URI that almost matches a template costs time linear in its length.
fn templates_match_long_uris_in_linear_time(t: Transport) {
    let mut client = everything_over(t, &[]);
    let templates = client.request("resources/templates/list", json!({}));
    let template = templates["result"]["resourceTemplates"][0]["uriTemplate"].as_str().unwrap().to_owned();
    let prefix = template.split('{').next().unwrap().to_owned();
    // A shape that makes a backtracking matcher try every split of the value.
    let uri = format!("{prefix}{}", "%2".repeat(5_000));
    let res = client.request("resources/read", json!({"uri": uri}));
    assert!(res.get("error").is_some() || res.get("result").is_some(), "{res}");
}

// Before: a glob of 100 000 stars over 10 000 files took 48 s.
over_both_transports!(search_globs_are_capped_and_linear);

fn search_globs_are_capped_and_linear(t: Transport) {
    let dir = TempDir::new("glob");
    for i in 0..300 {
        dir.write(&format!("d{}/file-{i}-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.txt", i % 10), "needle\n");
    }
    let mut client = Client::spawn_over(t, &["--root", dir.arg()]);
    client.initialize("2025-11-25", json!({}));
    let call = |client: &mut Client, glob: &str| {
        client.request("tools/call", json!({"name": "search_files", "arguments": {"query": "needle", "glob": glob}}))
    };
    let refused = call(&mut client, &"*".repeat(100_000));
    check(&refused, json!({"result": {"isError": true}}));
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("glob") && text.len() < 300, "{text}");
    // Under the cap, stars and near-misses still cost linear time per file.
    let stars = format!("{}b", "*a".repeat(500));
    let none = call(&mut client, &stars);
    check(&none, json!({"result": {"structuredContent": {"matches": [], "truncated": false}}}));
    let all = call(&mut client, &format!("{}.txt", "*".repeat(1000)));
    check(&all, json!({"result": {"structuredContent": {"truncated": true}}}));
}
