//! An elastic pool of named worker threads that run request handlers.
//! A few resident workers serve the hot path: a burst of cheap requests queues behind them
//! instead of starting a thread each. A monitor thread watches the queue: when queued work
//! sees no worker take anything for `STALL` (every worker stuck in a slow tool), it adds a
//! worker, so a slow tool never delays `ping` or a cancellation for more than that.
//! `shutdown` stops it: workers finish what is queued and exit, and every thread is joined.
//! Nothing here polls: waits are on condition variables (the monitor's `STALL` is a real
//! interval, the measure of "no progress").

use crate::server::context::RequestCx;
use crate::server::dispatch;
use crate::server::scope;
use crate::server::session::Waiting;
use crate::server::sink::Outgoing;
use crate::wire::error::{self, RpcError};
use crate::wire::frame::Answer;
use crate::wire::jsonrpc::Request;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// A request's work, run on the pool: the request and its context. It answers itself through
/// the method table, then hands over the queued request that takes its slot (the session
/// decides which). Plain data rather than a boxed closure: a request that runs at once costs
/// the pool no allocation.
pub(crate) struct Job {
    pub(crate) cx: RequestCx,
    pub(crate) req: Request,
    /// When it arrived, when the server keeps metrics: its latency includes its wait.
    pub(crate) started: Option<Instant>,
}

impl Job {
    /// Runs the job, then each queued one it hands over, on this thread.
    pub(crate) fn run(self) {
        if let Some(next) = self.answer() {
            next.run();
        }
    }

    /// Answers the request (`dispatch::answer`), unless it was cancelled; hands back the
    /// queued request that takes its slot.
    pub(crate) fn answer(self) -> Option<Waiting> {
        let Job { mut cx, req, started } = self;
        let server = Arc::clone(&cx.server);
        // Whatever is logged while the request runs on this thread names it.
        let scope = cx.scope.clone();
        let _in = scope.as_ref().map(scope::enter);
        if cx.is_cancelled() {
            // Cancelled while it waited for a slot: it never runs.
            log::debug!("request {} cancelled before it ran; no response", req.id);
            return cx.session.as_ref().and_then(|s| s.finish(&req.id));
        }
        let running = server.metrics().map(|m| m.in_flight());
        let outcome = catch_unwind(AssertUnwindSafe(|| dispatch::answer(&mut cx, &server, &req.method, &req.params)))
            .unwrap_or_else(|_| {
                log::error!("handler for {} panicked", req.method);
                Err(RpcError::internal())
            });
        let next = cx.session.as_ref().and_then(|s| s.finish(&req.id));
        if cx.is_cancelled() {
            // Spec (cancellation): no response once cancelled.
            log::debug!("request {} cancelled; no response", req.id);
            server.count_request::<()>(&req.method, started, None);
        } else {
            if let Err(e) = &outcome {
                if e.code == error::INTERNAL_ERROR {
                    log::error!("{} failed: {}", req.method, e.message);
                }
            }
            if let Some(scope) = &scope {
                scope::answered(scope, outcome.as_ref().err().map(|e| e.code), "");
            }
            server.count_request(&req.method, started, Some(&outcome));
            cx.sink.send(Outgoing::Response(Answer::new(req.id, outcome)));
        }
        drop(running);
        cx.start_deferred();
        next
    }
}

