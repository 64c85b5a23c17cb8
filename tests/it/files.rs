//! The default job: a folder served read-only. Resources (list, read, template, completion,
//! subscriptions), the four tools, the `summarize_file` prompt, and the sandbox refusing every
//! spelling of an escape; the sandbox, reads and change notifications over HTTP as well.

use crate::support::{
    check, over_both_transports, tool_text as text_of, wait_for, Client, TempDir, Transport, TIMEOUT,
};
use serde_json::{json, Value};
use std::time::Duration;

/// The read-only file tools, in the order they are registered (and listed).
pub const READ_ONLY_TOOLS: [&str; 7] =
    ["list_directory", "read_file", "search_files", "file_info", "directory_tree", "find_files", "read_multiple_files"];

/// A folder with text, code, an image, a binary, hidden files, a link inside and links outside.
struct Fixture {
    dir: TempDir,
    outside: TempDir,
}

fn fixture() -> Fixture {
    let dir = TempDir::new("files");
    let outside = TempDir::new("outside");
    dir.write("a.txt", "hello world\nsecond line HELLO\n");
    dir.write("with space.md", "# Title\n");
    dir.write("sub/m.rs", "fn main() {}\n// hello from rust\n");
    dir.write("sub/deeper/notes.txt", "nothing to see\n");
    dir.write(".git/config", "secret hello\n");
    dir.write(".env", "TOKEN=hello\n");
    dir.write("i.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    dir.write("data.bin", b"\0\x01\x02\xffhello\0");
    outside.write("secret.txt", "outside hello\n");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("escape")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape_dir")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("a.txt"), dir.path().join("link.txt")).unwrap();
    Fixture { dir, outside }
}

fn serve(dir: &TempDir, extra: &[&str]) -> Client {
    serve_over(Transport::Stdio, dir, extra)
}

fn serve_over(t: Transport, dir: &TempDir, extra: &[&str]) -> Client {
    let mut args = vec!["--root", dir.arg(), "--watch-interval", "20"];
    args.extend_from_slice(extra);
    let mut client = Client::spawn_over(t, &args);
    client.initialize("2025-11-25", json!({}));
    client
}

/// Waits for two watcher ticks later than every change made so far, and returns what came
/// meanwhile (the backlog's first): a probe file is added, then removed once its list change
/// came. The watcher is one thread and each listener's messages go through one queue, so
/// whatever the tick that saw the earlier changes sent came before the second list change.
pub(crate) fn after_later_ticks(client: &mut Client, dir: &TempDir) -> Vec<Value> {
    let probe = dir.write("tick-probe.txt", "probe\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    std::fs::remove_file(probe).expect("remove the probe");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    client.backlog.drain(..).collect()
}

/// Whether the process `pid` runs a thread named `name`.
pub(crate) fn has_thread(pid: u32, name: &str) -> bool {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("the process's threads");
    tasks.flatten().any(|t| std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim_end() == name))
}

fn names(list: &Value) -> Vec<String> {
    list["result"]["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_owned()).collect()
}

// The sandbox and the change notifications hold over HTTP too (notifications on the GET stream).
over_both_transports!(
    resources_read_text_as_text_and_binary_as_blob,
    resources_outside_the_root_are_not_found,
    every_escape_spelling_is_refused_by_every_tool,
    subscribed_files_report_changes_and_new_files_change_the_list,
    summarize_file_embeds_the_file_and_completes_its_path,
    read_file_windows_binary_files_too,
    names_with_percent_signs_are_plain_names_for_tools,
    a_text_file_that_is_not_utf8_is_read_as_latin1_and_says_so,
    a_resource_over_the_size_limit_is_too_large_not_missing,
);

#[test]
fn resources_list_every_regular_file_but_hidden_ones_and_outside_links() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    let list = client.request("resources/list", json!({}));
    assert_eq!(
        names(&list),
        ["a.txt", "data.bin", "i.png", "link.txt", "sub/deeper/notes.txt", "sub/m.rs", "with space.md"]
    );
    let resources = list["result"]["resources"].as_array().unwrap();
    check(&resources[0], json!({"uri": f.dir.uri("a.txt"), "name": "a.txt", "mimeType": "text/plain", "size": 30}));
    let spaced = resources.iter().find(|r| r["name"] == "with space.md").unwrap();
    check(spaced, json!({"uri": f.dir.uri("with space.md"), "mimeType": "text/markdown"}));
    assert!(spaced["uri"].as_str().unwrap().ends_with("/with%20space.md"));
}

#[test]
fn include_hidden_serves_dot_files() {
    let f = fixture();
    let mut client = serve(&f.dir, &["--include-hidden"]);
    let listed = names(&client.request("resources/list", json!({})));
    assert!(listed.contains(&".git/config".to_owned()) && listed.contains(&".env".to_owned()), "{listed:?}");
    let read = client.call_tool("read_file", json!({"path": ".env"}));
    assert_eq!(text_of(&read), "TOKEN=hello\n");
}

#[test]
fn resources_list_is_paginated() {
    let f = fixture();
    let mut client = serve(&f.dir, &["--page-size", "3"]);
    let mut seen = Vec::new();
    let mut cursor: Option<Value> = None;
    loop {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let page = client.request("resources/list", params);
        seen.extend(names(&page));
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 7, "{seen:?}");
}

fn resources_read_text_as_text_and_binary_as_blob(t: Transport) {
    let f = fixture();
    let mut client = serve_over(t, &f.dir, &[]);
    let text = client.request("resources/read", json!({"uri": f.dir.uri("a.txt")}));
    check(
        &text,
        json!({"result": {"contents": [{"uri": f.dir.uri("a.txt"), "mimeType": "text/plain", "text": "hello world\nsecond line HELLO\n"}]}}),
    );
    let spaced = client.request("resources/read", json!({"uri": f.dir.uri("with space.md")}));
    check(&spaced, json!({"result": {"contents": [{"text": "# Title\n"}]}}));
    let blob = client.request("resources/read", json!({"uri": f.dir.uri("data.bin")}));
    check(&blob, json!({"result": {"contents": [{"uri": f.dir.uri("data.bin"), "blob": "AAEC/2hlbGxvAA=="}]}}));
    let image = client.request("resources/read", json!({"uri": f.dir.uri("i.png")}));
    check(&image, json!({"result": {"contents": [{"mimeType": "image/png"}]}}));
    assert!(image["result"]["contents"][0]["blob"].is_string());
}

fn resources_outside_the_root_are_not_found(t: Transport) {
    let f = fixture();
    let mut client = serve_over(t, &f.dir, &[]);
    let root = f.dir.uri("");
    for uri in [
        f.dir.uri("escape"),
        f.dir.uri("escape_dir/secret.txt"),
        f.dir.uri(".env"),
        format!("{root}..%2F..%2Fetc%2Fpasswd"),
        format!("{root}%2e%2e/%2e%2e/etc/passwd"),
        format!("{root}../../etc/passwd"),
        format!("{root}sub//m.rs"),
        format!("{root}sub%5cm.rs"),
        format!("{root}nope.txt"),
        "file:///etc/passwd".to_owned(),
        f.outside.uri("secret.txt"),
    ] {
        let res = client.request("resources/read", json!({"uri": uri}));
        check(&res, json!({"error": {"code": -32002}}));
        assert!(!res.to_string().contains("outside hello"), "{res}");
    }
}

#[test]
fn a_template_per_root_completes_paths_from_a_prefix() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    let templates = client.request("resources/templates/list", json!({}));
    let template = format!("{}{{+path}}", f.dir.uri(""));
    check(&templates, json!({"result": {"resourceTemplates": [{"uriTemplate": template}]}}));
    let complete = |client: &mut Client, value: &str| {
        client.request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": template}, "argument": {"name": "path", "value": value}}),
        )["result"]["completion"]["values"]
            .clone()
    };
    assert_eq!(complete(&mut client, "su"), json!(["sub/"]));
    assert_eq!(complete(&mut client, "sub/"), json!(["sub/deeper/", "sub/m.rs"]));
    assert_eq!(complete(&mut client, "sub/M"), json!(["sub/m.rs"]));
    assert_eq!(complete(&mut client, "../"), json!([]));
    assert_eq!(complete(&mut client, "escape_dir/"), json!([]));
    assert_eq!(complete(&mut client, ".g"), json!([]));
}

