//! Per-client state: negotiated revision, client capabilities, log level, subscriptions,
//! requests in flight (for cancellation) and our requests to the client awaiting an answer.
//! The same `Session` serves stdio, Streamable HTTP and legacy SSE unchanged.

//! Knows no feature type: a feature keeps its per-session state in `Session::state`.

use crate::server::listen::Listener;
use crate::server::sink::{Outgoing, Sink};
use crate::wire::error::RpcError;
use crate::wire::frame;
use crate::wire::jsonrpc::RequestId;
use crate::wire::meta::LogLevel;
use crate::wire::protocol::ProtocolVersion;
use serde_json::Value;
use std::any::Any;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

/// Requests that may wait for a slot when a session is at its in-flight cap, and the bytes of
/// params they may hold between them. Beyond either, a request is refused at once: the reader
/// never waits for a slot, since the answers the running handlers wait for are behind it.
const MAX_QUEUED: usize = 4096;
const MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;

/// Resources one client may be subscribed to at once (each a URI of at most the URI cap).
const MAX_SUBSCRIPTIONS: usize = 1000;

/// Requests in flight: running ones hold a slot, the rest wait in order.
#[derive(Default)]
struct Flights {
    flags: HashMap<RequestId, Arc<AtomicBool>>,
    running: usize,
    /// Requests waiting for a slot, in order, with their sizes (a request that runs at once
    /// is never boxed).
    queue: VecDeque<(Waiting, usize)>,
    queued_bytes: usize,
    /// Flags of finished requests, oldest first, for new requests to reuse once nothing else
    /// holds them: the usual request then allocates no flag (and frees none on another thread).
    spare: VecDeque<Arc<AtomicBool>>,
    /// Threads in `wait_settled`: only then does the last request's end signal `settled`.
    settle_waiters: usize,
}

/// A request waiting for a slot: the work that runs it in the slot of a request that ended,
/// and hands back the next one waiting (run in a loop, never nested).
pub(crate) struct Waiting(Box<dyn FnOnce() -> Option<Waiting> + Send>);

impl Waiting {
    pub(crate) fn new(run: impl FnOnce() -> Option<Waiting> + Send + 'static) -> Self {
        Waiting(Box::new(run))
    }

    /// Runs it, then each request it hands over, on this thread.
    pub(crate) fn run(self) {
        let mut next = Some(self);
        while let Some(waiting) = next {
            next = (waiting.0)();
        }
    }
}

/// At most this many spare flags are kept.
const MAX_SPARE_FLAGS: usize = 64;

impl Flights {
    /// The oldest spare flag, cleared, if its last request's context has let go of it (a flag
    /// another holder still sees is left to that holder).
    fn reuse_flag(&mut self) -> Option<Arc<AtomicBool>> {
        let mut flag = self.spare.pop_front()?;
        // `get_mut` succeeds only for the one holder, and orders after the others' last use.
        *Arc::get_mut(&mut flag)?.get_mut() = false;
        Some(flag)
    }
}

/// What `initialize` settled.
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The revision `initialize` chose.
    pub version: ProtocolVersion,
    /// The `capabilities` the client declared in its `initialize`.
    pub client_capabilities: Arc<Value>,
}

#[derive(Default)]
struct State {
    negotiated: Option<Negotiated>,
    log_level: Option<LogLevel>,
}

type ClientAnswer = Result<Value, RpcError>;

/// One client's state.
pub struct Session {
    state: Mutex<State>,
    subscriptions: Mutex<HashSet<String>>,
    flights: Mutex<Flights>,
    pending: Mutex<HashMap<RequestId, SyncSender<ClientAnswer>>>,
    next_id: AtomicI64,
    notifier: Sink,
    closed: AtomicBool,
    /// Signalled, under the `flights` lock, when the last request in flight ends while someone
    /// waits for it (`wait_settled`).
    settled: Condvar,
    /// Per-session state of the features, one value per type.
    extensions: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
    /// The client's name, as its `initialize` gave it: what a log line names it by.
    client: std::sync::OnceLock<Box<str>>,
    /// Run once when the session ends (`RequestCx::on_session_end`).
    on_end: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
    /// The id its transport knows it by across replicas (`set_id`).
    id: std::sync::OnceLock<Box<str>>,
    /// How many times the log level or the subscriptions changed (`state_changes`).
    changes: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// A session whose messages not tied to a request go to `notifier`.
    pub(crate) fn new(notifier: Sink) -> Self {
        Session {
            state: Mutex::default(),
            subscriptions: Mutex::default(),
            flights: Mutex::default(),
            pending: Mutex::default(),
            next_id: AtomicI64::new(1),
            notifier,
            closed: AtomicBool::new(false),
            settled: Condvar::new(),
            extensions: Mutex::default(),
            client: std::sync::OnceLock::new(),
            on_end: Mutex::default(),
            id: std::sync::OnceLock::new(),
            changes: AtomicU64::new(0),
        }
    }

