//! The one integration-test crate: every test spawns the real binary and speaks the protocol.

mod http_link;
mod support;

mod client_requests;
mod config;
mod embedding;
mod features;
mod files;
mod first_run;
mod http;
mod jsonrpc;
mod lifecycle;
mod manifest;
mod revisions;
mod stdio;
mod tasks;
