//! `.gitignore` and `.ignore` patterns as git reads them: comments, escapes, negation (`!`),
//! anchoring (a `/` at the start or in the middle), directory-only patterns (a trailing `/`),
//! and nested files (the deepest file with a matching pattern decides, its last match wins).
//! Where the default volumes do not tell case apart (Windows, macOS), patterns match names in
//! any case, as git does there (`core.ignorecase`): `target/` ignores `Target`, which is the same
//! folder. Pure code: the sandbox reads the files.

use super::glob::GlobPattern;

/// The names of the ignore files, in the order they are read in a folder: a `.ignore` pattern
/// overrides a `.gitignore` one of the same folder (as in ripgrep).
pub(crate) const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// Whether patterns match names in any case: where the platform's default volumes are
/// case-insensitive (NTFS, APFS), so that a name ignored in one case is ignored in all.
pub(crate) const FOLD_CASE: bool = cfg!(any(windows, target_os = "macos"));

/// One pattern line.
struct Rule {
    glob: GlobPattern,
    /// `!pattern`: re-includes what an earlier pattern excluded.
    negated: bool,
    /// `pattern/`: matches folders only.
    dir_only: bool,
    /// A `/` at the start or in the middle: matched against the path below the file's folder;
    /// otherwise against the name alone, at any depth.
    anchored: bool,
}

/// The patterns of the ignore files of one folder.
pub(crate) struct IgnoreFile {
    /// The folder, relative to the root (`""` for the root); lowercase when `fold`.
    base: String,
    rules: Vec<Rule>,
    /// Patterns and paths compared in lowercase (`FOLD_CASE`).
    fold: bool,
}

impl IgnoreFile {
    /// The patterns in `text`, an ignore file of the folder `base` (relative to the root).
    pub(crate) fn parse(base: &str, text: &str) -> IgnoreFile {
        IgnoreFile::parse_folding(base, text, FOLD_CASE)
    }

    /// As [`IgnoreFile::parse`], matching in any case when `fold` (a plain function of it, so
    /// both ways are tested on every platform).
    pub(crate) fn parse_folding(base: &str, text: &str, fold: bool) -> IgnoreFile {
        if fold {
            let rules = text.to_lowercase().lines().filter_map(rule).collect();
            IgnoreFile { base: base.to_lowercase(), rules, fold }
        } else {
            IgnoreFile { base: base.to_owned(), rules: text.lines().filter_map(rule).collect(), fold }
        }
    }

    /// Whether the file has no patterns (nothing to keep).
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// What this file says of `rel` (relative to the root): `Some(true)` ignored, `Some(false)`
    /// re-included, `None` when no pattern matches or the path is not under its folder.
    fn decide(&self, rel: &str, is_dir: bool) -> Option<bool> {
        let folded;
        let rel = if self.fold {
            folded = rel.to_lowercase();
            folded.as_str()
        } else {
            rel
        };
        let below = if self.base.is_empty() { rel } else { rel.strip_prefix(&self.base)?.strip_prefix('/')? };
        let name = below.rsplit('/').next().unwrap_or(below);
        self.rules.iter().rev().find_map(|rule| {
            if rule.dir_only && !is_dir {
                return None;
            }
            let subject = if rule.anchored { below } else { name };
            rule.glob.matches(subject).then_some(!rule.negated)
        })
    }
}

/// Whether `rel` (relative to the root; a folder when `is_dir`) is ignored under `files`, the
/// ignore files of its folder's ancestors, shallowest first. Only the path's own patterns are
/// asked: the caller walks down from the root and never enters an ignored folder, which is
/// how git keeps a file in an ignored folder ignored whatever a later `!` says.
pub(crate) fn ignored(files: &[IgnoreFile], rel: &str, is_dir: bool) -> bool {
    files.iter().rev().find_map(|file| file.decide(rel, is_dir)).unwrap_or(false)
}

