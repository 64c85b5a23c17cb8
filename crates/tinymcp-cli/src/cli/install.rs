//! `tinymcp install`: one server's entry written into a host's configuration file, merged with
//! what is there (other servers and settings kept, in their order), a backup of the previous
//! file beside it, nothing written when nothing changes, and no write through a file it cannot
//! parse. JSON files through `jsondoc`; Codex's TOML by a small line-based merge of one table.

use crate::cli::hosts::{self, Host};
use crate::cli::jsondoc::Doc;
use std::path::{Path, PathBuf};

/// Whose configuration: the user's (every project), or the current project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own configuration file.
    User,
    /// The project's file, in the current directory.
    Project,
}

/// What the merge did to the server's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// There was no entry of that name.
    Added,
    /// An entry of that name was there, different: it is replaced.
    Replaced,
    /// The same entry was there already: nothing to write.
    Unchanged,
}

/// The operating system whose conventions place a host's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Linux and the other Unixes: `XDG_CONFIG_HOME`, else `~/.config`.
    Linux,
    /// macOS: `~/Library/Application Support`.
    MacOs,
    /// Windows: `%APPDATA%`, else `~\AppData\Roaming`.
    Windows,
}

impl Platform {
    /// The platform this binary was built for.
    pub const CURRENT: Platform = if cfg!(target_os = "macos") {
        Platform::MacOs
    } else if cfg!(windows) {
        Platform::Windows
    } else {
        Platform::Linux
    };
}

/// What places a host's files: the platform, the home and current folders, and the variables
/// that move them (`APPDATA` on Windows, `XDG_CONFIG_HOME` elsewhere, `CODEX_HOME` for Codex).
/// Plain values, so a test gives another platform's layout under a fake home.
pub struct Places {
    pub platform: Platform,
    pub home: PathBuf,
    pub cwd: PathBuf,
    pub appdata: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
}

impl Places {
    /// This machine's, from its environment.
    pub fn here(home: &Path, cwd: &Path) -> Places {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        Places {
            platform: Platform::CURRENT,
            home: home.to_owned(),
            cwd: cwd.to_owned(),
            appdata: var("APPDATA"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            codex_home: var("CODEX_HOME"),
        }
    }

    /// The folder applications keep their settings in, `app`'s inside it.
    fn app_support(&self, app: &str) -> PathBuf {
        match self.platform {
            Platform::MacOs => self.home.join("Library/Application Support").join(app),
            Platform::Windows => self.appdata.clone().unwrap_or_else(|| self.home.join("AppData/Roaming")).join(app),
            Platform::Linux => self.xdg_config().join(app),
        }
    }

    fn xdg_config(&self) -> PathBuf {
        self.xdg_config_home.clone().unwrap_or_else(|| self.home.join(".config"))
    }
}

/// Where the host keeps its configuration, for `scope`, by the conventions of `places`.
pub fn config_path(host: Host, scope: Scope, places: &Places) -> Result<PathBuf, String> {
    let (home, cwd) = (&places.home, &places.cwd);
    let project_only = |what: &str| format!("{host} keeps {what}: use --scope user");
    Ok(match (host, scope) {
        (Host::ClaudeDesktop, Scope::User) => places.app_support("Claude").join("claude_desktop_config.json"),
        (Host::ClaudeDesktop, Scope::Project) => return Err(project_only("one file for the user alone")),
        (Host::ClaudeCode, Scope::User) => home.join(".claude.json"),
        (Host::ClaudeCode, Scope::Project) => cwd.join(".mcp.json"),
        (Host::VsCode, Scope::User) => places.app_support("Code").join("User/mcp.json"),
        (Host::VsCode, Scope::Project) => cwd.join(".vscode/mcp.json"),
        (Host::Cursor, Scope::User) => home.join(".cursor/mcp.json"),
        (Host::Cursor, Scope::Project) => cwd.join(".cursor/mcp.json"),
        (Host::Windsurf, Scope::User) => home.join(".codeium/windsurf/mcp_config.json"),
        (Host::Windsurf, Scope::Project) => return Err(project_only("its servers in the user's file only")),
        // Zed keeps ~/.config/zed on macOS too (not Application Support), and reads
        // XDG_CONFIG_HOME on Linux only.
        (Host::Zed, Scope::User) => match places.platform {
            Platform::Windows => places.app_support("Zed").join("settings.json"),
            Platform::MacOs => home.join(".config/zed/settings.json"),
            Platform::Linux => places.xdg_config().join("zed/settings.json"),
        },
        (Host::Zed, Scope::Project) => cwd.join(".zed/settings.json"),
        (Host::Codex, Scope::User) => {
            places.codex_home.clone().unwrap_or_else(|| home.join(".codex")).join("config.toml")
        }
        (Host::Codex, Scope::Project) => cwd.join(".codex/config.toml"),
        (Host::Gemini, Scope::User) => home.join(".gemini/settings.json"),
        (Host::Gemini, Scope::Project) => cwd.join(".gemini/settings.json"),
    })
}

/// The file's new text with `entry` under `name`, and what changed. `existing` is the file's
/// text (`None`: no file); an empty file counts as an empty configuration.
pub fn merge(host: Host, existing: Option<&str>, name: &str, entry: &Doc) -> Result<(String, Change), String> {
    let existing = existing.filter(|text| !text.trim().is_empty());
    if host == Host::Codex {
        return merge_toml(existing.unwrap_or(""), name, entry);
    }
    let mut doc: Doc = match existing {
        None => Doc::Object(Vec::new()),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| format!("cannot read it as JSON ({e}; this merge reads no comments or trailing commas)"))?,
    };
    if !matches!(doc, Doc::Object(_)) {
        return Err("expected a JSON object at the top".into());
    }
    let key = host.servers_key();
    let servers = doc.object_at(key).ok_or_else(|| format!("expected \"{key}\" to be an object"))?;
    let change = match servers.get(name) {
        None => Change::Added,
        Some(old) if old == entry => Change::Unchanged,
        Some(_) => Change::Replaced,
    };
    servers.set(name, entry.clone());
    Ok((doc.pretty() + "\n", change))
}

