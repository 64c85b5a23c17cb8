//! HTTP sessions: the `Mcp-Session-Id` table, each session's connection, the channel of
//! messages not tied to a request (drained by GET streams), and the streams kept for resumption.

use super::sse::Stream;
use crate::server::connection::{BoundedReceiver, Connection, Sink};
use crate::server::Server;
use crate::util::random;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Streams a session keeps for resumption; the oldest finished go first.
const KEPT_STREAMS: usize = 32;
/// Messages not tied to a request that may wait for a GET stream; more are dropped.
const WAITING_NOTICES: usize = 1000;

/// One client session.
pub(super) struct HttpSession {
    pub(super) id: String,
    pub(super) connection: Connection,
    /// Messages for the standalone GET stream(s); each goes to exactly one of them.
    pub(super) notices: Mutex<BoundedReceiver>,
    last_seen: Mutex<Instant>,
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
        let id = random::hex_token(16).map_err(Refused::NoRandom)?;
        let (notifier, notices) = Sink::bounded(WAITING_NOTICES);
        let session = Arc::new(HttpSession {
            id: id.clone(),
            connection: Connection::new(Arc::clone(server), notifier),
            notices: Mutex::new(notices),
            last_seen: Mutex::new(Instant::now()),
            next_stream: AtomicU64::new(1),
            streams: Mutex::new(VecDeque::new()),
            open_streams: AtomicUsize::new(0),
        });
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if table.len() >= self.max {
            return Err(Refused::Full(self.max));
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

    /// Ends sessions idle longer than the limit (a session with an open GET stream is not idle).
    pub(super) fn expire(&self) {
        let expired: Vec<String> = self
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter(|s| s.open_streams.load(Ordering::Relaxed) == 0 && s.idle_for() > self.idle)
            .map(|s| s.id.clone())
            .collect();
        for id in expired {
            log::info!("session {id} expired");
            self.remove(&id);
        }
    }
}
