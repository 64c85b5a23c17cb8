//! Small std-only leaves: base64, MIME types, JSON Schema checks, URI templates, random
//! tokens, timestamps, SHA-256/HMAC and sealed tokens. They import nothing of the protocol.

pub mod base64;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod mime;
pub mod percent;
pub mod random;
pub mod schema;
pub mod time;
pub mod uri_template;
// 2026-07-28 leaves (issue 12), unused until the protocol integration wires them in.
#[allow(dead_code)]
pub(crate) mod seal;
#[allow(dead_code)]
pub(crate) mod sha256;
