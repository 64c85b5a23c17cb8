//! Configuration snippets for MCP hosts (Claude Desktop, VS Code, Cursor, Claude Code) that
//! launch a server over stdio or connect to its URL: text only, for `tinymcp config`. Pure: no
//! filesystem, no printing.

use std::fmt;

/// A host application that starts MCP servers from a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// Claude Desktop: `claude_desktop_config.json`.
    Claude,
    /// VS Code: `.vscode/mcp.json` (or the user `mcp.json`).
    VsCode,
    /// Cursor: `.cursor/mcp.json` (or `~/.cursor/mcp.json`).
    Cursor,
    /// Claude Code: the `claude mcp add` command.
    ClaudeCode,
}

/// The names `--host` accepts.
pub const HOST_NAMES: &str = "claude, vscode, cursor, claude-code";

impl Host {
    /// The host named on the command line.
    pub fn from_name(name: &str) -> Option<Host> {
        match name {
            "claude" | "claude-desktop" => Some(Host::Claude),
            "vscode" | "code" => Some(Host::VsCode),
            "cursor" => Some(Host::Cursor),
            "claude-code" => Some(Host::ClaudeCode),
            _ => None,
        }
    }

    /// Where the snippet goes, for a comment above it.
    pub fn destination(self) -> &'static str {
        match self {
            Host::Claude => {
                "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, \
                 Windows: %APPDATA%\\Claude\\), under \"mcpServers\""
            }
            Host::VsCode => ".vscode/mcp.json in the workspace (or the user mcp.json), under \"servers\"",
            Host::Cursor => ".cursor/mcp.json in the project (or ~/.cursor/mcp.json), under \"mcpServers\"",
            Host::ClaudeCode => "a shell: it registers the server with Claude Code",
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Host::Claude => "claude",
            Host::VsCode => "vscode",
            Host::Cursor => "cursor",
            Host::ClaudeCode => "claude-code",
        })
    }
}

/// The snippet that makes `host` run `command` with `args` over stdio, under the name `name`.
pub fn snippet(host: Host, name: &str, command: &str, args: &[String]) -> String {
    // Written by hand for the order people expect (command, then args), which a sorted
    // serde_json map would turn around.
    let text = |s: &str| serde_json::Value::from(s).to_string();
    let list = args.iter().map(|a| text(a)).collect::<Vec<_>>().join(", ");
    let entry = |servers: &str, first: &str| {
        format!(
            "{{\n  \"{servers}\": {{\n    {}: {{\n{first}      \"command\": {},\n      \"args\": [{list}]\n    }}\n  }}\n}}",
            text(name),
            text(command)
        )
    };
    match host {
        Host::Claude | Host::Cursor => entry("mcpServers", ""),
        Host::VsCode => entry("servers", "      \"type\": \"stdio\",\n"),
        Host::ClaudeCode => {
            let mut words = vec!["claude".to_owned(), "mcp".into(), "add".into(), shell_quote(name), "--".into()];
            words.push(shell_quote(command));
            words.extend(args.iter().map(|a| shell_quote(a)));
            words.join(" ")
        }
    }
}

/// The snippet that makes `host` connect to a server already listening at `url` (Streamable
/// HTTP), under the name `name`; an error saying what to do instead for a host without one.
pub fn url_snippet(host: Host, name: &str, url: &str) -> Result<String, String> {
    let entry = match host {
        Host::Claude => {
            return Err("Claude Desktop cannot connect to a URL from claude_desktop_config.json: run \
                 `tinymcp config --host claude` without --http or --url for a snippet with which Claude \
                 Desktop starts the server itself, or add the URL as a custom connector in its settings"
                .into())
        }
        Host::VsCode | Host::ClaudeCode => serde_json::json!({"type": "http", "url": url}),
        Host::Cursor => serde_json::json!({"url": url}),
    };
    let pretty = |value: serde_json::Value| serde_json::to_string_pretty(&value).unwrap_or_default();
    Ok(match host {
        Host::VsCode => pretty(serde_json::json!({"servers": {name: entry}})),
        Host::ClaudeCode => format!("claude mcp add-json {} {}", shell_quote(name), shell_quote(&entry.to_string())),
        _ => pretty(serde_json::json!({"mcpServers": {name: entry}})),
    })
}

/// The URL a client reaches a server at that listens on `addr` (`HOST:PORT`): a wildcard
/// address is reached through the loopback one.
pub fn url_of_listen_addr(addr: &str) -> String {
    let addr = match addr.rsplit_once(':') {
        Some(("0.0.0.0", port)) => format!("127.0.0.1:{port}"),
        Some(("[::]", port)) => format!("[::1]:{port}"),
        _ => addr.to_owned(),
    };
    format!("http://{addr}/mcp")
}

/// Quotes a word for a POSIX shell, only when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b'+' | b','));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn json_hosts_get_their_own_shape() {
        let claude = snippet(Host::Claude, "tinymcp", "/bin/tinymcp", &args(&["--root", "/p"]));
        let value: serde_json::Value = serde_json::from_str(&claude).unwrap();
        assert_eq!(value, json!({"mcpServers": {"tinymcp": {"command": "/bin/tinymcp", "args": ["--root", "/p"]}}}));
        let vscode: serde_json::Value =
            serde_json::from_str(&snippet(Host::VsCode, "tinymcp", "/bin/tinymcp", &[])).unwrap();
        assert_eq!(vscode, json!({"servers": {"tinymcp": {"type": "stdio", "command": "/bin/tinymcp", "args": []}}}));
    }

    #[test]
    fn json_snippets_put_the_command_before_its_args_and_escape_what_needs_it() {
        let odd = snippet(Host::Cursor, "my \"server\"", "C:\\bin\\tinymcp", &args(&["--root", "/a \"b\"\n"]));
        let value: serde_json::Value = serde_json::from_str(&odd).unwrap();
        assert_eq!(value["mcpServers"]["my \"server\""]["args"][1], "/a \"b\"\n");
        assert_eq!(value["mcpServers"]["my \"server\""]["command"], "C:\\bin\\tinymcp");
        assert!(odd.find("\"command\"").unwrap() < odd.find("\"args\"").unwrap(), "{odd}");
    }

    #[test]
    fn url_forms_per_host_and_none_for_claude_desktop() {
        let url = "http://127.0.0.1:8080/mcp";
        let cursor: serde_json::Value = serde_json::from_str(&url_snippet(Host::Cursor, "t", url).unwrap()).unwrap();
        assert_eq!(cursor, json!({"mcpServers": {"t": {"url": url}}}));
        let code = url_snippet(Host::ClaudeCode, "t", url).unwrap();
        assert_eq!(code, format!("claude mcp add-json t '{{\"type\":\"http\",\"url\":\"{url}\"}}'"));
        assert!(url_snippet(Host::Claude, "t", url).is_err());
    }

    #[test]
    fn listen_addresses_become_urls_a_client_can_reach() {
        assert_eq!(url_of_listen_addr("0.0.0.0:9000"), "http://127.0.0.1:9000/mcp");
        assert_eq!(url_of_listen_addr("[::]:9000"), "http://[::1]:9000/mcp");
        assert_eq!(url_of_listen_addr("192.168.1.2:80"), "http://192.168.1.2:80/mcp");
    }

    #[test]
    fn claude_code_gets_a_quoted_command_line() {
        let line = snippet(Host::ClaudeCode, "tinymcp", "/opt/my tools/tinymcp", &args(&["--root", "/it's"]));
        assert_eq!(line, "claude mcp add tinymcp -- '/opt/my tools/tinymcp' --root '/it'\\''s'");
    }
}
