//! The JSON manifest: command tools, prompt templates and resources declared in a file. Parsed
//! and checked in one pass that names the JSON path of every problem (`check.rs`), registered
//! through the public `Server` API, and reloaded when the file changes (the old one stays when
//! the new one is broken). Commands run through `provide::command`.

mod check;
mod warnings;

use crate::provide::command::{self, CommandSpec};
use crate::provide::files::read_contents;
use crate::provide::sandbox::{file_uri, open_regular, read_all, Sandbox};
use crate::provide::tracker::{stamp, ChangeTracker, Stamp};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use tinymcp::{
    AppView, CacheHint, Content, GetPromptResult, Prompt, PromptArguments, PromptMessage, RequestCx, Resource,
    ResourceContents, Role, RpcError, Server, Tool,
};

/// The largest file a prompt embeds or a manifest resource serves.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// A problem in a manifest: where (a JSON path such as `tools[1].command[2]`) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The JSON path, `""` for the whole file.
    pub path: String,
    /// What is wrong, lowercase, saying what was expected.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// A problem at a JSON path.
fn problem(path: &str, message: impl Into<String>) -> Problem {
    Problem { path: path.to_owned(), message: message.into() }
}

/// The JSON path of `key` under `path` (`tools[1].command`).
fn key(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The JSON path of item `i` of `path` (`tools[1]`).
fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A manifest that cannot be used: the file and every problem found in it.
#[derive(Debug, Clone)]
pub struct ManifestError {
    /// The manifest file.
    pub file: PathBuf,
    /// The problems, in document order, then its warnings (`warning: ...`).
    pub problems: Vec<Problem>,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}: {problem}", self.file.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for ManifestError {}

/// A command tool of the manifest.
#[derive(Debug, Clone)]
pub(crate) struct ToolDef {
    pub tool: Tool,
    pub spec: CommandSpec,
    /// Its view (`ui`, MCP Apps): an HTML file inside the manifest's folder.
    pub ui: Option<PathBuf>,
}

/// What a prompt message holds.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// A text template.
    Text(String),
    /// A file (template) embedded as a resource.
    File(String),
    /// A resource of the manifest, by URI.
    Resource(String),
}

#[derive(Debug, Clone)]
pub(crate) struct PromptDef {
    pub prompt: Prompt,
    pub completions: HashMap<String, Vec<String>>,
    pub messages: Vec<(Role, Body)>,
}

/// Where a resource's contents come from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    File(PathBuf),
    Text(String),
}

#[derive(Debug, Clone)]
pub(crate) struct ResourceDef {
    pub resource: Resource,
    pub source: Source,
    /// The hint 2026-07-28 clients get with its reads (`cache`), over the server-wide one.
    pub cache: Option<CacheHint>,
}

/// A checked manifest, ready to register.
#[derive(Debug, Clone)]
pub struct Manifest {
    file: PathBuf,
    dir: PathBuf,
    stamp: Stamp,
    raw: Value,
    instructions: Option<String>,
    warnings: Vec<Problem>,
    tools: Vec<ToolDef>,
    prompts: Vec<PromptDef>,
    resources: Arc<Vec<ResourceDef>>,
    /// What clients last saw of the file resources they read or subscribed to.
    tracker: Arc<ChangeTracker>,
}

/// Reads and checks a manifest file. Relative paths in it are relative to its folder.
pub fn load(file: &Path) -> Result<Manifest, ManifestError> {
    let fail = |message: String| ManifestError { file: file.to_path_buf(), problems: vec![problem("", message)] };
    let file = fs::canonicalize(file).map_err(|e| fail(format!("cannot read: {e}")))?;
    let stamp = stamp(&file);
    let text = fs::read_to_string(&file).map_err(|e| fail(format!("cannot read: {e}")))?;
    let dir = file.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    parse(&text, &dir)
        .map(|m| Manifest { file: file.clone(), stamp, ..m })
        .map_err(|problems| ManifestError { file: file.clone(), problems })
}

