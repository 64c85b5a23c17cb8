//! Agent skills served from a folder (the `io.modelcontextprotocol/skills` extension,
//! SEP-2640). Each sub-folder with a `SKILL.md` is a skill: `skills/list`, `skills/get`,
//! `resources/directory/read`, and every file as a `skill://<name>/...` resource with a
//! `sha256:` digest. Front matter is parsed by hand (the small YAML subset skills use). Paths go
//! through `sandbox` (no symbolic link leads out). Uses only the public registration API.

use super::sandbox::{self, EntryKind, Sandbox};
use super::tracker::{stamp, Stamp};
use crate::provide::mime;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use tinymcp::{Error, ExtensionMethod, RequestCx, Resource, ResourceContents, ResourceTemplate, RpcError, Server};

/// The extension's identifier under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// Files served per skill (the SEP's recommended limit).
const MAX_FILES: usize = 512;
/// Bytes served per skill (the SEP's recommended limit).
const MAX_SKILL_BYTES: u64 = 16 << 20;
/// Skills served from one folder.
const MAX_SKILLS: usize = 1000;

/// One file of a skill.
#[derive(Debug, Clone, PartialEq)]
struct SkillFile {
    /// Relative to the skill's folder, `/`-separated.
    rel: String,
    digest: String,
    size: u64,
}

/// One served skill.
#[derive(Debug, Clone, PartialEq)]
struct Skill {
    name: String,
    frontmatter: Map<String, Value>,
    dir: PathBuf,
    files: Vec<SkillFile>,
}

impl Skill {
    fn uri(&self) -> String {
        format!("skill://{}/SKILL.md", self.name)
    }

    fn to_wire(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|f| json!({ "uri": format!("skill://{}/{}", self.name, f.rel), "digest": f.digest, "size": f.size }))
            .collect();
        json!({ "uri": self.uri(), "frontmatter": self.frontmatter, "resources": resources })
    }

    fn description(&self) -> &str {
        self.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default()
    }
}

/// The skills folder and what was last read of it.
pub struct Skills {
    sandbox: Sandbox,
    skills: RwLock<Vec<Skill>>,
}

/// Serves the skills under `dir` on `server`: the extension's methods (with directory reading),
/// the `skill://` resources and their template. Fails when `dir` is not a readable folder.
pub fn register(server: &Server, dir: &Path) -> Result<Arc<Skills>, Error> {
    // The sandbox names the folder in its error already.
    let sandbox = Sandbox::new(dir, false).map_err(|e| Error::Config(format!("the skills folder {e}")))?;
    let (skills, problems) = scan(&sandbox);
    for problem in &problems {
        log::warn!("skill skipped: {problem}");
    }
    let served = Arc::new(Skills { sandbox, skills: RwLock::new(skills) });
    let methods = Arc::clone(&served);
    server.register_extension(
        EXTENSION,
        json!({ "directoryRead": true }),
        &[
            ExtensionMethod::new("skills/list").with_list_cache(),
            ExtensionMethod::new("skills/get").with_list_cache(),
            ExtensionMethod::new("resources/directory/read"),
        ],
        move |cx, method, params| methods.call(cx, method, &params),
    );
    let lister = Arc::clone(&served);
    server.register_resource_lister(move |_| lister.resources());
    let reader = Arc::clone(&served);
    server
        .register_resource_template(
            ResourceTemplate::new("skill://{name}/{+path}", "skill files")
                .with_description("A file of a served skill; SKILL.md is its manifest"),
            move |_, uri, _| Ok(reader.read(uri).into_iter().collect()),
            None,
        )
        .map_err(Error::Config)?;
    Ok(served)
}

/// Checks the skills under `dir`: every problem found, one line each (empty when all is well).
pub fn check(dir: &Path) -> Vec<String> {
    match Sandbox::new(dir, false) {
        Ok(sandbox) => scan(&sandbox).1,
        Err(e) => vec![format!("{}: {e}", dir.display())],
    }
}

