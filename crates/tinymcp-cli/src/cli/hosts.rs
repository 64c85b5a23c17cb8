//! What each MCP host (Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Zed, Codex CLI,
//! Gemini CLI) keeps for one server, in that host's current shape: the entry, the snippet to
//! paste, the install links. Text and values only, for `tinymcp config` and `tinymcp install`:
//! no filesystem, no printing.

use crate::cli::jsondoc::Doc;
use std::fmt;

/// A host application that starts MCP servers from a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// Claude Desktop: `claude_desktop_config.json`, `mcpServers`.
    ClaudeDesktop,
    /// Claude Code: `claude mcp add`, or `.mcp.json` / `~/.claude.json`, `mcpServers`.
    ClaudeCode,
    /// VS Code: `.vscode/mcp.json` or the user `mcp.json`, `servers`.
    VsCode,
    /// Cursor: `.cursor/mcp.json` or `~/.cursor/mcp.json`, `mcpServers`.
    Cursor,
    /// Windsurf: `~/.codeium/windsurf/mcp_config.json`, `mcpServers` (`serverUrl` for a URL).
    Windsurf,
    /// Zed: `settings.json`, `context_servers`.
    Zed,
    /// Codex CLI: `config.toml`, `[mcp_servers.NAME]` tables.
    Codex,
    /// Gemini CLI: `settings.json`, `mcpServers` (`httpUrl` for a URL).
    Gemini,
}

/// The names `--host` accepts.
pub const HOST_NAMES: &str = "claude-desktop (or claude), claude-code, vscode, cursor, windsurf, zed, codex, gemini";

/// How the host reaches the server: it starts a command, or connects to a URL (Streamable HTTP).
#[derive(Debug, Clone, Copy)]
pub enum Launch<'a> {
    /// The host starts `command` with `args` and speaks over its stdin and stdout.
    Stdio {
        /// The program, an absolute path.
        command: &'a str,
        /// Its arguments.
        args: &'a [String],
    },
    /// The host connects to a server already listening at this URL.
    Url(&'a str),
}

/// What starts the server in a host's entry: the npm package (`npx -y tinymcp`), the PyPI one
/// (`uvx tinymcp`), or this binary by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// `npx -y tinymcp ARGS`: npm fetches the package (and its platform's binary) when needed.
    Npx,
    /// `uvx tinymcp ARGS`: uv fetches the wheel carrying the binary when needed.
    Uvx,
    /// The binary's own path.
    Binary,
}

/// The names `--launcher` accepts.
pub const LAUNCHER_NAMES: &str = "npx, uvx, binary";

impl Launcher {
    /// The launcher named on the command line.
    pub fn from_name(name: &str) -> Option<Launcher> {
        match name {
            "npx" | "npm" => Some(Launcher::Npx),
            "uvx" | "uv" | "pypi" => Some(Launcher::Uvx),
            "binary" => Some(Launcher::Binary),
            _ => None,
        }
    }

    /// The command and arguments a host runs for a server started with `args`; `exe` is the
    /// binary's path, used by `Binary` alone.
    pub fn command(self, exe: &str, args: &[String]) -> (String, Vec<String>) {
        let (command, first): (&str, &[&str]) = match self {
            Launcher::Npx => ("npx", &["-y", "tinymcp"]),
            Launcher::Uvx => ("uvx", &["tinymcp"]),
            Launcher::Binary => (exe, &[]),
        };
        (command.to_owned(), first.iter().map(|s| s.to_string()).chain(args.iter().cloned()).collect())
    }
}

impl Host {
    /// Every host, in the order `--help` lists them.
    pub const ALL: [Host; 8] = [
        Host::ClaudeDesktop,
        Host::ClaudeCode,
        Host::VsCode,
        Host::Cursor,
        Host::Windsurf,
        Host::Zed,
        Host::Codex,
        Host::Gemini,
    ];

    /// The host named on the command line.
    pub fn from_name(name: &str) -> Option<Host> {
        match name {
            "claude" | "claude-desktop" => Some(Host::ClaudeDesktop),
            "code" => Some(Host::VsCode),
            _ => Host::ALL.into_iter().find(|h| h.name() == name),
        }
    }

