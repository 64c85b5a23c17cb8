//! The default job: served folders. Every file is a `file://` resource (listed, readable through
//! a template per root, subscribable; narrowed to a client's roots by `Scope`), a `summarize_file`
//! prompt embeds a file; the tools live in `file_tools`, `find_tools` and `edit_tools`. Paths go
//! through `sandbox`; uses only the public registration API.

use super::sandbox::{self, file_uri, EntryKind, Sandbox};
use super::tracker::{stamp, ChangeTracker};
use crate::provide::mime;
use serde_json::json;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::fs::{self, File, Metadata};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::SystemTime;
use tinymcp::{
    percent, CompletionRequest, Content, Error, GetPromptResult, Prompt, PromptArgument, PromptMessage, RequestCx,
    Resource, ResourceContents, ResourceTemplate, RpcError, Server,
};

/// How much of a file is sniffed to tell text from binary when the extension does not say.
pub(crate) const SNIFF_BYTES: usize = 8192;

/// Limits and switches of the files provider.
#[derive(Debug, Clone)]
pub struct FilesOptions {
    /// Serve hidden (dot) files and folders such as `.git` and `.env`.
    pub include_hidden: bool,
    /// The most bytes `read_file` returns per call (the default and cap of `length`).
    pub max_read_bytes: usize,
    /// The largest file returned whole (a resource read, an image, an embedded blob).
    pub max_file_bytes: u64,
    /// The most files listed or searched per root walk.
    pub max_files: usize,
    /// Every root writable (`--write`): the edit tools are registered.
    pub write_all: bool,
    /// The roots writable one by one (`--write-root`), as given.
    pub write_roots: Vec<PathBuf>,
    /// Leave out of listings, walks and searches what `.gitignore` and `.ignore` files ignore
    /// (`--no-ignore` turns it off).
    pub ignore_files: bool,
    /// Serve a client that declares `roots` only what is under them (`--client-roots`).
    pub client_roots: bool,
    /// No folder was given on the command line: a client that declares `roots` is served its
    /// roots as the folders, and the folders given here only serve the clients without roots.
    pub roots_from_client: bool,
}

impl Default for FilesOptions {
    fn default() -> Self {
        FilesOptions {
            include_hidden: false,
            max_read_bytes: 256 * 1024,
            max_file_bytes: 16 << 20,
            max_files: 10_000,
            write_all: false,
            write_roots: Vec::new(),
            ignore_files: true,
            client_roots: false,
            roots_from_client: false,
        }
    }
}

/// One served folder, with the label that prefixes its paths when several are served.
pub(crate) struct Root {
    pub label: String,
    pub sandbox: Sandbox,
    /// `file://.../` of the root, with a trailing slash.
    pub dir_uri: String,
    /// Whether the edit tools may change it.
    pub writable: bool,
}

/// Where a client's path leads.
pub(crate) enum Target<'a> {
    /// The virtual folder that holds the roots, when several are served.
    Top,
    /// A canonical path under a root.
    In { root: &'a Root, path: PathBuf },
}

/// The served folders and what the watcher last saw of them.
pub struct Files {
    pub(crate) roots: Vec<Root>,
    pub(crate) options: FilesOptions,
    /// What clients last saw of the files they read or subscribed to.
    tracker: ChangeTracker,
    /// The last listing of every root and the generation it was walked in: pages of
    /// `resources/list` are cut from it, so a listing is walked once per change.
    listing: Mutex<Option<(u64, Arc<Vec<Resource>>)>>,
    /// Counts the changes of the served folders the watcher saw.
    generation: AtomicU64,
    /// Whether the watcher runs: without it, nothing would tell a kept listing is stale.
    watched: AtomicBool,
    /// What the watcher compares the trees with. Taken by its first tick or by the first
    /// listing, whichever comes first, not at start: a walk of up to `max_files` entries
    /// would hold back the first answer (70-85 ms in a tree of 10 000 files), and a walk
    /// beside it on the watcher's thread still slowed it by 2 ms on two cores. Once taken, a
    /// listing does not wait for the lock the watcher holds while it walks again.
    seen: OnceLock<Mutex<TreeState>>,
    /// The folders served to clients that declare roots (`roots_from_client`), by what their
    /// roots came to, most recent last.
    pub(crate) by_client: Mutex<Vec<(RootSet, Arc<Files>)>>,
}

