//! The wire: JSON-RPC envelopes, ids and error codes, and the protocol revisions.
//! Imports nothing of the crate; every other layer may import it.

pub mod jsonrpc;
pub mod meta;
pub mod version;
