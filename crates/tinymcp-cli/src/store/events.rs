//! Resumable streams in the store: the events of each SSE stream (up to 2025-11-25) in the list
//! `tinymcp:events:SESSION:STREAM`, one entry `SEQ FLAG JSON` per event (`FLAG`: `g` a GET's
//! stream, `r` a POST's, `R` its response), its newest `KEPT` only, the whole list kept
//! `KEPT_FOR` after its last event. Events are written from a bounded queue by a thread of its
//! own, so a stream never waits on the store (with the store down they are dropped: such a
//! stream is then resumed only on its own replica).

use super::{key, millis, Link};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;
use tinymcp_http::{EventLog, Replay};

/// Events kept per stream (as a replica keeps them in memory).
const KEPT: i64 = 256;
/// How long a stream's events are kept after its last one.
const KEPT_FOR: Duration = Duration::from_secs(10 * 60);
/// Events waiting to be written, at most.
const QUEUE: usize = 4096;

struct Event {
    stream: String,
    entry: String,
}

/// `EventLog` on Redis.
pub struct RedisEvents {
    link: Arc<Link>,
    queue: SyncSender<Event>,
    first_stream_id: u64,
}

impl RedisEvents {
    /// Writes through `link` from a thread of its own (ended with the last handle).
    pub fn start(link: Arc<Link>) -> Result<Arc<RedisEvents>, String> {
        // Each replica's stream ids start at a number of its own: a counter in the store, the
        // high bits of every id it gives (2^20 streams of a session apart before two could meet).
        let replica: u64 = link.call(|c| redis::cmd("INCR").arg(key("replicas", "started")).query(c))?;
        let first_stream_id = (replica & 0xff_ffff_ffff) << 20;
        let (queue, queued) = sync_channel(QUEUE);
        let writer = Arc::clone(&link);
        std::thread::Builder::new()
            .name("tinymcp-store-events".into())
            .stack_size(128 * 1024)
            .spawn(move || write_all(&writer, &queued))
            .map_err(|e| format!("--store: cannot start the event thread: {e}"))?;
        Ok(Arc::new(RedisEvents { link, queue, first_stream_id }))
    }
}

impl EventLog for RedisEvents {
    fn append(&self, stream: &str, seq: u64, for_request: bool, last: bool, json: &str) {
        let flag = match (for_request, last) {
            (false, _) => 'g',
            (true, false) => 'r',
            (true, true) => 'R',
        };
        let event = Event { stream: key("events", stream), entry: format!("{seq} {flag} {json}") };
        if let Err(TrySendError::Full(_)) = self.queue.try_send(event) {
            log::warn!("an SSE event was not kept for other replicas: {QUEUE} wait to be written");
        }
    }

    fn first_stream_id(&self) -> u64 {
        self.first_stream_id
    }

    fn keep_session(&self, session: &str, state: &str, ttl: std::time::Duration) -> Result<(), String> {
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        self.link.call(|c| redis::cmd("SET").arg(key("session", session)).arg(state).arg("PX").arg(ms).query(c))
    }

    fn session_state(&self, session: &str) -> Result<Option<String>, String> {
        self.link.call(|c| redis::cmd("GET").arg(key("session", session)).query(c))
    }

    fn after(&self, stream: &str, seq: u64) -> Result<Option<Replay>, String> {
        let entries: Vec<String> =
            self.link.call(|c| redis::cmd("LRANGE").arg(key("events", stream)).arg(0).arg(-1).query(c))?;
        if entries.is_empty() {
            return Ok(None);
        }
        let mut replay = Replay::default();
        for entry in &entries {
            let mut parts = entry.splitn(3, ' ');
            let (Some(s), Some(flag), Some(json)) = (parts.next(), parts.next(), parts.next()) else { continue };
            let Ok(s) = s.parse::<u64>() else { continue };
            replay.for_request |= flag != "g";
            replay.done |= flag == "R";
            if s > seq {
                replay.events.push((s, json.to_owned()));
            }
        }
        Ok(Some(replay))
    }
}

fn write_all(link: &Link, queued: &Receiver<Event>) {
    let mut failing = false;
    for event in queued {
        let written = link.call(|c| {
            redis::pipe()
                .cmd("RPUSH")
                .arg(&event.stream)
                .arg(&event.entry)
                .ignore()
                .cmd("LTRIM")
                .arg(&event.stream)
                .arg(-KEPT)
                .arg(-1)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&event.stream)
                .arg(millis(KEPT_FOR))
                .ignore()
                .query::<()>(c)
        });
        match written {
            Ok(()) => failing = false,
            Err(e) if !failing => {
                log::warn!("SSE events are not kept for other replicas: {e}");
                failing = true;
            }
            Err(_) => {}
        }
    }
}
