//! The files provider's edit tools, registered only with `--write` or `--write-root`:
//! `write_file`, `edit_file`, `create_directory` and `move_file`, with the names and parameters
//! of the reference filesystem server. Paths go through `Files::locate` (the sandbox), writes
//! through `write::Folder` (checked folder descriptors, atomic replacement).

use super::client_roots::gate;
use super::described;
use super::diff;
use super::files::{Files, Root, Target};
use super::sandbox;
use super::tool_parts::refused;
use super::write::Folder;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tinymcp::{CallToolResult, RequestCx, Server, Tool, ToolAnnotations};

fn annotations(title: &str, destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations {
        title: Some(title.into()),
        read_only_hint: Some(false),
        destructive_hint: Some(destructive),
        idempotent_hint: Some(idempotent),
        open_world_hint: Some(false),
    }
}

/// The edit tools' names.
const NAMES: [&str; 4] = ["write_file", "edit_file", "create_directory", "move_file"];

/// Registers the four tools when at least one served folder is writable; otherwise a call of
/// one is answered with the flags that make them so.
pub(crate) fn register(server: &Server, files: &Arc<Files>) {
    let writable: Vec<&str> = files.roots.iter().filter(|r| r.writable).map(|r| r.label.as_str()).collect();
    if writable.is_empty() {
        for name in NAMES {
            server.explain_absent_tool(
                name,
                "the served folders are read-only: the edit tools come with --write, or --write-root DIR for one folder",
            );
        }
        return;
    }
    let path_help = if files.roots.len() == 1 {
        "relative to the served folder".to_owned()
    } else {
        format!("starting with one of the writable served folders ({})", writable.join(", "))
    };
    let max = files.options.max_file_bytes;
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "write_file",
            format!(
                "Create a file, or replace a file's whole content (atomically; its permissions are kept). \
                 The folder must exist. At most {max} bytes"
            ),
            described(
                r#"{"type": "object", "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string", "description": "The new content (UTF-8 text)"}
                }, "required": ["path", "content"]}"#,
                &[("path", format!("The file, {path_help}"))],
            ),
        )
        .with_annotations(annotations("Write file", true, true)),
        move |cx, args| Ok(gate(&f, cx, &args, |f| write_file(f, cx, &args))),
    );
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "edit_file",
            "Replace exact text in a file: each oldText must occur exactly once (edits apply in order); \
             answers with a unified diff, and with dryRun changes nothing",
            described(
                r#"{"type": "object", "properties": {
                    "path": {"type": "string"},
                    "edits": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
                        "oldText": {"type": "string", "minLength": 1, "description": "Text to find: it must occur exactly once"},
                        "newText": {"type": "string", "description": "Text to put in its place"}
                    }, "required": ["oldText", "newText"]}},
                    "dryRun": {"type": "boolean", "default": false, "description": "Show the diff without changing the file"}
                }, "required": ["path", "edits"]}"#,
                &[("path", format!("The file, {path_help}"))],
            ),
        )
        .with_annotations(annotations("Edit file", true, false)),
        move |cx, args| Ok(gate(&f, cx, &args, |f| edit_file(f, cx, &args))),
    );
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "create_directory",
            "Create a folder, and any missing folders on the way; a folder that exists is fine",
            described(
                r#"{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}"#,
                &[("path", format!("The folder, {path_help}"))],
            ),
        )
        .with_annotations(annotations("Create directory", false, true)),
        move |cx, args| Ok(gate(&f, cx, &args, |f| create_directory(f, str_arg(&args, "path")))),
    );
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "move_file",
            "Move or rename a file or folder within the served folders; an existing destination is \
             refused unless overwrite is true (a folder is never replaced)",
            described(
                r#"{"type": "object", "properties": {
                    "source": {"type": "string"},
                    "destination": {"type": "string"},
                    "overwrite": {"type": "boolean", "default": false, "description": "Replace an existing file at the destination"}
                }, "required": ["source", "destination"]}"#,
                &[("source", format!("What to move, {path_help}")), ("destination", format!("Its new path, {path_help}"))],
            ),
        )
        .with_annotations(annotations("Move file", true, false)),
        move |cx, args| Ok(gate(&f, cx, &args, |f| move_file(f, cx, &args))),
    );
}

