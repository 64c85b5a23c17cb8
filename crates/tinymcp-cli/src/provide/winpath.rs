//! What a path component may not be on Windows: the lexical half of the sandbox there. Pure
//! string checks, compiled and tested on every platform; the sandbox applies them on Windows
//! only (on Unix `CON` or `a:b` are ordinary names).
//!
//! Each refused spelling is one that Windows reads as something other than a plain name in
//! the folder: a device (`CON`, `NUL.txt`), an alternate data stream or a drive (`a.txt:x`,
//! `C:`), a name Windows trims to another (`a.txt.`, `a.txt `), or an 8.3 short name
//! (`PROGRA~1`) that may stand for a long name the other checks never saw (`.git`). Drive
//! letters, UNC and `\\?\` / `\\.\` prefixes need a `:` or a backslash, which are refused here
//! and by [`super::sandbox::components`]. Also the two spellings of a path Windows has: as a
//! `file://` URI and back.

/// The device names Windows reserves in every folder, with or without an extension.
const RESERVED: [&str; 6] = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"];

/// Why `part` (one component, no separator) cannot be served on Windows, or `None` when it is
/// a plain name.
pub fn refused_component(part: &str) -> Option<&'static str> {
    if part.contains(':') {
        return Some("contains a colon (a drive or an alternate data stream such as a.txt:x is never served)");
    }
    if part.chars().any(|c| matches!(c, '<' | '>' | '"' | '|' | '?' | '*') || u32::from(c) < 32) {
        return Some("contains a character Windows does not allow in a name (< > \" | ? * or a control character)");
    }
    if part.ends_with('.') && part != "." && part != ".." || part.ends_with(' ') {
        return Some("ends with a dot or a space, which Windows drops (it would name another file)");
    }
    if is_reserved_device(part) {
        return Some("is a reserved device name on Windows (CON, NUL, AUX, PRN, COM1-9, LPT1-9), never served");
    }
    if looks_short(part) {
        return Some("looks like an 8.3 short name (such as PROGRA~1): give the long name");
    }
    None
}

/// Whether the part before the first dot (trailing spaces dropped, as Windows does) is a
/// reserved device name, in any case: `con`, `NUL.txt`, `com1.tar.gz`, `LPT9 .x`, `COM¹`.
fn is_reserved_device(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part).trim_end_matches(' ');
    let upper = stem.to_uppercase();
    if RESERVED.contains(&upper.as_str()) {
        return true;
    }
    let (prefix, digit) = match upper.char_indices().nth(3) {
        Some((i, _)) => upper.split_at(i),
        None => return false,
    };
    (prefix == "COM" || prefix == "LPT")
        && matches!(digit, "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³")
}

