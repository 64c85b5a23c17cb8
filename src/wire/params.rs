//! A message's params as they came: kept as their JSON text until the method reads them into its
//! own typed struct, so a request is parsed once, borrowing from that text, instead of first
//! into a map of owned strings and then again out of it.

use super::rpc::RpcError;
use super::scan;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
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

const MEMBERS: usize = 8;

impl Params {
    /// Params read from a message: `text` must be a valid JSON object or `null` (the caller
    /// checked it, and refuses the rest with `-32602`).
    pub(crate) fn from_text(text: &str) -> Params {
        if text == "null" {
            return Params::default();
        }
        Params::located(text.into())
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
        serde_json::from_str(self.text()).map_err(|e| RpcError::invalid_params(format!("invalid params: {e}")))
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

/// Finds the [`Member`]s in an object's text without copying anything (`scan`): nothing is
/// found when the text does not read as an object of distinct reserved keys, and no member of
/// `_meta` when it does not (the method's own reading then says what is wrong). Offsets fit in
/// `u32`: a message is capped far below 4 GiB.
fn locate(whole: &str) -> ([Option<(u32, u32)>; MEMBERS], bool) {
    let mut spans = [None; MEMBERS];
    if !find(whole, 0, &HEAD, &mut spans) {
        return ([None; MEMBERS], false);
    }
    let Some((start, end)) = spans[Member::Meta as usize] else { return (spans, true) };
    let meta = &whole[start as usize..end as usize];
    if meta == "null" {
        return (spans, true);
    }
    let mut inner = [None; MEMBERS];
    if !find(meta, start as usize, &META, &mut inner) {
        return (spans, false);
    }
    for (_, member) in META {
        spans[member as usize] = inner[member as usize];
    }
    (spans, true)
}

/// Puts where each of `keys` sits in the object `text` (itself at `offset` in the params) into
/// `spans`; `false` when `text` is no object or holds one of them twice.
fn find(text: &str, offset: usize, keys: &[(&str, Member)], spans: &mut [Option<(u32, u32)>; MEMBERS]) -> bool {
    let span =
        |start: usize, end: usize| Some((u32::try_from(offset + start).ok()?, u32::try_from(offset + end).ok()?));
    scan::members(text, |m| {
        let Some(&(_, member)) = keys.iter().find(|(key, _)| m.is(key)) else { return true };
        let slot = &mut spans[member as usize];
        slot.is_none() && {
            *slot = span(m.start, m.end);
            slot.is_some()
        }
    })
    .is_some()
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

/// Reads past a member's value keeping nothing, for a method's params struct that leaves a
/// member to others (`_meta`, located when the message was read). serde_json's own skipping
/// allocates a stack for a value nested two deep; walking it allocates nothing (an escaped key
/// aside).
pub(crate) fn skip<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    Skip::deserialize(deserializer).map(|_| ())
}

struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Skip, D::Error> {
        deserializer.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<IgnoredAny, Skip>()?.is_some() {}
        Ok(Skip)
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
        Params::from_text(text)
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
    fn values_round_trip() {
        let v = json!({"a": [1, {"b": null}], "_meta": {"k": "v"}});
        let p = Params::from_value(&v);
        assert_eq!(p.to_value(), v);
        assert_eq!(p.meta_text(), Some(r#"{"k":"v"}"#));
        assert_eq!(Params::from_value(&Value::Null).to_value(), json!({}));
    }
}
