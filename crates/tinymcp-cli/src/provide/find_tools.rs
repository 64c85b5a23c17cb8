//! The files provider's tools for finding one's way in a project, all read-only:
//! `directory_tree`, `find_files` (by name, never reading contents) and `read_multiple_files`.
//! Every path goes through `Files::locate` and every walk through the sandbox's checked folder
//! descriptors; every answer is bounded (entries, results, bytes) and says where it stopped.

use super::client_roots::gate;
use super::file_tools::read_file;
use super::files::{shown, Files, Root, Target};
use super::glob::GlobPattern;
use super::sandbox::EntryKind;
use super::tool_parts::{
    below, both, excluded, excludes, path_help, read_only, refused, str_arg, walk_pruned, with_excludes,
};
use super::{described, lit};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tinymcp::{CallToolResult, Content, RequestCx, ResourceContents, Server, Tool};

/// The default and largest `depth` of `directory_tree`.
const DEFAULT_DEPTH: u64 = 4;
const MAX_DEPTH: u64 = 32;
/// The default and largest `max_entries` of `directory_tree`.
const DEFAULT_ENTRIES: u64 = 2000;
const MAX_ENTRIES: u64 = 10_000;
/// The default and largest `max_results` of `find_files`.
const DEFAULT_FOUND: u64 = 200;
const MAX_FOUND: u64 = 2000;
/// The most paths `read_multiple_files` takes.
const MAX_PATHS: usize = 100;
/// A file of `read_multiple_files` is not started with less than this left of the answer.
const MIN_SHARE: usize = 1024;

/// Registers the three tools.
pub(crate) fn register(server: &Server, files: &Arc<Files>) {
    let path_help = path_help(files);
    let cap = files.options.max_read_bytes;
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "directory_tree",
            format!(
                "The tree of files and folders under a folder, as indented text and as JSON \
                 (name, type, children), depth first in name order. Folders deeper than depth are shown \
                 without their children; the answer stops at max_entries entries or {cap} bytes and says \
                 where, so you can call it again on that folder"
            ),
            tree_input(&path_help),
        )
        .with_output_schema(lit(r#"{"type": "object", "properties": {
            "path": {"type": "string"},
            "tree": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"},
                "type": {"type": "string", "enum": ["file", "directory", "symlink", "other"]},
                "children": {"type": "array"}
            }, "required": ["name", "type"]}},
            "truncated": {"type": "boolean"},
            "stoppedIn": {"type": "string"}
        }, "required": ["path", "tree", "truncated"]}"#))
        .with_annotations(read_only("Directory tree")),
        move |cx, args| Ok(gate(&f, cx, &args, |f| directory_tree(cx, f, &args))),
    );
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "find_files",
            "Find files by name or path with a glob (e.g. **/*.rs or src/**/mod.rs), without reading \
             them; answers with their paths. To look for text inside files, use search_files",
            find_input(&path_help),
        )
        .with_output_schema(lit(r#"{"type": "object", "properties": {
            "paths": {"type": "array", "items": {"type": "string"}},
            "truncated": {"type": "boolean"}
        }, "required": ["paths", "truncated"]}"#))
        .with_annotations(read_only("Find files")),
        move |cx, args| Ok(gate(&f, cx, &args, |f| find_files(cx, f, &args))),
    );
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "read_multiple_files",
            format!(
                "Read several files at once, each as read_file reads it, under a heading with its path. \
                 A file that cannot be read says why and the others are still read. The answer holds at \
                 most {cap} bytes, shared among the files; a file cut short says how to read on"
            ),
            read_multiple_input(&path_help),
        )
        .with_output_schema(lit(
            r#"{"type": "object", "properties": {
            "files": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string", "description": "The path as given"},
                "content": {"type": "string", "description": "The text read (a binary file's contents are in the content blocks only)"},
                "mimeType": {"type": "string"},
                "note": {"type": "string", "description": "Where the window read ends and how to read on"},
                "error": {"type": "string", "description": "Why the file was not read"}
            }, "required": ["path"]}}
        }, "required": ["files"]}"#,
        ))
        .with_annotations(read_only("Read multiple files")),
        // Each path is checked against the client's roots on its own: one outside fails only itself.
        move |cx, args| {
            let served = f.served(cx);
            Ok(read_multiple_files(&served, cx, &args))
        },
    );
}

