//! The one integration-test crate: every test spawns the real binary and speaks the protocol.
//! One file per feature (tools.rs, resources.rs, ...); support.rs has the clients.

mod http_link;
mod raw_http;
mod support;

mod access;
mod apps;
mod backpressure;
mod bounds;
mod cache_hints;
mod cancellation;
mod cli;
mod client_requests;
mod client_roots;
mod completion;
mod config;
mod connect;
mod connect_auth;
// Its TLS crates are not dev-dependencies for macOS targets (see the binary's Cargo.toml).
#[cfg(feature = "https")]
#[cfg(not(target_os = "macos"))]
mod connect_tls;
mod drain;
mod edits;
mod embedding;
mod fairness;
mod files;
mod find;
mod first_run;
mod fuzz_binary;
#[cfg(feature = "gateway")]
mod gateway;
#[cfg(all(feature = "gateway", feature = "oauth"))]
mod gateway_auth;
mod hangup;
mod health;
mod hostile;
mod http;
mod install;
mod jsonrpc;
mod lifecycle;
mod listen_cap;
mod logging;
mod manifest;
mod manifest_tasks;
mod metrics;
mod oauth;
#[cfg(feature = "oauth")]
mod oauth_issuer;
#[cfg(feature = "otlp")]
mod otlp;
mod pagination;
mod progress;
mod prompts;
mod proxy;
mod proxy_eras;
mod replicas;
mod resources;
mod revisions;
mod session_leak;
mod skills;
mod stateless;
mod stateless_http;
mod stdio;
mod store;
mod subscriptions;
mod tasks;
mod tasks_ext;
mod tools;
mod trace;
mod typed;