fn str_arg<'a>(args: &'a Value, name: &str) -> &'a str {
    args.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// Whether the folder `dir` of `root` may change: the root is writable, and no read-only root
/// is served inside it that holds `dir` (a read-only root stays so through any other path).
fn writable(files: &Files, root: &Root, dir: &Path) -> Result<(), String> {
    let read_only = |r: &&Root| !r.writable && dir.starts_with(r.sandbox.root());
    match files.roots.iter().find(read_only) {
        None if root.writable => Ok(()),
        Some(r) => Err(format!("{} is served read-only (make it writable with --write-root)", r.label)),
        None => Err(format!("{} is served read-only (make it writable with --write-root)", root.label)),
    }
}

/// Where a write of `spelled` goes: an existing file is written where it really is (a symbolic
/// link inside the root is followed, to a target that the sandbox checked is inside too); a
/// new file goes in its folder, which must exist.
fn file_target<'f>(files: &'f Files, spelled: &str) -> Result<(&'f Root, PathBuf, String), String> {
    let (root, dir, name) = match files.locate(spelled) {
        Ok(Target::In { root, path }) => {
            if path.is_dir() {
                return Err("is a folder, not a file".into());
            }
            let name = path.file_name().and_then(|n| n.to_str()).ok_or("is not a UTF-8 name")?.to_owned();
            let dir = path.parent().ok_or("names a served folder itself")?.to_path_buf();
            (root, dir, name)
        }
        Ok(Target::Top) => return Err("names a served folder itself".into()),
        Err(why) if why == "no such file or directory" => {
            files.locate_entry(spelled).map_err(|why| match why.as_str() {
                "no such file or directory" => "its folder does not exist (create it with create_directory)".into(),
                _ => why,
            })?
        }
        Err(why) => return Err(why),
    };
    writable(files, root, &dir)?;
    Ok((root, dir, name))
}

fn write_file(files: &Files, cx: &RequestCx, args: &Value) -> CallToolResult {
    let spelled = str_arg(args, "path");
    let content = str_arg(args, "content");
    let max = files.options.max_file_bytes;
    if content.len() as u64 > max {
        return refused(spelled, &format!("the content is {} bytes, more than the limit of {max}", content.len()));
    }
    let written = file_target(files, spelled).and_then(|(root, dir, name)| {
        let folder = Folder::open(&root.sandbox, &dir)?;
        let created = folder.write_file(&folder.hold(&name)?, content.as_bytes())?;
        Ok((root, dir.join(&name), created))
    });
    match written {
        Ok((root, path, created)) => {
            files.wrote(&cx.server(), &path, created);
            let what = if created { "created" } else { "replaced" };
            CallToolResult::text(format!("{what} {} ({} bytes)", files.display(root, &path), content.len()))
        }
        Err(why) => refused(spelled, &why),
    }
}

