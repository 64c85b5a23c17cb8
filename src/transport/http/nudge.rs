//! A workaround for a lost wake-up in tiny_http 0.12's connection pool.
//!
//! tiny_http gives every accepted connection to a task of its `TaskPool`. `spawn` queues the
//! connection and signals one idle thread when it counts an idle one, but an idle thread that was
//! already signalled still counts as idle until it wakes, so when several connections arrive
//! together the later ones are queued with no thread coming for them. They are served only when
//! some other connection closes: with keep-alive clients that can be never (the Python SDK's
//! 51 concurrent calls once left one waiting for its 20 s timeout). tiny_http offers no way to
//! take over its accept loop, so the nudger opens and at once closes a connection to the server
//! itself: the pool starts a thread for it (nobody is idle in that state), the thread finds the
//! connection closed and moves on to the oldest queued one. One nudge frees one queued connection.
//!
//! A stuck connection only happens in a burst of new connections, and at least the first of the
//! burst is served and sends a request, so nudges run only for a while after requests arrive:
//! an idle server wakes no thread at all.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, Thread};
use std::time::Duration;

/// How often to nudge while requests arrive.
const EVERY: Duration = Duration::from_millis(20);
/// How many nudges after the last request (about a second).
const AFTER_LAST_REQUEST: u32 = 50;

/// Tells the nudging thread that requests arrive.
pub(super) struct Nudger {
    /// A request arrived since the nudging thread last looked.
    activity: Arc<AtomicBool>,
    thread: Thread,
}

impl Nudger {
    /// Starts the nudging thread for a server listening on `local`; `None` if no thread starts.
    pub(super) fn start(local: SocketAddr) -> Option<Nudger> {
        let activity = Arc::new(AtomicBool::new(false));
        let target = reachable(local);
        let nudging = Arc::clone(&activity);
        let spawned = thread::Builder::new().name("mcp-http-nudge".into()).stack_size(64 * 1024).spawn(move || {
            run(&nudging, target);
        });
        match spawned {
            Ok(handle) => Some(Nudger { thread: handle.thread().clone(), activity }),
            Err(e) => {
                log::warn!("cannot start the connection nudger: {e}");
                None
            }
        }
    }

    /// Called for every request: a store, and an unpark that is one atomic swap unless the
    /// thread is parked (an unpark before `park` makes that `park` return at once).
    pub(super) fn request_seen(&self) {
        self.activity.store(true, Ordering::Relaxed);
        self.thread.unpark();
    }
}

/// Where to connect to reach a server bound to `local` (an unspecified address means loopback).
fn reachable(local: SocketAddr) -> SocketAddr {
    match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), local.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(Ipv6Addr::LOCALHOST.into(), local.port()),
        _ => local,
    }
}

fn run(activity: &AtomicBool, target: SocketAddr) {
    loop {
        // Sleep until a request arrives (unpark orders the store before it with this swap).
        while !activity.swap(false, Ordering::Relaxed) {
            thread::park();
        }
        let mut left = AFTER_LAST_REQUEST;
        while left > 0 {
            thread::sleep(EVERY);
            nudge(target);
            left = if activity.swap(false, Ordering::Relaxed) { AFTER_LAST_REQUEST } else { left - 1 };
        }
    }
}

fn nudge(target: SocketAddr) {
    match TcpStream::connect_timeout(&target, Duration::from_secs(1)) {
        Ok(stream) => drop(stream),
        Err(e) => log::debug!("nudge to {target} failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unspecified_address_is_reached_on_loopback() {
        assert_eq!(reachable("0.0.0.0:80".parse().unwrap()), "127.0.0.1:80".parse().unwrap());
        assert_eq!(reachable("[::]:80".parse().unwrap()), "[::1]:80".parse().unwrap());
        assert_eq!(reachable("10.0.0.2:80".parse().unwrap()), "10.0.0.2:80".parse().unwrap());
    }
}
