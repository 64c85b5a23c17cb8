//! Writing JSON-RPC frames: a response travels as an `Answer` (its id and its `Reply` or error)
//! to the one writer of its stream, which serialises it once, straight into its output; errors,
//! requests and notifications written as text; the length of any frame counted without writing it.
//! A result kept typed on its way (`Typed`: written member by member, no map, no text of its
//! own), a tool's among them (`ToolReply`, held without a box); and what every 2026-07-28 result
//! has written around its own members (`Decoration`: `resultType`, the server's identity in
//! `_meta`, the method's cache hint), computed by the server as data before the result leaves.

use super::content::{CallToolResult, Content, WireBlock};
use super::error::RpcError;
use super::jsonrpc::RequestId;
use super::protocol::ProtocolVersion;
use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

#[derive(Serialize)]
struct ErrorFrame<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RequestId>,
    error: &'a RpcError,
}

#[derive(Serialize)]
struct RequestFrame<'a, P: ?Sized> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a P,
}

#[derive(Serialize)]
struct NotificationFrame<'a, P: ?Sized> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a P,
}

fn to_json<T: Serialize>(frame: &T) -> String {
    // Invariant: these frames hold only strings, numbers and `Value`s, which always serialize.
    serde_json::to_string(frame).expect("JSON-RPC frames always serialize")
}

/// A request's result on its way to the response: a JSON value, or a typed result.
#[derive(Debug)]
pub enum Reply {
    /// A value to serialize.
    Value(Value),
    /// A typed result, serialised by the writer.
    Typed(Box<dyn Typed>),
    /// A tool's result, typed like `Typed` but held without a box (the usual answer).
    Tool(ToolReply),
}

impl From<Value> for Reply {
    fn from(value: Value) -> Reply {
        Reply::Value(value)
    }
}

impl Reply {
    /// The result kept typed (boxed, or a tool's), or else its value.
    pub fn typed(&self) -> Result<&dyn Typed, &Value> {
        match self {
            Reply::Value(value) => Err(value),
            Reply::Typed(typed) => Ok(&**typed),
            Reply::Tool(tool) => Ok(tool),
        }
    }

    /// About how many bytes the result takes as JSON: exact for a `Value` (counted), the typed
    /// result's own estimate otherwise.
    pub fn size_hint(&self) -> usize {
        match self.typed() {
            Ok(typed) => typed.size_hint() + typed.meta().map_or(0, encoded_len),
            Err(value) => encoded_len(value),
        }
    }

    /// Writes the result as compact JSON.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match self.typed() {
            Ok(typed) => {
                out.write_all(b"{")?;
                let mut members = Members::new(&mut *out);
                if let Some(meta) = typed.meta() {
                    members.entry("_meta", meta)?;
                }
                typed.write_members(&mut members)?;
                out.write_all(b"}")?;
            }
            Err(value) => serde_json::to_writer(out, value)?,
        }
        Ok(())
    }
}

/// `result` with `decoration` around it: a tool's result carries it (no box); any other result
/// is boxed with it.
pub(crate) fn decorate(decoration: Arc<Decoration>, result: Reply) -> Reply {
    match result {
        Reply::Tool(ToolReply(result, version, None)) => Reply::Tool(ToolReply(result, version, Some(decoration))),
        Reply::Value(Value::Object(_)) | Reply::Typed(_) | Reply::Tool(_) => {
            Reply::Typed(Box::new(Decorated { result, decoration }))
        }
        Reply::Value(_) => Reply::Value(Value::Null),
    }
}

/// A result (an object `Value`, or typed) boxed with its decoration.
#[derive(Debug)]
struct Decorated {
    result: Reply,
    decoration: Arc<Decoration>,
}

impl Typed for Decorated {
    fn write_members(&self, members: &mut Members<'_>) -> serde_json::Result<()> {
        match self.result.typed() {
            Ok(typed) => {
                self.decoration.write_around(typed.meta(), members)?;
                typed.write_members(members)
            }
            Err(Value::Object(map)) => {
                self.decoration.write(Some(map), map.get("_meta"), members)?;
                map.iter().filter(|(key, _)| *key != "_meta").try_for_each(|(k, v)| members.entry(k, v))
            }
            Err(_) => self.decoration.write(None, None, members),
        }
    }

