//! The files provider's tools, all read-only: `list_directory`, `read_file`, `search_files` and
//! `file_info`. Every path goes through `Files::locate` (the sandbox); a refused path is an
//! `isError` result that says why, never content. Uses only the public registration API.

use super::client_roots::gate;
use super::files::{looks_textual, shown, text_type, Files, Target, SNIFF_BYTES};
use super::glob::GlobPattern;
use super::sandbox::{self, file_uri, EntryKind};
use super::tool_parts::{
    below, both, excluded, excludes, path_help, read_only, refused, str_arg, walk_pruned, with_excludes,
};
use super::{described, lit};
use crate::provide::mime;
use serde_json::{json, Value};
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use tinymcp::{rfc3339, CallToolResult, Content, RequestCx, ResourceContents, Server, Tool};

/// The most entries `list_directory` returns.
const MAX_ENTRIES: usize = 1000;
/// The default and largest `max_results` of `search_files`.
const DEFAULT_RESULTS: u64 = 100;
const MAX_RESULTS: u64 = 1000;
/// A matching line is cut to this many characters.
const MAX_LINE_CHARS: usize = 240;
/// The most files too large to search that `search_files` names (the rest are counted).
const MAX_SKIPPED_NAMED: usize = 20;

/// Registers the four tools.
pub(crate) fn register(server: &Server, files: &Arc<Files>) {
    let path_help = path_help(files);
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "list_directory",
            "List the entries of a folder, with their kind and size",
            described(
                r#"{"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}}}"#,
                &[
                    ("path", format!("The folder, {path_help}; the top when omitted")),
                    ("offset", format!("The first entry to list (default 0); a page holds at most {MAX_ENTRIES}")),
                ],
            ),
        )
        .with_output_schema(lit(
            r#"{"type": "object", "properties": {
            "path": {"type": "string"},
            "entries": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"},
                "kind": {"type": "string", "enum": ["file", "directory", "symlink", "other"]},
                "size": {"type": "integer"}
            }, "required": ["name", "kind"]}},
            "truncated": {"type": "boolean"},
            "nextOffset": {"type": "integer"}
        }, "required": ["path", "entries", "truncated"]}"#,
        ))
        .with_annotations(read_only("List directory")),
        move |cx, args| {
            let offset = args.get("offset").map_or(0, |o| o.as_u64().map_or(usize::MAX, |o| usize::try_from(o).unwrap_or(usize::MAX)));
            Ok(gate(&f, cx, &args, |f| list_directory(f, str_arg(&args, "path").unwrap_or_default(), offset)))
        },
    );
    let f = Arc::clone(files);
    let max_read = files.options.max_read_bytes;
    let binary_max = max_read / 4 * 3;
    server.register_tool(
        Tool::new(
            "read_file",
            format!(
                "Read a file, a window of at most {max_read} bytes per call; a note says where the next \
                 window starts (read on with offset); head or tail read a number of lines from the \
                 start or the end instead. Text comes back as text: a file that is not UTF-8 \
                 is read as Latin-1, and a note says so. An image that fits in one window comes back as \
                 an image; other binary files, and larger images, come back as an embedded base64 blob of \
                 the window (at most {binary_max} bytes, so the base64 fits the cap)"
            ),
            described(
                r#"{"type": "object", "properties": {
                    "path": {"type": "string"},
                    "offset": {"type": "integer", "minimum": 0, "description": "The first byte to read (default 0)"},
                    "length": {"type": "integer", "minimum": 1},
                    "head": {"type": "integer", "minimum": 1, "description": "Read only the first N lines of a text file (not with offset, length or tail)"},
                    "tail": {"type": "integer", "minimum": 1, "description": "Read only the last N lines of a text file (not with offset, length or head)"}
                }, "required": ["path"]}"#,
                &[
                    ("path", format!("The file, {path_help}")),
                    ("length", format!("How many bytes to read (default and most {max_read})")),
                ],
            ),
        )
        .with_annotations(read_only("Read file")),
        move |cx, args| Ok(gate(&f, cx, &args, |f| read_file(f, &args))),
    );
    let f = Arc::clone(files);
    let max_file = files.options.max_file_bytes;
    server.register_tool(
        Tool::new(
            "search_files",
            format!(
                "Search the contents of text files for a string (case-insensitive); answers with \
                 path:line: text. Files over {max_file} bytes are not searched (the answer names them; \
                 read_file reads them by windows). To find files by name, use find_files"
            ),
            search_input(&path_help),
        )
        .with_output_schema(lit(
            r#"{"type": "object", "properties": {
            "matches": {"type": "array", "items": {"type": "object", "properties": {
                "path": {"type": "string"}, "line": {"type": "integer"}, "text": {"type": "string"}
            }, "required": ["path", "line", "text"]}},
            "truncated": {"type": "boolean"},
            "skipped": {"type": "array", "description": "Files not searched, and why", "items": {"type": "object", "properties": {
                "path": {"type": "string"}, "size": {"type": "integer"}, "reason": {"type": "string"}
            }, "required": ["path", "reason"]}},
            "skippedCount": {"type": "integer", "description": "How many files were not searched (skipped names at most 20 of them)"}
        }, "required": ["matches", "truncated"]}"#,
        ))
        .with_annotations(read_only("Search files")),
        move |cx, args| Ok(gate(&f, cx, &args, |f| search_files(cx, f, &args))),
    );
    let f = Arc::clone(files);
    server.register_tool(
        Tool::new(
            "file_info",
            "Kind, size, modification time and MIME type of a file or folder",
            described(
                r#"{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}"#,
                &[("path", format!("The file or folder, {path_help}"))],
            ),
        )
        .with_output_schema(lit(r#"{"type": "object", "properties": {
            "path": {"type": "string"},
            "kind": {"type": "string", "enum": ["file", "directory", "other"]},
            "size": {"type": "integer"},
            "modified": {"type": "string"},
            "mimeType": {"type": "string"}
        }, "required": ["path", "kind", "size"]}"#))
        .with_annotations(read_only("File info")),
        move |cx, args| Ok(gate(&f, cx, &args, |f| file_info(f, str_arg(&args, "path").unwrap_or_default()))),
    );
}

