//! Providers: ready-made sets of tools, resources and prompts registered on a `Server`
//! through its public API only.

pub mod command;
pub mod everything;
pub(crate) mod file_tools;
pub mod files;
pub mod manifest;
pub mod sandbox;
pub(crate) mod tracker;
pub mod watch;
