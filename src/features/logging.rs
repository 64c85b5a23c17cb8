//! `logging/setLevel` and `notifications/message`: MCP logging, a protocol feature (never a
//! backend for the `log` crate). Never names a transport or a thread.

use crate::server::context::RequestCx;
use crate::wire::error::RpcError;
use crate::wire::meta::LogLevel;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize)]
pub(crate) struct SetLevelParams {
    level: LogLevel,
}

/// `logging/setLevel`: answers exactly `{}`.
pub(crate) fn set_level(cx: &RequestCx, params: SetLevelParams) -> Result<Value, RpcError> {
    cx.session()?.set_log_level(params.level);
    Ok(json!({}))
}

/// Method of a log message notification.
const MESSAGE: &str = "notifications/message";

impl RequestCx {
    /// Sends a log message to the client if `level` is at or above the level it set.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        let Some(threshold) = self.log_threshold() else { return };
        if level >= threshold {
            let mut params = json!({ "level": level, "data": data });
            if let Some(logger) = logger {
                params["logger"] = logger.into();
            }
            self.send_notification(MESSAGE, &params);
        }
    }
}
