//! Writing JSON-RPC frames: responses (a `Reply`'s text framed in place), errors, requests and
//! notifications, and the length of a value as compact JSON.
//! Knows nothing of MCP.

use super::rpc::{RequestId, RpcError};
use serde::Serialize;
use serde_json::Value;

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
    fn encoded_len_is_the_length_of_the_compact_text() {
        for value in
            [json!({}), json!({"name": "echo", "arguments": {"message": "h\u{e9}\"llo\n", "n": [1, 2.5, null]}})]
        {
            assert_eq!(encoded_len(&value), value.to_string().len(), "{value}");
        }
    }
}