#[test]
fn the_read_only_tools_are_read_only_with_schemas() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, READ_ONLY_TOOLS);
    for tool in tools.as_array().unwrap() {
        check(tool, json!({"annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}}));
        if tool["name"] != "read_file" && tool["name"] != "read_multiple_files" {
            assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
        }
    }
}

#[test]
fn list_directory_gives_kinds_and_sizes() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    let top = client.call_tool("list_directory", json!({}));
    let entries = top["result"]["structuredContent"]["entries"].as_array().unwrap().clone();
    let shown: Vec<(&str, &str)> =
        entries.iter().map(|e| (e["name"].as_str().unwrap(), e["kind"].as_str().unwrap())).collect();
    assert_eq!(
        shown,
        [
            ("a.txt", "file"),
            ("data.bin", "file"),
            ("escape", "symlink"),
            ("escape_dir", "symlink"),
            ("i.png", "file"),
            ("link.txt", "file"),
            ("sub", "directory"),
            ("with space.md", "file")
        ]
    );
    check(&entries[0], json!({"size": 30}));
    let sub = client.call_tool("list_directory", json!({"path": "sub"}));
    check(
        &sub,
        json!({"result": {"structuredContent": {"path": "sub", "truncated": false, "entries": [
            {"name": "deeper", "kind": "directory"}, {"name": "m.rs", "kind": "file", "size": 32}]}}}),
    );
    assert!(text_of(&sub).contains("deeper/"));
    let file = client.call_tool("list_directory", json!({"path": "a.txt"}));
    check(&file, json!({"result": {"isError": true}}));
}

#[test]
fn read_file_reads_a_window_and_says_when_truncated() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    check(
        &client.call_tool("read_file", json!({"path": "a.txt"})),
        json!({"result": {"content": [{"type": "text", "text": "hello world\nsecond line HELLO\n"}]}}),
    );
    let window = client.call_tool("read_file", json!({"path": "a.txt", "offset": 6, "length": 5}));
    assert_eq!(window["result"]["content"][0]["text"], "world");
    let note = window["result"]["content"][1]["text"].as_str().unwrap();
    assert!(note.contains("bytes 6-11 of 30") && note.contains("offset=11"), "{note}");
    // The default cap: a big file comes back in part, with a note saying how to read on.
    f.dir.write("big.txt", "0123456789\n".repeat(40_000));
    let big = client.call_tool("read_file", json!({"path": "big.txt"}));
    assert_eq!(big["result"]["content"][0]["text"].as_str().unwrap().len(), 256 * 1024);
    assert!(text_of(&big).contains("Call read_file with offset=262144"), "{}", text_of(&big));
    let past = client.call_tool("read_file", json!({"path": "a.txt", "offset": 99}));
    check(&past, json!({"result": {"isError": true}}));
}