fn edit_file(files: &Files, cx: &RequestCx, args: &Value) -> CallToolResult {
    let spelled = str_arg(args, "path");
    let dry_run = args.get("dryRun").and_then(Value::as_bool).unwrap_or(false);
    let edits: Vec<(&str, &str)> = match args.get("edits").and_then(Value::as_array) {
        Some(edits) if !edits.is_empty() => {
            edits.iter().map(|e| (str_arg(e, "oldText"), str_arg(e, "newText"))).collect()
        }
        _ => return CallToolResult::error("edits: expected a list of at least one {oldText, newText}"),
    };
    let (root, dir, name) = match file_target(files, spelled) {
        Ok(target) => target,
        Err(why) => return refused(spelled, &why),
    };
    let path = dir.join(&name);
    // Held from the read to the rename: tool calls run in parallel, and an edit of this file
    // finishing in between would be silently undone by this one's rename.
    let held = Folder::open(&root.sandbox, &dir).and_then(|folder| {
        let held = folder.hold(&name)?;
        let bytes = folder.read_file(&held, &name, files.options.max_file_bytes)?;
        let old = String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_owned())?;
        Ok((folder, held, old))
    });
    let (folder, held, old) = match held {
        Ok(read) => read,
        Err(why) => return refused(spelled, &why),
    };
    let (shown_old, shown_new, new) = match apply_in_style(&old, &edits) {
        Ok(edited) => edited,
        Err(why) => return CallToolResult::error(format!("{spelled}: {why}; nothing was changed")),
    };
    let shown = files.display(root, &path);
    let (mut diff, cut) = diff::unified(&shown, &shown_old, &shown_new, files.options.max_read_bytes);
    if cut {
        diff.push_str(&format!(
            "… the diff was cut at {} bytes (--max-answer-bytes); read the file with read_file to see the rest\n",
            files.options.max_read_bytes
        ));
    }
    if dry_run {
        return CallToolResult::text(format!("dry run, {shown} not changed:\n{diff}"));
    }
    if new.len() as u64 > files.options.max_file_bytes {
        return refused(
            spelled,
            &format!("would be {} bytes, more than the limit of {}", new.len(), files.options.max_file_bytes),
        );
    }
    match folder.write_file(&held, new.as_bytes()) {
        Ok(_) => {
            drop(held);
            files.wrote(&cx.server(), &path, false);
            CallToolResult::text(format!("edited {shown}:\n{diff}"))
        }
        Err(why) => refused(spelled, &why),
    }
}

/// Applies the edits in the file's own line endings, as the reference server matches them: a
/// file whose every line ends in CRLF is matched with `\n` (the edits' CRLF read as `\n` too)
/// and written back with CRLF; a file without CR takes the edits' CRLF as `\n`; a file that
/// mixes both is matched exactly. Answers the old and new texts as shown in the diff (`\n`),
/// and the new text as written.
fn apply_in_style(text: &str, edits: &[(&str, &str)]) -> Result<(String, String, String), String> {
    let crlf = text.contains("\r\n") && text.matches('\n').count() == text.matches("\r\n").count();
    if crlf || !text.contains('\r') {
        let lf = |t: &str| t.replace("\r\n", "\n");
        let normal: Vec<(String, String)> = edits.iter().map(|(old, new)| (lf(old), lf(new))).collect();
        let normal: Vec<(&str, &str)> = normal.iter().map(|(old, new)| (old.as_str(), new.as_str())).collect();
        let old = lf(text);
        let new = apply(&old, &normal)?;
        let written = if crlf { new.replace('\n', "\r\n") } else { new.clone() };
        return Ok((old, new, written));
    }
    match apply(text, edits) {
        Ok(new) => Ok((text.to_owned(), new.clone(), new)),
        Err(why) if why.contains("was not found") => Err(format!(
            "{why}; the file mixes CRLF and LF line endings, so oldText must spell each line's ending as the file does"
        )),
        Err(why) => Err(why),
    }
}

/// Applies exact replacements in order; each `old` must occur exactly once in the text as the
/// edits before it left it (occurrences may overlap: `aa` occurs twice in `aaa`).
fn apply(text: &str, edits: &[(&str, &str)]) -> Result<String, String> {
    let mut text = text.to_owned();
    for (n, (old, new)) in edits.iter().enumerate() {
        let n = n + 1;
        let Some(first) = old.chars().next() else {
            return Err(format!("edit {n}: oldText is empty (expected the exact text to replace)"));
        };
        let Some(at) = text.find(old) else {
            return Err(format!("edit {n}: oldText was not found (it must match exactly, whitespace included)"));
        };
        if text[at + first.len_utf8()..].contains(old) {
            return Err(format!("edit {n}: oldText occurs more than once (add surrounding lines to make it unique)"));
        }
        text.replace_range(at..at + old.len(), new);
    }
    Ok(text)
}

