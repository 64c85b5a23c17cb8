//! Errors as JSON-RPC carries them: the codes (JSON-RPC's and those MCP adds) and the error
//! object, which reading (`jsonrpc`, `params`), writing (`frame`) and every method use.
//! A leaf: it imports nothing of the crate.
use serde::Serialize;
use serde_json::Value;
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
/// This server: the request's access token lacks a scope the operation needs (`data.scopes`
/// lists them all). Over Streamable HTTP it is answered `403` with an `insufficient_scope`
/// challenge, so an authorized client can step up.
pub const INSUFFICIENT_SCOPE: i64 = -32003;

/// What a serde_json error says, in words a client can act on. serde_json calls a `\u` escape
/// of half a surrogate pair (`"\ud800"`, JSON a program cannot read as text) "unexpected end of
/// hex escape" or "lone leading surrogate": that is said plainly; other errors keep its words.
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let said = e.to_string();
    if said.starts_with("unexpected end of hex escape") || said.starts_with("lone leading surrogate") {
        return format!(
            "invalid \\u escape: a lone surrogate (\\ud800 to \\udfff must come as a pair, high then low, \
             e.g. \\ud83d\\ude00) at line {} column {}",
            e.line(),
            e.column()
        );
    }
    said
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
    /// `-32003` (`INSUFFICIENT_SCOPE`): `what` needs every scope of `scopes`, which the token lacks.
    pub fn insufficient_scope(what: &str, scopes: &[String]) -> Self {
        Self::new(INSUFFICIENT_SCOPE, format!("{what} needs the scope {}", scopes.join(" ")))
            .with_data(serde_json::json!({ "scopes": scopes }))
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}
