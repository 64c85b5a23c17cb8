//! Globs over names and relative paths (`?`, `*`, `**`, `**/`, `[a-z]`, `\x`), matched without
//! backtracking. Used by the file tools (`search_files`, `find_files`, `directory_tree`) and by
//! the ignore files' patterns; pure code.

/// A token of a glob pattern.
#[derive(Clone, Copy, PartialEq)]
enum Glob {
    Char(char),
    /// `?`: one character other than `/`.
    One,
    /// `*`: any run without `/`.
    Star,
    /// `**`: any run.
    Any,
    /// `**/`: nothing, or any run that ends with `/`.
    Dirs,
    /// `[...]`: one character other than `/` in (or, negated, not in) the class of this index.
    Class(usize),
}

/// A bracket expression: character ranges (a single character is a range of one), maybe negated.
struct Class {
    ranges: Vec<(char, char)>,
    negated: bool,
}

impl Class {
    fn holds(&self, c: char) -> bool {
        c != '/' && self.ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != self.negated
    }
}

/// Parses the bracket expression whose `[` is at `start`: the class and the index after its
/// `]`, or `None` when it is not closed.
fn class_at(chars: &[char], start: usize) -> Option<(Class, usize)> {
    let mut i = start + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let mut c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Class { ranges, negated }, i + 1));
        }
        first = false;
        if c == '\\' {
            i += 1;
            c = *chars.get(i)?;
        }
        match (chars.get(i + 1), chars.get(i + 2)) {
            (Some('-'), Some(&hi)) if hi != ']' => {
                ranges.push((c, hi));
                i += 3;
            }
            _ => {
                ranges.push((c, c));
                i += 1;
            }
        }
    }
}

/// A glob with `?`, `*`, `**` and `**/`, parsed once; runs of stars collapse, so matching a
/// name costs O(pattern × name) however the stars are arranged (no backtracking).
pub(crate) struct GlobPattern {
    tokens: Vec<Glob>,
    classes: Vec<Class>,
    has_slash: bool,
}