/// Codex's `config.toml` with the table `[mcp_servers.NAME]` (and its sub-tables) replaced by
/// `entry`'s, where it stood, or added at the end. The file is checked line by line first: a
/// line that is neither a table header, a `key = value` (values may span lines in brackets or
/// multi-line strings), a comment nor blank stops the merge.
fn merge_toml(text: &str, name: &str, entry: &Doc) -> Result<(String, Change), String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut table: Vec<String> = Vec::new();
    let mut ours: Option<(usize, usize)> = None;
    let mut open = Continuation::None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if open != Continuation::None {
            open = open.after(line);
            i += 1;
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        if trimmed.starts_with('[') {
            let path = parse_header(trimmed).ok_or_else(|| format!("line {}: cannot read this table header", i + 1))?;
            let is_ours = path.len() >= 2 && path[0] == "mcp_servers" && path[1] == name;
            if is_ours && ours.is_none() {
                ours = Some((i, lines.len()));
            } else if !is_ours {
                if let Some((start, end)) = ours {
                    if end == lines.len() {
                        ours = Some((start, i));
                    }
                }
            }
            table = path;
            i += 1;
            continue;
        }
        let (key, value) = trimmed
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected `key = value`, a table or a comment", i + 1))?;
        let key = parse_key_path(key.trim()).ok_or_else(|| format!("line {}: cannot read the key", i + 1))?;
        let full: Vec<&str> = table.iter().map(String::as_str).chain(key.iter().map(String::as_str)).collect();
        let names_ours = full.len() >= 2 && full[0] == "mcp_servers" && full[1] == name;
        let inside_ours = matches!(ours, Some((_, end)) if end == lines.len());
        if names_ours && !inside_ours {
            return Err(format!(
                "line {}: mcp_servers.{name} is set here with a dotted key or an inline table, which this merge \
                 does not edit: write it as a [mcp_servers.{name}] table, or edit the file by hand",
                i + 1
            ));
        }
        open = Continuation::None.after(value);
        i += 1;
    }
    if open != Continuation::None {
        return Err("the file ends inside a value (an unclosed bracket or multi-line string)".into());
    }
    let new_table = hosts::toml_table(name, entry);
    let mut out = String::new();
    let change = match ours {
        Some((start, end)) => {
            // Trailing blank lines and comments before the next table stay with that table.
            let mut end = end;
            while end > start + 1 && matches!(lines[end - 1].trim(), t if t.is_empty() || t.starts_with('#')) {
                end -= 1;
            }
            let old = lines[start..end].join("\n") + "\n";
            let change = if old == new_table { Change::Unchanged } else { Change::Replaced };
            for line in &lines[..start] {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(&new_table);
            for line in &lines[end..] {
                out.push_str(line);
                out.push('\n');
            }
            change
        }
        None => {
            out.push_str(text);
            if !text.is_empty() {
                if !text.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
            out.push_str(&new_table);
            Change::Added
        }
    };
    Ok((out, change))
}

/// Whether a TOML value goes on past the end of its line, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Continuation {
    /// The value ended on this line.
    None,
    /// Inside this many open brackets or braces.
    Brackets(usize),
    /// Inside a `"""` string.
    Basic,
    /// Inside a `'''` string.
    Literal,
}