#[test]
fn read_file_returns_images_as_images_and_binaries_as_blobs() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    check(
        &client.call_tool("read_file", json!({"path": "i.png"})),
        json!({"result": {"content": [{"type": "image", "mimeType": "image/png"}]}}),
    );
    check(
        &client.call_tool("read_file", json!({"path": "data.bin"})),
        json!({"result": {"content": [{"type": "resource", "resource": {"uri": f.dir.uri("data.bin"), "blob": "AAEC/2hlbGxvAA=="}}]}}),
    );
    // A link inside the folder is followed.
    assert_eq!(
        text_of(&client.call_tool("read_file", json!({"path": "link.txt"}))),
        "hello world\nsecond line HELLO\n"
    );
}

#[test]
fn search_files_finds_lines_case_insensitively_and_is_bounded() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    let all = client.call_tool("search_files", json!({"query": "HeLLo"}));
    assert_eq!(
        text_of(&all),
        "a.txt:1: hello world\na.txt:2: second line HELLO\nlink.txt:1: hello world\nlink.txt:2: second line HELLO\nsub/m.rs:2: // hello from rust\n"
    );
    check(
        &all,
        json!({"result": {"structuredContent": {"truncated": false, "matches": [{"path": "a.txt", "line": 1, "text": "hello world"}, {}, {}, {}, {}]}}}),
    );
    let rust = client.call_tool("search_files", json!({"query": "hello", "glob": "*.rs"}));
    assert_eq!(text_of(&rust), "sub/m.rs:2: // hello from rust\n");
    let under = client.call_tool("search_files", json!({"query": "nothing", "path": "sub"}));
    assert_eq!(text_of(&under), "sub/deeper/notes.txt:1: nothing to see\n");
    let one = client.call_tool("search_files", json!({"query": "hello", "max_results": 1}));
    check(&one, json!({"result": {"structuredContent": {"truncated": true}}}));
    assert!(text_of(&one).contains("stopped after 1 matches"));
    let none = client.call_tool("search_files", json!({"query": "zebra"}));
    check(&none, json!({"result": {"structuredContent": {"matches": [], "truncated": false}}}));
}

#[test]
fn file_info_gives_kind_size_time_and_type() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    let info = client.call_tool("file_info", json!({"path": "sub/m.rs"}));
    check(
        &info,
        json!({"result": {"structuredContent": {"path": "sub/m.rs", "kind": "file", "size": 32, "mimeType": "text/x-rust"}}}),
    );
    let modified = info["result"]["structuredContent"]["modified"].as_str().unwrap();
    assert!(modified.len() == 20 && modified.ends_with('Z'), "{modified}");
    check(
        &client.call_tool("file_info", json!({"path": "sub"})),
        json!({"result": {"structuredContent": {"kind": "directory"}}}),
    );
}