/// `search_files`' arguments, as JSON text (far less code than `json!`): the longest query and
/// glob (1024 characters) are only here; `maximum` is `MAX_RESULTS` (`tests::search_bounds`).
fn search_input(path_help: &str) -> Value {
    with_excludes(described(
        r#"{"type": "object", "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "The text to look for"},
            "path": {"type": "string"},
            "glob": {"type": "string", "maxLength": 1024, "description": "Only files whose name matches (e.g. *.rs); with a / the pattern matches the path below `path` (e.g. src/**/*.rs)"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 1000}
        }, "required": ["query"]}"#,
        &[
            ("path", format!("A folder or file to search, {path_help}; everything when omitted")),
            ("max_results", format!("The most matching lines (default {DEFAULT_RESULTS})")),
        ],
    ))
}

/// One page of a folder's entries, from `offset`, with the offset of the next page when more follow.
fn list_directory(files: &Files, spelled: &str, offset: usize) -> CallToolResult {
    let (shown, entries) = match files.locate(spelled) {
        Err(why) => return refused(spelled, &why),
        Ok(Target::Top) => {
            let entries = files.roots.iter().map(|r| json!({"name": r.label, "kind": "directory"})).collect();
            (".".to_owned(), entries)
        }
        Ok(Target::In { root, path }) if path.is_dir() => {
            let entries: Vec<Value> = root
                .sandbox
                .entries_sized(&path)
                .into_iter()
                .map(|(name, link, kind)| match kind {
                    EntryKind::Dir => json!({"name": name, "kind": "directory"}),
                    EntryKind::File(meta) => match meta {
                        Some(meta) => json!({"name": name, "kind": "file", "size": meta.len()}),
                        None => json!({"name": name, "kind": "file"}),
                    },
                    EntryKind::Link => match root.sandbox.follow(&link) {
                        Some((_, meta)) if meta.is_dir() => json!({"name": name, "kind": "directory"}),
                        Some((_, meta)) => json!({"name": name, "kind": "file", "size": meta.len()}),
                        None => json!({"name": name, "kind": "symlink"}),
                    },
                    EntryKind::Other => json!({"name": name, "kind": "other"}),
                })
                .collect();
            (files.display(root, &path), entries)
        }
        Ok(Target::In { .. }) => return refused(spelled, "is not a folder (use read_file or file_info)"),
    };
    let total = entries.len();
    // A page ends at MAX_ENTRIES or at the answer's byte cap (each entry's line and JSON).
    let mut bytes = 256;
    let entries: Vec<Value> = entries
        .into_iter()
        .skip(offset)
        .take(MAX_ENTRIES)
        .take_while(|e| {
            bytes += 2 * e["name"].as_str().map_or(0, |n| self::shown(n).len()) + 64;
            bytes <= files.options.max_read_bytes
        })
        .collect();
    let next = offset.saturating_add(entries.len());
    let truncated = next < total;
    let heading = self::shown(&shown);
    let mut text = if offset == 0 && !truncated {
        format!("{heading}: {total} entries\n")
    } else {
        format!("{heading}: entries {} to {next} of {total}\n", offset.min(total))
    };
    for e in &entries {
        let name = self::shown(e["name"].as_str().unwrap_or_default());
        match (e["kind"].as_str(), e["size"].as_u64()) {
            (Some("directory"), _) => text.push_str(&format!("{name}/\n")),
            (_, Some(size)) => text.push_str(&format!("{name} ({size} bytes)\n")),
            (Some(kind), None) => text.push_str(&format!("{name} ({kind})\n")),
            (None, None) => {}
        }
    }
    let mut structured = json!({"path": shown, "entries": entries, "truncated": truncated});
    if truncated {
        text.push_str(&format!("[more entries follow: call list_directory with offset={next}]\n"));
        structured["nextOffset"] = next.into();
    }
    both(text, structured)
}

