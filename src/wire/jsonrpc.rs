//! JSON-RPC 2.0 messages: request ids, and envelopes read by serde_json (a single message into
//! a borrowed `Envelope`, its members kept as their text; anything else through
//! `serde_json::Value`). Error codes and the error object live in `error`, writing frames in
//! `frame`.
//! Knows nothing of MCP but the table of method names (`protocol`, pure data), whose row a known
//! name is kept as: every other module may use it, it uses no other.
use super::error::{json_error, RpcError};
use super::params::{present, string_value, Params, Str};
use crate::wire::protocol::{self, Spec};
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Number, Value};
use std::borrow::Cow;
use std::fmt;

/// A request id: a string or an integer, echoed back exactly as received.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (any size `serde_json` keeps exactly: i64 and u64).
    Number(Number),
    /// A string id.
    String(String),
}

impl RequestId {
    /// Reads an id from JSON: a string or an integer.
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n.clone())),
            _ => None,
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n.into())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A method name as received. A name the server knows is kept as its row of the method table
/// (`protocol::METHODS`), so the usual request allocates nothing for its name and every layer
/// reads its facts without matching strings; any other name is kept as sent.
#[derive(Clone, PartialEq, Eq)]
pub struct Method(Name);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Name {
    Known(&'static Spec),
    Other(String),
}

impl Method {
    /// The name, borrowed.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Name::Known(spec) => spec.name,
            Name::Other(name) => name,
        }
    }

    /// The method's row of the table, if the server knows it.
    pub(crate) fn spec(&self) -> Option<&'static Spec> {
        match self.0 {
            Name::Known(spec) => Some(spec),
            Name::Other(_) => None,
        }
    }
}

impl From<&str> for Method {
    fn from(name: &str) -> Method {
        match protocol::spec(name) {
            Some(spec) => Method(Name::Known(spec)),
            None => Method(Name::Other(name.to_owned())),
        }
    }
}

impl From<String> for Method {
    fn from(name: String) -> Method {
        match protocol::spec(&name) {
            Some(spec) => Method(Name::Known(spec)),
            None => Method(Name::Other(name)),
        }
    }
}

impl std::ops::Deref for Method {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Method {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Method {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Reads as the name, as a `&str` would.
impl fmt::Debug for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request: it expects exactly one response with the same id.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id to echo.
    pub id: RequestId,
    /// The method name.
    pub method: Method,
    /// The params, as their text; absent or `null` reads as an empty object.
    pub params: Params,
}

/// A notification: never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: Method,
    /// The params, as their text; absent or `null` reads as an empty object.
    pub params: Params,
}

/// A response to a request we sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of our request.
    pub id: RequestId,
    /// The result or the error.
    pub outcome: Result<Value, RpcError>,
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response.
    Response(Response),
}

/// A message that could not be read, with the id to answer when one was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    /// The id of the broken request, when it had a valid one.
    pub id: Option<RequestId>,
    /// What to answer.
    pub error: RpcError,
}

/// What one line or body holds: a message or a batch of them.
// A single message is every message but a rare batch, and lives only until it is routed:
// boxing it would cost an allocation per message to shrink the rare case.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A JSON array of messages (JSON-RPC batch).
    Batch(Vec<Result<Message, Malformed>>),
}

/// Parses one line (stdio) or one body (HTTP).
pub fn parse(text: &str) -> Result<Incoming, Malformed> {
    // The common case, one object, is read by serde_json into a borrowed envelope: the members
    // JSON-RPC reads kept as their text, nothing copied but the id. Anything else (a batch, a
    // member given twice, a name serde_json cannot read) takes the general path below, which
    // decides what to answer.
    if let Some(fields) = envelope(text) {
        return from_fields(fields).map(Incoming::Single);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| Malformed {
        id: None,
        error: RpcError::parse_error(format!("parse error: {}", json_error(&e))),
    })?;
    parse_value(value)
}