fn every_escape_spelling_is_refused_by_every_tool(t: Transport) {
    let f = fixture();
    let mut client = serve_over(t, &f.dir, &[]);
    let outside = f.outside.path().join("secret.txt");
    let escapes = [
        ("..", "leaves the served folder"),
        ("../x", "leaves the served folder"),
        ("sub/../../x", "leaves the served folder"),
        ("/etc/passwd", "is absolute"),
        (outside.to_str().unwrap(), "is absolute"),
        ("%2e%2e/x", "leaves the served folder"),
        ("%2E%2E%2Fsecret.txt", "percent-encoded separator"),
        ("sub%2f..%2f..%2fx", "percent-encoded separator"),
        ("sub%2fm.rs", "percent-encoded separator"),
        ("%2e%2e", "leaves the served folder"),
        ("%252e%252e/x", "percent-encoded twice"),
        ("sub//m.rs", "doubled /"),
        ("//etc/passwd", "is absolute"),
        ("escape", "symbolic link leads outside"),
        ("escape_dir/secret.txt", "symbolic link leads outside"),
        ("..\\x", "backslash"),
        ("sub\\m.rs", "backslash"),
        ("sub%5cm.rs", "percent-encoded separator"),
        ("C:/Windows", "Windows drive"),
        (".git/config", "hidden"),
        (".env", "hidden"),
    ];
    for (path, why) in escapes {
        for (tool, args) in [
            ("read_file", json!({"path": path})),
            ("file_info", json!({"path": path})),
            ("list_directory", json!({"path": path})),
            ("search_files", json!({"query": "hello", "path": path})),
        ] {
            let res = client.call_tool(tool, args);
            let text = text_of(&res);
            assert_eq!(res["result"]["isError"], true, "{tool} {path:?}: {res}");
            // A path that does not exist may be refused for that reason instead (no leak either way).
            assert!(
                text.contains(why) || text.contains("no such file"),
                "{tool} {path:?} refused for the wrong reason: {text}"
            );
            assert!(!text.contains("outside hello") && !text.contains("secret hello"), "{tool} {path:?} leaked");
        }
    }
}

fn summarize_file_embeds_the_file_and_completes_its_path(t: Transport) {
    let f = fixture();
    let mut client = serve_over(t, &f.dir, &[]);
    let prompt = client.request("prompts/get", json!({"name": "summarize_file", "arguments": {"path": "sub/m.rs"}}));
    check(
        &prompt,
        json!({"result": {"messages": [
            {"role": "user", "content": {"type": "text"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": f.dir.uri("sub/m.rs"), "mimeType": "text/x-rust", "text": "fn main() {}\n// hello from rust\n"}}}
        ]}}),
    );
    let refused = client.request("prompts/get", json!({"name": "summarize_file", "arguments": {"path": "../x"}}));
    check(&refused, json!({"error": {"code": -32602}}));
    let complete = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "summarize_file"}, "argument": {"name": "path", "value": "w"}}),
    );
    check(&complete, json!({"result": {"completion": {"values": ["with space.md"]}}}));
}

