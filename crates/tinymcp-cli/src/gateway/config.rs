//! `gateway.json`: the upstreams by name and what each exposes. Every problem is refused at
//! start, named by its JSON path (`upstreams.NAME.tools.allow[0]`); nothing here runs a
//! process or opens a connection.

use crate::cli::proxy::config::{command_cwd, command_env, object, string};
use crate::provide::glob::GlobPattern;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

/// How long a call may wait for its upstream's answer unless `timeout_secs` says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The whole file.
pub struct Config {
    /// Between an upstream's name and its tool's (`__`).
    pub separator: String,
    /// Only `search_tools` and `call_tool` are listed.
    pub discovery: bool,
    /// Where the audit lines go: `stderr` or a file.
    pub audit: Option<String>,
    pub upstreams: Vec<UpstreamConfig>,
}

/// One upstream server.
pub struct UpstreamConfig {
    pub name: String,
    pub how: How,
    /// A call unanswered this long fails (and is cancelled upstream).
    pub timeout: Duration,
    pub tools: ToolRules,
    /// Arguments and results are written to the audit log too.
    pub audit_payloads: bool,
    /// Scopes a caller's token must grant (under OAuth) to see and use anything of it.
    pub scopes: Vec<String>,
}

/// How the upstream is reached.
pub enum How {
    /// A child process speaking stdio: one per downstream session (started on the session's
    /// first request to it, ended with the session), or, `shared`, one for every client.
    Command { command: String, args: Vec<String>, env: Vec<(String, String)>, cwd: Option<PathBuf>, shared: bool },
    /// A remote server over Streamable HTTP (or, `legacy`, the HTTP+SSE transport); `headers`
    /// as `Name: value` with `${VAR}` read from the environment (never written in the file);
    /// `oauth`: client credentials for the upstream's own authorization server.
    Url { url: String, headers: Vec<String>, legacy: bool, oauth: Option<OAuthClient> },
}

/// `"oauth"` of a url upstream: the gateway's own OAuth client there, its secret read from the
/// environment variable `secret_var` at start (never written in the file).
pub struct OAuthClient {
    pub client_id: String,
    pub secret_var: String,
    /// The scope asked for (else the one the upstream's challenge or metadata names).
    pub scope: Option<String>,
}

/// Which tools of an upstream are offered, and as what.
#[derive(Default)]
pub struct ToolRules {
    allow: Vec<GlobPattern>,
    deny: Vec<GlobPattern>,
    /// By the upstream's own tool name.
    overrides: Vec<(String, Override)>,
}

/// What the config changes of one tool.
#[derive(Default, Clone)]
pub struct Override {
    /// Its name under the upstream's prefix.
    pub rename: Option<String>,
    pub description: Option<String>,
    /// Merged over the upstream's own annotations.
    pub annotations: Option<Map<String, Value>>,
    /// Scopes the tool needs besides its upstream's.
    pub scopes: Vec<String>,
}

impl ToolRules {
    /// Whether the upstream's tool `name` is offered: allowed (no `allow` list allows all) and
    /// not denied.
    pub fn offers(&self, name: &str) -> bool {
        (self.allow.is_empty() || self.allow.iter().any(|g| g.matches(name)))
            && !self.deny.iter().any(|g| g.matches(name))
    }

    /// What the config says of the upstream's tool `name`.
    pub fn override_of(&self, name: &str) -> Option<&Override> {
        self.overrides.iter().find(|(n, _)| n == name).map(|(_, o)| o)
    }
}

/// Reads and checks the file at `path`; `env` is the variables every command upstream gets.
pub fn read(path: &str, env: &[(String, String)]) -> Result<Config, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--config {path}: cannot read it: {e}"))?;
    parse(&text, env).map_err(|why| format!("--config {path}: {why}"))
}

/// Whether `name` may name an upstream: a letter, then letters, digits and `-`. It is a tool
/// name's prefix and a URI scheme's (`NAME+file:///…`), so nothing else fits both.
pub fn is_upstream_name(name: &str) -> bool {
    name.len() <= 64
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

pub(crate) fn parse(text: &str, base_env: &[(String, String)]) -> Result<Config, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("expected JSON: {e}"))?;
    let root = object(&root, "the top level")?;
    const KEYS: [&str; 4] = ["upstreams", "separator", "discovery", "audit"];
    if let Some(other) = root.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("{other}: unknown key (expected upstreams, separator, discovery, audit)"));
    }
    let separator = match root.get("separator") {
        None => "__".to_owned(),
        Some(v) => string(v, "separator")?,
    };
    if separator.is_empty() || !separator.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Err(format!(
            "separator: expected characters a tool name may hold (A-Z a-z 0-9 _ - .), got {separator:?}"
        ));
    }
    let discovery = match root.get("discovery") {
        None => false,
        Some(v) => v.as_bool().ok_or("discovery: expected true or false")?,
    };
    let audit = match root.get("audit") {
        None => None,
        Some(v) => Some(string(v, "audit")?).filter(|a| !a.is_empty()),
    };
    let upstreams = root.get("upstreams").ok_or("upstreams: missing (expected an object of servers by name)")?;
    let upstreams = object(upstreams, "upstreams")?;
    if upstreams.is_empty() {
        return Err("upstreams: expected at least one server".into());
    }
    let upstreams =
        upstreams.iter().map(|(name, entry)| upstream(name, entry, base_env)).collect::<Result<Vec<_>, _>>()?;
    Ok(Config { separator, discovery, audit, upstreams })
}