pub(crate) fn read_file(files: &Files, args: &Value) -> CallToolResult {
    let spelled = str_arg(args, "path").unwrap_or_default();
    let (root, path) = match files.locate(spelled) {
        Err(why) => return refused(spelled, &why),
        Ok(Target::Top) => return refused(spelled, "is the list of served folders (use list_directory)"),
        Ok(Target::In { root, path }) => (root, path),
    };
    if path.is_dir() {
        return refused(spelled, "is not a file (use list_directory)");
    }
    let (mut file, meta) = match root.sandbox.open(&path) {
        Ok(opened) => opened,
        Err(why) => return refused(spelled, &why),
    };
    let size = meta.len();
    let shown = files.display(root, &path);
    let mime_type = mime::from_path(&shown);
    // The path in the text of notes and errors, escaped as listings show it.
    let named = super::files::shown(&shown);
    if args.get("head").is_some() || args.get("tail").is_some() {
        return read_lines(files, args, &shown, &mut file, size);
    }
    // An integer too large for u64 (1e30 passes the schema's "integer") is past any end: it must
    // never fall back to the start of the file.
    let offset = match args.get("offset") {
        None => 0,
        Some(v) => v.as_u64().unwrap_or(u64::MAX),
    };
    let max = files.options.max_read_bytes;
    let length = args.get("length").map_or(max, |l| l.as_u64().map_or(max, |l| usize::try_from(l).unwrap_or(max)));
    let length = length.min(max);
    if offset > size {
        let shown_offset = args.get("offset").map(Value::to_string).unwrap_or_default();
        return CallToolResult::error(format!("offset {shown_offset} is past the end of {named} ({size} bytes)"));
    }
    let cannot = |e: std::io::Error| CallToolResult::error(format!("cannot read {named}: {e}"));
    let image = mime_type.starts_with("image/") && !mime::is_text(mime_type);
    // Up to three bytes before the window tell whether it starts inside a character.
    let before = offset.min(3);
    let mut read = match read_at(&mut file, offset - before, before as usize + length) {
        Ok(read) => read,
        Err(e) => return cannot(e),
    };
    let window = read.split_off((before as usize).min(read.len()));
    let end = offset + window.len() as u64;
    // Base64 takes 4 bytes for 3: binary content holds at most three quarters of the cap, so
    // the answer fits in it.
    let binary_max = max / 4 * 3;
    if image && offset == 0 && end == size && window.len() <= binary_max {
        return CallToolResult::success(vec![Content::image_bytes(&window, mime_type)]);
    }
    // Text or binary is decided from the start of the file (as much as a sniff takes),
    // wherever the window is and however short.
    let sniffed = offset == 0 && (window.len() >= SNIFF_BYTES || end == size);
    let textual = if sniffed || mime_type != mime::DEFAULT {
        looks_textual(mime_type, &window)
    } else {
        match read_at(&mut file, 0, SNIFF_BYTES) {
            Ok(head) => looks_textual(mime_type, &head),
            Err(e) => return cannot(e),
        }
    };
    let window_note = |start: u64, end: u64, kind: &str| -> String {
        if end < size || start > 0 {
            let more =
                if end < size { format!(" Call read_file with offset={end} to read more.") } else { String::new() };
            format!("[{named} ({kind}): showing bytes {start}-{end} of {size}.{more}]")
        } else {
            String::new()
        }
    };
    if image || !textual {
        let mut window = window;
        window.truncate(binary_max);
        let end = offset + window.len() as u64;
        let uri = file_uri(&path).unwrap_or_default();
        let mut blocks = vec![Content::resource(ResourceContents::blob(uri, mime_type, &window))];
        let note = window_note(offset, end, mime_type);
        if !note.is_empty() {
            blocks.push(Content::text(note));
        }
        return CallToolResult::success(blocks);
    }
    let (start, text, utf8) = match utf8_window(&read, &window) {
        Some((skip, text)) => (offset + skip as u64, text.to_owned(), true),
        None => (offset, utf8_or_latin1(&window), false),
    };
    let end = start + if utf8 { text.len() as u64 } else { window.len() as u64 };
    let mut note = window_note(start, end, text_type(mime_type));
    if !utf8 {
        if !note.is_empty() {
            note.push(' ');
        }
        note.push_str(&format!(
            "[{named} is not UTF-8: bytes that are not UTF-8 were read as Latin-1 (ISO-8859-1) characters]"
        ));
    }
    let mut blocks = vec![Content::text(text)];
    if !note.is_empty() {
        blocks.push(Content::text(note));
    }
    CallToolResult::success(blocks)
}

