//! JSON-RPC 2.0 envelopes, parsed by hand (a single message's members read straight from the text,
//! anything else through `serde_json::Value`), and their serialization.
//! Knows nothing of MCP: every other module may use it, it uses none of them.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// An internal error of the server (details go to the log, never the wire).
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP: a resource URI that names nothing (up to revision 2025-11-25).
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// MCP 2026-07-28: a routing header disagrees with the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP 2026-07-28: the request needs a client capability that was not declared.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// MCP 2026-07-28: the protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

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

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    /// One of the constants of this module.
    pub code: i64,
    /// A short lowercase sentence that says what was wrong.
    pub message: String,
    /// Extra details for the peer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with a code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }
    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    /// `-32700`.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(PARSE_ERROR, message)
    }
    /// `-32600`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, message)
    }
    /// `-32601` for `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("method not found: {method}"))
    }
    /// `-32602`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }
    /// `-32603` with a generic message; the caller logs the details.
    pub fn internal() -> Self {
        Self::new(INTERNAL_ERROR, "internal error")
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// A method name as received. The names the server knows are kept as `&'static str`, so the
/// usual request allocates nothing for its name; any other name is kept as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method(std::borrow::Cow<'static, str>);

/// The method names a message is likely to carry, most common first.
const KNOWN_METHODS: &[&str] = &[
    "tools/call",
    "ping",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/initialized",
    "notifications/roots/list_changed",
    "initialize",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
];

impl Method {
    /// The name, borrowed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Method {
    fn from(name: &str) -> Method {
        match KNOWN_METHODS.iter().find(|known| **known == name) {
            Some(known) => Method(std::borrow::Cow::Borrowed(known)),
            None => Method(std::borrow::Cow::Owned(name.to_owned())),
        }
    }
}

impl From<String> for Method {
    fn from(name: String) -> Method {
        match KNOWN_METHODS.iter().find(|known| **known == name) {
            Some(known) => Method(std::borrow::Cow::Borrowed(known)),
            None => Method(std::borrow::Cow::Owned(name)),
        }
    }
}

impl std::ops::Deref for Method {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Method {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Method {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A request: it expects exactly one response with the same id.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id to echo.
    pub id: RequestId,
    /// The method name.
    pub method: Method,
    /// The params; absent or `null` reads as an empty object.
    pub params: Value,
}

/// A notification: never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: Method,
    /// The params; absent or `null` reads as an empty object.
    pub params: Value,
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
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A JSON array of messages (JSON-RPC batch).
    Batch(Vec<Result<Message, Malformed>>),
}

/// Parses one line (stdio) or one body (HTTP).
pub fn parse(text: &str) -> Result<Incoming, Malformed> {
    // The common case, one object, is read straight into its members: the envelope's keys and
    // `jsonrpc` are borrowed from the text instead of becoming a map of owned strings (six fewer
    // allocations per message). Anything else, duplicate keys or a member of the wrong type
    // included, takes the general path below, which decides what to answer.
    if text.trim_start().starts_with('{') {
        if let Ok(envelope) = serde_json::from_str::<Envelope>(text) {
            return from_fields(envelope.into()).map(Incoming::Single);
        }
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Malformed { id: None, error: RpcError::parse_error(format!("parse error: {e}")) })?;
    parse_value(value)
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
    id: Option<Value>,
    jsonrpc_is_2_0: bool,
    method: Option<MethodField>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// One message object read without building a map: see `parse`. `jsonrpc` is borrowed, so a
/// version spelled with escapes fails here and takes the general path (no allocation for it).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a str>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "method_field")]
    method: Option<MethodField>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is there, `null` included (plain `Option` would read `null` as absent).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A `method` member: a name, or anything else (which the message is refused for).
enum MethodField {
    Name(Method),
    NotText,
}

/// A `method` member that is there (`null` included), its name read without an allocation
/// when it is one the server knows.
fn method_field<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<MethodField>, D::Error> {
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = MethodField;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_str<E>(self, name: &str) -> Result<MethodField, E> {
            Ok(MethodField::Name(name.into()))
        }
        fn visit_string<E>(self, name: String) -> Result<MethodField, E> {
            Ok(MethodField::Name(name.into()))
        }
        fn visit_bool<E>(self, _: bool) -> Result<MethodField, E> {
            Ok(MethodField::NotText)
        }
        fn visit_i64<E>(self, _: i64) -> Result<MethodField, E> {
            Ok(MethodField::NotText)
        }
        fn visit_u64<E>(self, _: u64) -> Result<MethodField, E> {
            Ok(MethodField::NotText)
        }
        fn visit_f64<E>(self, _: f64) -> Result<MethodField, E> {
            Ok(MethodField::NotText)
        }
        fn visit_unit<E>(self) -> Result<MethodField, E> {
            Ok(MethodField::NotText)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<MethodField, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok(MethodField::NotText)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<MethodField, A::Error> {
            while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
            Ok(MethodField::NotText)
        }
    }
    deserializer.deserialize_any(Visit).map(Some)
}

impl From<Envelope<'_>> for Fields {
    fn from(e: Envelope<'_>) -> Fields {
        Fields {
            id: e.id,
            jsonrpc_is_2_0: e.jsonrpc == Some("2.0"),
            method: e.method,
            params: e.params,
            result: e.result,
            error: e.error,
        }
    }
}

fn message(value: Value) -> Result<Message, Malformed> {
    let Value::Object(mut obj) = value else {
        return Err(Malformed {
            id: None,
            error: RpcError::invalid_request("invalid request: expected a JSON object"),
        });
    };
    from_fields(Fields {
        id: obj.remove("id"),
        jsonrpc_is_2_0: obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
        method: obj.remove("method").map(|m| match m {
            Value::String(name) => MethodField::Name(name.into()),
            _ => MethodField::NotText,
        }),
        params: obj.remove("params"),
        result: obj.remove("result"),
        error: obj.remove("error"),
    })
}

fn from_fields(fields: Fields) -> Result<Message, Malformed> {
    let Fields { id: raw_id, jsonrpc_is_2_0, method, params, result, error } = fields;
    let id = match &raw_id {
        None => None,
        Some(v) => match RequestId::from_value(v) {
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
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(p @ Value::Object(_)) => p,
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

#[derive(Serialize)]
struct ResultFrame<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a Value,
}

#[derive(Serialize)]
struct ErrorFrame<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RequestId>,
    error: &'a RpcError,
}

#[derive(Serialize)]
struct RequestFrame<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a Value,
}

#[derive(Serialize)]
struct NotificationFrame<'a> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a Value,
}

fn to_json<T: Serialize>(frame: &T) -> String {
    // Invariant: these frames hold only strings, numbers and `Value`s, which always serialize.
    serde_json::to_string(frame).expect("JSON-RPC frames always serialize")
}

/// The length of `value` as compact JSON, counted as it is written out instead of built as text
/// (no allocation: this runs for every request).
pub fn encoded_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // A `Value` always serializes and counting never fails, so there is no error to pass on.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A request's result on its way to the response: a JSON value, or its JSON text already
/// written (a handler that knows its result's shape skips building a `Value`: no map, no key
/// strings, one buffer that becomes the frame).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A value to serialize.
    Value(Value),
    /// The result as compact JSON text (an object).
    Json(String),
}

