//! `tinymcp install --host ...`: the entry written into each host's own file, found from $HOME
//! (or the project folder, or --config-file), against sample files: missing, empty, holding
//! other servers, unparsable. Merged (nothing else dropped), backed up, idempotent.

use crate::support::{binary, run_binary_in, TempDir};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Each host, the file it keeps its servers in under a home folder, and the member holding them.
const HOSTS: [(&str, &str, &str); 8] = [
    ("claude-desktop", ".config/Claude/claude_desktop_config.json", "mcpServers"),
    ("claude-code", ".claude.json", "mcpServers"),
    ("vscode", ".config/Code/User/mcp.json", "servers"),
    ("cursor", ".cursor/mcp.json", "mcpServers"),
    ("windsurf", ".codeium/windsurf/mcp_config.json", "mcpServers"),
    ("zed", ".config/zed/settings.json", "context_servers"),
    ("codex", ".codex/config.toml", "mcp_servers"),
    ("gemini", ".gemini/settings.json", "mcpServers"),
];

fn exe() -> String {
    std::fs::canonicalize(binary()).unwrap().display().to_string()
}

/// Runs `tinymcp install --host HOST ARGS...` with `home` as $HOME, in `cwd`.
fn install(home: &Path, cwd: &Path, host: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["install", "--host", host];
    all.extend(args);
    let env = [("HOME", Some(home.to_str().unwrap())), ("XDG_CONFIG_HOME", None), ("CODEX_HOME", None)];
    let out = run_binary_in(&all, Some(cwd), &env);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The file read as JSON, whatever the host's format (Codex's TOML through the `toml` crate).
fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "toml") {
        let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{text}\n{e}"));
        serde_json::to_value(value).unwrap()
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}\n{e}"))
    }
}

/// What the host's file holds for tinymcp started with `--everything`.
fn our_entry(host: &str) -> Value {
    match host {
        "vscode" | "claude-code" => json!({"type": "stdio", "command": exe(), "args": ["--everything"]}),
        _ => json!({"command": exe(), "args": ["--everything"]}),
    }
}

/// A file holding another server and a setting of its own, in the host's format.
fn other_servers(host: &str, key: &str) -> String {
    if host == "codex" {
        "model = \"o3\" # a comment\n\n[mcp_servers.other]\ncommand = \"other-server\"\nargs = [\n  \"--flag\",\n]\n\n[mcp_servers.other.env]\nTOKEN = \"x\"\n".into()
    } else {
        format!("{{\"theme\": \"dark\", \"{key}\": {{\"other\": {{\"command\": \"other-server\", \"args\": [\"--flag\"]}}}}}}")
    }
}

fn path_in(home: &Path, relative: &str) -> PathBuf {
    home.join(relative)
}

#[test]
fn a_missing_file_is_created_for_every_host() {
    for (host, relative, key) in HOSTS {
        let home = TempDir::new("install missing");
        let (ok, stdout, stderr) = install(home.path(), home.path(), host, &["--everything"]);
        assert!(ok && stdout.is_empty(), "{host}: {stderr}");
        let path = path_in(home.path(), relative);
        assert!(stderr.contains(&path.display().to_string()), "{host}: says which file: {stderr}");
        assert_eq!(read(&path)[key]["tinymcp"], our_entry(host), "{host}");
        assert!(!PathBuf::from(format!("{}.bak", path.display())).exists(), "{host}: no backup of nothing");
    }
}

#[test]
fn an_empty_file_is_filled_and_kept_as_a_backup() {
    for (host, relative, key) in HOSTS {
        let home = TempDir::new("install empty");
        let path = path_in(home.path(), relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "").unwrap();
        let (ok, _, stderr) = install(home.path(), home.path(), host, &["--everything"]);
        assert!(ok, "{host}: {stderr}");
        assert_eq!(read(&path)[key]["tinymcp"], our_entry(host), "{host}");
        assert_eq!(std::fs::read_to_string(format!("{}.bak", path.display())).unwrap(), "", "{host}");
    }
}