fn upstream(name: &str, entry: &Value, base_env: &[(String, String)]) -> Result<UpstreamConfig, String> {
    let at = format!("upstreams.{name}");
    if !is_upstream_name(name) {
        return Err(format!(
            "{at}: expected a name of a letter then letters, digits or '-' (at most 64): it prefixes tool names and URI schemes"
        ));
    }
    let entry = object(entry, &at)?;
    const KEYS: [&str; 13] = [
        "command",
        "shared",
        "args",
        "env",
        "cwd",
        "url",
        "transport",
        "headers",
        "oauth",
        "timeout_secs",
        "tools",
        "audit_payloads",
        "scopes",
    ];
    if let Some(other) = entry.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("{at}.{other}: unknown key (expected one of {})", KEYS.join(", ")));
    }
    let how = match (entry.get("command"), entry.get("url")) {
        (Some(_), Some(_)) => return Err(format!("{at}: expected command or url, not both")),
        (None, None) => return Err(format!("{at}: expected command (a stdio server) or url (a remote one)")),
        (Some(command), None) => {
            let command = string(command, &format!("{at}.command"))?;
            if command.is_empty() {
                return Err(format!("{at}.command: expected a program, got \"\""));
            }
            let args = strings(entry.get("args"), &format!("{at}.args"))?;
            let env = command_env(entry, &at, base_env)?;
            let cwd = command_cwd(entry, &at)?;
            for key in ["headers", "transport", "oauth"] {
                if entry.contains_key(key) {
                    return Err(format!("{at}.{key}: only for a url upstream"));
                }
            }
            // As `tinymcp proxy`: a stdio server assumes one client, so one process per session
            // unless told it is shared.
            let shared = match entry.get("shared") {
                None => false,
                Some(v) => v.as_bool().ok_or(format!("{at}.shared: expected true or false"))?,
            };
            How::Command { command, args, env, cwd, shared }
        }
        (None, Some(url)) => {
            let url = string(url, &format!("{at}.url"))?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("{at}.url: expected http://… or https://…, got {url:?}"));
            }
            for key in ["args", "env", "cwd", "shared"] {
                if entry.contains_key(key) {
                    return Err(format!("{at}.{key}: only for a command upstream"));
                }
            }
            let mut headers = Vec::new();
            if let Some(map) = entry.get("headers") {
                for (header, value) in object(map, &format!("{at}.headers"))? {
                    headers.push(format!("{header}: {}", string(value, &format!("{at}.headers.{header}"))?));
                }
            }
            let legacy = match entry.get("transport").map(|t| t.as_str()) {
                None | Some(Some("http")) => false,
                Some(Some("sse")) => true,
                _ => {
                    return Err(format!(
                    "{at}.transport: expected \"http\" (Streamable HTTP) or \"sse\" (the legacy HTTP+SSE transport)"
                ))
                }
            };
            let oauth = entry.get("oauth").map(|o| oauth_client(o, &format!("{at}.oauth"))).transpose()?;
            How::Url { url, headers, legacy, oauth }
        }
    };
    let timeout = match entry.get("timeout_secs") {
        None => DEFAULT_TIMEOUT,
        Some(v) => Duration::from_secs(
            v.as_u64().filter(|s| (1..=86_400).contains(s)).ok_or(format!("{at}.timeout_secs: expected 1 to 86400"))?,
        ),
    };
    let audit_payloads = match entry.get("audit_payloads") {
        None => false,
        Some(v) => v.as_bool().ok_or(format!("{at}.audit_payloads: expected true or false"))?,
    };
    let tools = match entry.get("tools") {
        None => ToolRules::default(),
        Some(tools) => tool_rules(tools, &format!("{at}.tools"))?,
    };
    let scopes = scopes(entry.get("scopes"), &format!("{at}.scopes"))?;
    Ok(UpstreamConfig { name: name.to_owned(), how, timeout, tools, audit_payloads, scopes })
}

