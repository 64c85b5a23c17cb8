//! `ToolError`: what a typed handler's `?` turns any error into. A `std::error::Error` becomes a
//! failure the model reads (`isError: true` and the message); an `RpcError` stays a protocol
//! error, answered as such.

use crate::wire::content::CallToolResult;
use crate::wire::error::{RpcError, INTERNAL_ERROR};
use std::fmt;

/// The error of a typed handler: `?` on any `std::error::Error` gives one.
///
/// In a tool it is a result with `isError: true` whose text is the error's message, unless the
/// error is an [`RpcError`], which is answered as the protocol error it is. In a prompt or a
/// resource template (which have no tool results) any other error is `-32603` with its message.
#[derive(Debug)]
pub struct ToolError(Kind);

#[derive(Debug)]
enum Kind {
    /// The model reads it.
    Failed(String),
    /// The client gets it as a JSON-RPC error.
    Protocol(RpcError),
}

impl ToolError {
    /// A failure with this message, for the model to read.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError(Kind::Failed(message.into()))
    }

    /// A tool's answer: the failure as a tool result, or the protocol error.
    pub(crate) fn into_tool_result(self) -> Result<CallToolResult, RpcError> {
        match self.0 {
            Kind::Failed(message) => Ok(CallToolResult::error(message)),
            Kind::Protocol(e) => Err(e),
        }
    }

    /// What a prompt or a template read answers: always a protocol error.
    pub(crate) fn into_rpc(self) -> RpcError {
        match self.0 {
            Kind::Failed(message) => RpcError::new(INTERNAL_ERROR, message),
            Kind::Protocol(e) => e,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Kind::Failed(message) => f.write_str(message),
            Kind::Protocol(e) => write!(f, "{} ({})", e.message, e.code),
        }
    }
}

/// Any error, by `?`: an `RpcError` (found by its type, even when it comes through this blanket
/// conversion) stays a protocol error, anything else is a failure the model reads.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(error);
        match boxed.downcast::<RpcError>() {
            Ok(rpc) => ToolError(Kind::Protocol(*rpc)),
            Err(other) => ToolError(Kind::Failed(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_std_error_is_read_by_the_model_and_an_rpc_error_is_not() {
        let parse: ToolError = "x".parse::<i32>().unwrap_err().into();
        let result = parse.into_tool_result().expect("a tool result");
        assert!(result.is_error);
        let rpc: ToolError = RpcError::invalid_params("no").into();
        assert_eq!(rpc.into_tool_result().expect_err("a protocol error").message, "no");
        assert_eq!(ToolError::new("gone").into_rpc().code, INTERNAL_ERROR);
    }
}
