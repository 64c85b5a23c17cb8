//! Issue 11: one client's requests cannot take every handler thread. A session may run at most
//! half the pool's workers at once (the rest wait in its own queue), so another client's `ping`
//! is answered while the first one's handlers block; `/healthz` answers 503 while every worker
//! is busy. Before: ten blocking calls from one client took all four workers and the second
//! client's ping waited forever, while `/healthz` said 200.

use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use tinymcp::transport::http::{HttpOptions, HttpServer};
use tinymcp::{CallToolResult, MemoryClient, Options, Server, Tool};

/// A server of at most `workers` handler threads with a `block` tool that waits until `release`.
fn blocking_server(workers: usize, release: Arc<AtomicBool>, running: Arc<AtomicUsize>) -> Arc<Server> {
    let server = Server::with_options("fair", "1", Options::default().with_max_workers(workers));
    server.register_tool(Tool::new("block", "Waits until released", json!({"type": "object"})), move |_, _| {
        running.fetch_add(1, Ordering::SeqCst);
        let started = Instant::now();
        while !release.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(30) {
            thread::sleep(Duration::from_millis(5));
        }
        running.fetch_sub(1, Ordering::SeqCst);
        Ok(CallToolResult::text("released"))
    });
    Arc::new(server)
}

fn client(server: &Arc<Server>) -> MemoryClient {
    let client = MemoryClient::connect(Arc::clone(server));
    client.initialize("2025-11-25", json!({}), Duration::from_secs(5)).expect("initialized");
    client
}

fn block_many(client: &MemoryClient, n: usize) {
    for id in 0..n {
        let call = json!({"jsonrpc": "2.0", "id": 1000 + id, "method": "tools/call", "params": {"name": "block"}});
        client.send(&call.to_string());
    }
}

fn healthz(port: u16) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(stream, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

fn wait_for(what: &str, pred: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pred() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn one_client_cannot_take_every_worker() {
    let release = Arc::new(AtomicBool::new(false));
    let running = Arc::new(AtomicUsize::new(0));
    let server = blocking_server(4, Arc::clone(&release), Arc::clone(&running));
    let greedy = client(&server);
    let other = client(&server);
    block_many(&greedy, 10);
    wait_for("two blocked handlers", || running.load(Ordering::SeqCst) >= 2);
    thread::sleep(Duration::from_millis(200));
    assert_eq!(running.load(Ordering::SeqCst), 2, "one client holds more than half the workers");
    let started = Instant::now();
    let pong = other.call("ping", json!({}), Duration::from_secs(3));
    assert_eq!(pong.expect("the other client's ping was answered")["result"], json!({}));
    assert!(started.elapsed() < Duration::from_secs(1), "ping took {:?}", started.elapsed());
    // Released, the greedy client's ten calls all finish, in turn.
    release.store(true, Ordering::SeqCst);
    let mut answered = 0;
    while answered < 10 {
        let message = greedy.recv(Duration::from_secs(5)).expect("every blocked call answered");
        if message["result"]["content"][0]["text"] == "released" {
            answered += 1;
        }
    }
}

#[test]
fn healthz_says_when_every_worker_is_busy() {
    let release = Arc::new(AtomicBool::new(false));
    let running = Arc::new(AtomicUsize::new(0));
    let server = blocking_server(2, Arc::clone(&release), Arc::clone(&running));
    let http = HttpServer::start(Arc::clone(&server), "127.0.0.1:0", HttpOptions::default()).expect("start");
    let port = http.local_addr().port();
    assert!(healthz(port).starts_with("HTTP/1.1 200"), "{}", healthz(port));
    // Two clients, one worker each: the pool is full.
    let (a, b) = (client(&server), client(&server));
    block_many(&a, 3);
    block_many(&b, 3);
    wait_for("two blocked handlers", || running.load(Ordering::SeqCst) == 2);
    let busy = healthz(port);
    assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
    assert!(busy.contains("saturated"), "{busy}");
    release.store(true, Ordering::SeqCst);
    wait_for("the pool to drain", || running.load(Ordering::SeqCst) == 0 && healthz(port).starts_with("HTTP/1.1 200"));
    drop((a, b));
    http.shutdown();
}

#[test]
fn batches_cannot_hold_workers_beyond_the_share() {
    // Before: each batch held a worker until its answers came, beyond the session's share:
    // four batches of one blocking call each took all four workers, and another client's ping
    // waited for the release.
    let release = Arc::new(AtomicBool::new(false));
    let running = Arc::new(AtomicUsize::new(0));
    let server = blocking_server(4, Arc::clone(&release), Arc::clone(&running));
    let greedy = MemoryClient::connect(Arc::clone(&server));
    greedy.initialize("2025-03-26", json!({}), Duration::from_secs(5)).expect("initialized");
    let other = client(&server);
    for id in 0..6 {
        let call = json!({"jsonrpc": "2.0", "id": 2000 + id, "method": "tools/call", "params": {"name": "block"}});
        let note = json!({"jsonrpc": "2.0", "method": "notifications/x"});
        greedy.send(&json!([call, note]).to_string());
    }
    wait_for("two blocked handlers", || running.load(Ordering::SeqCst) >= 2);
    thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let pong = other.call("ping", json!({}), Duration::from_secs(3));
    assert_eq!(pong.expect("the other client's ping was answered")["result"], json!({}));
    assert!(started.elapsed() < Duration::from_secs(1), "ping took {:?}", started.elapsed());
    release.store(true, Ordering::SeqCst);
    let mut answered = 0;
    while answered < 6 {
        let message = greedy.recv(Duration::from_secs(5)).expect("every batch answered");
        let items = message.as_array().expect("each batch answered as an array");
        assert_eq!(items.len(), 1, "{message}");
        assert_eq!(items[0]["result"]["content"][0]["text"], "released");
        answered += 1;
    }
}
