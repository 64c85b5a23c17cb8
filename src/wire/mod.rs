//! The wire: JSON-RPC envelopes, ids and error codes, the protocol revisions, and the length
//! caps on what a request names.
//! Imports nothing of the crate; every other layer may import it.

pub mod jsonrpc;
pub(crate) mod limits;
pub mod meta;
pub mod version;
