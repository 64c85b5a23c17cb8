//! The sandbox of served folders: turns a path a client spelled into a canonical path that is
//! provably under a root, or a refusal that says why; opens only regular files, and checks that
//! what it opened is what it checked; walks a root's files; and spells files as `file://` URIs.
//! Pure std (no libc, no `unsafe`); knows nothing of MCP.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::ignore::{ignored, IgnoreFile, IGNORE_FILES};
use super::winpath;
use crate::platform;
use tinymcp::percent;

/// How deep a walk descends before it stops (a guard against pathological trees).
const MAX_DEPTH: usize = 64;
/// The largest ignore file read (a larger one is not honoured, as if absent).
const MAX_IGNORE_BYTES: u64 = 1 << 20;

/// One served folder.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
    include_hidden: bool,
    ignore_files: bool,
}

impl Sandbox {
    /// A sandbox at `root`, canonicalized once here. Fails unless `root` is a directory.
    pub fn new(root: &Path, include_hidden: bool) -> io::Result<Sandbox> {
        let root = fs::canonicalize(root).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", root.display())))?;
        if !root.is_dir() {
            return Err(io::Error::other(format!("{} is not a directory", root.display())));
        }
        Ok(Sandbox { root, include_hidden, ignore_files: false })
    }

    /// The same sandbox, leaving out of its listings and walks what the `.gitignore` and
    /// `.ignore` files under the root ignore (a path named explicitly still resolves).
    pub fn with_ignore_files(mut self, honoured: bool) -> Sandbox {
        self.ignore_files = honoured;
        self
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `spelled`, a plain path relative to the root as a tool or a file names it
    /// (never decoded: `a%20b` is that name), to a canonical path that exists and stays under
    /// the root. Symbolic links are followed, then checked.
    pub fn resolve(&self, spelled: &str) -> Result<PathBuf, String> {
        let parts = components(spelled, self.include_hidden)?;
        self.resolve_parts(&parts)
    }

    /// Resolves the rest of a `file://` URI after the root's, percent-decoded exactly once,
    /// like [`Sandbox::resolve`].
    pub fn resolve_uri_path(&self, encoded: &str) -> Result<PathBuf, String> {
        let parts = uri_components(encoded, self.include_hidden)?;
        self.resolve_parts(&parts)
    }

    /// Resolves components that [`components`] already checked.
    pub fn resolve_parts(&self, parts: &[String]) -> Result<PathBuf, String> {
        let joined: PathBuf = parts.iter().fold(self.root.clone(), |p, c| p.join(c));
        self.canonical_inside(&joined)
    }

    /// Canonicalizes `path` and checks that the result is under the root and shown.
    fn canonical_inside(&self, path: &Path) -> Result<PathBuf, String> {
        let canonical = match fs::canonicalize(path) {
            Ok(p) => p,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err("no such file or directory".into()),
            Err(e) => return Err(format!("cannot resolve: {e}")),
        };
        self.inside(canonical)
    }

    /// Checks that a real (canonical) path is under the root and shown.
    pub(crate) fn inside(&self, canonical: PathBuf) -> Result<PathBuf, String> {
        let Some(relative) = self.relative(&canonical) else {
            return Err("a symbolic link leads outside the served folder".into());
        };
        if !self.include_hidden && relative.split('/').any(|c| c.starts_with('.')) {
            return Err("a symbolic link leads to a hidden file or folder (serve them with --include-hidden)".into());
        }
        Ok(canonical)
    }

    /// Opens the regular file at `path` (under the root, as [`Sandbox::resolve`] or a walk gave
    /// it) for reading, then decides about the file actually opened: its real path, as the
    /// kernel names the descriptor, must be under the root and shown. A file or folder on the
    /// way swapped for a symbolic link after any earlier check is refused, not followed outside.
    pub fn open(&self, path: &Path) -> Result<(File, Metadata), String> {
        let (file, meta) = open_regular(path)?;
        self.inside(real_path(&file, &meta, path)?)?;
        Ok((file, meta))
    }

    /// Opens the folder at `path` and checks, like [`Sandbox::open`], that the folder opened is
    /// under the root; the returned path lists it through the open descriptor (on Linux), so a
    /// swap after the check changes nothing.
    pub(crate) fn open_dir(&self, path: &Path) -> Result<(File, PathBuf), String> {
        let file = platform::read_options().open(path).map_err(|e| format!("cannot open: {e}"))?;
        let meta = file.metadata().map_err(|e| format!("cannot inspect: {e}"))?;
        if !meta.is_dir() {
            return Err("is not a folder".into());
        }
        self.inside(real_path(&file, &meta, path)?)?;
        let listed = via_descriptor(&file).unwrap_or_else(|| path.to_path_buf());
        Ok((file, listed))
    }

    /// The path of `canonical` relative to the root (`""` for the root itself), or `None` when
    /// it is outside or not UTF-8.
    pub fn relative(&self, canonical: &Path) -> Option<String> {
        let rest = canonical.strip_prefix(&self.root).ok()?;
        // A walk's paths are plain already (`a/b`): taken as they are, without splitting.
        // (Not on Windows, where `\\` separates too.)
        let plain =
            rest.to_str().filter(|s| !cfg!(windows) && s.split('/').all(|part| !part.is_empty() && part != "."));
        if let Some(plain) = plain {
            return Some(plain.to_owned());
        }
        let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
        Some(parts?.join("/"))
    }

    /// Whether a directory entry is shown: hidden names only with `--include-hidden`; on macOS
    /// the Finder's files never ([`shown`]).
    pub fn shows(&self, name: &str) -> bool {
        shown(name, self.include_hidden, cfg!(target_os = "macos"))
    }

    /// Visits every regular file under `dir` (canonical, inside the root) in a stable order,
    /// depth first, with its path relative to the root. Symbolic links to files inside the root
    /// are followed; links to folders are not (no loops). `visit` returns `false` to stop. No
    /// file's metadata is read: [`Sandbox::walk_sized`] reads it.
    pub fn walk(&self, dir: &Path, visit: &mut dyn FnMut(&str, &Path) -> bool) {
        self.walk_at(dir, 0, false, &mut |_| true, &mut |rel, path, _| visit(rel, path));
    }

    /// [`Sandbox::walk`], with each file's metadata (one `fstatat` per file); a file whose
    /// metadata cannot be read is left out.
    pub fn walk_sized(&self, dir: &Path, visit: &mut dyn FnMut(&str, &Path, &Metadata) -> bool) {
        self.walk_at(dir, 0, true, &mut |_| true, &mut |rel, path, meta| {
            meta.is_none_or(|meta| visit(rel, path, meta))
        });
    }

    /// [`Sandbox::walk`], telling `folder` of each folder before its files (`dir` first);
    /// `folder` too returns `false` to stop.
    pub fn walk_folders(
        &self,
        dir: &Path,
        folder: &mut dyn FnMut(&Path) -> bool,
        visit: &mut dyn FnMut(&str, &Path) -> bool,
    ) {
        self.walk_at(dir, 0, false, folder, &mut |rel, path, _| visit(rel, path));
    }

    fn walk_at(
        &self,
        dir: &Path,
        depth: usize,
        sized: bool,
        folder: &mut dyn FnMut(&Path) -> bool,
        visit: &mut dyn FnMut(&str, &Path, Option<&Metadata>) -> bool,
    ) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        if !folder(dir) {
            return false;
        }
        let entries = if sized { self.entries_sized(dir) } else { self.entries(dir) };
        for (_, path, kind) in entries {
            let keep_going = match kind {
                EntryKind::Dir => self.walk_at(&path, depth + 1, sized, folder, visit),
                EntryKind::File(meta) => match self.relative(&path) {
                    Some(rel) => visit(&rel, &path, meta.as_ref()),
                    None => true,
                },
                EntryKind::Link => match (self.follow(&path), self.relative(&path)) {
                    (Some((_, meta)), Some(rel)) if meta.is_file() => visit(&rel, &path, Some(&meta)),
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

    /// The shown entries of a directory, sorted by name, files without their metadata.
    /// The folder is read through its open descriptor, checked to be `dir`, so a folder swapped
    /// for a link to outside is never listed.
    pub fn entries(&self, dir: &Path) -> Vec<(String, PathBuf, EntryKind)> {
        self.read_entries(dir, false)
    }

    /// [`Sandbox::entries`], with each file's metadata (an `fstatat` on the folder's descriptor).
    pub fn entries_sized(&self, dir: &Path) -> Vec<(String, PathBuf, EntryKind)> {
        self.read_entries(dir, true)
    }

    fn read_entries(&self, dir: &Path, sized: bool) -> Vec<(String, PathBuf, EntryKind)> {
        let Ok((_held, listed)) = self.open_dir(dir) else { return Vec::new() };
        let Ok(read) = fs::read_dir(&listed) else { return Vec::new() };
        let (rules, base) = match (self.ignore_files, self.relative(dir)) {
            (true, Some(base)) => (self.ignore_files_down_to(&base), base),
            _ => (Vec::new(), String::new()),
        };
        let mut entries: Vec<(String, PathBuf, EntryKind)> = read
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                if !self.shows(&name) {
                    return None;
                }
                // The type the folder records for the entry (links not followed): no system
                // call per entry, unless the file system records none (then an fstatat on the
                // listed folder's descriptor).
                let file_type = e.file_type().ok()?;
                let path = dir.join(&name);
                let kind = if file_type.is_dir() {
                    EntryKind::Dir
                } else if file_type.is_file() {
                    // Read while the folder is open; the entry (and with it the folder's
                    // descriptor) is not kept, so a deep walk holds no descriptor per level.
                    EntryKind::File(if sized { e.metadata().ok() } else { None })
                } else if file_type.is_symlink() {
                    EntryKind::Link
                } else {
                    EntryKind::Other
                };
                if !rules.is_empty() {
                    let rel = if base.is_empty() { name.clone() } else { format!("{base}/{name}") };
                    if ignored(&rules, &rel, matches!(kind, EntryKind::Dir)) {
                        return None;
                    }
                }
                Some((name, path, kind))
            })
            .collect();
        // Names in a folder are unique, so the unstable sort gives the same order, in less code.
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        entries
    }

    /// The ignore files of the root and of every folder down to `rel` (relative to the root),
    /// shallowest first.
    fn ignore_files_down_to(&self, rel: &str) -> Vec<IgnoreFile> {
        let mut folder = self.root.clone();
        let mut base = String::new();
        let mut files = Vec::new();
        let parts = rel.split('/').filter(|p| !p.is_empty());
        for part in std::iter::once("").chain(parts) {
            if !part.is_empty() {
                folder.push(part);
                if !base.is_empty() {
                    base.push('/');
                }
                base.push_str(part);
            }
            for name in IGNORE_FILES {
                if let Some(file) = self.read_ignore_file(&folder.join(name), &base) {
                    files.push(file);
                }
            }
        }
        files
    }

    /// Reads one ignore file, opened like any served file (a regular file whose descriptor is
    /// under the root; hidden, as ignore files are, but never outside).
    fn read_ignore_file(&self, path: &Path, base: &str) -> Option<IgnoreFile> {
        let (file, meta) = open_regular(path).ok()?;
        self.relative(&real_path(&file, &meta, path).ok()?)?;
        let bytes = read_all(file, &meta, MAX_IGNORE_BYTES).ok()?;
        let parsed = IgnoreFile::parse(base, &String::from_utf8_lossy(&bytes));
        (!parsed.is_empty()).then_some(parsed)
    }

    /// Follows a symbolic link when its target stays inside the root, is shown, and is a
    /// folder or a regular file (never a FIFO, socket or device). Never on Windows, where a link
    /// or junction on the way is refused at open ([`real_path`]): a walk leaves links out there.
    pub fn follow(&self, link: &Path) -> Option<(PathBuf, Metadata)> {
        if cfg!(windows) {
            return None;
        }
        let target = fs::canonicalize(link).ok()?;
        let rel = self.relative(&target)?;
        if !self.include_hidden && rel.split('/').any(|c| c.starts_with('.')) {
            return None;
        }
        let meta = fs::metadata(&target).ok()?;
        (meta.is_dir() || meta.is_file()).then_some((target, meta))
    }
}

/// What a directory entry is, before following links.
#[derive(Debug)]
pub enum EntryKind {
    /// A folder.
    Dir,
    /// A regular file, with its metadata when the entries were read with it.
    File(Option<Metadata>),
    /// A symbolic link (not followed yet).
    Link,
    /// A socket, FIFO or device.
    Other,
}

/// Opens `path` for reading only if it is a regular file: FIFOs, sockets and devices are
/// refused before they are opened, and again from the opened descriptor (opened non-blocking,
/// so a FIFO swapped in between cannot make the open wait).
pub fn open_regular(path: &Path) -> Result<(File, Metadata), String> {
    let not_regular = |meta: &Metadata| -> Option<String> {
        if meta.is_dir() {
            Some("is a folder, not a file".into())
        } else if !meta.is_file() {
            Some("is not a regular file (a FIFO, socket or device is never opened)".into())
        } else {
            None
        }
    };
    let before = fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        _ => format!("cannot read: {e}"),
    })?;
    if let Some(why) = not_regular(&before) {
        return Err(why);
    }
    let file = platform::read_options().open(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    match not_regular(&meta) {
        Some(why) => Err(why),
        None => Ok((file, meta)),
    }
}

/// Reads an opened file whole, refusing more than `max_bytes` (counted while reading, so a
/// file that grows after its size was checked still stops at the limit).
pub fn read_all(file: File, meta: &Metadata, max_bytes: u64) -> Result<Vec<u8>, String> {
    if meta.len() > max_bytes {
        return Err(format!("is {} bytes, more than the limit of {max_bytes}", meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("grew past the limit of {max_bytes} bytes while it was read"));
    }
    Ok(bytes)
}

/// The path that names an open descriptor's file (Linux: through `/proc`).
fn via_descriptor(file: &File) -> Option<PathBuf> {
    platform::via_descriptor(file)
}

/// The real path of the opened `file` (opened from `path`). On Linux the kernel names it
/// (`/proc/self/fd/N`), and without `/proc` nothing is served; on Windows the system does
/// (`GetFinalPathNameByHandleW`), after refusing a path with a symbolic link or junction on the
/// way (Windows: a link is never followed). Either way it is what was opened, so a swap after
/// the open changes nothing. Elsewhere on Unix `path` is canonicalized and must still be the
/// same device and inode as the descriptor (a swap in between is refused).
pub(crate) fn real_path(file: &File, meta: &Metadata, path: &Path) -> Result<PathBuf, String> {
    if let Some(proc_path) = via_descriptor(file) {
        return fs::read_link(proc_path).map_err(|e| format!("cannot check what was opened (is /proc mounted?): {e}"));
    }
    if cfg!(windows) {
        no_link_on_the_way(path)?;
    }
    if let Some(named) = platform::path_of_open(file) {
        return named.map_err(|e| format!("cannot check what was opened: {e}"));
    }
    let changed = || "changed while it was opened (a symbolic link swapped in on the way?)".to_owned();
    let canonical = fs::canonicalize(path).map_err(|_| changed())?;
    let now = fs::metadata(&canonical).map_err(|_| changed())?;
    match (platform::identity(&now), platform::identity(meta)) {
        (Some(now), Some(opened)) if now == opened => Ok(canonical),
        _ => Err(changed()),
    }
}

/// Refuses `path` when any of its components is a symbolic link, a junction or another
/// reparse point that std reports as a link (Windows: a link is never followed at open).
fn no_link_on_the_way(path: &Path) -> Result<(), String> {
    let mut at = PathBuf::new();
    for part in path.components() {
        at.push(part);
        if matches!(part, std::path::Component::Normal(_))
            && fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err("a symbolic link or junction is on the way (not followed on Windows)".into());
        }
    }
    Ok(())
}

/// Whether a directory entry named `name` is listed: a dot file only with `include_hidden`; on
/// macOS (`macos`) never the Finder's own files, `.DS_Store` (any case: APFS tells none) and
/// `._name` (a resource fork or extended attributes kept apart on a volume without them), which
/// are metadata, not content, even with `--include-hidden`. A plain function of the platform,
/// so both ways are tested everywhere.
pub(crate) fn shown(name: &str, include_hidden: bool, macos: bool) -> bool {
    let finder = name.eq_ignore_ascii_case(".DS_Store") || name.starts_with("._");
    if macos && finder {
        return false;
    }
    include_hidden || !name.starts_with('.')
}

/// Splits the path part of a `file://` URI (relative to a root) into checked components:
/// percent-encoded separators are refused, the text is percent-decoded exactly once, a
/// separator or dot that was encoded twice is refused, then [`components`] checks the rest.
pub fn uri_components(encoded: &str, include_hidden: bool) -> Result<Vec<String>, String> {
    // A name cannot hold a separator, so an encoded one is only ever a disguise.
    let raw = encoded.to_ascii_lowercase();
    if raw.contains("%2f") || raw.contains("%5c") {
        return Err("contains a percent-encoded separator (separate folders with a plain /)".into());
    }
    let decoded = percent::decode(encoded).ok_or("is not UTF-8 once percent-decoded")?;
    let lower = decoded.to_ascii_lowercase();
    if lower.contains("%2f") || lower.contains("%5c") || lower.contains("%2e") {
        return Err("contains a separator or dot that was percent-encoded twice".into());
    }
    components(&decoded, include_hidden)
}

/// Splits a plain relative path (as a tool's argument spells it: never percent-decoded, so
/// `a%20b.txt` is a name of its own) into checked components, refusing every way to leave the
/// root: NUL, backslashes, absolute paths, drive letters, `..`, empty components (`a//b`), and
/// hidden names (unless `include_hidden`); on Windows also what Windows reads as something else
/// than a plain name (devices, streams, trailing dots, short names: [`winpath`]). `""` and `.`
/// name the root.
pub fn components(spelled: &str, include_hidden: bool) -> Result<Vec<String>, String> {
    if spelled.contains('\0') {
        return Err("contains a NUL character".into());
    }
    if spelled.contains('\\') {
        return Err("contains a backslash (separate folders with /)".into());
    }
    if spelled.starts_with('/') {
        return Err("is absolute (give a path relative to the served folder)".into());
    }
    let trimmed = spelled.strip_suffix('/').unwrap_or(spelled);
    if trimmed.is_empty() || trimmed == "." {
        return Ok(Vec::new());
    }
    let mut parts = Vec::new();
    for (i, part) in trimmed.split('/').enumerate() {
        // Windows reads some names as devices, streams or other names: refused there.
        if let Some(why) = winpath::refused_component(part).filter(|_| cfg!(windows)) {
            return Err(why.into());
        }
        match part {
            "" => return Err("contains an empty component (a doubled /)".into()),
            "." => continue,
            ".." => return Err("leaves the served folder (..)".into()),
            _ if i == 0 && part.len() == 2 && part.ends_with(':') => {
                return Err("looks like a Windows drive (give a path relative to the served folder)".into())
            }
            _ if part.starts_with('.') && !include_hidden => {
                return Err("names a hidden file or folder (serve them with --include-hidden)".into())
            }
            _ => parts.push(part.to_owned()),
        }
    }
    Ok(parts)
}

/// Percent-encodes a path for a `file://` URI: unreserved characters and `/` stay, every other
/// byte of the UTF-8 becomes `%XX`.
pub fn percent_encode_path(path: &str) -> String {
    percent::encode(path, |_, _, c| percent::is_unreserved(c) || c == '/')
}

/// The `file://` URI of a canonical absolute path (`None` when it is not UTF-8). On Windows
/// spelled as Windows expects (`file:///C:/dir/a.txt`, `file://server/share/a.txt`).
pub fn file_uri(path: &Path) -> Option<String> {
    let path = path.to_str()?;
    if cfg!(windows) {
        return winpath::file_uri(path, percent_encode_path);
    }
    Some(format!("file://{}", percent_encode_path(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finder_files_are_hidden_even_with_include_hidden_on_macos() {
        for name in [".DS_Store", ".ds_store", "._notes.txt", "._"] {
            assert!(!shown(name, false, false) && !shown(name, true, true), "{name}");
            assert!(shown(name, true, false), "{name}: elsewhere a dot file like any other");
        }
        for name in ["notes.txt", "DS_Store", "_x"] {
            assert!(shown(name, false, true) && shown(name, true, true), "{name}");
        }
        assert!(shown(".env", true, true) && !shown(".env", false, true));
    }

    #[test]
    #[cfg(unix)]
    fn a_root_reached_through_a_symbolic_link_is_served_by_its_real_path() {
        // As macOS's /tmp and /var lead to /private/tmp and /private/var.
        let base = std::env::temp_dir().canonicalize().unwrap().join(format!("tinymcp-private-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("private/tmp/served")).unwrap();
        fs::write(base.join("private/tmp/served/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("private/tmp", base.join("tmp")).unwrap();
        let sandbox = Sandbox::new(&base.join("tmp/served"), false).unwrap();
        assert_eq!(sandbox.root(), base.join("private/tmp/served"));
        let resolved = sandbox.resolve("a.txt").unwrap();
        assert_eq!(resolved, base.join("private/tmp/served/a.txt"));
        assert!(sandbox.open(&resolved).is_ok());
        // A client's root spelled through the link names the same folder.
        let through_link = format!("file://{}", base.join("tmp/served").display());
        assert_eq!(crate::provide::files::local_folder(&through_link), Some(base.join("private/tmp/served")));
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn relative_paths_are_the_components_below_the_root() {
        let root = std::env::temp_dir().canonicalize().unwrap();
        let sandbox = Sandbox::new(&root, false).unwrap();
        assert_eq!(sandbox.relative(&root).as_deref(), Some(""));
        assert_eq!(sandbox.relative(&root.join("a")).as_deref(), Some("a"));
        assert_eq!(sandbox.relative(&root.join("a/b.txt")).as_deref(), Some("a/b.txt"));
        // Not canonical: the components, as before the plain path was taken as it is.
        assert_eq!(sandbox.relative(&root.join("a//b/./c/")).as_deref(), Some("a/b/c"));
        assert_eq!(sandbox.relative(Path::new("/")), None);
        let outside = root.parent().unwrap_or(Path::new("/")).join("elsewhere");
        assert_eq!(sandbox.relative(&outside), None);
    }

    #[test]
    fn uri_components_refuse_every_escape_spelling() {
        for bad in [
            "..",
            "../etc/passwd",
            "a/../../b",
            "a/..",
            "/etc/passwd",
            "%2e%2e/x",
            "%2E%2E%2Fetc",
            "%2fetc%2fpasswd",
            "a%2f..%2f..%2fb",
            "%252e%252e/x",
            "a%252fb",
            "sub%2fm.rs",
            "sub%2Fm.rs",
            "a//b",
            "//etc/passwd",
            "..\\x",
            "a\\b",
            "a%5cb",
            "C:/Windows",
            "a\0b",
            "a%00b",
            ".git/config",
            "x/.env",
            "%ff",
        ] {
            assert!(uri_components(bad, false).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn plain_components_refuse_every_escape_and_decode_nothing() {
        for bad in ["..", "../etc/passwd", "a/../../b", "/etc/passwd", "a//b", "..\\x", "C:/Windows", "a\0b", ".env"] {
            assert!(components(bad, false).is_err(), "{bad:?} was accepted");
        }
        // Percent signs are part of names: nothing is decoded, so nothing decodes to `..` or `/`.
        assert_eq!(components("%2e%2e/x", false), Ok(vec!["%2e%2e".to_string(), "x".to_string()]));
        assert_eq!(components("a%2fb", false), Ok(vec!["a%2fb".to_string()]));
        assert_eq!(components("a%20b", false), Ok(vec!["a%20b".to_string()]));
    }

    #[test]
    fn windows_special_names_are_refused_on_windows_only() {
        // On Unix these are ordinary names; on Windows a device, a stream, a trimmed name, a short name.
        for name in ["CON", "src/nul.txt", "a.txt:x", "PROGRA~1/x", "a.txt.", "a.txt "] {
            assert_eq!(components(name, false).is_err(), cfg!(windows), "{name:?}");
            assert_eq!(uri_components(name, false).is_err(), cfg!(windows), "{name:?}");
        }
    }

    #[test]
    fn components_accept_plain_relative_paths() {
        assert_eq!(components("", false), Ok(vec![]));
        assert_eq!(components(".", false), Ok(vec![]));
        assert_eq!(components("src/", false), Ok(vec!["src".to_string()]));
        assert_eq!(components("./a/b.txt", false), Ok(vec!["a".to_string(), "b.txt".to_string()]));
        assert_eq!(uri_components("a%20b", false), Ok(vec!["a b".to_string()]));
        assert_eq!(uri_components("100%.txt", false), Ok(vec!["100%.txt".to_string()]));
        assert_eq!(components(".git/config", true), Ok(vec![".git".to_string(), "config".to_string()]));
    }

    #[test]
    fn encoding_round_trips_once() {
        let path = "/tmp/a b/ü%.txt";
        let encoded = percent_encode_path(path);
        assert_eq!(encoded, "/tmp/a%20b/%C3%BC%25.txt");
        assert_eq!(percent::decode(&encoded).as_deref(), Some(path));
    }
}
