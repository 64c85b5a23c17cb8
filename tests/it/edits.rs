//! Edits, opt-in: `--write` and `--write-root` add `write_file`, `edit_file`, `create_directory`
//! and `move_file`; every escape is refused by every one of them, writes are atomic and keep
//! permissions, and a symbolic link swapped in while they run never lets a byte out of the root.

use crate::files::READ_ONLY_TOOLS;
use crate::support::{check, over_both_transports, tool_text as text_of, Client, TempDir, Transport};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// A project with names that need care, hidden files, a link inside and links outside.
struct Project {
    dir: TempDir,
    outside: TempDir,
}

fn project() -> Project {
    let dir = TempDir::new("edits");
    let outside = TempDir::new("edits-outside");
    dir.write("a.txt", "one\ntwo\nthree\n");
    dir.write("with space.md", "# Title\n");
    dir.write("pct/a%20b.txt", "the literal name\n");
    dir.write("sub/m.rs", "fn main() {}\n");
    dir.write(".env", "TOKEN=1\n");
    dir.write(".git/config", "[core]\n");
    outside.write("secret.txt", "outside\n");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("escape")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape_dir")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("a.txt"), dir.path().join("link.txt")).unwrap();
    Project { dir, outside }
}

fn serve_over(t: Transport, dir: &TempDir, extra: &[&str]) -> Client {
    let mut args = vec!["--root", dir.arg(), "--watch-interval", "20"];
    args.extend_from_slice(extra);
    let mut client = Client::spawn_over(t, &args);
    client.initialize("2025-11-25", json!({}));
    client
}

fn read(dir: &TempDir, relative: &str) -> String {
    std::fs::read_to_string(dir.path().join(relative)).unwrap()
}

/// Every entry under `dir`, with the content of files, links not followed.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(tree(&path).into_iter().map(|(n, c)| (format!("{name}/{n}"), c)));
        } else if meta.is_file() {
            out.push((name, std::fs::read_to_string(&path).unwrap_or_default()));
        } else {
            out.push((name, "(link)".into()));
        }
    }
    out
}

fn refused(answer: &Value, why: &str) {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text_of(answer).contains(why), "refused for another reason than {why:?}: {answer}");
}

over_both_transports!(
    write_file_creates_and_replaces_atomically_keeping_permissions,
    edit_file_replaces_exact_text_once_and_answers_with_a_diff,
    create_directory_and_move_file_stay_within_the_folder,
    every_escape_is_refused_by_every_edit_tool,
);

#[test]
fn the_edit_tools_come_only_with_write_and_their_annotations_tell_the_truth() {
    let p = project();
    let tools = |extra: &[&str]| -> Vec<Value> {
        let mut client = serve_over(Transport::Stdio, &p.dir, extra);
        client.request("tools/list", json!({}))["result"]["tools"].as_array().unwrap().clone()
    };
    let names =
        |tools: &[Value]| -> Vec<String> { tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect() };
    assert_eq!(names(&tools(&[])), READ_ONLY_TOOLS);
    let writable = tools(&["--write"]);
    assert_eq!(
        names(&writable),
        [&READ_ONLY_TOOLS[..], &["write_file", "edit_file", "create_directory", "move_file"]].concat()
    );
    let hints = |name: &str| {
        let tool = writable.iter().find(|t| t["name"] == name).unwrap();
        let a = &tool["annotations"];
        (
            a["readOnlyHint"].as_bool().unwrap(),
            a["destructiveHint"].as_bool().unwrap(),
            a["idempotentHint"].as_bool().unwrap(),
        )
    };
    for read_only in READ_ONLY_TOOLS {
        assert_eq!(hints(read_only), (true, false, true), "{read_only}");
    }
    assert_eq!(hints("write_file"), (false, true, true));
    assert_eq!(hints("edit_file"), (false, true, false));
    assert_eq!(hints("create_directory"), (false, false, true));
    assert_eq!(hints("move_file"), (false, true, false));
    let move_file = writable.iter().find(|t| t["name"] == "move_file").unwrap();
    check(move_file, json!({"inputSchema": {"required": ["source", "destination"]}}));
}

