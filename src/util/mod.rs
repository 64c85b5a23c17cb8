//! Small leaves: base64, JSON Schema checks, URI templates, random tokens, timestamps,
//! HMAC-SHA-256 and sealed tokens. Std plus RustCrypto's `sha2`/`hmac` and `getrandom`; they
//! import nothing of the protocol.

pub mod base64;
pub(crate) mod crypto;
// The one mutator of every fuzz test lives with the integration tests, which share it; here only
// the mutator and the time bound are used (the seed corpus is for fuzzing the binary).
pub(crate) mod condition;
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../tests/it/fuzz/mutation.rs"]
pub(crate) mod fuzz;
pub mod percent;
pub mod random;
pub mod schema;
pub(crate) mod seal;
pub mod time;
pub mod uri_template;
