//! Checks JSON text and says where the members of an object sit, reading nothing into values:
//! the envelope of a message and the reserved members of its params are found this way, by
//! hand, without a copy or an allocation (serde_json, skipping a value nested two deep, grows a
//! stack on the heap for every message). Strict as serde_json is: what this refuses, the caller
//! reads again with serde_json, which says what is wrong. Std only.

use std::borrow::Cow;

/// Containers nested deeper than this are refused (serde_json's own limit is 128).
const MAX_DEPTH: usize = 256;

/// One member of an object: its key as written between the quotes, whether that key holds
/// escapes (then it must be decoded before it is compared), and where its value sits in the
/// text given to [`members`], as a byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Member<'a> {
    pub key: &'a str,
    pub escaped: bool,
    pub start: usize,
    pub end: usize,
}

impl Member<'_> {
    /// Whether the key is `name`, escapes decoded.
    #[inline]
    pub fn is(&self, name: &str) -> bool {
        key_is(self.key, self.escaped, name)
    }
}

/// Whether a key written as `key` (between its quotes) is `name`, escapes decoded (a key
/// written with escapes is rare: only then is anything allocated).
#[inline]
pub(crate) fn key_is(key: &str, escaped: bool, name: &str) -> bool {
    if !escaped {
        return key == name;
    }
    decoded_key_is(key, name)
}

#[cold]
fn decoded_key_is(key: &str, name: &str) -> bool {
    serde_json::from_str::<String>(&format!("\"{key}\"")).is_ok_and(|key| key == name)
}

/// The string a value already checked as JSON (`walk`) holds: borrowed unless it is written
/// with escapes; `None` when the value is not a string.
pub(crate) fn string_value(value: &str) -> Option<Cow<'_, str>> {
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(value).ok().map(Cow::Owned)
}

/// What a [`walk`] does with an object that is a member's value ([`Walk::enter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Enter {
    /// Checks it as any value, its members untold.
    Over,
    /// Walks into it: its members come at `depth + 1`, before it does.
    Walk,
    /// Steps over its `len` bytes unread: the caller knows them for an object it checked before.
    Known(usize),
}

/// What [`walk`] asks its caller about the members it meets.
pub(crate) trait Walk<'a> {
    /// What to do with the value of the member `key` of an object at `depth` (0: the
    /// outermost), that value being an object starting at `at` in the text. The caller decides
    /// how deep a walk goes (each level is a call).
    fn enter(&mut self, depth: usize, key: &'a str, escaped: bool, at: usize) -> Enter;
    /// A member of an object at `depth`, its value passed; `false` gives the walk up.
    fn member(&mut self, depth: usize, member: Member<'a>) -> bool;
}

/// Walks the object that `text` holds (whitespace around it is allowed), telling `walker` of
/// its members and of those of the objects inside it that `walker` enters, in the order they
/// are written. `None` when `text` is not exactly one valid JSON object, or when `walker`
/// gives up.
pub(crate) fn walk<'a>(text: &'a str, walker: &mut impl Walk<'a>) -> Option<()> {
    let mut cur = Cursor { text: text.as_bytes(), at: 0 };
    cur.space();
    object(text, &mut cur, 0, walker)?;
    cur.space();
    (cur.at == cur.text.len()).then_some(())
}

fn object<'a>(text: &'a str, cur: &mut Cursor<'a>, depth: usize, walker: &mut impl Walk<'a>) -> Option<()> {
    let mut more = cur.open()?;
    while more {
        let ((from, to), escaped) = cur.key()?;
        let key = &text[from..to];
        cur.space();
        let start = cur.at;
        let enter = match cur.peek() {
            Some(b'{') => walker.enter(depth, key, escaped, start),
            _ => Enter::Over,
        };
        match enter {
            Enter::Walk => object(text, cur, depth + 1, walker)?,
            Enter::Known(len) => cur.at += len,
            Enter::Over => cur.value()?,
        }
        if !walker.member(depth, Member { key, escaped, start, end: cur.at }) {
            return None;
        }
        more = cur.after_member()?;
    }
    Some(())
}