fn oauth_client(value: &Value, at: &str) -> Result<OAuthClient, String> {
    let map = object(value, at)?;
    const KEYS: [&str; 3] = ["client_id", "client_secret_env", "scope"];
    if let Some(other) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "{at}.{other}: unknown key (expected client_id, client_secret_env, scope; the secret itself is read \
             from the environment variable client_secret_env names, never written in the file)"
        ));
    }
    let required = |key: &str, what: &str| -> Result<String, String> {
        let value = map.get(key).ok_or_else(|| format!("{at}.{key}: missing (expected {what})"))?;
        Some(string(value, &format!("{at}.{key}"))?)
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| format!("{at}.{key}: expected {what}, got \"\""))
    };
    let client_id = required("client_id", "the gateway's client id at the upstream's authorization server")?;
    let secret_var = required("client_secret_env", "the name of the environment variable holding the client secret")?;
    let scope = map.get("scope").map(|v| string(v, &format!("{at}.scope"))).transpose()?.filter(|s| !s.is_empty());
    Ok(OAuthClient { client_id, secret_var, scope })
}

fn tool_rules(value: &Value, at: &str) -> Result<ToolRules, String> {
    let map = object(value, at)?;
    if let Some(other) = map.keys().find(|k| !["allow", "deny", "overrides"].contains(&k.as_str())) {
        return Err(format!("{at}.{other}: unknown key (expected allow, deny, overrides)"));
    }
    let globs = |key: &str| -> Result<Vec<GlobPattern>, String> {
        strings(map.get(key), &format!("{at}.{key}"))?
            .iter()
            .enumerate()
            .map(|(i, g)| GlobPattern::new(g).map_err(|e| format!("{at}.{key}[{i}]: {e}")))
            .collect()
    };
    let (allow, deny) = (globs("allow")?, globs("deny")?);
    let mut overrides = Vec::new();
    if let Some(each) = map.get("overrides") {
        for (tool, entry) in object(each, &format!("{at}.overrides"))? {
            let here = format!("{at}.overrides.{tool}");
            let entry = object(entry, &here)?;
            const KEYS: [&str; 4] = ["rename", "description", "annotations", "scopes"];
            if let Some(other) = entry.keys().find(|k| !KEYS.contains(&k.as_str())) {
                return Err(format!("{here}.{other}: unknown key (expected rename, description, annotations, scopes)"));
            }
            let rename = entry.get("rename").map(|v| string(v, &format!("{here}.rename"))).transpose()?;
            if let Some(new) = &rename {
                if new.is_empty() || !new.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                {
                    return Err(format!("{here}.rename: expected a tool name (A-Z a-z 0-9 _ - .), got {new:?}"));
                }
            }
            let description =
                entry.get("description").map(|v| string(v, &format!("{here}.description"))).transpose()?;
            let annotations = match entry.get("annotations") {
                None => None,
                Some(v) => {
                    let map = object(v, &format!("{here}.annotations"))?.clone();
                    for (key, value) in &map {
                        let known = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
                        match (key.as_str(), value) {
                            ("title", Value::String(_)) => {}
                            (key, Value::Bool(_)) if known.contains(&key) => {}
                            _ => {
                                return Err(format!(
                                    "{here}.annotations.{key}: expected title (a string) or readOnlyHint, destructiveHint, idempotentHint, openWorldHint (true or false)"
                                ))
                            }
                        }
                    }
                    Some(map)
                }
            };
            let scopes = scopes(entry.get("scopes"), &format!("{here}.scopes"))?;
            overrides.push((tool.clone(), Override { rename, description, annotations, scopes }));
        }
    }
    Ok(ToolRules { allow, deny, overrides })
}

/// Scope names: no spaces (a token's `scope` claim is split on them).
fn scopes(value: Option<&Value>, at: &str) -> Result<Vec<String>, String> {
    let scopes = strings(value, at)?;
    match scopes.iter().position(|s| s.is_empty() || s.contains(char::is_whitespace)) {
        Some(i) => Err(format!("{at}[{i}]: expected a scope name without spaces")),
        None => Ok(scopes),
    }
}