/// `read_file` with `head` or `tail`: the first or last lines of a text file, within the
/// window cap; a note says which bytes were shown and how to read on.
fn read_lines(files: &Files, args: &Value, shown: &str, file: &mut File, size: u64) -> CallToolResult {
    let count = |name: &'static str| args.get(name).map(|v| v.as_u64().filter(|n| *n > 0).ok_or(name));
    let (lines, from_end) = match (count("head"), count("tail")) {
        (Some(_), Some(_)) => return CallToolResult::error("give head or tail, not both"),
        (Some(Err(name)), _) | (_, Some(Err(name))) => {
            return CallToolResult::error(format!("{name} must be a positive number of lines"))
        }
        (Some(Ok(n)), None) => (n, false),
        (None, Some(Ok(n))) => (n, true),
        (None, None) => return CallToolResult::error("give head or tail"),
    };
    if args.get("offset").is_some() || args.get("length").is_some() {
        return CallToolResult::error("head and tail count lines: give them without offset or length");
    }
    let lines = usize::try_from(lines).unwrap_or(usize::MAX);
    let max = files.options.max_read_bytes as u64;
    let named = super::files::shown(shown);
    let cannot = |e: std::io::Error| CallToolResult::error(format!("cannot read {named}: {e}"));
    let mime_type = mime::from_path(shown);
    let head = match read_at(file, 0, SNIFF_BYTES) {
        Ok(head) => head,
        Err(e) => return cannot(e),
    };
    if !looks_textual(mime_type, &head) {
        return CallToolResult::error(format!(
            "{named} is not text: read it by bytes (offset and length), not by lines"
        ));
    }
    let start = if from_end { size.saturating_sub(max) } else { 0 };
    let before = start.min(3);
    let mut read = match read_at(file, start - before, (before + max.min(size)) as usize) {
        Ok(read) => read,
        Err(e) => return cannot(e),
    };
    let window = read.split_off((before as usize).min(read.len()));
    // Where the lines asked for begin and end within the window.
    let (cut_start, cut_end) = if from_end {
        // The newline that ends the last line does not start another.
        let body = window.strip_suffix(b"\n").unwrap_or(&window);
        (nth_newline(body, lines, true).map_or(0, |i| i + 1), window.len())
    } else {
        (0, nth_newline(&window, lines, false).map_or(window.len(), |i| i + 1))
    };
    let chosen = window.get(cut_start..cut_end).unwrap_or_default();
    // A window that starts inside a character (a tail cut by the cap) skips its rest.
    let context = if cut_start == 0 { read.as_slice() } else { &[] };
    let (skip, text, utf8) = match utf8_window(context, chosen) {
        Some((skip, text)) => (skip, text.to_owned(), true),
        None => (0, utf8_or_latin1(chosen), false),
    };
    let first = start + (cut_start + skip) as u64;
    let end = start + cut_end as u64;
    let mut notes = Vec::new();
    if first > 0 || end < size {
        let rest = match (first > 0, end < size) {
            (_, true) => format!(" Call read_file with offset={end} to read on."),
            (true, false) => format!(" Earlier bytes: read_file with offset and length (before {first})."),
            (false, false) => String::new(),
        };
        let which = if from_end { "last" } else { "first" };
        notes.push(format!("[{named}: the {which} lines asked for, bytes {first}-{end} of {size}.{rest}]"));
    }
    if !utf8 {
        notes.push(format!(
            "[{named} is not UTF-8: bytes that are not UTF-8 were read as Latin-1 (ISO-8859-1) characters]"
        ));
    }
    let mut blocks = vec![Content::text(text)];
    if !notes.is_empty() {
        blocks.push(Content::text(notes.join(" ")));
    }
    CallToolResult::success(blocks)
}