// The input schemas, as JSON text (far less code than `json!`); the bounds written in the text
// are the constants above (`tests::input_bounds`).

/// `directory_tree`'s arguments.
fn tree_input(path_help: &str) -> Value {
    with_excludes(described(
        r#"{"type": "object", "properties": {
            "path": {"type": "string"},
            "depth": {"type": "integer", "minimum": 1, "maximum": 32},
            "max_entries": {"type": "integer", "minimum": 1, "maximum": 10000}
        }}"#,
        &[
            ("path", format!("The folder, {path_help}; the top when omitted")),
            ("depth", format!("How many levels to show (default {DEFAULT_DEPTH}; 1 is the folder's own entries)")),
            ("max_entries", format!("The most entries shown (default {DEFAULT_ENTRIES})")),
        ],
    ))
}

/// `find_files`' arguments.
fn find_input(path_help: &str) -> Value {
    with_excludes(described(
        r#"{"type": "object", "properties": {
            "pattern": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "A glob: without a / it matches file names at any depth (*.rs, Cargo.toml); with a / the path below `path` (src/**/mod.rs). ? is one character, * a run within a name, ** any run of folders"},
            "path": {"type": "string"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 2000}
        }, "required": ["pattern"]}"#,
        &[
            ("path", format!("The folder to look in, {path_help}; everything when omitted")),
            ("max_results", format!("The most paths (default {DEFAULT_FOUND})")),
        ],
    ))
}

/// `read_multiple_files`' arguments.
fn read_multiple_input(path_help: &str) -> Value {
    described(
        r#"{"type": "object", "properties": {
            "paths": {"type": "array", "minItems": 1, "maxItems": 100, "items": {"type": "string"}}
        }, "required": ["paths"]}"#,
        &[("paths", format!("The files, each {path_help}"))],
    )
}

/// A bounded integer argument: its default when absent, the bound when larger (or not a number).
fn bounded(args: &Value, name: &str, default: u64, max: u64) -> usize {
    let n = args.get(name).map_or(default, |v| v.as_u64().unwrap_or(max)).clamp(1, max);
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The folders a walk starts from: every root for the top, else the folder named.
fn folders<'f>(files: &'f Files, spelled: &str) -> Result<Vec<(&'f Root, PathBuf)>, CallToolResult> {
    match files.locate(spelled) {
        Err(why) => Err(refused(spelled, &why)),
        Ok(Target::Top) => Ok(files.roots.iter().map(|r| (r, r.sandbox.root().to_path_buf())).collect()),
        Ok(Target::In { root, path }) if path.is_dir() => Ok(vec![(root, path)]),
        Ok(Target::In { .. }) => Err(refused(spelled, "is not a folder")),
    }
}

/// A tree being drawn: the limits, what was drawn so far and where it stopped.
struct Drawing<'a> {
    cx: &'a RequestCx,
    files: &'a Files,
    exclude: Vec<GlobPattern>,
    depth: usize,
    max_entries: usize,
    cap: usize,
    entries: usize,
    text: String,
    /// What the answer holds so far: the text and about as much again for the JSON nodes.
    bytes: usize,
    /// Folders not expanded because they are deeper than `depth`.
    unexpanded: usize,
    /// The folder (as shown) where the entry or byte cap stopped the drawing.
    stopped_in: Option<String>,
}