/// The members of one message object that JSON-RPC reads, each as its text when present
/// (`null` included); any other member is passed over.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// One message object read by serde_json into an [`Envelope`]. `None` sends it down the
/// general path: not one valid object, a member JSON-RPC reads given twice, a method name or a
/// `jsonrpc` that serde_json cannot read as a string (a lone surrogate: it says why).
fn envelope(text: &str) -> Option<Fields> {
    // A derived struct reads an array too, as its members in order: only an object is one.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let envelope: Envelope = serde_json::from_str(text).ok()?;
    let jsonrpc_is_2_0 = match envelope.jsonrpc.map(RawValue::get) {
        Some(r#""2.0""#) => true,
        Some(value) if value.starts_with('"') => string_value(value)? == "2.0",
        _ => false,
    };
    let method = match envelope.method.map(RawValue::get) {
        None => None,
        Some(value) if value.starts_with('"') => Some(MethodField::Name(match string_value(value)? {
            Cow::Borrowed(name) => name.into(),
            Cow::Owned(name) => name.into(),
        })),
        Some(_) => Some(MethodField::NotText),
    };
    // An id JSON holds but serde_json cannot read (`1e400`, out of range; a lone surrogate)
    // is an invalid id, never a missing one (a notification). (Its position in the id's own
    // text would mislead: said without it.)
    let id = envelope.id.map(|raw| {
        let value = raw.get();
        serde_json::from_str::<Value>(value).map_err(|e| {
            let why = json_error(&e);
            let why = why.split(" at line ").next().unwrap_or_default();
            let shown: String = value.chars().take(40).collect();
            format!("{shown} ({why})")
        })
    });
    let json = |raw: Option<&RawValue>| raw.and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok());
    Some(Fields {
        id,
        jsonrpc_is_2_0,
        method,
        params: match envelope.params.map(RawValue::get) {
            None | Some("null") => None,
            Some(params) if params.starts_with('{') => Some(ParamsField::Read(Params::found(params.into()))),
            Some(_) => Some(ParamsField::NotObject),
        },
        result: json(envelope.result),
        error: json(envelope.error),
    })
}

/// What the beginning of a message says of it, of which only a part was read (a line over the
/// size cap): its id and whether it is an answer (a `result` or `error` member) or a request
/// (`method`), each when its top-level member comes whole before the text ends.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Head {
    /// The first top-level `id`, when valid and followed by more text (`12` of `123` is never
    /// taken).
    pub id: Option<RequestId>,
    /// `Some(true)`: a `result` or `error` member began; `Some(false)`: a `method` member came
    /// whole.
    pub answer: Option<bool>,
}