impl Continuation {
    /// The state after reading `text` from this state. Bytes, not characters: every delimiter
    /// is ASCII, and UTF-8 never hides one inside a character.
    fn after(self, text: &str) -> Continuation {
        let bytes = text.as_bytes();
        let mut state = self;
        let mut depth = match self {
            Continuation::Brackets(n) => n,
            _ => 0,
        };
        let settle = |depth: usize| if depth > 0 { Continuation::Brackets(depth) } else { Continuation::None };
        let mut i = 0;
        while i < bytes.len() {
            let rest = &bytes[i..];
            match state {
                Continuation::Basic if rest.starts_with(b"\\") => i += 1,
                Continuation::Basic if rest.starts_with(b"\"\"\"") => {
                    state = settle(depth);
                    i += 2;
                }
                Continuation::Literal if rest.starts_with(b"'''") => {
                    state = settle(depth);
                    i += 2;
                }
                Continuation::Basic | Continuation::Literal => {}
                _ if rest.starts_with(b"#") => break,
                _ if rest.starts_with(b"\"\"\"") => {
                    state = Continuation::Basic;
                    i += 2;
                }
                _ if rest.starts_with(b"'''") => {
                    state = Continuation::Literal;
                    i += 2;
                }
                _ => {
                    if let Some(len) = quoted_len(rest) {
                        i += len - 1;
                    } else if rest[0] == b'[' || rest[0] == b'{' {
                        depth += 1;
                    } else if rest[0] == b']' || rest[0] == b'}' {
                        depth = depth.saturating_sub(1);
                    }
                    state = settle(depth);
                }
            }
            i += 1;
        }
        state
    }
}

/// The length of a one-line `"…"` or `'…'` string at the start of `bytes`, quotes included.
fn quoted_len(bytes: &[u8]) -> Option<usize> {
    let quote = *bytes.first().filter(|b| **b == b'"' || **b == b'\'')?;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        if quote == b'"' && escaped {
            escaped = false;
        } else if quote == b'"' && b == b'\\' {
            escaped = true;
        } else if b == quote {
            return Some(i + 1);
        }
    }
    None
}

/// The key path of a table header `[a.b]` or `[[a.b]]`.
fn parse_header(line: &str) -> Option<Vec<String>> {
    let line = match line.find(" #").or_else(|| line.find("\t#")) {
        Some(at) if !line[..at].contains('"') && !line[..at].contains('\'') => &line[..at],
        _ => line,
    };
    let inner = line.trim().strip_prefix("[[").and_then(|l| l.strip_suffix("]]"));
    let inner = inner.or_else(|| line.trim().strip_prefix('[').and_then(|l| l.strip_suffix(']')))?;
    parse_key_path(inner.trim())
}

/// A dotted key (`a."b.c".d`) as its parts.
fn parse_key_path(text: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut rest = text.trim();
    loop {
        if let Some(len) = quoted_len(rest.as_bytes()) {
            let raw = &rest[..len];
            let part = if raw.starts_with('"') {
                serde_json::from_str::<String>(raw).ok()?
            } else {
                raw[1..len - 1].to_owned()
            };
            parts.push(part);
            rest = rest[len..].trim_start();
        } else {
            let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).unwrap_or(rest.len());
            if len == 0 {
                return None;
            }
            parts.push(rest[..len].to_owned());
            rest = rest[len..].trim_start();
        }
        if rest.is_empty() {
            return Some(parts);
        }
        rest = rest.strip_prefix('.')?.trim_start();
    }
}

