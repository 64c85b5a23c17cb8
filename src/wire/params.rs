//! A message's params as they came: kept as their JSON text until the method reads them into its
//! own typed struct, so a request is parsed once, borrowing from that text, instead of first
//! into a map of owned strings and then again out of it.

use super::rpc::RpcError;
use super::scan::{self, Enter};
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The params of a request or notification: always a JSON object (absent and `null` read as
/// `{}`), held as text.
#[derive(Clone, Default)]
pub struct Params {
    /// `None`: absent or `null`. Valid JSON (an object): checked when the message was read.
    text: Option<Box<str>>,
    /// Where each [`Member`] sits in `text`, found in one pass when the message is read: the
    /// era, the per-request terms, the progress token and the input-required rounds look there
    /// instead of reading the params again.
    spans: [Option<(u32, u32)>; MEMBERS],
    /// Whether `_meta` read as an object of distinct keys (its members' spans are then known).
    meta_read: bool,
}

/// The members of the params, and of their `_meta`, that are read by more than the method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member {
    /// `_meta`.
    Meta,
    /// `inputResponses` (2026-07-28 input-required rounds).
    InputResponses,
    /// `requestState` (2026-07-28 input-required rounds).
    RequestState,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`.
    ProtocolVersion,
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]`.
    ClientCapabilities,
    /// `_meta["io.modelcontextprotocol/clientInfo"]`.
    ClientInfo,
    /// `_meta["io.modelcontextprotocol/logLevel"]`.
    LogLevel,
    /// `_meta.progressToken`.
    ProgressToken,
}

pub(crate) const MEMBERS: usize = 8;

impl Params {
    /// Params read from a message: `text` must be a valid JSON object or `null` (the caller
    /// checked it, and refuses the rest with `-32602`), its members located (`Locate`).
    pub(crate) fn from_text(text: &str, (spans, meta_read): Location) -> Params {
        if text == "null" {
            return Params::default();
        }
        Params { text: Some(text.into()), spans, meta_read }
    }

    /// Params from a value, for messages built in memory; anything but an object reads as `{}`.
    pub fn from_value(value: &Value) -> Params {
        match value {
            Value::Object(_) => Params::located(value.to_string().into_boxed_str()),
            _ => Params::default(),
        }
    }

    fn located(text: Box<str>) -> Params {
        let (spans, meta_read) = locate(&text);
        Params { text: Some(text), spans, meta_read }
    }

    /// The params as JSON text: `{}` when absent.
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or("{}")
    }

    /// Reads the params into a method's typed struct, which may borrow from them; what does
    /// not fit is `-32602` saying why.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, RpcError> {
        let meta = self.spans[Member::Meta as usize].map(|(start, end)| (start as usize, end as usize));
        T::deserialize(ParamsDe(self.text(), meta))
            .map_err(|e| RpcError::invalid_params(format!("invalid params: {}", super::rpc::json_error(&e))))
    }

    /// The params as a JSON value (an object), for code that wants the whole map.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or_else(|_| Value::Object(Default::default()))
    }

    /// The text of `_meta`'s value, when there is one (`null` included).
    pub fn meta_text(&self) -> Option<&str> {
        self.member(Member::Meta)
    }

    /// The text of a member's value when it is there (`null` included). Members of `_meta`
    /// are known only when `_meta` is an object of distinct keys ([`Params::meta_read`]).
    pub(crate) fn member(&self, member: Member) -> Option<&str> {
        let (start, end) = self.spans[member as usize]?;
        self.text.as_deref().map(|t| &t[start as usize..end as usize])
    }

    /// Whether `_meta` was read as an object of distinct keys; when it is there and was not,
    /// reading it again says why.
    pub(crate) fn meta_read(&self) -> bool {
        self.meta_read
    }

    /// The string member `key` of the params holds (the last, when given twice, as a map reads
    /// it), the others passed over unread: `None` when absent or not a string. (What the
    /// HTTP transport checks its headers against.)
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn string_member(&self, key: &str) -> Option<Cow<'_, str>> {
        let text = self.text.as_deref()?;
        let value = scan::Members::of(text).filter(|m| m.is(key)).last()?;
        scan::string_value(&text[value.start..value.end])
    }

    /// The length of the params' text, for the bound on what a queued request holds.
    pub(crate) fn len(&self) -> usize {
        self.text().len()
    }
}