/// One line of an ignore file as a pattern, or `None` for blanks and comments.
fn rule(line: &str) -> Option<Rule> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    // Trailing spaces are cut unless a backslash keeps the last one.
    let mut line = line.to_owned();
    while line.ends_with(' ') && !line.ends_with("\\ ") {
        line.pop();
    }
    let (negated, line) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line.as_str()),
    };
    let (dir_only, line) = match line.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    if line.is_empty() {
        return None;
    }
    let anchored = line.contains('/');
    let line = line.strip_prefix('/').unwrap_or(line);
    // A pattern that is not a glob (an unclosed `[`) matches nothing, as in git.
    Some(Rule { glob: GlobPattern::new(line).ok()?, negated, dir_only, anchored })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_ignored(files: &[(&str, &str)], rel: &str, is_dir: bool) -> bool {
        let files: Vec<IgnoreFile> = files.iter().map(|(base, text)| IgnoreFile::parse(base, text)).collect();
        ignored(&files, rel, is_dir)
    }

    #[test]
    fn patterns_follow_git() {
        let root = [("", "# comment\n*.log\n!keep.log\nbuild/\n/top.txt\ndoc/*.md\n\\#hash\nspace\\ \n")];
        assert!(is_ignored(&root, "a.log", false) && is_ignored(&root, "x/y/a.log", false));
        assert!(!is_ignored(&root, "keep.log", false) && !is_ignored(&root, "x/keep.log", false));
        assert!(is_ignored(&root, "build", true) && !is_ignored(&root, "build", false));
        assert!(is_ignored(&root, "x/build", true));
        assert!(is_ignored(&root, "top.txt", false) && !is_ignored(&root, "x/top.txt", false));
        assert!(is_ignored(&root, "doc/a.md", false) && !is_ignored(&root, "doc/x/a.md", false));
        assert!(is_ignored(&root, "#hash", false) && !is_ignored(&root, "# comment", false));
        assert!(is_ignored(&root, "space ", false) && !is_ignored(&root, "space", false));
    }

    #[test]
    fn on_a_case_insensitive_volume_patterns_match_any_case() {
        let files: Vec<IgnoreFile> = [("", "target/\n*.LOG\n!Keep.log\n/Build.txt\n"), ("Sub", "[A-C]*.tmp\n")]
            .iter()
            .map(|(base, text)| IgnoreFile::parse_folding(base, text, true))
            .collect();
        assert!(
            ignored(&files, "Target", true) && ignored(&files, "TARGET", true) && ignored(&files, "x/target", true)
        );
        assert!(ignored(&files, "a.log", false) && ignored(&files, "A.Log", false));
        assert!(!ignored(&files, "KEEP.LOG", false) && !ignored(&files, "keep.log", false));
        assert!(ignored(&files, "build.TXT", false) && !ignored(&files, "x/build.txt", false));
        assert!(ignored(&files, "sub/b.TMP", false) && ignored(&files, "SUB/B.tmp", false));
        assert!(!ignored(&files, "sub/d.tmp", false));
        // Where volumes tell case apart (Linux), git's own default: case counts.
        let exact = [IgnoreFile::parse_folding("", "target/\n", false)];
        assert!(ignored(&exact, "target", true) && !ignored(&exact, "Target", true));
        assert_eq!(FOLD_CASE, cfg!(any(windows, target_os = "macos")));
    }

    #[test]
    fn a_deeper_file_overrides_a_shallower_one() {
        let files = [("", "*.txt\n"), ("sub", "!*.txt\n/only-here\n")];
        assert!(is_ignored(&files, "a.txt", false));
        assert!(!is_ignored(&files, "sub/a.txt", false) && !is_ignored(&files, "sub/x/a.txt", false));
        assert!(is_ignored(&files, "sub/only-here", false) && !is_ignored(&files, "sub/x/only-here", false));
        assert!(!is_ignored(&files, "subx/only-here", false));
    }
}
