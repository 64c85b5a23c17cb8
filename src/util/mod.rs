//! Small leaves: base64, JSON Schema checks, URI templates, random tokens, timestamps,
//! HMAC-SHA-256 and sealed tokens. Std plus RustCrypto's `sha2`/`hmac` and `getrandom`; they
//! import nothing of the protocol.

pub mod base64;
pub(crate) mod condition;
pub(crate) mod crypto;
// The one mutator of every fuzz test: the library's unit tests, and through the `fuzz-mutator`
// feature (`tinymcp::fuzz_support`) the binary's.
#[cfg(any(test, feature = "fuzz-mutator"))]
// The seed corpus and the JSON-RPC check are the binary's; the library's own tests use the rest.
#[cfg_attr(not(feature = "fuzz-mutator"), allow(dead_code))]
pub mod fuzz;
pub mod metrics;
pub mod percent;
pub mod random;
pub mod schema;
pub(crate) mod seal;
pub mod time;
pub mod uri_template;

/// A constant JSON document (a schema, a fixed value) from its text: parsed when used, it costs
/// far less code than `serde_json::json!`, which expands every key and value into instructions.
/// For literals written in the program: panics when `text` is not JSON.
pub fn lit(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("a JSON literal of the program is valid JSON")
}