    /// None: `write_members` writes the merged `_meta` itself.
    fn meta(&self) -> Option<&Value> {
        None
    }

    fn size_hint(&self) -> usize {
        self.result.size_hint() + self.decoration.size_hint()
    }
}

/// A response on its way to the writer of its stream: the id it answers and its outcome.
#[derive(Debug)]
pub struct Answer {
    /// The request's id (`None` for a message so broken that no id could be read).
    pub id: Option<RequestId>,
    /// The result or the error.
    pub outcome: Result<Reply, RpcError>,
    /// What a metered sink counted for this answer (`size_hint`), which its writer counts off.
    pub(crate) metered: usize,
}

impl Answer {
    /// An answer to the request `id`.
    pub fn new(id: RequestId, outcome: Result<Reply, RpcError>) -> Answer {
        Answer { id: Some(id), outcome, metered: 0 }
    }

    /// An error answer.
    pub fn error(id: Option<&RequestId>, error: RpcError) -> Answer {
        Answer { id: id.cloned(), outcome: Err(error), metered: 0 }
    }

    /// About how many bytes the frame takes, without writing it (`Reply::size_hint`).
    pub fn size_hint(&self) -> usize {
        let id = match &self.id {
            Some(RequestId::String(id)) => id.len() + 2,
            _ => 20,
        };
        let outcome = match &self.outcome {
            Ok(reply) => reply.size_hint(),
            Err(error) => error.message.len() + error.data.as_ref().map_or(0, encoded_len) + 40,
        };
        br#"{"jsonrpc":"2.0","id":,"result":}"#.len() + id + outcome
    }

    /// The error code, if the answer is an error.
    pub fn code(&self) -> Option<i64> {
        self.outcome.as_ref().err().map(|e| e.code)
    }

    /// Writes the response frame: `{"jsonrpc":"2.0","id":..,"result":..}` or `.."error":..`.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match (&self.id, &self.outcome) {
            (Some(id), Ok(reply)) => {
                out.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
                serde_json::to_writer(&mut *out, id)?;
                out.write_all(br#","result":"#)?;
                reply.write_to(out)?;
                out.write_all(b"}")
            }
            // A result with no id to answer cannot be framed.
            (None, Ok(_)) => write_error(out, None, &RpcError::internal()),
            (id, Err(error)) => write_error(out, id.as_ref(), error),
        }
    }

    /// The frame as text (for a writer that needs text: SSE events, the in-memory client).
    pub fn to_text(&self) -> String {
        text_of(|out| self.write_to(out))
    }
}

/// A JSON array of response frames: a batch's answers.
pub fn write_batch(out: &mut dyn Write, answers: &[Answer]) -> io::Result<()> {
    out.write_all(b"[")?;
    for (n, answer) in answers.iter().enumerate() {
        if n > 0 {
            out.write_all(b",")?;
        }
        answer.write_to(out)?;
    }
    out.write_all(b"]")
}

/// What `write` writes, as text.
pub fn text_of(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::with_capacity(256);
    // Writing into memory never fails, and what writers write always serializes.
    let _ = write(&mut out);
    // serde_json writes UTF-8 only.
    String::from_utf8(out).unwrap_or_default()
}

fn write_error(out: &mut dyn Write, id: Option<&RequestId>, error: &RpcError) -> io::Result<()> {
    Ok(serde_json::to_writer(out, &ErrorFrame { jsonrpc: "2.0", id, error })?)
}

/// An error response frame, as text: the HTTP transport's refusals, written before any request
/// runs.
pub fn error_response(id: Option<&RequestId>, error: &RpcError) -> String {
    to_json(&ErrorFrame { jsonrpc: "2.0", id, error })
}

