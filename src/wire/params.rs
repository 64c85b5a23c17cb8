//! A message's params as they came: kept as their JSON text until the method reads them into its
//! own typed struct (`Params::parse`, serde_json from the text, borrowing from it). The few
//! members other layers read (`_meta`'s reserved keys, the progress token, the input-required
//! rounds) are found in one serde pass when the params are made (`Found`), and read from there
//! (`Reserved`, `MetaKeys`) by whichever layer asks. What a peer names in a request (URIs,
//! tool and prompt names) is capped while the params decode (`uri`, `name`), so no lookup,
//! template match or error message ever works on more than a bounded input: over the cap,
//! decoding fails and the request gets `-32602` saying so.

use super::error::RpcError;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The params of a request or notification: always a JSON object (absent and `null` read as
/// `{}`), held as text, with where the members other layers read sit in it (`Found`).
#[derive(Clone, Default)]
pub struct Params {
    /// `None`: absent or `null`. Valid JSON (an object): checked when the message was read.
    text: Option<Box<str>>,
    /// Where the members other layers than the method read sit in `text`.
    found: Found,
}

/// Where a member's value sits in the params' text.
type Span = (usize, usize);

/// The members of params other layers than the method read (`_meta`'s reserved keys, the
/// input-required rounds), found in one reading of the text when the params are made: the era,
/// the 2026-07-28 terms and the rounds then read them without walking the params again.
#[derive(Debug, Clone, Copy, Default)]
struct Found {
    meta: MetaFound,
    input_responses: Option<Span>,
    request_state: Option<Span>,
}

/// What `_meta` is.
#[derive(Debug, Clone, Copy, Default)]
enum MetaFound {
    /// Absent or `null`, or a reserved member of the params given twice.
    #[default]
    Absent,
    /// An object of distinct reserved keys, each found where it sits.
    Keys([Option<Span>; 7]),
    /// Anything else, where it sits: its reading (and why it failed) is done again on demand.
    Unreadable(Span),
}

impl Params {
    /// Params read from a message: `text` must be a valid JSON object or `null` (the caller
    /// checked it, and refuses the rest with `-32602`).
    #[cfg(test)]
    pub(crate) fn from_text(text: &str) -> Params {
        if text == "null" {
            return Params::default();
        }
        Params::found(text.into())
    }

    /// Params from a value, for messages built in memory; anything but an object reads as `{}`.
    pub fn from_value(value: &Value) -> Params {
        match value {
            Value::Object(_) => Params::found(value.to_string().into_boxed_str()),
            _ => Params::default(),
        }
    }

    /// `text` (an object) with its reserved members found: one pass of serde_json when `_meta`
    /// is an object of distinct keys (the usual request), `_meta` read into its keys on the way.
    pub(crate) fn found(text: Box<str>) -> Params {
        /// The reserved members, `_meta` read into its keys.
        #[derive(Deserialize)]
        struct Keys<'a> {
            #[serde(rename = "_meta", borrow, default)]
            meta: Option<MetaFields<'a>>,
            #[serde(rename = "inputResponses", borrow, default, deserialize_with = "present")]
            input_responses: Option<&'a RawValue>,
            #[serde(rename = "requestState", borrow, default, deserialize_with = "present")]
            request_state: Option<&'a RawValue>,
        }
        let span = |raw: &RawValue| {
            let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            (start, start + raw.get().len())
        };
        let found = match serde_json::from_str::<Keys>(&text) {
            Ok(keys) => Found {
                meta: keys.meta.map_or(MetaFound::Absent, |meta| MetaFound::Keys(meta.spans(span))),
                input_responses: keys.input_responses.map(span),
                request_state: keys.request_state.map(span),
            },
            // `_meta` not an object of distinct keys, or a reserved member given twice: read
            // again, `_meta` as its text (none found when a member is given twice).
            Err(_) => match serde_json::from_str::<ReservedRead>(&text) {
                Ok(reserved) => Found {
                    meta: match reserved.meta {
                        Some(meta) if meta.get() != "null" => MetaFound::Unreadable(span(meta)),
                        _ => MetaFound::Absent,
                    },
                    input_responses: reserved.input_responses.map(span),
                    request_state: reserved.request_state.map(span),
                },
                Err(_) => Found::default(),
            },
        };
        Params { text: Some(text), found }
    }

    /// The params as JSON text: `{}` when absent.
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or("{}")
    }

    /// The text at `span`, found in it.
    fn at(&self, (start, end): Span) -> &str {
        self.text.as_deref().and_then(|text| text.get(start..end)).unwrap_or_default()
    }

    /// Reads the params into a method's typed struct, which may borrow from them; what does
    /// not fit is `-32602` saying why.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, RpcError> {
        serde_json::from_str(self.text())
            .map_err(|e| RpcError::invalid_params(format!("invalid params: {}", super::error::json_error(&e))))
    }

    /// These params with `members` set in their `_meta` (made when absent): what a relay adds
    /// to a request it passes on (the trace context). Params whose `_meta` is not an object
    /// are left as they are. Forwarding only: the params are read and written again.
    pub(crate) fn with_meta(&self, members: &[(&str, Value)]) -> Params {
        let mut value = self.to_value();
        if let Some(object) = value.as_object_mut() {
            let meta = object.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
            if meta.is_null() {
                *meta = Value::Object(Default::default());
            }
            if let Some(meta) = meta.as_object_mut() {
                for (key, member) in members {
                    meta.insert((*key).to_owned(), member.clone());
                }
            }
        }
        Params::from_value(&value)
    }

    /// The params as a JSON value (an object), for code that wants the whole map.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or_else(|_| Value::Object(Default::default()))
    }

    /// The text of `_meta`'s value, when there is one (`null` included).
    pub fn meta_text(&self) -> Option<&str> {
        // Not kept when found (only a relay reads it whole): read again.
        serde_json::from_str::<ReservedRead>(self.text.as_deref()?).ok()?.meta.map(RawValue::get)
    }

    /// The input-required members of the params (none found when a reserved member is given
    /// twice), as found when the params were made.
    pub(crate) fn reserved(&self) -> Reserved<'_> {
        Reserved {
            input_responses: self.found.input_responses.map(|span| self.at(span)),
            request_state: self.found.request_state.map(|span| self.at(span)),
        }
    }

    /// The string member `key` of the params holds (the last, when given twice, as a map reads
    /// it), the others passed over unread: `None` when absent or not a string. (What the
    /// HTTP transport checks its headers against.)
    pub(crate) fn string_member(&self, key: &str) -> Option<Cow<'_, str>> {
        let text = self.text.as_deref()?;
        let value = member(text, key)?;
        string_value(value.get())
    }

    /// The length of the params' text, for the bound on what a queued request holds.
    pub(crate) fn len(&self) -> usize {
        self.text().len()
    }
}

