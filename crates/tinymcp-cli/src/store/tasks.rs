//! Tasks in the store: `tinymcp:task:ID` (the record, JSON, kept the task's TTL past its last
//! write or lease renewal), `tinymcp:lease:ID` (the node id of the replica running it, kept one
//! lease), `tinymcp:cancel:ID` (set by a replica that cancelled it, kept ten leases). A thread
//! renews the leases of the tasks this replica runs every third of a lease, and passes on the
//! cancels other replicas asked for.

use super::{key, millis, Link};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;
use tinymcp::{CancelHook, TaskStore};

/// The tasks this replica runs, by id.
struct Held {
    ttl: Duration,
    cancel: Arc<CancelHook>,
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

    /// One round: every held lease renewed (and its record's TTL), every cancel asked for
    /// passed on to its task.
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
            }
            pipe.query::<Vec<bool>>(c)
        });
        let cancelled = match answer {
            Ok(cancelled) => cancelled,
            Err(e) => {
                log::debug!("task leases not renewed: {e}");
                return;
            }
        };
        let mut hooks = Vec::new();
        {
            let mut held = self.held_tasks();
            for ((id, _), cancel) in ids.iter().zip(cancelled) {
                if let Some(h) = held.get_mut(id).filter(|h| cancel && !h.cancelled) {
                    h.cancelled = true;
                    hooks.push(Arc::clone(&h.cancel));
                }
            }
        }
        // Outside the lock: a hook releases its task.
        for hook in hooks {
            hook();
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

    fn hold(&self, id: &str, ttl: Duration, cancel: CancelHook) -> Result<(), String> {
        let lease = millis(self.lease);
        self.link
            .call(|c| redis::cmd("SET").arg(key("lease", id)).arg(&self.node).arg("PX").arg(lease).query::<()>(c))?;
        self.held_tasks().insert(id.to_owned(), Held { ttl, cancel: Arc::new(cancel), cancelled: false });
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
}