impl Drawing<'_> {
    /// The nodes of `dir`'s entries at `level` (0 for the tree's own entries), drawn into the
    /// text as well; `base` is the tree's folder relative to the root, for the exclude globs.
    fn folder(&mut self, root: &Root, base: &str, dir: &Path, level: usize) -> Vec<Value> {
        let mut nodes = Vec::new();
        for (name, path, kind) in root.sandbox.entries(dir) {
            if self.stopped_in.is_some() || self.cx.is_cancelled() {
                break;
            }
            let rel = root.sandbox.relative(&path).unwrap_or_default();
            if excluded(&self.exclude, below(base, &rel)) {
                continue;
            }
            // The node's line, and its JSON: name, type and punctuation (`"children":[]` too).
            let node_bytes = 2 * (level + 1) + 2 * shown(&name).len() + 64;
            if self.entries >= self.max_entries || self.bytes + node_bytes > self.cap {
                self.stopped_in = Some(self.files.display(root, dir));
                break;
            }
            self.entries += 1;
            self.bytes += node_bytes;
            let indent = "  ".repeat(level);
            let name_shown = shown(&name);
            // A link is shown as what it leads to inside the root, never expanded (no loops,
            // and a folder swapped in later is never walked); a link leading out is a name only.
            let (kind, expand, line) = match kind {
                EntryKind::Dir => ("directory", true, format!("{indent}{name_shown}/")),
                EntryKind::File(_) => ("file", false, format!("{indent}{name_shown}")),
                EntryKind::Link => match root.sandbox.follow(&path) {
                    Some((_, meta)) if meta.is_dir() => {
                        ("directory", false, format!("{indent}{name_shown}/ (symbolic link, not expanded)"))
                    }
                    Some(_) => ("file", false, format!("{indent}{name_shown}")),
                    None => ("symlink", false, format!("{indent}{name_shown} (symbolic link)")),
                },
                EntryKind::Other => ("other", false, format!("{indent}{name_shown} (not a file or folder)")),
            };
            let mut node = json!({"name": name, "type": kind});
            if expand && level + 1 < self.depth {
                self.text.push_str(&line);
                self.text.push('\n');
                node["children"] = Value::Array(self.folder(root, base, &path, level + 1));
            } else if expand {
                self.unexpanded += 1;
                self.text.push_str(&format!("{line} …\n"));
            } else {
                self.text.push_str(&line);
                self.text.push('\n');
            }
            nodes.push(node);
        }
        nodes
    }
}

fn directory_tree(cx: &RequestCx, files: &Files, args: &Value) -> CallToolResult {
    let spelled = str_arg(args, "path").unwrap_or_default();
    let targets = match folders(files, spelled) {
        Ok(targets) => targets,
        Err(refusal) => return refusal,
    };
    let exclude = match excludes(args) {
        Ok(exclude) => exclude,
        Err(refusal) => return refusal,
    };
    let mut drawing = Drawing {
        cx,
        files,
        exclude,
        depth: bounded(args, "depth", DEFAULT_DEPTH, MAX_DEPTH),
        max_entries: bounded(args, "max_entries", DEFAULT_ENTRIES, MAX_ENTRIES),
        cap: files.options.max_read_bytes,
        entries: 0,
        text: String::new(),
        // The heading and the notes.
        bytes: 512,
        unexpanded: 0,
        stopped_in: None,
    };
    let (shown, tree) = match targets.as_slice() {
        [(root, dir)] if !matches!(files.locate(spelled), Ok(Target::Top)) => {
            let base = root.sandbox.relative(dir).unwrap_or_default();
            (files.display(root, dir), drawing.folder(root, &base, dir, 0))
        }
        _ => {
            // Several roots: each is a folder of the top, its label the first component.
            let mut tree = Vec::new();
            for (root, dir) in &targets {
                drawing.text.push_str(&format!("{}/\n", root.label));
                drawing.entries += 1;
                let children = if drawing.depth > 1 { drawing.folder(root, "", dir, 1) } else { Vec::new() };
                tree.push(json!({"name": root.label, "type": "directory", "children": children}));
            }
            (".".to_owned(), tree)
        }
    };
    if cx.is_cancelled() {
        return CallToolResult::error("directory_tree cancelled");
    }
    let mut text = format!("{}/\n", self::shown(&shown));
    for line in drawing.text.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    if drawing.unexpanded > 0 {
        text.push_str(&format!(
            "[{} folders marked … are deeper than depth {}: call directory_tree on one of them, or with a larger depth]\n",
            drawing.unexpanded, drawing.depth
        ));
    }
    let mut structured = json!({"path": shown, "tree": tree, "truncated": drawing.stopped_in.is_some()});
    if let Some(stopped) = &drawing.stopped_in {
        // Quoted as a JSON string, which is what the path argument takes.
        let quoted = serde_json::to_string(stopped).unwrap_or_default();
        text.push_str(&format!(
            "[stopped after {} entries, in {}: its later entries and everything after it are not shown; \
             call directory_tree with path {quoted}, a smaller depth or exclude to see the rest]\n",
            drawing.entries,
            self::shown(stopped)
        ));
        structured["stoppedIn"] = stopped.as_str().into();
    }
    both(text, structured)
}

