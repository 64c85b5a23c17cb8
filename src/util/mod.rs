//! Small leaves: base64, JSON Schema checks, URI templates, random tokens, timestamps,
//! HMAC-SHA-256 and sealed tokens. Std plus RustCrypto's `sha2`/`hmac` and `getrandom`; they
//! import nothing of the protocol.

pub mod base64;
pub(crate) mod condition;
pub(crate) mod crypto;
// The one mutator of every fuzz test, test-only (crates/fuzz-mutation, a dev-dependency the
// binary's tests share). Here only the mutator and the time bound are used (the seed corpus is
// for fuzzing the binary).
#[cfg(test)]
pub(crate) use fuzz_mutation as fuzz;
pub mod percent;
pub mod random;
pub mod schema;
pub(crate) mod seal;
pub mod time;
pub mod uri_template;