/// The index of the `n`-th newline (1-based) of `bytes`, from the start or from the end.
fn nth_newline(bytes: &[u8], n: usize, from_end: bool) -> Option<usize> {
    let newlines = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i);
    let n = n.checked_sub(1)?;
    if from_end {
        newlines.rev().nth(n)
    } else {
        newlines.into_iter().nth(n)
    }
}

/// Reads up to `length` bytes of `file` from `offset`.
fn read_at(file: &mut File, offset: u64, length: usize) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::with_capacity(length.min(1 << 20));
    file.take(length as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A window of text as UTF-8, when it is: the bytes of a character cut at the start (its lead
/// byte among the up to three bytes `before` it) are skipped, a character cut at the end is left
/// for the next call. Answers how many bytes were skipped and the text; `None` when the window
/// is not UTF-8.
fn utf8_window<'w>(before: &[u8], window: &'w [u8]) -> Option<(usize, &'w str)> {
    let continuation = |b: u8| (0x80..0xC0).contains(&b);
    let leading = window.iter().take(3).take_while(|b| continuation(**b)).count();
    // The lead byte nearest before the window, and how many continuation bytes it claims.
    let claimed = before.iter().rev().enumerate().find(|(_, b)| !continuation(**b)).map_or(0, |(k, b)| {
        let needs: usize = match b {
            0xC0..=0xDF => 1,
            0xE0..=0xEF => 2,
            0xF0..=0xF7 => 3,
            _ => 0,
        };
        needs.saturating_sub(k)
    });
    let skip = if claimed > 0 && claimed <= leading { claimed } else { 0 };
    let body = window.get(skip..)?;
    match std::str::from_utf8(body) {
        Ok(text) => Some((skip, text)),
        Err(e) if e.error_len().is_none() => std::str::from_utf8(body.get(..e.valid_up_to())?).ok().map(|t| (skip, t)),
        Err(_) => None,
    }
}

/// Text that is mostly not UTF-8: runs of valid UTF-8 are kept, every other byte is read as the
/// Latin-1 character of that value (what most such files are), so nothing becomes U+FFFD.
fn utf8_or_latin1(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|&b| char::from(b)));
    }
    text
}