/// The flags whose value is a path: `config` makes them absolute, a project's file relative.
pub const PATH_FLAGS: [&str; 5] = ["--root", "--write-root", "--manifest", "--state-key-file", "--skills"];

/// What `install` says of the command `tinymcp` written into a project's file: found on PATH
/// when the host starts it, and whether this PATH has it.
pub fn on_path_note(exe: &str) -> String {
    let on_path = std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths)
            .any(|folder| folder.join(format!("tinymcp{}", std::env::consts::EXE_SUFFIX)).is_file())
    });
    if on_path {
        "the command is `tinymcp`, found on PATH when the host starts it".to_owned()
    } else {
        format!(
            "the command is `tinymcp`, found on PATH when the host starts it, but this PATH has none: put this \
             binary ({exe}) in a folder on PATH"
        )
    }
}

/// The arguments to write into a project's file, which is committed and read on other
/// machines, and lines saying what was written. The command (the caller writes it) is
/// `tinymcp` from PATH or a launcher (`npx`, `uvx`); a path inside `project` becomes relative to it: through
/// `${workspaceFolder}` for VS Code and Cursor, which fill it in, and as it is for the others,
/// which start the server in the project folder. A path outside the project stays absolute,
/// said so. `args` holds absolute paths, and `project` is the canonical project folder.
pub fn portable(host: Host, args: &[String], project: &Path) -> (Vec<String>, Vec<String>) {
    let mut said = Vec::new();
    let mut out = Vec::with_capacity(args.len());
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        out.push(arg.clone());
        let Some(value) = args.next() else { break };
        if !PATH_FLAGS.contains(&arg.as_str()) {
            out.push(value.clone());
            continue;
        }
        let written = match Path::new(value).strip_prefix(project) {
            Ok(inside) => {
                let inside = inside.to_string_lossy().replace('\\', "/");
                match (host, inside.is_empty()) {
                    (Host::VsCode | Host::Cursor, true) => "${workspaceFolder}".to_owned(),
                    (Host::VsCode | Host::Cursor, false) => format!("${{workspaceFolder}}/{inside}"),
                    (_, true) => ".".to_owned(),
                    (_, false) => inside,
                }
            }
            Err(_) => {
                said.push(format!("{arg} {value} is outside the project: written as it is, a path of this machine"));
                value.clone()
            }
        };
        if written != *value {
            said.push(format!("{arg} {written}: relative to the project folder"));
        }
        out.push(written);
    }
    (out, said)
}

/// Warnings for a `--root` or `--write-root` that serves a whole tree: the filesystem root, or
/// the home folder (installing from `~` with no `--root` serves it).
pub fn wide_roots(args: &[String], home: Option<&Path>) -> Vec<String> {
    let home = home.and_then(|home| crate::platform::canonicalize(home).ok());
    let mut warnings = Vec::new();
    for pair in args.windows(2) {
        if pair[0] != "--root" && pair[0] != "--write-root" {
            continue;
        }
        let path = Path::new(&pair[1]);
        let whole = if path.parent().is_none() {
            "the whole filesystem"
        } else if home.as_deref() == Some(path) {
            "your whole home folder"
        } else {
            continue;
        };
        warnings.push(format!(
            "warning: {} {} serves {whole} to the host; give --root FOLDER (run from a project folder) to serve less",
            pair[0], pair[1]
        ));
    }
    warnings
}

/// What `--dry-run` shows: a unified diff of `old` and `new`, the stretch between their common
/// first and last lines (a merge changes one place) with three lines of context around it.
/// Empty when nothing changes.
pub fn diff(path: &Path, old: &str, new: &str) -> String {
    const CONTEXT: usize = 3;
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if start == a.len() && start == b.len() {
        return String::new();
    }
    let end = a[start..].iter().rev().zip(b[start..].iter().rev()).take_while(|(x, y)| x == y).count();
    let from = start.saturating_sub(CONTEXT);
    let (a_to, b_to) = ((a.len() - end + CONTEXT).min(a.len()), (b.len() - end + CONTEXT).min(b.len()));
    let shown = path.display();
    let mut out =
        format!("--- {shown}\n+++ {shown}\n@@ -{},{} +{},{} @@\n", from + 1, a_to - from, from + 1, b_to - from);
    let mut put = |mark: char, lines: &[&str]| {
        for line in lines {
            out.push(mark);
            out.push_str(line);
            out.push('\n');
        }
    };
    put(' ', &a[from..start]);
    put('-', &a[start..a.len() - end]);
    put('+', &b[start..b.len() - end]);
    put(' ', &a[a.len() - end..a_to]);
    out
}

