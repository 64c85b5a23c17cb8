//! Providers: ready-made sets of tools, resources and prompts registered on a `Server`
//! through its public API only.

pub mod everything;