fn subscribed_files_report_changes_and_new_files_change_the_list(t: Transport) {
    let f = fixture();
    let mut client = serve_over(t, &f.dir, &[]);
    // The thread `no_watch_sends_no_change_notifications` finds absent. A thread names itself
    // once it runs, which a busy machine may delay past the first answer: waited for.
    wait_for("the watcher thread", TIMEOUT, || has_thread(client.pid(), "tinymcp-watch").then_some(()));
    let uri = f.dir.uri("a.txt");
    client.request("resources/read", json!({"uri": uri}));
    check(&client.request("resources/subscribe", json!({"uri": uri})), json!({"result": {}}));
    f.dir.write("a.txt", "changed, and longer than before\n");
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    check(&updated, json!({"params": {"uri": uri}}));
    f.dir.write("sub/new.txt", "new\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    assert!(names(&client.request("resources/list", json!({}))).contains(&"sub/new.txt".to_owned()));
    std::fs::remove_file(f.dir.path().join("sub/new.txt")).unwrap();
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    assert!(!names(&client.request("resources/list", json!({}))).contains(&"sub/new.txt".to_owned()));
    // An unsubscribed file changing sends nothing. A write is a truncation then a write, so a
    // busy machine's watcher may have seen the first change twice: forget what came so far.
    after_later_ticks(&mut client, &f.dir);
    check(&client.request("resources/unsubscribe", json!({"uri": uri})), json!({"result": {}}));
    f.dir.write("a.txt", "x");
    let seen = after_later_ticks(&mut client, &f.dir);
    assert!(!seen.iter().any(|m| m["method"] == "notifications/resources/updated"), "{seen:?}");
}

#[test]
fn a_file_changed_right_after_an_unread_subscription_is_reported() {
    // The watcher looks every 500 ms; the change comes before its next look, so only what the
    // subscription noted tells that the file changed.
    let f = fixture();
    let mut client = Client::spawn(&["--root", f.dir.arg(), "--watch-interval", "500"]);
    client.initialize("2025-11-25", json!({}));
    let uri = f.dir.uri("sub/m.rs");
    check(&client.request("resources/subscribe", json!({"uri": uri})), json!({"result": {}}));
    f.dir.write("sub/m.rs", "fn main() { println!(\"changed\"); }\n");
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    check(&updated, json!({"params": {"uri": uri}}));
}

#[test]
fn a_file_added_after_a_listing_before_the_first_look_changes_the_list() {
    // The watcher first looks at the trees at its first tick (500 ms here), not at start, so
    // that the first answer waits for no walk. A listing before that tick takes the look
    // itself: the file added after it is then a change, reported at the tick.
    let f = fixture();
    let mut client = Client::spawn(&["--root", f.dir.arg(), "--watch-interval", "500"]);
    client.initialize("2025-11-25", json!({}));
    assert!(!names(&client.request("resources/list", json!({}))).contains(&"sub/later.txt".to_owned()));
    f.dir.write("sub/later.txt", "added before the watcher's first tick\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    assert!(names(&client.request("resources/list", json!({}))).contains(&"sub/later.txt".to_owned()));
}

#[test]
fn no_watch_sends_no_change_notifications() {
    let f = fixture();
    let mut client = serve(&f.dir, &["--no-watch"]);
    let uri = f.dir.uri("a.txt");
    client.request("resources/read", json!({"uri": uri}));
    client.request("resources/subscribe", json!({"uri": uri}));
    f.dir.write("a.txt", "changed, and longer than before\n");
    f.dir.write("new.txt", "new\n");
    // Nothing looks at the files: no watcher thread runs (the one that would is tinymcp-watch).
    assert!(!has_thread(client.pid(), "tinymcp-watch"), "a watcher runs despite --no-watch");
    let seen = client.settle();
    assert!(seen.iter().all(|m| m.get("method").is_none()), "{seen:?}");
}

#[test]
fn with_no_flags_the_current_directory_is_served() {
    let f = fixture();
    let mut client = Client::spawn_in(&[], Some(f.dir.path()));
    client.initialize("2025-11-25", json!({}));
    let read = client.call_tool("read_file", json!({"path": "sub/m.rs"}));
    assert_eq!(text_of(&read), "fn main() {}\n// hello from rust\n");
}

#[test]
fn everything_alone_serves_no_folder_but_combines_with_root() {
    let f = fixture();
    let mut alone = Client::spawn_in(&["--everything"], Some(f.dir.path()));
    alone.initialize("2025-11-25", json!({}));
    check(&alone.call_tool("read_file", json!({"path": "a.txt"})), json!({"error": {"code": -32602}}));
    let mut both = serve(&f.dir, &["--everything"]);
    check(&both.call_tool("echo", json!({"message": "hi"})), json!({"result": {"content": [{"text": "Echo: hi"}]}}));
    assert_eq!(text_of(&both.call_tool("read_file", json!({"path": "a.txt"}))), "hello world\nsecond line HELLO\n");
}

#[test]
fn several_roots_are_told_apart_by_their_folder_name() {
    let first = TempDir::new("first");
    let second = TempDir::new("second");
    first.write("one.txt", "1\n");
    second.write("two.txt", "2\n");
    let mut client = Client::spawn(&["--root", first.arg(), "--root", second.arg()]);
    client.initialize("2025-11-25", json!({}));
    let top = client.call_tool("list_directory", json!({}));
    let labels: Vec<String> = top["result"]["structuredContent"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    let first_label = first.path().file_name().unwrap().to_str().unwrap();
    let second_label = second.path().file_name().unwrap().to_str().unwrap();
    assert_eq!(labels, [first_label, second_label]);
    let two = client.call_tool("read_file", json!({"path": format!("{second_label}/two.txt")}));
    assert_eq!(text_of(&two), "2\n");
    let listed = names(&client.request("resources/list", json!({})));
    assert_eq!(listed, [format!("{first_label}/one.txt"), format!("{second_label}/two.txt")]);
    let templates = client.request("resources/templates/list", json!({}));
    assert_eq!(templates["result"]["resourceTemplates"].as_array().unwrap().len(), 2);
}

/// Makes a FIFO and a socket in `dir` (and a character device when the system lets us).
fn special_files(dir: &TempDir) -> Vec<&'static str> {
    let made = std::process::Command::new("mkfifo").arg(dir.path().join("fifo")).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    std::mem::forget(socket);
    std::os::unix::fs::symlink(dir.path().join("fifo"), dir.path().join("to_fifo")).unwrap();
    let mut names = vec!["fifo", "sock", "to_fifo"];
    let device = std::process::Command::new("mknod")
        .args([dir.path().join("zero").to_str().unwrap(), "c", "1", "5"])
        .stderr(std::process::Stdio::null())
        .status();
    if device.is_ok_and(|s| s.success()) {
        names.push("zero");
    }
    names
}

// A FIFO, a socket or a device inside the served folder is refused on every path,
// at once: opening a FIFO used to block the handler forever, a device was read until memory ran out.
over_both_transports!(fifos_sockets_and_devices_are_refused_on_every_path);

fn fifos_sockets_and_devices_are_refused_on_every_path(t: Transport) {
    let f = fixture();
    let specials = special_files(&f.dir);
    let mut client = serve_over(t, &f.dir, &[]);
    for name in specials {
        let read = client.request("resources/read", json!({"uri": f.dir.uri(name)}));
        check(&read, json!({"error": {"code": -32002}}));
        for (tool, args) in
            [("read_file", json!({"path": name})), ("search_files", json!({"query": "x", "path": name}))]
        {
            let res = client.call_tool(tool, args);
            assert_eq!(res["result"]["isError"], true, "{tool} {name}: {res}");
        }
        let prompt = client.request("prompts/get", json!({"name": "summarize_file", "arguments": {"path": name}}));
        check(&prompt, json!({"error": {"code": -32602}}));
        let complete = client.request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "summarize_file"}, "argument": {"name": "path", "value": name}}),
        );
        check(&complete, json!({"result": {"completion": {"values": []}}}));
    }
    let listed = names(&client.request("resources/list", json!({})));
    assert!(!listed.iter().any(|n| ["fifo", "sock", "to_fifo", "zero"].contains(&n.as_str())), "{listed:?}");
    // The server still answers: nothing was left blocked.
    check(&client.request("ping", json!({})), json!({"result": {}}));
}

