//! Client roots as the served folders: started with no folder, a client that declares `roots`
//! (up to 2025-11-25) is served its roots, asked for on every call and only for its session;
//! anyone else is served the current directory.

use crate::raw_http::{connect, initialize, read_reply, write_request};
use crate::stateless::{meta, REV};
use crate::support::{over_both_transports, tool_text as text_of, Client, TempDir, Transport};
use serde_json::{json, Value};
use std::io::BufReader;

/// The working directory (served to clients without roots) and two folders a client names.
struct Folders {
    here: TempDir,
    a: TempDir,
    b: TempDir,
}

fn folders() -> Folders {
    let here = TempDir::new("roots-here");
    here.write("here.txt", "H\n");
    let a = TempDir::new("roots-a");
    a.write("a.txt", "A\n");
    a.write("src/lib.rs", "// lib\n");
    a.write(".env", "SECRET=1\n");
    let b = TempDir::new("roots-b");
    b.write("b.txt", "B\n");
    Folders { here, a, b }
}

/// The label a served folder's paths start with when several are served: its name.
fn label(dir: &TempDir) -> String {
    dir.path().file_name().unwrap().to_str().unwrap().to_owned()
}

fn call(client: &mut Client, roots: &[String], tool: &str, args: Value) -> Value {
    client.request_with_roots("tools/call", json!({"name": tool, "arguments": args}), roots)
}

over_both_transports!(with_no_folder_a_client_with_roots_is_served_its_roots);

fn with_no_folder_a_client_with_roots_is_served_its_roots(t: Transport) {
    let f = folders();
    let mut client = Client::spawn_over_in(t, &["--no-watch"], Some(f.here.path()));
    client.initialize("2025-11-25", json!({"roots": {"listChanged": true}}));
    let both = vec![f.a.uri(""), f.b.uri("")];
    // Two roots: the top lists them, and a path starts with one's name.
    let top = call(&mut client, &both, "list_directory", json!({}));
    let names: Vec<&Value> =
        top["result"]["structuredContent"]["entries"].as_array().unwrap().iter().map(|e| &e["name"]).collect();
    assert_eq!(names, [&json!(label(&f.a)), &json!(label(&f.b))], "{top}");
    let read = call(&mut client, &both, "read_file", json!({"path": format!("{}/a.txt", label(&f.a))}));
    assert_eq!(text_of(&read), "A\n");
    // The working directory is not served to this client, and the sandbox holds inside a root.
    for path in ["here.txt".to_owned(), format!("{}/.env", label(&f.a))] {
        let refused = call(&mut client, &both, "read_file", json!({ "path": path }));
        assert_eq!(refused["result"]["isError"], true, "{path}: {refused}");
    }
    // A change of the roots counts from the next call: one root, paths relative to it.
    client.notify("notifications/roots/list_changed", json!({}));
    let only_b = vec![f.b.uri("")];
    let several = call(&mut client, &only_b, "read_multiple_files", json!({"paths": ["b.txt", "a.txt"]}));
    let files = &several["result"]["structuredContent"]["files"];
    assert_eq!(files[0], json!({"path": "b.txt", "content": "B\n"}), "{several}");
    assert_eq!(files[1]["path"], "a.txt");
    assert!(files[1]["error"].as_str().unwrap().contains("no such file"), "{several}");
    // Resources follow the roots too.
    let only_a = vec![f.a.uri("")];
    let listed = client.request_with_roots("resources/list", json!({}), &only_a);
    let mut names: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["a.txt", "src/lib.rs"], "{listed}");
    let read = client.request_with_roots("resources/read", json!({"uri": f.a.uri("a.txt")}), &only_a);
    assert_eq!(read["result"]["contents"][0]["text"], "A\n", "{read}");
    let elsewhere = client.request_with_roots("resources/read", json!({"uri": f.here.uri("here.txt")}), &only_a);
    assert!(elsewhere["error"]["message"].as_str().unwrap().contains("not found"), "{elsewhere}");
    // Roots that name no local folder are refused: nothing is served.
    let bad = vec!["https://example.com/repo".to_owned(), f.a.uri("missing"), "file://host/share".to_owned()];
    let none = call(&mut client, &bad, "list_directory", json!({}));
    assert_eq!(none["result"]["isError"], true, "{none}");
    assert!(text_of(&none).contains("nothing is served"), "{none}");
}