/// The reserved keys of the params, and of their `_meta`, with the member each is.
const HEAD: [(&str, Member); 3] =
    [("_meta", Member::Meta), ("inputResponses", Member::InputResponses), ("requestState", Member::RequestState)];
const META: [(&str, Member); 5] = [
    ("io.modelcontextprotocol/protocolVersion", Member::ProtocolVersion),
    ("io.modelcontextprotocol/clientCapabilities", Member::ClientCapabilities),
    ("io.modelcontextprotocol/clientInfo", Member::ClientInfo),
    ("io.modelcontextprotocol/logLevel", Member::LogLevel),
    ("progressToken", Member::ProgressToken),
];

/// Finds the [`Member`]s of params without copying anything, as a [`scan::Walk`] meets them:
/// the params' object at depth `base` of the walk (0 when the walk is over the params alone, 1
/// when over the message holding them), `_meta`'s one deeper. Nothing is found when the params
/// hold a reserved key twice, and no member of `_meta` when it is not an object of distinct
/// reserved keys (the method's own reading then says what is wrong).
pub(crate) struct Locate {
    base: usize,
    /// Where each member's value sits in the walked text.
    spans: [Option<(usize, usize)>; MEMBERS],
    /// A reserved key of the params, or of `_meta`, met twice.
    twice: [bool; 2],
    /// Whether `_meta` was the `LastMeta`, stepped over.
    recalled: bool,
}

/// Where each [`Member`] sits in the params' text, and whether `_meta` was read (see
/// [`Params::meta_read`]). Offsets fit in `u32`: a message is capped far below 4 GiB.
pub(crate) type Location = ([Option<(u32, u32)>; MEMBERS], bool);

impl Locate {
    pub(crate) fn new(base: usize) -> Locate {
        Locate { base, spans: [None; MEMBERS], twice: [false; 2], recalled: false }
    }

    /// Walks into `_meta`, at `at` in the walked text, unless it is the `LastMeta` given with
    /// the rest of the text from `at` on (the same bytes start it): its members are then where
    /// they sat in it. (A second `_meta` of the params makes `finish` find nothing.)
    pub(crate) fn enter(
        &mut self,
        depth: usize,
        key: &str,
        escaped: bool,
        at: usize,
        last: Option<(&LastMeta, &str)>,
    ) -> Enter {
        if depth != self.base || !scan::key_is(key, escaped, "_meta") {
            return Enter::Over;
        }
        let Some((last, _)) = last.filter(|(last, rest)| !last.text.is_empty() && rest.starts_with(&last.text)) else {
            return Enter::Walk;
        };
        for (_, member) in META {
            self.spans[member as usize] =
                last.spans[member as usize].map(|(start, end)| (at + start as usize, at + end as usize));
        }
        self.recalled = true;
        Enter::Known(last.text.len())
    }

    /// Whether `_meta` was the `LastMeta` it was given, stepped over.
    pub(crate) fn recalled(&self) -> bool {
        self.recalled
    }

    pub(crate) fn member(&mut self, depth: usize, member: scan::Member<'_>) {
        let (keys, level) = match depth.checked_sub(self.base) {
            Some(0) => (&HEAD[..], 0),
            Some(1) => (&META[..], 1),
            _ => return,
        };
        if let Some(&(_, which)) = keys.iter().find(|(key, _)| member.is(key)) {
            let slot = &mut self.spans[which as usize];
            self.twice[level] |= slot.is_some();
            *slot = Some((member.start, member.end));
        }
    }

    /// What was found, its offsets made relative to the params' text `params`, which starts at
    /// `offset` in the walked text.
    pub(crate) fn finish(self, params: &str, offset: usize) -> Location {
        if self.twice[0] {
            return ([None; MEMBERS], false);
        }
        let relative = |span: Option<(usize, usize)>| {
            let (start, end) = span?;
            Some((u32::try_from(start - offset).ok()?, u32::try_from(end - offset).ok()?))
        };
        let mut spans = self.spans.map(relative);
        let meta = spans[Member::Meta as usize].map(|(start, end)| &params[start as usize..end as usize]);
        let read = match meta {
            None | Some("null") => true,
            Some(meta) => meta.starts_with('{') && !self.twice[1],
        };
        if !read {
            for (_, member) in META {
                spans[member as usize] = None;
            }
        }
        (spans, read)
    }
}

