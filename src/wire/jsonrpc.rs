//! JSON-RPC 2.0 envelopes, parsed by hand (a single message's members read straight from the text,
//! anything else through `serde_json::Value`). Ids and error codes live in `rpc`, writing frames
//! in `frame`.
//! Knows nothing of MCP but the table of method names (`method`, pure data), whose row a known
//! name is kept as: every other module may use it, it uses no other.

use super::params::{LastMeta, Locate, Location, Params};
use super::rpc::{json_error, RequestId, RpcError};
use super::scan;
use crate::wire::method::{self, Spec};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// A method name as received. A name the server knows is kept as its row of the method table
/// (`method::METHODS`), so the usual request allocates nothing for its name and every layer
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
        match method::spec(name) {
            Some(spec) => Method(Name::Known(spec)),
            None => Method(Name::Other(name.to_owned())),
        }
    }
}

impl From<String> for Method {
    fn from(name: String) -> Method {
        match method::spec(&name) {
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
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A JSON array of messages (JSON-RPC batch).
    Batch(Vec<Result<Message, Malformed>>),
}

/// Parses one line (stdio) or one body (HTTP).
pub fn parse(text: &str) -> Result<Incoming, Malformed> {
    read(text, None)
}

/// Parses one message of a stream whose last `_meta` is `last` (`LastMeta`): the same one
/// again is not walked again.
pub(crate) fn parse_after(text: &str, last: &mut LastMeta) -> Result<Incoming, Malformed> {
    read(text, Some(last))
}

fn read(text: &str, last: Option<&mut LastMeta>) -> Result<Incoming, Malformed> {
    // The common case, one object, is read by hand (`envelope`): its members are found in the
    // text and only the id, a result or an error become values. Anything else, a key given
    // twice or spelled with escapes included, takes the general path below, which decides
    // what to answer.
    if let Some(fields) = envelope(text, last) {
        return from_fields(fields).map(Incoming::Single);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| Malformed {
        id: None,
        error: RpcError::parse_error(format!("parse error: {}", json_error(&e))),
    })?;
    parse_value(value)
}

/// One message object read without building a map, in one walk (`scan`, which checks the whole
/// text is JSON): the method name and the params borrowed from the text, the params' reserved
/// members located on the way (`Locate`). `None` sends it down the general path: not one valid
/// object, a member JSON-RPC reads given twice, a key, a method name or a `jsonrpc` spelled
/// with escapes. The params' `_meta`, when it is `last`, is stepped over; else it becomes `last`.
fn envelope<'a>(text: &'a str, last: Option<&mut LastMeta>) -> Option<Fields<'a>> {
    struct Envelope<'a, 'l> {
        text: &'a str,
        fields: Fields<'a>,
        seen: [bool; 6],
        params: Locate,
        /// Where `params` sits in the text.
        params_at: Option<(usize, usize)>,
        last: Option<&'l LastMeta>,
    }
    impl<'a> scan::Walk<'a> for Envelope<'a, '_> {
        fn enter(&mut self, depth: usize, key: &'a str, escaped: bool, at: usize) -> scan::Enter {
            match depth {
                0 if !escaped && key == "params" => scan::Enter::Walk,
                0 => scan::Enter::Over,
                _ => self.params.enter(depth, key, escaped, at, self.last.map(|last| (last, &self.text[at..]))),
            }
        }
        fn member(&mut self, depth: usize, member: scan::Member<'a>) -> bool {
            const KEYS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
            if depth > 0 {
                self.params.member(depth, member);
                return true;
            }
            if member.escaped {
                return false;
            }
            let Some(which) = KEYS.iter().position(|k| *k == member.key) else { return true };
            let value = &self.text[member.start..member.end];
            if std::mem::replace(&mut self.seen[which], true) {
                return false;
            }
            let json = || serde_json::from_str::<Value>(value).ok();
            let fields = &mut self.fields;
            // `jsonrpc` and `method` are compared as written: spelled with escapes, the general
            // path reads them.
            match which {
                0 => match scan::string_value(value) {
                    Some(Cow::Owned(_)) => return false,
                    text => fields.jsonrpc_is_2_0 = text.as_deref() == Some("2.0"),
                },
                // An id JSON holds but serde_json cannot read (`1e400`, out of range; a lone
                // surrogate) is an invalid id, never a missing one (a notification).
                // (Its position in the id's own text would mislead: said without it.)
                1 => {
                    fields.id = Some(serde_json::from_str::<Value>(value).map_err(|e| {
                        let why = json_error(&e);
                        let why = why.split(" at line ").next().unwrap_or_default();
                        let shown: String = value.chars().take(40).collect();
                        format!("{shown} ({why})")
                    }))
                }
                2 => {
                    fields.method = Some(match scan::string_value(value) {
                        Some(Cow::Borrowed(name)) => MethodField::Name(name.into()),
                        Some(Cow::Owned(_)) => return false,
                        // A string serde_json cannot read (a lone surrogate): it says why.
                        None if value.starts_with('"') => return false,
                        None => MethodField::NotText,
                    })
                }
                3 => self.params_at = Some((member.start, member.end)),
                4 => fields.result = json(),
                _ => fields.error = json(),
            }
            true
        }
    }
    let fields = Fields { id: None, jsonrpc_is_2_0: false, method: None, params: None, result: None, error: None };
    let mut walk =
        Envelope { text, fields, seen: [false; 6], params: Locate::new(1), params_at: None, last: last.as_deref() };
    scan::walk(text, &mut walk)?;
    let Envelope { mut fields, params, params_at, .. } = walk;
    fields.params = params_at.map(|(start, end)| {
        let value = &text[start..end];
        let recalled = params.recalled();
        let location = params.finish(value, start);
        if let Some(last) = last.filter(|_| !recalled) {
            last.keep(value, &location);
        }
        ParamsField::Located(value, location)
    });
    Some(fields)
}

