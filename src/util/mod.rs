//! Small std-only leaves: base64, MIME types, JSON Schema checks, URI templates, random
//! tokens, timestamps, SHA-256/HMAC and sealed tokens. They import nothing of the protocol.

pub mod base64;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod mime;
pub mod percent;
pub mod random;
pub mod schema;
pub(crate) mod seal;
pub(crate) mod sha256;
pub(crate) mod signal;
pub mod time;
pub mod uri_template;
