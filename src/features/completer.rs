//! What a completer is: the request it is asked (`CompletionRequest`), its type, and the
//! helpers completers share. A leaf, so prompts and resource templates can hold a completer
//! while `completion` reads them.

use crate::server::context::RequestCx;
use std::collections::HashMap;

/// Completes a prompt argument or a template variable.
pub type Completer = dyn Fn(&RequestCx, &CompletionRequest) -> Vec<String> + Send + Sync;

/// The most values one answer may carry (spec: at most 100).
pub const MAX_VALUES: usize = 100;

/// What a completer is asked: the argument, its partial value, and the other arguments already given.
#[derive(Debug, Clone)]
pub struct CompletionRequest<'a> {
    /// The argument or template variable being completed.
    pub argument: &'a str,
    /// What the user typed so far.
    pub value: &'a str,
    /// Values of the other arguments (`context.arguments`).
    pub context: &'a HashMap<String, String>,
}

/// Keeps the candidates that start with `prefix` (case-insensitive), in order.
pub fn filter_prefix<'a>(candidates: impl IntoIterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    candidates.into_iter().filter(|c| c.to_lowercase().starts_with(&prefix)).map(str::to_owned).collect()
}