/// Serves `roots` on `server`: resources, templates and the prompt (the tools come from
/// [`super::serve_folders`]). Fails when a root is not a readable directory.
pub fn register(server: &Server, roots: &[PathBuf], options: FilesOptions) -> Result<Arc<Files>, Error> {
    let files = Arc::new(Files::new(roots, options)?);
    let lister = Arc::clone(&files);
    server.register_resource_lister(move |cx| {
        let served = lister.served(cx);
        let listing = served.list();
        let scope = served.scope(cx);
        if scope.is_everything() {
            // Every listed file came from a walk inside its root: nothing to check again (a
            // check per file per page was three system calls each).
            return listing;
        }
        listing
            .into_iter()
            .filter(|r| served.path_of_uri(&r.uri).is_some_and(|p| p.is_ok_and(|p| scope.reaches(&p))))
            .collect()
    });
    for index in 0..files.roots.len() {
        register_template(server, &files, Some(index))?;
    }
    if files.options.roots_from_client {
        // The client's roots are known only per request: one template takes every file URI,
        // after the command line's, and finds the root among the request's folders.
        register_template(server, &files, None)?;
    }
    let watched = Arc::clone(&files);
    server.on_subscribe(move |uri| watched.note_subscription(uri));
    let for_prompt = Arc::clone(&files);
    let for_completion = Arc::clone(&files);
    server.register_prompt(
        Prompt::new(
            "summarize_file",
            "Summarize a file: the file is embedded as a resource",
            vec![PromptArgument::new("path", "The file, relative to the served folder", true)],
        ),
        move |cx, args| for_prompt.served(cx).summarize(args.get("path").map(String::as_str).unwrap_or_default()),
        Some(Box::new(move |_: &RequestCx, req: &CompletionRequest| for_completion.complete(req.value, None))),
    );
    Ok(files)
}

/// Registers the template of the root `index`, or (`None`) the one of the client's roots.
fn register_template(server: &Server, files: &Arc<Files>, index: Option<usize>) -> Result<(), Error> {
    let template = match index.and_then(|i| files.roots.get(i)) {
        Some(root) => ResourceTemplate::new(format!("{}{{+path}}", root.dir_uri), format!("files in {}", root.label))
            .with_description(format!("Any file under {}; path is relative to it", root.sandbox.root().display())),
        None if index.is_none() => ResourceTemplate::new("file:///{+path}", "files under your roots")
            .with_description("Any file under the roots the client declared"),
        None => return Ok(()),
    };
    let reader = Arc::clone(files);
    let completer = Arc::clone(files);
    server
        .register_resource_template(
            template,
            move |cx, uri, _| {
                let served = reader.served(cx);
                // The command line's roots by their index; the client's by their URI.
                let root = match index {
                    Some(i) if Arc::ptr_eq(&served, &reader) => served.roots.get(i),
                    _ => served.roots.iter().find(|r| uri.starts_with(&r.dir_uri)),
                };
                let Some(root) = root else { return Ok(Vec::new()) };
                let Some(rest) = uri.strip_prefix(&root.dir_uri) else { return Ok(Vec::new()) };
                let path = root.sandbox.resolve_uri_path(rest).map_err(|why| not_found_because(cx, uri, &why))?;
                if !served.scope(cx).reaches(&path) {
                    return Err(not_found_because(cx, uri, "not under the client's roots"));
                }
                match served.read_resource(&root.sandbox, uri, &path) {
                    Ok(contents) => Ok(vec![contents]),
                    Err(Unreadable::Refused(why)) => Err(not_found_because(cx, uri, &why)),
                    // It exists: saying "not found" would send the client looking elsewhere.
                    Err(Unreadable::TooLarge { size, limit }) => Err(RpcError::invalid_params(format!(
                        "resource too large: {uri} is {size} bytes, more than the limit of {limit} bytes \
                         (the read_file tool reads it in windows)"
                    ))
                    .with_data(json!({"uri": uri, "size": size, "limit": limit}))),
                }
            },
            // The client's roots are known only per request: their template completes nothing.
            index.map(|i| -> Box<tinymcp::Completer> {
                Box::new(move |_: &RequestCx, req: &CompletionRequest| {
                    completer.complete(req.value, completer.roots.get(i))
                })
            }),
        )
        .map_err(Error::Config)
}