/// Calls `each` for every member of the object that `text` holds (whitespace around it is
/// allowed), in order: a [`walk`] that enters nothing. `None` when `text` is not exactly one
/// valid JSON object, or when `each` returns `false`. For tests: the library walks, or pulls.
#[cfg(test)]
pub(crate) fn members<'a>(text: &'a str, each: impl FnMut(Member<'a>) -> bool) -> Option<()> {
    struct Each<F>(F);
    impl<'a, F: FnMut(Member<'a>) -> bool> Walk<'a> for Each<F> {
        fn enter(&mut self, _: usize, _: &'a str, _: bool, _: usize) -> Enter {
            Enter::Over
        }
        fn member(&mut self, _: usize, member: Member<'a>) -> bool {
            (self.0)(member)
        }
    }
    walk(text, &mut Each(each))
}

/// The members of an object already checked (`walk`), one at a time, for a caller that pulls
/// them (a serde `MapAccess`). Text that is not an object ends the members early.
pub(crate) struct Members<'a> {
    text: &'a str,
    cur: Cursor<'a>,
    done: bool,
    /// A value whose extent the walk found already: stepped over, not checked again.
    known: Option<(usize, usize)>,
}

impl<'a> Members<'a> {
    pub(crate) fn of(text: &'a str) -> Members<'a> {
        let mut cur = Cursor { text: text.as_bytes(), at: 0 };
        cur.space();
        let done = cur.open() != Some(true);
        Members { text, cur, done, known: None }
    }

    /// The same, stepping over the value at `start..end` of `text` without reading it again
    /// (`_meta`'s, which the walk of the message checked and located).
    pub(crate) fn knowing(mut self, span: Option<(usize, usize)>) -> Members<'a> {
        self.known = span;
        self
    }

    fn step(&mut self) -> Option<Member<'a>> {
        let cur = &mut self.cur;
        let ((from, to), escaped) = cur.key()?;
        cur.space();
        let start = cur.at;
        match self.known {
            Some((known_start, known_end)) if known_start == start => cur.at = known_end,
            _ => cur.value()?,
        }
        let member = Member { key: &self.text[from..to], escaped, start, end: cur.at };
        self.done = !cur.after_member()?;
        Some(member)
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = Member<'a>;

    fn next(&mut self) -> Option<Member<'a>> {
        if self.done {
            return None;
        }
        let member = self.step();
        self.done |= member.is_none();
        member
    }
}

struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// An object's `{`: whether members follow (`false`: its `}` came at once).
    fn open(&mut self) -> Option<bool> {
        self.eat(b'{')?;
        self.space();
        Some(self.eat(b'}').is_none())
    }

    /// What ends a member's value: the `,` another member follows (`true`), or the object's `}`.
    fn after_member(&mut self) -> Option<bool> {
        self.space();
        match self.next()? {
            b',' => {
                self.space();
                Some(true)
            }
            b'}' => Some(false),
            _ => None,
        }
    }

    /// A key and its colon: the range between the quotes, and whether it holds escapes.
    fn key(&mut self) -> Option<((usize, usize), bool)> {
        let start = self.at + 1;
        let escaped = self.string()?;
        let end = self.at - 1;
        self.space();
        self.eat(b':')?;
        Some(((start, end), escaped))
    }

    /// A string, from its opening quote: whether it holds escapes.
    fn string(&mut self) -> Option<bool> {
        self.eat(b'"')?;
        let mut escaped = false;
        loop {
            self.plain_run();
            match self.next()? {
                b'"' => return Some(escaped),
                b'\\' => {
                    escaped = true;
                    match self.next()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let hex = self.text.get(self.at..self.at + 4)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.at += 4;
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                _ => {}
            }
        }
    }

    /// Moves to the next byte inside a string that is not plain text (a quote, a backslash, a
    /// control character), eight bytes at a time: most of a message is string bytes. A byte it
    /// stops at is looked at again one at a time, so stopping early is never wrong.
    fn plain_run(&mut self) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        // Bytes equal to zero (or, with a borrow, above one that is) have their high bit set.
        let zero = |v: u64| v.wrapping_sub(ONES) & !v;
        while let Some(Ok(chunk)) = self.text.get(self.at..self.at + 8).map(<[u8; 8]>::try_from) {
            let word = u64::from_le_bytes(chunk);
            let stops = (zero(word ^ (ONES * u64::from(b'"')))
                | zero(word ^ (ONES * u64::from(b'\\')))
                | (word.wrapping_sub(ONES * 0x20) & !word))
                & HIGHS;
            if stops != 0 {
                self.at += (stops.trailing_zeros() / 8) as usize;
                return;
            }
            self.at += 8;
        }
    }

    fn digits(&mut self) -> Option<()> {
        if !self.peek()?.is_ascii_digit() {
            return None;
        }
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        Some(())
    }

    fn number(&mut self) -> Option<()> {
        let _ = self.eat(b'-');
        match self.peek()? {
            b'0' => self.at += 1,
            _ => self.digits()?,
        }
        if self.eat(b'.').is_some() {
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.digits()?;
        }
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.text.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// One value, containers walked without recursion: which of the open ones are objects is
    /// kept in a bit set, so nothing is allocated however deep the text goes.
    fn value(&mut self) -> Option<()> {
        let mut objects = [0u64; MAX_DEPTH / 64];
        let mut depth = 0usize;
        let is_object = |objects: &[u64], depth: usize| objects[(depth - 1) / 64] & (1 << ((depth - 1) % 64)) != 0;
        loop {
            // A value starts here: a scalar, or a container opened.
            self.space();
            match self.peek()? {
                open @ (b'{' | b'[') => {
                    self.at += 1;
                    self.space();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.eat(close).is_none() {
                        if depth == MAX_DEPTH {
                            return None;
                        }
                        let (word, bit) = (depth / 64, 1u64 << (depth % 64));
                        objects[word] = if open == b'{' { objects[word] | bit } else { objects[word] & !bit };
                        depth += 1;
                        if open == b'{' {
                            self.key()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            }
            // A value ended: close what it ends, up to the next member or element.
            loop {
                if depth == 0 {
                    return Some(());
                }
                self.space();
                let object = is_object(&objects, depth);
                match self.next()? {
                    b',' => {
                        if object {
                            self.space();
                            self.key()?;
                        }
                        break;
                    }
                    b'}' if object => depth -= 1,
                    b']' if !object => depth -= 1,
                    _ => return None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        members(text, |m| {
            out.push((m.key.to_owned(), text[m.start..m.end].to_owned()));
            true
        })?;
        Some(out)
    }

    #[test]
    fn members_are_found_with_their_values_as_written() {
        let text = r#" { "a" : 1 , "b":{"c":[1,2,{"d":null}]},"e":"x\"y", "f":-0.5e+3,"g":[],"h":{} } "#;
        let found = all(text).unwrap();
        let keys: Vec<_> = found.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "e", "f", "g", "h"]);
        assert_eq!(found[1].1, r#"{"c":[1,2,{"d":null}]}"#);
        assert_eq!(found[2].1, r#""x\"y""#);
        assert_eq!(found[3].1, "-0.5e+3");
        assert_eq!(all("{}").unwrap(), []);
    }

    #[test]
    fn what_serde_json_refuses_is_refused() {
        let cases = [
            "",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{,}",
            "{\"a\":1}x",
            "[1]",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":-}",
            "{\"a\":1e}",
            "{\"a\":tru}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12g4\"}",
            "{\"a\":\"\u{1}\"}",
            "{\"a\":[1,]}",
            "{\"a\":[1 2]}",
            "{\"a\":{\"b\":1]}",
            "{\"a\":[}",
            "{'a':1}",
            "{\"a\":1 \"b\":2}",
        ];
        for case in cases {
            assert!(all(case).is_none(), "{case:?} was accepted");
            assert!(serde_json::from_str::<serde_json::Value>(case).map_or(true, |v| !v.is_object()), "{case:?}");
        }
        for case in ["{\"a\":[1,[2,[3]],{}],\"b\":\"\\u00e9\\n\"}", "{\"a\":0,\"b\":-12.5E-3,\"c\":true,\"d\":false}"] {
            assert!(all(case).is_some(), "{case:?}");
        }
    }

    #[test]
    fn strings_end_where_they_end_whatever_their_length() {
        for n in 0..40 {
            for tail in ["", "\\\"", "\\n", "é", "\\u00e9"] {
                let text = "a".repeat(n) + tail + &"b".repeat(n % 9);
                let object = format!("{{\"k\":\"{text}\",\"z\":1}}");
                let found = all(&object).unwrap();
                assert_eq!(found[0].1, format!("\"{text}\""), "{object}");
                assert_eq!(found[1].1, "1");
                let control = format!("{{\"k\":\"{}\u{1f}{}\"}}", "a".repeat(n), "b".repeat(n));
                assert!(all(&control).is_none(), "{control:?}");
            }
        }
    }

    /// Mutated messages: `members` accepts exactly what serde_json's own checking (a `RawValue`,
    /// what read the envelope before) accepts as an object, and finds the same members.
    #[test]
    fn agrees_with_serde_json_on_mutated_messages() {
        use serde_json::value::RawValue;
        let seeds = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
            r#"{"a":[1,-2.5e3,{"b":[true,false,null]}],"c":"x\n\"y\u00e9"}"#,
            r#"{"result":{"content":[]},"id":"s","jsonrpc":"2.0"}"#,
        ];
        let alphabet = br#"{}[]",:0123456789.-+eE tr\ufalsn/abc"#;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut accepted, mut refused) = (0, 0);
        for round in 0..20_000 {
            let mut text = seeds[round % seeds.len()].as_bytes().to_vec();
            for _ in 0..1 + next(3) {
                let at = next(text.len() + 1);
                let byte = alphabet[next(alphabet.len())];
                match next(3) {
                    0 => text.insert(at, byte),
                    1 if at < text.len() => drop(text.remove(at)),
                    _ if at < text.len() => text[at] = byte,
                    _ => {}
                }
            }
            let Ok(text) = String::from_utf8(text) else { continue };
            let theirs = serde_json::from_str::<&RawValue>(&text).is_ok_and(|raw| raw.get().starts_with('{'));
            match all(&text) {
                Some(found) => {
                    assert!(theirs, "{text:?}: accepted here, refused by serde_json");
                    accepted += 1;
                    // Keys without escapes are the object's keys; values are JSON as they are.
                    let map = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text);
                    for (key, value) in found {
                        assert!(serde_json::from_str::<&RawValue>(&value).is_ok(), "{text:?}: {value:?}");
                        assert!(key.contains('\\') || map.as_ref().map_or(true, |m| m.contains_key(&key)), "{text:?}");
                    }
                }
                None => {
                    assert!(!theirs, "{text:?}: refused here, accepted by serde_json");
                    refused += 1;
                }
            }
        }
        assert!(accepted > 1000 && refused > 1000, "{accepted} accepted, {refused} refused");
    }

    #[test]
    fn members_pulled_are_the_members_walked() {
        for text in [r#" { "a" : 1 , "b":{"c":[1,{"d":null}]},"e":"x\"y" } "#, "{}", " {\"k\":[]}", "[1]", "{\"a\":"] {
            let pulled: Vec<_> = Members::of(text).map(|m| (m.key, &text[m.start..m.end])).collect();
            let walked = all(text).unwrap_or_default();
            let walked: Vec<_> = walked.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            if all(text).is_some() {
                assert_eq!(pulled, walked, "{text}");
            }
        }
        assert_eq!(Members::of("[1]").count(), 0);
    }

    #[test]
    fn depth_is_bounded_and_costs_no_recursion() {
        let ok = format!("{{\"a\":{}{}}}", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(all(&ok).is_some());
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(all(&deep).is_none());
    }

    #[test]
    fn escaped_keys_compare_decoded() {
        let mut seen = None;
        members(r#"{"\u005fmeta":1}"#, |m| {
            seen = Some((m.escaped, m.is("_meta"), m.is("meta")));
            true
        });
        assert_eq!(seen, Some((true, true, false)));
    }
}
