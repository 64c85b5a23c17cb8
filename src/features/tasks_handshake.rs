//! Tasks (2025-11-25, experimental): task-augmented `tools/call`, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel` and `notifications/tasks/status`. A task runs its tool on the
//! worker pool after the `CreateTaskResult` is sent; its table lives in the session.

use crate::features::pagination::{self, ListParams};
use crate::server::context::{RequestCx, TaskLink};
use crate::util::random;
use crate::util::time::rfc3339;
use crate::wire::meta::RELATED_TASK;
use crate::wire::rpc::{RpcError, INVALID_PARAMS};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

/// Whether a tool may, or must, run as a task (`execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never as a task (the default).
    #[default]
    Forbidden,
    /// Either way.
    Optional,
    /// Only as a task.
    Required,
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client (an elicitation or sampling request is out).
    InputRequired,
    /// Finished with a result (which may itself be a tool error).
    Completed,
    /// Finished with a protocol error.
    Failed,
    /// Cancelled by `tasks/cancel`.
    Cancelled,
}

impl TaskStatus {
    fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// How long a task is kept at most (unless `Options::task_ttl`, the default, is longer).
const MAX_TTL_MS: u64 = 3_600_000;
const POLL_INTERVAL_MS: u64 = 500;
/// Tasks one session may hold; the oldest finished ones go first.
const MAX_TASKS: usize = 1000;
struct State {
    status: TaskStatus,
    message: Option<String>,
    updated: SystemTime,
    outcome: Option<Result<Value, RpcError>>,
}

/// One task.
pub(crate) struct Task {
    id: String,
    created: SystemTime,
    ttl_ms: u64,
    pub(crate) cancelled: Arc<AtomicBool>,
    /// The scopes of the tool it runs: a request whose token lacks one is refused the task.
    scopes: Vec<String>,
    state: Mutex<State>,
    finished: Condvar,
}

impl Task {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Task` object of the wire.
    fn to_wire(&self) -> Value {
        let state = self.lock();
        let mut task = json!({
            "taskId": self.id,
            "status": state.status,
            "createdAt": rfc3339(self.created),
            "lastUpdatedAt": rfc3339(state.updated),
            "ttl": self.ttl_ms,
            "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(message) = &state.message {
            task["statusMessage"] = message.clone().into();
        }
        task
    }

    fn finish(&self, outcome: Result<Value, RpcError>) -> bool {
        let mut state = self.lock();
        if state.status.is_terminal() {
            return false;
        }
        state.status = if outcome.is_ok() { TaskStatus::Completed } else { TaskStatus::Failed };
        state.updated = SystemTime::now();
        state.outcome = Some(outcome);
        self.finished.notify_all();
        true
    }

    fn expired(&self, now: SystemTime) -> bool {
        now.duration_since(self.created).is_ok_and(|age| age > Duration::from_millis(self.ttl_ms))
    }
}

/// The tasks of one session, oldest first.
impl TaskLink for Task {
    fn id(&self) -> &str {
        &self.id
    }

    /// Moves between `working` and `input_required`; terminal states stay.
    fn set_waiting(&self, waiting: bool) {
        let mut state = self.lock();
        if !state.status.is_terminal() {
            state.status = if waiting { TaskStatus::InputRequired } else { TaskStatus::Working };
            state.updated = SystemTime::now();
        }
    }

    fn set_message(&self, message: &str) {
        let mut state = self.lock();
        if !state.status.is_terminal() {
            state.message = Some(message.to_owned());
            state.updated = SystemTime::now();
        }
    }
}

#[derive(Default)]
pub(crate) struct TaskTable {
    tasks: Mutex<Vec<Arc<Task>>>,
}

impl TaskTable {
    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Task>>> {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let now = SystemTime::now();
        tasks.retain(|t| !t.expired(now));
        tasks
    }

    /// The task `id`, refused (`-32003`) to a request whose token lacks a scope of its tool.
    fn find(&self, cx: &RequestCx, id: &str) -> Result<Arc<Task>, RpcError> {
        let task = self
            .lock()
            .iter()
            .find(|t| t.id == id)
            .cloned()
            .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("unknown task: {id}")))?;
        if !cx.grants(&task.scopes) {
            return Err(RpcError::insufficient_scope(&format!("the task {id}"), &task.scopes));
        }
        Ok(task)
    }
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct TaskParams {
    #[serde(default)]
    pub ttl: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct TaskIdParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

/// Starts `work` as a task and answers at once with the `CreateTaskResult`. `scopes`: those of
/// the tool it runs, which every later request about the task needs too.
pub(crate) fn spawn(
    cx: &RequestCx,
    params: TaskParams,
    scopes: Vec<String>,
    work: impl FnOnce(&RequestCx) -> Result<Value, RpcError> + Send + 'static,
) -> Result<Value, RpcError> {
    let id = random::routed_token(cx.node_id(), 16).map_err(|e| {
        log::error!("no random source for a task id: {e}");
        RpcError::internal()
    })?;
    // A place under the tasks' share of the pool first: refused, no task exists.
    let ticket = cx.task_share().reserve()?;
    let now = SystemTime::now();
    let default_ttl = u64::try_from(cx.task_ttl().as_millis()).unwrap_or(MAX_TTL_MS);
    let task = Arc::new(Task {
        id,
        created: now,
        ttl_ms: params.ttl.unwrap_or(default_ttl).clamp(1000, MAX_TTL_MS.max(default_ttl)),
        cancelled: Arc::new(AtomicBool::new(false)),
        scopes,
        state: Mutex::new(State { status: TaskStatus::Working, message: None, updated: now, outcome: None }),
        finished: Condvar::new(),
    });
    {
        let tasks = cx.session()?.state::<TaskTable>();
        let mut tasks = tasks.lock();
        if tasks.len() >= MAX_TASKS {
            match tasks.iter().position(|t| t.lock().status.is_terminal()) {
                Some(i) => drop(tasks.remove(i)),
                None => return Err(RpcError::invalid_request("too many tasks in this session")),
            }
        }
        tasks.push(Arc::clone(&task));
    }
    let created = json!({ "task": task.to_wire() });
    let background = cx.for_task(Arc::clone(&task) as Arc<dyn TaskLink>, Arc::clone(&task.cancelled));
    // The work starts once the `CreateTaskResult` naming the task is on its way, so nothing it
    // sends (a first `elicitation/create`, say) reaches the client before the client knows the task.
    cx.after_response(ticket, move || {
        let outcome = catch_unwind(AssertUnwindSafe(|| work(&background))).unwrap_or_else(|_| {
            log::error!("task {} panicked", task.id);
            Err(RpcError::internal())
        });
        if task.finish(outcome) {
            status_changed(&background, &task);
        }
    });
    Ok(created)
}

fn status_changed(cx: &RequestCx, task: &Task) {
    if let Ok(session) = cx.session() {
        session.notify("notifications/tasks/status", &task.to_wire());
    }
}

/// `tasks/get`.
pub(crate) fn get(cx: &RequestCx, params: TaskIdParams) -> Result<Value, RpcError> {
    Ok(cx.session()?.state::<TaskTable>().find(cx, &params.task_id)?.to_wire())
}

/// `tasks/result`: waits for a terminal state, then answers what the request would have.
pub(crate) fn result(cx: &RequestCx, params: TaskIdParams) -> Result<Value, RpcError> {
    let task = cx.session()?.state::<TaskTable>().find(cx, &params.task_id)?;
    let mut state = task.lock();
    while !state.status.is_terminal() {
        if cx.is_cancelled() {
            return Err(RpcError::invalid_request("tasks/result cancelled"));
        }
        state = task.finished.wait_timeout(state, Duration::from_millis(100)).unwrap_or_else(PoisonError::into_inner).0;
    }
    match &state.outcome {
        Some(Ok(Value::Object(result))) => {
            let mut result = result.clone();
            let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(RELATED_TASK.into(), json!({ "taskId": task.id }));
            }
            Ok(Value::Object(result))
        }
        Some(Ok(other)) => Ok(other.clone()),
        Some(Err(e)) => Err(e.clone()),
        None => Err(RpcError::new(INVALID_PARAMS, format!("task {} was cancelled", task.id))),
    }
}

/// `tasks/list`, without the tasks the request's token lacks a scope for.
pub(crate) fn list(cx: &RequestCx, params: ListParams) -> Result<Value, RpcError> {
    let mut tasks = cx.session()?.state::<TaskTable>().lock().clone();
    tasks.retain(|t| cx.grants(&t.scopes));
    pagination::list_result("tasks", &tasks, params.cursor.as_deref(), cx.page_size(), |t| t.to_wire())
}

/// `tasks/cancel`: a terminal task is `-32602`; otherwise it becomes `cancelled` at once.
pub(crate) fn cancel(cx: &RequestCx, params: TaskIdParams) -> Result<Value, RpcError> {
    let task = cx.session()?.state::<TaskTable>().find(cx, &params.task_id)?;
    {
        let mut state = task.lock();
        if state.status.is_terminal() {
            return Err(RpcError::invalid_params(format!("task {} already ended ({:?})", task.id, state.status)));
        }
        state.status = TaskStatus::Cancelled;
        state.message = Some("The task was cancelled by request.".into());
        state.updated = SystemTime::now();
        task.cancelled.store(true, Ordering::SeqCst);
        task.finished.notify_all();
    }
    status_changed(cx, &task);
    Ok(task.to_wire())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_states_are_final() {
        let task = Task {
            id: "t".into(),
            created: SystemTime::now(),
            ttl_ms: 1000,
            cancelled: Arc::new(AtomicBool::new(false)),
            scopes: Vec::new(),
            state: Mutex::new(State {
                status: TaskStatus::Working,
                message: None,
                updated: SystemTime::now(),
                outcome: None,
            }),
            finished: Condvar::new(),
        };
        task.set_waiting(true);
        assert_eq!(task.lock().status, TaskStatus::InputRequired);
        assert!(task.finish(Ok(json!({}))));
        assert!(!task.finish(Err(RpcError::internal())));
        task.set_waiting(false);
        assert_eq!(task.lock().status, TaskStatus::Completed);
        assert_eq!(task.to_wire()["status"], "completed");
    }
}