/// Why a served file cannot be read whole.
pub(crate) enum Unreadable {
    /// The sandbox refused it, or reading failed: the reason.
    Refused(String),
    /// It is larger than the limit of a whole read.
    TooLarge { size: u64, limit: u64 },
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Refused(why) => f.write_str(why),
            Unreadable::TooLarge { size, limit } => write!(f, "is {size} bytes, more than the limit of {limit}"),
        }
    }
}

/// The resource-not-found error, saying why.
fn not_found_because(cx: &RequestCx, uri: &str, why: &str) -> RpcError {
    let mut error = tinymcp::resource_not_found(cx.version(), uri);
    error.message = format!("resource not found: {uri} ({why})");
    error
}

impl Files {
    /// Checks and canonicalizes the roots once.
    pub fn new(roots: &[PathBuf], options: FilesOptions) -> Result<Files, Error> {
        let files = Files::of_folders(roots, options)?;
        if files.roots.is_empty() {
            return Err(Error::Config("no folder to serve".into()));
        }
        Ok(files)
    }

    /// The served folders `roots`, which may be none (a client none of whose roots is a folder).
    pub(crate) fn of_folders(roots: &[PathBuf], options: FilesOptions) -> Result<Files, Error> {
        let canonical =
            |dir: &PathBuf| fs::canonicalize(dir).map_err(|e| Error::Config(format!("{}: {e}", dir.display())));
        let writable: Vec<PathBuf> = options.write_roots.iter().map(canonical).collect::<Result<_, _>>()?;
        let mut served: Vec<Root> = Vec::new();
        for dir in roots {
            let sandbox = Sandbox::new(dir, options.include_hidden)
                .map_err(|e| Error::Config(e.to_string()))?
                .with_ignore_files(options.ignore_files);
            let base = sandbox.root().file_name().and_then(|n| n.to_str()).unwrap_or("root");
            let base = base.trim_start_matches('.');
            let base = if base.is_empty() { "root" } else { base };
            let mut label = base.to_owned();
            let mut n = 1;
            while served.iter().any(|r| r.label == label) {
                n += 1;
                label = format!("{base}-{n}");
            }
            let mut dir_uri = file_uri(sandbox.root())
                .ok_or_else(|| Error::Config(format!("{}: the path is not UTF-8", dir.display())))?;
            if !dir_uri.ends_with('/') {
                dir_uri.push('/');
            }
            let writable = options.write_all || writable.iter().any(|w| w == sandbox.root());
            served.push(Root { label, sandbox, dir_uri, writable });
        }
        Ok(Files {
            roots: served,
            options,
            tracker: ChangeTracker::default(),
            listing: Mutex::new(None),
            generation: AtomicU64::new(0),
            watched: AtomicBool::new(false),
            seen: OnceLock::new(),
            by_client: Mutex::new(Vec::new()),
        })
    }

    /// What the request `cx` may reach: with `--client-roots`, only under the client's roots.
    pub(crate) fn scope(&self, cx: &RequestCx) -> Scope {
        Scope::of(self, cx)
    }

    /// The canonical roots, in the order given, with whether each is writable.
    pub fn writable_roots(&self) -> Vec<(&Path, bool)> {
        self.roots.iter().map(|r| (r.sandbox.root(), r.writable)).collect()
    }