impl Skills {
    fn snapshot(&self) -> Vec<Skill> {
        self.skills.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn call(&self, cx: &RequestCx, method: &str, params: &Value) -> Result<Value, RpcError> {
        let skills = self.snapshot();
        let uri_param = || {
            params
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| RpcError::invalid_params(format!("{method}: uri is required")))
        };
        match method {
            "skills/list" => {
                let cursor = match params.get("cursor") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(c)) => Some(c.as_str()),
                    Some(_) => return Err(RpcError::invalid_params("skills/list: cursor must be a string")),
                };
                tinymcp::list_result("skills", &skills, cursor, cx.page_size(), Skill::to_wire)
            }
            "skills/get" => {
                let uri = uri_param()?;
                match skills.iter().find(|s| s.uri() == uri) {
                    Some(skill) => Ok(json!({ "skill": skill.to_wire() })),
                    None => Err(RpcError::invalid_params(format!("skills/get: no skill at {uri}"))),
                }
            }
            _ => self.directory(&skills, uri_param()?),
        }
    }

    /// `resources/directory/read`: the direct children of a skill's folder or a folder in it.
    fn directory(&self, skills: &[Skill], uri: &str) -> Result<Value, RpcError> {
        let not_dir = || RpcError::invalid_params(format!("resources/directory/read: {uri} is not a served directory"));
        let (skill, rel) = locate(skills, uri).ok_or_else(not_dir)?;
        let rel = rel.trim_end_matches('/');
        let prefix = if rel.is_empty() { String::new() } else { format!("{rel}/") };
        let mut children: Vec<Value> = Vec::new();
        let mut dirs: Vec<&str> = Vec::new();
        for file in &skill.files {
            let Some(rest) = file.rel.strip_prefix(&prefix) else { continue };
            match rest.split_once('/') {
                None => children.push(json!({
                    "uri": format!("skill://{}/{}", skill.name, file.rel),
                    "name": rest,
                    "mimeType": mime_of(&file.rel),
                    "size": file.size,
                })),
                Some((dir, _)) if !dirs.contains(&dir) => dirs.push(dir),
                Some(_) => {}
            }
        }
        if children.is_empty() && dirs.is_empty() {
            return Err(not_dir());
        }
        for dir in dirs {
            children.push(json!({
                "uri": format!("skill://{}/{prefix}{dir}", skill.name),
                "name": dir,
                "mimeType": "inode/directory",
            }));
        }
        Ok(json!({ "resources": children }))
    }

    /// Every file of every skill as a resource; SKILL.md named and described by its front matter.
    fn resources(&self) -> Vec<Resource> {
        let mut all = Vec::new();
        for skill in self.snapshot() {
            for file in &skill.files {
                let uri = format!("skill://{}/{}", skill.name, file.rel);
                let resource = if file.rel == "SKILL.md" {
                    Resource::new(uri, skill.name.clone()).with_description(skill.description())
                } else {
                    Resource::new(uri, format!("{}/{}", skill.name, file.rel))
                };
                all.push(resource.with_mime_type(mime_of(&file.rel)).with_size(file.size));
            }
        }
        all
    }

    /// Reads one listed file of a skill, through the sandbox.
    fn read(&self, uri: &str) -> Option<ResourceContents> {
        let skills = self.snapshot();
        let (skill, rel) = locate(&skills, uri)?;
        skill.files.iter().find(|f| f.rel == rel)?;
        let within = Sandbox::new(&skill.dir, false).ok()?;
        let path = within.resolve(rel).ok()?;
        let (file, meta) = within.open(&path).ok()?;
        let bytes = sandbox::read_all(file, &meta, MAX_SKILL_BYTES).ok()?;
        let mime = mime_of(rel);
        Some(match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(uri, mime, text),
            Err(e) => ResourceContents::blob(uri, mime, e.as_bytes()),
        })
    }

    /// The watch job: each tick the files' stamps (modification time, size, inode) are taken;
    /// when they changed, the folder is read again, and a changed set of skills tells the
    /// clients that the resource list (and with it the skills) changed, and the subscribers of
    /// each `skill://` file whose contents changed or that went away that it was updated
    /// (SEP-2640 adds no notification of its own: skills are resources).
    pub fn watch_job(self: &Arc<Self>) -> impl FnMut(&Server) + Send + 'static {
        let skills = Arc::clone(self);
        let mut seen = skills.stamps();
        move |server: &Server| {
            let stamps = skills.stamps();
            if stamps == seen {
                return;
            }
            seen = stamps;
            let (now, _) = scan(&skills.sandbox);
            let mut held = skills.skills.write().unwrap_or_else(PoisonError::into_inner);
            if *held != now {
                let before = std::mem::replace(&mut *held, now);
                let changed = changed_files(&before, &held);
                drop(held);
                log::debug!("the served skills changed");
                // Each replica watches the skills it serves: told here only (not through --store).
                server.notify_resource_list_changed_here();
                for uri in changed.iter().filter(|uri| server.has_subscribers(uri)) {
                    server.notify_resource_updated_here(uri);
                }
            }
        }
    }
}

impl Skills {
    /// The stamp of every file under the skills folder, in walk order (bounded).
    fn stamps(&self) -> Vec<(String, Stamp)> {
        let mut all = Vec::new();
        self.sandbox.walk(self.sandbox.root(), &mut |rel, path| {
            all.push((rel.to_owned(), stamp(path)));
            all.len() < MAX_SKILLS * 8
        });
        all
    }
}

