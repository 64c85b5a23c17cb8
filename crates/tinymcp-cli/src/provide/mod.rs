//! Providers: ready-made sets of tools, resources and prompts registered on a `Server`. Modules
//! of the binary, not the library: they reach it as `tinymcp::...`, its public API only.

mod client_roots;
pub mod command;
mod diff;
pub(crate) mod edit_tools;
pub mod everything;
pub(crate) mod file_tools;
pub mod files;
mod find_tools;
#[cfg(test)]
mod fuzz;
pub(crate) mod glob;
mod ignore;
pub mod manifest;
pub mod mime;
pub mod sandbox;
pub mod skills;
mod tool_parts;
pub(crate) mod tracker;
pub mod watch;
pub(crate) mod winpath;
pub(crate) mod write;

use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use tinymcp::{Error, Server};

/// The default job: serves `roots` on `server` as resources, a template per root, the
/// `summarize_file` prompt and the file tools (read-only, plus the edit tools when
/// `options` makes a root writable). The two halves know each other only through here,
/// so the tools may build on the folders and not the other way round.
pub fn serve_folders(
    server: &Server,
    roots: &[PathBuf],
    options: files::FilesOptions,
) -> Result<Arc<files::Files>, Error> {
    let served = files::register(server, roots, options)?;
    file_tools::register(server, &served);
    find_tools::register(server, &served);
    edit_tools::register(server, &served);
    Ok(served)
}

/// A provider's JSON literal (a schema, a fixture's value) from its text: far less binary than `json!`.
pub(crate) use tinymcp::json_literal as lit;

/// An object schema from its JSON text, with the descriptions only known at start-up (they name
/// the served folders, or a limit) set on the named properties.
pub(crate) fn described(text: &str, descriptions: &[(&str, String)]) -> Value {
    let mut schema = lit(text);
    for (property, description) in descriptions {
        schema["properties"][*property]["description"] = Value::from(description.as_str());
    }
    schema
}
