//! The typed layer over the registration API: tools, prompts and resource templates whose
//! handlers take and return Rust types, and elicitation that asks for one. With the feature
//! `schemars`, `Server::tool`, `prompt`, `resource_template` and `RequestCx::elicit`
//! derive the JSON Schemas (draft 2020-12, inline) from the types; without it,
//! `typed_tool`, `typed_prompt`, `typed_resource_template` and `elicit_with` take the same
//! handlers with the descriptor or schema written by hand. Everything here calls the plain
//! `register_*` methods; nothing on the request path knows it exists.

#[cfg(feature = "schemars")]
mod derive;
mod elicit;
mod error;
mod output;
mod prompt;
mod template;
mod tool;

pub use elicit::Elicited;
pub use error::ToolError;
#[cfg(feature = "schemars")]
pub use output::OutputSchema;
pub use output::{AsContent, AsJson, PromptOutput, ResourceOutput, ToolOutput};
