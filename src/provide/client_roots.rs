//! Client roots (`--client-roots`) for the tools: a call whose paths are not all under the
//! client's roots (`files::Scope`) is refused, saying which roots it may use. A path that does
//! not exist yet (a file to write) is judged by the deepest part of it that does.

use super::files::{Files, Scope, Target};
use super::sandbox;
use serde_json::Value;
use tinymcp::{CallToolResult, RequestCx};

/// The refusals of client roots for tool calls.
impl Scope {
    /// The refusal of a tool call whose path arguments (`path`, `source`, `destination`; an
    /// absent `path` is the top) are not all under the client's roots.
    pub(crate) fn refusal(&self, files: &Files, args: &Value) -> Option<CallToolResult> {
        self.roots()?;
        let mut spelled: Vec<&str> = ["path", "source", "destination"]
            .iter()
            .filter_map(|name| args.get(*name).and_then(Value::as_str))
            .collect();
        if spelled.is_empty() {
            spelled.push("");
        }
        let outside = spelled.into_iter().find(|path| !self.reaches_spelled(files, path))?;
        Some(CallToolResult::error(self.outside(files, outside)))
    }

    /// Why `spelled` is refused: it is not under the client's roots, which are named.
    pub(crate) fn outside(&self, files: &Files, spelled: &str) -> String {
        let roots: Vec<String> = self
            .roots()
            .unwrap_or_default()
            .iter()
            .filter_map(|root| {
                files.roots.iter().find_map(|r| r.sandbox.relative(root).map(|_| files.display(r, root)))
            })
            .collect();
        if roots.is_empty() {
            "the client's roots hold none of the served folders: nothing is served to this client".to_owned()
        } else {
            format!(
                "path {spelled:?} refused: it is not under the client's roots (give a path under one of: {})",
                roots.join(", ")
            )
        }
    }

    /// Whether a path a client spelled leads under one of its roots: the deepest part of it that
    /// exists is resolved (symbolic links followed, through the sandbox), the rest are plain
    /// names (no `..`), so the path it names is that part joined with them.
    pub(crate) fn reaches_spelled(&self, files: &Files, spelled: &str) -> bool {
        let Ok(parts) = sandbox::components(spelled, files.options.include_hidden) else { return false };
        for exists in (0..=parts.len()).rev() {
            match files.locate_parts(parts.get(..exists).unwrap_or_default()) {
                Ok(Target::In { path, .. }) => {
                    let named = parts.get(exists..).unwrap_or_default().iter().fold(path, |p, c| p.join(c));
                    return self.reaches(&named);
                }
                Ok(Target::Top) => return false,
                Err(_) => continue,
            }
        }
        false
    }
}

/// Runs a tool call when its paths are under the client's roots, else answers the refusal.
pub(crate) fn gate(
    files: &Files,
    cx: &RequestCx,
    args: &Value,
    run: impl FnOnce() -> CallToolResult,
) -> CallToolResult {
    files.scope(cx).refusal(files, args).unwrap_or_else(run)
}