/// What `install` did, for the message the user reads.
pub struct Outcome {
    /// The file changed (or that would be).
    pub path: PathBuf,
    /// What happened to the entry.
    pub change: Change,
    /// The previous file's copy, when one was kept.
    pub backup: Option<PathBuf>,
    /// The file's previous text (empty when there was none).
    pub old: String,
    /// The file's new text.
    pub text: String,
}

/// A UTF-8 byte-order mark, which some Windows editors put at the start of a file. It is read
/// past, and written back when the file had it, so the file keeps the form its editor chose.
const BOM: char = '\u{feff}';

/// Writes `entry` under `name` into `path` for `host`, unless `dry_run`. While a lock file
/// beside it is held (two installs at once would each write back what it read, and one entry
/// would be lost), the file is read, merged, its previous text kept as `FILE.bak` and the new
/// one put in place, both by `write_fresh`. A link, a read-only file or a locked one is
/// refused, naming it.
pub fn install(host: Host, path: &Path, name: &str, entry: &Doc, dry_run: bool) -> Result<Outcome, String> {
    let shown = path.display();
    let _lock = if dry_run {
        None
    } else {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        Some(Lock::take(path)?)
    };
    let existing = read_config(path)?;
    let (bom, old) = match &existing {
        Some((text, _)) => text.strip_prefix(BOM).map_or((false, text.as_str()), |rest| (true, rest)),
        None => (false, ""),
    };
    let (merged, change) = merge(host, existing.as_ref().map(|_| old), name, entry)
        .map_err(|why| format!("{shown}: {why}; nothing written"))?;
    let text = if bom { format!("{BOM}{merged}") } else { merged };
    let old = existing.as_ref().map(|(text, _)| text.clone()).unwrap_or_default();
    let mut outcome = Outcome { path: path.to_owned(), change, backup: None, old, text };
    if dry_run || change == Change::Unchanged {
        return Ok(outcome);
    }
    // The configuration may hold secrets of other servers: the backup and the new file keep
    // the old file's permissions.
    let permissions = existing.map(|(_, meta)| meta.permissions());
    if let Some(permissions) = &permissions {
        let backup = PathBuf::from(format!("{}.bak", path.display()));
        write_fresh(&backup, outcome.old.as_bytes(), Some(permissions))?;
        outcome.backup = Some(backup);
    }
    write_fresh(path, outcome.text.as_bytes(), permissions.as_ref())?;
    Ok(outcome)
}

/// The configuration's text and metadata (`None`: no file). A link is refused (writing would
/// either replace it by a plain file or change a file elsewhere), and so is a read-only file,
/// which its owner made so on purpose.
fn read_config(path: &Path) -> Result<Option<(String, std::fs::Metadata)>, String> {
    let shown = path.display();
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{shown}: {e}; nothing written")),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::canonicalize(path).map_or_else(|_| "a missing file".into(), |t| t.display().to_string());
        return Err(format!(
            "{shown} is a symbolic link to {target}; nothing written (install neither writes through a link nor \
             replaces it): to change the file it points to, run again with --config-file {target}"
        ));
    }
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file; nothing written"));
    }
    if meta.permissions().readonly() {
        return Err(format!(
            "{shown} is read-only; nothing written: make it writable (chmod u+w) if it should change, or add the \
             entry by hand"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}; nothing written"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: expected UTF-8 text; nothing written"))?;
    Ok(Some((text, meta)))
}

/// The one way `install` writes a file: `bytes` into a temporary file created fresh beside
/// `path` (`create_new`: never an existing file, never through a link), with `permissions`
/// set before anything is written, then renamed over `path`, so a host never reads half a
/// file and a link at `path` is refused rather than replaced. Called with the lock held, so
/// the temporary name is this process's alone.
fn write_fresh(path: &Path, bytes: &[u8], permissions: Option<&std::fs::Permissions>) -> Result<(), String> {
    use std::io::Write;
    let shown = path.display();
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err(format!(
            "{shown} is a symbolic link; nothing written (install never writes through a link): remove it and run again"
        ));
    }
    let temporary = PathBuf::from(format!("{}.tinymcp.tmp", path.display()));
    // Left by an install that was killed; removing a link removes the link, not its target.
    let _ = std::fs::remove_file(&temporary);
    let written = std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary).and_then(|mut file| {
        if let Some(permissions) = permissions {
            file.set_permissions(permissions.clone())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("{shown}: {e}; nothing written")
    })
}