fn strings(value: Option<&Value>, at: &str) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            items.iter().enumerate().map(|(i, item)| string(item, &format!("{at}[{i}]"))).collect()
        }
        Some(_) => Err(format!("{at}: expected an array of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, How};

    #[test]
    fn upstreams_rules_and_overrides_are_read() {
        let text = r#"{"separator": "__", "discovery": true, "audit": "stderr", "upstreams": {
            "fs": {"command": "tinymcp", "args": ["--root", "."], "env": {"K": "v"}, "timeout_secs": 5,
                   "tools": {"allow": ["read_*", "list_*"], "deny": ["*secret*"],
                             "overrides": {"read_file": {"rename": "cat", "annotations": {"readOnlyHint": true}, "scopes": ["fs:read"]}}}},
            "remote": {"url": "https://example.com/mcp", "headers": {"X-Key": "${KEY}"}, "audit_payloads": true,
                       "oauth": {"client_id": "gw", "client_secret_env": "GW_SECRET", "scope": "mcp:use"}},
            "old": {"url": "http://127.0.0.1:1/sse", "transport": "sse"},
            "one": {"command": "x", "shared": true}}}"#;
        let config = parse(text, &[("PATH".into(), "/bin".into())]).unwrap();
        assert!(config.discovery);
        assert_eq!(config.audit.as_deref(), Some("stderr"));
        let fs = config.upstreams.iter().find(|u| u.name == "fs").unwrap();
        assert!(matches!(&fs.how, How::Command { env, shared: false, .. } if env.len() == 2), "per session by default");
        let one = config.upstreams.iter().find(|u| u.name == "one").unwrap();
        assert!(matches!(&one.how, How::Command { shared: true, .. }));
        assert!(fs.tools.offers("read_file") && fs.tools.offers("list_x"));
        assert!(!fs.tools.offers("write_file") && !fs.tools.offers("read_secret"));
        assert_eq!(fs.tools.override_of("read_file").and_then(|o| o.rename.as_deref()), Some("cat"));
        assert_eq!(fs.tools.override_of("read_file").map(|o| o.scopes.clone()), Some(vec!["fs:read".to_owned()]));
        // By name: the file's object is read in name order.
        let remote = config.upstreams.iter().find(|u| u.name == "remote").unwrap();
        assert!(matches!(&remote.how, How::Url { headers, legacy: false, .. } if headers == &["X-Key: ${KEY}"]));
        assert!(remote.audit_payloads && remote.tools.offers("anything"));
        let How::Url { oauth: Some(oauth), .. } = &remote.how else { panic!("oauth read") };
        assert_eq!((oauth.client_id.as_str(), oauth.secret_var.as_str()), ("gw", "GW_SECRET"));
        assert_eq!(oauth.scope.as_deref(), Some("mcp:use"));
        let old = config.upstreams.iter().find(|u| u.name == "old").unwrap();
        assert!(matches!(&old.how, How::Url { legacy: true, .. }));
    }

    #[test]
    fn problems_are_named_by_their_json_path() {
        let refused = |text: &str| parse(text, &[]).err().unwrap_or_default();
        assert!(refused(r#"{"servers": {}}"#).starts_with("servers: unknown key"));
        assert!(refused(r#"{"upstreams": {}}"#).starts_with("upstreams: expected at least one"));
        assert!(refused(r#"{"upstreams": {"a_b": {"command": "x"}}}"#).starts_with("upstreams.a_b:"));
        assert!(
            refused(r#"{"upstreams": {"a": {}}}"#).starts_with("upstreams.a: expected command (a stdio server) or url")
        );
        assert!(refused(r#"{"upstreams": {"a": {"url": "ftp://x"}}}"#).starts_with("upstreams.a.url:"));
        assert!(refused(r#"{"upstreams": {"a": {"command": "x", "tools": {"allow": [1]}}}}"#)
            .starts_with("upstreams.a.tools.allow[0]:"));
        assert!(refused(r#"{"upstreams": {"a": {"command": "x", "tools": {"overrides": {"t": {"rename": "a b"}}}}}}"#)
            .starts_with("upstreams.a.tools.overrides.t.rename:"));
        assert!(refused(r#"{"separator": "/", "upstreams": {"a": {"command": "x"}}}"#).starts_with("separator:"));
        assert!(refused(
            r#"{"upstreams": {"a": {"url": "http://h/mcp", "oauth": {"client_id": "c", "client_secret": "s"}}}}"#
        )
        .starts_with("upstreams.a.oauth.client_secret: unknown key"));
        assert!(refused(r#"{"upstreams": {"a": {"url": "http://h/mcp", "oauth": {"client_id": "c"}}}}"#)
            .starts_with("upstreams.a.oauth.client_secret_env: missing"));
        assert!(refused(r#"{"upstreams": {"a": {"command": "x", "oauth": {}}}}"#)
            .starts_with("upstreams.a.oauth: only for a url upstream"));
        assert!(refused(r#"{"upstreams": {"a": {"url": "http://h/mcp", "shared": true}}}"#)
            .starts_with("upstreams.a.shared: only for a command upstream"));
        assert!(refused(r#"{"upstreams": {"a": {"command": "x", "shared": "yes"}}}"#)
            .starts_with("upstreams.a.shared: expected true or false"));
        assert!(refused(r#"{"upstreams": {"a": {"command": "x", "scopes": ["a b"]}}}"#)
            .starts_with("upstreams.a.scopes[0]:"));
    }
}