fn write_file_creates_and_replaces_atomically_keeping_permissions(t: Transport) {
    let p = project();
    std::fs::set_permissions(p.dir.path().join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut client = serve_over(t, &p.dir, &["--write"]);
    let made = client.call_tool("write_file", json!({"path": "pct/new %20 file.txt", "content": "fresh\n"}));
    assert_eq!(text_of(&made), "created pct/new %20 file.txt (6 bytes)");
    assert_eq!(read(&p.dir, "pct/new %20 file.txt"), "fresh\n");
    let again = client.call_tool("read_file", json!({"path": "pct/new %20 file.txt"}));
    assert_eq!(text_of(&again), "fresh\n");
    let replaced = client.call_tool("write_file", json!({"path": "a.txt", "content": "replaced"}));
    assert_eq!(text_of(&replaced), "replaced a.txt (8 bytes)");
    assert_eq!(read(&p.dir, "a.txt"), "replaced");
    let mode = std::fs::metadata(p.dir.path().join("a.txt")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    // Through a link inside the root: the target changes, the link stays a link.
    client.call_tool("write_file", json!({"path": "link.txt", "content": "via link"}));
    assert_eq!(read(&p.dir, "a.txt"), "via link");
    assert!(std::fs::symlink_metadata(p.dir.path().join("link.txt")).unwrap().file_type().is_symlink());
    refused(&client.call_tool("write_file", json!({"path": "no/such/x.txt", "content": ""})), "create_directory");
    refused(&client.call_tool("write_file", json!({"path": "sub", "content": ""})), "is a folder");
    // No temporary file is left behind.
    let left: Vec<String> = tree(p.dir.path()).into_iter().map(|(n, _)| n).filter(|n| n.contains("tinymcp")).collect();
    assert!(left.is_empty(), "{left:?}");
}

fn edit_file_replaces_exact_text_once_and_answers_with_a_diff(t: Transport) {
    let p = project();
    let mut client = serve_over(t, &p.dir, &["--write"]);
    let edits = json!([{"oldText": "two\n", "newText": "TWO\n"}]);
    let dry = client.call_tool("edit_file", json!({"path": "a.txt", "edits": edits, "dryRun": true}));
    let diff = "--- a.txt\n+++ a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    assert!(text_of(&dry).ends_with(diff), "{dry}");
    assert_eq!(read(&p.dir, "a.txt"), "one\ntwo\nthree\n");
    let done = client.call_tool("edit_file", json!({"path": "a.txt", "edits": edits}));
    assert!(text_of(&done).ends_with(diff), "{done}");
    assert_eq!(read(&p.dir, "a.txt"), "one\nTWO\nthree\n");
    // Edits apply in order, and one that fails changes nothing.
    let both = json!([{"oldText": "one", "newText": "1"}, {"oldText": "e", "newText": "E"}]);
    refused(
        &client.call_tool("edit_file", json!({"path": "a.txt", "edits": both})),
        "edit 2: oldText occurs more than once",
    );
    refused(
        &client.call_tool("edit_file", json!({"path": "a.txt", "edits": [{"oldText": "four", "newText": ""}]})),
        "edit 1: oldText was not found",
    );
    assert_eq!(read(&p.dir, "a.txt"), "one\nTWO\nthree\n");
    let spaced = json!([{"oldText": "Title", "newText": "Heading"}]);
    client.call_tool("edit_file", json!({"path": "with space.md", "edits": spaced}));
    assert_eq!(read(&p.dir, "with space.md"), "# Heading\n");
    refused(&client.call_tool("edit_file", json!({"path": "missing.txt", "edits": spaced})), "no such file");
}

fn create_directory_and_move_file_stay_within_the_folder(t: Transport) {
    let p = project();
    let mut client = serve_over(t, &p.dir, &["--write"]);
    let made = client.call_tool("create_directory", json!({"path": "new dir/a%20b/c"}));
    assert_eq!(text_of(&made), "created new dir/a%20b/c (3 new folders)");
    assert!(p.dir.path().join("new dir/a%20b/c").is_dir());
    assert_eq!(text_of(&client.call_tool("create_directory", json!({"path": "sub"}))), "sub exists already");
    refused(&client.call_tool("create_directory", json!({"path": "a.txt/x"})), "not a folder");
    let moved = client.call_tool("move_file", json!({"source": "sub/m.rs", "destination": "new dir/m.rs"}));
    assert_eq!(text_of(&moved), "moved sub/m.rs to new dir/m.rs");
    assert_eq!(read(&p.dir, "new dir/m.rs"), "fn main() {}\n");
    assert!(!p.dir.path().join("sub/m.rs").exists());
    let over = json!({"source": "with space.md", "destination": "a.txt"});
    refused(&client.call_tool("move_file", over.clone()), "the destination exists");
    assert_eq!(read(&p.dir, "a.txt"), "one\ntwo\nthree\n");
    let mut forced = over;
    forced["overwrite"] = json!(true);
    assert_eq!(text_of(&client.call_tool("move_file", forced)), "moved with space.md to a.txt");
    assert_eq!(read(&p.dir, "a.txt"), "# Title\n");
    refused(
        &client.call_tool("move_file", json!({"source": "a.txt", "destination": "sub", "overwrite": true})),
        "folder",
    );
    assert_eq!(
        text_of(&client.call_tool("move_file", json!({"source": "new dir", "destination": "sub/moved"}))),
        "moved new dir to sub/moved"
    );
    assert_eq!(read(&p.dir, "sub/moved/m.rs"), "fn main() {}\n");
    refused(&client.call_tool("move_file", json!({"source": "gone.txt", "destination": "x"})), "no such file");
}

fn every_escape_is_refused_by_every_edit_tool(t: Transport) {
    let p = project();
    let mut client = serve_over(t, &p.dir, &["--write"]);
    let inside = tree(p.dir.path());
    let outside = tree(p.outside.path());
    let outside_file = p.outside.path().join("new.txt");
    let escapes = [
        ("..", "leaves the served folder"),
        ("../new.txt", "leaves the served folder"),
        ("sub/../../new.txt", "leaves the served folder"),
        (outside_file.to_str().unwrap(), "is absolute"),
        ("escape", "symbolic link leads outside"),
        ("escape_dir/new.txt", "symbolic link leads outside"),
        ("escape_dir/secret.txt", "symbolic link leads outside"),
        ("sub\\..\\..\\new.txt", "backslash"),
        ("C:/new.txt", "Windows drive"),
        (".env", "hidden"),
        (".git/config", "hidden"),
        (".new", "hidden"),
        ("", "served folder itself"),
    ];
    for (path, why) in escapes {
        let edits = json!([{"oldText": "o", "newText": "X"}]);
        for (tool, args) in [
            ("write_file", json!({"path": path, "content": "X"})),
            ("edit_file", json!({"path": path, "edits": edits})),
            ("create_directory", json!({"path": path})),
            ("move_file", json!({"source": "a.txt", "destination": path, "overwrite": true})),
            ("move_file", json!({"source": path, "destination": "moved.txt"})),
        ] {
            let answer = client.call_tool(tool, args.clone());
            assert_eq!(answer["result"]["isError"], true, "{tool} {args}: {answer}");
            let text = text_of(&answer);
            let fine = [
                why,
                "no such file",
                "served folder itself",
                "is a folder",
                "symbolic link leads outside",
                "empty component",
            ];
            assert!(fine.iter().any(|w| text.contains(w)), "{tool} {args} refused for the wrong reason: {text}");
        }
    }
    assert_eq!(tree(p.outside.path()), outside, "something changed outside");
    assert_eq!(tree(p.dir.path()), inside, "a refused edit changed the folder");
    // With --include-hidden, hidden files are written like any other.
    let mut client = serve_over(t, &p.dir, &["--write", "--include-hidden"]);
    assert_eq!(
        text_of(&client.call_tool("write_file", json!({"path": ".env", "content": "TOKEN=2\n"}))),
        "replaced .env (8 bytes)"
    );
    assert_eq!(read(&p.dir, ".env"), "TOKEN=2\n");
}

#[test]
fn a_root_not_made_writable_stays_read_only() {
    let p = project();
    let other = TempDir::new("edits-writable");
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write-root", other.arg()]);
    let read_only = p.dir.path().file_name().unwrap().to_str().unwrap().to_owned();
    let writable = other.path().file_name().unwrap().to_str().unwrap().to_owned();
    refused(
        &client.call_tool("write_file", json!({"path": format!("{read_only}/x.txt"), "content": "x"})),
        "served read-only",
    );
    let moved = json!({"source": format!("{read_only}/a.txt"), "destination": format!("{writable}/a.txt")});
    refused(&client.call_tool("move_file", moved), "served read-only");
    assert_eq!(read(&p.dir, "a.txt"), "one\ntwo\nthree\n");
    let wrote = client.call_tool("write_file", json!({"path": format!("{writable}/x.txt"), "content": "x"}));
    assert_eq!(text_of(&wrote), format!("created {writable}/x.txt (1 bytes)"));
    assert_eq!(read(&other, "x.txt"), "x");
}

#[test]
fn a_read_only_root_inside_a_writable_one_stays_read_only() {
    let p = project();
    let sub = p.dir.path().join("sub");
    let mut client = Client::spawn(&["--write-root", p.dir.arg(), "--root", sub.to_str().unwrap()]);
    client.initialize("2025-11-25", json!({}));
    let outer = p.dir.path().file_name().unwrap().to_str().unwrap().to_owned();
    let through_outer = format!("{outer}/sub/m.rs");
    refused(&client.call_tool("write_file", json!({"path": through_outer, "content": "x"})), "sub is served read-only");
    refused(
        &client.call_tool("create_directory", json!({"path": format!("{outer}/sub/d")})),
        "sub is served read-only",
    );
    let out = json!({"source": format!("{outer}/sub/m.rs"), "destination": format!("{outer}/m.rs")});
    refused(&client.call_tool("move_file", out), "sub is served read-only");
    assert_eq!(read(&p.dir, "sub/m.rs"), "fn main() {}\n");
    let wrote = client.call_tool("write_file", json!({"path": format!("{outer}/x.txt"), "content": "x"}));
    assert_eq!(text_of(&wrote), format!("created {outer}/x.txt (1 bytes)"));
}

#[test]
fn writes_are_followed_by_change_notifications() {
    let p = project();
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    let uri = p.dir.uri("a.txt");
    client.request("resources/read", json!({"uri": uri}));
    check(&client.request("resources/subscribe", json!({"uri": uri})), json!({"result": {}}));
    client.call_tool("edit_file", json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}));
    check(&client.wait(|m| m["method"] == "notifications/resources/updated"), json!({"params": {"uri": uri}}));
    client.call_tool("write_file", json!({"path": "sub/new.txt", "content": "new\n"}));
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let listed = client.request("resources/list", json!({}));
    assert!(listed.to_string().contains(&p.dir.uri("sub/new.txt")), "{listed}");
}