    /// Resolves a path a client gave a tool. With several roots, its first component is the
    /// root's label. A path the listings showed quoted (a name with a control character, `"a\nb"`) is read
    /// back to the exact name: a path never holds a backslash otherwise.
    pub(crate) fn locate(&self, spelled: &str) -> Result<Target<'_>, String> {
        let exact = unshown(spelled);
        let spelled = exact.as_deref().unwrap_or(spelled);
        self.locate_parts(&sandbox::components(spelled, self.options.include_hidden)?)
    }

    /// Where a path a client gave a tool leads, from its checked components.
    pub(crate) fn locate_parts(&self, parts: &[String]) -> Result<Target<'_>, String> {
        if let [root] = self.roots.as_slice() {
            return Ok(Target::In { root, path: root.sandbox.resolve_parts(parts)? });
        }
        let Some((first, rest)) = parts.split_first() else { return Ok(Target::Top) };
        let Some(root) = self.roots.iter().find(|r| r.label == *first) else {
            let labels: Vec<&str> = self.roots.iter().map(|r| r.label.as_str()).collect();
            return Err(format!("names no served folder (paths start with one of: {})", labels.join(", ")));
        };
        Ok(Target::In { root, path: root.sandbox.resolve_parts(rest)? })
    }

    /// Where a path a client gave a tool would be created: the root, the canonical folder that
    /// holds it (which must exist) and the last name, which need not exist and is not followed.
    pub(crate) fn locate_entry(&self, spelled: &str) -> Result<(&Root, PathBuf, String), String> {
        let mut parts = sandbox::components(spelled, self.options.include_hidden)?;
        let top = if self.roots.len() == 1 { 0 } else { 1 };
        if parts.len() <= top {
            return Err("names a served folder itself".into());
        }
        let name = parts.pop().unwrap_or_default();
        match self.locate_parts(&parts)? {
            Target::In { root, path } => Ok((root, path, name)),
            Target::Top => Err("names a served folder itself".into()),
        }
    }

    /// How a path is shown to clients: relative to its root, behind the label when several are served.
    pub(crate) fn display(&self, root: &Root, path: &Path) -> String {
        let rel = root.sandbox.relative(path).unwrap_or_default();
        match (self.roots.len(), rel.is_empty()) {
            (1, true) => ".".into(),
            (1, false) => rel,
            (_, true) => root.label.clone(),
            (_, false) => format!("{}/{rel}", root.label),
        }
    }

    /// Every file of every root, as resources (at most `max_files` per root): the listing kept
    /// since the watcher last saw a folder change, else a new walk (kept when watched). The lock
    /// is held during the walk, so pages asked for at once share one walk.
    fn list(&self) -> Vec<Resource> {
        let mut kept = self.listing.lock().unwrap_or_else(PoisonError::into_inner);
        let watched = self.watched.load(Ordering::SeqCst);
        if watched {
            // A listing kept is newer than what the watcher compares with, so it learns of
            // every later change.
            self.first_look();
        }
        let generation = self.generation.load(Ordering::SeqCst);
        if let Some((walked_in, listing)) = kept.as_ref() {
            if watched && *walked_in == generation {
                return listing.to_vec();
            }
        }
        let listing = self.walk_listing();
        *kept = watched.then(|| (generation, Arc::new(listing.clone())));
        listing
    }

    /// Walks every root for [`Files::list`].
    fn walk_listing(&self) -> Vec<Resource> {
        let mut all = Vec::new();
        for root in &self.roots {
            let mut count = 0;
            root.sandbox.walk_sized(root.sandbox.root(), &mut |rel, path, meta| {
                if let Some(uri) = file_uri(path) {
                    let name = if self.roots.len() == 1 { rel.to_owned() } else { format!("{}/{rel}", root.label) };
                    all.push(Resource::new(uri, name).with_mime_type(mime::from_path(rel)).with_size(meta.len()));
                }
                count += 1;
                if count >= self.options.max_files {
                    log::warn!("{}: listing stopped after {count} files", root.sandbox.root().display());
                }
                count < self.options.max_files
            });
        }
        all
    }

    /// Reads a file whole as resource contents, and remembers what the client saw.
    pub(crate) fn read_resource(
        &self,
        sandbox: &Sandbox,
        uri: &str,
        path: &Path,
    ) -> Result<ResourceContents, Unreadable> {
        let before = stamp(path);
        let (file, meta) = sandbox.open(path).map_err(Unreadable::Refused)?;
        let limit = self.options.max_file_bytes;
        if meta.len() > limit {
            return Err(Unreadable::TooLarge { size: meta.len(), limit });
        }
        let contents = read_contents(uri, path, (file, meta), limit).map_err(Unreadable::Refused)?;
        self.tracker.read(uri, before);
        Ok(contents)
    }

    /// `summarize_file`: the file embedded as a resource, after a request to summarize it.
    fn summarize(&self, spelled: &str) -> Result<GetPromptResult, tinymcp::RpcError> {
        let refused = |why: String| RpcError::invalid_params(format!("path {spelled:?}: {why}"));
        let (root, path) = match self.locate(spelled).map_err(refused)? {
            Target::In { root, path } if path.is_file() => (root, path),
            _ => return Err(refused("is not a file".into())),
        };
        let uri = file_uri(&path).ok_or_else(|| refused("is not UTF-8".into()))?;
        let contents = self.read_resource(&root.sandbox, &uri, &path).map_err(|e| refused(e.to_string()))?;
        let shown = self.display(root, &path);
        Ok(GetPromptResult::new(vec![
            PromptMessage::user(Content::text(format!(
                "Summarize the file {shown}: what it is for, how it is organized, and anything notable."
            ))),
            PromptMessage::user(Content::resource(contents)),
        ]))
    }

    /// Completes a path from a typed prefix: the entries of the prefix's folder whose names start
    /// with its last component (case-insensitive), folders ending in `/`. `within` completes
    /// relative to one root; `None` completes tool-style paths.
    pub(crate) fn complete(&self, prefix: &str, within: Option<&Root>) -> Vec<String> {
        let (dir, partial) = match prefix.rsplit_once('/') {
            Some((dir, partial)) => (format!("{dir}/"), partial),
            None => (String::new(), prefix),
        };
        let target = match within {
            Some(root) => root.sandbox.resolve_uri_path(&dir).map(|path| Target::In { root, path }),
            None => self.locate(&dir),
        };
        let partial = partial.to_lowercase();
        let wanted = |name: &str| name.to_lowercase().starts_with(&partial);
        match target {
            Ok(Target::Top) => {
                self.roots.iter().filter(|r| wanted(&r.label)).map(|r| format!("{}/", r.label)).collect()
            }
            Ok(Target::In { root, path }) => root
                .sandbox
                .entries(&path)
                .into_iter()
                .filter(|(name, _, _)| wanted(name))
                .filter_map(|(name, path, kind)| match kind {
                    EntryKind::Dir => Some(format!("{dir}{name}/")),
                    EntryKind::File(_) => Some(format!("{dir}{name}")),
                    EntryKind::Link => match root.sandbox.follow(&path) {
                        Some((_, meta)) if meta.is_dir() => Some(format!("{dir}{name}/")),
                        Some(_) => Some(format!("{dir}{name}")),
                        None => None,
                    },
                    EntryKind::Other => None,
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The canonical path behind a `file://` URI of ours (`None` when no root claims it).
    /// A subscription to a file no client has read: what it is now is what a change is
    /// compared with (the watcher's next look may come after the change).
    fn note_subscription(&self, uri: &str) {
        if let Some(Ok(path)) = self.path_of_uri(uri) {
            self.tracker.subscribed(uri, &path);
        }
    }

    fn path_of_uri(&self, uri: &str) -> Option<Result<PathBuf, String>> {
        self.roots.iter().find_map(|r| uri.strip_prefix(&r.dir_uri).map(|rest| r.sandbox.resolve_uri_path(rest)))
    }

    /// What the watcher compares with, taken now unless it is already (a second caller waits
    /// for the first one's walk).
    fn first_look(&self) -> &Mutex<TreeState> {
        self.seen.get_or_init(|| Mutex::new(self.tree_state()))
    }

    /// What the watcher remembers of the trees, from one walk (at its first look and after a
    /// change): every folder it walked, and a signature of the listed files, which changes
    /// when one appears or disappears.
    fn tree_state(&self) -> TreeState {
        let mut folders = Vec::new();
        let mut hasher = DefaultHasher::new();
        for (i, root) in self.roots.iter().enumerate() {
            let mut count = 0;
            root.sandbox.walk_folders(
                root.sandbox.root(),
                &mut |dir| {
                    folders.push((dir.to_path_buf(), modified(dir)));
                    folders.len() < self.options.max_files
                },
                &mut |rel, _| {
                    (i, rel).hash(&mut hasher);
                    count += 1;
                    count < self.options.max_files
                },
            );
        }
        TreeState { folders, signature: hasher.finish() }
    }

    /// A write tool changed the file at `path` (canonical): a client subscribed to it is told
    /// at once, and, when the file is `created`, every client that the list changed (see
    /// [`Files::moved`]). Nothing is told when the folders are not watched (`--no-watch`).
    pub(crate) fn wrote(&self, server: &Server, path: &Path, created: bool) {
        if !self.watched.load(Ordering::SeqCst) {
            return;
        }
        if let Some(uri) = file_uri(path) {
            // Recorded as the watcher would: its next look sees no change to tell again.
            if server.has_subscribers(&uri) && self.tracker.changed(&uri, stamp(path)) {
                server.notify_resource_updated_here(&uri);
            }
        }
        if created {
            self.moved(server);
        }
    }

    /// A write tool created, moved or renamed files: the listing kept is stale and every client
    /// is told the list changed at once, not at the watcher's next look. What the watcher
    /// compares with is taken again, so it does not tell the same change a second time.
    pub(crate) fn moved(&self, server: &Server) {
        if !self.watched.load(Ordering::SeqCst) {
            return;
        }
        match self.seen.get() {
            Some(seen) => {
                let mut tree = seen.lock().unwrap_or_else(PoisonError::into_inner);
                // Before the walk, as in the watcher's job: a listing walked from now on is as new.
                self.generation.fetch_add(1, Ordering::SeqCst);
                *tree = self.tree_state();
            }
            None => {
                self.generation.fetch_add(1, Ordering::SeqCst);
            }
        }
        log::debug!("a write tool changed the served files");
        server.notify_resource_list_changed_here();
    }

    /// The watcher's job: `resources/updated` for subscribed files whose modification time or
    /// size changed since a client read them (or the watcher first saw them), and
    /// `resources/list_changed` when files appear or disappear. A tick stats the subscribed
    /// files and the folders; the files are walked again only when a folder changed (a file
    /// appearing, disappearing or renamed changes its folder's modification time).
    ///
    /// Take the job only to run it: from then on a listing is kept until the job sees a folder
    /// change. The job's first tick, or the first listing, looks at the trees; a change after
    /// that look is noticed, and no client saw a listing before it.
    ///
    /// What it (and a write tool) tells goes to this replica's listeners only, not through
    /// `--store`: every replica serving the same disk watches it too.
    pub fn watch_job(self: &Arc<Self>) -> impl FnMut(&Server) + Send + 'static {
        let files = Arc::clone(self);
        files.watched.store(true, Ordering::SeqCst);
        move |server: &Server| {
            // The first look comes first: a change it misses came before anything this tick
            // tells the client, so no client saw what it missed.
            let seen = files.first_look();
            let subscribed = server.subscribed_uris();
            for uri in &subscribed {
                let Some(resolved) = files.path_of_uri(uri) else { continue };
                let now = resolved.ok().and_then(|path| stamp(&path));
                if files.tracker.changed(uri, now) {
                    log::debug!("{uri} changed");
                    server.notify_resource_updated_here(uri);
                }
            }
            // Read stamps of files nobody subscribed to are kept, up to a bound.
            files.tracker.bound(4 * files.options.max_files, |uri| subscribed.iter().any(|s| s == uri));
            let mut tree = seen.lock().unwrap_or_else(PoisonError::into_inner);
            if tree.folders.iter().any(|(dir, stamp)| modified(dir) != *stamp) {
                // Before the walk below: a listing walked from now on is at least as new.
                files.generation.fetch_add(1, Ordering::SeqCst);
                let now = files.tree_state();
                let changed = now.signature != tree.signature;
                *tree = now;
                if changed {
                    log::debug!("the served files changed");
                    server.notify_resource_list_changed_here();
                }
            }
        }
    }
}

/// What a client's roots came to: the local folders to serve and the roots refused.
#[derive(PartialEq)]
pub(crate) struct RootSet {
    pub folders: Vec<PathBuf>,
    pub refused: Vec<String>,
}

/// What a request may reach: everything served, or only under these canonical folders.
pub(crate) struct Scope {
    within: Option<Vec<PathBuf>>,
}

impl Scope {
    /// The scope of `cx`: the client's roots that lie inside a served folder (a root outside is
    /// refused and logged), or everything when client roots are off, the client declared none,
    /// or the revision has no sessions (2026-07-28 deprecates roots). A client whose roots
    /// cannot be read reaches nothing.
    fn of(files: &Files, cx: &RequestCx) -> Scope {
        if !files.options.client_roots || !cx.version().is_stateful() || !cx.client_supports("roots") {
            return Scope { within: None };
        }
        let answer = match cx.list_roots() {
            Ok(answer) => answer,
            Err(e) => {
                log::warn!("cannot read the client's roots, serving nothing: {}", e.message);
                return Scope { within: Some(Vec::new()) };
            }
        };
        let mut within = Vec::new();
        for root in answer.get("roots").and_then(Value::as_array).into_iter().flatten() {
            let uri = root.get("uri").and_then(Value::as_str).unwrap_or_default();
            match folder_of(files, uri) {
                Some(folder) => within.push(folder),
                None => log::warn!("client root {uri:?} is not a folder inside the served folders: refused"),
            }
        }
        log::debug!("serving the client's roots: {within:?}");
        Scope { within: Some(within) }
    }

    /// The client's roots inside the served folders, or `None` when everything is served.
    pub(crate) fn roots(&self) -> Option<&[PathBuf]> {
        self.within.as_deref()
    }

    /// Whether everything served is reached: no client roots narrow it.
    fn is_everything(&self) -> bool {
        self.within.is_none()
    }

    /// Whether the canonical `path` is under one of the client's roots (or everything is served).
    pub(crate) fn reaches(&self, path: &Path) -> bool {
        self.within.as_ref().is_none_or(|within| within.iter().any(|root| path.starts_with(root)))
    }
}

/// The canonical folder of a `file://` root URI when it lies inside a served folder and is shown.
fn folder_of(files: &Files, uri: &str) -> Option<PathBuf> {
    let canonical = local_folder(uri)?;
    files.roots.iter().find_map(|root| root.sandbox.inside(canonical.clone()).ok())
}

/// The canonical local folder a `file://` URI names (no host but `localhost`), if it is one.
pub(crate) fn local_folder(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let path = percent::decode(rest)?;
    // Windows: `file:///C:/dir` names `C:\dir`.
    let path = if cfg!(windows) { super::winpath::path_of_uri(&path)? } else { path };
    let canonical = std::fs::canonicalize(path).ok()?;
    canonical.is_dir().then_some(canonical)
}

/// What the watcher remembers of the served trees: each shown folder with its modification
/// time, and a signature of the listed files.
struct TreeState {
    folders: Vec<(PathBuf, Option<SystemTime>)>,
    signature: u64,
}

/// Modification time of `path`, following links.
fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).ok()?.modified().ok()
}

