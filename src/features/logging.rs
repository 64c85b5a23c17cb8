//! `logging/setLevel` and `notifications/message`: MCP logging, a protocol feature (never a
//! backend for the `log` crate). Never names a transport or a thread.

use crate::server::context::RequestCx;
use crate::wire::jsonrpc::RpcError;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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

#[derive(Debug, Deserialize)]
pub(crate) struct SetLevelParams {
    level: LogLevel,
}

/// `logging/setLevel`: answers exactly `{}`.
pub(crate) fn set_level(cx: &RequestCx, params: SetLevelParams) -> Result<Value, RpcError> {
    cx.session().set_log_level(params.level);
    Ok(json!({}))
}

/// The params of a `notifications/message`.
pub(crate) fn message_params(level: LogLevel, logger: Option<&str>, data: Value) -> Value {
    let mut params = json!({ "level": level, "data": data });
    if let Some(logger) = logger {
        params["logger"] = logger.into();
    }
    params
}

/// Method of a log message notification.
pub(crate) const MESSAGE: &str = "notifications/message";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_like_syslog() {
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
        assert_eq!(LogLevel::parse("warning"), Some(LogLevel::Warning));
        assert_eq!(LogLevel::parse("warn"), None);
    }
}