/// Whether `part` has the shape of a generated 8.3 short name: a `~` followed by one or more
/// digits, then the end or a dot (`PROGRA~1`, `GIT~1`, `LONGNA~12.TXT`).
fn looks_short(part: &str) -> bool {
    part.match_indices('~').any(|(i, _)| {
        let after = &part[i + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && (digits == after.len() || after.as_bytes()[digits] == b'.')
    })
}

/// The `file://` URI of a canonical Windows path (as `std::fs::canonicalize` gives it there:
/// `\\?\C:\dir\a b.txt`, `\\?\UNC\server\share\x`, or without the `\\?\`), spelled as
/// Windows expects: `file:///C:/dir/a%20b.txt`, `file://server/share/x`. `encode` percent-encodes
/// the path part (it keeps `/`). `None` for a spelling that is none of these.
pub fn file_uri(path: &str, encode: impl Fn(&str) -> String) -> Option<String> {
    let path = path.strip_prefix(r"\\?\").unwrap_or(path);
    if let Some(unc) = path.strip_prefix(r"UNC\").or_else(|| path.strip_prefix(r"\\")) {
        let (host, rest) = unc.split_once('\\').unwrap_or((unc, ""));
        if host.is_empty() {
            return None;
        }
        return Some(format!("file://{}/{}", encode(host), encode(&rest.replace('\\', "/"))));
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if !drive || bytes.get(2).is_some_and(|b| *b != b'\\') {
        return None;
    }
    Some(format!("file:///{}:{}", &path[..1], encode(&path[2..].replace('\\', "/"))))
}

/// The Windows path a `file://` URI's percent-decoded path names (`/C:/dir` is `C:\dir`), or
/// `None` when it names no drive (`/dir`, which Windows would read on the current drive) or
/// holds a backslash. A host (UNC) is refused before this, by whoever reads the URI.
pub fn path_of_uri(decoded: &str) -> Option<String> {
    let rest = decoded.strip_prefix('/')?;
    let bytes = rest.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if !drive || rest.contains('\\') || bytes.get(2).is_some_and(|b| *b != b'/') {
        return None;
    }
    let mut path = rest.replace('/', "\\");
    if path.len() == 2 {
        path.push('\\');
    }
    Some(path)
}

/// The plain spelling of a verbatim path `std::fs::canonicalize` gives on Windows, for a
/// person and a host's config to read: `\\?\C:\dir` is `C:\dir`, `\\?\UNC\server\share` is
/// `\\server\share`. `None` (keep the verbatim one) when the plain one would name something else:
/// a component Windows would read otherwise ([`refused_component`]), or past `MAX_PATH`.
pub fn plain(verbatim: &str) -> Option<String> {
    let rest = verbatim.strip_prefix(r"\\?\")?;
    let (plain, tail) = match rest.strip_prefix(r"UNC\") {
        Some(unc) => (format!(r"\\{unc}"), unc),
        None => {
            let bytes = rest.as_bytes();
            let drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'\\';
            if !drive {
                return None;
            }
            (rest.to_owned(), &rest[3..])
        }
    };
    let plain_names =
        tail.split('\\').filter(|p| !p.is_empty()).all(|p| refused_component(p).is_none() && p != "." && p != "..");
    (plain_names && plain.len() < 260).then_some(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_windows_special_spelling_is_refused() {
        for bad in [
            "CON",
            "con",
            "Con.txt",
            "NUL.tar.gz",
            "nul .txt",
            "AUX",
            "PRN.log",
            "COM1",
            "com9.txt",
            "LPT1",
            "lpt5.x",
            "COM¹",
            "LPT³.txt",
            "CONIN$",
            "conout$.x",
            "a.txt:secret",
            "a.txt::$DATA",
            "C:",
            "c:Windows",
            "a.txt.",
            "a.txt ",
            "folder.",
            "PROGRA~1",
            "GIT~1",
            "LONGNA~12.TXT",
            "a~1",
            "a|b",
            "a?b",
            "a*b",
            "a<b",
            "a\"b",
            "a\u{1}b",
        ] {
            assert!(refused_component(bad).is_some(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn plain_names_pass() {
        for good in [
            "a.txt",
            "CONFIG",
            "console.log",
            "nullable.rs",
            "COM10",
            "COM0",
            "LPT",
            "auxiliary",
            "con-file",
            "a~b",
            "~",
            "~1a",
            "backup~",
            "a b.txt",
            "ü.txt",
            ".",
            "..",
            ".env",
        ] {
            assert_eq!(refused_component(good), None, "{good:?} was refused");
        }
    }

    #[test]
    fn verbatim_paths_become_plain_when_nothing_changes() {
        assert_eq!(plain(r"\\?\C:\Users\me").as_deref(), Some(r"C:\Users\me"));
        assert_eq!(plain(r"\\?\Z:\").as_deref(), Some(r"Z:\"));
        assert_eq!(plain(r"\\?\UNC\server\share\x").as_deref(), Some(r"\\server\share\x"));
        for kept in [r"\\?\C:\dir\CON", r"\\?\C:\a.", r"\\?\C:\a ", r"C:\plain", r"\\?\Volume{x}\a"] {
            assert_eq!(plain(kept), None, "{kept:?}");
        }
        assert_eq!(plain(&format!(r"\\?\C:\{}", "a".repeat(300))), None);
    }

    #[test]
    fn file_uri_paths_become_windows_paths() {
        assert_eq!(path_of_uri("/C:/Users/me/project").as_deref(), Some(r"C:\Users\me\project"));
        assert_eq!(path_of_uri("/d:/").as_deref(), Some(r"d:\"));
        assert_eq!(path_of_uri("/Z:").as_deref(), Some(r"Z:\"));
        for bad in ["/home/me", "C:/x", "/C:x", "/C:/a\\b", "//server/share", "/"] {
            assert_eq!(path_of_uri(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn windows_paths_become_file_uris_as_windows_spells_them() {
        let encode = |s: &str| s.replace(' ', "%20");
        assert_eq!(file_uri(r"\\?\C:\dir\a b.txt", encode).as_deref(), Some("file:///C:/dir/a%20b.txt"));
        assert_eq!(file_uri(r"C:\dir", encode).as_deref(), Some("file:///C:/dir"));
        assert_eq!(file_uri(r"\\?\D:\", encode).as_deref(), Some("file:///D:/"));
        assert_eq!(file_uri(r"\\?\UNC\server\share\x", encode).as_deref(), Some("file://server/share/x"));
        assert_eq!(file_uri(r"\\server\share", encode).as_deref(), Some("file://server/share"));
        assert_eq!(file_uri(r"relative\x", encode), None);
        assert_eq!(file_uri(r"C:relative", encode), None);
        assert_eq!(file_uri(r"\\?\UNC\", encode), None);
    }
}