/// The last `_meta` a stream's messages carried that read as an object of distinct keys, and
/// where its reserved members sit in it. A client sends the same `_meta` with every request (at
/// 2026-07-28: its version and capabilities), which is then known by its bytes instead of walked
/// again ([`Locate::enter`]). Kept by whoever reads the stream; a `_meta` that changes with every
/// request (a progress token in it) is walked each time, as it would be without this.
#[derive(Debug, Default)]
pub(crate) struct LastMeta {
    /// Empty: none yet.
    text: String,
    /// Where the members of `META` sit in `text`.
    spans: [Option<(u32, u32)>; MEMBERS],
}

impl LastMeta {
    /// The longest `_meta` kept: comparing it must stay cheaper than walking it.
    const MAX: usize = 1024;

    /// Keeps the `_meta` of `params` (whose members `location` gives) when it read as an
    /// object of distinct keys (and was not this one: `Locate::recalled`).
    pub(crate) fn keep(&mut self, params: &str, (spans, read): &Location) {
        let Some((start, end)) = spans[Member::Meta as usize] else { return };
        let meta = &params[start as usize..end as usize];
        if !read || !meta.starts_with('{') || meta.len() > Self::MAX {
            return;
        }
        self.text.clear();
        self.text.push_str(meta);
        self.spans = [None; MEMBERS];
        for (_, member) in META {
            self.spans[member as usize] = spans[member as usize].map(|(from, to)| (from - start, to - start));
        }
    }
}

/// Locates the members of params read alone (`Params::from_value`).
fn locate(text: &str) -> Location {
    struct Alone(Locate);
    impl<'a> scan::Walk<'a> for Alone {
        fn enter(&mut self, depth: usize, key: &'a str, escaped: bool, at: usize) -> Enter {
            self.0.enter(depth, key, escaped, at, None)
        }
        fn member(&mut self, depth: usize, member: scan::Member<'a>) -> bool {
            self.0.member(depth, member);
            true
        }
    }
    let mut alone = Alone(Locate::new(0));
    match scan::walk(text, &mut alone) {
        Some(()) => alone.0.finish(text, 0),
        None => ([None; MEMBERS], false),
    }
}

/// Why `_meta` does not read as an object of distinct reserved keys, for a request that needs
/// it (`locate` found none of its members).
pub(crate) fn meta_error(meta: &str) -> Option<serde_json::Error> {
    #[derive(Deserialize)]
    struct MetaKeys {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
        _protocol_version: Option<IgnoredAny>,
        #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
        _client_capabilities: Option<IgnoredAny>,
        #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
        _client_info: Option<IgnoredAny>,
        #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
        _log_level: Option<IgnoredAny>,
        #[serde(rename = "progressToken", default)]
        _progress_token: Option<IgnoredAny>,
    }
    serde_json::from_str::<MetaKeys>(meta).err()
}

/// The params as a serde `Deserializer`: a map whose members are pulled from the text one at a
/// time (`scan::Members`), each value read by serde_json from its own text. A member the
/// method's struct does not take (`_meta`, read when the message was, or one it does not know)
/// is passed over unread: the whole text was checked when the message was read. Holds the
/// params' text and where `_meta`'s value sits in it when the walk found it (stepped over).
struct ParamsDe<'a>(&'a str, Option<(usize, usize)>);

impl<'de> Deserializer<'de> for ParamsDe<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let members = scan::Members::of(self.0).knowing(self.1);
        visitor.visit_map(MemberAccess { text: self.0, members, value: None })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct MemberAccess<'a> {
    text: &'a str,
    members: scan::Members<'a>,
    /// The text of the value of the key just given.
    value: Option<&'a str>,
}