/// What waits in the queue: a request's `Job` as it is, or any other work. A job is held inline
/// (a few hundred bytes in the queue's ring) so that a request costs no allocation; other work
/// is rare.
#[expect(clippy::large_enum_variant, reason = "requests, the usual task, are held inline on purpose")]
enum Task {
    Job(Job),
    Other(Box<dyn FnOnce() + Send + 'static>),
}

impl Task {
    fn run(self) {
        match self {
            Task::Job(job) => job.run(),
            Task::Other(work) => work(),
        }
    }
}

/// How long a worker above the resident count waits for work before it exits.
const IDLE_EXIT: Duration = Duration::from_secs(10);
/// How long a worker beyond the resident ones lives before it retires (once nothing is queued).
/// Under steady load every idle worker keeps getting a job now and then, so none idles out, and
/// each thread's allocator cache of freed blocks (glibc's tcache) fills with the sizes its
/// handlers used: `scripts/soak.sh --stdio` grew 17 -> 36 MiB over 540 s with a live heap
/// under 1 MiB. Retiring hands those caches back and keeps the resident size flat.
const RETIRE: Duration = Duration::from_secs(30);
/// How long queued work may wait with no worker taking a job before another worker starts.
/// Long enough that a worker merely waiting for a CPU (two cores, five busy threads) is not
/// mistaken for one stuck in a slow tool.
const STALL: Duration = Duration::from_millis(5);

struct State {
    queue: VecDeque<Task>,
    idle: usize,
    threads: usize,
    /// Jobs taken so far: the monitor sees progress by this count moving.
    taken: u64,
    next_name: u64,
    monitor_started: bool,
    /// The monitor sleeps on `stalled` until work is queued; only then is it worth a wake-up.
    monitor_parked: bool,
    /// Idle workers signalled and not yet awake.
    waking: usize,
    /// Set by `shutdown`: no new jobs or threads; workers drain the queue and exit.
    stopping: bool,
    /// Callers of `wait_quiet`: only while there are any does going idle signal `quiet`.
    quiet_waiters: usize,
    /// Every thread started and not yet joined (finished ones are pruned as threads start).
    handles: Vec<thread::JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    ready: Condvar,
    /// Wakes the monitor when work is queued with no idle worker.
    stalled: Condvar,
    /// Signalled when the pool goes quiet (nothing queued or running) and someone waits.
    quiet: Condvar,
    /// Signalled when a thread of the pool (a worker or the monitor) ends: `shutdown` waits.
    exited: Condvar,
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
    /// Its jobs are mostly quick: a burst queues behind the first woken worker.
    pub(crate) fn new(resident: usize, max_threads: usize) -> Self {
        Pool {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    idle: 0,
                    threads: 0,
                    taken: 0,
                    next_name: 0,
                    monitor_started: false,
                    monitor_parked: false,
                    waking: 0,
                    stopping: false,
                    quiet_waiters: 0,
                    handles: Vec::new(),
                }),
                ready: Condvar::new(),
                stalled: Condvar::new(),
                quiet: Condvar::new(),
                exited: Condvar::new(),
                resident: resident.max(1),
                max_threads: max_threads.max(1),
            }),
        }
    }

    /// Queues a job: an idle worker takes it, or a new one while under the resident count;
    /// otherwise it waits for a worker and the monitor makes sure one comes.
    ///
    /// Wake-ups are the expensive part (a futex call and a context switch each), so in a pool of
    /// quick jobs a job queued behind others wakes nobody: whoever was woken for, or is busy
    /// before, the first one drains the queue, and the monitor covers the case where that
    /// worker is stuck.
    pub(crate) fn spawn_boxed(&self, job: Box<dyn FnOnce() + Send + 'static>) {
        self.queue(Task::Other(job));
    }

    /// Queues work (tests; the crate's work comes boxed).
    #[cfg(test)]
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        self.queue(Task::Other(Box::new(job)));
    }

    /// Queues a request's job (and whatever it hands over).
    pub(crate) fn spawn_job(&self, job: Job) {
        self.queue(Task::Job(job));
    }

    fn queue(&self, task: Task) {
        let shared = &self.shared;
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.stopping {
            log::warn!("the server is shutting down; a job was dropped");
            return;
        }
        state.queue.push_back(task);
        let wake = state.idle > 0 && state.queue.len() == 1;
        if wake {
            state.waking += 1;
            drop(state);
            shared.ready.notify_one();
        } else if state.idle <= state.waking && state.threads < shared.resident {
            add_worker(shared, &mut state);
        } else {
            // Queued behind other work: the worker draining the queue may be stuck in a slow job
            // (an SSE stream never ends), so the monitor must watch, or this job waits forever.
            if !state.monitor_started {
                state.monitor_started = true;
                let monitor = Arc::clone(shared);
                let spawned =
                    thread::Builder::new().name("mcp-pool-monitor".into()).stack_size(64 * 1024).spawn(move || {
                        watch(&monitor);
                        monitor.state.lock().unwrap_or_else(PoisonError::into_inner).monitor_started = false;
                        monitor.exited.notify_all();
                    });
                match spawned {
                    Ok(handle) => state.handles.push(handle),
                    Err(e) => {
                        log::error!("cannot start the pool monitor: {e}");
                        state.monitor_started = false;
                    }
                }
            }
            if state.monitor_parked {
                state.monitor_parked = false;
                drop(state);
                shared.stalled.notify_one();
            }
        }
    }

    /// For a metrics scrape: the jobs queued and the worker threads, read under the lock a
    /// scrape takes (never a request); `(0, 0)` once the pool is gone.
    pub(crate) fn sizes(&self) -> impl Fn() -> (usize, usize) + Send + Sync + 'static {
        let shared = Arc::downgrade(&self.shared);
        move || {
            shared.upgrade().map_or((0, 0), |shared| {
                let state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
                (state.queue.len(), state.threads)
            })
        }
    }

    /// Whether every worker the pool may have is running a job: a job queued now waits for one
    /// to finish (what `/healthz` reports as saturated).
    pub(crate) fn saturated(&self) -> bool {
        let state = self.shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.threads >= self.shared.max_threads && state.idle == 0
    }

    /// Waits until no job is queued or running, or `deadline`; says whether none is.
    pub(crate) fn wait_quiet(&self, deadline: Instant) -> bool {
        let shared = &self.shared;
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.quiet_waiters += 1;
        let quiet = loop {
            if !state.busy() {
                break true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break false;
            }
            state = shared.quiet.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        };
        state.quiet_waiters -= 1;
        quiet
    }

    /// Stops the pool: no new jobs; workers finish the queue and their current job, then exit.
    /// Every thread is joined (but the caller's own, when a job calls it); one still busy after
    /// `grace` (a handler ignoring cancellation) is left to finish alone, with a warning.
    pub(crate) fn shutdown(&self, grace: Duration) {
        let shared = &self.shared;
        let me = thread::current().id();
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.stopping {
            // Stopped already (`Server::shutdown`, then the drop): that call joined what it could,
            // and no thread started since.
            return;
        }
        state.stopping = true;
        let handles: Vec<_> = std::mem::take(&mut state.handles);
        shared.ready.notify_all();
        shared.stalled.notify_all();
        // A job stopping its own pool: its worker cannot end before this returns.
        let own = usize::from(handles.iter().any(|h| h.thread().id() == me));
        let deadline = Instant::now() + grace;
        let mut all_ended = true;
        while state.threads + usize::from(state.monitor_started) > own {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                log::warn!(
                    "{} pool threads still busy {grace:?} after shutdown; left to finish alone",
                    state.threads - own
                );
                all_ended = false;
                break;
            }
            state = shared.exited.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        drop(state);
        // Every other thread has left its loop (joining waits only for its last instructions),
        // unless the grace ran out: then only those already finished are joined.
        for handle in handles.into_iter().filter(|h| h.thread().id() != me) {
            if (all_ended || handle.is_finished()) && handle.join().is_err() {
                log::error!("a pool thread panicked");
            }
        }
    }
}

