//! Small std-only leaves: base64, MIME types, JSON Schema checks, URI templates, random
//! tokens and timestamps. They import nothing of the protocol.

pub mod base64;
pub mod mime;
pub mod random;
pub mod schema;
pub mod time;
pub mod uri_template;
