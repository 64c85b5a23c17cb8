//! `tinymcp proxy --config FILE`: the `mcpServers` JSON hosts already use, read into one `Spec`
//! per name. Every problem is refused at start, named by its JSON path
//! (`mcpServers.NAME.args[1]`); nothing here runs a process.

use super::child::Spec;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// What a server's entry may hold.
const KEYS: [&str; 5] = ["command", "args", "env", "cwd", "type"];

/// The servers of the file at `path`, by name: each name and what it runs. `base`
/// is what every server gets (its command unset): our `PATH`, `HOME` and `--pass-env` variables,
/// to which the entry's `env` is added.
pub fn read(path: &str, base: &Spec) -> Result<Vec<(String, Spec)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--config {path}: cannot read it: {e}"))?;
    parse(&text, base).map_err(|why| format!("--config {path}: {why}"))
}

fn parse(text: &str, base: &Spec) -> Result<Vec<(String, Spec)>, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("expected JSON: {e}"))?;
    let root = object(&root, "the top level")?;
    if let Some(other) = root.keys().find(|k| *k != "mcpServers") {
        return Err(format!("{other}: unknown key (expected only mcpServers)"));
    }
    let servers = root.get("mcpServers").ok_or("mcpServers: missing (expected an object of servers)")?;
    let servers = object(servers, "mcpServers")?;
    if servers.is_empty() {
        return Err("mcpServers: expected at least one server".into());
    }
    servers.iter().map(|(name, entry)| Ok((name.clone(), server(name, entry, base)?))).collect()
}

fn server(name: &str, entry: &Value, base: &Spec) -> Result<Spec, String> {
    let at = format!("mcpServers.{name}");
    if !tinymcp_http::is_mount_name(name) {
        return Err(format!(
            "{at}: the name is a path segment (/{name}/mcp): expected letters, digits, '-', '_' or '.'"
        ));
    }
    let entry = object(entry, &at)?;
    if let Some(other) = entry.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("{at}.{other}: unknown key (expected command, args, env, cwd, type)"));
    }
    // Hosts write `"type": "stdio"` beside a command; a URL server (`"http"`, `"sse"`) is not a
    // child to start.
    if let Some(kind) = entry.get("type") {
        if kind.as_str() != Some("stdio") {
            return Err(format!("{at}.type: expected \"stdio\" (the proxy starts a command), got {kind}"));
        }
    }
    let command = match entry.get("command") {
        None => return Err(format!("{at}.command: missing (expected the program to run)")),
        Some(command) => string(command, &format!("{at}.command"))?,
    };
    if command.is_empty() {
        return Err(format!("{at}.command: expected a program, got \"\""));
    }
    let args = match entry.get("args") {
        None => Vec::new(),
        Some(Value::Array(args)) => {
            args.iter().enumerate().map(|(i, arg)| string(arg, &format!("{at}.args[{i}]"))).collect::<Result<_, _>>()?
        }
        Some(_) => return Err(format!("{at}.args: expected an array of strings")),
    };
    let env = command_env(entry, &at, &base.env)?;
    let cwd = command_cwd(entry, &at)?;
    Ok(Spec { command, args, env, cwd, ..base.clone() })
}

/// A command entry's environment: `base` with the entry's `env` added (replacing a variable of
/// the same name), refused at `AT.env` when a name is empty or holds `=`. The proxy's and the
/// gateway's configs both read commands this way.
pub(crate) fn command_env(
    entry: &Map<String, Value>,
    at: &str,
    base: &[(String, String)],
) -> Result<Vec<(String, String)>, String> {
    let mut env = base.to_vec();
    if let Some(vars) = entry.get("env") {
        for (var, value) in object(vars, &format!("{at}.env"))? {
            if var.is_empty() || var.contains('=') {
                return Err(format!("{at}.env: expected variable names, got {var:?}"));
            }
            let value = string(value, &format!("{at}.env.{var}"))?;
            env.retain(|(k, _)| k != var);
            env.push((var.clone(), value));
        }
    }
    Ok(env)
}

/// A command entry's working folder (`cwd`), which must exist.
pub(crate) fn command_cwd(entry: &Map<String, Value>, at: &str) -> Result<Option<PathBuf>, String> {
    let Some(cwd) = entry.get("cwd") else { return Ok(None) };
    let dir = PathBuf::from(string(cwd, &format!("{at}.cwd"))?);
    if !dir.is_dir() {
        return Err(format!("{at}.cwd: expected a folder, {} is not one", dir.display()));
    }
    Ok(Some(dir))
}

pub(crate) fn object<'v>(value: &'v Value, at: &str) -> Result<&'v Map<String, Value>, String> {
    value.as_object().ok_or_else(|| format!("{at}: expected an object"))
}

pub(crate) fn string(value: &Value, at: &str) -> Result<String, String> {
    value.as_str().map(str::to_owned).ok_or_else(|| format!("{at}: expected a string"))
}

#[cfg(test)]
mod tests {
    use super::{parse, Spec};
    use std::time::Duration;

    fn base() -> Spec {
        let env = vec![("PATH".to_owned(), "/bin".to_owned())];
        Spec { command: String::new(), args: Vec::new(), env, cwd: None, answer_within: Duration::ZERO, max_line: 1 }
    }

    #[test]
    fn each_server_gets_its_own_env_on_the_base() {
        let text = r#"{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"K": "v", "PATH": "/p"}},
                                        "b": {"command": "y", "type": "stdio"}}}"#;
        let servers = parse(text, &base()).unwrap();
        assert_eq!(servers[0].0, "a");
        assert_eq!(servers[0].1.args, ["1"]);
        let mut env = servers[0].1.env.clone();
        env.sort();
        assert_eq!(env, [("K".to_owned(), "v".to_owned()), ("PATH".to_owned(), "/p".to_owned())]);
        assert_eq!(servers[1].1.env, [("PATH".to_owned(), "/bin".to_owned())]);
    }

    #[test]
    fn problems_are_named_by_their_json_path() {
        let refused = |text: &str| parse(text, &base()).unwrap_err();
        assert!(refused(r#"{"servers": {}}"#).starts_with("servers: unknown key"));
        assert!(refused(r#"{"mcpServers": {"a": {"args": []}}}"#).starts_with("mcpServers.a.command: missing"));
        assert!(refused(r#"{"mcpServers": {"a": {"command": "x", "url": "u"}}}"#).starts_with("mcpServers.a.url:"));
        assert!(refused(r#"{"mcpServers": {"a": {"command": "x", "type": "http"}}}"#).starts_with("mcpServers.a.type:"));
        assert!(refused(r#"{"mcpServers": {"a": {"command": "x", "args": [1]}}}"#).starts_with("mcpServers.a.args[0]:"));
        assert!(refused(r#"{"mcpServers": {"../a": {"command": "x"}}}"#).starts_with("mcpServers.../a:"));
        assert!(
            refused(r#"{"mcpServers": {"a": {"command": "x", "cwd": "/no/such"}}}"#).starts_with("mcpServers.a.cwd:")
        );
    }
}
