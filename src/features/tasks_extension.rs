//! The tasks extension `io.modelcontextprotocol/tasks` (SEP-2663) on the 2026-07-28 wire: a
//! client opts in per request (`_meta` client capabilities `extensions`); an optional- or
//! required-task tool then answers with a flat `CreateTaskResult` and runs on the pool;
//! `tasks/get` inlines the result, the error or the `inputRequests`; `tasks/update` answers
//! them (the tool's handler runs again with every answer so far, as a retry would);
//! `tasks/cancel` is an idempotent ack. The `Table` belongs to the server (the wire has no
//! session), bounded by `MAX_LIVE`; a finished task is dropped `ttlMs` (`Options::task_ttl`)
//! after it finished. A task holds its server only weakly, so it never keeps one alive.

use crate::features::task_store::{self, Record};
use crate::server::context::TaskStore;
use crate::server::context::{grants, missing_capability, Detached, Inputs, RequestCx, TaskLink};
use crate::server::context::{TaskAsk, TaskTicket};
use crate::util::random;
use crate::util::time::rfc3339;
use crate::wire::error::{RpcError, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY};
use crate::wire::meta::CLIENT_CAPABILITIES;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

/// The extension's name, in `capabilities.extensions` and the client's `_meta`.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const POLL_INTERVAL_MS: u64 = 1000;
/// Tasks not yet finished, at most, in one server.
const MAX_LIVE: usize = 256;

/// The work of a task: the tool's handler on the given arguments, run once per round.
pub(crate) type Work = Arc<dyn Fn(&RequestCx) -> Result<Value, RpcError> + Send + Sync>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

struct State {
    status: Status,
    updated: SystemTime,
    finished: Option<SystemTime>,
    outcome: Option<Result<Value, RpcError>>,
    answers: Map<String, Value>,
    pending: Map<String, Value>,
    /// The latest `statusMessage` the work reported (`RequestCx::progress`).
    message: Option<String>,
}

struct Runner {
    base: Detached,
    work: Work,
}

/// Where a task's status goes: the listen streams that asked for it (`RequestCx::notify_task`).
pub(crate) type Notify<'a> = &'a dyn Fn(&str, &Value);

struct ExtTask {
    id: String,
    created: SystemTime,
    ttl_ms: u64,
    cancelled: Arc<AtomicBool>,
    /// The scopes of the tool it runs: a request whose token lacks one is refused the task.
    scopes: Vec<String>,
    state: Mutex<State>,
    runner: Mutex<Runner>,
    /// Where its record is shared with other replicas (`Server::set_task_store`).
    store: Option<Arc<dyn TaskStore>>,
}

impl Drop for ExtTask {
    fn drop(&mut self) {
        if let Some(store) = &self.store {
            store.release(&self.id);
        }
    }
}

impl TaskLink for ExtTask {
    fn id(&self) -> &str {
        &self.id
    }
    /// Input is asked through `inputRequests`, never by a request to the client.
    fn set_waiting(&self, _waiting: bool) {}

    fn set_message(&self, message: &str) {
        let mut state = self.lock();
        if !state.status.is_terminal() {
            state.message = Some(message.to_owned());
            state.updated = SystemTime::now();
        }
    }
}

impl ExtTask {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Finished `ttlMs` ago, or left waiting for answers that long (nothing runs then, so an
    /// abandoned task does not hold a place under `MAX_LIVE` for ever).
    fn expired(&self, now: SystemTime) -> bool {
        let state = self.lock();
        let since = match (state.finished, state.status) {
            (Some(at), _) => at,
            (None, Status::InputRequired) => state.updated,
            _ => return false,
        };
        now.duration_since(since).is_ok_and(|d| d > Duration::from_millis(self.ttl_ms))
    }

    /// The fields every task shape shares.
    fn header(&self, state: &State) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("taskId".into(), self.id.clone().into());
        map.insert("status".into(), state.status.name().into());
        map.insert("createdAt".into(), rfc3339(self.created).into());
        map.insert("lastUpdatedAt".into(), rfc3339(state.updated).into());
        map.insert("ttlMs".into(), self.ttl_ms.into());
        map.insert("pollIntervalMs".into(), POLL_INTERVAL_MS.into());
        if let Some(message) = &state.message {
            map.insert("statusMessage".into(), message.clone().into());
        }
        map
    }

