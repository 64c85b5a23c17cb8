//! Length caps on what a peer names in a request (URIs, tool and prompt names), applied while
//! the params are decoded, so no lookup, template match or error message ever works on more than
//! a bounded input. Over the cap, decoding fails and the request gets `-32602` saying so.
//! Std and serde only.

use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::fmt;

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

/// Decodes a name of at most [`MAX_NAME_BYTES`], borrowed from the params' text when it holds
/// no escapes (the usual tool name), so reading it allocates nothing.
pub(crate) fn name_borrowed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Cow<'de, str>, D::Error> {
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, name: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(name))
        }
        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(name.to_owned()))
        }
        fn visit_string<E: serde::de::Error>(self, name: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(name))
        }
    }
    let value = deserializer.deserialize_str(Visit)?;
    if value.len() > MAX_NAME_BYTES {
        let why = format!("name is longer than {MAX_NAME_BYTES} bytes ({} bytes)", value.len());
        return Err(serde::de::Error::custom(why));
    }
    Ok(value)
}
