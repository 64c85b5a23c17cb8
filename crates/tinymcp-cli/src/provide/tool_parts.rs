//! What the read-only file tools (`file_tools`, `find_tools`) are built from, in one place:
//! their annotations, the help text for a path argument, argument reading and the shapes of
//! their answers. Knows the served folders only through `Files`; no tool lives here.

use super::files::Files;
use super::glob::GlobPattern;
use super::lit;
use super::sandbox::{EntryKind, Sandbox};
use serde_json::Value;
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

/// The most exclude globs. (The longest glob anywhere, 1024 characters, is the input schemas'
/// `maxLength`, written in their text.)
const MAX_EXCLUDES: usize = 64;

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

/// An input schema with the exclude globs added to its properties, under either name
/// (`excludePatterns` is the reference filesystem server's, so a model used to it is understood).
/// The text's `maxItems` is `MAX_EXCLUDES` (`tests::exclude_bounds`).
pub(crate) fn with_excludes(mut schema: Value) -> Value {
    let globs = lit(r#"{"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 1024}}"#);
    let what = [
        ("exclude", "Globs of files and folders to leave out: without a / a pattern matches a name at any depth (node_modules, *.log), with a / the path below `path` (build/**)"),
        ("excludePatterns", "The same as exclude"),
    ];
    for (name, description) in what {
        let mut property = globs.clone();
        property["description"] = Value::from(description);
        schema["properties"][name] = property;
    }
    schema
}

/// The exclude globs, under either name; a pattern that is not a glob is refused, saying why
/// (`find_files`, `search_files`, `directory_tree`).
pub(crate) fn excludes(args: &Value) -> Result<Vec<GlobPattern>, CallToolResult> {
    ["exclude", "excludePatterns"]
        .iter()
        .filter_map(|name| args.get(*name).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .take(MAX_EXCLUDES * 2)
        .map(|pattern| GlobPattern::new(pattern).map_err(|why| CallToolResult::error(format!("exclude: {why}"))))
        .collect()
}

/// Whether a path below the walked folder is left out: a pattern matching the path or any
/// folder on the way excludes it (`node_modules` leaves out everything under one).
pub(crate) fn excluded(exclude: &[GlobPattern], below: &str) -> bool {
    if exclude.is_empty() {
        return false;
    }
    let mut end = 0;
    below.split('/').any(|part| {
        end += part.len();
        let prefix = below.get(..end).unwrap_or(below);
        end += 1;
        exclude.iter().any(|glob| glob.matches_path(prefix))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclude_bounds() {
        let schema = with_excludes(lit(r#"{"type": "object", "properties": {}}"#));
        for name in ["exclude", "excludePatterns"] {
            let globs = &schema["properties"][name];
            assert_eq!(globs["maxItems"], MAX_EXCLUDES, "{name}");
            assert_eq!(globs["items"]["maxLength"], 1024, "{name}");
            assert!(globs["description"].is_string(), "{name}");
        }
    }
}