fn find_files(cx: &RequestCx, files: &Files, args: &Value) -> CallToolResult {
    let Some(pattern) = str_arg(args, "pattern").filter(|p| !p.is_empty()) else {
        return CallToolResult::error("pattern must be a non-empty glob such as **/*.rs");
    };
    let glob = match GlobPattern::new(pattern) {
        Ok(glob) => glob,
        Err(why) => return CallToolResult::error(format!("pattern: {why}")),
    };
    let exclude = match excludes(args) {
        Ok(exclude) => exclude,
        Err(refusal) => return refusal,
    };
    let spelled = str_arg(args, "path").unwrap_or_default();
    let max = bounded(args, "max_results", DEFAULT_FOUND, MAX_FOUND);
    let cap = files.options.max_read_bytes;
    let targets = match folders(files, spelled) {
        Ok(targets) => targets,
        Err(refusal) => return refusal,
    };
    let mut found: Vec<String> = Vec::new();
    // The notes.
    let mut bytes = 256;
    let mut full = false;
    let mut walk_stopped = false;
    let mut cancelled = false;
    for (root, dir) in targets {
        let base = root.sandbox.relative(&dir).unwrap_or_default();
        let mut walked = 0;
        // Excluded folders are not entered and excluded files not counted: `exclude` is how
        // a search gets past a large folder within `--max-files`.
        let pruned = |rel: &str| excluded(&exclude, below(&base, rel));
        walk_pruned(&root.sandbox, &dir, &pruned, &mut |rel, path| {
            if cx.is_cancelled() {
                cancelled = true;
                return false;
            }
            walked += 1;
            if walked > files.options.max_files {
                walk_stopped = true;
                return false;
            }
            if !glob.matches_path(below(&base, rel)) {
                return true;
            }
            let shown = files.display(root, path);
            // A line of text and a JSON string each.
            let needs = self::shown(&shown).len() + shown.len() + 4;
            if found.len() >= max || bytes + needs > cap {
                full = true;
                return false;
            }
            bytes += needs;
            found.push(shown);
            true
        });
        if full || walk_stopped || cancelled {
            break;
        }
    }
    if cancelled {
        return CallToolResult::error("find_files cancelled");
    }
    let mut text: String = found.iter().map(|p| format!("{}\n", shown(p))).collect();
    if found.is_empty() {
        text = format!("no files match {pattern:?}\n");
    }
    if full {
        text.push_str(&format!(
            "[stopped after {} paths; narrow the search with path, a more precise pattern or exclude]\n",
            found.len()
        ));
    } else if walk_stopped {
        text.push_str(&format!(
            "[stopped after walking {} files, the limit per served folder (--max-files, a server option); \
             narrow the search with path or exclude (excluded folders are not walked)]\n",
            files.options.max_files
        ));
    }
    both(text, json!({"paths": found, "truncated": full || walk_stopped}))
}

/// About how many bytes a block puts in the answer.
fn block_bytes(block: &Content) -> usize {
    match block {
        Content::Text { text, .. } => text.len(),
        Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
        Content::Resource { resource: ResourceContents::Text { text, .. }, .. } => text.len(),
        Content::Resource { resource: ResourceContents::Blob { blob, .. }, .. } => blob.len(),
        Content::ResourceLink(_) => 256,
    }
}