/// `FILE.tinymcp.lock`, created fresh while one install reads and writes FILE; removed when
/// dropped. Another install waits for it (bounded), then says what to do.
struct Lock(PathBuf);

impl Lock {
    /// How long an install waits for another to finish.
    const WAIT: std::time::Duration = std::time::Duration::from_secs(10);

    fn take(path: &Path) -> Result<Lock, String> {
        let lock = PathBuf::from(format!("{}.tinymcp.lock", path.display()));
        let since = std::time::Instant::now();
        loop {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&lock) {
                Ok(_) => return Ok(Lock(lock)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && since.elapsed() < Self::WAIT => {
                    // Polling is the point here: an install holds the lock for milliseconds.
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(format!(
                        "{} exists: another `tinymcp install` is changing {}; nothing written (if none is running, \
                         remove {} and run again)",
                        lock.display(),
                        path.display(),
                        lock.display()
                    ))
                }
                Err(e) => return Err(format!("{}: {e}; nothing written", lock.display())),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Doc {
        Doc::object([("command", Doc::String("/bin/t".into())), ("args", Doc::strings(&["-x".to_owned()]))])
    }

    #[test]
    fn json_merge_keeps_other_servers_and_settings_in_order() {
        let text = r#"{"theme": "dark", "mcpServers": {"other": {"command": "o"}}, "z": 1}"#;
        let (out, change) = merge(Host::Cursor, Some(text), "t", &entry()).unwrap();
        assert_eq!(change, Change::Added);
        let doc: Doc = serde_json::from_str(&out).unwrap();
        assert_eq!(
            doc.compact(),
            r#"{"theme":"dark","mcpServers":{"other":{"command":"o"},"t":{"command":"/bin/t","args":["-x"]}},"z":1}"#
        );
        let (again, change) = merge(Host::Cursor, Some(&out), "t", &entry()).unwrap();
        assert_eq!((again, change), (out, Change::Unchanged));
    }

    #[test]
    fn json_merge_refuses_what_it_cannot_read() {
        assert!(merge(Host::Zed, Some("{\n // a comment\n}"), "t", &entry()).is_err());
        assert!(merge(Host::Cursor, Some("[1]"), "t", &entry()).is_err());
        assert!(merge(Host::Cursor, Some(r#"{"mcpServers": []}"#), "t", &entry()).is_err());
    }

    #[test]
    fn toml_merge_replaces_the_table_where_it_stands() {
        let text = "model = \"o3\"\n\n[mcp_servers.t]\ncommand = \"old\"\n\n[mcp_servers.t.env]\nA = \"1\"\n\n# next\n[mcp_servers.other]\ncommand = \"o\"\nargs = [\n  \"a]\",\n]\n";
        let (out, change) = merge(Host::Codex, Some(text), "t", &entry()).unwrap();
        assert_eq!(change, Change::Replaced);
        assert_eq!(
            out,
            "model = \"o3\"\n\n[mcp_servers.t]\ncommand = \"/bin/t\"\nargs = [\"-x\"]\n\n# next\n[mcp_servers.other]\ncommand = \"o\"\nargs = [\n  \"a]\",\n]\n"
        );
        let (again, change) = merge(Host::Codex, Some(&out), "t", &entry()).unwrap();
        assert_eq!((again, change), (out, Change::Unchanged));
    }

    #[test]
    fn toml_merge_appends_and_refuses_forms_it_does_not_edit() {
        let (out, change) = merge(Host::Codex, Some("a = 1"), "t", &entry()).unwrap();
        assert_eq!(
            (out.as_str(), change),
            ("a = 1\n\n[mcp_servers.t]\ncommand = \"/bin/t\"\nargs = [\"-x\"]\n", Change::Added)
        );
        assert!(merge(Host::Codex, Some("mcp_servers.t.command = \"x\"\n"), "t", &entry()).is_err());
        assert!(merge(Host::Codex, Some("[mcp_servers]\nt = { command = \"x\" }\n"), "t", &entry()).is_err());
        assert!(merge(Host::Codex, Some("this is not toml\n"), "t", &entry()).is_err());
        assert!(merge(Host::Codex, Some("a = [1,\n"), "t", &entry()).is_err());
        assert!(merge(Host::Codex, Some("a = \"\"\"\n[x]\n\"\"\"\n"), "t", &entry()).is_ok());
    }

    /// Installs of different names into one file at once: every entry is there at the end.
    #[test]
    fn concurrent_installs_lose_no_entry() {
        let folder = std::env::temp_dir().join(format!("tinymcp-install-race-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("mcp.json");
        let names: Vec<String> = (0..8).map(|i| format!("s{i}")).collect();
        std::thread::scope(|scope| {
            for name in &names {
                let path = &path;
                scope.spawn(move || install(Host::Cursor, path, name, &entry(), false).unwrap());
            }
        });
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let found: Vec<&String> = doc["mcpServers"].as_object().unwrap().keys().collect();
        assert_eq!(found.len(), names.len(), "{found:?}");
        let _ = std::fs::remove_dir_all(&folder);
    }

    /// The user's file of each host on macOS and Windows, under a fake home, as each host's
    /// documentation places it; then written there by `install`, folders created.
    #[test]
    fn macos_and_windows_layouts_under_a_fake_home() {
        let home = std::env::temp_dir().join(format!("tinymcp-install-layouts-{}", std::process::id()));
        let places = |platform, appdata: Option<PathBuf>| Places {
            platform,
            home: home.clone(),
            cwd: home.join("project"),
            appdata,
            xdg_config_home: Some(PathBuf::from("/elsewhere")), // read on Linux alone
            codex_home: None,
        };
        let roaming = home.join("AppData/Roaming");
        let layouts = [
            (
                Platform::MacOs,
                None,
                [
                    "Library/Application Support/Claude/claude_desktop_config.json",
                    ".claude.json",
                    "Library/Application Support/Code/User/mcp.json",
                    ".cursor/mcp.json",
                    ".codeium/windsurf/mcp_config.json",
                    ".config/zed/settings.json",
                    ".codex/config.toml",
                    ".gemini/settings.json",
                ],
            ),
            (
                Platform::Windows,
                Some(roaming.clone()),
                [
                    "AppData/Roaming/Claude/claude_desktop_config.json",
                    ".claude.json",
                    "AppData/Roaming/Code/User/mcp.json",
                    ".cursor/mcp.json",
                    ".codeium/windsurf/mcp_config.json",
                    "AppData/Roaming/Zed/settings.json",
                    ".codex/config.toml",
                    ".gemini/settings.json",
                ],
            ),
            // Without APPDATA, Windows' default place for it.
            (
                Platform::Windows,
                None,
                [
                    "AppData/Roaming/Claude/claude_desktop_config.json",
                    ".claude.json",
                    "AppData/Roaming/Code/User/mcp.json",
                    ".cursor/mcp.json",
                    ".codeium/windsurf/mcp_config.json",
                    "AppData/Roaming/Zed/settings.json",
                    ".codex/config.toml",
                    ".gemini/settings.json",
                ],
            ),
        ];
        for (platform, appdata, files) in layouts {
            let places = places(platform, appdata);
            for (host, file) in Host::ALL.into_iter().zip(files) {
                let path = config_path(host, Scope::User, &places).unwrap();
                assert_eq!(path, home.join(file), "{platform:?} {host}");
                install(host, &path, "t", &entry(), false).unwrap();
                assert!(std::fs::read_to_string(&path).unwrap().contains("/bin/t"), "{platform:?} {host}");
            }
        }
        let linux = places(Platform::Linux, None);
        assert_eq!(
            config_path(Host::ClaudeDesktop, Scope::User, &linux).unwrap(),
            Path::new("/elsewhere/Claude/claude_desktop_config.json")
        );
        assert_eq!(config_path(Host::Zed, Scope::Project, &linux).unwrap(), home.join("project/.zed/settings.json"));
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn key_paths_read_quotes_and_dots() {
        assert_eq!(parse_key_path("mcp_servers.\"my.server\" . x").unwrap(), ["mcp_servers", "my.server", "x"]);
        assert_eq!(parse_header("[[a.b]]").unwrap(), ["a", "b"]);
        assert!(parse_key_path("a..b").is_none());
    }
}