fn search_files(cx: &RequestCx, files: &Files, args: &Value) -> CallToolResult {
    let query = str_arg(args, "query").unwrap_or_default().to_lowercase();
    let spelled = str_arg(args, "path").unwrap_or_default();
    let glob = match str_arg(args, "glob").map(GlobPattern::new).transpose() {
        Ok(glob) => glob,
        Err(why) => return CallToolResult::error(format!("glob: {why}")),
    };
    let exclude = match excludes(args) {
        Ok(exclude) => exclude,
        Err(refusal) => return refusal,
    };
    let max = args.get("max_results").and_then(Value::as_u64).unwrap_or(DEFAULT_RESULTS).min(MAX_RESULTS);
    let max = usize::try_from(max).unwrap_or(100);
    let max_bytes = files.options.max_file_bytes;
    let targets: Vec<_> = match files.locate(spelled) {
        Err(why) => return refused(spelled, &why),
        Ok(Target::Top) => files.roots.iter().map(|r| (r, r.sandbox.root().to_path_buf())).collect(),
        Ok(Target::In { root, path }) if path.is_dir() || path.is_file() => vec![(root, path)],
        Ok(Target::In { .. }) => return refused(spelled, "is not a regular file or a folder"),
    };
    let mut matches: Vec<Value> = Vec::new();
    // What the answer holds so far (the notes first).
    let mut answer_bytes = 256 + 64 * MAX_SKIPPED_NAMED;
    let mut truncated = false;
    let mut cancelled = false;
    // The walk stopped at the file limit: files were left unsearched.
    let mut walk_stopped = false;
    // Files too large to search: the first few named, all counted.
    let mut skipped: Vec<Value> = Vec::new();
    let mut skipped_count = 0usize;
    for (root, base) in targets {
        let base_rel = root.sandbox.relative(&base).unwrap_or_default();
        let mut search_one = |rel: &str, path: &Path| -> bool {
            let Ok(opened) = root.sandbox.open(path) else { return true };
            let shown = files.display(root, path);
            if opened.1.len() > max_bytes {
                skipped_count += 1;
                if skipped.len() < MAX_SKIPPED_NAMED {
                    skipped.push(json!({"path": shown, "size": opened.1.len(), "reason": "too large to search"}));
                }
                return true;
            }
            let Ok(bytes) = sandbox::read_all(opened.0, &opened.1, max_bytes) else { return true };
            if !looks_textual(mime::from_path(rel), &bytes) {
                return true;
            }
            for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
                if line.to_lowercase().contains(&query) {
                    let text: String = line.trim().chars().take(MAX_LINE_CHARS).collect();
                    // The match's line of text and its JSON.
                    let needs = 2 * (shown.len() + text.len()) + 64;
                    if matches.len() >= max || answer_bytes + needs > files.options.max_read_bytes {
                        truncated = true;
                        return false;
                    }
                    answer_bytes += needs;
                    matches.push(json!({"path": shown, "line": n + 1, "text": text}));
                }
            }
            true
        };
        if base.is_file() {
            let rel = root.sandbox.relative(&base).unwrap_or_default();
            search_one(&rel, &base);
        } else {
            // Excluded folders are not entered, and only the files the glob selects (the files
            // read) count toward `--max-files`: exclude and glob get a search past a large folder.
            let mut count = 0;
            let pruned = |rel: &str| excluded(&exclude, below(&base_rel, rel));
            walk_pruned(&root.sandbox, &base, &pruned, &mut |rel, path| {
                if cx.is_cancelled() {
                    cancelled = true;
                    return false;
                }
                if glob.as_ref().is_some_and(|glob| !glob.matches_path(below(&base_rel, rel))) {
                    return true;
                }
                count += 1;
                if count > files.options.max_files {
                    walk_stopped = true;
                    return false;
                }
                search_one(rel, path)
            });
        }
        if truncated || cancelled || walk_stopped {
            break;
        }
    }
    if cancelled {
        return CallToolResult::error("search cancelled");
    }
    let mut text: String = matches
        .iter()
        .map(|m| {
            format!(
                "{}:{}: {}\n",
                shown(m["path"].as_str().unwrap_or_default()),
                m["line"],
                m["text"].as_str().unwrap_or_default()
            )
        })
        .collect();
    if matches.is_empty() {
        text = format!("no matches for {:?}\n", str_arg(args, "query").unwrap_or_default());
    }
    if truncated {
        text.push_str(&format!(
            "[stopped after {} matches (at most {max}, and {} bytes per answer); narrow the search with path, glob or exclude]\n",
            matches.len(),
            files.options.max_read_bytes
        ));
    } else if walk_stopped {
        text.push_str(&format!(
            "[stopped after {} files: the most searched per served folder (--max-files, a server option); \
             narrow the search with path, glob or exclude (excluded folders are not walked)]\n",
            files.options.max_files
        ));
    }
    let mut structured = json!({"matches": matches, "truncated": truncated || walk_stopped});
    if skipped_count > 0 {
        let names: Vec<String> = skipped
            .iter()
            .map(|s| format!("{} ({} bytes)", shown(s["path"].as_str().unwrap_or_default()), s["size"]))
            .collect();
        let more = skipped_count - skipped.len();
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        text.push_str(&format!(
            "[not searched: {skipped_count} files over the {max_bytes}-byte limit of a file searched (a fixed \
             limit): {}{more}; read them with read_file, a window at a time]\n",
            names.join(", ")
        ));
        structured["skipped"] = skipped.into();
        structured["skippedCount"] = skipped_count.into();
    }
    both(text, structured)
}

