//! The socket side of the HTTP transport: an accept loop that never dies, the cap on open
//! connections, one named small-stack thread per connection reading its requests in order, and
//! the registry that lets a shutdown wake and join every one of them.
//!
//! Out of descriptors (`EMFILE`, `ENFILE`) or memory, `accept` fails while the connection waits
//! in the backlog: the loop logs once, backs off (up to half a second) and serves again when
//! something frees up. An accept loop that stopped would leave a process that looks alive.

use super::http1::{Conn, Exchange};
use super::Http;
use std::collections::HashMap;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};
use tinymcp::metrics::Refusal;
use tinymcp::transport::kit::Condition;

/// A connection thread only moves bytes and parses envelopes (serde_json's depth limit keeps
/// that shallow); stacks are reserved, not touched, so this costs address space, not memory.
const STACK: usize = 512 * 1024;
/// The longest pause between accept attempts while descriptors or memory are exhausted.
const MAX_BACKOFF: Duration = Duration::from_millis(500);
/// How long a shutdown waits for connection threads to end.
const JOIN_WAIT: Duration = Duration::from_secs(5);

/// Open connections, so a shutdown can wake their blocked reads and wait for their threads.
#[derive(Default)]
pub(super) struct Connections {
    open: Mutex<HashMap<u64, Arc<TcpStream>>>,
    next: AtomicU64,
    ended: Condvar,
    /// Requests being answered (streams included); a drain waits for none.
    answering: AtomicUsize,
    /// Signalled as each answer ends, for a drain waiting for none (`wait_quiet`).
    quiet: Condition,
}

/// Counts one request as being answered while it lives.
struct Answering<'a>(&'a Connections);

impl<'a> Answering<'a> {
    fn new(connections: &'a Connections) -> Self {
        connections.answering.fetch_add(1, Ordering::SeqCst);
        Answering(connections)
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0.answering.fetch_sub(1, Ordering::SeqCst);
        self.0.quiet.notify();
    }
}

impl Connections {
    pub(super) fn count(&self) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Waits until no request is being answered, or `deadline`. Connections idle between
    /// requests do not count: a shutdown closes them.
    pub(super) fn wait_quiet(&self, deadline: Instant) {
        if !self.quiet.wait_until(|| self.answering.load(Ordering::SeqCst) == 0, Some(deadline)) {
            log::warn!("{} answers still being written at the end of the drain", self.answering.load(Ordering::SeqCst));
        }
    }

    /// Ends every connection (their threads see end of input or a failed write) and waits for
    /// their threads to return.
    pub(super) fn close_all(&self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        for stream in open.values() {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        let deadline = Instant::now() + JOIN_WAIT;
        while !open.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                log::warn!("{} connection threads still running after shutdown", open.len());
                return;
            }
            open = self.ended.wait_timeout(open, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
}

/// Where to connect to reach a server bound to `local` (an unspecified address means loopback).
pub(super) fn reachable(local: SocketAddr) -> SocketAddr {
    match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), local.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(Ipv6Addr::LOCALHOST.into(), local.port()),
        _ => local,
    }
}

/// Accepts until the server stops. Never returns on an accept error.
pub(super) fn accept_loop(http: &Arc<Http>, listener: &TcpListener) {
    let mut backoff: Option<Duration> = None;
    loop {
        let accepted = listener.accept();
        if http.stopping() {
            return;
        }
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                let pause = match backoff {
                    None => {
                        log::error!("cannot accept connections ({e}); retrying until descriptors or memory free up");
                        Duration::from_millis(5)
                    }
                    Some(pause) => (pause * 2).min(MAX_BACKOFF),
                };
                backoff = Some(pause);
                // A real interval: nothing signals that descriptors or memory freed up.
                thread::sleep(pause);
                continue;
            }
        };
        if backoff.take().is_some() {
            log::warn!("accepting connections again");
        }
        let connections = &http.connections;
        if connections.count() >= http.options.max_connections {
            log::debug!("{} connections open: refusing one", http.options.max_connections);
            http.metrics.as_ref().inspect(|m| m.refused(Refusal::ConnectionCap)).inspect(|m| m.http_status(503));
            refuse(stream);
            continue;
        }
        let id = connections.next.fetch_add(1, Ordering::Relaxed);
        let stream = Arc::new(stream);
        connections.open.lock().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::clone(&stream));
        let worker = Arc::clone(http);
        let started = thread::Builder::new().name("mcp-http-conn".into()).stack_size(STACK).spawn(move || {
            serve_connection(&worker, Arc::clone(&stream));
            let mut open = worker.connections.open.lock().unwrap_or_else(PoisonError::into_inner);
            open.remove(&id);
            worker.connections.ended.notify_all();
        });
        if let Err(e) = started {
            log::warn!("cannot start a connection thread: {e}");
            if let Some(stream) = connections.open.lock().unwrap_or_else(PoisonError::into_inner).remove(&id) {
                if let Ok(stream) = Arc::try_unwrap(stream) {
                    refuse(stream);
                }
            }
            // A real interval: out of threads, give the system a moment before the next accept.
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A `503` written without waiting, then the connection is dropped.
fn refuse(stream: TcpStream) {
    let _ = stream.set_nonblocking(true);
    let body = "too many connections; try again shortly\n";
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = (&stream).write_all(answer.as_bytes());
}

/// Reads requests one after another (pipelined ones too, in order) and routes each; ends on
/// `Connection: close`, an unreadable request, the idle timeout or shutdown.
fn serve_connection(http: &Http, stream: Arc<TcpStream>) {
    if let Err(e) = stream.set_write_timeout(Some(http.options.write_within)) {
        log::debug!("cannot set a write timeout: {e}");
        return;
    }
    // Accepted sockets inherit it from the listener on Linux, not everywhere.
    let _ = stream.set_nodelay(true);
    let mut conn = Conn::new(stream, &http.options, http.metrics.clone());
    serve_requests(http, &mut conn);
    conn.end();
}

/// The requests of one connection, until it is to be closed.
fn serve_requests(http: &Http, conn: &mut Conn) {
    let mut wait = http.options.read_within;
    while !http.stopping() {
        let head = match conn.next_head(wait) {
            Ok(Some(head)) => head,
            Ok(None) => return,
            Err(refused) => return conn.refuse(&refused),
        };
        let answering = Answering::new(&http.connections);
        let mut exchange = Exchange::new(conn, head);
        super::route(http, &mut exchange);
        exchange.finish();
        drop(answering);
        if conn.close {
            return;
        }
        wait = http.options.idle;
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