impl GlobPattern {
    /// Compiles `pattern`, or says why it is not a glob: a `[` whose class is never closed
    /// (write `\[` for a plain `[`).
    pub(crate) fn new(pattern: &str) -> Result<GlobPattern, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens: Vec<Glob> = Vec::new();
        let mut classes = Vec::new();
        let mut i = 0;
        while let Some(&c) = chars.get(i) {
            let token = match (c, chars.get(i + 1).copied(), chars.get(i + 2).copied()) {
                ('*', Some('*'), Some('/')) => {
                    i += 2;
                    Glob::Dirs
                }
                ('*', Some('*'), _) => {
                    i += 1;
                    Glob::Any
                }
                ('*', _, _) => Glob::Star,
                ('?', _, _) => Glob::One,
                ('[', _, _) => match class_at(&chars, i) {
                    Some((class, after)) => {
                        classes.push(class);
                        i = after - 1;
                        Glob::Class(classes.len() - 1)
                    }
                    None => {
                        return Err(format!(
                            "invalid glob {pattern:?}: the [ at character {} opens a class that is never closed by ]; write \\[ for a plain [",
                            i + 1
                        ))
                    }
                },
                // A backslash makes the next character plain (a trailing one is itself).
                ('\\', Some(next), _) => {
                    i += 1;
                    Glob::Char(next)
                }
                (c, _, _) => Glob::Char(c),
            };
            i += 1;
            // `**` after `*` or `**` (and `*` after `**`) matches the same runs as `**` alone.
            match (tokens.last().copied(), token) {
                (Some(Glob::Star), Glob::Star) | (Some(Glob::Any), Glob::Star | Glob::Any) => {}
                (Some(Glob::Star), Glob::Any) => {
                    tokens.pop();
                    tokens.push(Glob::Any);
                }
                _ => tokens.push(token),
            }
        }
        Ok(GlobPattern { tokens, classes, has_slash: chars.contains(&'/') })
    }

    /// Whether a file at `below` (its path below the folder searched) matches: a pattern with
    /// a `/` matches that path, one without matches the file's name alone (`*.rs` anywhere).
    pub(crate) fn matches_path(&self, below: &str) -> bool {
        if self.has_slash {
            self.matches(below)
        } else {
            self.matches(below.rsplit('/').next().unwrap_or(below))
        }
    }

    /// Whether the whole of `text` matches.
    pub(crate) fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let n = text.len();
        let mut row = vec![false; n + 1];
        row[0] = true;
        let mut next = vec![false; n + 1];
        for token in &self.tokens {
            next.iter_mut().for_each(|x| *x = false);
            match *token {
                Glob::Char(c) => {
                    for j in 0..n {
                        next[j + 1] = row[j] && text[j] == c;
                    }
                }
                Glob::One => {
                    for j in 0..n {
                        next[j + 1] = row[j] && text[j] != '/';
                    }
                }
                Glob::Class(k) => {
                    let Some(class) = self.classes.get(k) else { return false };
                    for j in 0..n {
                        next[j + 1] = row[j] && class.holds(text[j]);
                    }
                }
                Glob::Star | Glob::Any => {
                    // One pass: a run starts wherever the row holds, and a `*` run ends at `/`.
                    let mut on = false;
                    for j in 0..=n {
                        on |= row[j];
                        next[j] = on;
                        if *token == Glob::Star && text.get(j) == Some(&'/') {
                            on = false;
                        }
                    }
                }
                Glob::Dirs => {
                    let mut seen = false;
                    for j in 0..=n {
                        next[j] = row[j] || (seen && j > 0 && text[j - 1] == '/');
                        seen |= row[j];
                    }
                }
            }
            std::mem::swap(&mut row, &mut next);
            if !row.contains(&true) {
                return false;
            }
        }
        row[n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(pattern: &str, text: &str) -> bool {
        GlobPattern::new(pattern).is_ok_and(|glob| glob.matches(text))
    }

    #[test]
    fn glob_matches_names_and_paths() {
        assert!(globs("*.rs", "main.rs"));
        assert!(!globs("*.rs", "src/main.rs"));
        assert!(globs("src/**/*.rs", "src/main.rs"));
        assert!(globs("src/**/*.rs", "src/a/b/main.rs"));
        assert!(globs("**", "a/b/c"));
        assert!(globs("?.txt", "a.txt"));
        assert!(!globs("?.txt", "ab.txt"));
        assert!(!globs("*.md", "README.mdx"));
        assert!(globs("a/**/b", "a/b") && globs("a/**/b", "a/x/y/b") && !globs("a/**/b", "a/xb"));
        assert!(globs("***.rs", "main.rs") && globs("**.rs", "src/main.rs") && !globs("*.rs", "src/main.rs"));
        assert!(globs("**/*.rs", "main.rs") && globs("**/*.rs", "a/b/main.rs"));
        assert!(!globs(&format!("{}b", "*a".repeat(500)), &"a".repeat(2000)));
    }

    #[test]
    fn glob_classes_and_escapes() {
        assert!(globs("[abc].txt", "b.txt") && !globs("[abc].txt", "d.txt"));
        assert!(globs("file[0-9]", "file7") && !globs("file[0-9]", "filex"));
        assert!(globs("[!a]x", "bx") && !globs("[!a]x", "ax") && globs("[^a]x", "bx"));
        assert!(globs("[]]", "]") && globs("[a-]", "-"));
        assert!(!globs("a[/]b", "a/b"));
        assert!(globs("\\[unclosed", "[unclosed"));
        let why = GlobPattern::new("src/[abc").err().unwrap_or_default();
        assert!(why.contains("invalid glob") && why.contains("never closed") && why.contains("character 5"), "{why}");
        assert!(
            GlobPattern::new("[!").is_err() && GlobPattern::new("[]").is_err() && GlobPattern::new("[a\\]").is_err()
        );
        assert!(globs("\\*x", "*x") && !globs("\\*x", "ax") && globs("\\#a", "#a"));
    }
}
