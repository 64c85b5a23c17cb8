//! The protocol features: tools, resources, prompts, completion, logging, tasks, apps (views)
//! and pagination. They use the wire (content blocks included), the utilities and the request context, never a transport.

pub mod apps;
pub mod cache;
pub(crate) mod completer;
pub mod completion;
pub(crate) mod input_required;
pub mod logging;
pub mod pagination;
pub mod prompts;
pub mod resources;
pub mod task_store;
pub(crate) mod tasks_extension;
pub mod tasks_handshake;
pub mod tools;
