//! What the read-only file tools (`file_tools`, `find_tools`) are built from, in one place:
//! their annotations, the help text for a path argument, argument reading and the shapes of
//! their answers. Knows the served folders only through `Files`; no tool lives here.

use super::files::Files;
use serde_json::Value;
use tinymcp::{CallToolResult, ToolAnnotations};

/// The annotations of a tool that only reads the served folders.
pub(crate) fn read_only(title: &str) -> ToolAnnotations {
    ToolAnnotations {
        title: Some(title.into()),
        read_only_hint: Some(true),
        destructive_hint: Some(false),
        idempotent_hint: Some(true),
        open_world_hint: Some(false),
    }
}

/// How a path argument is spelled, for the input schemas' descriptions: relative to the one
/// served folder, or starting with one of the served folders' labels.
pub(crate) fn path_help(files: &Files) -> String {
    if files.roots.len() == 1 {
        "relative to the served folder".to_owned()
    } else {
        let labels: Vec<&str> = files.roots.iter().map(|r| r.label.as_str()).collect();
        format!("starting with one of the served folders ({})", labels.join(", "))
    }
}

/// A string argument, when it is one.
pub(crate) fn str_arg<'a>(args: &'a Value, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// The answer to a path the sandbox (or the tool) refused, saying why.
pub(crate) fn refused(spelled: &str, why: &str) -> CallToolResult {
    CallToolResult::error(format!("path {spelled:?} refused: {why}"))
}

/// A result with readable text for the model and structured content for programs.
pub(crate) fn both(text: String, structured: Value) -> CallToolResult {
    CallToolResult { structured_content: Some(structured), ..CallToolResult::text(text) }
}

/// The part of `rel` (relative to a root) below `base` (relative to the same root), for the
/// globs of a walk that started at `base`.
pub(crate) fn below<'r>(base: &str, rel: &'r str) -> &'r str {
    if base.is_empty() {
        return rel;
    }
    rel.strip_prefix(base).map_or(rel, |r| r.trim_start_matches('/'))
}
