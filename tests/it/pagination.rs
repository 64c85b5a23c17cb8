//! Cursors on every `*/list`: opaque, paging through everything once, bad ones `-32602`.

use crate::support::{check, Client};
use serde_json::{json, Value};

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
