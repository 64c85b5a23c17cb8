//! Client roots: with no folder on the command line, the folders a client declares are served
//! (`Files::served`); with `--client-roots`, a call whose paths are not all under the client's
//! roots (`files::Scope`) is refused, saying which roots it may use. A path that does not exist
//! yet (a file to write) is judged by the deepest part of it that does.

use super::files::{local_folder, Files, FilesOptions, RootSet, Scope, Target};
use super::sandbox;
use serde_json::Value;
use std::sync::{Arc, PoisonError};
use tinymcp::{CallToolResult, RequestCx};

/// How many sets of client roots keep their served folders between calls.
const KEPT_SETS: usize = 16;

/// What a client none of whose roots is a local folder is told.
const NOTHING_SERVED: &str = "none of the client's roots is a local folder: nothing is served to this client";

impl Files {
    /// The folders served to the request `cx`: with no folder on the command line, a client that
    /// declares `roots` (up to 2025-11-25) is served its roots, asked for on this call (so a
    /// change counts from the next call) and only for this session; anyone else (and a client
    /// that lists no root) is served these.
    /// Nothing bounds a client's roots but the sandbox's rules inside each (hidden files,
    /// symbolic links out of it): the user started us without a folder, leaving it to the client.
    pub(crate) fn served(self: &Arc<Self>, cx: &RequestCx) -> Arc<Files> {
        if !self.options.roots_from_client || !cx.version().is_stateful() || !cx.client_supports("roots") {
            return Arc::clone(self);
        }
        let (folders, refused) = match cx.list_roots() {
            Ok(answer) => {
                let listed = answer.get("roots").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
                // A client with no root open (an editor with no folder) names none: it is served
                // what a client without roots is, unlike one whose roots are all refused.
                if listed.is_empty() {
                    log::debug!("the client lists no roots: serving the folders of the command line");
                    return Arc::clone(self);
                }
                let mut folders = Vec::new();
                let mut refused = Vec::new();
                for root in listed {
                    let uri = root.get("uri").and_then(Value::as_str).unwrap_or_default();
                    match local_folder(uri) {
                        Some(folder) if !folders.contains(&folder) => folders.push(folder),
                        Some(_) => {}
                        None => refused.push(uri.to_owned()),
                    }
                }
                (folders, refused)
            }
            Err(e) => {
                log::warn!("cannot read the client's roots, serving nothing: {}", e.message);
                (Vec::new(), Vec::new())
            }
        };
        self.for_folders(RootSet { folders, refused })
    }

    /// The served folders of a set of client roots: kept, or made (and logged, with the roots
    /// refused) the first time.
    fn for_folders(&self, set: RootSet) -> Arc<Files> {
        let mut kept = self.by_client.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = kept.iter().position(|(known, _)| *known == set) {
            let found = kept.remove(at);
            let files = Arc::clone(&found.1);
            kept.push(found);
            return files;
        }
        let options = FilesOptions {
            client_roots: false,
            roots_from_client: false,
            write_roots: Vec::new(),
            ..self.options.clone()
        };
        for uri in &set.refused {
            log::warn!("client root {uri:?} is not a local folder: refused");
        }
        let files = match Files::of_folders(&set.folders, options.clone()) {
            Ok(files) => files,
            Err(e) => {
                log::warn!("cannot serve the client's roots, serving nothing: {e}");
                // Invariant: with no folder and no writable folder to check, nothing can fail.
                Files::of_folders(&[], options).expect("no folders")
            }
        };
        if files.roots.is_empty() {
            log::warn!("{NOTHING_SERVED}");
        }
        for root in &files.roots {
            log::info!(
                "serving the client's root {} {} (no folder on the command line: nothing bounds the \
                 client's roots; hidden files and links out of each stay refused)",
                root.sandbox.root().display(),
                if root.writable { "writable" } else { "read-only" }
            );
        }
        let files = Arc::new(files);
        if kept.len() >= KEPT_SETS {
            kept.remove(0);
        }
        kept.push((set, Arc::clone(&files)));
        files
    }
}

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

/// Runs a tool call on the folders served to `cx` when its paths are under the client's roots,
/// else answers the refusal.
pub(crate) fn gate(
    files: &Arc<Files>,
    cx: &RequestCx,
    args: &Value,
    run: impl FnOnce(&Files) -> CallToolResult,
) -> CallToolResult {
    let files = files.served(cx);
    if files.roots.is_empty() {
        return CallToolResult::error(NOTHING_SERVED);
    }
    files.scope(cx).refusal(&files, args).unwrap_or_else(|| run(&files))
}