    /// The name `--host` takes.
    pub fn name(self) -> &'static str {
        match self {
            Host::ClaudeDesktop => "claude-desktop",
            Host::ClaudeCode => "claude-code",
            Host::VsCode => "vscode",
            Host::Cursor => "cursor",
            Host::Windsurf => "windsurf",
            Host::Zed => "zed",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
        }
    }

    /// The member of the host's file that holds its servers, by name.
    pub fn servers_key(self) -> &'static str {
        match self {
            Host::VsCode => "servers",
            Host::Zed => "context_servers",
            Host::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }

    /// Where the snippet goes, for a comment above it.
    pub fn destination(self) -> &'static str {
        match self {
            Host::ClaudeDesktop => {
                "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, \
                 Windows: %APPDATA%\\Claude\\), under \"mcpServers\""
            }
            Host::ClaudeCode => "a shell: it registers the server with Claude Code",
            Host::VsCode => ".vscode/mcp.json in the workspace (or the user mcp.json), under \"servers\"",
            Host::Cursor => ".cursor/mcp.json in the project (or ~/.cursor/mcp.json), under \"mcpServers\"",
            Host::Windsurf => "~/.codeium/windsurf/mcp_config.json, under \"mcpServers\"",
            Host::Zed => "Zed's settings.json (~/.config/zed/settings.json, or .zed/settings.json in the project), under \"context_servers\"",
            Host::Codex => "~/.codex/config.toml (or .codex/config.toml in a trusted project)",
            Host::Gemini => "~/.gemini/settings.json (or .gemini/settings.json in the project), under \"mcpServers\"",
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What Claude Desktop users are told to do instead of a URL entry, which its file lacks.
const CLAUDE_DESKTOP_NO_URL: &str = "Claude Desktop cannot connect to a URL from claude_desktop_config.json: run \
     `tinymcp config --host claude-desktop` without --http or --url for a snippet with which Claude \
     Desktop starts the server itself, or add the URL as a custom connector in its settings";

/// The host's entry for one server (the value under its name in the servers member), keys in
/// the order the host's documentation writes them. For Codex it is the `[mcp_servers.NAME]`
/// table's contents. An error says what to do for a host that cannot take this launch.
pub fn entry(host: Host, launch: Launch) -> Result<Doc, String> {
    let text = |s: &str| Doc::String(s.to_owned());
    Ok(match launch {
        Launch::Stdio { command, args } => match host {
            Host::VsCode | Host::ClaudeCode => {
                Doc::object([("type", text("stdio")), ("command", text(command)), ("args", Doc::strings(args))])
            }
            _ => Doc::object([("command", text(command)), ("args", Doc::strings(args))]),
        },
        Launch::Url(url) => match host {
            Host::ClaudeDesktop => return Err(CLAUDE_DESKTOP_NO_URL.into()),
            Host::VsCode | Host::ClaudeCode => Doc::object([("type", text("http")), ("url", text(url))]),
            Host::Windsurf => Doc::object([("serverUrl", text(url))]),
            Host::Gemini => Doc::object([("httpUrl", text(url))]),
            Host::Cursor | Host::Zed | Host::Codex => Doc::object([("url", text(url))]),
        },
    })
}

/// The text to paste (or, for Claude Code, to run) that gives `host` the server `name`.
pub fn snippet(host: Host, name: &str, launch: Launch) -> Result<String, String> {
    let entry = entry(host, launch)?;
    Ok(match host {
        Host::ClaudeCode => match launch {
            Launch::Stdio { command, args } => {
                let mut words = vec!["claude".to_owned(), "mcp".into(), "add".into(), shell_quote(name), "--".into()];
                words.push(shell_quote(command));
                words.extend(args.iter().map(|a| shell_quote(a)));
                words.join(" ")
            }
            Launch::Url(url) => format!("claude mcp add --transport http {} {}", shell_quote(name), shell_quote(url)),
        },
        Host::Codex => toml_table(name, &entry),
        _ => Doc::object([(host.servers_key(), Doc::object([(name, entry)]))]).pretty(),
    })
}

/// The links that install the server in one click, for the hosts that accept them: VS Code
/// (`vscode:mcp/install?` and the entry with its name, URL-encoded) and Cursor
/// (`cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=` and the entry in base64).
pub fn install_link(host: Host, name: &str, launch: Launch) -> Option<String> {
    let entry = entry(host, launch).ok()?;
    match host {
        Host::VsCode => {
            let mut named = Doc::object([("name", Doc::String(name.to_owned()))]);
            if let Doc::Object(members) = entry {
                for (k, v) in members {
                    named.set(&k, v);
                }
            }
            let keep = |_: &str, _: usize, c: char| tinymcp::percent::is_unreserved(c);
            Some(format!("vscode:mcp/install?{}", tinymcp::percent::encode(&named.compact(), keep)))
        }
        Host::Cursor => {
            let keep = |_: &str, _: usize, c: char| tinymcp::percent::is_unreserved(c);
            Some(format!(
                "cursor://anysphere.cursor-deeplink/mcp/install?name={}&config={}",
                tinymcp::percent::encode(name, keep),
                tinymcp::base64::encode(entry.compact().as_bytes())
            ))
        }
        _ => None,
    }
}

/// A `[mcp_servers.NAME]` table of Codex's `config.toml` holding `entry` (strings and arrays of
/// strings only, which is all an entry holds).
pub fn toml_table(name: &str, entry: &Doc) -> String {
    let mut out = format!("[mcp_servers.{}]\n", toml_key(name));
    if let Doc::Object(members) = entry {
        for (key, value) in members {
            out.push_str(&format!("{} = {}\n", toml_key(key), toml_value(value)));
        }
    }
    out
}

/// A TOML key: bare when it may be, else a quoted string.
pub fn toml_key(key: &str) -> String {
    let bare = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if bare {
        key.to_owned()
    } else {
        toml_string(key)
    }
}

/// A TOML basic string. JSON's escapes are TOML's (`\"`, `\\`, `\n`, `\uXXXX`), and serde_json
/// writes no other.
fn toml_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn toml_value(value: &Doc) -> String {
    match value {
        Doc::String(s) => toml_string(s),
        Doc::Array(items) => format!("[{}]", items.iter().map(toml_value).collect::<Vec<_>>().join(", ")),
        Doc::Bool(b) => b.to_string(),
        Doc::Number(n) => n.to_string(),
        Doc::Null | Doc::Object(_) => "{}".into(),
    }
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
    use serde_json::{json, Value};

    fn args(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn stdio<'a>(command: &'a str, args: &'a [String]) -> Launch<'a> {
        Launch::Stdio { command, args }
    }

    fn json_of(host: Host, launch: Launch) -> Value {
        serde_json::from_str(&snippet(host, "t", launch).unwrap()).unwrap()
    }

    #[test]
    fn every_json_host_gets_its_own_stdio_shape() {
        let a = args(&["--root", "/p"]);
        let plain = json!({"command": "/bin/tinymcp", "args": ["--root", "/p"]});
        for host in [Host::ClaudeDesktop, Host::Cursor, Host::Windsurf, Host::Gemini] {
            assert_eq!(json_of(host, stdio("/bin/tinymcp", &a)), json!({"mcpServers": {"t": plain}}), "{host}");
        }
        assert_eq!(json_of(Host::Zed, stdio("/bin/tinymcp", &a)), json!({"context_servers": {"t": plain}}));
        assert_eq!(
            json_of(Host::VsCode, stdio("/bin/tinymcp", &[])),
            json!({"servers": {"t": {"type": "stdio", "command": "/bin/tinymcp", "args": []}}})
        );
    }

    #[test]
    fn every_host_but_claude_desktop_gets_its_own_url_shape() {
        let url = "http://127.0.0.1:8080/mcp";
        let cases = [
            (Host::VsCode, json!({"servers": {"t": {"type": "http", "url": url}}})),
            (Host::Cursor, json!({"mcpServers": {"t": {"url": url}}})),
            (Host::Windsurf, json!({"mcpServers": {"t": {"serverUrl": url}}})),
            (Host::Gemini, json!({"mcpServers": {"t": {"httpUrl": url}}})),
            (Host::Zed, json!({"context_servers": {"t": {"url": url}}})),
        ];
        for (host, want) in cases {
            assert_eq!(json_of(host, Launch::Url(url)), want, "{host}");
        }
        assert_eq!(
            snippet(Host::ClaudeCode, "t", Launch::Url(url)).unwrap(),
            format!("claude mcp add --transport http t {url}")
        );
        assert_eq!(snippet(Host::Codex, "t", Launch::Url(url)).unwrap(), format!("[mcp_servers.t]\nurl = \"{url}\"\n"));
        assert!(snippet(Host::ClaudeDesktop, "t", Launch::Url(url)).is_err());
    }

    #[test]
    fn json_snippets_put_the_command_before_its_args_and_escape_what_needs_it() {
        let a = args(&["--root", "/a \"b\"\n"]);
        let odd = snippet(Host::Cursor, "my \"server\"", stdio("C:\\bin\\tinymcp", &a)).unwrap();
        let value: Value = serde_json::from_str(&odd).unwrap();
        assert_eq!(value["mcpServers"]["my \"server\""]["args"][1], "/a \"b\"\n");
        assert_eq!(value["mcpServers"]["my \"server\""]["command"], "C:\\bin\\tinymcp");
        assert!(odd.find("\"command\"").unwrap() < odd.find("\"args\"").unwrap(), "{odd}");
    }

    #[test]
    fn codex_gets_a_toml_table_with_quoted_strings() {
        let a = args(&["--root", "/it's \"here\"\\"]);
        let table = snippet(Host::Codex, "tinymcp", stdio("/bin/tinymcp", &a)).unwrap();
        assert_eq!(
            table,
            "[mcp_servers.tinymcp]\ncommand = \"/bin/tinymcp\"\nargs = [\"--root\", \"/it's \\\"here\\\"\\\\\"]\n"
        );
        assert_eq!(toml_key("my server"), "\"my server\"");
    }

    #[test]
    fn install_links_carry_the_entry() {
        let a = args(&["--root", "/p q"]);
        let vscode = install_link(Host::VsCode, "t", stdio("/bin/tinymcp", &a)).unwrap();
        let query = vscode.strip_prefix("vscode:mcp/install?").unwrap();
        let value: Value = serde_json::from_str(&tinymcp::percent::decode(query).unwrap()).unwrap();
        assert_eq!(value, json!({"name": "t", "type": "stdio", "command": "/bin/tinymcp", "args": ["--root", "/p q"]}));
        let cursor = install_link(Host::Cursor, "t", Launch::Url("http://h/mcp")).unwrap();
        let config = cursor.strip_prefix("cursor://anysphere.cursor-deeplink/mcp/install?name=t&config=").unwrap();
        assert_eq!(config, "eyJ1cmwiOiJodHRwOi8vaC9tY3AifQ=="); // {"url":"http://h/mcp"}
        assert!(install_link(Host::Zed, "t", Launch::Url("http://h/mcp")).is_none());
    }

    #[test]
    fn names_and_aliases() {
        assert_eq!(Host::from_name("claude"), Some(Host::ClaudeDesktop));
        for host in Host::ALL {
            assert_eq!(Host::from_name(host.name()), Some(host));
        }
        assert_eq!(Host::from_name("emacs"), None);
    }

    #[test]
    fn listen_addresses_become_urls_a_client_can_reach() {
        assert_eq!(url_of_listen_addr("0.0.0.0:9000"), "http://127.0.0.1:9000/mcp");
        assert_eq!(url_of_listen_addr("[::]:9000"), "http://[::1]:9000/mcp");
        assert_eq!(url_of_listen_addr("192.168.1.2:80"), "http://192.168.1.2:80/mcp");
    }

    #[test]
    fn claude_code_gets_a_quoted_command_line() {
        let a = args(&["--root", "/it's"]);
        let line = snippet(Host::ClaudeCode, "tinymcp", stdio("/opt/my tools/tinymcp", &a)).unwrap();
        assert_eq!(line, "claude mcp add tinymcp -- '/opt/my tools/tinymcp' --root '/it'\\''s'");
    }
}