impl State {
    /// Whether any job is queued or running (a worker between jobs counts as running).
    fn busy(&self) -> bool {
        !self.queue.is_empty() || self.threads > self.idle
    }
}

/// A worker leaves the pool (the caller holds the lock): `shutdown` and `wait_quiet` may be
/// waiting for that.
fn leave(shared: &Shared, state: &mut State) {
    state.threads -= 1;
    shared.exited.notify_all();
    signal_if_quiet(shared, state);
}

/// Wakes `wait_quiet` callers once nothing is queued or running; costs nothing without them.
fn signal_if_quiet(shared: &Shared, state: &State) {
    if state.quiet_waiters > 0 && !state.busy() {
        shared.quiet.notify_all();
    }
}

/// Starts one more worker (the caller holds the lock and has checked the caps).
fn add_worker(shared: &Arc<Shared>, state: &mut State) {
    state.threads += 1;
    state.next_name += 1;
    let worker = Arc::clone(shared);
    let spawned = thread::Builder::new().name(format!("mcp-worker-{}", state.next_name)).spawn(move || work(&worker));
    match spawned {
        Ok(handle) => {
            state.handles.retain(|h| !h.is_finished());
            state.handles.push(handle);
        }
        Err(e) => {
            log::error!("cannot start a worker thread: {e}");
            state.threads -= 1;
        }
    }
}

/// The monitor: while work is queued and no job was taken for `STALL`, wake an idle worker or,
/// with none, add one.
fn watch(shared: &Arc<Shared>) {
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        while state.queue.is_empty() {
            if state.stopping {
                return;
            }
            state.monitor_parked = true;
            state = shared.stalled.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        state.monitor_parked = false;
        let seen = state.taken;
        // `STALL` is the point here (how long without progress counts as stuck), so this is a
        // timed wait; `shutdown` cuts it short.
        let until = Instant::now() + STALL;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || state.stopping {
                break;
            }
            state = shared.stalled.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        if state.stopping {
            return;
        }
        if state.queue.is_empty() || state.taken != seen {
            continue;
        }
        if state.idle > 0 {
            state.waking += 1;
            shared.ready.notify_one();
        } else if state.threads < shared.max_threads {
            log::debug!("every worker is busy: adding one ({} running)", state.threads);
            add_worker(shared, &mut state);
        }
    }
}

