//! `tinymcp config --host ...`: the snippet each host needs, filled in with this binary's
//! absolute path and the given options (paths made absolute).

use crate::support::{binary, run_binary, run_binary_in, TempDir};
use serde_json::{json, Value};

fn config(args: &[&str]) -> (bool, String, String) {
    let out = run_binary(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn exe() -> String {
    std::fs::canonicalize(binary()).unwrap().display().to_string()
}

#[test]
fn json_hosts_get_the_absolute_binary_and_the_flags() {
    let dir = TempDir::new("config");
    let (ok, stdout, stderr) = config(&["config", "--host", "claude", "--root", dir.arg(), "--include-hidden"]);
    assert!(ok, "{stderr}");
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        value,
        json!({"mcpServers": {"tinymcp": {"command": exe(), "args": ["--root", dir.arg(), "--include-hidden"]}}})
    );
    assert!(stderr.contains("claude_desktop_config.json"), "{stderr}");
    let (_, stdout, _) = config(&["config", "--host", "cursor", "--everything"]);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value, json!({"mcpServers": {"tinymcp": {"command": exe(), "args": ["--everything"]}}}));
    let (_, stdout, _) = config(&["config", "--host", "vscode", "--no-watch", "--root", dir.arg()]);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        value,
        json!({"servers": {"tinymcp": {"type": "stdio", "command": exe(), "args": ["--no-watch", "--root", dir.arg()]}}})
    );
}

#[test]
fn claude_code_gets_a_command_line() {
    let dir = TempDir::new("config code");
    let (ok, stdout, _) = config(&["config", "--host", "claude-code", "--root", dir.arg()]);
    assert!(ok);
    assert_eq!(stdout, format!("claude mcp add tinymcp -- {} --root '{}'\n", exe(), dir.arg()));
}

#[test]
fn bad_hosts_and_flags_are_refused() {
    for args in [
        &["config"][..],
        &["config", "--host", "emacs"],
        &["config", "--host", "claude", "--bogus"],
        &["config", "--host", "claude", "--root", "/nonexistent/folder"],
        &["config", "--host", "claude", "--check", "x.json"],
    ] {
        let (ok, stdout, stderr) = config(args);
        assert!(!ok && stdout.is_empty() && stderr.starts_with("tinymcp: "), "{args:?}: {stdout} {stderr}");
    }
}

#[test]
fn http_gives_each_host_its_url_form() {
    let dir = TempDir::new("config http");
    let (ok, stdout, stderr) = config(&["config", "--host", "vscode", "--http", "8080", "--root", dir.arg()]);
    assert!(ok, "{stderr}");
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value, json!({"servers": {"tinymcp": {"type": "http", "url": "http://127.0.0.1:8080/mcp"}}}));
    // The server is not started by the host: the user is told how to start it.
    assert!(stderr.contains(&format!("{} --http 8080 --root", exe())), "{stderr}");
    let (ok, stdout, _) = config(&["config", "--host", "cursor", "--http", "0.0.0.0:9000", "--root", dir.arg()]);
    assert!(ok);
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value, json!({"mcpServers": {"tinymcp": {"url": "http://127.0.0.1:9000/mcp"}}}));
    let (ok, stdout, _) = config(&["config", "--host", "claude-code", "--url", "https://mcp.example.com/mcp"]);
    assert!(ok);
    assert_eq!(stdout, "claude mcp add --transport http tinymcp https://mcp.example.com/mcp\n");
}

#[test]
fn every_host_gets_a_snippet_for_stdio_and_for_a_url() {
    let dir = TempDir::new("config every host");
    let url = "http://127.0.0.1:8080/mcp";
    let cases = [
        ("claude-desktop", json!({"mcpServers": {"tinymcp": {"command": exe(), "args": ["--root", dir.arg()]}}}), None),
        (
            "windsurf",
            json!({"mcpServers": {"tinymcp": {"command": exe(), "args": ["--root", dir.arg()]}}}),
            Some(json!({"mcpServers": {"tinymcp": {"serverUrl": url}}})),
        ),
        (
            "gemini",
            json!({"mcpServers": {"tinymcp": {"command": exe(), "args": ["--root", dir.arg()]}}}),
            Some(json!({"mcpServers": {"tinymcp": {"httpUrl": url}}})),
        ),
        (
            "zed",
            json!({"context_servers": {"tinymcp": {"command": exe(), "args": ["--root", dir.arg()]}}}),
            Some(json!({"context_servers": {"tinymcp": {"url": url}}})),
        ),
    ];
    for (host, stdio, http) in cases {
        let (ok, stdout, stderr) = config(&["config", "--host", host, "--root", dir.arg()]);
        assert!(ok, "{host}: {stderr}");
        assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap(), stdio, "{host}");
        let (ok, stdout, stderr) = config(&["config", "--host", host, "--url", url]);
        match http {
            Some(want) => assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap(), want, "{host}: {stderr}"),
            None => assert!(!ok && stdout.is_empty(), "{host}: {stdout}"),
        }
    }
    let (ok, stdout, _) = config(&["config", "--host", "codex", "--root", dir.arg()]);
    assert!(ok);
    assert_eq!(stdout, format!("[mcp_servers.tinymcp]\ncommand = {:?}\nargs = [\"--root\", {:?}]\n", exe(), dir.arg()));
    let (ok, stdout, _) = config(&["config", "--host", "codex", "--url", url]);
    assert!(ok);
    assert_eq!(stdout, format!("[mcp_servers.tinymcp]\nurl = \"{url}\"\n"));
}

