//! MIME types guessed from file names, for resource `mimeType` fields.
//! A fixed table of common types: pure std, no filesystem access or sniffing.

/// The type returned for unknown extensions.
pub const DEFAULT: &str = "application/octet-stream";

/// Files known by their whole name rather than an extension (compared case-insensitively).
const BY_NAME: &[(&str, &str)] = &[
    ("makefile", "text/plain"),
    ("gnumakefile", "text/plain"),
    ("dockerfile", "text/plain"),
    ("containerfile", "text/plain"),
    ("license", "text/plain"),
    ("readme", "text/plain"),
    ("cargo.lock", "application/toml"),
];

/// Extension (lowercase, without the dot) to MIME type.
const BY_EXTENSION: &[(&str, &str)] = &[
    // Text and documents.
    ("txt", "text/plain"),
    ("text", "text/plain"),
    ("log", "text/plain"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("css", "text/css"),
    ("ini", "text/plain"),
    ("cfg", "text/plain"),
    ("conf", "text/plain"),
    ("pdf", "application/pdf"),
    // Data formats.
    ("json", "application/json"),
    ("jsonl", "application/jsonl"),
    ("ndjson", "application/x-ndjson"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("toml", "application/toml"),
    ("xml", "application/xml"),
    // Source code.
    ("rs", "text/x-rust"),
    ("py", "text/x-python"),
    ("js", "text/javascript"),
    ("mjs", "text/javascript"),
    ("cjs", "text/javascript"),
    ("ts", "text/typescript"),
    ("tsx", "text/tsx"),
    ("jsx", "text/jsx"),
    ("sh", "application/x-sh"),
    ("bash", "application/x-sh"),
    ("zsh", "application/x-sh"),
    ("c", "text/x-c"),
    ("h", "text/x-c"),
    ("cpp", "text/x-c++"),
    ("cc", "text/x-c++"),
    ("cxx", "text/x-c++"),
    ("hpp", "text/x-c++"),
    ("go", "text/x-go"),
    ("java", "text/x-java"),
    ("kt", "text/x-kotlin"),
    ("rb", "text/x-ruby"),
    ("php", "application/x-httpd-php"),
    ("swift", "text/x-swift"),
    ("sql", "application/sql"),
    // Images.
    ("svg", "image/svg+xml"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("ico", "image/vnd.microsoft.icon"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    // Archives and binaries.
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("tgz", "application/gzip"),
    ("tar", "application/x-tar"),
    ("wasm", "application/wasm"),
    // Audio and video.
    ("wav", "audio/wav"),
    ("mp3", "audio/mpeg"),
    ("ogg", "audio/ogg"),
    ("flac", "audio/flac"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("mov", "video/quicktime"),
    // Fonts.
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("ttf", "font/ttf"),
    ("otf", "font/otf"),
];

/// Non-`text/*` types whose content is still readable text.
const TEXT_LIKE: &[&str] = &[
    "application/json",
    "application/jsonl",
    "application/x-ndjson",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/toml",
    "application/yaml",
    "application/x-yaml",
    "application/sql",
    "application/x-sh",
    "application/x-httpd-php",
    "application/graphql",
    "image/svg+xml",
];

/// Guesses the MIME type of `path` from its file name: first a few whole
/// names (`Makefile`, `Dockerfile`), then the extension, both compared
/// case-insensitively. Unknown files get [`DEFAULT`].
pub fn from_path(path: &str) -> &'static str {
    // Both separators, so Windows-style paths and `file://` URIs work alike.
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if let Some(&(_, mime)) = BY_NAME.iter().find(|(known, _)| known.eq_ignore_ascii_case(name)) {
        return mime;
    }
    let extension = match name.rsplit_once('.') {
        // A leading dot marks a hidden file (`.bashrc`), not an extension.
        Some((stem, ext)) if !stem.is_empty() => ext,
        _ => return DEFAULT,
    };
    BY_EXTENSION.iter().find(|(known, _)| known.eq_ignore_ascii_case(extension)).map_or(DEFAULT, |&(_, mime)| mime)
}

/// Tells whether content of type `mime` is text, so a resource can be sent
/// as `text` rather than a base64 `blob`. Parameters such as
/// `; charset=utf-8` are ignored, and `+json`/`+xml` suffixes count as text.
pub fn is_text(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or(mime).trim();
    let lower = essence.to_ascii_lowercase();
    lower.starts_with("text/")
        || TEXT_LIKE.contains(&lower.as_str())
        || (lower.starts_with("application/")
            && (lower.ends_with("+json") || lower.ends_with("+xml") || lower.ends_with("+yaml")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_extensions_map_to_standard_types() {
        let cases = [
            ("notes.txt", "text/plain"),
            ("README.md", "text/markdown"),
            ("doc.markdown", "text/markdown"),
            ("main.rs", "text/x-rust"),
            ("app.py", "text/x-python"),
            ("index.js", "text/javascript"),
            ("mod.mjs", "text/javascript"),
            ("a.ts", "text/typescript"),
            ("data.json", "application/json"),
            ("events.jsonl", "application/jsonl"),
            ("ci.yaml", "application/yaml"),
            ("ci.yml", "application/yaml"),
            ("Cargo.toml", "application/toml"),
            ("feed.xml", "application/xml"),
            ("index.html", "text/html"),
            ("style.css", "text/css"),
            ("t.csv", "text/csv"),
            ("t.tsv", "text/tab-separated-values"),
            ("run.sh", "application/x-sh"),
            ("x.c", "text/x-c"),
            ("x.hpp", "text/x-c++"),
            ("x.go", "text/x-go"),
            ("query.sql", "application/sql"),
            ("logo.svg", "image/svg+xml"),
            ("a.png", "image/png"),
            ("a.jpg", "image/jpeg"),
            ("a.jpeg", "image/jpeg"),
            ("a.gif", "image/gif"),
            ("a.webp", "image/webp"),
            ("a.tiff", "image/tiff"),
            ("a.pdf", "application/pdf"),
            ("a.zip", "application/zip"),
            ("a.tar.gz", "application/gzip"),
            ("a.tar", "application/x-tar"),
            ("m.wasm", "application/wasm"),
            ("s.wav", "audio/wav"),
            ("s.mp3", "audio/mpeg"),
            ("s.ogg", "audio/ogg"),
            ("s.flac", "audio/flac"),
            ("v.mp4", "video/mp4"),
            ("v.webm", "video/webm"),
            ("v.mov", "video/quicktime"),
            ("f.woff2", "font/woff2"),
            ("f.ttf", "font/ttf"),
        ];
        for (path, mime) in cases {
            assert_eq!(from_path(path), mime, "{path}");
        }
    }

    #[test]
    fn extension_match_is_case_insensitive() {
        assert_eq!(from_path("PHOTO.JPG"), "image/jpeg");
        assert_eq!(from_path("Main.Rs"), "text/x-rust");
    }

    #[test]
    fn uses_only_the_last_path_component() {
        assert_eq!(from_path("/srv/site.d/index.html"), "text/html");
        assert_eq!(from_path("dir.json/file"), DEFAULT);
        assert_eq!(from_path(r"C:\docs\a.md"), "text/markdown");
        assert_eq!(from_path("file:///tmp/a.png"), "image/png");
    }

    #[test]
    fn known_file_names_are_plain_text() {
        assert_eq!(from_path("Makefile"), "text/plain");
        assert_eq!(from_path("/repo/Dockerfile"), "text/plain");
        assert_eq!(from_path("DOCKERFILE"), "text/plain");
    }

    #[test]
    fn unknown_or_missing_extensions_default_to_octet_stream() {
        for path in ["", "/", "a", "a.", ".bashrc", "x.unknownext", "archive.7z", "é.ü"] {
            assert_eq!(from_path(path), DEFAULT, "{path:?}");
        }
    }

    #[test]
    fn every_table_entry_is_lowercase_and_unique() {
        for (i, (ext, _)) in BY_EXTENSION.iter().enumerate() {
            assert_eq!(*ext, ext.to_ascii_lowercase());
            assert!(!BY_EXTENSION[i + 1..].iter().any(|(e, _)| e == ext), "{ext}");
        }
    }

    #[test]
    fn text_types_are_recognised() {
        for mime in [
            "text/plain",
            "text/x-rust",
            "TEXT/HTML",
            "text/plain; charset=utf-8",
            "application/json",
            "application/xml",
            "application/javascript",
            "application/toml",
            "application/yaml",
            "application/x-sh",
            "image/svg+xml",
            "application/ld+json",
            "application/atom+xml",
        ] {
            assert!(is_text(mime), "{mime}");
        }
    }

    #[test]
    fn binary_types_are_not_text() {
        for mime in [
            "image/png",
            "application/octet-stream",
            "application/pdf",
            "application/zip",
            "audio/wav",
            "video/mp4",
            "font/woff2",
            "",
            "text",
        ] {
            assert!(!is_text(mime), "{mime}");
        }
    }

    #[test]
    fn every_mapped_source_or_document_type_agrees_with_is_text() {
        for path in ["a.rs", "a.md", "a.json", "a.yaml", "a.toml", "a.svg", "a.sh", "a.sql", "Makefile"] {
            assert!(is_text(from_path(path)), "{path}");
        }
        for path in ["a.png", "a.zip", "a.wasm", "a.mp3", "a.woff", "a.bin"] {
            assert!(!is_text(from_path(path)), "{path}");
        }
    }
}