impl<'de> MapAccess<'de> for MemberAccess<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let Some(member) = self.members.next() else { return Ok(None) };
        self.value = Some(&self.text[member.start..member.end]);
        if !member.escaped {
            return seed.deserialize(BorrowedStrDeserializer::new(member.key)).map(Some);
        }
        // Decoded by serde_json, from the key as written, its quotes included.
        let start = member.key.as_ptr() as usize - self.text.as_ptr() as usize;
        let quoted = &self.text[start - 1..start + member.key.len() + 1];
        seed.deserialize(&mut serde_json::Deserializer::from_str(quoted)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let value = self.value.take().ok_or_else(|| serde::de::Error::custom("a value asked for before its key"))?;
        seed.deserialize(ValueDe(value))
    }
}

/// One member's value: read by serde_json from its text, or passed over when not wanted.
struct ValueDe<'a>(&'a str);

/// Each `deserialize_*` of `ValueDe` handed to serde_json, reading the value's text.
macro_rules! to_serde_json {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            Deserializer::$method(&mut serde_json::Deserializer::from_str(self.0), $($arg,)* visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for ValueDe<'de> {
    type Error = serde_json::Error;

    /// Not wanted: passed over without reading (it was checked with the message).
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    to_serde_json! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16() deserialize_u32()
        deserialize_u64() deserialize_u128() deserialize_f32() deserialize_f64() deserialize_char()
        deserialize_str() deserialize_string() deserialize_bytes() deserialize_byte_buf()
        deserialize_option() deserialize_unit() deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str) deserialize_seq() deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize) deserialize_map()
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str]) deserialize_identifier()
    }
}

/// Written as the text it came as (a forwarded message is not re-encoded).
impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The text was checked when the message was read; reading it as a `RawValue` again is
        // the one way serde_json offers to write it as it is (forwarding only: not a hot path).
        match self.text.as_deref().map(serde_json::from_str::<&RawValue>) {
            Some(Ok(raw)) => raw.serialize(serializer),
            Some(Err(e)) => Err(serde::ser::Error::custom(e)),
            None => serializer.collect_map(std::iter::empty::<((), ())>()),
        }
    }
}

/// Equal when they hold the same JSON, however it was spelled.
impl PartialEq for Params {
    fn eq(&self, other: &Params) -> bool {
        self.text() == other.text() || self.to_value() == other.to_value()
    }
}