fn work(shared: &Shared) {
    let born = Instant::now();
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(job) = state.queue.pop_front() {
            state.taken += 1;
            drop(state);
            // A panicking job has already answered through its own guard; the worker lives on.
            if catch_unwind(AssertUnwindSafe(|| job.run())).is_err() {
                log::error!("a request handler panicked");
            }
            state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
            // An extra worker retires once it is old and nothing waits (another starts when
            // needed): see `RETIRE`.
            if born.elapsed() >= RETIRE && state.queue.is_empty() && state.threads > shared.resident {
                leave(shared, &mut state);
                return;
            }
            continue;
        }
        if state.stopping {
            leave(shared, &mut state);
            return;
        }
        state.idle += 1;
        signal_if_quiet(shared, &state);
        let (next, timeout) = shared.ready.wait_timeout(state, IDLE_EXIT).unwrap_or_else(PoisonError::into_inner);
        state = next;
        state.idle -= 1;
        state.waking = state.waking.saturating_sub(1);
        if timeout.timed_out() && state.queue.is_empty() && state.threads > shared.resident {
            leave(shared, &mut state);
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Queues a job that blocks until the test ends and one right behind it, which must run.
    fn behind_a_blocked_job_the_next_runs(pool: &Pool) {
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
    fn a_blocked_job_does_not_delay_the_next() {
        behind_a_blocked_job_the_next_runs(&Pool::new(1, 8));
    }

    #[test]
    fn a_job_queued_behind_a_blocked_one_still_runs() {
        let pool = Pool::new(2, 8);
        // Two idle workers, then a job that blocks and one queued right behind it: the second
        // must not wait for the first even though nobody was woken for it.
        let (warm_tx, warm_rx) = mpsc::channel();
        for _ in 0..2 {
            let warm_tx = warm_tx.clone();
            pool.spawn(move || {
                // Work that takes a while, so each job gets a worker of its own.
                thread::sleep(Duration::from_millis(20));
                warm_tx.send(()).unwrap_or(());
            });
        }
        for _ in 0..2 {
            assert!(warm_rx.recv_timeout(Duration::from_secs(5)).is_ok());
        }
        assert!(pool.wait_quiet(Instant::now() + Duration::from_secs(5)), "both workers idle");
        behind_a_blocked_job_the_next_runs(&pool);
    }

    #[test]
    fn a_panicking_job_leaves_the_pool_working() {
        let pool = Pool::new(1, 1);
        pool.spawn(|| panic!("boom"));
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(7).unwrap_or(()));
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(7));
    }

    #[test]
    fn shutdown_runs_what_is_queued_and_joins_every_thread() {
        let pool = Pool::new(2, 8);
        let (tx, rx) = mpsc::channel();
        for n in 0..6 {
            let tx = tx.clone();
            pool.spawn(move || {
                // Work that takes a while, so jobs are still queued when shutdown comes.
                thread::sleep(Duration::from_millis(5));
                tx.send(n).unwrap_or(());
            });
        }
        pool.shutdown(Duration::from_secs(5));
        let mut done: Vec<i32> = rx.try_iter().collect();
        done.sort();
        assert_eq!(done, [0, 1, 2, 3, 4, 5]);
        let state = pool.shared.state.lock().unwrap();
        assert_eq!(state.threads, 0, "every worker exited");
        assert!(state.handles.is_empty());
        drop(state);
        pool.spawn(|| unreachable!("a stopped pool runs nothing"));
    }

    #[test]
    fn a_job_may_stop_its_own_pool_twice_without_waiting_for_itself() {
        // A handler dropping the last `Arc<Server>` after calling `shutdown` does this.
        let pool = Pool::new(1, 4);
        let (tx, rx) = mpsc::channel();
        let inner = pool.clone();
        pool.spawn(move || {
            let started = Instant::now();
            inner.shutdown(Duration::from_secs(5));
            inner.shutdown(Duration::from_secs(5));
            tx.send(started.elapsed()).unwrap_or(());
        });
        let took = rx.recv_timeout(Duration::from_secs(15)).expect("the job ended");
        assert!(took < Duration::from_secs(2), "the job waited for its own thread: {took:?}");
    }
}
