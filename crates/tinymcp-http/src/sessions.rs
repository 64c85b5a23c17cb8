//! HTTP sessions: the `Mcp-Session-Id` table, each session's connection, the channel of
//! messages not tied to a request (drained by GET streams), and the streams kept for resumption.
//! Abandoned sessions cannot fill the table: one that never sent a request after `initialize`
//! expires within a minute, and at the cap the longest-idle session makes room. The cap counts
//! legacy SSE sessions too (`reserve`): one cap for every transport.
//!
//! An id is self-contained and sealed (`token`): a replica sharing the key that does not hold
//! the session rebuilds it from the id (revision, client capabilities, log level) and serves it;
//! with an `EventLog` (`--store`), the log level and subscriptions set since are kept there and
//! read back when it rebuilds.
//! A rebuilt session is an ordinary entry of the table (the cap and the reaper apply); the
//! process that minted an id ends its sessions for good, and a DELETE of a rebuilt one is
//! remembered here until the id expires.

use super::sse::{EventLog, Stream};
use super::token::{self, SessionClaims, INSTANCE_LEN};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};
use tinymcp::transport::kit::random;
use tinymcp::transport::kit::Connection;
use tinymcp::transport::kit::Negotiated;
use tinymcp::transport::kit::StateKey;
use tinymcp::transport::kit::{BoundedReceiver, Outgoing, Sink};
use tinymcp::LogLevel;
use tinymcp::Server;

/// Streams a session keeps for resumption; the oldest finished go first.
const KEPT_STREAMS: usize = 32;
/// Messages not tied to a request that may wait for a GET stream; more are dropped (newest
/// first, with a warning): a client that never opens one must not make us hold them all.
const WAITING_NOTICES: usize = 1000;
/// Ids of rebuilt sessions a DELETE ended here, remembered until they expire, per session of
/// the cap; beyond, the soonest to expire is forgotten first (and would be rebuilt again).
const ENDED_PER_SESSION: usize = 4;

/// One client session.
pub(super) struct HttpSession {
    /// Set once `initialize` succeeded (`Sessions::establish`), or at once when rebuilt.
    id: OnceLock<String>,
    /// When the id stops being accepted.
    expires: OnceLock<SystemTime>,
    /// Rebuilt from an id another process minted.
    rebuilt: bool,
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
    /// The session's `state_changes` when its state was last kept in the `EventLog` or read
    /// from it (or settled by `initialize`, which its id carries).
    kept: Mutex<u64>,
}

impl HttpSession {
    /// The `Mcp-Session-Id` (empty until `initialize` succeeded).
    pub(super) fn id(&self) -> &str {
        self.id.get().map_or("", String::as_str)
    }

    fn expired(&self, now: SystemTime) -> bool {
        self.expires.get().is_some_and(|e| now >= *e)
    }

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
    pub(super) fn new_stream(&self, for_request: bool, log: Option<&Arc<dyn EventLog>>) -> Arc<Stream> {
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let stream = match log {
            None => Stream::new(n, for_request),
            Some(log) => {
                let id = log.first_stream_id() + n;
                Stream::new(id, for_request).logged(Arc::clone(log), event_key(self.id(), id))
            }
        };
        let stream = Arc::new(stream);
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        if streams.len() >= KEPT_STREAMS {
            let victim = streams.iter().position(|s| s.is_done()).unwrap_or(0);
            streams.remove(victim);
        }
        streams.push_back(Arc::clone(&stream));
        stream
    }

    /// After a request: keeps the session's state in `log` when it changed (a `logging/setLevel`,
    /// a `resources/subscribe`), for the rest of its id's lifetime; before the answer is sent,
    /// so the client's next request finds it on any replica.
    pub(super) fn keep_state(&self, log: &Arc<dyn EventLog>) {
        // Most requests change neither: one counter read, nothing serialised or written.
        let Some(changes) = self.connection.session().map(|s| s.state_changes()) else { return };
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if *kept == changes {
            return;
        }
        let Some(state) = state_of(self) else { return };
        let ttl = self.expires.get().and_then(|e| e.duration_since(SystemTime::now()).ok()).unwrap_or_default();
        if ttl.is_zero() {
            return;
        }
        match log.keep_session(self.id(), &state, ttl) {
            Ok(()) => *kept = changes,
            Err(e) => log::warn!("session {}: its log level and subscriptions were not kept: {e}", self.id()),
        }
    }

