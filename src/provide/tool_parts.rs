//! What the read-only file tools (`file_tools`, `find_tools`) are built from, in one place:
//! their annotations, the help text for a path argument, argument reading and the shapes of
//! their answers. Knows the served folders only through `Files`; no tool lives here.

use super::files::Files;
use super::sandbox::{EntryKind, Sandbox};
use serde_json::Value;
use std::borrow::Cow;
use std::path::Path;
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

/// How deep a pruned walk goes (the sandbox's own walk stops at the same depth).
const MAX_WALK_DEPTH: usize = 64;

/// Visits every regular file under `dir` as [`Sandbox::walk`] does (depth first in name order,
/// links to files inside the root followed, links to folders not), with its path relative to
/// the root, but never enters a folder nor visits a file whose relative path `pruned` says is
/// left out: the search tools' `exclude`, so excluded files cost nothing and count toward no
/// cap (ignored ones are never listed by the sandbox). `visit` returns `false` to stop; so
/// does the walk.
pub(crate) fn walk_pruned(
    sandbox: &Sandbox,
    dir: &Path,
    pruned: &dyn Fn(&str) -> bool,
    visit: &mut dyn FnMut(&str, &Path) -> bool,
) -> bool {
    walk_pruned_at(sandbox, dir, 0, pruned, visit)
}

fn walk_pruned_at(
    sandbox: &Sandbox,
    dir: &Path,
    depth: usize,
    pruned: &dyn Fn(&str) -> bool,
    visit: &mut dyn FnMut(&str, &Path) -> bool,
) -> bool {
    if depth > MAX_WALK_DEPTH {
        return true;
    }
    for (_, path, kind) in sandbox.entries(dir) {
        let Some(rel) = sandbox.relative(&path) else { continue };
        if pruned(&rel) {
            continue;
        }
        let keep_going = match kind {
            EntryKind::Dir => walk_pruned_at(sandbox, &path, depth + 1, pruned, visit),
            EntryKind::File(_) => visit(&rel, &path),
            EntryKind::Link => match sandbox.follow(&path) {
                Some((_, meta)) if meta.is_file() => visit(&rel, &path),
                _ => true,
            },
            EntryKind::Other => true,
        };
        if !keep_going {
            return false;
        }
    }
    true
}

/// A name or path as the text of a listing shows it: as it is, unless it holds a control
/// character (a newline, an escape sequence that would drive a terminal, a tab…); then as a
/// JSON string, quoted, control characters, quotes and backslashes escaped (`"a\nb"`,
/// `"\u001b[31m"`). Ordinary Unicode names stay readable. A path spelled that way, quotes
/// included, is read back by [`unshown`]; written inside a JSON argument without its quotes it
/// is the exact name already. Structured content always holds the exact name.
pub(crate) fn shown(name: &str) -> Cow<'_, str> {
    if !name.chars().any(char::is_control) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Control characters are all in the Basic Multilingual Plane: one \u escape each.
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// The path a listing showed quoted ([`shown`]): the JSON string decoded, when `spelled` is one
/// that holds an escape; `None` for any other path (taken as it is).
pub(crate) fn unshown(spelled: &str) -> Option<String> {
    let inner = spelled.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return None;
    }
    serde_json::from_str::<String>(spelled).ok()
}

#[cfg(test)]
mod tests {
    use super::{shown, unshown};

    #[test]
    fn control_characters_are_shown_escaped_and_read_back() {
        assert_eq!(shown("src/main.rs"), "src/main.rs");
        assert_eq!(shown("héllo wörld ✓"), "héllo wörld ✓");
        assert_eq!(shown("a\nb"), "\"a\\nb\"");
        assert_eq!(shown("\u{1b}[31m"), "\"\\u001b[31m\"");
        assert_eq!(shown("x\"\\\u{7f}\u{85}"), "\"x\\\"\\\\\\u007f\\u0085\"");
        for name in ["a\nb", "\u{1b}[31m", "x\"\\\u{7f}\u{85}\t\r"] {
            assert_eq!(unshown(&shown(name)).as_deref(), Some(name));
        }
        assert_eq!(unshown("plain"), None);
        assert_eq!(unshown("\"quoted\""), None);
    }
}