/// Reads the [`Head`] of a message of which only `start` was read. Nothing else of the
/// message is checked; a message that is not an object has none.
pub(crate) fn head(start: &[u8]) -> Head {
    // A character cut at the end is left out.
    let text = match std::str::from_utf8(start) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&start[..e.valid_up_to()]).unwrap_or_default(),
    };
    struct Read<'h, 't>(&'h mut Head, &'t str);
    impl<'de> Visitor<'de> for Read<'_, 'de> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let Read(head, text) = self;
            while let Some(Str(key)) = map.next_key::<Str>()? {
                match &*key {
                    "id" => {
                        let raw: &RawValue = map.next_value()?;
                        // Whole only when something follows it: a number may go on.
                        let end = raw.get().as_ptr() as usize + raw.get().len() - text.as_ptr() as usize;
                        let whole = text.get(end..).is_some_and(|rest| !rest.trim_start().is_empty());
                        if head.id.is_none() && whole {
                            head.id =
                                serde_json::from_str(raw.get()).ok().and_then(|v: Value| RequestId::from_value(&v));
                        }
                    }
                    "method" => {
                        map.next_value::<IgnoredAny>()?;
                        head.answer = Some(false);
                    }
                    "result" | "error" => {
                        head.answer.get_or_insert(true);
                        map.next_value::<IgnoredAny>()?;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut head = Head::default();
    // The text ends early: the error says so, and what was read before it stays.
    let _ = serde_json::Deserializer::from_str(text).deserialize_map(Read(&mut head, text));
    head
}

/// The id of a message of which only `start` was read (a line over the size cap): the value of
/// its top-level `id` member, when that member comes whole before the text ends and is a valid
/// id (see [`head`]).
pub fn leading_id(start: &[u8]) -> Option<RequestId> {
    head(start).id
}

/// Reads an already parsed JSON value as a message or batch.
pub fn parse_value(value: Value) -> Result<Incoming, Malformed> {
    match value {
        Value::Array(items) if items.is_empty() => {
            Err(Malformed { id: None, error: RpcError::invalid_request("invalid request: empty batch") })
        }
        Value::Array(items) => Ok(Incoming::Batch(items.into_iter().map(message).collect())),
        other => message(other).map(Incoming::Single),
    }
}

/// The members of a message that JSON-RPC reads (the rest is ignored), each `Some` when present,
/// even as `null`.
struct Fields {
    /// The id, or why its value could not be read.
    id: Option<Result<Value, String>>,
    jsonrpc_is_2_0: bool,
    method: Option<MethodField>,
    params: Option<ParamsField>,
    result: Option<Value>,
    error: Option<Value>,
}

/// A `params` member: read with its message (into an [`Envelope`]: an object, or anything
/// else), or its value (the general path).
enum ParamsField {
    Read(Params),
    NotObject,
    Value(Value),
}

/// A `method` member: a name, or anything else (which the message is refused for).
enum MethodField {
    Name(Method),
    NotText,
}

fn message(value: Value) -> Result<Message, Malformed> {
    let Value::Object(mut obj) = value else {
        return Err(Malformed {
            id: None,
            error: RpcError::invalid_request("invalid request: expected a JSON object"),
        });
    };
    from_fields(Fields {
        id: obj.remove("id").map(Ok),
        jsonrpc_is_2_0: obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
        method: obj.remove("method").map(|m| match m {
            Value::String(name) => MethodField::Name(name.into()),
            _ => MethodField::NotText,
        }),
        params: obj.remove("params").map(ParamsField::Value),
        result: obj.remove("result"),
        error: obj.remove("error"),
    })
}

fn from_fields(fields: Fields) -> Result<Message, Malformed> {
    let Fields { id: raw_id, jsonrpc_is_2_0, method, params, result, error } = fields;
    let id = match &raw_id {
        None => None,
        Some(Err(why)) => {
            return Err(bad(
                None,
                &format!("invalid request: id must be a string or an integer, and {why} cannot be read"),
            ))
        }
        Some(Ok(v)) => match RequestId::from_value(v) {
            Some(id) => Some(id),
            // A response to a request that could not be read carries `id: null`.
            None if v.is_null() && (error.is_some() || result.is_some()) => None,
            None => {
                return Err(bad(None, "invalid request: id must be a string or an integer"));
            }
        },
    };
    if !jsonrpc_is_2_0 {
        return Err(bad(id, "invalid request: jsonrpc must be \"2.0\""));
    }
    if let Some(method) = method {
        let MethodField::Name(method) = method else {
            return Err(bad(id, "invalid request: method must be a string"));
        };
        let params = match params {
            None | Some(ParamsField::Value(Value::Null)) => Params::default(),
            Some(ParamsField::Value(p @ Value::Object(_))) => Params::from_value(&p),
            Some(ParamsField::Read(params)) => params,
            Some(_) => {
                return Err(Malformed {
                    id,
                    error: RpcError::invalid_params("invalid params: params must be an object"),
                })
            }
        };
        return Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None if raw_id.is_some() => return Err(bad(None, "invalid request: id is null")),
            None => Message::Notification(Notification { method, params }),
        });
    }
    let outcome = match (result, error) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => {
            Err(error_object(error).ok_or_else(|| bad(id.clone(), "invalid response: malformed error object"))?)
        }
        _ => return Err(bad(id, "invalid request: expected method, result or error")),
    };
    match id {
        Some(id) => Ok(Message::Response(Response { id, outcome })),
        None => Err(bad(None, "invalid response: no id")),
    }
}

fn error_object(value: Value) -> Option<RpcError> {
    let Value::Object(mut obj) = value else { return None };
    let code = obj.get("code")?.as_i64()?;
    let message = obj.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(RpcError { code, message, data: obj.remove("data") })
}

fn bad(id: Option<RequestId>, message: &str) -> Malformed {
    Malformed { id, error: RpcError::invalid_request(message) }
}

