//! Transports: they move JSON-RPC text between a peer and a `Connection`, and read only the
//! envelope and what their own headers must agree with (HTTP's SEP-2243 headers). Here stdio
//! and in-memory; HTTP is the crate `tinymcp-http`, built from [`kit`] as any other transport
//! may be.

pub mod kit;
pub mod memory;
pub mod stdio;