/// Write attempts the race below makes; `TINYMCP_WRITE_RACE_ROUNDS` asks for more (it stops
/// after 4 s otherwise).
fn race_rounds() -> (usize, Duration) {
    match std::env::var("TINYMCP_WRITE_RACE_ROUNDS").ok().and_then(|n| n.parse().ok()) {
        Some(n) => (n, Duration::from_secs(3600)),
        None => (40_000, Duration::from_secs(4)),
    }
}

// A writer in the folder swaps a file, and a folder, for symbolic links to outside as fast as it
// can, while write_file and move_file aim at them; nothing outside may change. The calls are
// pipelined on a raw stdio link (no schema check per answer), so thousands fit in a few seconds.
#[test]
fn swapping_in_symbolic_links_never_lets_a_write_out() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let p = project();
    p.outside.write("race.txt", "OUTSIDE-SECRET\n");
    p.outside.write("d/f.txt", "OUTSIDE-SECRET\n");
    p.dir.write("race.txt", "inside\n");
    p.dir.write("d/f.txt", "inside\n");
    let outside_before = tree(p.outside.path());
    let (mut server, mut input, lines) = crate::support::raw_stdio(&["--root", p.dir.arg(), "--no-watch", "--write"]);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (dir, outside, stop) = (p.dir.path().to_path_buf(), p.outside.path().to_path_buf(), stop.clone());
        // The server writes into these folders too, so a step may fail; the next one goes on.
        std::thread::spawn(move || {
            for n in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let tmp = dir.join("tmp");
                let _ = std::fs::remove_file(&tmp);
                if n % 2 == 0 {
                    let _ = std::os::unix::fs::symlink(outside.join("race.txt"), &tmp);
                    let _ = std::fs::rename(&tmp, dir.join("race.txt"));
                    let _ = std::fs::remove_dir_all(dir.join("d"));
                    let _ = std::os::unix::fs::symlink(outside.join("d"), dir.join("d"));
                } else {
                    let _ = std::fs::write(&tmp, "inside\n");
                    let _ = std::fs::rename(&tmp, dir.join("race.txt"));
                    let _ = std::fs::remove_file(dir.join("d"));
                    let _ = std::fs::create_dir(dir.join("d"));
                }
            }
        })
    };
    let call = |id: usize, name: &str, arguments: Value| -> String {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
            .to_string()
    };
    let (rounds, time) = race_rounds();
    let (mut attempts, mut id, mut landed) = (0, 0, 0);
    let deadline = std::time::Instant::now() + time;
    while std::time::Instant::now() < deadline && attempts < rounds {
        let mut batch = String::new();
        for _ in 0..20 {
            id += 1;
            let source = format!("src-{id}.txt");
            let calls = [
                call(id * 10, "write_file", json!({"path": "race.txt", "content": "WRITTEN\n"})),
                call(id * 10 + 1, "write_file", json!({"path": "d/f.txt", "content": "WRITTEN\n"})),
                call(id * 10 + 2, "write_file", json!({"path": "d/new.txt", "content": "WRITTEN\n"})),
                call(id * 10 + 3, "create_directory", json!({"path": "d/made"})),
                call(id * 10 + 4, "write_file", json!({"path": source, "content": "WRITTEN\n"})),
                call(
                    id * 10 + 5,
                    "move_file",
                    json!({"source": source, "destination": "d/moved.txt", "overwrite": true}),
                ),
                call(
                    id * 10 + 6,
                    "move_file",
                    json!({"source": "d/new.txt", "destination": "race.txt", "overwrite": true}),
                ),
            ];
            for line in calls {
                batch.push_str(&line);
                batch.push('\n');
            }
        }
        input.write_all(batch.as_bytes()).unwrap();
        for _ in 0..20 * 7 {
            let answer = lines.recv_timeout(crate::support::TIMEOUT).expect("an answer");
            attempts += 1;
            if !answer.contains("\"isError\":true") {
                landed += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    // A long run by hand must have made every attempt it asked for.
    if std::env::var_os("TINYMCP_WRITE_RACE_ROUNDS").is_some() {
        assert!(attempts >= rounds, "only {attempts} of {rounds} attempts in the time allowed");
    }
    assert!(landed > 0, "no write ever landed: the race tested nothing");
    assert_eq!(tree(p.outside.path()), outside_before, "a write reached outside after {attempts} attempts");
}

#[test]
fn config_makes_a_write_root_absolute_and_serves_nothing_else() {
    let p = project();
    let spelled = format!("{}/sub/..", p.dir.arg());
    let out = crate::support::run_binary(&["config", "--host", "claude", "--write-root", &spelled]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    check(&value, json!({"mcpServers": {"tinymcp": {"args": ["--write-root", p.dir.arg()]}}}));
    assert_eq!(value["mcpServers"]["tinymcp"]["args"].as_array().unwrap().len(), 2, "{value}");
}

// A read-only root inside a writable one was changed by moving it out, writing
// into it and moving it back. A move of a read-only root, or of a folder holding one, is refused.
#[test]
fn a_read_only_root_cannot_be_moved_out_written_and_moved_back() {
    let p = project();
    p.dir.write("outer/sub/deep/f.txt", "read-only\n");
    let ro = p.dir.path().join("outer/sub");
    let mut client = Client::spawn(&["--write-root", p.dir.arg(), "--root", ro.to_str().unwrap()]);
    client.initialize("2025-11-25", json!({}));
    let top = p.dir.path().file_name().unwrap().to_str().unwrap().to_owned();
    let before = tree(p.dir.path());
    for (source, destination) in
        [(format!("{top}/outer/sub"), format!("{top}/elsewhere")), (format!("{top}/outer"), format!("{top}/outer2"))]
    {
        let answer = client.call_tool("move_file", json!({"source": source, "destination": destination}));
        refused(&answer, "sub is served read-only");
    }
    // The attack's next steps, had the move landed: nothing is there to write into.
    let wrote = client.call_tool("write_file", json!({"path": format!("{top}/elsewhere/deep/f.txt"), "content": "X"}));
    assert_eq!(wrote["result"]["isError"], true, "{wrote}");
    assert_eq!(tree(p.dir.path()), before, "the folder changed");
    assert_eq!(read(&p.dir, "outer/sub/deep/f.txt"), "read-only\n");
    // A folder beside it still moves.
    p.dir.write("outer/other/g.txt", "g\n");
    let moved = client
        .call_tool("move_file", json!({"source": format!("{top}/outer/other"), "destination": format!("{top}/other")}));
    assert_eq!(text_of(&moved), format!("moved {top}/outer/other to {top}/other"));
}

// Hosts call tools in parallel; two edits of different lines of one file both
// answered "edited" and one was gone. Many edits at once over one connection all land.
#[test]
fn parallel_edits_of_one_file_all_land() {
    let p = project();
    let lines: String = (0..40).map(|n| format!("line {n}\n")).collect();
    p.dir.write("many.txt", &lines);
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    let ids: Vec<Value> = (0..40)
        .map(|n| {
            let edits = json!([{"oldText": format!("line {n}\n"), "newText": format!("edited {n}\n")}]);
            client.send_request(
                "tools/call",
                json!({"name": "edit_file", "arguments": {"path": "many.txt", "edits": edits}}),
            )
        })
        .collect();
    for id in &ids {
        let answer = client.response(id);
        assert!(text_of(&answer).starts_with("edited many.txt"), "{answer}");
    }
    let expected: String = (0..40).map(|n| format!("edited {n}\n")).collect();
    assert_eq!(read(&p.dir, "many.txt"), expected, "an edit answered \"edited\" was lost");
}

// A move over a file while it is edited is not undone by the edit's rename.
#[test]
fn a_move_over_a_file_being_edited_is_never_undone() {
    let p = project();
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    for round in 0..30 {
        p.dir.write("a.txt", "A line\n");
        p.dir.write("b.txt", "B\n");
        let edits = json!([{"oldText": "A", "newText": "E"}]);
        let edit = client
            .send_request("tools/call", json!({"name": "edit_file", "arguments": {"path": "a.txt", "edits": edits}}));
        let over = json!({"source": "b.txt", "destination": "a.txt", "overwrite": true});
        let moved = client.send_request("tools/call", json!({"name": "move_file", "arguments": over}));
        client.response(&edit);
        assert_eq!(text_of(&client.response(&moved)), "moved b.txt to a.txt");
        assert_eq!(read(&p.dir, "a.txt"), "B\n", "round {round}: the move was undone by the edit");
    }
}

// A write replaces the file with a new one made by the server's user; a set-uid
// or set-gid bit kept on it would give that user's rights to whoever runs the file.
#[test]
fn a_write_clears_set_uid_and_set_gid_and_keeps_the_owner_when_it_can() {
    use std::os::unix::fs::MetadataExt;
    let p = project();
    let file = p.dir.write("tool.sh", "#!/bin/sh\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o6755)).unwrap();
    let as_root = std::fs::metadata(&file).unwrap().uid() == 0;
    if as_root {
        std::os::unix::fs::chown(&file, Some(4242), Some(4343)).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o6755)).unwrap();
    }
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    let wrote = client.call_tool("write_file", json!({"path": "tool.sh", "content": "#!/bin/sh\necho hi\n"}));
    assert_eq!(text_of(&wrote), "replaced tool.sh (18 bytes)");
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o755, "set-uid/set-gid kept: {:o}", meta.mode());
    if as_root {
        assert_eq!((meta.uid(), meta.gid()), (4242, 4343), "the owner changed");
    }
    let edited =
        client.call_tool("edit_file", json!({"path": "tool.sh", "edits": [{"oldText": "hi", "newText": "ho"}]}));
    assert!(text_of(&edited).starts_with("edited tool.sh"), "{edited}");
}

// The temporary name was the name plus a suffix, too long for a name of 230+ bytes.
#[test]
fn names_up_to_the_longest_the_system_takes_are_written() {
    let p = project();
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    for name in ["n".repeat(255), format!("{}.txt", "é".repeat(125))] {
        let wrote = client.call_tool("write_file", json!({"path": name, "content": "x"}));
        assert_eq!(text_of(&wrote), format!("created {name} (1 bytes)"));
        let again = client.call_tool("write_file", json!({"path": name, "content": "y"}));
        assert_eq!(text_of(&again), format!("replaced {name} (1 bytes)"));
        assert_eq!(read(&p.dir, &name), "y");
    }
}

// `edit_file`'s diff ignored --max-answer-bytes.
#[test]
fn an_edit_answer_is_cut_at_the_answer_cap_and_says_so() {
    let p = project();
    let lines: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
    p.dir.write("big.txt", &lines);
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write", "--max-answer-bytes", "8192"]);
    let edits = json!([{"oldText": lines, "newText": lines.to_uppercase()}]);
    for dry_run in [true, false] {
        let answer = client.call_tool("edit_file", json!({"path": "big.txt", "edits": edits, "dryRun": dry_run}));
        let text = text_of(&answer);
        assert!(text.len() < 8192 + 300, "{} bytes", text.len());
        assert!(text.contains("the diff was cut"), "{}", &text[text.len() - 300..]);
    }
    assert_eq!(read(&p.dir, "big.txt"), lines.to_uppercase());
}

// A write that creates a file is told at once, not at the watcher's next look
// (here an hour away).
#[test]
fn a_created_file_is_announced_at_once() {
    let p = project();
    let mut client = Client::spawn(&["--root", p.dir.arg(), "--write", "--watch-interval", "3600000"]);
    client.initialize("2025-11-25", json!({}));
    let uri = p.dir.uri("a.txt");
    client.request("resources/list", json!({}));
    check(&client.request("resources/subscribe", json!({"uri": uri})), json!({"result": {}}));
    client.call_tool("write_file", json!({"path": "sub/new.txt", "content": "new\n"}));
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let listed = client.request("resources/list", json!({}));
    assert!(listed.to_string().contains(&p.dir.uri("sub/new.txt")), "{listed}");
    client.call_tool("edit_file", json!({"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}));
    check(&client.wait(|m| m["method"] == "notifications/resources/updated"), json!({"params": {"uri": uri}}));
    client.call_tool("move_file", json!({"source": "sub/new.txt", "destination": "moved.txt"}));
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let listed = client.request("resources/list", json!({}));
    assert!(listed.to_string().contains(&p.dir.uri("moved.txt")), "{listed}");
}

// An oldText written with \n was "not found" in a CRLF file.
#[test]
fn edits_match_across_line_endings_and_keep_the_files_own() {
    let p = project();
    p.dir.write("dos.txt", "one\r\ntwo\r\nthree\r\n");
    p.dir.write("unix.txt", "one\ntwo\nthree\n");
    p.dir.write("mixed.txt", "one\r\ntwo\nthree\n");
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    let edit = |client: &mut Client, path: &str, old: &str, new: &str| {
        client.call_tool("edit_file", json!({"path": path, "edits": [{"oldText": old, "newText": new}]}))
    };
    let done = edit(&mut client, "dos.txt", "one\ntwo\n", "1\n2\nadded\n");
    assert!(text_of(&done).ends_with("-one\n-two\n+1\n+2\n+added\n three\n"), "{done}");
    assert_eq!(read(&p.dir, "dos.txt"), "1\r\n2\r\nadded\r\nthree\r\n");
    edit(&mut client, "unix.txt", "two\r\nthree", "2\r\n3");
    assert_eq!(read(&p.dir, "unix.txt"), "one\n2\n3\n");
    refused(&edit(&mut client, "mixed.txt", "one\ntwo", "x"), "line endings");
    edit(&mut client, "mixed.txt", "one\r\ntwo\n", "1\r\n2\n");
    assert_eq!(read(&p.dir, "mixed.txt"), "1\r\n2\nthree\n");
}

// The answers that did not say what to do.
#[test]
fn a_missing_write_tool_and_a_folder_moved_into_itself_say_what_to_do() {
    let p = project();
    let mut client = serve_over(Transport::Stdio, &p.dir, &[]);
    let answer = client.call_tool("write_file", json!({"path": "x.txt", "content": "x"}));
    check(&answer, json!({"error": {"code": -32602}}));
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("write_file") && message.contains("--write"), "{message}");
    let mut client = serve_over(Transport::Stdio, &p.dir, &["--write"]);
    let answer = client.call_tool("move_file", json!({"source": "sub", "destination": "sub/inner"}));
    refused(&answer, "into itself");
    assert!(p.dir.path().join("sub/m.rs").is_file());
}