#[test]
fn other_servers_and_settings_are_kept_and_a_second_install_changes_nothing() {
    for (host, relative, key) in HOSTS {
        let home = TempDir::new("install others");
        let path = path_in(home.path(), relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let before = other_servers(host, key);
        std::fs::write(&path, &before).unwrap();
        let (ok, _, stderr) = install(home.path(), home.path(), host, &["--everything"]);
        assert!(ok, "{host}: {stderr}");
        let after = read(&path);
        assert_eq!(after[key]["tinymcp"], our_entry(host), "{host}");
        assert_eq!(after[key]["other"]["command"], "other-server", "{host}");
        assert_eq!(after[key]["other"]["args"], json!(["--flag"]), "{host}");
        if host == "codex" {
            assert_eq!(after["model"], "o3");
            assert_eq!(after[key]["other"]["env"]["TOKEN"], "x");
        } else {
            assert_eq!(after["theme"], "dark", "{host}");
        }
        assert_eq!(std::fs::read_to_string(format!("{}.bak", path.display())).unwrap(), before, "{host}");
        // Idempotent: the same install again writes nothing.
        let written = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(format!("{}.bak", path.display())).unwrap();
        let (ok, _, stderr) = install(home.path(), home.path(), host, &["--everything"]);
        assert!(ok && stderr.contains("nothing to do"), "{host}: {stderr}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), written, "{host}");
        assert!(!PathBuf::from(format!("{}.bak", path.display())).exists(), "{host}");
        // Other options: the entry is replaced, and only it.
        let (ok, _, stderr) = install(home.path(), home.path(), host, &["--everything", "--no-watch"]);
        assert!(ok && stderr.contains("replaces"), "{host}: {stderr}");
        let after = read(&path);
        assert_eq!(after[key]["tinymcp"]["args"], json!(["--everything", "--no-watch"]), "{host}");
        assert_eq!(after[key]["other"]["command"], "other-server", "{host}");
    }
}

#[test]
fn an_unparsable_file_is_left_alone() {
    for (host, relative, _) in HOSTS {
        let home = TempDir::new("install unparsable");
        let path = path_in(home.path(), relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let broken = if host == "codex" { "[mcp_servers.other\ncommand = \"x\"\n" } else { "{\"mcpServers\": {" };
        std::fs::write(&path, broken).unwrap();
        let (ok, stdout, stderr) = install(home.path(), home.path(), host, &["--everything"]);
        assert!(!ok && stdout.is_empty(), "{host}");
        assert!(stderr.contains("nothing written") && stderr.contains(&path.display().to_string()), "{host}: {stderr}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken, "{host}");
        assert!(!PathBuf::from(format!("{}.bak", path.display())).exists(), "{host}");
    }
}

/// The entry a project's file gets for tinymcp started with `args`: the command from PATH.
fn portable_entry(host: &str, args: &[&str]) -> Value {
    match host {
        "vscode" | "claude-code" => json!({"type": "stdio", "command": "tinymcp", "args": args}),
        _ => json!({"command": "tinymcp", "args": args}),
    }
}

#[test]
fn project_scope_config_file_and_dry_run() {
    let home = TempDir::new("install scope home");
    let project = TempDir::new("install scope project");
    let (ok, _, stderr) = install(home.path(), project.path(), "vscode", &["--scope", "project", "--everything"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        read(&project.path().join(".vscode/mcp.json"))["servers"]["tinymcp"],
        portable_entry("vscode", &["--everything"])
    );
    let (ok, _, stderr) = install(home.path(), project.path(), "claude-code", &["--scope", "project", "--everything"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        read(&project.path().join(".mcp.json"))["mcpServers"]["tinymcp"],
        portable_entry("claude-code", &["--everything"])
    );
    // A host with no project file says so.
    let (ok, _, stderr) = install(home.path(), project.path(), "windsurf", &["--scope", "project", "--everything"]);
    assert!(!ok && stderr.contains("--scope user"), "{stderr}");
    // --config-file names the file; --dry-run prints what it would add and writes nothing.
    let file = project.path().join("elsewhere.json");
    let (ok, stdout, stderr) = install(
        home.path(),
        project.path(),
        "gemini",
        &["--config-file", file.to_str().unwrap(), "--dry-run", "--url", "http://h:1/mcp"],
    );
    assert!(ok && stderr.contains("nothing written"), "{stderr}");
    assert!(
        stdout.contains("+    \"tinymcp\": {") && stdout.contains("+      \"httpUrl\": \"http://h:1/mcp\""),
        "{stdout}"
    );
    assert!(!file.exists());
    // Claude Desktop takes no URL: nothing is written.
    let (ok, _, stderr) = install(home.path(), project.path(), "claude-desktop", &["--url", "http://h:1/mcp"]);
    assert!(!ok && stderr.contains("Claude Desktop"), "{stderr}");
    assert!(!home.path().join(".config/Claude").exists());
}

/// A project's file is committed: it names no path of this machine. The command is `tinymcp`
/// from PATH, a folder inside the project is relative to it (VS Code and Cursor through
/// `${workspaceFolder}`, the others from the project folder, where they start the server), and
/// stderr says so.
#[test]
fn project_scope_writes_no_path_of_this_machine() {
    let home = TempDir::new("install portable home");
    let project = TempDir::new("install portable project");
    std::fs::create_dir_all(project.path().join("docs")).unwrap();
    let cases = [
        ("claude-code", ".mcp.json", "mcpServers", ".", "docs"),
        ("vscode", ".vscode/mcp.json", "servers", "${workspaceFolder}", "${workspaceFolder}/docs"),
        ("cursor", ".cursor/mcp.json", "mcpServers", "${workspaceFolder}", "${workspaceFolder}/docs"),
        ("gemini", ".gemini/settings.json", "mcpServers", ".", "docs"),
        ("zed", ".zed/settings.json", "context_servers", ".", "docs"),
        ("codex", ".codex/config.toml", "mcp_servers", ".", "docs"),
    ];
    for (host, relative, key, here, docs) in cases {
        let (ok, _, stderr) = install(home.path(), project.path(), host, &["--scope", "project"]);
        assert!(ok, "{host}: {stderr}");
        let path = project.path().join(relative);
        assert_eq!(read(&path)[key]["tinymcp"], portable_entry(host, &["--root", here]), "{host}");
        assert!(stderr.contains("PATH") && stderr.contains(&format!("--root {here}")), "{host}: {stderr}");
        let (ok, _, stderr) = install(home.path(), project.path(), host, &["--scope", "project", "--root", "docs"]);
        assert!(ok, "{host}: {stderr}");
        assert_eq!(read(&path)[key]["tinymcp"], portable_entry(host, &["--root", docs]), "{host}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(project.path().to_str().unwrap()), "{host}: {text}");
    }
}

/// `--dry-run` shows the lines that would change, with a few around them: not the whole file.
#[test]
fn dry_run_prints_a_diff_of_the_changed_lines() {
    let home = TempDir::new("install diff");
    let mut servers = serde_json::Map::new();
    for i in 0..20 {
        servers.insert(format!("server{i:02}"), json!({"command": format!("s{i}")}));
    }
    let before = serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap() + "\n";
    let path = home.write(".cursor/mcp.json", &before);
    let (ok, stdout, stderr) = install(home.path(), home.path(), "cursor", &["--everything", "--dry-run"]);
    assert!(ok && stderr.contains("nothing written"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert!(stdout.contains(&format!("--- {}", path.display())), "{stdout}");
    assert!(stdout.contains("+    \"tinymcp\": {") && stdout.contains("\"s19\""), "{stdout}");
    assert!(!stdout.contains("server00") && !stdout.contains("server10"), "only the change and its context: {stdout}");
    for line in stdout.lines() {
        assert!(line.starts_with(['+', '-', ' ', '@']), "{line:?} in {stdout}");
    }
}

/// Serving the home folder or the filesystem root gives the host the whole tree: said on stderr.
#[test]
fn installing_from_home_or_root_warns_that_the_whole_tree_is_served() {
    let home = TempDir::new("install wide");
    let (ok, _, stderr) = install(home.path(), home.path(), "cursor", &["--dry-run"]);
    assert!(ok && stderr.contains("warning") && stderr.contains("home folder"), "{stderr}");
    let (ok, _, stderr) = install(home.path(), home.path(), "cursor", &["--dry-run", "--root", "/"]);
    assert!(ok && stderr.contains("warning") && stderr.contains("whole filesystem"), "{stderr}");
    let sub = home.write("project/a.txt", "a");
    let (ok, _, stderr) = install(home.path(), sub.parent().unwrap(), "cursor", &["--dry-run"]);
    assert!(ok && !stderr.contains("warning"), "{stderr}");
}

/// A cloned repository ships `.mcp.json` and `.mcp.json.bak -> a file of the user's`: the
/// install writes nothing through the link, and says which file it refused.
#[cfg(unix)]
#[test]
fn a_symlinked_backup_is_refused_and_its_target_left_alone() {
    let home = TempDir::new("install link home");
    let project = TempDir::new("install link project");
    let bashrc = home.write(".bashrc", "echo hello\n");
    let config = project.write(".mcp.json", "{\"mcpServers\": {}, \"payload\": \"rm -rf\"}");
    let backup = project.path().join(".mcp.json.bak");
    std::os::unix::fs::symlink(&bashrc, &backup).unwrap();
    let (ok, _, stderr) = install(home.path(), project.path(), "claude-code", &["--scope", "project", "--everything"]);
    assert!(!ok, "{stderr}");
    assert!(stderr.contains(&backup.display().to_string()) && stderr.contains("link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "echo hello\n");
    assert!(std::fs::symlink_metadata(&backup).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "{\"mcpServers\": {}, \"payload\": \"rm -rf\"}");
}

/// A configuration file that is a link to another file (dotfiles kept elsewhere) is neither
/// replaced by a regular file nor written through: the message says how to proceed.
#[cfg(unix)]
#[test]
fn a_symlinked_config_is_refused_saying_how_to_proceed() {
    let home = TempDir::new("install link config");
    let real = home.write("dotfiles/cursor.json", "{}");
    let path = home.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &path).unwrap();
    let (ok, _, stderr) = install(home.path(), home.path(), "cursor", &["--everything"]);
    assert!(!ok, "{stderr}");
    assert!(stderr.contains(&path.display().to_string()) && stderr.contains("--config-file"), "{stderr}");
    assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "{}");
    // Given the link's target, the install writes the real file.
    let (ok, _, stderr) =
        install(home.path(), home.path(), "cursor", &["--everything", "--config-file", real.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert_eq!(read(&real)["mcpServers"]["tinymcp"], our_entry("cursor"));
    assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
}

/// A read-only configuration is not silently replaced.
#[cfg(unix)]
#[test]
fn a_read_only_config_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempDir::new("install read-only");
    let path = home.write(".gemini/settings.json", "{\"theme\": \"dark\"}");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (ok, _, stderr) = install(home.path(), home.path(), "gemini", &["--everything"]);
    assert!(!ok && stderr.contains(&path.display().to_string()) && stderr.contains("read-only"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"theme\": \"dark\"}");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
}

/// A file some editors save with a UTF-8 byte-order mark is read, and written back with it.
#[test]
fn a_config_with_a_byte_order_mark_is_merged_and_keeps_it() {
    let home = TempDir::new("install bom");
    let path = home.write(".cursor/mcp.json", "\u{feff}{\"theme\": \"dark\"}");
    let (ok, _, stderr) = install(home.path(), home.path(), "cursor", &["--everything"]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&path).unwrap();
    let body = text.strip_prefix('\u{feff}').unwrap_or_else(|| panic!("the mark is kept: {text:?}"));
    let value: Value = serde_json::from_str(body).unwrap();
    assert_eq!((value["theme"].clone(), value["mcpServers"]["tinymcp"].clone()), (json!("dark"), our_entry("cursor")));
}

/// With a launcher, a project's file runs `npx -y tinymcp` (or `uvx tinymcp`) with the same
/// portable arguments, and install says nothing of PATH; the user's file gets it too.
#[test]
fn a_launcher_is_written_into_project_and_user_files() {
    let home = TempDir::new("install launcher home");
    let project = TempDir::new("install launcher project");
    let (ok, _, stderr) = install(home.path(), project.path(), "vscode", &["--scope", "project", "--launcher", "npx"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        read(&project.path().join(".vscode/mcp.json"))["servers"]["tinymcp"],
        json!({"type": "stdio", "command": "npx", "args": ["-y", "tinymcp", "--root", "${workspaceFolder}"]})
    );
    assert!(!stderr.contains("PATH"), "{stderr}");
    let (ok, _, stderr) = install(home.path(), project.path(), "gemini", &["--launcher", "uvx", "--everything"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        read(&home.path().join(".gemini/settings.json"))["mcpServers"]["tinymcp"],
        json!({"command": "uvx", "args": ["tinymcp", "--everything"]})
    );
}
