//! The wire: JSON-RPC envelopes, ids and error codes, and the protocol revisions.
//! Imports nothing of the crate; every other layer may import it.

pub mod jsonrpc;
pub mod version;
// 2026-07-28 leaves (issue 12), unused until the protocol integration wires them in.
#[allow(dead_code)]
pub(crate) mod headers;
#[allow(dead_code)]
pub(crate) mod meta;