fn read_multiple_files(files: &Files, cx: &RequestCx, args: &Value) -> CallToolResult {
    let scope = files.scope(cx);
    let Some(paths) = args.get("paths").and_then(Value::as_array).filter(|p| !p.is_empty()) else {
        return CallToolResult::error("paths must be a non-empty list of file paths");
    };
    if paths.len() > MAX_PATHS {
        return CallToolResult::error(format!("paths holds {} files, more than {MAX_PATHS}", paths.len()));
    }
    let cap = files.options.max_read_bytes;
    let mut left = cap;
    let mut blocks = Vec::new();
    let mut entries = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let Some(spelled) = path.as_str() else {
            failed(&mut blocks, &mut entries, &path.to_string(), "error: a path must be a string".into());
            continue;
        };
        if files.roots.is_empty() {
            failed(&mut blocks, &mut entries, spelled, "error: none of the client's roots is a local folder".into());
            continue;
        }
        if scope.roots().is_some() && !scope.reaches_spelled(files, spelled) {
            failed(&mut blocks, &mut entries, spelled, format!("error: {}", scope.outside(files, spelled)));
            continue;
        }
        // An even share of what is left, so one large file does not crowd out the others. Text
        // is in the answer twice (its block and its structured entry), so a window is half a
        // share; base64 takes 4 bytes for 3 and is there once, so a binary window fits too.
        let share = left / (paths.len() - i);
        if share < MIN_SHARE {
            failed(
                &mut blocks,
                &mut entries,
                spelled,
                format!("not read: the answer reached its cap of {cap} bytes; read it with read_file"),
            );
            continue;
        }
        let answer = read_file(files, &json!({"path": spelled, "length": share / 2}));
        let texts: Vec<&str> = answer
            .content
            .iter()
            .filter_map(|b| match b {
                Content::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if answer.is_error {
            let why = format!("error: {}", texts.join(" "));
            failed(&mut blocks, &mut entries, spelled, why);
            continue;
        }
        let mut entry = json!({"path": spelled});
        match (answer.content.first(), texts.as_slice()) {
            // Text: the text, then a note when the window did not hold it all.
            (Some(Content::Text { .. }), [text, note @ ..]) => {
                entry["content"] = json!(text);
                if !note.is_empty() {
                    entry["note"] = json!(note.join(" "));
                }
            }
            (first, notes) => {
                let mime_type = match first {
                    Some(Content::Image { mime_type, .. }) => Some(mime_type),
                    Some(Content::Resource { resource: ResourceContents::Blob { mime_type, .. }, .. }) => {
                        mime_type.as_ref()
                    }
                    _ => None,
                };
                if let Some(mime_type) = mime_type {
                    entry["mimeType"] = json!(mime_type);
                }
                if !notes.is_empty() {
                    entry["note"] = json!(notes.join(" "));
                }
            }
        }
        left = left.saturating_sub(entry.to_string().len());
        entries.push(entry);
        blocks.push(Content::text(format!("--- {} ---", shown(spelled))));
        for block in answer.content {
            left = left.saturating_sub(block_bytes(&block));
            blocks.push(block);
        }
    }
    CallToolResult { structured_content: Some(json!({"files": entries})), ..CallToolResult::success(blocks) }
}

/// A file `read_multiple_files` did not read: its heading and why, as text and as an entry.
fn failed(blocks: &mut Vec<Content>, entries: &mut Vec<Value>, shown: &str, why: String) {
    blocks.push(Content::text(format!("--- {} ---\n{why}", self::shown(shown))));
    let plain = why.strip_prefix("error: ").unwrap_or(&why);
    entries.push(json!({"path": shown, "error": plain}));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_bounds() {
        let tree = tree_input("here");
        assert_eq!(tree["properties"]["depth"]["maximum"], MAX_DEPTH);
        assert_eq!(tree["properties"]["max_entries"]["maximum"], MAX_ENTRIES);
        assert!(tree["properties"]["exclude"].is_object());
        let find = find_input("here");
        assert_eq!(find["properties"]["pattern"]["maxLength"], 1024);
        assert_eq!(find["properties"]["max_results"]["maximum"], MAX_FOUND);
        assert!(find["properties"]["excludePatterns"].is_object());
        assert_eq!(read_multiple_input("here")["properties"]["paths"]["maxItems"], MAX_PATHS);
    }
}