fn create_directory(files: &Files, spelled: &str) -> CallToolResult {
    let parts = match sandbox::components(spelled, files.options.include_hidden) {
        Ok(parts) => parts,
        Err(why) => return refused(spelled, &why),
    };
    let top = if files.roots.len() == 1 { 0 } else { 1 };
    if parts.len() <= top {
        return refused(spelled, "names a served folder itself");
    }
    let mut created = 0;
    // Folder by folder: one that exists is checked by the sandbox; a missing one is created in
    // its checked parent, through the parent's descriptor.
    for end in top + 1..=parts.len() {
        let prefix = parts[..end].join("/");
        let step = match files.locate(&prefix) {
            Ok(Target::In { root, path }) if path.is_dir() => writable(files, root, &path),
            Ok(_) => Err(format!("{prefix} exists and is not a folder")),
            Err(why) if why == "no such file or directory" => {
                files.locate_entry(&prefix).and_then(|(root, dir, name)| {
                    writable(files, root, &dir)?;
                    Folder::open(&root.sandbox, &dir)?.create_dir(&name).map(|new| created += usize::from(new))
                })
            }
            Err(why) => Err(why),
        };
        if let Err(why) = step {
            return refused(spelled, &why);
        }
    }
    match created {
        0 => CallToolResult::text(format!("{spelled} exists already")),
        n => CallToolResult::text(format!("created {spelled} ({n} new folder{})", if n == 1 { "" } else { "s" })),
    }
}

fn move_file(files: &Files, cx: &RequestCx, args: &Value) -> CallToolResult {
    let (source, destination) = (str_arg(args, "source"), str_arg(args, "destination"));
    let overwrite = args.get("overwrite").and_then(Value::as_bool).unwrap_or(false);
    let from = match files.locate_entry(source).and_then(|t| movable(files, t.0, &t.1, &t.2).map(|()| t)) {
        Ok(from) => from,
        Err(why) => return refused(source, &why),
    };
    let to = match files.locate_entry(destination).and_then(|t| writable(files, t.0, &t.1).map(|()| t)) {
        Ok(to) => to,
        Err(why) => return refused(destination, &why),
    };
    let (old, new) = (from.1.join(&from.2), to.1.join(&to.2));
    if new.starts_with(&old) && old.is_dir() {
        return CallToolResult::error(format!(
            "cannot move {source:?} to {destination:?}: a folder cannot be moved into itself (choose a destination outside it)"
        ));
    }
    let moved = Folder::open(&from.0.sandbox, &from.1).and_then(|source_folder| {
        source_folder.move_to(&from.2, &Folder::open(&to.0.sandbox, &to.1)?, &to.2, overwrite)
    });
    match moved {
        Ok(()) => {
            files.moved(&cx.server());
            CallToolResult::text(format!("moved {} to {}", files.display(from.0, &old), files.display(to.0, &new)))
        }
        Err(why) => CallToolResult::error(format!("cannot move {source:?} to {destination:?}: {why}")),
    }
}

/// Whether the entry `name` of the folder `dir` may be moved: its folder may change, and it is
/// not a read-only root nor a folder that holds one (moved out, written and moved back, a
/// read-only root would serve what was written).
fn movable(files: &Files, root: &Root, dir: &Path, name: &str) -> Result<(), String> {
    writable(files, root, dir)?;
    let entry = dir.join(name);
    match files.roots.iter().find(|r| !r.writable && r.sandbox.root().starts_with(&entry)) {
        Some(r) => Err(format!(
            "{} is served read-only and is {} (make it writable with --write-root)",
            r.label,
            if r.sandbox.root() == entry { "what would move" } else { "inside what would move" }
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::apply;

    #[test]
    fn each_old_text_must_occur_exactly_once_in_the_text_so_far() {
        assert_eq!(apply("one two", &[("one", "1"), ("two", "2")]), Ok("1 2".to_owned()));
        assert_eq!(
            apply("a b", &[("a", "b b"), ("a", "c")]).unwrap_err(),
            "edit 2: oldText was not found (it must match exactly, whitespace included)"
        );
        assert!(apply("a b", &[("a", "b")]).is_ok());
        assert!(apply("a b", &[("a", "b"), ("b", "c")])
            .unwrap_err()
            .starts_with("edit 2: oldText occurs more than once"));
        // Overlapping occurrences count: `aa` occurs twice in `aaa`.
        assert!(apply("aaa", &[("aa", "b")]).unwrap_err().contains("more than once"));
        assert!(apply("héé", &[("é", "e")]).unwrap_err().contains("more than once"));
        assert!(apply("x", &[("", "y")]).unwrap_err().contains("oldText is empty"));
    }
}
