//! The binary's side: what only the `tinymcp` command needs (host configuration snippets, and
//! SIGTERM/SIGINT handling, the one module allowed `unsafe`).

pub mod hosts;
#[cfg(unix)]
pub mod signal;