    pub(super) fn stream(&self, id: u64) -> Option<Arc<Stream>> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner).iter().find(|s| s.id == id).cloned()
    }
}

/// The key of a stream's events in an `EventLog`: the session's and the stream's ids.
pub(super) fn event_key(session: &str, stream: u64) -> String {
    format!("{session}:{stream}")
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

/// A session of another transport, or one being initialized, counted under the cap; see
/// `Sessions::reserve`.
pub(super) struct Place<'a>(&'a Sessions);

impl Drop for Place<'_> {
    fn drop(&mut self) {
        let _table = self.0.table.lock().unwrap_or_else(PoisonError::into_inner);
        self.0.others.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Why no session was made.
pub(super) enum Refused {
    /// The cap on sessions is reached.
    Full(usize),
    /// The OS's random source failed.
    NoRandom(std::io::Error),
}

/// Why a session id found no session.
pub(super) enum Missing {
    /// Not an id of ours, altered, expired, or ended.
    Unknown,
    /// A valid id of another process, but the cap is reached and every session is busy.
    Full(usize),
}

/// Every live session by id.
pub(super) struct Sessions {
    table: Mutex<HashMap<String, Arc<HttpSession>>>,
    max: usize,
    idle: Duration,
    /// How long an id is accepted after `initialize`.
    ttl: Duration,
    /// A session with no request this long after `initialize` ends.
    handshake: Duration,
    key: StateKey,
    node: Option<String>,
    /// This process, in every id it mints.
    instance: [u8; INSTANCE_LEN],
    /// Rebuilt sessions a DELETE ended here, by id, with their expiry.
    ended: Mutex<HashMap<String, SystemTime>>,
    /// Sessions of another transport (legacy SSE) holding a place under the same cap; changed
    /// only with `table` locked.
    others: AtomicUsize,
}

impl Sessions {
    /// The table; ids sealed with `key`, accepted for `ttl`, after `node.` when given.
    pub(super) fn new(options: &super::HttpOptions, key: StateKey, node: Option<String>) -> std::io::Result<Self> {
        let (max, idle, ttl, handshake) =
            (options.max_sessions, options.session_idle, options.session_ttl, options.handshake);
        let mut instance = [0; INSTANCE_LEN];
        instance.copy_from_slice(&random::bytes(INSTANCE_LEN)?);
        let ended = Mutex::new(HashMap::new());
        let others = AtomicUsize::new(0);
        Ok(Sessions {
            table: Mutex::new(HashMap::new()),
            max,
            idle,
            ttl,
            handshake,
            key,
            node,
            instance,
            ended,
            others,
        })
    }

    /// Sessions open (legacy SSE ones included), for a metrics scrape.
    pub(super) fn count(&self) -> usize {
        self.table.lock().unwrap_or_else(PoisonError::into_inner).len() + self.others.load(Ordering::Relaxed)
    }

    /// A session for an `initialize`, not in the table until [`Sessions::establish`].
    pub(super) fn create(&self, server: &Arc<Server>) -> Arc<HttpSession> {
        self.expire();
        Arc::new(new_session(server, false))
    }

    /// After a successful `initialize`: mints the session's id from what it settled and puts
    /// it in the table (at the cap the longest-idle session makes room; with the `place` its
    /// `initialize` reserved first, that place). Its id, or why not.
    pub(super) fn establish(
        &self,
        session: &Arc<HttpSession>,
        negotiated: Negotiated,
        place: Option<Place<'_>>,
    ) -> Result<String, Refused> {
        let terms = SessionClaims {
            version: negotiated.version,
            capabilities: (*negotiated.client_capabilities).clone(),
            log_level: session.connection.session().map_or(LogLevel::DEFAULT, |s| s.log_level()),
            expires: SystemTime::now() + self.ttl,
            instance: self.instance,
        };
        let id = token::mint(&self.key, self.node.as_deref(), &terms).map_err(Refused::NoRandom)?;
        let _ = session.id.set(id.clone());
        let _ = session.expires.set(terms.expires);
        if let Some(state) = session.connection.session() {
            state.set_id(&id);
        }
        *session.kept.lock().unwrap_or_else(PoisonError::into_inner) = changes_of(session);
        self.insert(Arc::clone(session), place)?;
        Ok(id)
    }

    /// Puts a session in the table; at the cap the longest-idle one makes room. An entry
    /// already there under the same id (rebuilt meanwhile by another request) wins.
    fn insert(&self, session: Arc<HttpSession>, place: Option<Place<'_>>) -> Result<Arc<HttpSession>, Refused> {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(place) = place {
            // The reserved place becomes the entry's under the same lock: no one takes it between.
            self.others.fetch_sub(1, Ordering::SeqCst);
            std::mem::forget(place);
        }
        if let Some(there) = table.get(session.id()) {
            return Ok(Arc::clone(there));
        }
        self.make_room(&mut table)?;
        table.insert(session.id().to_owned(), Arc::clone(&session));
        Ok(session)
    }

    /// At the cap (sessions of every transport), ends the longest-idle session of the table;
    /// `Full` when every one is busy.
    fn make_room(&self, table: &mut HashMap<String, Arc<HttpSession>>) -> Result<(), Refused> {
        if table.len() + self.others.load(Ordering::SeqCst) < self.max {
            return Ok(());
        }
        // Not "unused first": a client between its `initialize` and its first request is
        // unused too, for a millisecond (the soak lost such sessions that way).
        let victim = table.values().filter(|s| s.is_idle()).max_by_key(|s| s.idle_for()).map(|s| s.id().to_owned());
        let Some(victim) = victim.and_then(|id| table.remove(&id)) else {
            return Err(Refused::Full(self.max));
        };
        log::info!("session cap ({}) reached: ended idle session {}", self.max, victim.id());
        victim.connection.close();
        Ok(())
    }

    /// A place under the cap for a session of another transport (legacy SSE), held until the
    /// guard drops; at the cap the longest-idle session here makes room, as for a new one.
    pub(super) fn reserve(&self) -> Result<Place<'_>, Refused> {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        self.make_room(&mut table)?;
        self.others.fetch_add(1, Ordering::SeqCst);
        Ok(Place(self))
    }

    /// The session of `id`: from the table, or rebuilt from the id when another process with
    /// our key minted it (and no DELETE ended it here).
    pub(super) fn get(
        &self,
        server: &Arc<Server>,
        id: &str,
        log: Option<&Arc<dyn EventLog>>,
    ) -> Result<Arc<HttpSession>, Missing> {
        let now = SystemTime::now();
        let found = self.table.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned();
        if let Some(session) = found {
            if session.expired(now) {
                log::info!("session {id} expired (its id is past its lifetime)");
                self.remove(id);
                return Err(Missing::Unknown);
            }
            // Ended from within (a relayed server exited): its client starts a new one.
            if session.connection.is_closed() {
                log::info!("session {id} ended");
                self.remove(id);
                return Err(Missing::Unknown);
            }
            session.touch();
            return Ok(session);
        }
        let terms = self.foreign(id, now).ok_or(Missing::Unknown)?;
        let session = new_session(server, true);
        let _ = session.id.set(id.to_owned());
        let _ = session.expires.set(terms.expires);
        if let Some(state) = session.connection.session() {
            state.set_id(id);
            state.set_negotiated(Negotiated {
                version: terms.version,
                client_capabilities: Arc::new(terms.capabilities),
            });
            state.set_log_level(terms.log_level);
            // What changed since `initialize`, kept by the replica that served it.
            match log.map(|log| log.session_state(id)).transpose() {
                Ok(Some(Some(kept))) => match read_state(&kept) {
                    Some((level, uris)) => {
                        state.set_log_level(level);
                        state.restore_subscriptions(&uris);
                    }
                    None => log::warn!("session {id}: its kept state is unreadable"),
                },
                Ok(_) => {}
                Err(e) => log::warn!("session {id} rebuilt without its kept log level and subscriptions: {e}"),
            }
        }
        *session.kept.lock().unwrap_or_else(PoisonError::into_inner) = changes_of(&session);
        session.mark_used();
        log::info!("session {id} rebuilt from its id (minted by another process)");
        let session = Arc::new(session);
        self.insert(Arc::clone(&session), None).map_err(|refused| {
            session.connection.close();
            match refused {
                Refused::Full(max) => Missing::Full(max),
                Refused::NoRandom(_) => Missing::Unknown,
            }
        })
    }

    /// The terms of a valid id another process minted that no DELETE ended here.
    fn foreign(&self, id: &str, now: SystemTime) -> Option<SessionClaims> {
        let terms = token::open(&self.key, id, now).map_err(|why| log::debug!("session id refused: {why}")).ok()?;
        // Ours but not in the table: it ended here (DELETE, idle, the cap), for good.
        if terms.instance == self.instance || self.ended.lock().unwrap_or_else(PoisonError::into_inner).contains_key(id)
        {
            return None;
        }
        Some(terms)
    }

    /// DELETE: ends the session here; a rebuilt one (or a valid id of another process not
    /// held here) is remembered as ended until its id expires. Whether there was one to end.
    /// Only a session of `server` is ended here.
    pub(super) fn delete(&self, server: &Arc<Server>, id: &str) -> bool {
        let now = SystemTime::now();
        let held = self.table.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned();
        let expires = match &held {
            Some(session) if !session.connection.serves(server) => return false,
            Some(session) if !session.rebuilt => return self.remove(id),
            Some(session) => session.expires.get().copied(),
            None => self.foreign(id, now).map(|t| t.expires),
        };
        let Some(expires) = expires else { return false };
        let mut ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
        ended.retain(|_, e| *e > now);
        if ended.len() >= self.max.saturating_mul(ENDED_PER_SESSION).max(1) {
            if let Some(soonest) = ended.iter().min_by_key(|(_, e)| **e).map(|(id, _)| id.clone()) {
                log::warn!("too many ended session ids to remember: {soonest} may be rebuilt until it expires");
                ended.remove(&soonest);
            }
        }
        ended.insert(id.to_owned(), expires);
        drop(ended);
        self.remove(id);
        true
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

    /// Ends sessions idle longer than the limit, past their id's lifetime, or that never sent
    /// a request after `initialize` within `handshake` (a session with an open stream or a
    /// running request is not idle); forgets ended ids that expired.
    pub(super) fn expire(&self) {
        let now = SystemTime::now();
        self.ended.lock().unwrap_or_else(PoisonError::into_inner).retain(|_, e| *e > now);
        let expired: Vec<String> = self
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter(|s| {
                s.is_idle()
                    && (s.idle_for() > self.idle
                        || s.expired(now)
                        || (!s.used.load(Ordering::Relaxed) && s.created.elapsed() > self.handshake))
            })
            .map(|s| s.id().to_owned())
            .collect();
        for id in expired {
            log::info!("session {id} expired");
            self.remove(&id);
        }
    }
}

