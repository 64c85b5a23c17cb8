//! Tasks in the store: `tinymcp:task:ID` (the record, JSON, kept the task's TTL past its last
//! write or lease renewal), `tinymcp:lease:ID` (the node id of the replica running it, kept one
//! lease), `tinymcp:cancel:ID` (set by a replica that cancelled it, kept ten leases),
//! `tinymcp:input:ID` (a list of the answers `tasks/update` brought to another replica, at most
//! `MAX_INPUTS`, kept ten leases), `tinymcp:tasks:SESSION` (the ids of a 2025-11-25 session's
//! tasks, oldest first, at most `MAX_INDEXED`, kept as long as the longest-lived of them). A thread renews the leases of the tasks this replica runs
//! every third of a lease, and passes on the cancels and answers other replicas sent.

use super::{key, millis, Link};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;
use tinymcp::{TaskAsk, TaskHook, TaskStore};

/// Answers waiting for the replica running a task, at most; more are refused.
const MAX_INPUTS: usize = 64;
/// Task ids listed under one session, at most (a session holds 1000 tasks on one replica):
/// the oldest go first.
const MAX_INDEXED: isize = 1000;

/// The tasks this replica runs, by id.
struct Held {
    ttl: Duration,
    hook: Arc<TaskHook>,
    cancelled: bool,
}

/// `TaskStore` on Redis.
pub struct RedisTasks {
    link: Arc<Link>,
    /// What a lease holds: this replica's name.
    node: String,
    lease: Duration,
    held: Mutex<HashMap<String, Held>>,
}

impl RedisTasks {
    /// Tasks in the store behind `link`; this replica (`node`) renews its leases of `lease`
    /// on a thread of its own, which ends with the last handle.
    pub fn start(link: Arc<Link>, node: String, lease: Duration) -> Result<Arc<RedisTasks>, String> {
        let tasks = Arc::new(RedisTasks { link, node, lease, held: Mutex::new(HashMap::new()) });
        let weak = Arc::downgrade(&tasks);
        std::thread::Builder::new()
            .name("tinymcp-store-leases".into())
            .stack_size(128 * 1024)
            .spawn(move || renew_leases(&weak, lease / 3))
            .map_err(|e| format!("--store: cannot start the lease thread: {e}"))?;
        Ok(tasks)
    }

    fn held_tasks(&self) -> MutexGuard<'_, HashMap<String, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One round: every held lease renewed (and its record's TTL), every cancel and answer
    /// other replicas sent passed on to its task.
    fn renew(&self) {
        let ids: Vec<(String, Duration)> = self.held_tasks().iter().map(|(id, h)| (id.clone(), h.ttl)).collect();
        if ids.is_empty() {
            return;
        }
        let lease = millis(self.lease);
        let answer = self.link.call(|c| {
            let mut pipe = redis::pipe();
            for (id, ttl) in &ids {
                pipe.cmd("SET").arg(key("lease", id)).arg(&self.node).arg("PX").arg(lease).ignore();
                pipe.cmd("PEXPIRE").arg(key("task", id)).arg(millis(*ttl) + lease).ignore();
                pipe.cmd("EXISTS").arg(key("cancel", id));
                pipe.cmd("LPOP").arg(key("input", id)).arg(MAX_INPUTS);
            }
            pipe.query::<Vec<redis::Value>>(c)
        });
        let replies = match answer {
            Ok(replies) => replies,
            Err(e) => {
                log::debug!("task leases not renewed: {e}");
                return;
            }
        };
        let mut asks = Vec::new();
        {
            let mut held = self.held_tasks();
            let mut replies = replies.into_iter();
            for (id, _) in &ids {
                let (Some(cancel), Some(inputs)) = (replies.next(), replies.next()) else { break };
                let cancel = redis::from_redis_value::<bool>(cancel).unwrap_or(false);
                let inputs = redis::from_redis_value::<Option<Vec<String>>>(inputs).ok().flatten().unwrap_or_default();
                let Some(h) = held.get_mut(id) else { continue };
                for answers in inputs {
                    asks.push((Arc::clone(&h.hook), TaskAsk::Input(answers)));
                }
                if cancel && !h.cancelled {
                    h.cancelled = true;
                    asks.push((Arc::clone(&h.hook), TaskAsk::Cancel));
                }
            }
        }
        // Outside the lock: a hook may release its task.
        for (hook, ask) in asks {
            hook(ask);
        }
    }
}