#[test]
fn vscode_and_cursor_also_get_an_install_link() {
    let (ok, _, stderr) = config(&["config", "--host", "vscode", "--everything"]);
    assert!(ok);
    let link = stderr
        .lines()
        .find_map(|l| l.split_once("vscode:mcp/install?"))
        .map(|(_, q)| q)
        .unwrap_or_else(|| panic!("{stderr}"));
    let value: Value = serde_json::from_str(&tinymcp::percent::decode(link).unwrap()).unwrap();
    assert_eq!(value, json!({"name": "tinymcp", "type": "stdio", "command": exe(), "args": ["--everything"]}));
    let (ok, _, stderr) = config(&["config", "--host", "cursor", "--url", "http://h:1/mcp"]);
    assert!(ok);
    assert!(
        stderr.contains(
            "cursor://anysphere.cursor-deeplink/mcp/install?name=tinymcp&config=eyJ1cmwiOiJodHRwOi8vaDoxL21jcCJ9"
        ),
        "{stderr}"
    );
}

#[test]
fn claude_desktop_has_no_url_form_and_says_what_to_do() {
    for args in [
        &["config", "--host", "claude", "--http", "8080"][..],
        &["config", "--host", "claude", "--url", "http://h/mcp"],
    ] {
        let (ok, stdout, stderr) = config(args);
        assert!(!ok && stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.contains("Claude Desktop") && stderr.contains("without --http"), "{args:?}: {stderr}");
    }
}

/// `--launcher npx|uvx|binary`: the host runs `npx -y tinymcp`, `uvx tinymcp` or this binary,
/// with the same options; a wrong name is refused, saying the names.
#[test]
fn a_launcher_makes_the_host_run_npx_uvx_or_the_binary() {
    let cases = [
        ("npx", json!({"command": "npx", "args": ["-y", "tinymcp", "--everything"]})),
        ("uvx", json!({"command": "uvx", "args": ["tinymcp", "--everything"]})),
        ("binary", json!({"command": exe(), "args": ["--everything"]})),
    ];
    for (launcher, entry) in cases {
        let (ok, stdout, stderr) = config(&["config", "--host", "cursor", "--launcher", launcher, "--everything"]);
        assert!(ok, "{launcher}: {stderr}");
        let value: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(value, json!({"mcpServers": {"tinymcp": entry}}), "{launcher}");
    }
    let (ok, stdout, _) = config(&["config", "--host", "claude-code", "--launcher", "npx", "--everything"]);
    assert!(ok);
    assert_eq!(stdout, "claude mcp add tinymcp -- npx -y tinymcp --everything\n");
    let (ok, stdout, _) = config(&["config", "--host", "codex", "--launcher", "uvx", "--everything"]);
    assert!(ok);
    assert_eq!(stdout, "[mcp_servers.tinymcp]\ncommand = \"uvx\"\nargs = [\"tinymcp\", \"--everything\"]\n");
    let (ok, stdout, stderr) = config(&["config", "--host", "cursor", "--launcher", "brew", "--everything"]);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("--launcher") && stderr.contains("npx, uvx, binary"), "{stderr}");
}

/// By default the snippet runs tinymcp the way it was started: the npm package's command sets
/// TINYMCP_LAUNCHER=npx; a wheel's binary lies in a Python environment's bin/ beside its
/// pyvenv.cfg (uvx, pipx); otherwise the binary by its path.
#[test]
fn the_default_launcher_is_how_tinymcp_was_started() {
    let snippet_of = |exe: &str, env: &[(&str, Option<&str>)]| -> Value {
        let mut command = std::process::Command::new(exe);
        command.args(["config", "--host", "cursor", "--everything"]).env_remove("TINYMCP_LAUNCHER");
        for (name, value) in env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        // A copy just written may still be open for writing in a child another test forked
        // before its exec (Linux then refuses to run it: ETXTBSY), so a few tries.
        let mut tries = 0;
        let out = loop {
            match command.output() {
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                out => break out.unwrap(),
            }
        };
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["mcpServers"]["tinymcp"].clone()
    };
    assert_eq!(snippet_of(&exe(), &[]), json!({"command": exe(), "args": ["--everything"]}));
    assert_eq!(
        snippet_of(&exe(), &[("TINYMCP_LAUNCHER", Some("npx"))]),
        json!({"command": "npx", "args": ["-y", "tinymcp", "--everything"]})
    );
    // The layout a wheel installs: ENV/pyvenv.cfg and ENV/bin/tinymcp.
    let env = TempDir::new("config wheel");
    std::fs::create_dir_all(env.path().join("bin")).unwrap();
    std::fs::write(env.path().join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    let copy = env.path().join("bin/tinymcp");
    std::fs::copy(exe(), &copy).unwrap();
    assert_eq!(snippet_of(copy.to_str().unwrap(), &[]), json!({"command": "uvx", "args": ["tinymcp", "--everything"]}));
    // --launcher says otherwise.
    let out = run_binary_in(
        &["config", "--host", "cursor", "--launcher", "binary", "--everything"],
        None,
        &[("TINYMCP_LAUNCHER", Some("npx"))],
    );
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["mcpServers"]["tinymcp"]["command"], exe());
}
