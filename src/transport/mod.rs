//! Transports: they move JSON-RPC text between a peer and a `Connection`, read only the
//! envelope, and know nothing of tools, resources or prompts.

#[cfg(feature = "http")]
pub mod http;
pub mod memory;
pub mod stdio;
