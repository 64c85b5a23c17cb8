//! MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`) over stdio and Streamable HTTP:
//! negotiation on and off (2025-11-25 `initialize`, 2026-07-28 per-request `_meta` and
//! `server/discover`), the view's MIME type and `_meta.ui`, the tools' `_meta.ui`, app-only
//! tools hidden from a client without views, a manifest tool's view (`ui`) with its structured
//! result and edits reaching subscribers, and `--check` refusing bad `ui` values.

use crate::support::{check, over_both_transports, run_binary, Client, TempDir, Transport};
use crate::tasks_ext::{Http, Wire};
use serde_json::{json, Value};

const EXT: &str = "io.modelcontextprotocol/ui";
const MIME: &str = "text/html;profile=mcp-app";
const VIEW: &str = "ui://tinymcp/counter";

fn with_ui() -> Value {
    json!({"extensions": {EXT: {"mimeTypes": [MIME]}}})
}

fn everything_over(t: Transport, capabilities: Value) -> (Client, Value) {
    let mut client = Client::spawn_over(t, &["--everything"]);
    let init = client.initialize("2025-11-25", capabilities);
    (client, init)
}

fn tool<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name)
}

over_both_transports!(
    a_client_with_views_sees_links_and_app_only_tools,
    a_client_without_views_gets_the_same_tools_without_links,
    the_view_is_listed_and_read_with_its_mime_type_and_meta,
    a_manifest_tool_serves_its_view_and_edits_reach_subscribers,
);

fn a_client_with_views_sees_links_and_app_only_tools(t: Transport) {
    let (mut client, init) = everything_over(t, with_ui());
    check(&init, json!({"capabilities": {"extensions": {EXT: {}}}}));
    let list = client.request("tools/list", json!({}));
    check(
        tool(&list, "counter").expect("counter listed"),
        json!({"_meta": {"ui": {"resourceUri": VIEW}, "ui/resourceUri": VIEW}}),
    );
    check(
        tool(&list, "counter_reset").expect("app-only tool listed to a host with views"),
        json!({"_meta": {"ui": {"resourceUri": VIEW, "visibility": ["app"]}}}),
    );
    assert!(tool(&list, "counter").unwrap()["_meta"]["ui"].get("visibility").is_none(), "default visibility");
    // The view calls the app-only tool through its host.
    let reset = client.call_tool("counter_reset", json!({}));
    check(&reset, json!({"result": {"structuredContent": {"count": 0}}}));
}

fn a_client_without_views_gets_the_same_tools_without_links(t: Transport) {
    // Declaring the extension without the HTML type is not declaring views (spec: mimeTypes).
    for capabilities in [json!({}), json!({"extensions": {EXT: {"mimeTypes": ["text/uri-list"]}}})] {
        let (mut client, _) = everything_over(t, capabilities);
        let list = client.request("tools/list", json!({}));
        let counter = tool(&list, "counter").expect("counter listed");
        assert!(counter.get("_meta").is_none(), "no link without the extension: {counter}");
        assert!(tool(&list, "counter_reset").is_none(), "an app-only tool is not offered to the model");
        // Every tool still answers with text.
        let added = client.call_tool("counter", json!({"by": 3}));
        check(
            &added,
            json!({"result": {"content": [{"type": "text", "text": "count: 3"}], "structuredContent": {"count": 3}}}),
        );
        let hidden = client.call_tool("counter_reset", json!({}));
        check(&hidden, json!({"error": {"code": -32602}}));
    }
}

fn the_view_is_listed_and_read_with_its_mime_type_and_meta(t: Transport) {
    for capabilities in [with_ui(), json!({})] {
        let (mut client, _) = everything_over(t, capabilities);
        let list = client.request("resources/list", json!({}));
        let listed = list["result"]["resources"].as_array().unwrap().iter().find(|r| r["uri"] == VIEW);
        check(listed.expect("view listed"), json!({"mimeType": MIME, "_meta": {"ui": {"prefersBorder": true}}}));
        let read = client.request("resources/read", json!({"uri": VIEW}));
        check(
            &read,
            json!({"result": {"contents": [{"uri": VIEW, "mimeType": MIME, "_meta": {"ui": {"prefersBorder": true}}}]}}),
        );
        assert!(read["result"]["contents"][0]["text"].as_str().unwrap().starts_with("<!DOCTYPE html>"));
    }
}

#[test]
fn per_request_clients_negotiate_in_meta_and_discover_declares_the_extension() {
    per_request_negotiation(&mut Client::spawn(&["--everything"]));
    per_request_negotiation(&mut Http(crate::raw_http::Server::start(&[], &[]), 0));
}

/// On 2026-07-28 each request's own `_meta` says whether its client has views.
fn per_request_negotiation(w: &mut dyn Wire) {
    let discover = w.rpc("server/discover", json!({}), json!({}));
    check(&discover, json!({"result": {"capabilities": {"extensions": {EXT: {}}}}}));
    let on = w.rpc("tools/list", json!({}), with_ui());
    check(tool(&on, "counter_reset").expect("listed with views"), json!({"_meta": {"ui": {"visibility": ["app"]}}}));
    let off = w.rpc("tools/list", json!({}), json!({}));
    assert!(tool(&off, "counter_reset").is_none(), "hidden without views");
    assert!(tool(&off, "counter").unwrap().get("_meta").is_none(), "no link without views");
    let read = w.rpc("resources/read", json!({"uri": VIEW}), json!({}));
    check(&read, json!({"result": {"contents": [{"mimeType": MIME, "_meta": {"ui": {"prefersBorder": true}}}]}}));
}