/// Reads as the JSON text.
impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(text: &str) -> Params {
        assert!(scan::members(text, |_| true).is_some() || text == "null");
        Params::from_text(text, locate(text))
    }

    /// The walk of a whole message finds in its params what a walk of the params alone finds.
    #[test]
    fn members_are_located_alike_in_a_message_and_alone() {
        use crate::wire::jsonrpc::{parse, Incoming, Message};
        let all = [
            Member::Meta,
            Member::InputResponses,
            Member::RequestState,
            Member::ProtocolVersion,
            Member::ClientCapabilities,
            Member::ClientInfo,
            Member::LogLevel,
            Member::ProgressToken,
        ];
        let cases = [
            r#"{"name":"x","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"a":{"b":{}}},"progressToken":"t"},"requestState":"s","inputResponses":{"k":{}}}"#,
            r#"{"\u005fmeta":{"progress\u0054oken":1}}"#,
            r#"{"_meta":{"progressToken":1,"progressToken":2}}"#,
            r#"{"_meta":{},"_meta":{"progressToken":2}}"#,
            r#"{"_meta":"text","requestState":"s"}"#,
            r#"{"_meta":null,"arguments":{"_meta":{"progressToken":3}}}"#,
            r#"{}"#,
        ];
        for text in cases {
            let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call", "params" : {text}}}"#);
            let Ok(Incoming::Single(Message::Request(request))) = parse(&line) else { panic!("{line}") };
            let alone = raw(text);
            for member in all {
                assert_eq!(request.params.member(member), alone.member(member), "{text}: {member:?}");
            }
            assert_eq!(request.params.meta_read(), alone.meta_read(), "{text}");
        }
        assert_eq!(raw(cases[0]).member(Member::ProgressToken), Some("7"));
        assert_eq!(raw(cases[2]).member(Member::ProgressToken), Some("1"));
        assert_eq!(raw(cases[3]).member(Member::ProgressToken), None);
        assert!(!raw(cases[3]).meta_read() && !raw(cases[5]).meta_read() && raw(cases[6]).meta_read());
        assert_eq!(raw(cases[4]).member(Member::Meta), None);
        assert_eq!(raw(cases[6]).member(Member::ProgressToken), None);
    }

    #[test]
    fn a_string_member_is_read_alone() {
        let p = raw(r#"{"name":"echo","uri":"a\u0062c","n":1,"arguments":{"name":"inner"}}"#);
        assert!(matches!(p.string_member("name"), Some(Cow::Borrowed("echo"))));
        assert_eq!(p.string_member("uri").as_deref(), Some("abc"));
        assert_eq!(p.string_member("n"), None);
        assert_eq!(p.string_member("missing"), None);
        assert_eq!(raw(r#"{"name":"a","name":"b"}"#).string_member("name").as_deref(), Some("b"));
        assert_eq!(raw("null").string_member("name"), None);
    }

    #[test]
    fn meta_is_found_wherever_it_sits() {
        let p = raw(r#"{"name":"x", "_meta" : {"progressToken": 7}, "z": [1]}"#);
        assert_eq!(p.meta_text(), Some(r#"{"progressToken": 7}"#));
        assert_eq!(raw(r#"{"name":"x"}"#).meta_text(), None);
        assert_eq!(raw("null").meta_text(), None);
        assert_eq!(raw("null").text(), "{}");
        // Escaped key spellings are the same key.
        assert_eq!(raw(r#"{"\u005fmeta":null}"#).meta_text(), Some("null"));
    }

    #[test]
    fn parse_borrows_and_reports_what_did_not_fit() {
        #[derive(Deserialize)]
        struct Call<'a> {
            name: &'a str,
        }
        let p = raw(r#"{"name":"echo","arguments":{}}"#);
        assert_eq!(p.parse::<Call>().unwrap().name, "echo");
        let e = raw(r#"{"arguments":{}}"#).parse::<Call>().err().unwrap();
        assert!(e.message.contains("missing field `name`"), "{}", e.message);
    }

    #[test]
    fn members_are_read_one_by_one_as_serde_json_would() {
        #[derive(Deserialize, Debug)]
        struct Call<'a> {
            name: &'a str,
            #[serde(default)]
            arguments: Option<Value>,
            #[serde(borrow, default)]
            raw: Option<&'a RawValue>,
            #[serde(default)]
            n: Option<u8>,
        }
        let p =
            raw(r#"{"n\u0061me":"echo","arguments":{"a":[1,{"b":null}]},"_meta":{"x":{"y":[]}},"raw":[1, 2],"z":0}"#);
        let call = p.parse::<Call>().unwrap();
        assert_eq!((call.name, call.raw.map(RawValue::get), call.n), ("echo", Some("[1, 2]"), None));
        assert_eq!(call.arguments, Some(json!({"a": [1, {"b": null}]})));
        assert_eq!(p.parse::<Value>().unwrap(), p.to_value());
        let e = raw(r#"{"name":"a","name":"b"}"#).parse::<Call>().err().unwrap();
        assert!(e.message.contains("duplicate field `name`"), "{}", e.message);
        let e = raw(r#"{"name":7}"#).parse::<Call>().err().unwrap();
        assert!(e.message.contains("invalid type: integer `7`, expected a borrowed string"), "{}", e.message);
        let e = raw(r#"{"name":"x","n":300}"#).parse::<Call>().err().unwrap();
        assert!(e.message.contains("300"), "{}", e.message);
        assert!(raw("null").parse::<Call>().is_err() && raw("null").parse::<Value>().unwrap() == json!({}));
        // `_meta`, located by the walk, is stepped over by its span, whitespace around it or not.
        let p = raw(r#"{ "_meta" : { "progressToken" : [ 1 ] } , "name" : "echo" }"#);
        assert!(p.member(Member::Meta).is_some());
        assert_eq!(p.parse::<Value>().unwrap(), json!({"_meta": {"progressToken": [1]}, "name": "echo"}));
        assert_eq!(p.parse::<Call>().unwrap().name, "echo");
    }

    #[test]
    fn values_round_trip() {
        let v = json!({"a": [1, {"b": null}], "_meta": {"k": "v"}});
        let p = Params::from_value(&v);
        assert_eq!(p.to_value(), v);
        assert_eq!(p.meta_text(), Some(r#"{"k":"v"}"#));
        assert_eq!(Params::from_value(&Value::Null).to_value(), json!({}));
    }
}
