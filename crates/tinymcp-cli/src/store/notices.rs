//! Notifications through the store: every list change, resource update and task status a
//! replica sends its own listeners is published on the channel `tinymcp:notices` (pub/sub keeps
//! nothing, so no key), and each replica hands what the others published to its listeners
//! (`Server::deliver_notice`), skipping its own. Publishing never blocks whoever changed
//! something: a bounded queue and a thread of its own send them; with the store down they
//! are dropped (pub/sub delivers only to whoever listens now anyway).

use super::{Link, FIRST_RETRY, LAST_RETRY, PREFIX};
use serde_json::{json, Value};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tinymcp::{NoticeBus, Server};

/// Notices waiting to be published, at most; more are dropped (and said so in the log).
const QUEUE: usize = 1024;
/// How long the subscriber waits for a message before it looks whether its server is gone.
const IDLE: Duration = Duration::from_secs(1);

fn channel() -> String {
    format!("{PREFIX}notices")
}

/// `NoticeBus` on Redis pub/sub.
pub struct RedisNotices {
    link: Arc<Link>,
    /// This process among the replicas: its own notices come back and are skipped.
    instance: String,
    queue: SyncSender<String>,
}

impl RedisNotices {
    /// Publishes through `link` from a thread of its own (ended with the last handle).
    pub fn start(link: Arc<Link>, node: &str) -> Result<Arc<RedisNotices>, String> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let instance = format!("{node}/{}/{nanos:x}", std::process::id());
        let (queue, queued) = sync_channel(QUEUE);
        let publisher = Arc::clone(&link);
        std::thread::Builder::new()
            .name("tinymcp-store-publish".into())
            .stack_size(128 * 1024)
            .spawn(move || publish_all(&publisher, &queued))
            .map_err(|e| format!("--store: cannot start the publishing thread: {e}"))?;
        Ok(Arc::new(RedisNotices { link, instance, queue }))
    }

    /// Hands what other replicas publish to `server`'s listeners, from a thread of its own
    /// (ended once the server is gone). Returns once subscribed (or after the store's timeout),
    /// so a replica that says it listens hears the others already.
    pub fn subscribe(self: &Arc<Self>, server: &Arc<Server>) -> Result<(), String> {
        let (notices, server) = (Arc::clone(self), Arc::downgrade(server));
        let (ready, subscribed) = sync_channel(1);
        std::thread::Builder::new()
            .name("tinymcp-store-subscribe".into())
            .stack_size(128 * 1024)
            .spawn(move || notices.hear(&server, &ready))
            .map_err(|e| format!("--store: cannot start the subscribing thread: {e}"))?;
        let _ = subscribed.recv_timeout(2 * super::TIMEOUT);
        Ok(())
    }

    /// Subscribes, hands on what others publish, and subscribes again after a back-off when
    /// the connection is lost; ends when the server is gone.
    fn hear(&self, server: &Weak<Server>, ready: &SyncSender<()>) {
        let mut backoff = FIRST_RETRY;
        let mut lost = false;
        while server.strong_count() > 0 {
            match self.hear_once(server, &mut lost, ready) {
                Ok(()) => return,
                Err(e) => {
                    if !lost {
                        log::warn!("notices from other replicas are not heard: {e}; subscribing again with back-off");
                        lost = true;
                    }
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(LAST_RETRY);
                }
            }
        }
    }

    fn hear_once(&self, server: &Weak<Server>, lost: &mut bool, ready: &SyncSender<()>) -> redis::RedisResult<()> {
        let mut conn = self.link.connect()?;
        let mut pubsub = conn.as_pubsub();
        pubsub.subscribe(channel())?;
        pubsub.set_read_timeout(Some(IDLE))?;
        let _ = ready.try_send(());
        if *lost {
            log::info!("notices from other replicas are heard again (the store {})", self.link.shown());
            *lost = false;
        } else {
            log::info!("hearing notices from other replicas through the store {}", self.link.shown());
        }
        loop {
            let message = match pubsub.get_message() {
                Ok(message) => message,
                Err(e) if e.is_timeout() => {
                    if server.strong_count() == 0 {
                        return Ok(());
                    }
                    continue;
                }
                Err(e) => return Err(e),
            };
            let Ok(payload) = message.get_payload::<String>() else { continue };
            let Ok(notice) = serde_json::from_str::<Value>(&payload) else { continue };
            if notice["from"].as_str() == Some(&self.instance) {
                continue;
            }
            let (Some(method), Some(server)) = (notice["method"].as_str(), server.upgrade()) else {
                return Ok(());
            };
            server.deliver_notice(method, &notice["params"]);
        }
    }
}

impl NoticeBus for RedisNotices {
    fn publish(&self, method: &str, params: &Value) {
        let notice = json!({ "from": self.instance, "method": method, "params": params }).to_string();
        if let Err(TrySendError::Full(_)) = self.queue.try_send(notice) {
            log::warn!("a notice for other replicas was dropped: {QUEUE} wait to be published");
        }
    }
}

fn publish_all(link: &Link, queued: &Receiver<String>) {
    let mut failing = false;
    for notice in queued {
        match link.call(|c| redis::cmd("PUBLISH").arg(channel()).arg(&notice).query::<i64>(c)) {
            Ok(_) => failing = false,
            Err(e) if !failing => {
                log::warn!("notices are not reaching other replicas: {e}");
                failing = true;
            }
            Err(_) => {}
        }
    }
}
