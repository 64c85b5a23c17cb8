//! Finding one's way in a served folder: `directory_tree`, `find_files`, `read_multiple_files`
//! and `read_file` by lines (`head`, `tail`); bounded answers that say where they stopped, and
//! no walk or read that follows a symbolic link out of the root.

use crate::support::{check, over_both_transports, tool_text as text_of, Client, TempDir, Transport};
use serde_json::{json, Value};

/// A small project, a link inside, links (a file and a folder) outside, hidden files.
struct Project {
    dir: TempDir,
    outside: TempDir,
}

fn project() -> Project {
    let dir = TempDir::new("find");
    let outside = TempDir::new("find-outside");
    dir.write("Cargo.toml", "[package]\nname = \"p\"\n");
    dir.write("README.md", "# p\n");
    dir.write("src/main.rs", "fn main() {}\n");
    dir.write("src/net/mod.rs", "mod http;\n");
    dir.write("src/net/http.rs", "// http\n");
    dir.write("src/net/deep/er/most.rs", "// deep\n");
    dir.write("target/debug/out.rs", "// built\n");
    dir.write("lines.txt", (1..=10).map(|n| format!("line {n}\n")).collect::<String>());
    dir.write(".git/config", "secret\n");
    outside.write("secret.txt", "outside secret\n");
    outside.write("more/secret.rs", "outside secret\n");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("escape.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape_dir")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("src"), dir.path().join("src_link")).unwrap();
    Project { dir, outside }
}

fn serve_over(t: Transport, dir: &TempDir, extra: &[&str]) -> Client {
    let mut args = vec!["--root", dir.arg(), "--no-watch"];
    args.extend_from_slice(extra);
    let mut client = Client::spawn_over(t, &args);
    client.initialize("2025-11-25", json!({}));
    client
}

fn serve(dir: &TempDir) -> Client {
    serve_over(Transport::Stdio, dir, &[])
}

fn paths(answer: &Value) -> Vec<String> {
    let found = answer["result"]["structuredContent"]["paths"].as_array();
    found.unwrap_or_else(|| panic!("no paths: {answer}")).iter().map(|p| p.as_str().unwrap().to_owned()).collect()
}

over_both_transports!(no_new_tool_follows_a_link_out_or_takes_an_escaping_path);

#[test]
fn directory_tree_draws_the_tree_down_to_its_depth() {
    let p = project();
    let mut client = serve(&p.dir);
    let tree = client.call_tool("directory_tree", json!({"depth": 2}));
    assert_eq!(
        text_of(&tree),
        "./\n  Cargo.toml\n  README.md\n  escape.txt (symbolic link)\n  escape_dir (symbolic link)\n  lines.txt\n  \
         src/\n    main.rs\n    net/ …\n  src_link/ (symbolic link, not expanded)\n  target/\n    debug/ …\n\
         [2 folders marked … are deeper than depth 2: call directory_tree on one of them, or with a larger depth]\n"
    );
    check(
        &tree,
        json!({"result": {"structuredContent": {"path": ".", "truncated": false, "tree": [
            {"name": "Cargo.toml", "type": "file"}, {}, {"name": "escape.txt", "type": "symlink"},
            {"name": "escape_dir", "type": "symlink"}, {},
            {"name": "src", "type": "directory", "children": [{"name": "main.rs"}, {"name": "net", "type": "directory"}]},
            {"name": "src_link", "type": "directory"}, {}]}}}),
    );
    assert!(tree["result"]["structuredContent"]["tree"][5]["children"][1].get("children").is_none());
    let net = client.call_tool("directory_tree", json!({"path": "src/net", "exclude": ["deep"]}));
    assert_eq!(text_of(&net), "src/net/\n  http.rs\n  mod.rs\n");
    let all = client.call_tool("directory_tree", json!({"excludePatterns": ["target", "*.md"], "depth": 9}));
    let text = text_of(&all);
    assert!(text.contains("        most.rs\n") && !text.contains("target") && !text.contains("README"), "{text}");
    check(&client.call_tool("directory_tree", json!({"path": "lines.txt"})), json!({"result": {"isError": true}}));
}