/// A session not yet in the table.
fn new_session(server: &Arc<Server>, rebuilt: bool) -> HttpSession {
    let (notifier, notices) = Sink::bounded(WAITING_NOTICES, super::WAITING_BYTES);
    HttpSession {
        id: OnceLock::new(),
        expires: OnceLock::new(),
        rebuilt,
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
        kept: Mutex::new(0),
    }
}

/// What of a session changes after `initialize` (its log level, its subscriptions), as kept
/// in an `EventLog` for a replica that rebuilds it (its id carries the rest): JSON.
fn state_of(session: &HttpSession) -> Option<String> {
    let state = session.connection.session()?;
    let level = serde_json::to_value(state.log_level()).ok()?;
    Some(serde_json::json!({"logLevel": level, "subscriptions": state.subscription_uris()}).to_string())
}

/// The session's count of state changes (0 without one).
fn changes_of(session: &HttpSession) -> u64 {
    session.connection.session().map_or(0, |s| s.state_changes())
}

/// The log level and subscriptions of a kept state, `None` when it is not one.
fn read_state(kept: &str) -> Option<(LogLevel, Vec<String>)> {
    let kept: serde_json::Value = serde_json::from_str(kept).ok()?;
    let level = LogLevel::parse(kept.get("logLevel")?.as_str()?)?;
    let uris = kept.get("subscriptions")?.as_array()?.iter().filter_map(|u| u.as_str().map(str::to_owned)).collect();
    Some((level, uris))
}
