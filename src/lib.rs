//! tinymcp: a complete Model Context Protocol server, synchronous and small.
//!
//! Register tools, resources and prompts on a [`Server`], then serve it on a transport:
//! [`transport::stdio`], [`MemoryClient`] in the same process, or HTTP (Streamable HTTP and the
//! legacy HTTP+SSE) with the crate `tinymcp-http`: `tinymcp_http::HttpServer::start(server,
//! addr, HttpOptions::default())`. A transport of your own is built from
//! [`transport::kit`]. [`Server::shutdown`] (or dropping the last `Arc<Server>`) stops the
//! server's threads; each transport says how it stops.
//!
//! Handlers get a [`RequestCx`]: the request's protocol revision and client capabilities,
//! cancellation, progress, logging, and requests to the client (sampling, elicitation, roots).
//! Tool failures the model should read are [`CallToolResult::error`]; protocol errors are
//! [`RpcError`]s.
//!
//! ```
//! use std::io::{Cursor, Write};
//! use std::sync::{Arc, Mutex};
//! use serde_json::json;
//! use tinymcp::{CallToolResult, Server, Tool};
//!
//! let server = Server::new("demo", "1.0.0");
//! server.register_tool(
//!     Tool::new("add", "Add two integers", json!({
//!         "type": "object",
//!         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!         "required": ["a", "b"]
//!     })),
//!     |_cx, args| {
//!         let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
//!         Ok(CallToolResult::text(sum.to_string()))
//!     },
//! );
//!
//! // A real host would use `tinymcp::transport::stdio::serve(Arc::new(server))`.
//! // Here the same loop reads two lines from memory and writes its answers to a buffer.
//! #[derive(Clone, Default)]
//! struct Buffer(Arc<Mutex<Vec<u8>>>);
//! impl Write for Buffer {
//!     fn write(&mut self, b: &[u8]) -> std::io::Result<usize> { self.0.lock().unwrap().write(b) }
//!     fn flush(&mut self) -> std::io::Result<()> { Ok(()) }
//! }
//! let input = concat!(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#, "\n",
//!     r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#, "\n",
//! );
//! let output = Buffer::default();
//! tinymcp::transport::stdio::serve_io(Arc::new(server), Cursor::new(input), output.clone()).unwrap();
//! let text = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
//! assert!(text.contains(r#""text":"5""#));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
mod features;
mod server;
pub mod transport;
mod typed;
mod util;
mod wire;

pub use error::Error;
pub use features::apps::{AppView, Csp, Permissions, ToolUi, ViewMeta, ViewSource, Visibility};
pub use features::cache::{CacheHint, CacheScope};
pub use features::completer::{filter_prefix, Completer, CompletionRequest};
pub use features::pagination::list_result;
pub use features::prompts::{GetPromptResult, Prompt, PromptArgument, PromptArguments, PromptHandler, PromptMessage};
pub use features::resources::{resource_not_found, ReadHandler, ResourceLister, ResourceTemplate};
pub use features::tasks_handshake::TaskSupport;
pub use features::tools::{Tool, ToolAnnotations, ToolHandler};
pub use server::connection::Connection;
pub use server::context::{InputRequest, RequestCx};
pub use server::listen::NoticeBus;
pub use server::registry::ExtensionMethod;
pub use server::task_share::{TaskAsk, TaskHook, TaskStore};
// For the tinymcp binary (`tinymcp proxy`), not for embedders.
#[doc(hidden)]
pub use server::relay;
pub use server::scope::{record_spans, ChildSpan, RequestScope, Span, SpanKind};
pub use server::sink::{Outgoing, Sink};
pub use server::{Options, Server};
pub use transport::memory::MemoryClient;
#[cfg(feature = "schemars")]
pub use typed::OutputSchema;
pub use typed::{AsContent, AsJson, Elicited, PromptOutput, ResourceOutput, ToolError, ToolOutput};
pub use util::lit as json_literal;
pub use util::metrics::Metrics;
pub use util::time::rfc3339;
// Test support for the binary's fuzz tests (feature `fuzz-mutator`), not for embedders.
#[cfg(feature = "fuzz-mutator")]
#[doc(hidden)]
pub use util::fuzz as fuzz_support;
pub use util::uri_template::UriTemplate;
pub use wire::content::CallToolResult;
pub use wire::content::Resource;
pub use wire::content::{Annotations, Content, Icon, ResourceContents, Role};
pub use wire::error::RpcError;
pub use wire::jsonrpc::RequestId;
pub use wire::meta::LogLevel;
pub use wire::protocol::{ProtocolVersion, Revisions};
pub use wire::trace::TraceContext;

/// JSON-RPC and MCP error codes, for [`RpcError::new`] and for reading [`RpcError::code`].
pub mod error_codes {
    pub use crate::wire::error::{
        HEADER_MISMATCH, INSUFFICIENT_SCOPE, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
        MISSING_CLIENT_CAPABILITY, PARSE_ERROR, RESOURCE_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION,
    };
}

/// What the transports count into [`Metrics`]: refusal reasons, gauges read when scraped, the
/// guard of a counted stream.
// For the HTTP transport and the binary (its proxy's children), not for embedders.
#[doc(hidden)]
pub mod metrics {
    pub use crate::util::metrics::{Open, Refusal, Watched, MAX_TOOL_LABELS};
}

/// Percent-encoding (RFC 3986 §2.1), the one the URI templates use: for `file://` URIs and
/// other URIs a server mints from names, and for reading them back.
// For the tinymcp binary (its served folders, the hosts' install links), not for embedders.
#[doc(hidden)]
pub mod percent {
    pub use crate::util::percent::{decode, encode, is_unreserved};
}

/// Base64 (RFC 4648, padded), the one the `blob` contents use: for the binary's own needs (the
/// Cursor install link, `Mcp-Param-*` values of `tinymcp connect`).
// For the tinymcp binary, not for embedders.
#[doc(hidden)]
pub mod base64 {
    pub use crate::util::base64::encode;
}

/// The request headers of revision 2026-07-28 (SEP-2243) from a client's side, for bridges
/// such as `tinymcp connect`: which params member `Mcp-Name` mirrors, and the tool arguments
/// `Mcp-Param-*` mirror (the same table and schema walk the server checks them with).
// For the tinymcp binary (`tinymcp connect`), not for embedders.
#[doc(hidden)]
pub mod mcp_headers {
    pub use crate::wire::mcp_header::{annotations, check_annotations, name_member};
}

/// The JSON Schema validator tool arguments and structured results are checked with (the draft
/// 2020-12 subset tools use; `pattern` and `format` are ignored).
pub mod schema {
    pub use crate::util::schema::{check_schema, validate, SchemaError};
}