/// A member present with any value, `null` included (serde reads `null` as an absent `Option`).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The members of params read by more than the method, each as its text (`null` included), as
/// serde_json reads them.
#[derive(Default, Deserialize)]
struct ReservedRead<'a> {
    #[serde(rename = "_meta", borrow, default, deserialize_with = "present")]
    meta: Option<&'a RawValue>,
    #[serde(rename = "inputResponses", borrow, default, deserialize_with = "present")]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", borrow, default, deserialize_with = "present")]
    request_state: Option<&'a RawValue>,
}

/// The input-required members of params (2026-07-28 rounds), each as its text (`null`
/// included).
#[derive(Debug, Default)]
pub(crate) struct Reserved<'a> {
    /// `inputResponses`.
    pub input_responses: Option<&'a str>,
    /// `requestState`.
    pub request_state: Option<&'a str>,
}

impl Params {
    /// `_meta` read: `None` when it is absent or `null`. Its keys as found when the params were
    /// made; when they could not be read, `_meta` is read again to say why.
    pub(crate) fn read_meta(&self) -> Option<Meta<'_>> {
        match self.found.meta {
            MetaFound::Absent => None,
            MetaFound::Keys(spans) => {
                let [protocol_version, client_capabilities, client_info, log_level, progress_token, traceparent, tracestate] =
                    spans.map(|span| span.map(|span| self.at(span)));
                Some(Meta {
                    keys: Ok(MetaKeys {
                        protocol_version,
                        client_capabilities,
                        client_info,
                        log_level,
                        progress_token,
                        traceparent,
                        tracestate,
                    }),
                })
            }
            MetaFound::Unreadable(span) => {
                let meta = self.at(span);
                Some(Meta { keys: Err((meta, serde_json::from_str::<MetaFields>(meta).err())) })
            }
        }
    }

    /// `_meta`'s reserved keys: `None` when `_meta` is absent, `null`, not an object, or gives
    /// one of them twice.
    pub(crate) fn meta_keys(&self) -> Option<MetaKeys<'_>> {
        self.read_meta()?.keys.ok()
    }
}