/// The `skill://` URIs of the files in `before` whose digest is not the same in `after`
/// (changed, or gone).
fn changed_files(before: &[Skill], after: &[Skill]) -> Vec<String> {
    let digests = |skills: &[Skill]| -> HashMap<String, String> {
        skills
            .iter()
            .flat_map(|s| s.files.iter().map(move |f| (format!("skill://{}/{}", s.name, f.rel), f.digest.clone())))
            .collect()
    };
    let now = digests(after);
    let mut changed: Vec<String> =
        digests(before).into_iter().filter(|(uri, digest)| now.get(uri) != Some(digest)).map(|(uri, _)| uri).collect();
    changed.sort_unstable();
    changed
}

/// The skill a `skill://<name>/<rel>` URI names, and `rel`.
fn locate<'a, 'u>(skills: &'a [Skill], uri: &'u str) -> Option<(&'a Skill, &'u str)> {
    let rest = uri.strip_prefix("skill://")?;
    let (name, rel) = rest.split_once('/').unwrap_or((rest, ""));
    Some((skills.iter().find(|s| s.name == name)?, rel))
}

fn mime_of(rel: &str) -> &'static str {
    if rel.ends_with(".md") {
        "text/markdown"
    } else {
        mime::from_path(rel)
    }
}

/// Reads every skill under the sandbox's root: the skills, and each problem (a skipped skill).
fn scan(sandbox: &Sandbox) -> (Vec<Skill>, Vec<String>) {
    let mut skills = Vec::new();
    let mut problems = Vec::new();
    for (name, path, kind) in sandbox.entries(sandbox.root()) {
        let dir = match kind {
            EntryKind::Dir => path,
            EntryKind::Link => match sandbox.follow(&path) {
                Some((target, meta)) if meta.is_dir() => target,
                _ => continue,
            },
            _ => continue,
        };
        if skills.len() >= MAX_SKILLS {
            problems.push(format!("more than {MAX_SKILLS} skills: the rest are not served"));
            break;
        }
        match read_skill(sandbox, &name, &dir) {
            Ok(Some(skill)) => skills.push(skill),
            Ok(None) => {}
            Err(why) => problems.push(format!("{name}: {why}")),
        }
    }
    (skills, problems)
}

