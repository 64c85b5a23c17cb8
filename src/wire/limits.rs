//! Length caps on what a peer names in a request (URIs, tool and prompt names), applied while
//! the params are decoded, so no lookup, template match or error message ever works on more than
//! a bounded input. Over the cap, decoding fails and the request gets `-32602` saying so.
//! Std and serde only.

use serde::{Deserialize, Deserializer};

/// The longest URI accepted in `resources/*` and `completion/complete` (a 4 096-byte path,
/// every byte percent-encoded, still fits).
pub const MAX_URI_BYTES: usize = 16 * 1024;
/// The longest tool, prompt or argument name accepted in a request (names we register are at
/// most 128 characters).
pub const MAX_NAME_BYTES: usize = 1024;

fn capped<'de, D: Deserializer<'de>>(deserializer: D, what: &str, max: usize) -> Result<String, D::Error> {
    let value = String::deserialize(deserializer)?;
    if value.len() > max {
        return Err(serde::de::Error::custom(format!("{what} is longer than {max} bytes ({} bytes)", value.len())));
    }
    Ok(value)
}

/// Decodes a URI of at most [`MAX_URI_BYTES`].
pub(crate) fn uri<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    capped(deserializer, "uri", MAX_URI_BYTES)
}

/// Decodes a name of at most [`MAX_NAME_BYTES`].
pub(crate) fn name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    capped(deserializer, "name", MAX_NAME_BYTES)
}
