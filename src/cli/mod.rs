//! The binary's side: what only the `tinymcp` command needs (host configuration snippets, the
//! health probe).

pub mod health;
pub mod hosts;
