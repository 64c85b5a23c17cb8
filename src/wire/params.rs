//! A message's params as they came: kept as their JSON text until the method reads them into its
//! own typed struct, so a request is parsed once, borrowing from that text, instead of first
//! into a map of owned strings and then again out of it.

use super::rpc::RpcError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// The params of a request or notification: always a JSON object (absent and `null` read as
/// `{}`), held as text.
#[derive(Clone, Default)]
pub struct Params {
    /// `None`: absent or `null`.
    text: Option<Box<RawValue>>,
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
    /// Params read from a message: `raw` must be an object or `null` (the caller refuses the
    /// rest with `-32602`).
    pub(crate) fn from_raw(raw: &RawValue) -> Params {
        if raw.get() == "null" {
            return Params::default();
        }
        Params::located(raw.to_owned())
    }

    /// Params from a value, for messages built in memory; anything but an object reads as `{}`.
    pub fn from_value(value: &Value) -> Params {
        match value {
            Value::Object(_) => {
                serde_json::value::to_raw_value(value).map_or_else(|_| Params::default(), Params::located)
            }
            _ => Params::default(),
        }
    }

    fn located(text: Box<RawValue>) -> Params {
        let (spans, meta_read) = locate(&text);
        Params { text: Some(text), spans, meta_read }
    }

    /// The params as JSON text: `{}` when absent.
    pub fn text(&self) -> &str {
        self.text.as_deref().map_or("{}", RawValue::get)
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
        self.text.as_deref().map(|t| &t.get()[start as usize..end as usize])
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

/// The members of `_meta` located once, borrowed from the params' text.
#[derive(Deserialize)]
pub(crate) struct MetaMembers<'a> {
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
}

/// Finds the [`Member`]s in an object's text without copying anything: nothing is found when
/// the text does not read as an object of distinct keys (the method's own reading then says
/// what is wrong). Offsets fit in `u32`: a message is capped far below 4 GiB.
fn locate(text: &RawValue) -> ([Option<(u32, u32)>; MEMBERS], bool) {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "_meta", borrow, default, deserialize_with = "present")]
        meta: Option<&'a RawValue>,
        #[serde(rename = "inputResponses", borrow, default, deserialize_with = "present")]
        input_responses: Option<&'a RawValue>,
        #[serde(rename = "requestState", borrow, default, deserialize_with = "present")]
        request_state: Option<&'a RawValue>,
    }
    let mut spans = [None; MEMBERS];
    let whole = text.get();
    // Each borrowed value is a slice of `whole`: its place is its address's distance from it.
    let span = |raw: Option<&RawValue>| {
        let part = raw?.get();
        let start = part.as_ptr() as usize - whole.as_ptr() as usize;
        Some((u32::try_from(start).ok()?, u32::try_from(start + part.len()).ok()?))
    };
    let Ok(head) = serde_json::from_str::<Head>(whole) else { return (spans, false) };
    spans[Member::Meta as usize] = span(head.meta);
    spans[Member::InputResponses as usize] = span(head.input_responses);
    spans[Member::RequestState as usize] = span(head.request_state);
    let Some(meta) = head.meta.filter(|m| m.get() != "null") else { return (spans, true) };
    let Ok(members) = serde_json::from_str::<MetaMembers>(meta.get()) else { return (spans, false) };
    spans[Member::ProtocolVersion as usize] = span(members.protocol_version);
    spans[Member::ClientCapabilities as usize] = span(members.client_capabilities);
    spans[Member::ClientInfo as usize] = span(members.client_info);
    spans[Member::LogLevel as usize] = span(members.log_level);
    spans[Member::ProgressToken as usize] = span(members.progress_token);
    (spans, true)
}

/// Why `_meta` does not read as an object of distinct keys, for a request that needs it.
pub(crate) fn meta_error(meta: &str) -> Option<serde_json::Error> {
    serde_json::from_str::<MetaMembers>(meta).err()
}

/// A member that is there, as its text: `null` included (a plain `Option` reads `null` as
/// absent).
pub(crate) fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// Written as the text it came as (a forwarded message is not re-encoded).
impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.text {
            Some(text) => text.serialize(serializer),
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
        Params::from_raw(&serde_json::from_str::<Box<RawValue>>(text).unwrap())
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