    /// The task as `tasks/get` and `notifications/tasks` carry it: the result or error inlined,
    /// or the `inputRequests`.
    fn detailed(&self, state: &State) -> Value {
        let mut map = self.header(state);
        match (&state.status, &state.outcome) {
            (Status::Completed, Some(Ok(result))) => drop(map.insert("result".into(), result.clone())),
            (Status::Failed, Some(Err(e))) => {
                drop(map.insert("error".into(), json!({ "code": e.code, "message": e.message })))
            }
            (Status::InputRequired, _) => {
                drop(map.insert("inputRequests".into(), Value::Object(state.pending.clone())))
            }
            _ => {}
        }
        Value::Object(map)
    }

    /// Tells the listen streams that asked for this task where it stands now, and the store.
    /// Called with the state locked, so they (and the store) see its statuses in order.
    fn announce(&self, state: &State, notify: Notify) {
        let detailed = self.detailed(state);
        if let Err(e) = self.persist(detailed.clone()) {
            log::warn!("task {}: {}", self.id, e.message);
        }
        if state.status.is_terminal() {
            if let Some(store) = &self.store {
                store.release(&self.id);
            }
        }
        notify(&self.id, &detailed);
    }

    /// Writes the task's record to the store, if there is one.
    fn persist(&self, detailed: Value) -> Result<(), RpcError> {
        let Some(store) = &self.store else { return Ok(()) };
        let record = Record { task: detailed, scopes: self.scopes.clone(), outcome: None };
        task_store::save(store, &self.id, &record, self.ttl_ms)
    }

    /// Runs one round of the work with every answer so far, then records where it stands. With
    /// its server gone (dropped while the round waited for a worker) there is nobody to run
    /// for or report to, and the round does nothing.
    fn round(self: &Arc<Self>) {
        let answers = self.lock().answers.clone();
        let (mut cx, work) = {
            let runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner);
            let link: Arc<dyn TaskLink> = Arc::clone(self) as Arc<dyn TaskLink>;
            let Some(cx) = runner.base.revive(link, Arc::clone(&self.cancelled)) else {
                return;
            };
            (cx, Arc::clone(&runner.work))
        };
        cx.inputs = Some(Inputs { answers, ..Inputs::default() });
        let outcome = catch_unwind(AssertUnwindSafe(|| work(&cx))).unwrap_or_else(|_| {
            log::error!("task {} panicked", self.id);
            Err(RpcError::internal())
        });
        let pending = cx
            .inputs
            .take()
            .map(|i| i.pending.into_inner().unwrap_or_else(PoisonError::into_inner))
            .unwrap_or_default();
        let clients_fault =
            matches!(&outcome, Err(e) if e.code == INVALID_PARAMS || e.code == MISSING_CLIENT_CAPABILITY);
        let mut state = self.lock();
        if state.status.is_terminal() {
            if let Some(store) = &self.store {
                store.release(&self.id);
            }
            return;
        }
        let now = SystemTime::now();
        state.updated = now;
        if !pending.is_empty() && !clients_fault {
            state.status = Status::InputRequired;
            state.pending = pending;
        } else {
            state.status = if outcome.is_ok() { Status::Completed } else { Status::Failed };
            state.outcome = Some(outcome);
            state.finished = Some(now);
        }
        self.announce(&state, &|id, params| cx.notify_task(id, params));
    }
}

/// One server's tasks of the extension.
#[derive(Default)]
pub(crate) struct Table {
    tasks: Mutex<Vec<Arc<ExtTask>>>,
}

