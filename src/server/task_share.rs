//! `TaskShare`: the handler threads background task work may hold at once. A task's
//! work (a 2025-11-25 task-augmented call, a round of a tasks-extension task) runs after its
//! request was answered, outside every session's in-flight share; all of it together gets a
//! quarter of the workers (at least one; no more than a session's share), so one client's
//! requests (half) and every task leave room for others. More waits in order in a bounded
//! queue, and a task asked for beyond that is refused when it is asked for, before it exists.
//!
//! `TaskStore`: where replicas share their tasks (`Server::set_task_store`; the binary's
//! `--store redis://…`), the records written by `features::task_store`.

use crate::wire::error::RpcError;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Task work admitted but not yet running, at most; beyond it a new task is refused.
pub(crate) const MAX_WAITING_TASKS: usize = 256;

type Work = Box<dyn FnOnce() + Send>;

/// The share of the pool all task work runs in.
pub(crate) struct TaskShare {
    /// Task work that may run at once.
    running_cap: usize,
    state: Mutex<ShareState>,
}

#[derive(Default)]
struct ShareState {
    /// Workers running task work now.
    running: usize,
    /// Work admitted (a ticket given) and not yet finished: waiting, queued or running.
    admitted: usize,
    waiting: VecDeque<Work>,
}

/// A place under the share, taken before a task is made and freed when its work ends (or is
/// dropped unrun).
pub(crate) struct TaskTicket(Arc<TaskShare>);

impl Drop for TaskTicket {
    fn drop(&mut self) {
        self.0.lock().admitted -= 1;
    }
}

impl TaskShare {
    /// A share of `running_cap` workers (at least one).
    pub(crate) fn new(running_cap: usize) -> Arc<TaskShare> {
        Arc::new(TaskShare { running_cap: running_cap.max(1), state: Mutex::default() })
    }

    fn lock(&self) -> MutexGuard<'_, ShareState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for one piece of task work, or the error the request asking for it gets.
    pub(crate) fn reserve(self: &Arc<Self>) -> Result<TaskTicket, RpcError> {
        let mut state = self.lock();
        if state.admitted >= self.running_cap + MAX_WAITING_TASKS {
            return Err(RpcError::invalid_request(format!(
                "too many tasks: {} run and {MAX_WAITING_TASKS} wait for a worker in this server; \
                 try again once one finished",
                self.running_cap
            )));
        }
        state.admitted += 1;
        Ok(TaskTicket(Arc::clone(self)))
    }

    /// `job` under its ticket: the pool job to start now, or `None` when the share is full and
    /// it waits (the task work that ends next runs it on its thread).
    pub(crate) fn start(self: &Arc<Self>, ticket: TaskTicket, job: Work) -> Option<Work> {
        let job: Work = Box::new(move || {
            job();
            drop(ticket);
        });
        let mut state = self.lock();
        if state.running >= self.running_cap {
            state.waiting.push_back(job);
            return None;
        }
        state.running += 1;
        let share = Arc::clone(self);
        Some(Box::new(move || share.run_from(job)))
    }

    /// Runs `job`, then whatever waits, until nothing does.
    fn run_from(&self, mut job: Work) {
        loop {
            if catch_unwind(AssertUnwindSafe(job)).is_err() {
                log::error!("task work panicked");
            }
            let mut state = self.lock();
            match state.waiting.pop_front() {
                Some(next) => job = next,
                None => {
                    state.running -= 1;
                    return;
                }
            }
        }
    }
}

/// What another replica asked of a task this replica runs (`TaskStore::hold`'s hook).
pub enum TaskAsk {
    /// Cancel its work (`TaskStore::request_cancel`).
    Cancel,
    /// Take these answers to its input requests: a JSON object of `inputResponses`, as a
    /// `tasks/update` sent to that replica carried them (`TaskStore::request_input`).
    Input(String),
    /// This replica is shutting down (its drain ended) with the task unfinished: fail it,
    /// saying so, so that no replica reads it `working` until its lease lapses.
    ShutDown,
}

/// Called on the replica running a task when another replica asked something of it.
pub type TaskHook = Box<dyn Fn(TaskAsk) + Send + Sync>;

/// A store shared by replicas, holding task records (JSON text under a task id) and leases.
/// Every call is bounded in time by the implementation; an `Err` is a sentence naming the
/// store and what failed, passed on to the client.
pub trait TaskStore: Send + Sync {
    /// Writes task `id`'s record, kept for `ttl` after this write.
    fn save(&self, id: &str, record: &str, ttl: Duration) -> Result<(), String>;
    /// Task `id`'s record, or `None` if none is kept (never made, or expired).
    fn load(&self, id: &str) -> Result<Option<String>, String>;
    /// This replica runs task `id` from now until `release`: it renews the task's lease (and
    /// keeps its record for `ttl` past each renewal), and calls `hook` with what other replicas
    /// asked of it (`request_cancel`, `request_input`), in the order they asked.
    fn hold(&self, id: &str, ttl: Duration, hook: TaskHook) -> Result<(), String>;
    /// The task's work ended here: its lease is no longer renewed.
    fn release(&self, id: &str);
    /// Whether a replica still holds task `id`'s lease.
    fn held(&self, id: &str) -> Result<bool, String>;
    /// Asks the replica that runs task `id` to cancel its work.
    fn request_cancel(&self, id: &str) -> Result<(), String>;
    /// Passes `answers` (a JSON object of `inputResponses`) to the replica that runs task `id`.
    fn request_input(&self, id: &str, answers: &str) -> Result<(), String>;
    /// Calls the hook of every task this replica still holds with `TaskAsk::ShutDown` (its
    /// drain ended).
    fn shut_down(&self);
    /// Lists task `id` under `owner` (a session's id), kept at least `ttl` from now; the
    /// oldest beyond a bound may be dropped.
    fn index(&self, owner: &str, id: &str, ttl: Duration) -> Result<(), String>;
    /// The task ids listed under `owner`, oldest first (some may have expired since).
    fn indexed(&self, owner: &str) -> Result<Vec<String>, String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_beyond_the_share_waits_and_runs_in_order_and_a_full_queue_refuses() {
        let share = TaskShare::new(1);
        let ran = Arc::new(Mutex::new(Vec::new()));
        let work = |n: usize| -> Work {
            let ran = Arc::clone(&ran);
            Box::new(move || ran.lock().unwrap().push(n))
        };
        let first = share.start(share.reserve().unwrap(), work(0)).expect("room: starts now");
        let tickets: Vec<_> = (0..MAX_WAITING_TASKS).map(|_| share.reserve().expect("room in the queue")).collect();
        assert!(share.reserve().is_err(), "one running and the queue full");
        for (n, ticket) in tickets.into_iter().enumerate() {
            assert!(share.start(ticket, work(n + 1)).is_none(), "the share is full: it waits");
        }
        first();
        assert_eq!(*ran.lock().unwrap(), (0..=MAX_WAITING_TASKS).collect::<Vec<_>>());
        let again = share.reserve().expect("all done: room again");
        assert!(share.start(again, work(0)).is_some(), "and a worker's place");
    }
}