/// The id of a message of which only `start` was read (a line over the size cap): the value of
/// its top-level `id` member, when that member comes whole before the text ends and is a valid
/// id. Nothing else of the message is checked; a message that is not an object, or whose `id`
/// comes after the part read, has none.
pub fn leading_id(start: &[u8]) -> Option<RequestId> {
    // A character cut at the end is left out.
    let text = match std::str::from_utf8(start) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(start.get(..e.valid_up_to())?).ok()?,
    };
    // A member is given only once what follows its value (`,`) was read: an id cut short
    // (`12` of `123`) is never taken.
    let member = scan::Members::of(text).find(|m| m.is("id"))?;
    let value: Value = serde_json::from_str(text.get(member.start..member.end)?).ok()?;
    RequestId::from_value(&value)
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
struct Fields<'a> {
    /// The id, or why its value could not be read.
    id: Option<Result<Value, String>>,
    jsonrpc_is_2_0: bool,
    method: Option<MethodField>,
    params: Option<ParamsField<'a>>,
    result: Option<Value>,
    error: Option<Value>,
}

/// A `params` member: its text as sent (one message read straight from its text), or its value
/// (the general path).
enum ParamsField<'a> {
    /// Its text, its members located.
    Located(&'a str, Location),
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
            Some(ParamsField::Located(text, location)) if text == "null" || text.starts_with('{') => {
                Params::from_text(text, location)
            }
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
    use super::super::frame::Answer;
    use super::super::rpc::{INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
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
    fn a_meta_met_again_is_stepped_over_and_located_as_if_walked() {
        use crate::wire::params::Member;
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x":[1]},"progressToken":7}"#;
        let call = |params: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
        let texts = [
            call(&format!(r#"{{"name":"echo","_meta":{meta}}}"#)),
            // The same bytes again, elsewhere in the params, and with space around them.
            call(&format!(r#"{{"_meta": {meta} ,"name":"echo","arguments":{{"_meta":{meta}}}}}"#)),
            call(&format!(r#"{{"_meta":{meta},"_meta":{meta}}}"#)),
            // Another `_meta`, then the first again; one whose keys repeat is not kept.
            call(r#"{"_meta":{"progressToken":8}}"#),
            call(&format!(r#"{{"_meta":{meta}}}"#)),
            call(r#"{"_meta":{"progressToken":8,"progressToken":9}}"#),
            call(&format!(r#"{{"_meta":{meta}}}"#)),
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"_meta":{meta}}}}}"#),
            // Known bytes in a message broken after them.
            call(&format!(r#"{{"_meta":{meta},}}"#)),
            call(&format!(r#"{{"_meta":{}}}"#, &meta[..meta.len() - 1])),
        ];
        let members = [
            Member::Meta,
            Member::ProtocolVersion,
            Member::ClientCapabilities,
            Member::ClientInfo,
            Member::LogLevel,
            Member::ProgressToken,
        ];
        let located = |incoming: &Result<Incoming, Malformed>| match incoming {
            Ok(Incoming::Single(Message::Request(Request { params, .. })))
            | Ok(Incoming::Single(Message::Notification(Notification { params, .. }))) => {
                Some((members.map(|m| params.member(m).map(str::to_owned)), params.meta_read()))
            }
            _ => None,
        };
        let mut last = LastMeta::default();
        for text in &texts {
            let (alone, after) = (parse(text), parse_after(text, &mut last));
            assert_eq!(after, alone, "{text}");
            assert_eq!(located(&after), located(&alone), "{text}");
        }
        assert!(located(&parse(&texts[0])).is_some_and(|(found, _)| found[2].as_deref() == Some(r#"{"x":[1]}"#)));
    }

    #[test]
    fn known_and_unknown_method_names_read_alike() {
        let Message::Request(known) = single(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#) else { panic!() };
        let Message::Request(other) = single(r#"{"jsonrpc":"2.0","id":1,"method":"x/\u0079"}"#) else { panic!() };
        assert_eq!((known.method.as_str(), other.method.as_str()), ("tools/call", "x/y"));
        assert!(known.method == "tools/call" && other.method == *"x/y");
    }

    #[test]
    fn mutated_envelopes_parse_or_fail_in_time() {
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
            let _ = bounded("jsonrpc::parse", round, &text, || parse(&text));
        }
    }
}
