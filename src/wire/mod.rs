//! The wire: JSON-RPC envelopes, ids and error codes, the protocol revisions, and the length
//! caps on what a request names.
//! Imports nothing of the crate; every other layer may import it.

pub(crate) mod frame;
pub mod jsonrpc;
pub(crate) mod limits;
pub(crate) mod mcp_header;
pub(crate) mod method;
pub mod params;
pub(crate) mod rpc;
// The 2026-07-28 half of `meta` waits for issue 12's integration to be called.
#[allow(dead_code)]
pub mod meta;
pub mod version;