/// Checks manifest text; relative paths resolve against `dir`. Every problem is reported.
pub fn parse(text: &str, dir: &Path) -> Result<Manifest, Vec<Problem>> {
    let raw: Value = serde_json::from_str(text).map_err(|e| vec![problem("", format!("invalid JSON: {e}"))])?;
    let checked = check::manifest(&raw, dir)?;
    Ok(Manifest {
        file: dir.join("manifest.json"),
        dir: dir.to_path_buf(),
        stamp: None,
        raw,
        instructions: checked.instructions,
        warnings: checked.warnings,
        tools: checked.tools,
        prompts: checked.prompts,
        resources: Arc::new(checked.resources),
        tracker: Arc::default(),
    })
}

fn count(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

impl Manifest {
    /// The `instructions` for `initialize`, if the manifest gives them.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// What `--check` warns about: commands that run a placeholder as shell or interpreter
    /// code, tools marked read-only whose command writes. Each names its JSON path.
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// The file it was loaded from.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// What it declares, e.g. `2 tools, 1 prompt, 2 resources`.
    pub fn summary(&self) -> String {
        format!(
            "{}, {}, {}",
            count(self.tools.len(), "tool"),
            count(self.prompts.len(), "prompt"),
            count(self.resources.len(), "resource")
        )
    }

    /// Registers everything it declares (replacing what has the same name).
    pub fn register(&self, server: &Server) {
        for def in &self.tools {
            let spec = Arc::new(def.spec.clone());
            let handler = move |cx: &RequestCx, args: Value| Ok(command::run(cx, &spec, &args));
            match &def.ui {
                Some(file) => {
                    let view = self.view(server.name(), &def.tool, file);
                    server.register_app_tool(def.tool.clone(), view, handler);
                }
                None => server.register_tool(def.tool.clone(), handler),
            }
        }
        for def in &self.prompts {
            let def = Arc::new(def.clone());
            let resources = Arc::clone(&self.resources);
            let dir = self.dir.clone();
            let completer = (!def.completions.is_empty()).then(|| {
                let def = Arc::clone(&def);
                Box::new(move |_: &RequestCx, req: &tinymcp::CompletionRequest| {
                    let values = def.completions.get(req.argument).map(Vec::as_slice).unwrap_or_default();
                    tinymcp::filter_prefix(values.iter().map(String::as_str), req.value)
                }) as Box<tinymcp::Completer>
            });
            server.register_prompt(
                def.prompt.clone(),
                move |cx, args| render_prompt(cx, &def, args, &resources, &dir),
                completer,
            );
        }
        for def in self.resources.iter() {
            let source = def.source.clone();
            let mime_type = def.resource.mime_type.clone().unwrap_or_else(|| "text/plain".into());
            let tracker = Arc::clone(&self.tracker);
            server.register_resource(def.resource.clone(), move |_, uri| {
                if let Source::File(path) = &source {
                    // What the client saw is what a later change is compared with.
                    tracker.read(uri, stamp(path));
                }
                read_source(uri, &source, &mime_type).map(|c| vec![c]).map_err(RpcError::invalid_params)
            });
            if let Some(hint) = def.cache {
                server.set_read_cache(&def.resource.uri, hint);
            }
        }
    }

    /// A tool's view, served as `ui://<server>/<tool>` and read again at every read (through
    /// the manifest folder's sandbox), so an edit shows at once; it needs the tool's scopes.
    fn view(&self, server_name: &str, tool: &Tool, file: &Path) -> AppView {
        let uri = view_uri(server_name, &tool.name);
        let (dir, file, tracker) = (self.dir.clone(), file.to_path_buf(), Arc::clone(&self.tracker));
        let read_uri = uri.clone();
        let description = format!("The view of the tool {}", tool.name);
        AppView::new(uri, format!("{} view", tool.name), move |_| {
            tracker.read(&read_uri, stamp(&file));
            let refused = |why: String| RpcError::invalid_params(format!("view {}: {why}", file.display()));
            let sandbox = Sandbox::new(&dir, false).map_err(|e| refused(e.to_string()))?;
            let (opened, meta) = sandbox.open(&file).map_err(refused)?;
            let bytes = read_all(opened, &meta, MAX_FILE_BYTES).map_err(refused)?;
            String::from_utf8(bytes).map_err(|_| refused("expected UTF-8 HTML".into()))
        })
        .with_description(description)
        .with_required_scopes(tool.required_scopes.clone())
    }

    /// The views in force: each one's URI and file.
    fn views(&self, server_name: &str) -> Vec<(String, PathBuf)> {
        let with_ui = self.tools.iter().filter_map(|d| Some((view_uri(server_name, &d.tool.name), d.ui.clone()?)));
        with_ui.collect()
    }

    /// Removes from `server` what this manifest declares and `next` does not.
    fn unregister_missing(&self, server: &Server, next: &Manifest) {
        for def in &self.tools {
            if !next.tools.iter().any(|t| t.tool.name == def.tool.name) {
                server.remove_tool(&def.tool.name);
            }
            if def.ui.is_some() && !next.tools.iter().any(|t| t.tool.name == def.tool.name && t.ui.is_some()) {
                server.remove_resource(&view_uri(server.name(), &def.tool.name));
            }
        }
        for def in &self.prompts {
            if !next.prompts.iter().any(|p| p.prompt.name == def.prompt.name) {
                server.remove_prompt(&def.prompt.name);
            }
        }
        for def in self.resources.iter() {
            if !next.resources.iter().any(|r| r.resource.uri == def.resource.uri) {
                server.remove_resource(&def.resource.uri);
            }
        }
    }

    /// Replaces `self` on `server` by `next`, and sends the list-changed notifications for the
    /// lists that changed.
    pub fn replace_with(&self, server: &Server, next: &Manifest) {
        self.unregister_missing(server, next);
        next.register(server);
        if self.raw.get("tools") != next.raw.get("tools") {
            server.notify_tool_list_changed();
        }
        if self.raw.get("prompts") != next.raw.get("prompts") {
            server.notify_prompt_list_changed();
        }
        let views_changed = self.views(server.name()) != next.views(server.name());
        if self.raw.get("resources") != next.raw.get("resources") || views_changed {
            server.notify_resource_list_changed();
        }
        if self.instructions != next.instructions {
            log::warn!("{}: new instructions take effect when tinymcp restarts", next.file.display());
        }
    }

    /// The watcher's job: reloads the manifest when its file changes (keeping the old one and
    /// logging the problems when the new one is broken), and sends `resources/updated` for
    /// subscribed file resources whose file changed since the client read it or subscribed
    /// (a hook on `server` notes the file at subscription).
    pub fn watch_job(self, server: &Server) -> impl FnMut(&Server) + Send + 'static {
        let mut current = self;
        let mut seen = current.stamp;
        // The file resources in force, for the subscription hook.
        let live = Arc::new(Mutex::new(Arc::clone(&current.resources)));
        // The views in force (URI, file), for the same hook.
        let live_views = Arc::new(Mutex::new(current.views(server.name())));
        let (hooked, hooked_views, tracker) =
            (Arc::clone(&live), Arc::clone(&live_views), Arc::clone(&current.tracker));
        server.on_subscribe(move |uri| {
            let resources = Arc::clone(&hooked.lock().unwrap_or_else(PoisonError::into_inner));
            if let Some(Source::File(path)) = resources.iter().find(|r| r.resource.uri == uri).map(|r| &r.source) {
                tracker.subscribed(uri, path);
            }
            let views = hooked_views.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((_, path)) = views.iter().find(|(view, _)| view == uri) {
                tracker.subscribed(uri, path);
            }
        });
        move |server: &Server| {
            let now = stamp(&current.file);
            if now != seen {
                seen = now;
                match load(&current.file) {
                    Ok(mut next) => {
                        log::info!("{}: reloaded ({})", next.file.display(), next.summary());
                        // What clients read of files outlives reloads.
                        next.tracker = Arc::clone(&current.tracker);
                        current.replace_with(server, &next);
                        *live.lock().unwrap_or_else(PoisonError::into_inner) = Arc::clone(&next.resources);
                        *live_views.lock().unwrap_or_else(PoisonError::into_inner) = next.views(server.name());
                        current = next;
                    }
                    Err(e) => log::error!("{e}\n(the previous manifest stays in force)"),
                }
            }
            let subscribed = server.subscribed_uris();
            let files = current.resources.iter().filter_map(|def| match &def.source {
                Source::File(path) => Some((def.resource.uri.clone(), path.clone())),
                Source::Text(_) => None,
            });
            for (uri, path) in files.chain(current.views(server.name())) {
                if subscribed.contains(&uri) && current.tracker.changed(&uri, stamp(&path)) {
                    server.notify_resource_updated(&uri);
                }
            }
        }
    }
}