impl Table {
    /// The tasks, the expired ones dropped first.
    fn lock(&self) -> MutexGuard<'_, Vec<Arc<ExtTask>>> {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let now = SystemTime::now();
        tasks.retain(|t| !t.expired(now));
        tasks
    }

    fn find(&self, id: &str) -> Result<Arc<ExtTask>, RpcError> {
        self.lock()
            .iter()
            .find(|t| t.id == id)
            .cloned()
            .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("unknown or expired task: {id}")))
    }

    /// Task `id`: this replica's, else its record in `store` (another replica's).
    fn find_anywhere(&self, store: Option<&Arc<dyn TaskStore>>, id: &str) -> Result<Found, RpcError> {
        match (self.find(id), store) {
            (Ok(task), _) => Ok(Found::Here(task)),
            (Err(e), None) => Err(e),
            (Err(_), Some(store)) => Ok(Found::Stored(task_store::load(store, id, task_store::unknown, "ttlMs")?)),
        }
    }

    /// Refuses (`-32003`) task `id` to a request whose token granted `granted` if that lacks a
    /// scope of its tool (an unknown id passes: it names nothing to hide).
    pub(crate) fn check_scopes(&self, granted: Option<&[String]>, id: &str) -> Result<(), RpcError> {
        match self.find(id) {
            Ok(task) if !grants(granted, &task.scopes) => {
                Err(RpcError::insufficient_scope(&format!("the task {id}"), &task.scopes))
            }
            _ => Ok(()),
        }
    }

    /// The task `id`, refused (`-32003`) to a request whose token lacks a scope of its tool.
    fn find_for(&self, cx: &RequestCx, id: &str) -> Result<Found, RpcError> {
        let found = self.find_anywhere(cx.task_store(), id)?;
        let scopes = match &found {
            Found::Here(task) => &task.scopes,
            Found::Stored(record) => &record.scopes,
        };
        if !grants(cx.granted_scopes(), scopes) {
            return Err(RpcError::insufficient_scope(&format!("the task {id}"), scopes));
        }
        Ok(found)
    }
}

/// A task as a request about it finds it.
enum Found {
    /// Run by this replica.
    Here(Arc<ExtTask>),
    /// Another replica's, as the store has it.
    Stored(Record),
}

/// Whether this request's client declared the extension.
pub(crate) fn opted_in(cx: &RequestCx) -> bool {
    cx.client_capabilities().get("extensions").and_then(|e| e.get(EXTENSION)).is_some_and(Value::is_object)
}