// The decision that a file is inside the root is made about the file actually opened.
// A writer in the folder swaps a file, and a folder, for symbolic links to outside as fast as it
// can; not one read may return outside content (before: about 0.5 % did). The reads are
// pipelined on a raw stdio link (no schema check per answer), so thousands fit in a few seconds.
#[test]
fn swapping_in_symbolic_links_never_leaks_outside_content() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let f = fixture();
    f.outside.write("race.txt", "OUTSIDE-SECRET\n");
    f.outside.write("d/f.txt", "OUTSIDE-SECRET\n");
    // A name only the outside folder has: a tree or a search by name that walked it would show it.
    f.outside.write("d/OUTSIDE-SECRET.txt", "x\n");
    f.dir.write("race.txt", "inside\n");
    f.dir.write("d/f.txt", "inside\n");
    let (mut server, mut input, lines) = crate::support::raw_stdio(&["--root", f.dir.arg(), "--no-watch"]);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (dir, outside, stop) = (f.dir.path().to_path_buf(), f.outside.path().to_path_buf(), stop.clone());
        std::thread::spawn(move || {
            for n in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let tmp = dir.join("tmp");
                let _ = std::fs::remove_file(&tmp);
                if n % 2 == 0 {
                    std::os::unix::fs::symlink(outside.join("race.txt"), &tmp).unwrap();
                    std::fs::rename(&tmp, dir.join("race.txt")).unwrap();
                    std::fs::remove_dir_all(dir.join("d")).unwrap();
                    std::os::unix::fs::symlink(outside.join("d"), dir.join("d")).unwrap();
                } else {
                    std::fs::write(&tmp, "inside\n").unwrap();
                    std::fs::rename(&tmp, dir.join("race.txt")).unwrap();
                    std::fs::remove_file(dir.join("d")).unwrap();
                    std::fs::create_dir(dir.join("d")).unwrap();
                    std::fs::write(dir.join("d/f.txt"), "inside\n").unwrap();
                }
            }
        })
    };
    let requests = [
        json!({"method": "resources/read", "params": {"uri": f.dir.uri("race.txt")}}),
        json!({"method": "resources/read", "params": {"uri": f.dir.uri("d/f.txt")}}),
        json!({"method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "race.txt"}}}),
        json!({"method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "d/f.txt"}}}),
        json!({"method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "race.txt", "tail": 1}}}),
        json!({"method": "tools/call", "params": {"name": "directory_tree", "arguments": {"path": "d"}}}),
        json!({"method": "tools/call", "params": {"name": "directory_tree", "arguments": {}}}),
        json!({"method": "tools/call", "params": {"name": "find_files", "arguments": {"pattern": "**", "path": "d"}}}),
        json!({"method": "tools/call", "params": {"name": "find_files", "arguments": {"pattern": "*.txt"}}}),
        json!({"method": "tools/call", "params": {"name": "read_multiple_files", "arguments": {"paths": ["race.txt", "d/f.txt"]}}}),
    ];
    let (mut reads, mut leaks, mut id) = (0, Vec::new(), 0);
    let deadline = std::time::Instant::now() + Duration::from_secs(4);
    while std::time::Instant::now() < deadline && reads < 40_000 {
        let mut batch = String::new();
        for _ in 0..100 {
            id += 1;
            let mut request = requests[id % requests.len()].clone();
            request["jsonrpc"] = json!("2.0");
            request["id"] = json!(id);
            batch.push_str(&format!("{request}\n"));
        }
        input.write_all(batch.as_bytes()).unwrap();
        for _ in 0..100 {
            let answer = lines.recv_timeout(crate::support::TIMEOUT).expect("an answer");
            reads += 1;
            if answer.contains("OUTSIDE-SECRET") {
                leaks.push(answer);
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(leaks.is_empty(), "{} of {reads} reads returned outside content, e.g. {}", leaks.len(), leaks[0]);
}

// Exact answers at the edges. A walk that stopped early says so; a long folder is
// read page by page; an offset past the end (however it is spelled) never reads the start.
#[test]
fn search_says_truncated_when_the_walk_stopped_early() {
    let dir = TempDir::new("walk-cap");
    for i in 0..60 {
        dir.write(&format!("f{i:02}.txt"), "zebra\n");
    }
    let mut client = serve(&dir, &["--max-files", "50"]);
    let res = client.call_tool("search_files", json!({"query": "zebra", "max_results": 1000}));
    check(&res, json!({"result": {"structuredContent": {"truncated": true}}}));
    assert_eq!(res["result"]["structuredContent"]["matches"].as_array().unwrap().len(), 50);
    assert!(text_of(&res).contains("stopped after 50 files"), "{}", text_of(&res));
}

#[test]
fn list_directory_is_paginated() {
    let dir = TempDir::new("many");
    for i in 0..1005 {
        dir.write(&format!("f{i:04}.txt"), "");
    }
    let mut client = serve(&dir, &[]);
    let first = client.call_tool("list_directory", json!({}));
    let page = &first["result"]["structuredContent"];
    check(page, json!({"truncated": true, "nextOffset": 1000}));
    assert_eq!(page["entries"].as_array().unwrap().len(), 1000);
    assert!(text_of(&first).contains("offset=1000"), "{}", text_of(&first));
    let second = client.call_tool("list_directory", json!({"offset": 1000}));
    let page = &second["result"]["structuredContent"];
    check(page, json!({"truncated": false, "entries": [{"name": "f1000.txt"}, {}, {}, {}, {"name": "f1004.txt"}]}));
    assert!(page.get("nextOffset").is_none(), "{page}");
    let past = client.call_tool("list_directory", json!({"offset": 5000}));
    check(&past, json!({"result": {"structuredContent": {"entries": [], "truncated": false}}}));
}

#[test]
fn read_file_offsets_outside_the_file_never_read_the_start() {
    let f = fixture();
    let mut client = serve(&f.dir, &[]);
    for offset in [json!(31), json!(1e30), json!(1.8446744073709552e19)] {
        let res = client.call_tool("read_file", json!({"path": "a.txt", "offset": offset}));
        check(&res, json!({"result": {"isError": true}}));
        assert!(text_of(&res).contains("past the end"), "{offset}: {res}");
    }
    // At exactly the end: an empty window.
    let end = client.call_tool("read_file", json!({"path": "a.txt", "offset": 30}));
    assert_eq!(end["result"]["content"][0]["text"], "", "{end}");
    let huge_length = client.call_tool("read_file", json!({"path": "a.txt", "offset": 6, "length": 1e30}));
    assert_eq!(huge_length["result"]["content"][0]["text"], "world\nsecond line HELLO\n", "{huge_length}");
}

/// The length of the base64 text of `n` bytes.
fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// The blob of a `read_file` answer's first block (an embedded resource) and its note.
fn blob_and_note(answer: &Value) -> (String, String) {
    let blob = answer["result"]["content"][0]["resource"]["blob"].as_str().unwrap_or_else(|| panic!("{answer}"));
    (blob.to_owned(), text_of(answer))
}

fn read_file_windows_binary_files_too(t: Transport) {
    let dir = TempDir::new("binary-window");
    let size = 600_000;
    let bytes: Vec<u8> = (0..size).map(|i| if i % 7 == 0 { 0 } else { (i % 251) as u8 }).collect();
    dir.write("data/mid.bin", &bytes);
    let mut client = serve_over(t, &dir, &[]);
    let small = client.call_tool("read_file", json!({"path": "data/mid.bin", "length": 100}));
    let (blob, note) = blob_and_note(&small);
    assert_eq!(blob.len(), base64_len(100), "{note}");
    assert!(note.contains("bytes 0-100 of 600000") && note.contains("offset=100"), "{note}");
    // No length: the default window, never the whole file.
    let default = client.call_tool("read_file", json!({"path": "data/mid.bin", "offset": 100}));
    let (blob, note) = blob_and_note(&default);
    // Three quarters of the answer's cap, so that the base64 fits in it.
    assert_eq!(blob.len(), base64_len(192 * 1024), "{note}");
    assert!(note.contains(&format!("offset={}", 100 + 192 * 1024)), "{note}");
    // The last window says there is nothing more.
    let last = client.call_tool("read_file", json!({"path": "data/mid.bin", "offset": size - 10}));
    let (blob, note) = blob_and_note(&last);
    assert_eq!(blob.len(), base64_len(10), "{note}");
    assert!(note.contains("bytes 599990-600000 of 600000") && !note.contains("offset="), "{note}");
    // Text or binary is decided from the start of the file, not from a short window.
    dir.write("noext", [b"plain words ".repeat(10), vec![0; 10]].concat());
    let short = client.call_tool("read_file", json!({"path": "noext", "length": 20}));
    let (blob, _) = blob_and_note(&short);
    assert_eq!(blob.len(), base64_len(20));
    // An image larger than a window comes in windows as well.
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.resize(300_000, 7);
    dir.write("big.png", &png);
    let image = client.call_tool("read_file", json!({"path": "big.png"}));
    let (blob, note) = blob_and_note(&image);
    assert_eq!(blob.len(), base64_len(192 * 1024), "{note}");
    assert!(note.contains("offset=196608"), "{note}");
}

fn names_with_percent_signs_are_plain_names_for_tools(t: Transport) {
    let dir = TempDir::new("percent");
    dir.write("pct/a%20b.txt", "the literal name\n");
    dir.write("pct/a b.txt", "the spaced name\n");
    dir.write("pct/50%25off.txt", "half off\n");
    dir.write("pct/100%.txt", "a bare percent\n");
    dir.write("pct/sub%2fx.txt", "an encoded slash, literally\n");
    let mut client = serve_over(t, &dir, &[]);
    let listed = client.call_tool("list_directory", json!({"path": "pct"}));
    let names: Vec<String> = listed["result"]["structuredContent"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["100%.txt", "50%25off.txt", "a b.txt", "a%20b.txt", "sub%2fx.txt"]);
    let expected =
        ["a bare percent\n", "half off\n", "the spaced name\n", "the literal name\n", "an encoded slash, literally\n"];
    for (name, content) in names.iter().zip(expected) {
        let path = format!("pct/{name}");
        assert_eq!(text_of(&client.call_tool("read_file", json!({"path": path}))), content, "{path}");
        let info = client.call_tool("file_info", json!({"path": path}));
        check(&info, json!({"result": {"structuredContent": {"path": path, "kind": "file"}}}));
        let found = client.call_tool("search_files", json!({"query": content.trim(), "path": path}));
        check(&found, json!({"result": {"structuredContent": {"matches": [{"path": path, "line": 1}]}}}));
    }
    // Resource URIs stay percent-encoded: each names its own file.
    for (name, content) in [("a%20b.txt", "the literal name\n"), ("a b.txt", "the spaced name\n")] {
        let read = client.request("resources/read", json!({"uri": dir.uri(&format!("pct/{name}"))}));
        check(&read, json!({"result": {"contents": [{"text": content}]}}));
    }
}

fn a_text_file_that_is_not_utf8_is_read_as_latin1_and_says_so(t: Transport) {
    let dir = TempDir::new("latin1");
    dir.write("menu.txt", b"caf\xe9 cr\xe8me br\xfbl\xe9e, 12\xb0\n");
    let mut client = serve_over(t, &dir, &[]);
    let read = client.call_tool("read_file", json!({"path": "menu.txt"}));
    assert_eq!(read["result"]["content"][0]["text"], "café crème brûlée, 12°\n", "{read}");
    let note = text_of(&read);
    assert!(note.contains("not UTF-8") && note.contains("Latin-1") && !note.contains('\u{fffd}'), "{note}");
    // A window that starts on a byte a UTF-8 reader would skip as a continuation keeps it.
    let window = client.call_tool("read_file", json!({"path": "menu.txt", "offset": 21, "length": 2}));
    assert_eq!(window["result"]["content"][0]["text"], "°\n", "{window}");
    // In a UTF-8 file, a window that starts inside a character starts after it.
    dir.write("utf8.txt", "crème");
    let window = client.call_tool("read_file", json!({"path": "utf8.txt", "offset": 3, "length": 10}));
    assert_eq!(window["result"]["content"][0]["text"], "me", "{window}");
    assert!(text_of(&window).contains("bytes 4-6 of 6") && !text_of(&window).contains("UTF-8"), "{window}");
}

fn a_resource_over_the_size_limit_is_too_large_not_missing(t: Transport) {
    let dir = TempDir::new("too-large");
    let file = std::fs::File::create(dir.path().join("huge.log")).unwrap();
    file.set_len((16 << 20) + 1).unwrap();
    let mut client = serve_over(t, &dir, &[]);
    let read = client.request("resources/read", json!({"uri": dir.uri("huge.log")}));
    check(&read, json!({"error": {"code": -32602}}));
    let message = read["error"]["message"].as_str().unwrap();
    assert!(message.contains("too large") && message.contains("16777216"), "{message}");
    assert!(!message.contains("not found"), "{message}");
    // A file that is really missing is still not found.
    let missing = client.request("resources/read", json!({"uri": dir.uri("gone.log")}));
    assert!(missing["error"]["message"].as_str().unwrap().contains("not found"), "{missing}");
}

#[test]
fn paging_through_many_files_walks_the_folder_once() {
    let dir = TempDir::new("paging");
    for i in 0..12_000 {
        dir.write(&format!("d{:02}/f{i:05}.txt", i / 1000), "");
    }
    let args = ["--root", dir.arg(), "--watch-interval", "20"];
    let mut client = crate::support::Client::spawn_keeping_stderr(&args);
    client.initialize("2025-11-25", json!({}));
    let started = std::time::Instant::now();
    let (mut pages, mut listed) = (0, 0);
    let mut cursor: Option<Value> = None;
    loop {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let page = client.request("resources/list", params);
        pages += 1;
        listed += page["result"]["resources"].as_array().unwrap().len();
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    // Reported, not asserted: the time depends on the machine (`--nocapture` shows it).
    let took = started.elapsed();
    let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("{pages} pages in {took:?}\n"));
    assert_eq!((pages, listed), (100, 10_000));
    let stderr = client.close_keeping_stderr();
    assert_eq!(stderr.matches("listing stopped after").count(), 1, "the limit was warned about more than once");
}
