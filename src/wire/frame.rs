//! Writing JSON-RPC frames: a response travels as an `Answer` (its id and its `Reply` or error)
//! to the one writer of its stream, which serialises it once, straight into its output; errors,
//! requests and notifications written as text; the length of any frame counted without writing it.
//! Knows of MCP only the tool's result a `Reply` holds without a box, and the 2026-07-28
//! decoration (`decorate`) written around a result.

use super::call_result::ToolReply;
use super::decoration::Decoration;
use super::rpc::{RequestId, RpcError};
use super::typed::{encoded_len, Members, Typed};
use serde::Serialize;
use serde_json::Value;
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
#[cfg(any(test, feature = "http"))]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::typed::counted;
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
        assert_eq!(error.code(), Some(crate::wire::rpc::INVALID_PARAMS));
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
