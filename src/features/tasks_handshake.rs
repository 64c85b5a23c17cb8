//! Tasks (2025-11-25, experimental): task-augmented `tools/call`, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel` and `notifications/tasks/status`. A task runs its tool on the
//! worker pool after the `CreateTaskResult` is sent; its table lives in the session.

use crate::features::pagination::{self, ListParams};
use crate::features::task_store::{self, Record};
use crate::server::context::TaskAsk;
use crate::server::context::TaskStore;
use crate::server::context::{RequestCx, TaskLink};
use crate::util::random;
use crate::util::time::rfc3339;
use crate::wire::error::{RpcError, INVALID_PARAMS};
use crate::wire::meta::RELATED_TASK;
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
    /// Where its record is shared with other replicas (`Server::set_task_store`).
    store: Option<Arc<dyn TaskStore>>,
}

impl Drop for Task {
    fn drop(&mut self) {
        if let Some(store) = &self.store {
            store.release(&self.id);
        }
    }
}

impl Task {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Task` object of the wire.
    fn to_wire(&self) -> Value {
        self.wire_of(&self.lock())
    }

    /// Writes the task's record to the store, if there is one (called with its state locked,
    /// so the store sees its statuses in order); its work ended: the lease is let go.
    fn persist(&self, state: &State) -> Result<(), RpcError> {
        let Some(store) = &self.store else { return Ok(()) };
        let record = Record { task: self.wire_of(state), scopes: self.scopes.clone(), outcome: state.outcome.clone() };
        let saved = task_store::save(store, &self.id, &record, self.ttl_ms);
        if state.status.is_terminal() && state.outcome.is_some() {
            store.release(&self.id);
        }
        saved
    }

    fn persist_logged(&self, state: &State) {
        if let Err(e) = self.persist(state) {
            log::warn!("task {}: {}", self.id, e.message);
        }
    }

    fn wire_of(&self, state: &State) -> Value {
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
        self.persist_logged(&state);
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
            self.persist_logged(&state);
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
        let task = self.lock().iter().find(|t| t.id == id).cloned().ok_or_else(|| unknown(id))?;
        if !cx.grants(&task.scopes) {
            return Err(RpcError::insufficient_scope(&format!("the task {id}"), &task.scopes));
        }
        Ok(task)
    }

    /// The task `id`: this session's on this replica, else its record in the store (the
    /// session moved here from the replica that runs it).
    fn find_anywhere(&self, cx: &RequestCx, id: &str) -> Result<Found, RpcError> {
        let store = match (self.find(cx, id), cx.task_store()) {
            (Ok(task), _) => return Ok(Found::Here(task)),
            (Err(e), None) => return Err(e),
            (Err(e), Some(_)) if e.code != INVALID_PARAMS => return Err(e),
            (Err(_), Some(store)) => store,
        };
        let record = task_store::load(store, id, unknown, "ttl")?;
        if !cx.grants(&record.scopes) {
            return Err(RpcError::insufficient_scope(&format!("the task {id}"), &record.scopes));
        }
        Ok(Found::Stored(record))
    }
}

/// `-32602` for an id neither this session nor the store knows.
fn unknown(id: &str) -> RpcError {
    RpcError::new(INVALID_PARAMS, format!("unknown task: {id}"))
}

/// A task as a request about it finds it.
enum Found {
    /// Run by this replica.
    Here(Arc<Task>),
    /// Another replica's, as the store has it.
    Stored(Record),
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
        store: cx.task_store().cloned(),
    });
    if let Some(store) = &task.store {
        // Shared before it is announced, its lease held first: another replica asked about it
        // finds it, running (a failure drops the task, and its lease with it).
        let weak = Arc::downgrade(&task);
        // A 2025-11-25 task asks its input through the session, never through `tasks/update`.
        let hook = Box::new(move |ask| match (ask, weak.upgrade()) {
            (TaskAsk::Cancel, Some(task)) => task.cancelled_elsewhere(),
            (TaskAsk::ShutDown, Some(task)) => task.shut_down(),
            _ => {}
        });
        store.hold(&task.id, Duration::from_millis(task.ttl_ms), hook).map_err(task_store::unavailable)?;
        task.persist(&task.lock())?;
        // Listed under its session, for `tasks/list` on the replicas the session moves to.
        // (A failure costs the listing elsewhere only, not the task, already made.)
        if let Some(owner) = cx.session()?.id() {
            if let Err(e) = store.index(owner, &task.id, Duration::from_millis(task.ttl_ms)) {
                log::warn!("task {}: not listed under its session: {e}", task.id);
            }
        }
    }
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
        // Its work ended (finished, or stopped after a cancel): no lease to renew.
        if let Some(store) = &task.store {
            store.release(&task.id);
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
    match cx.session()?.state::<TaskTable>().find_anywhere(cx, &params.task_id)? {
        Found::Here(task) => Ok(task.to_wire()),
        Found::Stored(record) => Ok(record.task),
    }
}

/// How often `tasks/result` reads the store for a task another replica runs.
const STORE_POLL: Duration = Duration::from_millis(100);

/// `tasks/result`: waits for a terminal state, then answers what the request would have.
pub(crate) fn result(cx: &RequestCx, params: TaskIdParams) -> Result<Value, RpcError> {
    let id = &params.task_id;
    let task = match cx.session()?.state::<TaskTable>().find_anywhere(cx, id)? {
        Found::Here(task) => task,
        Found::Stored(mut record) => {
            // Another replica runs it: its record is read again until it is finished (or its
            // lease lapses, which `load` makes `failed`).
            let store = cx.task_store().ok_or_else(RpcError::internal)?;
            while !record.is_terminal() {
                if cx.is_cancelled() {
                    return Err(RpcError::invalid_request("tasks/result cancelled"));
                }
                // A pause between reads (nothing here is notified of the store's changes).
                crate::util::condition::Condition::default()
                    .wait_until(|| false, Some(std::time::Instant::now() + STORE_POLL));
                record = task_store::load(store, id, unknown, "ttl")?;
            }
            return outcome_of(id, record.outcome.as_ref());
        }
    };
    let mut state = task.lock();
    while !state.status.is_terminal() {
        if cx.is_cancelled() {
            return Err(RpcError::invalid_request("tasks/result cancelled"));
        }
        state = task.finished.wait_timeout(state, Duration::from_millis(100)).unwrap_or_else(PoisonError::into_inner).0;
    }
    outcome_of(&task.id, state.outcome.as_ref())
}

/// What `tasks/result` answers for a finished task.
fn outcome_of(id: &str, outcome: Option<&Result<Value, RpcError>>) -> Result<Value, RpcError> {
    match outcome {
        Some(Ok(Value::Object(result))) => {
            let mut result = result.clone();
            let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(RELATED_TASK.into(), json!({ "taskId": id }));
            }
            Ok(Value::Object(result))
        }
        Some(Ok(other)) => Ok(other.clone()),
        Some(Err(e)) => Err(e.clone()),
        None => Err(RpcError::new(INVALID_PARAMS, format!("task {id} was cancelled"))),
    }
}

/// `tasks/list`, without the tasks the request's token lacks a scope for. With a store, the
/// session's tasks on every replica, oldest first (those other replicas run as the store has them).
pub(crate) fn list(cx: &RequestCx, params: ListParams) -> Result<Value, RpcError> {
    let session = cx.session()?;
    let mut tasks = session.state::<TaskTable>().lock().clone();
    tasks.retain(|t| cx.grants(&t.scopes));
    let (Some(store), Some(owner)) = (cx.task_store(), session.id()) else {
        return pagination::list_result("tasks", &tasks, params.cursor.as_deref(), cx.page_size(), |t| t.to_wire());
    };
    // Oldest first: those listed under the session, then any of this replica's not listed.
    let indexed = store.indexed(owner).map_err(task_store::unavailable)?;
    let mut listed = Vec::new();
    for id in &indexed {
        match tasks.iter().find(|t| t.id == *id) {
            Some(task) => listed.push(task.to_wire()),
            None => match task_store::load(store, id, unknown, "ttl") {
                Ok(record) if cx.grants(&record.scopes) => listed.push(record.task),
                Err(e) if e.code != INVALID_PARAMS => return Err(e),
                _ => {} // expired since, or not for this token
            },
        }
    }
    listed.extend(tasks.iter().filter(|t| !indexed.contains(&t.id)).map(|t| t.to_wire()));
    pagination::list_result("tasks", &listed, params.cursor.as_deref(), cx.page_size(), Value::clone)
}

/// `tasks/cancel`: a terminal task is `-32602`; otherwise it becomes `cancelled` at once.
pub(crate) fn cancel(cx: &RequestCx, params: TaskIdParams) -> Result<Value, RpcError> {
    let task = match cx.session()?.state::<TaskTable>().find_anywhere(cx, &params.task_id)? {
        Found::Here(task) => task,
        Found::Stored(mut record) => {
            let id = &params.task_id;
            if record.is_terminal() {
                return Err(RpcError::invalid_params(format!("task {id} already ended ({})", record.status())));
            }
            // Recorded as cancelled here, and the replica running it told to stop its work.
            let store = cx.task_store().ok_or_else(RpcError::internal)?;
            task_store::mark(store, id, &mut record, "cancelled", Some(CANCELLED.into()), "ttl")?;
            store.request_cancel(id).map_err(task_store::unavailable)?;
            if let Ok(session) = cx.session() {
                session.notify("notifications/tasks/status", &record.task);
            }
            return Ok(record.task);
        }
    };
    {
        let mut state = task.lock();
        if state.status.is_terminal() {
            return Err(RpcError::invalid_params(format!("task {} already ended ({:?})", task.id, state.status)));
        }
        task.cancel_locked(&mut state);
    }
    status_changed(cx, &task);
    Ok(task.to_wire())
}

const CANCELLED: &str = "The task was cancelled by request.";

impl Task {
    /// Becomes `cancelled` (its state locked and not terminal) and tells its work.
    fn cancel_locked(&self, state: &mut State) {
        state.status = TaskStatus::Cancelled;
        state.message = Some(CANCELLED.into());
        state.updated = SystemTime::now();
        self.cancelled.store(true, Ordering::SeqCst);
        self.persist_logged(state);
        self.finished.notify_all();
    }

    /// Another replica cancelled this task (through the store): its work is told.
    fn cancelled_elsewhere(&self) {
        let mut state = self.lock();
        if !state.status.is_terminal() {
            self.cancel_locked(&mut state);
        }
    }

    /// Its replica's drain ended with it unfinished: `failed`, saying so, its work told to stop.
    fn shut_down(&self) {
        let error = task_store::shut_down(&self.id);
        self.lock().message = Some(error.message.clone());
        if self.finish(Err(error)) {
            self.cancelled.store(true, Ordering::SeqCst);
        }
    }
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
            store: None,
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