/// Whether a request's params declare the extension in their `_meta` client capabilities.
pub(crate) fn declared_in(params: &Value) -> bool {
    params
        .pointer(&format!("/_meta/{}/extensions", CLIENT_CAPABILITIES.replace('/', "~1")))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// Gives `send` where task `id` stands (for a listen stream that just asked for it, so it has a
/// status before the next change), with the task locked so no change overtakes it; an unknown
/// id gives nothing.
pub(crate) fn replay(tasks: &Table, id: &str, send: impl FnOnce(&Value)) {
    if let Ok(task) = tasks.find(id) {
        let state = task.lock();
        send(&task.detailed(&state));
    }
}

/// The status notification of the extension.
pub(crate) const NOTIFICATION: &str = "notifications/tasks";

/// `-32021` naming the extension.
pub(crate) fn missing() -> RpcError {
    missing_capability(EXTENSION, json!({ "extensions": { EXTENSION: {} } }))
}

/// Starts `work` as a task in `tasks` and answers with the flat `CreateTaskResult`. `answers`
/// are the ones the request already carried (a tool that asked before becoming a task);
/// `scopes` those of the tool it runs, which every later request about the task needs too.
pub(crate) fn spawn(
    cx: &RequestCx,
    tasks: &Table,
    work: Work,
    answers: Map<String, Value>,
    scopes: Vec<String>,
) -> Result<Value, RpcError> {
    let id = random::routed_token(cx.node_id(), 16).map_err(|e| {
        log::error!("no random source for a task id: {e}");
        RpcError::internal()
    })?;
    // A place under the tasks' share of the pool first: refused, no task exists.
    let ticket = cx.task_share().reserve()?;
    let now = SystemTime::now();
    let task = Arc::new(ExtTask {
        id,
        created: now,
        ttl_ms: u64::try_from(cx.task_ttl().as_millis()).unwrap_or(u64::MAX),
        cancelled: Arc::new(AtomicBool::new(false)),
        scopes,
        state: Mutex::new(State {
            status: Status::Working,
            updated: now,
            finished: None,
            outcome: None,
            answers,
            pending: Map::new(),
            message: None,
        }),
        runner: Mutex::new(Runner { base: cx.detach(), work }),
        store: cx.task_store().cloned(),
    });
    {
        let mut tasks = tasks.lock();
        let live = tasks.iter().filter(|t| !t.lock().status.is_terminal()).count();
        if live >= MAX_LIVE {
            return Err(RpcError::invalid_request(format!(
                "too many unfinished tasks: at most {MAX_LIVE} run or wait for input at once in this server; \
                 cancel one (tasks/cancel) or wait for one to finish"
            )));
        }
        tasks.push(Arc::clone(&task));
    }
    if let Some(store) = &task.store {
        // Shared before it is announced, its lease held first: another replica asked about it
        // finds it, running.
        // Whoever asked on another replica announced what it changed there.
        let weak = Arc::downgrade(&task);
        let hook = Box::new(move |ask| match (ask, weak.upgrade()) {
            (TaskAsk::Input(answers), Some(task)) => task.answered_elsewhere(&answers),
            // Already failed by its server's drain (`end_all`), which told its listeners.
            (TaskAsk::ShutDown, _) => {}
            (TaskAsk::Cancel, Some(task)) => task.end(None, &|_, _| {}),
            (_, None) => {}
        });
        let stored = store
            .hold(&task.id, Duration::from_millis(task.ttl_ms), hook)
            .map_err(task_store::unavailable)
            .and_then(|()| task.persist(task.detailed(&task.lock())));
        if let Err(e) = stored {
            tasks.lock().retain(|t| !Arc::ptr_eq(t, &task));
            return Err(e);
        }
    }
    let created = {
        let state = task.lock();
        let mut map = task.header(&state);
        map.insert("resultType".into(), "task".into());
        Value::Object(map)
    };
    let background = Arc::clone(&task);
    cx.after_response(ticket, move || background.round());
    Ok(created)
}

#[derive(Debug, Deserialize)]
pub(crate) struct IdParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct UpdateParams {
    #[serde(rename = "taskId")]
    task_id: String,
    #[serde(default, rename = "inputResponses")]
    input_responses: Map<String, Value>,
}

/// `tasks/get`: the task, with its result or error inlined, or its `inputRequests`.
pub(crate) fn get(cx: &RequestCx, tasks: &Table, params: IdParams) -> Result<Value, RpcError> {
    match tasks.find_for(cx, &params.task_id)? {
        Found::Here(task) => Ok(task.detailed(&task.lock())),
        Found::Stored(record) => Ok(record.task),
    }
}

/// `tasks/update`: answers some of the `inputRequests` (unknown keys ignored); once none is
/// left the work runs again with every answer. A task another replica runs gets the answers
/// through the store (`TaskStore::request_input`), its record changed here as it will be there.
pub(crate) fn update(cx: &RequestCx, tasks: &Table, params: UpdateParams) -> Result<Value, RpcError> {
    let task = match tasks.find_for(cx, &params.task_id)? {
        Found::Here(task) => task,
        Found::Stored(record) => return update_elsewhere(cx, &params.task_id, record, params.input_responses),
    };
    if let Some(ticket) = task.answer(cx, params.input_responses)? {
        cx.after_response(ticket, move || task.round());
    }
    Ok(json!({}))
}

/// `tasks/update` of a task another replica runs, `record` as the store has it.
fn update_elsewhere(
    cx: &RequestCx,
    id: &str,
    mut record: Record,
    answers: Map<String, Value>,
) -> Result<Value, RpcError> {
    let store = cx.task_store().ok_or_else(RpcError::internal)?;
    if record.status() != "input_required" {
        return Ok(json!({}));
    }
    let Some(Value::Object(pending)) = record.task.get_mut("inputRequests") else { return Ok(json!({})) };
    let mut taken = Map::new();
    for (key, answer) in answers {
        if pending.remove(&key).is_some() {
            taken.insert(key, answer);
        }
    }
    if taken.is_empty() {
        return Ok(json!({}));
    }
    let status = if pending.is_empty() { "working" } else { "input_required" };
    if status == "working" {
        record.task.as_object_mut().map(|task| task.remove("inputRequests"));
    }
    // Recorded first (the replica running it may finish before a later write here would land),
    // then passed on.
    task_store::mark(store, id, &mut record, status, None, "ttlMs")?;
    store.request_input(id, &Value::Object(taken).to_string()).map_err(task_store::unavailable)?;
    cx.notify_task(id, &record.task);
    Ok(json!({}))
}

impl ExtTask {
    /// Takes `answers` to its input requests (unknown keys ignored). Once none is left it is
    /// `working` again, and the ticket of its next round is returned (a place under the tasks'
    /// share of the pool, or the update is refused and changes nothing).
    fn answer(&self, cx: &RequestCx, answers: Map<String, Value>) -> Result<Option<TaskTicket>, RpcError> {
        let mut state = self.lock();
        if state.status != Status::InputRequired {
            return Ok(None);
        }
        let completes = state.pending.keys().all(|k| answers.contains_key(k));
        let ticket = if completes { Some(cx.task_share().reserve()?) } else { None };
        for (key, answer) in answers {
            if state.pending.remove(&key).is_some() {
                state.answers.insert(key, answer);
            }
        }
        if ticket.is_some() {
            state.status = Status::Working;
            state.updated = SystemTime::now();
            self.announce(&state, &|id, params| cx.notify_task(id, params));
        }
        Ok(ticket)
    }

    /// Answers a `tasks/update` on another replica passed on (`TaskAsk::Input`): taken as if
    /// sent here, the next round started at once. With no place for it under the tasks' share
    /// the task fails saying so (nobody is left to refuse).
    fn answered_elsewhere(self: &Arc<Self>, answers: &str) {
        let Ok(Value::Object(answers)) = serde_json::from_str::<Value>(answers) else {
            log::warn!("task {}: answers from another replica that are not a JSON object, ignored", self.id);
            return;
        };
        let cx = {
            let runner = self.runner.lock().unwrap_or_else(PoisonError::into_inner);
            let link: Arc<dyn TaskLink> = Arc::clone(self) as Arc<dyn TaskLink>;
            let Some(cx) = runner.base.revive(link, Arc::clone(&self.cancelled)) else { return };
            cx
        };
        match self.answer(&cx, answers) {
            Ok(Some(ticket)) => {
                let task = Arc::clone(self);
                cx.after_response(ticket, move || task.round());
                cx.start_deferred();
            }
            Ok(None) => {}
            Err(e) => self.end(Some(e), &|id, params| cx.notify_task(id, params)),
        }
    }
}

/// `tasks/cancel`: idempotent; a task still running becomes `cancelled` and its work is told.
pub(crate) fn cancel(cx: &RequestCx, tasks: &Table, params: IdParams) -> Result<Value, RpcError> {
    match tasks.find_for(cx, &params.task_id)? {
        Found::Here(task) => task.end(None, &|id, params| cx.notify_task(id, params)),
        Found::Stored(mut record) if !record.is_terminal() => {
            // Recorded as cancelled here, and the replica running it told to stop its work.
            let store = cx.task_store().ok_or_else(RpcError::internal)?;
            task_store::mark(store, &params.task_id, &mut record, "cancelled", None, "ttlMs")?;
            store.request_cancel(&params.task_id).map_err(task_store::unavailable)?;
            cx.notify_task(&params.task_id, &record.task);
        }
        Found::Stored(_) => {}
    }
    Ok(json!({}))
}

/// Ends every unfinished task in `tasks` (its server shutting down): cancelled, or with
/// `shut_down` (a drain with a task store ended) failed, saying its replica shut down, which the
/// other replicas read at once.
pub(crate) fn end_all(tasks: &Table, shut_down: bool, notify: Notify) {
    let all: Vec<Arc<ExtTask>> = tasks.lock().clone();
    for task in all {
        task.end(shut_down.then(|| task_store::shut_down(&task.id)), notify);
    }
}

impl ExtTask {
    /// A task still unfinished becomes `cancelled`, or `failed` with `error`, and its work is
    /// told; a finished one stays.
    fn end(&self, error: Option<RpcError>, notify: Notify) {
        let mut state = self.lock();
        if !state.status.is_terminal() {
            let now = SystemTime::now();
            state.status = if error.is_some() { Status::Failed } else { Status::Cancelled };
            state.updated = now;
            state.finished = Some(now);
            if let Some(error) = error {
                state.message = Some(error.message.clone());
                state.outcome = Some(Err(error));
            }
            self.cancelled.store(true, Ordering::SeqCst);
            self.announce(&state, notify);
        }
    }
}