fn renew_leases(tasks: &Weak<RedisTasks>, every: Duration) {
    loop {
        std::thread::sleep(every);
        let Some(tasks) = tasks.upgrade() else { return };
        tasks.renew();
    }
}

impl TaskStore for RedisTasks {
    fn save(&self, id: &str, record: &str, ttl: Duration) -> Result<(), String> {
        self.link.call(|c| redis::cmd("SET").arg(key("task", id)).arg(record).arg("PX").arg(millis(ttl)).query(c))
    }

    fn load(&self, id: &str) -> Result<Option<String>, String> {
        self.link.call(|c| redis::cmd("GET").arg(key("task", id)).query(c))
    }

    fn hold(&self, id: &str, ttl: Duration, hook: TaskHook) -> Result<(), String> {
        let lease = millis(self.lease);
        self.link
            .call(|c| redis::cmd("SET").arg(key("lease", id)).arg(&self.node).arg("PX").arg(lease).query::<()>(c))?;
        self.held_tasks().insert(id.to_owned(), Held { ttl, hook: Arc::new(hook), cancelled: false });
        Ok(())
    }

    fn release(&self, id: &str) {
        if self.held_tasks().remove(id).is_some() {
            // The lease lapses by itself; deleting it now is only tidier.
            if let Err(e) = self.link.call(|c| redis::cmd("DEL").arg(key("lease", id)).query::<()>(c)) {
                log::debug!("task {id}: lease not deleted: {e}");
            }
        }
    }

    fn held(&self, id: &str) -> Result<bool, String> {
        self.link.call(|c| redis::cmd("EXISTS").arg(key("lease", id)).query(c))
    }

    fn request_cancel(&self, id: &str) -> Result<(), String> {
        let kept = millis(self.lease * 10).max(10_000);
        self.link.call(|c| redis::cmd("SET").arg(key("cancel", id)).arg(1).arg("PX").arg(kept).query(c))
    }

    fn shut_down(&self) {
        let hooks: Vec<Arc<TaskHook>> = self.held_tasks().values().map(|h| Arc::clone(&h.hook)).collect();
        // Outside the lock: a hook releases its task.
        for hook in hooks {
            hook(TaskAsk::ShutDown);
        }
    }

    fn index(&self, owner: &str, id: &str, ttl: Duration) -> Result<(), String> {
        let key = key("tasks", owner);
        // Kept as long as the longest-lived of its tasks may be asked about: set when new
        // (NX), else only lengthened (GT).
        let kept = millis(ttl) + millis(self.lease);
        self.link.call(|c| {
            redis::pipe()
                .cmd("RPUSH")
                .arg(&key)
                .arg(id)
                .ignore()
                .cmd("LTRIM")
                .arg(&key)
                .arg(-MAX_INDEXED)
                .arg(-1)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(kept)
                .arg("NX")
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(kept)
                .arg("GT")
                .ignore()
                .query::<()>(c)
        })
    }

    fn indexed(&self, owner: &str) -> Result<Vec<String>, String> {
        self.link.call(|c| redis::cmd("LRANGE").arg(key("tasks", owner)).arg(0).arg(-1).query(c))
    }

    fn request_input(&self, id: &str, answers: &str) -> Result<(), String> {
        let kept = millis(self.lease * 10).max(10_000);
        let key = key("input", id);
        let waiting = self.link.call(|c| {
            redis::pipe()
                .cmd("RPUSH")
                .arg(&key)
                .arg(answers)
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(kept)
                .ignore()
                .query::<(usize,)>(c)
        })?;
        if waiting.0 > MAX_INPUTS {
            // Refused, and taken back (the newest is the last).
            let _ = self.link.call(|c| redis::cmd("RPOP").arg(&key).query::<Option<String>>(c));
            return Err(format!(
                "{MAX_INPUTS} updates of task {id} already wait for the replica running it; try again in a moment"
            ));
        }
        Ok(())
    }
}