#[cfg(test)]
mod tests {
    use super::super::error::{INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
    use super::super::frame::Answer;
    use super::*;
    use serde_json::json;

    fn single(text: &str) -> Message {
        match parse(text) {
            Ok(Incoming::Single(m)) => m,
            other => panic!("not a single message: {other:?}"),
        }
    }

    #[test]
    fn absent_and_null_params_read_as_empty_object() {
        for text in
            [r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#]
        {
            let Message::Request(r) = single(text) else { panic!() };
            assert_eq!(r.params.to_value(), json!({}));
        }
    }

    #[test]
    fn large_integer_ids_are_echoed_exactly() {
        let Message::Request(r) = single(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#) else {
            panic!()
        };
        let out = Answer::new(r.id, Ok(json!({}).into())).to_text();
        assert!(out.contains(r#""id":18446744073709551615"#), "{out}");
    }

    #[test]
    fn non_object_params_are_invalid_params_with_id() {
        let err = parse(r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":[1]}"#).unwrap_err();
        assert_eq!(err.error.code, INVALID_PARAMS);
        assert_eq!(err.id, Some(RequestId::String("a".into())));
    }

    #[test]
    fn bad_envelopes_are_invalid_request() {
        for text in [
            "42",
            r#"{"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            "[]",
        ] {
            assert_eq!(parse(text).unwrap_err().error.code, INVALID_REQUEST, "{text}");
        }
        // An id JSON holds but that cannot be read is invalid, never absent (a notification).
        for id in ["1e400", "-1e400", r#""\ud800""#, "1.5", "true"] {
            let refused = parse(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).unwrap_err();
            assert_eq!((refused.error.code, refused.id), (INVALID_REQUEST, None), "{id}");
        }
        assert_eq!(parse("{").unwrap_err().error.code, PARSE_ERROR);
    }

    #[test]
    fn the_leading_id_is_read_only_when_whole_and_top_level() {
        let id = |text: &str| leading_id(text.as_bytes());
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#), Some(7.into()));
        assert_eq!(id(r#" { "id" : "s" , "par"#), Some(RequestId::String("s".into())));
        assert_eq!(id(r#"{"\u0069d":8,"#), Some(8.into()));
        // Cut short, nested, after the part read, not an id, not an object.
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(id(r#"{"params":{"id":9},"x":"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"x","params":{"a":"#), None);
        assert_eq!(id(r#"{"id":1.5,"#), None);
        assert_eq!(id(r#"[{"id":1},"#), None);
        // A character cut at the end of the bytes read.
        let mut bytes = r#"{"id":"é","x":"é"#.as_bytes().to_vec();
        bytes.pop();
        assert_eq!(leading_id(&bytes), Some(RequestId::String("é".into())));
    }

    #[test]
    fn responses_and_notifications_are_told_apart() {
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Message::Notification(_)
        ));
        let Message::Response(r) = single(r#"{"jsonrpc":"2.0","id":"s1","error":{"code":-1,"message":"no"}}"#) else {
            panic!()
        };
        assert_eq!(r.outcome.unwrap_err().code, -1);
    }

    #[test]
    fn the_borrowed_envelope_reads_every_message_as_the_general_path_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
            r#"{"jsonrpc":"2\u002e0","id":"a\"b","method":"t\u00e9","params":null,"extra":[1,{"x":2}]}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":["a"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#,
            r#"{"jsonrpc":null,"id":1,"method":"a"}"#,
            r#"{"jsonrpc":5,"id":1,"method":"a"}"#,
            r#"{"id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"  {"jsonrpc":"2.0","id":1,"method":"a"}  "#,
        ] {
            let general = parse_value(serde_json::from_str(text).unwrap());
            assert_eq!(parse(text), general, "{text}");
        }
    }

    #[test]
    fn deep_params_cost_no_recursion_and_are_refused_by_the_method() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"a":{deep}}}}}"#);
        let Message::Request(r) = single(&text) else { panic!() };
        let refused = r.params.parse::<Value>().unwrap_err();
        assert!(refused.code == INVALID_PARAMS && refused.message.contains("recursion limit"), "{}", refused.message);
    }

    #[test]
    fn known_and_unknown_method_names_read_alike() {
        let Message::Request(known) = single(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#) else { panic!() };
        let Message::Request(other) = single(r#"{"jsonrpc":"2.0","id":1,"method":"x/\u0079"}"#) else { panic!() };
        assert_eq!((known.method.as_str(), other.method.as_str()), ("tools/call", "x/y"));
        assert!(known.method == "tools/call" && other.method == *"x/y");
    }

    #[test]
    fn mutated_envelopes_are_read_as_serde_json_reads_them() {
        use crate::util::fuzz::{bounded, rounds, Mutator, JSON_TOKENS};
        let envelopes = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":"x","result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        ];
        let mut mutator = Mutator::with_tokens(0x7061_7273, JSON_TOKENS);
        for round in 0..rounds(20_000) {
            let text = mutator.pick(&envelopes);
            let ours = bounded("jsonrpc::parse", round, &text, || parse(&text));
            // What serde_json reads as a value, we read alike; what it refuses as JSON is a
            // parse error. In between: text serde_json holds as JSON but cannot make a value of
            // (`1e400`, a lone surrogate), which only the member holding it decides.
            match serde_json::from_str::<Value>(&text) {
                Ok(value) => assert_eq!(ours, parse_value(value), "round {round}: {text}"),
                Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_err() => {
                    assert_eq!(ours.map_err(|e| e.error.code), Err(PARSE_ERROR), "round {round}: {text}")
                }
                Err(_) => {}
            }
        }
    }
}
