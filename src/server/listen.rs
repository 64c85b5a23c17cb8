//! Listeners: whoever hears the server-wide notifications (list changes, resource updates).
//! Today each initialized session listens; from 2026-07-28 a listen stream subscribes the same
//! way, so broadcasts never assume a session. Knows no feature type.

use serde_json::Value;

/// One party that hears server-wide notifications.
pub(crate) trait Listener: Send + Sync {
    /// Whether it hears anything yet (a session: once `initialize` is answered).
    fn is_listening(&self) -> bool;
    /// Whether it subscribed to `uri` (`resources/subscribe`).
    fn is_subscribed(&self, uri: &str) -> bool;
    /// Every URI it subscribed to.
    fn subscriptions(&self) -> Vec<String>;
    /// Delivers one notification.
    fn notify(&self, method: &str, params: &Value);
    /// Ends it (the server is shutting down): what it runs sees cancellation.
    fn close(&self);
}