impl Reply {
    /// The result as a value (text is read back: for the rare caller that must edit it).
    pub fn into_value(self) -> Result<Value, RpcError> {
        match self {
            Reply::Value(value) => Ok(value),
            Reply::Json(text) => serde_json::from_str(&text).map_err(|e| {
                log::error!("a result's JSON text does not read back: {e}");
                RpcError::internal()
            }),
        }
    }
}

impl From<Value> for Reply {
    fn from(value: Value) -> Reply {
        Reply::Value(value)
    }
}

/// Writes `value` as compact JSON into a buffer with room for the frame around it (see
/// `response_reply`).
pub fn result_text<T: Serialize>(value: &T) -> String {
    let mut out = Vec::with_capacity(256);
    // Invariant: what handlers write holds strings, numbers and `Value`s, which always serialize.
    serde_json::to_writer(&mut out, value).expect("results always serialize");
    // serde_json writes UTF-8 only.
    String::from_utf8(out).unwrap_or_default()
}

/// The response frame for a `Reply`: a `Reply::Json`'s text becomes the frame in place (the
/// head inserted before it), so the answer costs no allocation of its own.
pub fn response_reply(id: Option<&RequestId>, outcome: Result<Reply, RpcError>) -> String {
    match (id, outcome) {
        (Some(id), Ok(Reply::Json(text))) => frame_text(id, text),
        (id, outcome) => response(id, &outcome.and_then(Reply::into_value)),
    }
}