    /// Names the session by the id its transport knows it by on every replica (an HTTP
    /// session id; the first call only): with a task store, its tasks are listed under it
    /// there, so `tasks/list` on any replica lists those of the others too.
    pub fn set_id(&self, id: &str) {
        let _ = self.id.set(id.into());
    }

    /// The id `set_id` gave, if any.
    pub(crate) fn id(&self) -> Option<&str> {
        self.id.get().map(|id| &**id)
    }

    /// The client's name, when its `initialize` gave one.
    pub(crate) fn client(&self) -> Option<&str> {
        self.client.get().map(|name| &**name)
    }

    /// Records the client's name (the first `initialize` only).
    pub(crate) fn set_client(&self, name: &str) {
        let _ = self.client.set(name.into());
    }

    /// The session's value of type `T`, made on first use: how a feature keeps state per
    /// session (the task table, say) without the session knowing its type.
    pub(crate) fn state<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut extensions = lock(&self.extensions);
        if let Some(found) = extensions.iter().find_map(|e| Arc::clone(e).downcast::<T>().ok()) {
            return found;
        }
        let made = Arc::new(T::default());
        extensions.push(Arc::clone(&made) as Arc<dyn Any + Send + Sync>);
        made
    }

    /// What `initialize` settled, if it ran.
    pub fn negotiated(&self) -> Option<Negotiated> {
        lock(&self.state).negotiated.clone()
    }

    /// Settles the session as `initialize` would have: for a transport that carries a session
    /// across processes (an HTTP session id minted by a replica that holds no state for it).
    pub fn set_negotiated(&self, negotiated: Negotiated) {
        lock(&self.state).negotiated = Some(negotiated);
    }

    /// The revision `initialize` settled, if it ran.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        lock(&self.state).negotiated.as_ref().map(|n| n.version)
    }

    /// Whether `initialize` has been answered.
    pub fn is_initialized(&self) -> bool {
        lock(&self.state).negotiated.is_some()
    }

    /// The level `logging/setLevel` set, else the default.
    pub fn log_level(&self) -> LogLevel {
        lock(&self.state).log_level.unwrap_or(LogLevel::DEFAULT)
    }

    /// Sets the level as `logging/setLevel` would: for a transport that carries a session
    /// across processes, as [`Session::set_negotiated`].
    pub fn set_log_level(&self, level: LogLevel) {
        lock(&self.state).log_level = Some(level);
        self.changes.fetch_add(1, Ordering::Relaxed);
    }

    /// How many times the log level or the subscriptions changed since the session was made
    /// (`logging/setLevel`, `resources/subscribe` of a new URI, `resources/unsubscribe` of one
    /// held, and their `set_log_level`/`restore_subscriptions`): a transport that keeps them
    /// across processes compares it with the count it last kept, and writes only when it moved.
    pub fn state_changes(&self) -> u64 {
        self.changes.load(Ordering::Relaxed)
    }

    /// Subscribes to `uri`; `-32602`, keeping nothing, when the client already holds
    /// `MAX_SUBSCRIPTIONS` other subscriptions.
    pub(crate) fn subscribe(&self, uri: &str) -> Result<(), RpcError> {
        let mut subscriptions = lock(&self.subscriptions);
        if !subscriptions.contains(uri) && subscriptions.len() >= MAX_SUBSCRIPTIONS {
            return Err(RpcError::invalid_params(format!(
                "this client already holds {MAX_SUBSCRIPTIONS} subscriptions; unsubscribe from one first"
            )));
        }
        if subscriptions.insert(uri.to_owned()) {
            self.changes.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The URIs subscribed to, sorted: for a transport that carries a session across
    /// processes (kept in a store, read by the one that rebuilds it).
    pub fn subscription_uris(&self) -> Vec<String> {
        let mut uris: Vec<String> = lock(&self.subscriptions).iter().cloned().collect();
        uris.sort_unstable();
        uris
    }

    /// Subscribes to `uris` as `resources/subscribe` would (up to the cap), for a session
    /// rebuilt in another process (see [`Session::subscription_uris`]).
    pub fn restore_subscriptions(&self, uris: &[String]) {
        for uri in uris {
            if self.subscribe(uri).is_err() {
                break;
            }
        }
    }

    /// Unsubscribes from `uri`; whether it was subscribed to.
    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        let held = lock(&self.subscriptions).remove(uri);
        if held {
            self.changes.fetch_add(1, Ordering::Relaxed);
        }
        held
    }

    /// The sink for messages that belong to no request.
    pub(crate) fn notifier(&self) -> Sink {
        self.notifier.clone()
    }

    /// Sends a notification that belongs to no request (list changes, resource updates, task status).
    pub(crate) fn notify(&self, method: &str, params: &Value) {
        self.notifier.send(Outgoing::Notification(frame::notification(method, params)));
    }

    /// Whether every slot is taken right now (a hint: it may change before `admit`).
    pub(crate) fn looks_full(&self, max_in_flight: usize) -> bool {
        lock(&self.flights).running >= max_in_flight
    }

    /// Registers an incoming request: its job, given the request's cancellation flag, comes
    /// back to run now, or waits for a slot in order (`None`), made `Waiting` by `wait`.
    /// Never blocks: a full session queues up to `MAX_QUEUED` requests and `MAX_QUEUED_BYTES`
    /// of params (`size` each) and refuses beyond.
    pub(crate) fn admit<J>(
        &self,
        id: &RequestId,
        max_in_flight: usize,
        size: usize,
        job: impl FnOnce(Arc<AtomicBool>) -> J,
        wait: impl FnOnce(J) -> Waiting,
    ) -> Result<Option<J>, &'static str> {
        let mut flights = lock(&self.flights);
        if flights.flags.contains_key(id) {
            return Err("a request with this id is already in flight");
        }
        let full = flights.running >= max_in_flight;
        if full && (flights.queue.len() >= MAX_QUEUED || flights.queued_bytes.saturating_add(size) > MAX_QUEUED_BYTES) {
            return Err("too many requests in flight");
        }
        let flag = flights.reuse_flag().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        flights.flags.insert(id.clone(), Arc::clone(&flag));
        let job = job(flag);
        if full {
            flights.queue.push_back((wait(job), size));
            flights.queued_bytes += size;
            Ok(None)
        } else {
            flights.running += 1;
            Ok(Some(job))
        }
    }

    /// A request ended: the queued request that takes its slot, if one waits.
    pub(crate) fn finish(&self, id: &RequestId) -> Option<Waiting> {
        let mut flights = lock(&self.flights);
        if let Some(flag) = flights.flags.remove(id) {
            if flights.spare.len() < MAX_SPARE_FLAGS {
                flights.spare.push_back(flag);
            }
        }
        let next = match flights.queue.pop_front() {
            Some((job, size)) => {
                flights.queued_bytes -= size;
                Some(job)
            }
            None => {
                flights.running = flights.running.saturating_sub(1);
                None
            }
        };
        // Whoever waits checks `flags` under this lock, so the wake-up cannot slip past it.
        if flights.flags.is_empty() && flights.settle_waiters > 0 {
            self.settled.notify_all();
        }
        next
    }

    /// Spec (cancellation): marks the request; an unknown or finished id is ignored.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.flights).flags.get(id) {
            Some(flag) => {
                flag.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Reserves an id for a request to the client and the channel its answer will arrive on.
    pub(crate) fn expect_answer(&self) -> (RequestId, Receiver<ClientAnswer>) {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = mpsc::sync_channel(1);
        lock(&self.pending).insert(id.clone(), tx);
        (id, rx)
    }

    pub(crate) fn forget_answer(&self, id: &RequestId) {
        lock(&self.pending).remove(id);
    }

    /// Delivers the client's answer to the handler waiting for it.
    pub(crate) fn answer(&self, id: &RequestId, answer: ClientAnswer) -> bool {
        match lock(&self.pending).remove(id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Ends the session: running requests see cancellation, waiting handlers get an error.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for flag in lock(&self.flights).flags.values() {
            flag.store(true, Ordering::SeqCst);
        }
        lock(&self.pending).clear();
        // Taken under the lock, run outside it: a hook may take time (end a process).
        let hooks = std::mem::take(&mut *lock(&self.on_end));
        for hook in hooks {
            hook();
        }
    }

    /// Runs `hook` when the session ends, or now when it has ended.
    pub(crate) fn on_end(&self, hook: Box<dyn FnOnce() + Send>) {
        {
            let mut hooks = lock(&self.on_end);
            // Checked under the lock `close` takes after setting `closed`: a hook is run once.
            if !self.is_closed() {
                return hooks.push(hook);
            }
        }
        hook();
    }

    /// Whether the session ended.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Waits until no request is running or waiting for a slot, or `deadline`; says whether
    /// none is.
    pub(crate) fn wait_settled(&self, deadline: Instant) -> bool {
        let mut flights = lock(&self.flights);
        flights.settle_waiters += 1;
        while !flights.flags.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            flights = self.settled.wait_timeout(flights, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        flights.settle_waiters -= 1;
        flights.flags.is_empty()
    }
}

/// A session hears the server's notifications once `initialize` is answered.
impl Listener for Session {
    fn is_listening(&self) -> bool {
        self.is_initialized() && !self.is_closed()
    }

    fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    fn subscriptions(&self) -> Vec<String> {
        lock(&self.subscriptions).iter().cloned().collect()
    }

    fn notify(&self, method: &str, params: &Value) {
        Session::notify(self, method, params);
    }

    fn close(&self) {
        Session::close(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// An end hook runs once, when the session closes (a second close runs nothing), and one
    /// registered after the close runs at once.
    #[test]
    fn end_hooks_run_once_at_the_close_or_at_once_after_it() {
        let session = Session::new(Sink::channel().0);
        let runs = Arc::new(AtomicI64::new(0));
        let counted = Arc::clone(&runs);
        session.on_end(Box::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }));
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        session.close();
        session.close();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let counted = Arc::clone(&runs);
        session.on_end(Box::new(move || {
            counted.fetch_add(10, Ordering::SeqCst);
        }));
        assert_eq!(runs.load(Ordering::SeqCst), 11);
    }

    /// `state_changes` moves with what a transport keeps across replicas (the level, the
    /// subscriptions), and only then, so it writes them only when they changed.
    #[test]
    fn state_changes_count_changes_of_the_level_and_subscriptions_only() {
        let session = Session::new(Sink::channel().0);
        let start = session.state_changes();
        session.subscribe("file:///a").expect("subscribed");
        session.set_log_level(LogLevel::DEFAULT);
        assert_eq!(session.state_changes(), start + 2);
        // Nothing changed: the same subscription again, a URI not subscribed to.
        session.subscribe("file:///a").expect("subscribed");
        session.unsubscribe("file:///b");
        let _ = (session.log_level(), session.subscription_uris(), session.is_subscribed("file:///a"));
        assert_eq!(session.state_changes(), start + 2);
        session.unsubscribe("file:///a");
        assert_eq!(session.state_changes(), start + 3);
    }

    /// `wait_settled` returns once the last request in flight ends on another thread, and
    /// says `false` at its deadline while one is still running.
    #[test]
    fn waiting_for_settled_wakes_when_the_last_request_ends() {
        let session = Arc::new(Session::new(Sink::channel().0));
        let id = RequestId::String("r".into());
        let admitted = session.admit(&id, 4, 0, |_| (), |()| Waiting::new(|| None));
        assert!(matches!(admitted, Ok(Some(()))));
        assert!(!session.wait_settled(Instant::now() + Duration::from_millis(20)));
        let finisher = {
            let session = Arc::clone(&session);
            std::thread::spawn(move || {
                // Ends the request only once the waiter is waiting (or about to check again).
                while lock(&session.flights).settle_waiters == 0 {
                    std::thread::yield_now();
                }
                assert!(session.finish(&RequestId::String("r".into())).is_none());
            })
        };
        assert!(session.wait_settled(Instant::now() + Duration::from_secs(30)));
        assert!(finisher.join().is_ok());
    }
}
