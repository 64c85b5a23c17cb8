//! Small leaves: base64, MIME types, JSON Schema checks, URI templates, random tokens,
//! timestamps, SHA-256/HMAC and sealed tokens. Std plus RustCrypto's `sha2`/`hmac` and
//! `getrandom`; they import nothing of the protocol.

pub mod base64;
pub(crate) mod crypto;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod mime;
pub mod percent;
pub mod random;
pub mod schema;
pub(crate) mod seal;
pub(crate) mod signal;
pub mod time;
pub mod uri_template;
