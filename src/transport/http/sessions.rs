//! HTTP sessions: the `Mcp-Session-Id` table, each session's connection, the channel of
//! messages not tied to a request (drained by GET streams), and the streams kept for resumption.
//! Abandoned sessions cannot fill the table: one that never sent a request after `initialize`
//! expires within a minute, and at the cap the longest-idle session makes room.

use super::sse::Stream;
use crate::server::connection::{BoundedReceiver, Connection, Outgoing, Sink};
use crate::server::Server;
use crate::util::random;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Streams a session keeps for resumption; the oldest finished go first.
const KEPT_STREAMS: usize = 32;
/// Messages not tied to a request that may wait for a GET stream; more are dropped (newest
/// first, with a warning): a client that never opens one must not make us hold them all.
const WAITING_NOTICES: usize = 1000;
/// A session that sent no request after `initialize` ends after this (the reaper looks every
/// 5 s), so abandoned handshakes cannot fill the cap.
const UNUSED_SESSION: Duration = Duration::from_secs(30);

/// One client session.
pub(super) struct HttpSession {
    pub(super) id: String,
    pub(super) connection: Connection,
    /// Messages for the standalone GET stream(s); each goes to exactly one of them: the one
    /// holding the receiver. `None` while a stream holds it; `notices_back` says it is back.
    notices: Mutex<Option<BoundedReceiver>>,
    notices_back: Condvar,
    last_seen: Mutex<Instant>,
    created: Instant,
    /// A request (not just `initialize`) or a GET stream came after the handshake.
    used: AtomicBool,
    /// POSTs of this session waiting for their answers now.
    running: AtomicUsize,
    next_stream: AtomicU64,
    streams: Mutex<VecDeque<Arc<Stream>>>,
    /// GET streams open now.
    pub(super) open_streams: AtomicUsize,
}

impl HttpSession {
    pub(super) fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        self.last_seen.lock().unwrap_or_else(PoisonError::into_inner).elapsed()
    }

    pub(super) fn mark_used(&self) {
        self.used.store(true, Ordering::Relaxed);
    }

    /// Counts a POST as running until the guard drops: a busy session is never evicted.
    pub(super) fn busy(&self) -> Busy<'_> {
        self.running.fetch_add(1, Ordering::SeqCst);
        Busy(self)
    }

    /// Neither a stream open nor a request running.
    fn is_idle(&self) -> bool {
        self.open_streams.load(Ordering::SeqCst) == 0 && self.running.load(Ordering::SeqCst) == 0
    }

    /// Takes the notice channel for one GET stream, waiting up to `wait` while another stream
    /// holds it. The wait is on a condition variable, so no lock is held while waiting.
    pub(super) fn hold_notices(&self, wait: Duration) -> Option<Notices<'_>> {
        let mut slot = self.notices.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            slot = self.notices_back.wait_timeout(slot, wait).unwrap_or_else(PoisonError::into_inner).0;
        }
        slot.take().map(|rx| Notices { session: self, rx: Some(rx) })
    }

    /// A new stream, remembered for resumption.
    pub(super) fn new_stream(&self, for_request: bool) -> Arc<Stream> {
        let stream = Arc::new(Stream::new(self.next_stream.fetch_add(1, Ordering::Relaxed), for_request));
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        if streams.len() >= KEPT_STREAMS {
            let victim = streams.iter().position(|s| s.is_done()).unwrap_or(0);
            streams.remove(victim);
        }
        streams.push_back(Arc::clone(&stream));
        stream
    }

    pub(super) fn stream(&self, id: u64) -> Option<Arc<Stream>> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner).iter().find(|s| s.id == id).cloned()
    }
}

/// A running POST; see `HttpSession::busy`.
pub(super) struct Busy<'a>(&'a HttpSession);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The session's notice channel, held by one GET stream and given back when it drops.
pub(super) struct Notices<'a> {
    session: &'a HttpSession,
    rx: Option<BoundedReceiver>,
}