/// A `_meta` that is there (not `null`): its reserved keys, or its text and why they could not
/// be read (not an object, a key given twice).
pub(crate) struct Meta<'a> {
    /// Its reserved keys, or its text and serde_json's reason.
    pub keys: Result<MetaKeys<'a>, (&'a str, Option<serde_json::Error>)>,
}

/// The keys of `_meta` the server reads, each as its text (`null` included).
#[derive(Debug, Default)]
pub(crate) struct MetaKeys<'a> {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: Option<&'a str>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Option<&'a str>,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: Option<&'a str>,
    /// `io.modelcontextprotocol/logLevel`.
    pub log_level: Option<&'a str>,
    /// `progressToken`.
    pub progress_token: Option<&'a str>,
    /// `traceparent` (SEP-414: W3C Trace Context, unprefixed).
    pub traceparent: Option<&'a str>,
    /// `tracestate` (SEP-414).
    pub tracestate: Option<&'a str>,
}

impl MetaKeys<'_> {
    /// Whether it holds a key only 2026-07-28 reserves (the version, the capabilities, the
    /// client info, the log level): no older client sends them.
    pub(crate) fn per_request(&self) -> bool {
        self.protocol_version.is_some()
            || self.client_capabilities.is_some()
            || self.client_info.is_some()
            || self.log_level.is_some()
    }
}

/// [`MetaKeys`] as serde_json reads them.
#[derive(Deserialize)]
struct MetaFields<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default, deserialize_with = "present")]
    protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default, deserialize_with = "present")]
    client_capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default, deserialize_with = "present")]
    client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default, deserialize_with = "present")]
    log_level: Option<&'a RawValue>,
    #[serde(rename = "progressToken", borrow, default, deserialize_with = "present")]
    progress_token: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    traceparent: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    tracestate: Option<&'a RawValue>,
}

impl MetaFields<'_> {
    /// Where each key sits, in the order of [`MetaKeys`]' fields.
    fn spans(&self, span: impl Fn(&RawValue) -> Span) -> [Option<Span>; 7] {
        [
            self.protocol_version,
            self.client_capabilities,
            self.client_info,
            self.log_level,
            self.progress_token,
            self.traceparent,
            self.tracestate,
        ]
        .map(|raw| raw.map(&span))
    }
}

/// The string a JSON value's text holds (borrowed unless written with escapes); `None` when it
/// is not a string (or not one serde_json can read).
pub(crate) fn string_value(value: &str) -> Option<Cow<'_, str>> {
    if !value.starts_with('"') {
        return None;
    }
    // A string written with no escape, quote or control character inside is exactly its
    // text between the quotes (what a method name or a revision always is): no parser needed.
    if let Some(inner) = value.get(1..value.len() - 1).filter(|_| value.len() >= 2 && value.ends_with('"')) {
        if !inner.bytes().any(|b| b == b'\\' || b == b'"' || b < 0x20) {
            return Some(Cow::Borrowed(inner));
        }
    }
    serde_json::from_str::<Str>(value).ok().map(|s| s.0)
}