/// A request frame (server to client).
pub fn request_text<P: Serialize + ?Sized>(id: &RequestId, method: &str, params: &P) -> String {
    to_json(&RequestFrame { jsonrpc: "2.0", id, method, params })
}

/// A notification frame.
pub fn notification<P: Serialize + ?Sized>(method: &str, params: &P) -> String {
    to_json(&NotificationFrame { jsonrpc: "2.0", method, params })
}

// A result kept typed for its writer.

/// A writer that counts what passes through it to `inner`.
struct CountingWriter<W> {
    inner: W,
    bytes: usize,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.bytes += n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The length of `write`'s output, counted as it is written out instead of built as text (no
/// allocation: this runs for every request and, on a metered stream, every answer).
pub(crate) fn counted(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> usize {
    let mut count = CountingWriter { inner: io::sink(), bytes: 0 };
    // Counting never fails, and what writers write always serializes.
    let _ = write(&mut count);
    count.bytes
}

/// The length of `value` as compact JSON.
pub fn encoded_len(value: &Value) -> usize {
    counted(|out| Ok(serde_json::to_writer(out, value)?))
}

/// The members of a JSON object being written, between its braces: what `Typed::write_members`
/// writes into. Each member brings its comma.
pub struct Members<'w> {
    out: &'w mut dyn Write,
    first: bool,
}

impl<'w> Members<'w> {
    /// The members of an object whose `{` is written already, written into `out`.
    pub(crate) fn new(out: &'w mut dyn Write) -> Members<'w> {
        Members { out, first: true }
    }

    /// One member.
    pub fn entry<V: Serialize + ?Sized>(&mut self, key: &str, value: &V) -> serde_json::Result<()> {
        self.comma()?;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b":").map_err(serde_json::Error::io)?;
        serde_json::to_writer(&mut *self.out, value)
    }

    /// Members already written as JSON (`"a":1,"b":2`), as they are: what is the same in many
    /// results is serialised once.
    pub(crate) fn raw(&mut self, members: &str) -> serde_json::Result<()> {
        self.comma()?;
        self.out.write_all(members.as_bytes()).map_err(serde_json::Error::io)
    }

    fn comma(&mut self) -> serde_json::Result<()> {
        if !std::mem::replace(&mut self.first, false) {
            self.out.write_all(b",").map_err(serde_json::Error::io)?;
        }
        Ok(())
    }
}

/// A result its handler kept typed: the writer of its stream serialises it, member by member,
/// straight into its output (no `Value` map, no text of its own).
pub trait Typed: Send + fmt::Debug {
    /// Writes every member but `_meta` into the object `members` is writing.
    fn write_members(&self, members: &mut Members<'_>) -> serde_json::Result<()>;
    /// The result's own `_meta`, if any: written first, or merged into by a wrapper.
    fn meta(&self) -> Option<&Value>;
    /// About how many bytes the members but `_meta` take as JSON, without writing them (what a
    /// metered stream counts while the result waits for its writer): the length of the data
    /// they carry plus a little for each member.
    fn size_hint(&self) -> usize;
}

// A tool's result as its writer writes it.

/// A result as `to_wire` shapes it, kept typed for the writer of its stream, which serialises
/// it straight into its output: the same members in the order a `Value` (a sorted map) writes
/// them. A `Reply` holds it without a box (the usual answer: one allocation less per call).
#[derive(Debug)]
pub struct ToolReply(pub(crate) CallToolResult, pub(crate) ProtocolVersion, pub(crate) Option<Arc<Decoration>>);

/// With its decoration around it, the result writes its `_meta` itself, merged.
impl Typed for ToolReply {
    fn write_members(&self, members: &mut Members<'_>) -> serde_json::Result<()> {
        let ToolReply(result, version, around) = self;
        if let Some(around) = around {
            around.write_around(result.meta.as_ref(), members)?;
        }
        members.entry("content", &WireBlocks(&result.content, *version))?;
        if result.is_error {
            members.entry("isError", &true)?;
        }
        if let (Some(s), true) = (&result.structured_content, version.has_structured_output()) {
            members.entry("structuredContent", s)?;
        }
        Ok(())
    }