/// Reads an opened file whole as resource contents: text when it is text, a base64 blob
/// otherwise. `path` names it (for the MIME type).
pub(crate) fn read_contents(
    uri: &str,
    path: &Path,
    (file, meta): (File, Metadata),
    max_bytes: u64,
) -> Result<ResourceContents, String> {
    let bytes = sandbox::read_all(file, &meta, max_bytes)?;
    let name = path.to_str().unwrap_or_default();
    Ok(contents_from_bytes(uri, mime::from_path(name), bytes))
}

/// Text contents when the type says text (or is unknown and the bytes look like text), else a blob.
pub(crate) fn contents_from_bytes(uri: &str, mime_type: &str, bytes: Vec<u8>) -> ResourceContents {
    if looks_textual(mime_type, &bytes) {
        match String::from_utf8(bytes) {
            Ok(text) => return ResourceContents::text(uri, text_type(mime_type), text),
            Err(e) => return ResourceContents::blob(uri, mime_type, e.as_bytes()),
        }
    }
    ResourceContents::blob(uri, mime_type, &bytes)
}

/// Whether content of this type (with these first bytes) is shown as text.
pub(crate) fn looks_textual(mime_type: &str, bytes: &[u8]) -> bool {
    if mime::is_text(mime_type) {
        return true;
    }
    if mime_type != mime::DEFAULT {
        return false;
    }
    let head = bytes.get(..SNIFF_BYTES).unwrap_or(bytes);
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // A character cut by the sniff window still counts as text.
        Err(e) => e.error_len().is_none(),
    }
}

/// The type shown for text: unknown types that sniffed as text become `text/plain`.
pub(crate) fn text_type(mime_type: &str) -> &str {
    if mime_type == mime::DEFAULT {
        "text/plain"
    } else {
        mime_type
    }
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