/// A string, borrowed from the text unless written with escapes.
pub(crate) struct Str<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Str<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The value of the top-level member `key` of the object `text` holds (the last, when given
/// twice), the others passed over unread.
pub(crate) fn member<'a>(text: &'a str, key: &str) -> Option<&'a RawValue> {
    struct Find<'k>(&'k str);
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = Option<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(Str(key)) = map.next_key::<Str>()? {
                if key == self.0 {
                    found = Some(map.next_value::<&RawValue>()?);
                } else {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    serde_json::Deserializer::from_str(text).deserialize_map(Find(key)).ok().flatten()
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

// Length caps on what a peer names, applied as the params decode.

/// The longest URI accepted in `resources/*` and `completion/complete` (a 4 096-byte path,
/// every byte percent-encoded, still fits).
pub const MAX_URI_BYTES: usize = 16 * 1024;
/// The longest tool, prompt or argument name accepted in a request (names we register are at
/// most 128 characters).
pub const MAX_NAME_BYTES: usize = 1024;

fn capped<'de, D: Deserializer<'de>>(deserializer: D, what: &str, max: usize) -> Result<String, D::Error> {
    let value = String::deserialize(deserializer)?;
    if value.len() > max {
        return Err(serde::de::Error::custom(format!("{what} is longer than {max} bytes ({} bytes)", value.len())));
    }
    Ok(value)
}

/// Decodes a URI of at most [`MAX_URI_BYTES`].
pub(crate) fn uri<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    capped(deserializer, "uri", MAX_URI_BYTES)
}

/// Decodes a name of at most [`MAX_NAME_BYTES`].
pub(crate) fn name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    capped(deserializer, "name", MAX_NAME_BYTES)
}