    fn meta(&self) -> Option<&Value> {
        self.0.meta.as_ref().filter(|_| self.2.is_none())
    }

    fn size_hint(&self) -> usize {
        let ToolReply(result, _, around) = self;
        let structured = result.structured_content.as_ref().map_or(0, encoded_len);
        let around = around.as_ref().map_or(0, |a| a.size_hint() + result.meta.as_ref().map_or(0, encoded_len));
        result.content.iter().map(Content::size_hint).sum::<usize>() + structured + around + 40
    }
}

struct WireBlocks<'a>(&'a [Content], ProtocolVersion);

impl Serialize for WireBlocks<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|block| WireBlock(block, self.1)))
    }
}

// What a 2026-07-28 result has written around it.

/// A cache hint (SEP-2549) as the wire writes it: `ttlMs` and `cacheScope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hint {
    pub ttl_ms: u64,
    /// `public` or `private`.
    pub scope: &'static str,
}

/// `_meta` key of the server's identity on every 2026-07-28 result.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What `decorate` adds to a 2026-07-28 result, as data the server computed before the result
/// left for its writer: the identity of the server that made it and the method's cache hint.
/// Members the result has already win (an `input_required` round's `resultType`, a
/// registration's own cache hint), and the server's identity joins the result's own `_meta`.
#[derive(Debug)]
pub(crate) struct Decoration {
    /// The server's identity, serialised once (`Server::latest_info`).
    info: Arc<Box<RawValue>>,
    hint: Option<Hint>,
    /// `_meta` for a result with none of its own, serialised once.
    meta_alone: Box<RawValue>,
    /// Every member it adds to a result that has none of them and no `_meta` (the usual
    /// result), serialised once: `"_meta":{..},"resultType":"complete",..`.
    alone: Box<str>,
}

impl Decoration {
    /// The decoration of results made by the server `info` names, with `hint`.
    pub(crate) fn new(info: Arc<Box<RawValue>>, hint: Option<Hint>) -> Decoration {
        // Invariant: `info` is JSON, so this is too.
        let meta_alone = RawValue::from_string(format!("{{\"{SERVER_INFO}\":{}}}", info.get())).unwrap_or_default();
        let mut decoration = Decoration { info, hint, meta_alone, alone: Box::default() };
        let mut alone = Vec::with_capacity(256);
        // Writing into memory never fails, and these members always serialize.
        let _ = decoration.write(None, None, &mut Members::new(&mut alone));
        // serde_json writes UTF-8 only.
        decoration.alone = String::from_utf8(alone).unwrap_or_default().into();
        decoration
    }

    /// Writes `_meta` and the members a result whose own members are `object` (`None`: a typed
    /// result, which has none of these) lacks.
    pub(crate) fn write(
        &self,
        object: Option<&serde_json::Map<String, Value>>,
        own_meta: Option<&Value>,
        members: &mut Members<'_>,
    ) -> serde_json::Result<()> {
        let has = |key: &str| object.is_some_and(|map| map.contains_key(key));
        match own_meta {
            None => members.entry("_meta", &*self.meta_alone)?,
            own => members.entry("_meta", &WithInfo { own, info: &self.info })?,
        }
        let result_type = object.and_then(|map| map.get("resultType"));
        if result_type.is_none() {
            members.entry("resultType", "complete")?;
        }
        if let (Some(hint), true) = (self.hint, result_type.is_none_or(|t| t == "complete")) {
            if !has("ttlMs") {
                members.entry("ttlMs", &hint.ttl_ms)?;
            }
            if !has("cacheScope") {
                members.entry("cacheScope", hint.scope)?;
            }
        }
        Ok(())
    }
}

impl Decoration {
    /// Writes `_meta` (a tool's result's own, `own`, with the server's identity added) and the
    /// members it adds, none of which a tool's result has.
    pub(crate) fn write_around(&self, own: Option<&Value>, members: &mut Members<'_>) -> serde_json::Result<()> {
        match own {
            None => members.raw(&self.alone),
            own => self.write(None, own, members),
        }
    }

