//! Percent-encoding (RFC 3986 §2.1), the one implementation: `file://` URIs of served files and
//! RFC 6570 template expansion encode with it, the sandbox and template matching decode with it.
//! Std only.

/// Percent-encodes `text`: each character `keep` accepts (given the text and its byte index, so
/// an existing `%XX` can be kept) stays, every byte of any other becomes `%XX` (uppercase).
pub fn encode(text: &str, keep: impl Fn(&str, usize, char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if keep(text, i, c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// RFC 3986 unreserved characters: `A-Z a-z 0-9 - . _ ~`.
pub fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

/// Whether a `%` at byte `i` of `text` starts a `%XX` triplet.
pub fn is_triplet(text: &str, i: usize) -> bool {
    text.get(i + 1..i + 3).is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Decodes each `%XX` once; a `%` not followed by two hex digits stays as it is. `None` when the
/// result is not UTF-8.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| char::from(*c).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                // Invariant: two hex digits make at most 255.
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_leaves_stray_percents() {
        let path = "/tmp/a b/ü%.txt";
        let encoded = encode(path, |_, _, c| is_unreserved(c) || c == '/');
        assert_eq!(encoded, "/tmp/a%20b/%C3%BC%25.txt");
        assert_eq!(decode(&encoded).as_deref(), Some(path));
        assert_eq!(decode("100%.txt").as_deref(), Some("100%.txt"));
        assert_eq!(decode("%zz%4"), Some("%zz%4".to_owned()));
        assert_eq!(decode("%ff"), None);
        assert_eq!(encode("a%20b%", |t, i, c| is_unreserved(c) || (c == '%' && is_triplet(t, i))), "a%20b%25");
    }
}