/// Decodes a name of at most [`MAX_NAME_BYTES`], borrowed from the params' text when it holds
/// no escapes (the usual tool name), so reading it allocates nothing.
pub(crate) fn name_borrowed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Cow<'de, str>, D::Error> {
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, name: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(name))
        }
        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(name.to_owned()))
        }
        fn visit_string<E: serde::de::Error>(self, name: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(name))
        }
    }
    let value = deserializer.deserialize_str(Visit)?;
    if value.len() > MAX_NAME_BYTES {
        let why = format!("name is longer than {MAX_NAME_BYTES} bytes ({} bytes)", value.len());
        return Err(serde::de::Error::custom(why));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(text: &str) -> Params {
        assert!(serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object() || v.is_null()), "{text}");
        Params::from_text(text)
    }

    #[test]
    fn reserved_members_are_read_as_a_map_reads_them() {
        let p =
            raw(r#"{"name":"x","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#);
        let keys = p.meta_keys().unwrap();
        assert_eq!(keys.progress_token, Some("7"));
        assert!(keys.per_request());
        // Escaped key spellings are the same key.
        let p = raw(r#"{"\u005fmeta":{"progress\u0054oken":1},"requestState":"s"}"#);
        assert_eq!(p.meta_keys().unwrap().progress_token, Some("1"));
        assert_eq!(p.reserved().request_state, Some(r#""s""#));
        // A reserved key given twice: none found (the method's own reading says what is wrong).
        assert!(raw(r#"{"_meta":{"progressToken":1,"progressToken":2}}"#).meta_keys().is_none());
        assert!(raw(r#"{"_meta":{},"_meta":{"progressToken":2}}"#).read_meta().is_none());
        assert!(raw(r#"{"requestState":"a","requestState":"b"}"#).reserved().request_state.is_none());
        // Not an object, null, nested: no keys.
        assert!(raw(r#"{"_meta":"text"}"#).meta_keys().is_none());
        let p = raw(r#"{"_meta":null,"arguments":{"_meta":{"progressToken":3}}}"#);
        assert_eq!(p.meta_text(), Some("null"));
        assert!(p.read_meta().is_none());
        assert!(!raw(r#"{"_meta":{"progressToken":1}}"#).meta_keys().unwrap().per_request());
    }

    /// The params read with their envelope are the params read alone: the same text, the
    /// same reserved members found where they sit, whatever the spelling.
    #[test]
    fn params_read_with_their_envelope_are_params_read_alone() {
        let cases = [
            r#"{"name":"echo","arguments":{"message":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{ "_meta" : { "progressToken" : 7 } , "z" : [1] }"#,
            "{\n\t\"a\" :1\r\n}",
            r#"{}"#,
            r#"{ }"#,
            r#"{"\u005fmeta":{"progressToken":1},"x":2}"#,
            r#"{"x":2,"\u005fmeta":{"progressToken":1}}"#,
            r#"{"_meta":{"progressToken":1,"progressToken":2},"inputResponses":{"a":1}}"#,
            r#"{"_meta":{},"_meta":{"progressToken":2}}"#,
            r#"{"_meta":"text","requestState":"s"}"#,
            r#"{"_meta":null,"inputResponses":null}"#,
            r#"{"inputResponses":{"q":{"action":"accept"}},"requestState":"abc","inputResponses":1}"#,
            r#"{"a":{"b":"}"},"c":"{"}"#,
            r#"{"name":"x","_meta":{"progressToken":"t","other":[1,{"a":"}"}]} }"#,
            r#"{"name":"x","_meta":{}}"#,
            r#"{"name":"x","_meta":null}"#,
            r#"{"_meta":{"progressToken":1},"name":"x"}"#,
            r#"{"_meta":[1,2],"name":"x"}"#,
            r#"{"name":"x","_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/logLevel":"debug"}}"#,
            r#"{"name":"x","_meta":{"\u0070rogressToken":3}}"#,
        ];
        let seen = |p: &Params| {
            let meta = p.read_meta().map(|m| m.keys.map(|k| format!("{k:?}")).map_err(|(text, _)| text.to_owned()));
            (p.text().to_owned(), format!("{:?}", p.reserved()), meta, p.meta_text().map(str::to_owned))
        };
        for params in cases {
            let message = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params": {params} }}"#);
            let read = match crate::wire::jsonrpc::parse(&message) {
                Ok(crate::wire::jsonrpc::Incoming::Single(crate::wire::jsonrpc::Message::Request(r))) => r.params,
                other => panic!("{params}: {other:?}"),
            };
            let alone = Params::from_text(params);
            let (text, reserved, meta, meta_text) = seen(&read);
            let expected = seen(&alone);
            assert_eq!(
                serde_json::from_str::<Value>(&text).ok(),
                serde_json::from_str::<Value>(&expected.0).ok(),
                "{params}"
            );
            assert_eq!((reserved, meta, meta_text), (expected.1, expected.2, expected.3), "{params}");
        }
    }

    /// A string's value is what serde_json reads, whether it takes the path with no escape or
    /// the parser's; anything else is no string.
    #[test]
    fn a_string_value_is_what_serde_json_reads() {
        let cases = [
            r#""tools/call""#,
            r#""""#,
            r#""2026-07-28""#,
            r#""a\"b""#,
            r#""\u00e9t\u00e9""#,
            "\"caf\u{e9}\"",
            r#""a\\""#,
            "\"tab\there\"",
            r#"""#,
            r#""unterminated"#,
            r#"1"#,
            r#"null"#,
            r#""a"b""#,
            r#"" x ""#,
        ];
        for text in cases {
            let expected = serde_json::from_str::<String>(text).ok();
            assert_eq!(string_value(text).map(Cow::into_owned), expected, "{text}");
        }
        assert!(matches!(string_value(r#""tools/call""#), Some(Cow::Borrowed("tools/call"))));
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
        assert_eq!(raw(r#"{"\u005fmeta":null}"#).meta_text(), Some("null"));
    }

    #[test]
    fn parse_borrows_and_reports_what_did_not_fit() {
        #[derive(Deserialize, Debug)]
        struct Call<'a> {
            name: &'a str,
            #[serde(default)]
            arguments: Option<Value>,
            #[serde(borrow, default)]
            raw: Option<&'a RawValue>,
        }
        let p =
            raw(r#"{"n\u0061me":"echo","arguments":{"a":[1,{"b":null}]},"_meta":{"x":{"y":[]}},"raw":[1, 2],"z":0}"#);
        let call = p.parse::<Call>().unwrap();
        assert_eq!((call.name, call.raw.map(RawValue::get)), ("echo", Some("[1, 2]")));
        assert_eq!(call.arguments, Some(json!({"a": [1, {"b": null}]})));
        let e = raw(r#"{"arguments":{}}"#).parse::<Call>().err().unwrap();
        assert!(e.message.contains("missing field `name`"), "{}", e.message);
        let e = raw(r#"{"name":"a","name":"b"}"#).parse::<Call>().err().unwrap();
        assert!(e.message.contains("duplicate field `name`"), "{}", e.message);
        assert!(raw("null").parse::<Call>().is_err() && raw("null").parse::<Value>().unwrap() == json!({}));
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