fn file_info(files: &Files, spelled: &str) -> CallToolResult {
    let (root, path) = match files.locate(spelled) {
        Err(why) => return refused(spelled, &why),
        Ok(Target::Top) => return refused(spelled, "is the list of served folders (use list_directory)"),
        Ok(Target::In { root, path }) => (root, path),
    };
    let meta = match fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) => return CallToolResult::error(format!("cannot inspect {spelled:?}: {e}")),
    };
    let shown = files.display(root, &path);
    let kind = if meta.is_file() {
        "file"
    } else if meta.is_dir() {
        "directory"
    } else {
        "other"
    };
    let mut info = json!({"path": shown, "kind": kind, "size": meta.len()});
    let mut text = format!("{}: {kind}, {} bytes", super::files::shown(&shown), meta.len());
    if let Ok(modified) = meta.modified() {
        let stamp = rfc3339(modified);
        text.push_str(&format!(", modified {stamp}"));
        info["modified"] = stamp.into();
    }
    if meta.is_file() {
        let mime_type = mime::from_path(&shown);
        text.push_str(&format!(", {mime_type}"));
        info["mimeType"] = mime_type.into();
    }
    both(text, info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_bounds() {
        let search = search_input("here");
        assert_eq!(search["properties"]["max_results"]["maximum"], MAX_RESULTS);
        assert_eq!(search["properties"]["query"]["maxLength"], 1024);
        assert!(search["properties"]["exclude"].is_object());
    }
}
