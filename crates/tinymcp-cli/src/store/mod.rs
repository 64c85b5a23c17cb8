//! `--store redis://HOST:PORT[/DB]` (cargo feature `store`): replicas share tasks through Redis
//! or Valkey, with the `redis` crate's synchronous client. One connection, behind a lock, serves
//! every call; each call is bounded by a connect, read and write timeout, and a lost
//! connection is made again on the next call after a back-off (until then calls fail at once,
//! saying the store is unreachable), so no thread waits on the store for long and what needs no
//! store never waits on it. Every key has a TTL (docs/deploy.md, "The store").

mod events;
mod notices;
mod tasks;

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

pub use events::RedisEvents;
pub use notices::RedisNotices;
pub use tasks::RedisTasks;

/// The SSE events kept for other replicas (`--store`), for the HTTP transport's options, which
/// are made after the server.
pub static EVENTS: OnceLock<Arc<RedisEvents>> = OnceLock::new();

/// Every key starts with it.
const PREFIX: &str = "tinymcp:";
/// How long connecting, and each command's reply, may take.
const TIMEOUT: Duration = Duration::from_secs(1);
/// The back-off after a failure: from the first to the last, doubling.
const FIRST_RETRY: Duration = Duration::from_millis(100);
const LAST_RETRY: Duration = Duration::from_secs(5);

/// The store's address as a log line or an error may show it: without a password.
pub fn shown(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}{}", &url[..scheme + 3], &url[at + 1..]),
        _ => url.to_owned(),
    }
}

/// One connection to the store, made again after a back-off once lost.
pub struct Link {
    client: redis::Client,
    shown: String,
    state: Mutex<LinkState>,
}

struct LinkState {
    conn: Option<redis::Connection>,
    /// No new connection is tried before then.
    retry_at: Instant,
    backoff: Duration,
    last_error: String,
}

impl Link {
    /// A link to the store at `url`, which must answer a PING now: a store unreachable at
    /// start is refused, not found out at the first task.
    pub fn open(url: &str) -> Result<Link, String> {
        let shown = shown(url);
        if !url.starts_with("redis://") {
            return Err(format!("--store {shown}: expected redis://HOST:PORT[/DB] (Redis 7 or Valkey)"));
        }
        let client = redis::Client::open(url).map_err(|e| format!("--store {shown}: {e}"))?;
        let link = Link {
            client,
            shown: shown.clone(),
            state: Mutex::new(LinkState {
                conn: None,
                retry_at: Instant::now(),
                backoff: FIRST_RETRY,
                last_error: String::new(),
            }),
        };
        link.call(|c| redis::cmd("PING").query::<String>(c))
            .map_err(|e| format!("--store {shown}: cannot reach the store: {e}"))?;
        Ok(link)
    }

    /// The store's address, without a password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn lock(&self) -> MutexGuard<'_, LinkState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new connection with every timeout set.
    pub fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let conn = self.client.get_connection_with_timeout(TIMEOUT)?;
        conn.set_read_timeout(Some(TIMEOUT))?;
        conn.set_write_timeout(Some(TIMEOUT))?;
        Ok(conn)
    }

    /// Runs `f` on the connection (made first if needed). A failure drops the connection; the
    /// next one is tried after the back-off, and until then calls fail at once.
    pub fn call<T>(&self, f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>) -> Result<T, String> {
        let mut state = self.lock();
        if state.conn.is_none() {
            let now = Instant::now();
            if now < state.retry_at {
                return Err(format!(
                    "the store {} is unreachable ({}); the next try is in {} ms",
                    self.shown,
                    state.last_error,
                    state.retry_at.duration_since(now).as_millis()
                ));
            }
            match self.connect() {
                Ok(conn) => {
                    if !state.last_error.is_empty() {
                        log::info!("the store {} is reachable again", self.shown);
                    }
                    state.conn = Some(conn);
                    state.backoff = FIRST_RETRY;
                    state.last_error.clear();
                }
                Err(e) => return Err(self.failed(&mut state, e)),
            }
        }
        let Some(conn) = state.conn.as_mut() else { return Err(format!("the store {} is unreachable", self.shown)) };
        match f(conn) {
            Ok(value) => Ok(value),
            Err(e) if !e.is_io_error() && !e.is_timeout() && !e.is_connection_dropped() => {
                Err(format!("the store {} answered: {e}", self.shown))
            }
            Err(e) => Err(self.failed(&mut state, e)),
        }
    }

    fn failed(&self, state: &mut LinkState, e: redis::RedisError) -> String {
        if state.last_error.is_empty() {
            log::warn!("the store {} is unreachable: {e}; trying again with back-off", self.shown);
        }
        state.conn = None;
        state.retry_at = Instant::now() + state.backoff;
        state.backoff = (state.backoff * 2).min(LAST_RETRY);
        state.last_error = e.to_string();
        format!("the store {} is unreachable: {e}", self.shown)
    }
}

/// The key `kind:id`, under the prefix.
fn key(kind: &str, id: &str) -> String {
    format!("{PREFIX}{kind}:{id}")
}

/// Milliseconds for a PX/PEXPIRE argument (at least 1).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_password_is_not_shown() {
        assert_eq!(super::shown("redis://:secret@127.0.0.1:6379/2"), "redis://127.0.0.1:6379/2");
        assert_eq!(super::shown("redis://u:p@h:1"), "redis://h:1");
        assert_eq!(super::shown("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }
}
