//! The binary's side: what only the `tinymcp` command needs (host configuration snippets).

pub mod hosts;
