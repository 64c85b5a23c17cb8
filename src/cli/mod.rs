//! The binary's side: what only the `tinymcp` command needs (host configuration snippets and `install`, the
//! stdio-to-HTTP bridge `connect`, the health probe, the secret files, and SIGTERM/SIGINT
//! handling, the one module allowed `unsafe`).

pub mod connect;
pub mod health;
pub mod hosts;
pub mod install;
pub mod jsondoc;
#[cfg(feature = "http")]
pub mod oauth;
#[cfg(feature = "http")]
pub mod proxy;
pub mod secret;
#[cfg(unix)]
pub mod signal;
