//! The wire: JSON-RPC envelopes, ids and error codes, the protocol as data (revisions and the
//! table of methods), params and `_meta`, content, frames, and the length caps on what a
//! request names.
//! Imports of the crate only util's leaves (base64); every other layer may import it.

pub(crate) mod content;
pub(crate) mod error;
pub(crate) mod frame;
pub mod jsonrpc;
pub(crate) mod mcp_header;
pub mod meta;
pub mod params;
pub mod protocol;

pub(crate) mod trace;