/// The URI a tool's view is served at.
fn view_uri(server_name: &str, tool: &str) -> String {
    format!("ui://{server_name}/{tool}")
}

/// Reads a manifest resource.
fn read_source(uri: &str, source: &Source, mime_type: &str) -> Result<ResourceContents, String> {
    match source {
        Source::Text(text) => Ok(ResourceContents::text(uri, mime_type, text.clone())),
        Source::File(path) => match read_contents(uri, path, open_regular(path)?, MAX_FILE_BYTES)? {
            // The manifest's type wins over the one guessed from the extension.
            ResourceContents::Text { uri, text, .. } => Ok(ResourceContents::text(uri, mime_type, text)),
            ResourceContents::Blob { uri, blob, .. } => {
                Ok(ResourceContents::Blob { uri, mime_type: Some(mime_type.to_owned()), blob })
            }
        },
    }
}

/// Renders a prompt: placeholders filled (absent optional arguments become empty), files and
/// resources embedded. A file named through a placeholder must stay in the manifest's folder.
/// A resource the request's token may not read is refused as its read is, so the prompt does
/// not pass it on.
fn render_prompt(
    cx: &RequestCx,
    def: &PromptDef,
    args: &PromptArguments,
    resources: &[ResourceDef],
    dir: &Path,
) -> Result<GetPromptResult, RpcError> {
    let lookup = |name: &str| args.get(name).cloned();
    let mut messages = Vec::new();
    for (role, body) in &def.messages {
        let content = match body {
            Body::Text(template) => Content::text(command::expand_text(template, &lookup)),
            Body::File(template) => {
                let spelled = command::expand_text(template, &lookup);
                let opened = if command::placeholders(template).is_empty() {
                    let path = dir.join(&spelled);
                    open_regular(&path).map(|opened| (path, opened))
                } else {
                    Sandbox::new(dir, false)
                        .map_err(|e| e.to_string())
                        .and_then(|s| s.resolve(&spelled).and_then(|path| Ok((path.clone(), s.open(&path)?))))
                };
                let refused = |why: String| RpcError::invalid_params(format!("file {spelled:?}: {why}"));
                let (path, opened) = opened.map_err(refused)?;
                let uri = file_uri(&path).unwrap_or_default();
                Content::resource(read_contents(&uri, &path, opened, MAX_FILE_BYTES).map_err(refused)?)
            }
            Body::Resource(uri) => {
                let def = resources.iter().find(|r| r.resource.uri == *uri);
                let def = def.ok_or_else(|| RpcError::invalid_params(format!("no resource {uri}")))?;
                if !cx.grants(&def.resource.required_scopes) {
                    let what = format!("the resource {uri}");
                    return Err(RpcError::insufficient_scope(&what, &def.resource.required_scopes));
                }
                let mime_type = def.resource.mime_type.as_deref().unwrap_or("text/plain");
                Content::resource(read_source(uri, &def.source, mime_type).map_err(RpcError::invalid_params)?)
            }
        };
        messages.push(PromptMessage { role: *role, content });
    }
    Ok(GetPromptResult { description: def.prompt.description.clone(), messages })
}