/// `text` (a result's JSON) inside its response frame, built in place.
fn frame_text(id: &RequestId, mut text: String) -> String {
    let mut head = [0u8; 96];
    let room = head.len();
    let mut w = &mut head[..];
    let fits = std::io::Write::write_all(&mut w, br#"{"jsonrpc":"2.0","id":"#).is_ok()
        && serde_json::to_writer(&mut w, id).is_ok()
        && std::io::Write::write_all(&mut w, br#","result":"#).is_ok();
    let used = room - w.len();
    match std::str::from_utf8(&head[..used]) {
        Ok(head) if fits => {
            text.insert_str(0, head);
            text.push('}');
            text
        }
        // A string id too long for the head buffer.
        _ => response(Some(id), &Reply::Json(text).into_value()),
    }
}

/// A response frame: `{"jsonrpc":"2.0","id":..,"result":..}` or `.."error":..`.
pub fn response(id: Option<&RequestId>, outcome: &Result<Value, RpcError>) -> String {
    match (outcome, id) {
        (Ok(result), Some(id)) => to_json(&ResultFrame { jsonrpc: "2.0", id, result }),
        (Ok(_), None) => to_json(&ErrorFrame { jsonrpc: "2.0", id: None, error: &RpcError::internal() }),
        (Err(error), id) => to_json(&ErrorFrame { jsonrpc: "2.0", id, error }),
    }
}

/// An error response frame.
pub fn error_response(id: Option<&RequestId>, error: &RpcError) -> String {
    to_json(&ErrorFrame { jsonrpc: "2.0", id, error })
}

/// A request frame (server to client).
pub fn request_text(id: &RequestId, method: &str, params: &Value) -> String {
    to_json(&RequestFrame { jsonrpc: "2.0", id, method, params })
}

/// A notification frame.
pub fn notification(method: &str, params: &Value) -> String {
    to_json(&NotificationFrame { jsonrpc: "2.0", method, params })
}

#[cfg(test)]
mod tests {
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
            assert_eq!(r.params, json!({}));
        }
    }

    #[test]
    fn large_integer_ids_are_echoed_exactly() {
        let Message::Request(r) = single(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#) else {
            panic!()
        };
        let out = response(Some(&r.id), &Ok(json!({})));
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
        assert_eq!(parse("{").unwrap_err().error.code, PARSE_ERROR);
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
    fn a_json_reply_is_framed_as_its_value_would_be() {
        let long = RequestId::String("x\"".repeat(60));
        for id in [RequestId::from(7), RequestId::String("a\"b".into()), long] {
            let result = json!({"content": [{"text": "Echo: h\u{e9}", "type": "text"}], "isError": true});
            let framed = response_reply(Some(&id), Ok(Reply::Json(result.to_string())));
            assert_eq!(framed, response(Some(&id), &Ok(result)));
        }
        let error = RpcError::invalid_params("no");
        assert_eq!(response_reply(None, Err(error.clone())), response(None, &Err(error)));
    }

    #[test]
    fn known_and_unknown_method_names_read_alike() {
        let Message::Request(known) = single(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#) else { panic!() };
        let Message::Request(other) = single(r#"{"jsonrpc":"2.0","id":1,"method":"x/\u0079"}"#) else { panic!() };
        assert_eq!((known.method.as_str(), other.method.as_str()), ("tools/call", "x/y"));
        assert!(known.method == "tools/call" && other.method == *"x/y");
    }

    #[test]
    fn encoded_len_is_the_length_of_the_compact_text() {
        for value in
            [json!({}), json!({"name": "echo", "arguments": {"message": "h\u{e9}\"llo\n", "n": [1, 2.5, null]}})]
        {
            assert_eq!(encoded_len(&value), value.to_string().len(), "{value}");
        }
    }
}
