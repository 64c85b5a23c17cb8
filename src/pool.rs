//! An elastic pool of named worker threads that run request handlers.
//! Cheap requests reuse idle workers (no thread per request on the hot path); a job that finds
//! no idle worker gets a new thread, so a slow tool never delays `ping` or a cancellation.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long a worker above the resident count waits for work before it exits.
const IDLE_EXIT: Duration = Duration::from_secs(10);

struct State {
    queue: VecDeque<Job>,
    idle: usize,
    threads: usize,
    next_name: u64,
}

struct Shared {
    state: Mutex<State>,
    ready: Condvar,
    resident: usize,
    max_threads: usize,
}

/// The pool. Cloning shares it.
#[derive(Clone)]
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

impl Pool {
    /// A pool that keeps up to `resident` idle workers and runs at most `max_threads` at once.
    pub(crate) fn new(resident: usize, max_threads: usize) -> Self {
        Pool {
            shared: Arc::new(Shared {
                state: Mutex::new(State { queue: VecDeque::new(), idle: 0, threads: 0, next_name: 0 }),
                ready: Condvar::new(),
                resident,
                max_threads: max_threads.max(1),
            }),
        }
    }

    /// Queues a job. It starts at once on an idle worker or a new one while under the cap.
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        let mut state = self.shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.queue.push_back(Box::new(job));
        if state.queue.len() > state.idle && state.threads < self.shared.max_threads {
            state.threads += 1;
            state.next_name += 1;
            let name = format!("mcp-worker-{}", state.next_name);
            drop(state);
            let shared = Arc::clone(&self.shared);
            if let Err(e) = thread::Builder::new().name(name).spawn(move || work(&shared)) {
                log::error!("cannot start a worker thread: {e}");
                let mut state = self.shared.state.lock().unwrap_or_else(PoisonError::into_inner);
                state.threads -= 1;
            }
        } else {
            drop(state);
            self.shared.ready.notify_one();
        }
    }
}

fn work(shared: &Shared) {
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(job) = state.queue.pop_front() {
            drop(state);
            // A panicking job has already answered through its own guard; the worker lives on.
            if catch_unwind(AssertUnwindSafe(job)).is_err() {
                log::error!("a request handler panicked");
            }
            state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        state.idle += 1;
        let (next, timeout) = shared.ready.wait_timeout(state, IDLE_EXIT).unwrap_or_else(PoisonError::into_inner);
        state = next;
        state.idle -= 1;
        if timeout.timed_out() && state.queue.is_empty() && state.threads > shared.resident {
            state.threads -= 1;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_blocked_job_does_not_delay_the_next() {
        let pool = Pool::new(1, 8);
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        pool.spawn(move || {
            let _ = gate_rx.recv();
        });
        pool.spawn(move || done_tx.send(()).unwrap_or(()));
        assert!(done_rx.recv_timeout(Duration::from_secs(5)).is_ok());
        drop(gate_tx);
    }

    #[test]
    fn a_panicking_job_leaves_the_pool_working() {
        let pool = Pool::new(1, 1);
        pool.spawn(|| panic!("boom"));
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(7).unwrap_or(()));
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(7));
    }
}
