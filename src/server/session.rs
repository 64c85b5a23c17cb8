//! Per-client state: negotiated revision, client capabilities, log level, subscriptions,
//! requests in flight (for cancellation) and our requests to the client awaiting an answer.
//! The same `Session` serves stdio, Streamable HTTP and legacy SSE unchanged.

use crate::features::logging::LogLevel;
use crate::features::tasks::TaskTable;
use crate::server::connection::{Outgoing, Sink};
use crate::wire::jsonrpc::{self, RequestId, RpcError};
use crate::wire::version::ProtocolVersion;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a request waits for a free slot when the session is at its in-flight cap before it
/// is refused. Bursts drain in microseconds; a session full of stuck handlers (say, all
/// waiting on answers the reader has yet to read) must not stall the reader for long.
const ADMIT_WAIT: Duration = Duration::from_secs(1);

/// What `initialize` settled.
#[derive(Debug, Clone)]
pub(crate) struct Negotiated {
    pub version: ProtocolVersion,
    pub client_capabilities: Arc<Value>,
    pub client_info: Arc<Value>,
}

#[derive(Default)]
struct State {
    negotiated: Option<Negotiated>,
    initialized_notified: bool,
    log_level: Option<LogLevel>,
}

type Answer = Result<Value, RpcError>;

/// One client's state.
pub struct Session {
    state: Mutex<State>,
    subscriptions: Mutex<HashSet<String>>,
    in_flight: Mutex<HashMap<RequestId, Arc<AtomicBool>>>,
    /// Signalled when a request finishes while someone waits for a slot.
    slot_free: Condvar,
    slot_waiters: AtomicUsize,
    pending: Mutex<HashMap<RequestId, SyncSender<Answer>>>,
    next_id: AtomicI64,
    notifier: Sink,
    closed: AtomicBool,
    pub(crate) tasks: TaskTable,
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
            in_flight: Mutex::default(),
            slot_free: Condvar::new(),
            slot_waiters: AtomicUsize::new(0),
            pending: Mutex::default(),
            next_id: AtomicI64::new(1),
            notifier,
            closed: AtomicBool::new(false),
            tasks: TaskTable::default(),
        }
    }

    pub(crate) fn negotiated(&self) -> Option<Negotiated> {
        lock(&self.state).negotiated.clone()
    }

    pub(crate) fn set_negotiated(&self, negotiated: Negotiated) {
        lock(&self.state).negotiated = Some(negotiated);
    }

    /// The revision `initialize` settled, if it ran.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        lock(&self.state).negotiated.as_ref().map(|n| n.version)
    }

    /// The `clientInfo` the client sent with `initialize`.
    pub fn client_info(&self) -> Option<Value> {
        lock(&self.state).negotiated.as_ref().map(|n| Value::clone(&n.client_info))
    }

    /// Whether `initialize` has been answered.
    pub fn is_initialized(&self) -> bool {
        lock(&self.state).negotiated.is_some()
    }

    pub(crate) fn mark_initialized_notified(&self) {
        lock(&self.state).initialized_notified = true;
    }

    pub(crate) fn log_level(&self) -> LogLevel {
        lock(&self.state).log_level.unwrap_or(LogLevel::DEFAULT)
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        lock(&self.state).log_level = Some(level);
    }

    pub(crate) fn subscribe(&self, uri: &str) {
        lock(&self.subscriptions).insert(uri.to_owned());
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    pub(crate) fn subscriptions(&self) -> Vec<String> {
        lock(&self.subscriptions).iter().cloned().collect()
    }

    /// The sink for messages that belong to no request.
    pub(crate) fn notifier(&self) -> Sink {
        self.notifier.clone()
    }

    /// Sends a notification that belongs to no request (list changes, resource updates).
    pub(crate) fn notify(&self, method: &str, params: &Value) {
        self.notifier.send(Outgoing::Notification(jsonrpc::notification(method, params)));
    }

    /// Registers an incoming request. At the in-flight cap it waits up to `ADMIT_WAIT` for a
    /// slot (back-pressure, so a burst is not refused); an error when none frees up or the id is taken.
    pub(crate) fn begin(&self, id: &RequestId, max_in_flight: usize) -> Result<Arc<AtomicBool>, &'static str> {
        let mut in_flight = lock(&self.in_flight);
        if in_flight.len() >= max_in_flight {
            let deadline = Instant::now() + ADMIT_WAIT;
            self.slot_waiters.fetch_add(1, Ordering::SeqCst);
            while in_flight.len() >= max_in_flight {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                in_flight = self.slot_free.wait_timeout(in_flight, left).unwrap_or_else(PoisonError::into_inner).0;
            }
            self.slot_waiters.fetch_sub(1, Ordering::SeqCst);
            if in_flight.len() >= max_in_flight {
                return Err("too many requests in flight");
            }
        }
        if in_flight.contains_key(id) {
            return Err("a request with this id is already in flight");
        }
        let flag = Arc::new(AtomicBool::new(false));
        in_flight.insert(id.clone(), Arc::clone(&flag));
        Ok(flag)
    }

    pub(crate) fn finish(&self, id: &RequestId) {
        lock(&self.in_flight).remove(id);
        if self.slot_waiters.load(Ordering::SeqCst) > 0 {
            self.slot_free.notify_one();
        }
    }

    /// Spec (cancellation): marks the request; an unknown or finished id is ignored.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.in_flight).get(id) {
            Some(flag) => {
                flag.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Reserves an id for a request to the client and the channel its answer will arrive on.
    pub(crate) fn expect_answer(&self) -> (RequestId, Receiver<Answer>) {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = mpsc::sync_channel(1);
        lock(&self.pending).insert(id.clone(), tx);
        (id, rx)
    }

    pub(crate) fn forget_answer(&self, id: &RequestId) {
        lock(&self.pending).remove(id);
    }

    /// Delivers the client's answer to the handler waiting for it.
    pub(crate) fn answer(&self, id: &RequestId, answer: Answer) -> bool {
        match lock(&self.pending).remove(id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Ends the session: running requests see cancellation, waiting handlers get an error.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for flag in lock(&self.in_flight).values() {
            flag.store(true, Ordering::SeqCst);
        }
        lock(&self.pending).clear();
    }

    /// Whether the session ended.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// How many requests are running.
    pub fn in_flight(&self) -> usize {
        lock(&self.in_flight).len()
    }

    /// Whether the client sent `notifications/initialized`.
    pub fn was_initialized_notified(&self) -> bool {
        lock(&self.state).initialized_notified
    }
}
