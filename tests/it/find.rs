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
    // The cap is shared: each of two large files gets about half, and says where to read on.
    p.dir.write("big1.txt", "a".repeat(8000));
    p.dir.write("big2.txt", "b".repeat(8000));
    let mut small = serve_over(Transport::Stdio, &p.dir, &["--max-answer-bytes", "4096"]);
    let both = small.call_tool("read_multiple_files", json!({"paths": ["big1.txt", "big2.txt"]}));
    let blocks = both["result"]["content"].as_array().unwrap();
    let a = blocks[1]["text"].as_str().unwrap();
    let b = blocks[4]["text"].as_str().unwrap();
    assert!(a.len() <= 2048 && a.len() > 1000 && b.len() <= 2048 && b.len() > 1000, "{} {}", a.len(), b.len());
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