#[test]
fn revisions_without_meta_neither_declare_nor_link() {
    let mut client = Client::spawn(&["--everything"]);
    let init = client.initialize("2025-03-26", with_ui());
    assert!(init["capabilities"].get("extensions").is_none(), "{init}");
    let list = client.request("tools/list", json!({}));
    assert!(tool(&list, "counter_reset").is_none());
}

const REPORT_HTML: &str = "<!DOCTYPE html><html><body><table id=\"rows\"></table></body></html>";

fn report_manifest() -> Value {
    json!({"tools": [{
        "name": "report",
        "description": "Counts fruit",
        "command": ["printf", "{\"who\":\"%s\",\"rows\":[{\"item\":\"apples\",\"count\":3}]}", "{{who}}"],
        "inputSchema": {"type": "object", "properties": {"who": {"type": "string", "pattern": "^[a-z]+$"}}, "required": ["who"]},
        "output": "json",
        "outputSchema": {"type": "object", "properties": {"who": {"type": "string"}, "rows": {"type": "array"}}, "required": ["rows"]},
        "ui": "views/report.html"
    }]})
}

fn a_manifest_tool_serves_its_view_and_edits_reach_subscribers(t: Transport) {
    let dir = TempDir::new("apps-manifest");
    dir.write("views/report.html", REPORT_HTML);
    let file = crate::manifest::write_manifest(&dir, &report_manifest());
    let mut client = Client::spawn_over(t, &["--manifest", &file, "--watch-interval", "20"]);
    let init = client.initialize("2025-11-25", with_ui());
    check(&init, json!({"capabilities": {"extensions": {EXT: {}}}}));
    let uri = "ui://tinymcp/report";
    let list = client.request("tools/list", json!({}));
    check(tool(&list, "report").expect("report listed"), json!({"_meta": {"ui": {"resourceUri": uri}}}));
    let read = client.request("resources/read", json!({"uri": uri}));
    check(&read, json!({"result": {"contents": [{"uri": uri, "mimeType": MIME, "text": REPORT_HTML}]}}));
    // What the view receives: the structured result, checked against the output schema.
    let called = client.call_tool("report", json!({"who": "ann"}));
    check(&called, json!({"result": {"structuredContent": {"who": "ann", "rows": [{"item": "apples", "count": 3}]}}}));
    check(&client.request("resources/subscribe", json!({"uri": uri})), json!({"result": {}}));
    let edited = "<!DOCTYPE html><html><body><p>edited</p></body></html>";
    // A later mtime than the first write, whatever the file system's clock resolution.
    std::thread::sleep(std::time::Duration::from_millis(20));
    dir.write("views/report.html", edited);
    client.wait(|m| m["method"] == "notifications/resources/updated" && m["params"]["uri"] == uri);
    let again = client.request("resources/read", json!({"uri": uri}));
    check(&again, json!({"result": {"contents": [{"text": edited}]}}));
}

#[test]
fn a_view_removed_from_the_manifest_is_gone() {
    let dir = TempDir::new("apps-removed");
    dir.write("views/report.html", REPORT_HTML);
    let file = crate::manifest::write_manifest(&dir, &report_manifest());
    let mut client = Client::spawn(&["--manifest", &file, "--watch-interval", "20"]);
    client.initialize("2025-11-25", with_ui());
    let mut without = report_manifest();
    without["tools"][0].as_object_mut().unwrap().remove("ui");
    crate::manifest::write_manifest(&dir, &without);
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let read = client.request("resources/read", json!({"uri": "ui://tinymcp/report"}));
    // Nothing else is a resource, so resources are gone altogether (-32601).
    assert!(read.get("error").is_some(), "the view is still read: {read}");
    let list = client.request("tools/list", json!({}));
    assert!(tool(&list, "report").unwrap().get("_meta").is_none());
}

#[test]
fn check_refuses_bad_ui_values_with_the_json_path() {
    let dir = TempDir::new("apps-check");
    let outside = TempDir::new("apps-check-outside");
    outside.write("evil.html", "<p>outside</p>");
    std::os::unix::fs::symlink(outside.path().join("evil.html"), dir.path().join("link.html")).unwrap();
    dir.write("views/report.html", REPORT_HTML);
    let good = crate::manifest::write_manifest(&dir, &report_manifest());
    let out = run_binary(&["--check", &good]);
    assert!(out.status.success(), "{out:?}");
    let mut bad = report_manifest();
    let base = bad["tools"][0].clone();
    let variant = |changes: Value| {
        let mut t = base.clone();
        for (k, v) in changes.as_object().unwrap() {
            t[k] = v.clone();
        }
        t
    };
    bad["tools"] = json!([
        variant(json!({"name": "a", "ui": 3})),
        variant(json!({"name": "b", "ui": "views/missing.html"})),
        variant(json!({"name": "c", "ui": "../outside.html"})),
        variant(json!({"name": "d", "ui": "link.html"})),
        variant(json!({"name": "e", "ui": "views/report.txt"})),
        variant(json!({"name": "f", "output": "text", "outputSchema": null})),
    ]);
    bad["tools"][5].as_object_mut().unwrap().remove("outputSchema");
    let file = crate::manifest::write_manifest(&dir, &bad);
    let out = run_binary(&["--check", &file]);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "tools[0].ui: expected an .html file inside the manifest's folder",
        "tools[1].ui: expected",
        "tools[2].ui: expected",
        "tools[3].ui: expected",
        "tools[4].ui: expected an .html file",
        "tools[5].ui: needs \"output\": \"json\"",
    ] {
        assert!(stderr.contains(expected), "no {expected:?} in {stderr}");
    }
}
