//! Task records in a `TaskStore` (`src/server/task_share.rs`), where replicas share their
//! tasks (`Server::set_task_store`; the binary's `--store redis://…`). Without one (the default) a task lives in its server's memory only,
//! as the tables of `tasks_extension` and `tasks_handshake` hold it, and no store call is made.
//! With one, each change of a task is also written there as a record (its wire object, the
//! scopes of its tool, its outcome), and a replica that does not hold a task answers
//! `tasks/get`, `tasks/result` and `tasks/cancel` from the record. The replica running a task
//! holds its lease; a task whose lease lapsed (its replica stopped) reads as `failed`.

use crate::server::context::TaskStore;
use crate::wire::error::{RpcError, INTERNAL_ERROR, INVALID_PARAMS};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The store's error as the client sees it: an internal error that names the store.
pub(crate) fn unavailable(e: String) -> RpcError {
    RpcError::new(INTERNAL_ERROR, format!("the task store failed: {e}; try again once it is back"))
}

/// A stored task: its wire object (`tasks/get`'s answer), the scopes of its tool and, in the
/// 2025-11-25 era, its outcome (`tasks/result`'s answer or error).
pub(crate) struct Record {
    pub task: Value,
    pub scopes: Vec<String>,
    pub outcome: Option<Result<Value, RpcError>>,
}

impl Record {
    pub(crate) fn to_text(&self) -> String {
        let outcome = match &self.outcome {
            None => Value::Null,
            Some(Ok(result)) => json!({ "result": result }),
            Some(Err(e)) => json!({ "error": e }),
        };
        json!({ "task": self.task, "scopes": self.scopes, "outcome": outcome }).to_string()
    }

    fn from_text(text: &str) -> Option<Record> {
        let mut value: Value = serde_json::from_str(text).ok()?;
        let task = value.get_mut("task")?.take();
        let scopes = serde_json::from_value(value.get_mut("scopes")?.take()).ok()?;
        let outcome = match value.get_mut("outcome").map(Value::take) {
            Some(Value::Object(mut o)) => match (o.remove("result"), o.remove("error")) {
                (Some(result), _) => Some(Ok(result)),
                (None, Some(error)) => Some(Err(RpcError {
                    code: error["code"].as_i64()?,
                    message: error["message"].as_str()?.to_owned(),
                    data: error.get("data").cloned(),
                })),
                _ => None,
            },
            _ => None,
        };
        Some(Record { task, scopes, outcome })
    }

    pub(crate) fn status(&self) -> &str {
        self.task["status"].as_str().unwrap_or("")
    }

    pub(crate) fn is_terminal(&self) -> bool {
        matches!(self.status(), "completed" | "failed" | "cancelled")
    }
}

/// Writes `record` of task `id`, kept `ttl_ms` (at least a second).
pub(crate) fn save(store: &Arc<dyn TaskStore>, id: &str, record: &Record, ttl_ms: u64) -> Result<(), RpcError> {
    store.save(id, &record.to_text(), Duration::from_millis(ttl_ms.max(1000))).map_err(unavailable)
}

/// Task `id`'s record in the store, `unknown` when it has none. An unfinished task whose lease
/// lapsed (the replica running it stopped) is made `failed` first, saying so, and saved so.
pub(crate) fn load(
    store: &Arc<dyn TaskStore>,
    id: &str,
    unknown: fn(&str) -> RpcError,
    ttl_field: &str,
) -> Result<Record, RpcError> {
    let text = store.load(id).map_err(unavailable)?.ok_or_else(|| unknown(id))?;
    let mut record = Record::from_text(&text).ok_or_else(|| {
        log::error!("task {id}: its record in the store is not one this server wrote");
        RpcError::internal()
    })?;
    if !record.is_terminal() && !store.held(id).map_err(unavailable)? {
        let error = RpcError::new(
            INTERNAL_ERROR,
            format!("task {id} failed: the replica running it stopped (its lease in the store lapsed)"),
        );
        if record.task.get("ttlMs").is_some() {
            // The tasks extension inlines the error.
            record.task["error"] = json!({ "code": error.code, "message": error.message });
        }
        let message = error.message.clone();
        record.outcome = Some(Err(error));
        mark(store, id, &mut record, "failed", Some(message), ttl_field)?;
    }
    Ok(record)
}

/// Writes `record` of task `id`, now `status` (with `message`, if any), kept its TTL (the
/// task's field `ttl_field`) from now: a change made by a replica that does not run it.
pub(crate) fn mark(
    store: &Arc<dyn TaskStore>,
    id: &str,
    record: &mut Record,
    status: &str,
    message: Option<String>,
    ttl_field: &str,
) -> Result<(), RpcError> {
    record.task["status"] = status.into();
    record.task["lastUpdatedAt"] = crate::util::time::rfc3339(std::time::SystemTime::now()).into();
    if let Some(message) = message {
        record.task["statusMessage"] = message.into();
    }
    let ttl = record.task[ttl_field].as_u64().unwrap_or(60_000);
    save(store, id, record, ttl)
}

/// The error of a task its replica did not finish before it shut down (`TaskAsk::ShutDown`).
pub(crate) fn shut_down(id: &str) -> RpcError {
    RpcError::new(
        INTERNAL_ERROR,
        format!("task {id} failed: the replica running it shut down (drained) before it finished; start it again"),
    )
}

/// `-32602` for an id neither this replica nor the store knows.
pub(crate) fn unknown(id: &str) -> RpcError {
    RpcError::new(INVALID_PARAMS, format!("unknown or expired task: {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let error = RpcError::new(INVALID_PARAMS, "no");
        for outcome in [None, Some(Ok(json!({"content": []}))), Some(Err(error))] {
            let record = Record { task: json!({"status": "completed"}), scopes: vec!["s".into()], outcome };
            let back = Record::from_text(&record.to_text()).expect("reads back");
            assert_eq!(back.task, record.task);
            assert_eq!(back.scopes, record.scopes);
            assert_eq!(back.outcome, record.outcome);
            assert!(back.is_terminal());
        }
        assert!(Record::from_text("{}").is_none());
    }
}