#[test]
fn directory_tree_stops_at_its_entry_cap_and_says_where() {
    let p = project();
    let mut client = serve(&p.dir);
    let cut = client.call_tool("directory_tree", json!({"max_entries": 7, "depth": 9}));
    check(&cut, json!({"result": {"structuredContent": {"truncated": true, "stoppedIn": "src"}}}));
    let text = text_of(&cut);
    assert!(text.contains("[stopped after 7 entries, in src:"), "{text}");
    assert!(text.contains("call directory_tree with path \"src\""), "{text}");
    // The byte cap holds too: a folder of many files stops at --max-read-bytes.
    for n in 0..300 {
        p.dir.write(&format!("many/file-with-a-long-name-{n:04}.txt"), "");
    }
    let mut small = serve_over(Transport::Stdio, &p.dir, &["--max-answer-bytes", "4096"]);
    let capped = small.call_tool("directory_tree", json!({"path": "many"}));
    check(&capped, json!({"result": {"structuredContent": {"truncated": true, "stoppedIn": "many"}}}));
    let size = capped["result"].to_string().len();
    assert!(size <= 4096 && size > 2000, "{size}");
}

#[test]
fn find_files_matches_names_or_paths_without_reading_contents() {
    let p = project();
    let mut client = serve(&p.dir);
    let rust = client.call_tool("find_files", json!({"pattern": "*.rs"}));
    assert_eq!(
        paths(&rust),
        ["src/main.rs", "src/net/deep/er/most.rs", "src/net/http.rs", "src/net/mod.rs", "target/debug/out.rs"]
    );
    assert_eq!(text_of(&rust).lines().count(), 5);
    assert_eq!(paths(&client.call_tool("find_files", json!({"pattern": "src/**/mod.rs"}))), ["src/net/mod.rs"]);
    assert_eq!(
        paths(&client.call_tool("find_files", json!({"pattern": "*.rs", "path": "src/net", "exclude": ["deep"]}))),
        ["src/net/http.rs", "src/net/mod.rs"]
    );
    assert_eq!(
        paths(
            &client
                .call_tool("find_files", json!({"pattern": "**/*.rs", "excludePatterns": ["target/**", "src/net/**"]}))
        ),
        ["src/main.rs"]
    );
    assert_eq!(paths(&client.call_tool("find_files", json!({"pattern": "Cargo.toml"}))), ["Cargo.toml"]);
    let one = client.call_tool("find_files", json!({"pattern": "*.rs", "max_results": 2}));
    check(
        &one,
        json!({"result": {"structuredContent": {"truncated": true, "paths": ["src/main.rs", "src/net/deep/er/most.rs"]}}}),
    );
    assert!(text_of(&one).contains("[stopped after 2 paths"), "{}", text_of(&one));
    let none = client.call_tool("find_files", json!({"pattern": "*.zig"}));
    check(&none, json!({"result": {"structuredContent": {"paths": [], "truncated": false}}}));
    // search_files still searches contents, and the descriptions tell the two apart.
    let tools = client.request("tools/list", json!({}))["result"]["tools"].clone();
    let described = |name: &str| {
        tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(described("find_files").contains("use search_files"));
    assert!(described("search_files").contains("find_files"));
}

#[test]
fn read_multiple_files_reads_each_and_one_failure_fails_only_itself() {
    let p = project();
    let mut client = serve(&p.dir);
    let answer = client
        .call_tool("read_multiple_files", json!({"paths": ["README.md", "nope.txt", "escape.txt", "src/main.rs"]}));
    assert_eq!(answer["result"]["isError"], json!(null), "{answer}");
    assert_eq!(
        text_of(&answer),
        "--- README.md ---\n# p\n\n--- nope.txt ---\nerror: path \"nope.txt\" refused: no such file or directory\n\
         --- escape.txt ---\nerror: path \"escape.txt\" refused: a symbolic link leads outside the served folder\n\
         --- src/main.rs ---\nfn main() {}\n"
    );
    // The same, structured: one entry per path, its text or why it was not read.
    let files = &answer["result"]["structuredContent"]["files"];
    assert_eq!(files[0], json!({"path": "README.md", "content": "# p\n"}));
    assert_eq!(files[1], json!({"path": "nope.txt", "error": "path \"nope.txt\" refused: no such file or directory"}));
    assert_eq!(files[2]["path"], "escape.txt");
    assert_eq!(files[3], json!({"path": "src/main.rs", "content": "fn main() {}\n"}));
    // The cap is shared: each of two large files gets about half (its text is there twice, as
    // a block and in the structured entry), and says where to read on.
    p.dir.write("big1.txt", "a".repeat(8000));
    p.dir.write("big2.txt", "b".repeat(8000));
    let mut small = serve_over(Transport::Stdio, &p.dir, &["--max-answer-bytes", "4096"]);
    let both = small.call_tool("read_multiple_files", json!({"paths": ["big1.txt", "big2.txt"]}));
    let blocks = both["result"]["content"].as_array().unwrap();
    let a = blocks[1]["text"].as_str().unwrap();
    let b = blocks[4]["text"].as_str().unwrap();
    assert!(a.len() <= 1024 && a.len() > 800 && b.len() <= 1024 && b.len() > 800, "{} {}", a.len(), b.len());
    let size = both["result"].to_string().len();
    assert!(size <= 4096 + 512, "{size} bytes");
    let note = both["result"]["structuredContent"]["files"][0]["note"].as_str().unwrap();
    assert!(note.contains(&format!("offset={}", a.len())), "{both}");
    assert!(blocks[2]["text"].as_str().unwrap().contains(&format!("offset={}", a.len())), "{both}");
    check(&small.call_tool("read_multiple_files", json!({"paths": []})), json!({"result": {"isError": true}}));
}

#[test]
fn read_file_reads_the_first_or_last_lines() {
    let p = project();
    let mut client = serve(&p.dir);
    let head = client.call_tool("read_file", json!({"path": "lines.txt", "head": 2}));
    assert_eq!(head["result"]["content"][0]["text"], "line 1\nline 2\n");
    let note = head["result"]["content"][1]["text"].as_str().unwrap();
    assert!(note.contains("bytes 0-14 of 71") && note.contains("offset=14"), "{note}");
    let tail = client.call_tool("read_file", json!({"path": "lines.txt", "tail": 3}));
    assert_eq!(tail["result"]["content"][0]["text"], "line 8\nline 9\nline 10\n");
    assert_eq!(
        text_of(&client.call_tool("read_file", json!({"path": "lines.txt", "tail": 50}))),
        text_of(&client.call_tool("read_file", json!({"path": "lines.txt"})))
    );
    for (args, why) in [
        (json!({"path": "lines.txt", "head": 1, "tail": 1}), "not both"),
        (json!({"path": "lines.txt", "head": 1, "offset": 3}), "without offset"),
        (json!({"path": "lines.txt", "head": 0}), ">= 1"),
    ] {
        let refused = client.call_tool("read_file", args);
        assert!(refused["result"]["isError"] == true && text_of(&refused).contains(why), "{refused}");
    }
    // A tail larger than the cap ends at the end and says where it began.
    p.dir.write("long.txt", "x".repeat(10_000) + "\nlast\n");
    let mut small = serve_over(Transport::Stdio, &p.dir, &["--max-answer-bytes", "4096"]);
    let cut = small.call_tool("read_file", json!({"path": "long.txt", "tail": 5}));
    assert_eq!(cut["result"]["content"][0]["text"].as_str().unwrap().len(), 4096);
    assert!(text_of(&cut).contains("bytes 5910-10006 of 10006"), "{}", text_of(&cut));
}

fn no_new_tool_follows_a_link_out_or_takes_an_escaping_path(t: Transport) {
    let p = project();
    let mut client = serve_over(t, &p.dir, &[]);
    let outside = p.outside.path().join("secret.txt");
    let escapes = [
        ("..", "leaves the served folder"),
        ("src/../../x", "leaves the served folder"),
        ("/etc", "is absolute"),
        (outside.to_str().unwrap(), "is absolute"),
        ("escape_dir", "symbolic link leads outside"),
        ("escape_dir/more", "symbolic link leads outside"),
        ("escape.txt", "symbolic link leads outside"),
        ("src\\net", "backslash"),
        (".git", "hidden"),
    ];
    for (path, why) in escapes {
        for (tool, args) in [
            ("directory_tree", json!({"path": path})),
            ("find_files", json!({"pattern": "**", "path": path})),
            ("read_multiple_files", json!({"paths": [path]})),
        ] {
            let res = client.call_tool(tool, args);
            let text = text_of(&res);
            if tool == "read_multiple_files" {
                assert!(text.contains("error: "), "{tool} {path:?}: {res}");
            } else {
                assert_eq!(res["result"]["isError"], true, "{tool} {path:?}: {res}");
            }
            assert!(text.contains(why) || text.contains("is not a folder"), "{tool} {path:?}: {text}");
            assert!(!text.contains("outside secret"), "{tool} {path:?} leaked");
        }
    }
    // Walking everything never lists what is outside, nor what is hidden.
    let tree = text_of(&client.call_tool("directory_tree", json!({"depth": 32})));
    let found = text_of(&client.call_tool("find_files", json!({"pattern": "**"})));
    for walked in [&tree, &found] {
        assert!(!walked.contains("secret") && !walked.contains("more") && !walked.contains(".git"), "{walked}");
    }
    // A link inside to a folder inside is not walked twice: find lists each file once.
    assert!(!found.contains("src_link"), "{found}");
}

/// Runs git in `dir` with no user or system configuration (no global excludes file).
fn git(dir: &std::path::Path, args: &[&str], stdin: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("XDG_CONFIG_HOME", dir.join(".git"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git is installed");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// Every file and folder under `dir` but `.git`, relative, folders first in each folder.
fn walk_all(dir: &std::path::Path, below: &str, out: &mut Vec<(String, bool)>) {
    let mut names: Vec<_> = std::fs::read_dir(dir.join(below)).unwrap().map(|e| e.unwrap()).collect();
    names.sort_by_key(|e| e.file_name());
    for entry in names {
        let name = entry.file_name().into_string().unwrap();
        let rel = if below.is_empty() { name.clone() } else { format!("{below}/{name}") };
        if rel == ".git" {
            continue;
        }
        let is_dir = entry.file_type().unwrap().is_dir();
        out.push((rel.clone(), is_dir));
        if is_dir {
            walk_all(dir, &rel, out);
        }
    }
}

#[test]
fn ignore_files_leave_out_what_git_check_ignore_ignores() {
    let dir = TempDir::new("ignore");
    dir.write(
        ".gitignore",
        "# build output\n*.log\n!keep.log\nbuild/\n!build/keep.txt\n/top-only.txt\ndoc/*.md\n**/gen/**\ntmp?\n\
         [Dd]ist/\nnode_modules\ntrailing\\ \n\\#hash\n",
    );
    dir.write("sub/.gitignore", "!*.log\n/local.txt\n*.bak\n");
    dir.write("sub/a/.gitignore", "!x.bak\n");
    for file in [
        "main.rs",
        "a.log",
        "keep.log",
        "x/keep.log",
        "x/b.log",
        "build/out.txt",
        "build/keep.txt",
        "x/build/o.txt",
        "build.txt",
        "top-only.txt",
        "x/top-only.txt",
        "doc/r.md",
        "doc/deep/r.md",
        "src/gen/g.rs",
        "gen/z.rs",
        "tmp1",
        "tmp12",
        "Dist/d.txt",
        "dist/d.txt",
        "DIST/d.txt",
        "node_modules/m.js",
        "x/node_modules/m.js",
        "sub/s.log",
        "sub/local.txt",
        "sub/x/local.txt",
        "sub/a.bak",
        "sub/a/x.bak",
        "sub/a/y.bak",
        "trailing ",
        "trailing",
        "#hash",
        "[Dd]ist.txt",
    ] {
        dir.write(file, "needle\n");
    }
    git(dir.path(), &["init", "-q"], "");
    let mut all = Vec::new();
    walk_all(dir.path(), "", &mut all);
    let asked: String = all.iter().map(|(rel, _)| format!("{rel}\n")).collect();
    let ignored: Vec<String> =
        git(dir.path(), &["check-ignore", "--stdin"], &asked).lines().map(str::to_owned).collect();
    assert!(ignored.len() > 15, "git ignored only {ignored:?}");
    let shown = |rel: &str| !rel.split('/').any(|c| c.starts_with('.'));
    let expected: Vec<String> = all
        .iter()
        .filter(|(rel, is_dir)| !is_dir && shown(rel) && !ignored.contains(rel))
        .map(|(rel, _)| rel.clone())
        .collect();
    let mut client = serve(&dir);
    let mut found = paths(&client.call_tool("find_files", json!({"pattern": "**", "max_results": 2000})));
    found.sort();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort();
    assert_eq!(found, expected_sorted, "find_files against git check-ignore (ignored: {ignored:?})");
    let listed = client.request("resources/list", json!({}));
    let mut names: Vec<String> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, expected_sorted, "resources/list against git check-ignore");
    let searched = client.call_tool("search_files", json!({"query": "needle", "max_results": 1000}));
    let mut hits: Vec<String> = searched["result"]["structuredContent"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap().to_owned())
        .collect();
    hits.sort();
    assert_eq!(hits, expected_sorted, "search_files against git check-ignore");
    // The folders listed and drawn are the ones git does not ignore.
    let top = client.call_tool("list_directory", json!({}));
    let entries: Vec<String> = top["result"]["structuredContent"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    let expected_top: Vec<String> = all
        .iter()
        .filter(|(rel, _)| !rel.contains('/') && shown(rel) && !ignored.contains(rel))
        .map(|(rel, _)| rel.clone())
        .collect();
    assert_eq!(entries, expected_top, "list_directory against git check-ignore");
    let tree = text_of(&client.call_tool("directory_tree", json!({"depth": 9})));
    for gone in ["node_modules", "dist/", "Dist/", "z.rs", "g.rs", "out.txt", "a.log", "tmp1\n"] {
        assert!(!tree.contains(gone), "{gone} is ignored but drawn:\n{tree}");
    }
    assert!(tree.contains("DIST/") && tree.contains("tmp12") && tree.contains("keep.log"), "{tree}");
    // --no-ignore serves everything again, and a .ignore file overrides .gitignore.
    let mut everything = serve_over(Transport::Stdio, &dir, &["--no-ignore"]);
    let all_files = paths(&everything.call_tool("find_files", json!({"pattern": "**", "max_results": 2000})));
    assert_eq!(all_files.len(), all.iter().filter(|(rel, is_dir)| !is_dir && shown(rel)).count());
    dir.write(".ignore", "!a.log\nmain.rs\n");
    let mut again = serve(&dir);
    let logs = paths(&again.call_tool("find_files", json!({"pattern": "*.log"})));
    let rust = paths(&again.call_tool("find_files", json!({"pattern": "*.rs"})));
    assert!(logs.contains(&"a.log".to_owned()) && !rust.contains(&"main.rs".to_owned()), "{logs:?} {rust:?}");
}

#[test]
fn every_answer_stays_within_the_byte_cap_and_says_how_to_get_the_rest() {
    let dir = TempDir::new("caps");
    for n in 0..200 {
        dir.write(&format!("many/a-rather-long-file-name-to-fill-the-answer-{n:04}.txt"), "needle\n".repeat(20));
    }
    dir.write("big.txt", "needle in a line of text\n".repeat(2000));
    dir.write("big.bin", vec![0u8; 20_000]);
    let cap = 4096;
    let mut client = serve_over(Transport::Stdio, &dir, &["--max-answer-bytes", "4096"]);
    let calls = [
        ("list_directory", json!({"path": "many"}), "offset="),
        ("search_files", json!({"query": "needle", "max_results": 1000}), "narrow the search"),
        ("find_files", json!({"pattern": "*.txt", "max_results": 2000}), "narrow the search"),
        ("directory_tree", json!({"path": "many"}), "call directory_tree with path"),
        ("read_file", json!({"path": "big.txt"}), "offset="),
        ("read_file", json!({"path": "big.bin"}), "offset="),
        ("read_file", json!({"path": "big.txt", "tail": 1000}), "read_file with offset and length"),
        ("read_multiple_files", json!({"paths": ["big.txt", "big.bin"]}), "offset="),
    ];
    for (tool, args, rest) in calls {
        let answer = client.call_tool(tool, args.clone());
        let size = answer["result"].to_string().len();
        // The content stays within the cap; a note of a few hundred bytes may follow.
        assert!(size <= cap + 512, "{tool} {args}: {size} bytes");
        assert!(size > cap / 2, "{tool} {args}: only {size} bytes: the cap should have been reached");
        assert!(text_of(&answer).contains(rest), "{tool} {args} does not say how to get the rest: {answer}");
    }
}

/// Calls a tool as a client whose roots are `roots` (answering the server's `roots/list`).
fn call_with_roots(client: &mut Client, roots: &[String], tool: &str, args: Value) -> Value {
    client.request_with_roots("tools/call", json!({"name": tool, "arguments": args}), roots)
}

#[test]
fn client_roots_narrow_what_is_served_and_never_widen_it() {
    let p = project();
    let mut client = Client::spawn(&["--root", p.dir.arg(), "--no-watch", "--client-roots", "--write"]);
    client.initialize("2025-11-25", json!({"roots": {"listChanged": true}}));
    let net = vec![p.dir.uri("src/net")];
    // Under the root: served; beside it or above it: refused, saying where to look.
    let read = call_with_roots(&mut client, &net, "read_file", json!({"path": "src/net/mod.rs"}));
    assert_eq!(text_of(&read), "mod http;\n");
    for (tool, args) in [
        ("read_file", json!({"path": "src/main.rs"})),
        ("list_directory", json!({})),
        ("find_files", json!({"pattern": "*.rs"})),
        ("write_file", json!({"path": "new.txt", "content": "x"})),
        ("create_directory", json!({"path": "made/deeper"})),
    ] {
        let refused = call_with_roots(&mut client, &net, tool, args.clone());
        assert_eq!(refused["result"]["isError"], true, "{tool} {args}: {refused}");
        assert!(
            text_of(&refused).contains("not under the client's roots (give a path under one of: src/net)"),
            "{refused}"
        );
    }
    let several =
        call_with_roots(&mut client, &net, "read_multiple_files", json!({"paths": ["src/net/mod.rs", "Cargo.toml"]}));
    assert_eq!(
        text_of(&several),
        "--- src/net/mod.rs ---\nmod http;\n\n--- Cargo.toml ---\nerror: path \"Cargo.toml\" refused: it is not under \
         the client's roots (give a path under one of: src/net)"
    );
    let found = call_with_roots(&mut client, &net, "find_files", json!({"pattern": "*.rs", "path": "src/net"}));
    assert_eq!(paths(&found), ["src/net/deep/er/most.rs", "src/net/http.rs", "src/net/mod.rs"]);
    let made = call_with_roots(&mut client, &net, "create_directory", json!({"path": "src/net/new/deeper"}));
    assert_eq!(made["result"]["isError"], json!(null), "{made}");
    // The roots are asked for on every call: a change is followed at once.
    let whole = vec![p.dir.uri("")];
    let now = call_with_roots(&mut client, &whole, "read_file", json!({"path": "src/main.rs"}));
    assert_eq!(text_of(&now), "fn main() {}\n");
    // A root outside the served folder (or through a link out of it) adds nothing.
    let outside = vec![p.outside.uri(""), p.dir.uri("escape_dir")];
    let none = call_with_roots(&mut client, &outside, "read_file", json!({"path": "Cargo.toml"}));
    assert!(text_of(&none).contains("nothing is served to this client"), "{none}");
    // The resources listed are narrowed too.
    let list = client.send_request("resources/list", json!({}));
    let asked = client.wait(|m| m["method"] == "roots/list");
    client.answer(&asked["id"], json!({"roots": [{"uri": p.dir.uri("src/net")}]}));
    let listed = client.response(&list);
    let names: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["src/net/deep/er/most.rs", "src/net/http.rs", "src/net/mod.rs"]);
    // Without --client-roots, or for a client without roots, nothing is asked.
    let mut plain = serve(&p.dir);
    assert_eq!(text_of(&plain.call_tool("read_file", json!({"path": "src/main.rs"}))), "fn main() {}\n");
}

/// A folder of many files before the one wanted, with a `--max-files` far below them.
fn crowded() -> TempDir {
    let dir = TempDir::new("find-cap");
    for i in 0..30 {
        dir.write(&format!("aaa_big/f{i:02}.txt"), "filler\n");
        dir.write(&format!("ignored_big/g{i:02}.txt"), "filler\n");
    }
    dir.write(".gitignore", "ignored_big/\n");
    dir.write("zzz/wanted.txt", "the needle\n");
    dir
}

#[test]
fn excluded_and_ignored_folders_are_pruned_before_the_file_cap_counts() {
    let dir = crowded();
    let mut client = serve_over(Transport::Stdio, &dir, &["--max-files", "10"]);
    // Without exclude the cap is reached in aaa_big, and the note names the flag.
    let stopped = client.call_tool("find_files", json!({"pattern": "wanted.txt"}));
    check(&stopped, json!({"result": {"structuredContent": {"paths": [], "truncated": true}}}));
    assert!(text_of(&stopped).contains("--max-files"), "{stopped}");
    let searched = client.call_tool("search_files", json!({"query": "needle"}));
    check(&searched, json!({"result": {"structuredContent": {"matches": [], "truncated": true}}}));
    assert!(text_of(&searched).contains("--max-files"), "{searched}");
    // An excluded folder is not entered: its files count toward nothing (nor do ignored ones).
    for exclude in [json!(["aaa_big"]), json!(["aaa_*"]), json!(["aaa_big/**"]), json!(["f*.txt"])] {
        let found = client.call_tool("find_files", json!({"pattern": "*.txt", "exclude": exclude}));
        check(&found, json!({"result": {"structuredContent": {"paths": ["zzz/wanted.txt"], "truncated": false}}}));
        let found = client.call_tool("search_files", json!({"query": "needle", "exclude": exclude}));
        check(
            &found,
            json!({"result": {"structuredContent": {"matches": [{"path": "zzz/wanted.txt"}], "truncated": false}}}),
        );
    }
    // search_files counts the files it reads: those its glob selects.
    let found = client.call_tool("search_files", json!({"query": "needle", "glob": "wanted.*"}));
    check(&found, json!({"result": {"structuredContent": {"matches": [{"path": "zzz/wanted.txt", "line": 1}]}}}));
}

#[test]
fn a_malformed_glob_is_refused_saying_why() {
    let p = project();
    let mut client = serve(&p.dir);
    for (tool, args) in [
        ("find_files", json!({"pattern": "[abc"})),
        ("find_files", json!({"pattern": "*.rs", "exclude": ["src/[x"]})),
        ("search_files", json!({"query": "x", "glob": "[abc"})),
        ("search_files", json!({"query": "x", "exclude": ["[abc"]})),
        ("directory_tree", json!({"excludePatterns": ["[abc"]})),
    ] {
        let answer = client.call_tool(tool, args.clone());
        check(&answer, json!({"result": {"isError": true}}));
        let text = text_of(&answer);
        assert!(
            text.contains("invalid glob") && text.contains("never closed") && text.contains("\\["),
            "{tool} {args}: {text}"
        );
    }
    // Escaped, the bracket is a plain character.
    p.dir.write("[abc", "bracket\n");
    let found = client.call_tool("find_files", json!({"pattern": "\\[abc"}));
    assert_eq!(paths(&found), ["[abc"]);
}

#[test]
fn search_files_names_the_files_too_large_to_search() {
    let dir = TempDir::new("find-large");
    dir.write("small.txt", "a needle\n");
    // Sparse: 17 MiB that take no room on disk.
    let big = std::fs::File::create(dir.path().join("big.log")).unwrap();
    big.set_len(17 << 20).unwrap();
    let mut client = serve(&dir);
    let found = client.call_tool("search_files", json!({"query": "needle"}));
    check(
        &found,
        json!({"result": {"structuredContent": {
            "matches": [{"path": "small.txt"}], "truncated": false,
            "skipped": [{"path": "big.log", "size": 17 << 20}], "skippedCount": 1}}}),
    );
    let text = text_of(&found);
    assert!(text.contains("big.log") && text.contains("16777216") && text.contains("read_file"), "{text}");
    let none = client.call_tool("search_files", json!({"query": "absent"}));
    let text = text_of(&none);
    assert!(text.contains("no matches") && text.contains("not searched") && text.contains("big.log"), "{text}");
}

#[test]
fn names_with_control_characters_are_escaped_in_every_listing_and_can_be_used() {
    let dir = TempDir::new("find-names");
    dir.write("a\nb", "needle one\n");
    dir.write("\u{1b}[31m", "needle two\n");
    dir.write("ünï.txt", "needle three\n");
    let mut client = serve(&dir);
    let listing = [
        client.call_tool("list_directory", json!({})),
        client.call_tool("directory_tree", json!({})),
        client.call_tool("find_files", json!({"pattern": "*"})),
        client.call_tool("search_files", json!({"query": "needle"})),
    ];
    for answer in &listing {
        let text = text_of(answer);
        assert!(!text.contains('\u{1b}') && !text.contains("a\nb"), "raw name in {text:?}");
        assert!(text.contains(r#""a\nb""#) && text.contains(r#""\u001b[31m""#), "{text}");
        assert!(text.contains("ünï.txt") && !text.contains(r#""ünï.txt""#), "{text}");
    }
    // The structured content holds the exact names.
    check(&listing[2], json!({"result": {"structuredContent": {"paths": ["\u{1b}[31m", "a\nb", "ünï.txt"]}}}));
    // The name as shown (quotes included) and the exact name both read the file.
    for path in [r#""a\nb""#, "a\nb"] {
        let read = client.call_tool("read_file", json!({"path": path}));
        assert_eq!(text_of(&read), "needle one\n", "{path:?}: {read}");
    }
    let read = client.call_tool("read_file", json!({"path": r#""\u001b[31m""#}));
    assert_eq!(text_of(&read), "needle two\n", "{read}");
    // Where a tool names the file in its text, it is escaped too.
    for answer in [
        client.call_tool("file_info", json!({"path": "a\nb"})),
        client.call_tool("read_file", json!({"path": "a\nb", "offset": 2, "length": 3})),
        client.call_tool("read_multiple_files", json!({"paths": ["a\nb", "\u{1b}[31m"]})),
    ] {
        let text = text_of(&answer);
        assert!(text.contains(r#""a\nb""#) && !text.contains("a\nb") && !text.contains('\u{1b}'), "{text:?}");
    }
}
