//! The skills extension (SEP-2640): a folder of skills served with `--skills DIR` or found as a
//! root's `skills/` folder. Listing, digests, pagination, reading, directory reading, a
//! malformed SKILL.md and a bad name skipped, a skill changed on disk, symbolic link escapes.

use crate::support::{check, over_both_transports, run_binary, Client, TempDir, Transport};
use serde_json::{json, Value};
use std::process::Command;

const EXT: &str = "io.modelcontextprotocol/skills";

/// A skills folder: two good skills (one with a subfolder and a link inside), a malformed one,
/// one whose name breaks the rules, one whose name is not its folder's, and links outside.
struct Fixture {
    dir: TempDir,
    _outside: TempDir,
}

fn fixture() -> Fixture {
    let dir = TempDir::new("skills");
    let outside = TempDir::new("skills-outside");
    dir.write(
        "alpha/SKILL.md",
        "---\nname: alpha\ndescription: \"First: a skill\"\nmetadata:\n  author: me\n---\n# Alpha\n",
    );
    dir.write("alpha/refs/guide.md", "# Guide\n");
    dir.write("alpha/run.sh", "echo hi\n");
    dir.write("beta/SKILL.md", "---\nname: beta\ndescription: Second skill\n---\nBody\n");
    dir.write("broken/SKILL.md", "---\nname: broken\ndescription: x\ntags: [a, b]\n---\n");
    dir.write("Bad--Name/SKILL.md", "---\nname: Bad--Name\ndescription: x\n---\n");
    dir.write("other/SKILL.md", "---\nname: elsewhere\ndescription: x\n---\n");
    dir.write("notes/readme.txt", "not a skill\n");
    outside.write("secret.txt", "outside\n");
    outside.write("stolen/SKILL.md", "---\nname: stolen\ndescription: outside\n---\n");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("alpha/escape.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("stolen"), dir.path().join("stolen")).unwrap();
    Fixture { dir, _outside: outside }
}

fn serve_over(t: Transport, dir: &TempDir, extra: &[&str]) -> Client {
    let mut args = vec!["--skills", dir.arg(), "--watch-interval", "20"];
    args.extend_from_slice(extra);
    let mut client = Client::spawn_over(t, &args);
    client.initialize("2025-11-25", json!({}));
    client
}

fn sha256_of(path: &std::path::Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().expect("sha256sum");
    let text = String::from_utf8(out.stdout).unwrap();
    format!("sha256:{}", text.split_whitespace().next().unwrap())
}

fn skill_uris(list: &Value) -> Vec<String> {
    list["result"]["skills"].as_array().unwrap().iter().map(|s| s["uri"].as_str().unwrap().to_owned()).collect()
}

over_both_transports!(
    skills_are_listed_with_digests_and_read_as_resources,
    a_skill_changed_on_disk_changes_the_list,
    editing_a_skill_md_under_a_watched_root_tells_subscribers,
);

fn skills_are_listed_with_digests_and_read_as_resources(t: Transport) {
    let f = fixture();
    let mut client = Client::spawn_over(t, &["--skills", f.dir.arg()]);
    let init = client.initialize("2025-11-25", json!({}));
    check(&init, json!({"capabilities": {"extensions": {EXT: {"directoryRead": true}}, "resources": {}}}));

    let list = client.request("skills/list", json!({}));
    // The malformed, misnamed and outside skills are skipped; only the two good ones are served.
    assert_eq!(skill_uris(&list), ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"], "{list}");
    let alpha = &list["result"]["skills"][0];
    check(
        alpha,
        json!({"frontmatter": {"name": "alpha", "description": "First: a skill", "metadata": {"author": "me"}}}),
    );
    let resources = alpha["resources"].as_array().unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().unwrap()).collect();
    // Every file within the skill, SKILL.md included; the link to outside is not one of them.
    assert_eq!(uris, ["skill://alpha/SKILL.md", "skill://alpha/refs/guide.md", "skill://alpha/run.sh"]);
    for (r, rel) in resources.iter().zip(["SKILL.md", "refs/guide.md", "run.sh"]) {
        let path = f.dir.path().join("alpha").join(rel);
        assert_eq!(r["digest"], sha256_of(&path), "{rel}");
        assert_eq!(r["size"], std::fs::metadata(&path).unwrap().len(), "{rel}");
    }

    let got = client.request("skills/get", json!({"uri": "skill://beta/SKILL.md"}));
    check(&got, json!({"result": {"skill": {"uri": "skill://beta/SKILL.md", "frontmatter": {"name": "beta"}}}}));
    assert!(got["result"].get("nextCursor").is_none());
    let unknown = client.request("skills/get", json!({"uri": "skill://stolen/SKILL.md"}));
    check(&unknown, json!({"error": {"code": -32602}}));

    // Each file is a resource; SKILL.md as Markdown named and described by its front matter.
    let listed = client.request("resources/list", json!({}));
    let manifest = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://alpha/SKILL.md")
        .cloned()
        .expect("SKILL.md listed");
    check(&manifest, json!({"name": "alpha", "description": "First: a skill", "mimeType": "text/markdown"}));
    let read = client.request("resources/read", json!({"uri": "skill://alpha/refs/guide.md"}));
    check(&read, json!({"result": {"contents": [{"uri": "skill://alpha/refs/guide.md", "text": "# Guide\n"}]}}));
    for escape in ["skill://alpha/escape.txt", "skill://alpha/../beta/SKILL.md", "skill://stolen/SKILL.md"] {
        let refused = client.request("resources/read", json!({"uri": escape}));
        assert!(refused.get("error").is_some(), "{escape}: {refused}");
    }

    // Directory reading: direct children, subfolders as inode/directory; a file is -32602.
    let dir = client.request("resources/directory/read", json!({"uri": "skill://alpha"}));
    check(
        &dir,
        json!({"result": {"resources": [
            {"uri": "skill://alpha/SKILL.md", "mimeType": "text/markdown"},
            {"uri": "skill://alpha/run.sh"},
            {"uri": "skill://alpha/refs", "mimeType": "inode/directory"},
        ]}}),
    );
    let sub = client.request("resources/directory/read", json!({"uri": "skill://alpha/refs"}));
    check(&sub, json!({"result": {"resources": [{"uri": "skill://alpha/refs/guide.md"}]}}));
    let file = client.request("resources/directory/read", json!({"uri": "skill://alpha/run.sh"}));
    check(&file, json!({"error": {"code": -32602}}));
}

fn a_skill_changed_on_disk_changes_the_list(t: Transport) {
    let f = fixture();
    let mut client = serve_over(t, &f.dir, &[]);
    let before = client.request("skills/list", json!({}));
    f.dir.write("beta/SKILL.md", "---\nname: beta\ndescription: Changed\n---\nNew body\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let after = client.request("skills/get", json!({"uri": "skill://beta/SKILL.md"}));
    check(&after, json!({"result": {"skill": {"frontmatter": {"description": "Changed"}}}}));
    assert_ne!(
        before["result"]["skills"][1]["resources"][0]["digest"],
        after["result"]["skill"]["resources"][0]["digest"]
    );
    f.dir.write("gamma/SKILL.md", "---\nname: gamma\ndescription: Third\n---\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let list = client.request("skills/list", json!({}));
    assert!(skill_uris(&list).contains(&"skill://gamma/SKILL.md".to_owned()), "{list}");
}

#[test]
fn skills_list_pages_and_carries_cache_hints_on_2026() {
    let f = fixture();
    let mut client = serve_over(Transport::Stdio, &f.dir, &["--page-size", "1"]);
    let first = client.request("skills/list", json!({}));
    assert_eq!(skill_uris(&first), ["skill://alpha/SKILL.md"]);
    let cursor = first["result"]["nextCursor"].as_str().expect("a next page").to_owned();
    let second = client.request("skills/list", json!({"cursor": cursor}));
    assert_eq!(skill_uris(&second), ["skill://beta/SKILL.md"]);
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let bad = client.request("skills/list", json!({"cursor": "not-ours"}));
    check(&bad, json!({"error": {"code": -32602}}));

    // On 2026-07-28 the extension is in discover's capabilities, and the results carry ttlMs and cacheScope.
    let mut client = Client::spawn(&["--skills", f.dir.arg()]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": {"name": "it", "version": "0"}});
    let discover = client.request("server/discover", json!({"_meta": meta}));
    check(&discover, json!({"result": {"capabilities": {"extensions": {EXT: {}}, "resources": {}}}}));
    for (method, params) in [("skills/list", json!({})), ("skills/get", json!({"uri": "skill://alpha/SKILL.md"}))] {
        let mut params = params;
        params["_meta"] = meta.clone();
        let answer = client.request(method, params);
        check(&answer, json!({"result": {"resultType": "complete", "cacheScope": "public"}}));
        assert!(answer["result"]["ttlMs"].is_u64(), "{method}: {answer}");
    }
}

#[test]
fn skills_and_tasks_are_declared_side_by_side() {
    // Both extensions live in one `extensions` map: declaring skills must not hide tasks.
    let f = fixture();
    let mut client = Client::spawn(&["--everything", "--skills", f.dir.arg()]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let discover = client.request("server/discover", json!({"_meta": meta}));
    check(
        &discover,
        json!({"result": {"capabilities": {"extensions": {EXT: {}, "io.modelcontextprotocol/tasks": {}}}}}),
    );
}

#[test]
fn a_root_with_a_skills_folder_serves_them_and_check_names_the_bad_line() {
    let root = TempDir::new("skills-root");
    root.write("skills/alpha/SKILL.md", "---\nname: alpha\ndescription: A\n---\n");
    root.write("readme.txt", "hi\n");
    let mut client = Client::spawn(&["--root", root.arg()]);
    let init = client.initialize("2025-11-25", json!({}));
    check(&init, json!({"capabilities": {"extensions": {EXT: {}}}}));
    let list = client.request("skills/list", json!({}));
    assert_eq!(skill_uris(&list), ["skill://alpha/SKILL.md"]);

    let good = run_binary(&["--check", root.path().join("skills").to_str().unwrap()]);
    assert!(good.status.success(), "{good:?}");
    let f = fixture();
    let bad = run_binary(&["--check", f.dir.arg()]);
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("broken: SKILL.md: line 4"), "{stderr}");
    assert!(stderr.contains("Bad--Name") && stderr.contains("naming rules"), "{stderr}");
    assert!(stderr.contains("differs from the folder name"), "{stderr}");

    // Without skills, no extension is declared.
    let plain = TempDir::new("no-skills");
    plain.write("a.txt", "a\n");
    let mut client = Client::spawn(&["--root", plain.arg()]);
    let init = client.initialize("2025-11-25", json!({}));
    assert!(init["capabilities"].get("extensions").is_none(), "{init}");
}

/// SEP-2640 names no notification of its own (skills are resources): editing a SKILL.md under a
/// watched root's `skills/` folder is `notifications/resources/list_changed` for everyone and
/// `notifications/resources/updated` for whoever subscribed to that file.
fn editing_a_skill_md_under_a_watched_root_tells_subscribers(t: Transport) {
    let root = TempDir::new("skills-root");
    root.write("skills/beta/SKILL.md", "---\nname: beta\ndescription: Second skill\n---\nBody\n");
    root.write("skills/beta/notes.md", "notes\n");
    let mut client = Client::spawn_over(t, &["--root", root.arg(), "--watch-interval", "20"]);
    client.initialize("2025-11-25", json!({}));
    check(&client.request("resources/subscribe", json!({"uri": "skill://beta/SKILL.md"})), json!({"result": {}}));
    root.write("skills/beta/SKILL.md", "---\nname: beta\ndescription: Edited\n---\nNew body\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    check(&updated, json!({"params": {"uri": "skill://beta/SKILL.md"}}));
    let read = client.request("resources/read", json!({"uri": "skill://beta/SKILL.md"}));
    assert!(read["result"]["contents"][0]["text"].as_str().unwrap().contains("New body"), "{read}");
    // A file nobody subscribed to: the list changes, no update is sent for it.
    root.write("skills/beta/notes.md", "more notes\n");
    client.wait(|m| m["method"] == "notifications/resources/list_changed");
    let later = crate::files::after_later_ticks(&mut client, &root);
    assert!(later.iter().all(|m| m["method"] != "notifications/resources/updated"), "{later:?}");
}

#[test]
fn a_listen_stream_hears_a_skill_edited_on_disk() {
    let root = TempDir::new("skills-listen");
    root.write("skills/beta/SKILL.md", "---\nname: beta\ndescription: Second skill\n---\nBody\n");
    let mut client =
        Client::spawn(&["--skills", &root.path().join("skills").display().to_string(), "--watch-interval", "20"]);
    let params = json!({
        "notifications": {"resourcesListChanged": true, "resourceSubscriptions": ["skill://beta/SKILL.md"]},
        "_meta": crate::stateless::meta(json!({})),
    });
    let sub = client.send_request("subscriptions/listen", params);
    client.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    root.write("skills/beta/SKILL.md", "---\nname: beta\ndescription: Edited\n---\n");
    let tag = json!({"io.modelcontextprotocol/subscriptionId": sub});
    let changed = client.wait(|m| m["method"] == "notifications/resources/list_changed");
    check(&changed, json!({"params": {"_meta": tag}}));
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    check(&updated, json!({"params": {"_meta": tag, "uri": "skill://beta/SKILL.md"}}));
}

#[test]
fn a_missing_skills_folder_is_named_once() {
    let missing = std::env::temp_dir().join("tinymcp-it-no-such-skills-folder");
    let missing = missing.to_str().unwrap();
    let out = run_binary(&["--skills", missing]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr.matches(missing).count(), 1, "{stderr}");
    assert!(stderr.contains("no such file or directory") || stderr.contains("No such file"), "{stderr}");
}