impl Notices<'_> {
    pub(super) fn recv_timeout(&self, wait: Duration) -> Result<Outgoing, RecvTimeoutError> {
        match &self.rx {
            Some(rx) => rx.recv_timeout(wait),
            None => Err(RecvTimeoutError::Disconnected),
        }
    }
}

impl Drop for Notices<'_> {
    fn drop(&mut self) {
        *self.session.notices.lock().unwrap_or_else(PoisonError::into_inner) = self.rx.take();
        self.session.notices_back.notify_one();
    }
}

/// Why no session was made.
pub(super) enum Refused {
    /// The cap on sessions is reached.
    Full(usize),
    /// The OS's random source failed.
    NoRandom(std::io::Error),
}

/// Every live session by id.
pub(super) struct Sessions {
    table: Mutex<HashMap<String, Arc<HttpSession>>>,
    max: usize,
    idle: Duration,
}

impl Sessions {
    pub(super) fn new(max: usize, idle: Duration) -> Self {
        Sessions { table: Mutex::new(HashMap::new()), max, idle }
    }

    /// Mints a session (at least 128 random bits, as hex: visible ASCII only).
    pub(super) fn create(&self, server: &Arc<Server>) -> Result<Arc<HttpSession>, Refused> {
        self.expire();
        let id = random::routed_token(server.node_id(), 16).map_err(Refused::NoRandom)?;
        let (notifier, notices) = Sink::bounded(WAITING_NOTICES);
        let session = Arc::new(HttpSession {
            id: id.clone(),
            connection: Connection::new(Arc::clone(server), notifier),
            notices: Mutex::new(Some(notices)),
            notices_back: Condvar::new(),
            last_seen: Mutex::new(Instant::now()),
            created: Instant::now(),
            used: AtomicBool::new(false),
            running: AtomicUsize::new(0),
            next_stream: AtomicU64::new(1),
            streams: Mutex::new(VecDeque::new()),
            open_streams: AtomicUsize::new(0),
        });
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if table.len() >= self.max {
            // Make room: the longest idle session. Not "unused first": a client between its
            // `initialize` and its first request is unused too, for a millisecond (the soak
            // lost such sessions that way).
            let victim = table.values().filter(|s| s.is_idle()).max_by_key(|s| s.idle_for()).map(|s| s.id.clone());
            let Some(victim) = victim.and_then(|id| table.remove(&id)) else {
                return Err(Refused::Full(self.max));
            };
            log::info!("session cap ({}) reached: ended idle session {}", self.max, victim.id);
            victim.connection.close();
        }
        table.insert(id, Arc::clone(&session));
        Ok(session)
    }

    pub(super) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let session = self.table.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// Ends a session: its handlers see cancellation, its streams end.
    pub(super) fn remove(&self, id: &str) -> bool {
        let removed = self.table.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        if let Some(session) = &removed {
            session.connection.close();
        }
        removed.is_some()
    }

    /// Ends every session (at shutdown).
    pub(super) fn close_all(&self) {
        let all: Vec<_> = self.table.lock().unwrap_or_else(PoisonError::into_inner).drain().collect();
        for (_, session) in all {
            session.connection.close();
        }
    }

    /// Ends sessions idle longer than the limit, and those that never sent a request after
    /// `initialize` within `UNUSED_SESSION` (a session with an open stream or a running
    /// request is not idle).
    pub(super) fn expire(&self) {
        let expired: Vec<String> = self
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter(|s| {
                s.is_idle()
                    && (s.idle_for() > self.idle
                        || (!s.used.load(Ordering::Relaxed) && s.created.elapsed() > UNUSED_SESSION))
            })
            .map(|s| s.id.clone())
            .collect();
        for id in expired {
            log::info!("session {id} expired");
            self.remove(&id);
        }
    }
}