#[test]
fn a_client_without_roots_listing_none_or_of_2026_is_served_the_current_directory() {
    let f = folders();
    let mut client = Client::spawn_in(&["--no-watch"], Some(f.here.path()));
    client.initialize("2025-11-25", json!({}));
    assert_eq!(text_of(&client.call_tool("read_file", json!({"path": "here.txt"}))), "H\n");
    // The server asks for roots before it answers a call that needs them.
    assert!(client.backlog.iter().all(|m| m["method"] != "roots/list"), "{:?}", client.backlog);
    // A client that declares roots but lists none (no folder open) is served the same.
    let mut empty = Client::spawn_in(&["--no-watch"], Some(f.here.path()));
    empty.initialize("2025-11-25", json!({"roots": {}}));
    assert_eq!(text_of(&call(&mut empty, &[], "read_file", json!({"path": "here.txt"}))), "H\n");
    // Roots are deprecated in 2026-07-28: a client of that revision declaring them is not asked.
    let mut modern = Client::spawn_in(&["--no-watch"], Some(f.here.path()));
    modern.revision = Some(REV.into());
    let params = json!({"name": "read_file", "arguments": {"path": "here.txt"}, "_meta": meta(json!({"roots": {}}))});
    assert_eq!(text_of(&modern.request_with_roots("tools/call", params, &[f.a.uri("")])), "H\n");
}

#[test]
fn a_folder_on_the_command_line_is_served_whatever_the_client_declares() {
    let f = folders();
    let mut client = Client::spawn_in(&["--root", f.b.arg(), "--no-watch"], Some(f.here.path()));
    client.initialize("2025-11-25", json!({"roots": {"listChanged": true}}));
    // No roots/list is asked: the answer comes straight back.
    let read =
        client.request_with_roots("tools/call", json!({"name": "read_file", "arguments": {"path": "b.txt"}}), &[]);
    assert_eq!(text_of(&read), "B\n");
}

#[test]
fn what_is_served_to_a_client_is_logged_with_its_missing_bound() {
    let f = folders();
    let mut client = Client::spawn_keeping_stderr(&["--no-watch"]);
    client.initialize("2025-11-25", json!({"roots": {}}));
    let roots = vec![f.a.uri(""), "https://example.com/repo".to_owned()];
    // Asked on every call, logged once per set of roots.
    for _ in 0..2 {
        assert_eq!(text_of(&call(&mut client, &roots, "read_file", json!({"path": "a.txt"}))), "A\n");
    }
    let log = client.close_keeping_stderr();
    assert_eq!(log.matches("serving the client's root").count(), 1, "{log}");
    assert!(log.contains("a client that declares roots (up to 2025-11-25) is served its roots"), "{log}");
    assert!(log.contains(&format!("serving the client's root {} read-only", f.a.arg())), "{log}");
    assert!(log.contains("nothing bounds the client's roots"), "{log}");
    assert!(log.contains("client root \"https://example.com/repo\" is not a local folder: refused"), "{log}");
}

/// One session's roots are its own: another session on the same server, without roots, is
/// served the current directory and none of them.
#[test]
fn over_http_one_sessions_roots_never_reach_another_session() {
    let f = folders();
    let mut client = Client::spawn_over_in(Transport::Http, &["--no-watch"], Some(f.here.path()));
    client.initialize("2025-11-25", json!({"roots": {}}));
    let only_a = vec![f.a.uri("")];
    assert_eq!(text_of(&call(&mut client, &only_a, "read_file", json!({"path": "a.txt"}))), "A\n");
    let port = client.http_port().unwrap();
    let post = |session: Option<&str>, body: Value| {
        let mut stream = connect(port);
        let mut headers = vec![("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")];
        if let Some(id) = session {
            headers.push(("Mcp-Session-Id", id));
            headers.push(("MCP-Protocol-Version", "2025-11-25"));
        }
        write_request(&mut stream, port, "POST", "/mcp", &headers, &body.to_string());
        read_reply(&mut BufReader::new(stream))
    };
    let opened = post(None, initialize(json!({})));
    let id = opened.header("mcp-session-id").unwrap().to_owned();
    post(Some(&id), json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let read = |path: &str| {
        let reply = post(
            Some(&id),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": path}}}),
        );
        let answer = match reply.events().into_iter().next() {
            Some((_, message)) => message,
            None => reply.json(),
        };
        answer["result"].clone()
    };
    assert_eq!(read("a.txt")["isError"], true);
    assert_eq!(read("here.txt")["content"][0]["text"], "H\n");
    // And the first session still has its roots.
    assert_eq!(text_of(&call(&mut client, &only_a, "read_file", json!({"path": "a.txt"}))), "A\n");
}