/// One skill folder: `None` when it has no SKILL.md (not a skill).
fn read_skill(sandbox: &Sandbox, name: &str, dir: &Path) -> Result<Option<Skill>, String> {
    let manifest = dir.join("SKILL.md");
    if !manifest.exists() {
        return Ok(None);
    }
    let (file, meta) = sandbox.open(&manifest).map_err(|e| format!("SKILL.md: {e}"))?;
    let bytes = sandbox::read_all(file, &meta, MAX_SKILL_BYTES).map_err(|e| format!("SKILL.md: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "SKILL.md: not UTF-8".to_owned())?;
    let frontmatter = parse_frontmatter(&text).map_err(|e| format!("SKILL.md: {e}"))?;
    let declared = frontmatter.get("name").and_then(Value::as_str).unwrap_or_default();
    if declared.is_empty() || frontmatter.get("description").and_then(Value::as_str).unwrap_or_default().is_empty() {
        return Err("SKILL.md: the front matter needs a non-empty name and description".into());
    }
    if !valid_name(declared) {
        return Err(format!(
            "the name {declared:?} breaks the naming rules (1-64 of a-z, 0-9 and '-', no leading, trailing or double '-')"
        ));
    }
    if declared != name {
        return Err(format!("the name {declared:?} differs from the folder name {name:?}"));
    }
    let mut files = Vec::new();
    let mut total = 0u64;
    let mut trouble = None;
    let skill_sandbox = Sandbox::new(dir, false).map_err(|e| e.to_string())?;
    skill_sandbox.walk(skill_sandbox.root(), &mut |rel, path| {
        if files.len() >= MAX_FILES {
            trouble = Some(format!("more than {MAX_FILES} files"));
            return false;
        }
        // Opened through both sandboxes: nothing outside the skill, nor the skills folder.
        let read = skill_sandbox
            .open(path)
            .and_then(|_| sandbox.open(path))
            .and_then(|(file, meta)| sandbox::read_all(file, &meta, MAX_SKILL_BYTES - total));
        match read {
            Ok(bytes) => {
                total += bytes.len() as u64;
                files.push(SkillFile { rel: rel.to_owned(), digest: hex_digest(&bytes), size: bytes.len() as u64 });
                true
            }
            Err(e) => {
                log::warn!("skill {name}: {rel} not served: {e}");
                true
            }
        }
    });
    if let Some(why) = trouble {
        return Err(why);
    }
    if !files.iter().any(|f| f.rel == "SKILL.md") {
        return Err("SKILL.md is not readable inside the skill".into());
    }
    Ok(Some(Skill { name: name.to_owned(), frontmatter, dir: skill_sandbox.root().to_path_buf(), files }))
}

fn hex_digest(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in Sha256::digest(bytes) {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`
fn valid_name(name: &str) -> bool {
    let ok_char = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && !name.contains("--")
        && bytes.first().copied().is_some_and(ok_char)
        && bytes.last().copied().is_some_and(ok_char)
        && bytes.iter().all(|&c| ok_char(c) || c == b'-')
}

/// The front matter of a SKILL.md: `---`, lines of `key: value` (plain, single- or
/// double-quoted), a `metadata:` map one level deep (indented `key: value` lines), `---`.
/// Comments and blank lines are skipped; anything else is an error naming its line.
fn parse_frontmatter(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim_end() == "---" => {}
        _ => return Err("line 1: the file must begin with a --- front matter block".into()),
    }
    let mut map = Map::new();
    let mut open_map: Option<String> = None;
    for (index, line) in lines {
        let number = index + 1;
        if line.trim_end() == "---" {
            if let Some(key) = open_map.take() {
                map.entry(key).or_insert_with(|| json!({}));
            }
            return Ok(map);
        }
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let (key, value) = split_pair(line.trim()).map_err(|e| format!("line {number}: {e}"))?;
        if indented {
            let Some(parent) = &open_map else {
                return Err(format!("line {number}: an indented line outside a map (only metadata: holds one)"));
            };
            let Some(value) = value else {
                return Err(format!("line {number}: maps nest one level only"));
            };
            let entry = map.entry(parent.clone()).or_insert_with(|| json!({}));
            if let Value::Object(inner) = entry {
                inner.insert(key, value.into());
            }
            continue;
        }
        if let Some(key) = open_map.take() {
            map.entry(key).or_insert_with(|| json!({}));
        }
        match value {
            Some(value) => {
                map.insert(key, value.into());
            }
            None if key == "metadata" => open_map = Some(key),
            None => return Err(format!("line {number}: {key} has no value (only metadata: may open a map)")),
        }
    }
    Err("the front matter has no closing ---".into())
}

/// `key: value` -> (key, Some(value)); `key:` -> (key, None).
fn split_pair(line: &str) -> Result<(String, Option<String>), String> {
    let (key, value) = line.split_once(':').ok_or("expected key: value")?;
    let key = unquote(key.trim())?;
    if key.is_empty() {
        return Err("empty key".into());
    }
    let value = value.trim();
    if value.is_empty() {
        return Ok((key, None));
    }
    if value.starts_with(['[', '{', '|', '>', '&', '*', '!']) {
        return Err(format!("unsupported YAML value {value:?} (use a plain or quoted string)"));
    }
    Ok((key, Some(unquote(value)?)))
}

fn unquote(value: &str) -> Result<String, String> {
    let quoted = |q: char| value.len() >= 2 && value.starts_with(q) && value.ends_with(q);
    if quoted('"') {
        let inner = &value[1..value.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(c @ ('"' | '\\' | '/')) => out.push(c),
                other => return Err(format!("unsupported escape \\{}", other.map(String::from).unwrap_or_default())),
            }
        }
        Ok(out)
    } else if quoted('\'') {
        Ok(value[1..value.len() - 1].replace("''", "'"))
    } else if value.starts_with(['"', '\'']) {
        Err(format!("unterminated quoted string {value:?}"))
    } else {
        // A trailing comment after a plain value.
        Ok(value.split(" #").next().unwrap_or(value).trim_end().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_pattern() {
        for good in ["a", "pdf", "a-b", "x1", &"a".repeat(64)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn front_matter_subset() {
        let fm = parse_frontmatter(
            "---\nname: pdf\ndescription: \"Reads: PDFs\"\nlicense: 'MIT'\nmetadata:\n  author: me\n  version: \"1\"\n---\n# x\n",
        )
        .unwrap();
        assert_eq!(
            Value::Object(fm),
            json!({"name":"pdf","description":"Reads: PDFs","license":"MIT","metadata":{"author":"me","version":"1"}})
        );
        let err = parse_frontmatter("---\nname: a\ntags: [a, b]\n---\n").unwrap_err();
        assert!(err.contains("line 3"), "{err}");
        assert!(parse_frontmatter("no front matter").is_err());
        assert!(parse_frontmatter("---\nname: a\n").unwrap_err().contains("closing"));
    }
}
