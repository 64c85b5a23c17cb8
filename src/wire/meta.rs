//! What a request's own `_meta` carries, and the wire types it shares with the methods: the
//! progress token, the related-task key, and the logging level. Imports nothing of the crate.
//! The 2026-07-28 revision moves the revision, client capabilities and log level in here too.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `_meta` key that ties a message to the task it belongs to (2025-11-25 tasks).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The `_meta.progressToken` of a request's params, if it asked for progress.
pub fn progress_token(params: &Value) -> Option<Value> {
    params.get("_meta").and_then(|m| m.get("progressToken")).cloned()
}

/// The eight syslog severities, least severe first, so `Ord` filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level used until the client sets one.
    pub const DEFAULT: LogLevel = LogLevel::Info;

    /// Reads a level name.
    pub fn parse(text: &str) -> Option<LogLevel> {
        serde_json::from_value(Value::String(text.to_owned())).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_order_like_syslog() {
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
        assert_eq!(LogLevel::parse("warning"), Some(LogLevel::Warning));
        assert_eq!(LogLevel::parse("warn"), None);
    }

    #[test]
    fn a_progress_token_is_read_from_meta_only() {
        assert_eq!(progress_token(&json!({"_meta": {"progressToken": 7}})), Some(json!(7)));
        assert_eq!(progress_token(&json!({"progressToken": 7})), None);
        assert_eq!(progress_token(&Value::Null), None);
    }
}
