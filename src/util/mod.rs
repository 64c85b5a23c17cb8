//! Small leaves: base64, JSON Schema checks, URI templates, random tokens, timestamps,
//! HMAC-SHA-256 and sealed tokens. Std plus RustCrypto's `sha2`/`hmac` and `getrandom`; they
//! import nothing of the protocol.

pub mod base64;
pub(crate) mod condition;
pub(crate) mod crypto;
// The one mutator of every fuzz test, test-only; the binary's unit tests and tests/it include
// the same file. Here only the mutator and the time bound are used (the seed corpus is for
// fuzzing the binary).
#[cfg(test)]
#[allow(dead_code)]
pub(crate) mod fuzz;
pub mod percent;
pub mod random;
pub mod schema;
pub(crate) mod seal;
pub mod time;
pub mod uri_template;