    /// About how many bytes it adds: its server identity and about 100 bytes of members.
    pub(crate) fn size_hint(&self) -> usize {
        self.meta_alone.get().len() + 100
    }
}

/// A result's own `_meta` with the server's identity added (a `_meta` that is not an object
/// is left as it is).
struct WithInfo<'a> {
    own: Option<&'a Value>,
    info: &'a RawValue,
}

impl Serialize for WithInfo<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let own = match self.own {
            Some(Value::Object(own)) => Some(own),
            Some(other) => return other.serialize(serializer),
            None => None,
        };
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in own.into_iter().flatten().filter(|(key, _)| *key != SERVER_INFO) {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry(SERVER_INFO, self.info)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::frame::counted;
    use serde_json::json;

    /// A typed result as a handler might keep it: one member and an optional `_meta`.
    #[derive(Debug)]
    struct Note(&'static str, Option<Value>);

    impl Typed for Note {
        fn write_members(&self, members: &mut Members<'_>) -> serde_json::Result<()> {
            members.entry("note", self.0)
        }
        fn meta(&self) -> Option<&Value> {
            self.1.as_ref()
        }
        fn size_hint(&self) -> usize {
            self.0.len() + 10
        }
    }

    #[test]
    fn an_answer_is_framed_as_its_value_would_be_and_counted_as_written() {
        let long = RequestId::String("x\"".repeat(60));
        for id in [RequestId::from(7), RequestId::String("a\"b".into()), long] {
            for (typed, value) in [
                (Note("h\u{e9}\"", None), json!({"note": "h\u{e9}\""})),
                (Note("n", Some(json!({"k": 1}))), json!({"_meta": {"k": 1}, "note": "n"})),
            ] {
                let answer = Answer::new(id.clone(), Ok(Reply::Typed(Box::new(typed))));
                let expected = json!({"jsonrpc": "2.0", "id": id, "result": value});
                assert_eq!(serde_json::from_str::<Value>(&answer.to_text()).ok(), Some(expected));
                assert_eq!(counted(|out| answer.write_to(out)), answer.to_text().len());
            }
        }
        let error = Answer::error(None, RpcError::invalid_params("no"));
        assert_eq!(error.to_text(), error_response(None, &RpcError::invalid_params("no")));
        assert_eq!(error.code(), Some(crate::wire::error::INVALID_PARAMS));
        let batch = text_of(|out| write_batch(out, &[error, Answer::new(7.into(), Ok(json!({}).into()))]));
        assert_eq!(
            serde_json::from_str::<Value>(&batch).ok(),
            Some(json!([{"jsonrpc": "2.0", "id": null, "error": {"code": -32602, "message": "no"}},
                        {"jsonrpc": "2.0", "id": 7, "result": {}}]))
        );
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

#[cfg(test)]
mod tool_reply_tests {
    use super::*;
    use crate::wire::content::Annotations;
    use serde_json::json;

    #[test]
    fn a_typed_result_written_out_is_its_value_written_out() {
        let annotated = Content::text("b").with_annotations(Annotations { priority: Some(0.5), ..Default::default() });
        let results = [
            CallToolResult::text("Echo: h\u{e9}llo \"x\"\n"),
            CallToolResult::error("no such thing"),
            CallToolResult::structured(json!({"n": 1, "list": [true, null]})),
            CallToolResult {
                content: vec![annotated, Content::image("aGk=", "image/png"), Content::text("c")],
                meta: Some(json!({"k": "v"})),
                ..Default::default()
            },
            CallToolResult::default(),
        ];
        for version in ProtocolVersion::ALL {
            for result in &results {
                let typed = crate::wire::frame::Reply::Tool(ToolReply(result.clone(), version, None));
                let text = crate::wire::frame::text_of(|out| typed.write_to(out));
                assert_eq!(text, result.to_wire(version).to_string(), "{version} {result:?}");
            }
        }
    }
}
