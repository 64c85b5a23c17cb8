//! Configuration snippets for MCP hosts (Claude Desktop, VS Code, Cursor, Claude Code) that
//! launch a server over stdio: text only, for `tinymcp config`. Pure: no filesystem, no printing.

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
    fn claude_code_gets_a_quoted_command_line() {
        let line = snippet(Host::ClaudeCode, "tinymcp", "/opt/my tools/tinymcp", &args(&["--root", "/it's"]));
        assert_eq!(line, "claude mcp add tinymcp -- '/opt/my tools/tinymcp' --root '/it'\\''s'");
    }
}
