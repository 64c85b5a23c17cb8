//! One client's requests cannot take every handler thread. A session may run at most
//! half the pool's workers at once (the rest wait in its own queue), so another client's `ping`
//! is answered while the first one's handlers block; `/healthz` answers 503 while every worker
//! is busy. Before: ten blocking calls from one client took all four workers and the second
//! client's ping waited forever, while `/healthz` said 200.
//! Batches hold no worker while their answers gather, and task work (which runs after its
//! request was answered) runs in a share of its own, with a bounded queue.

use crate::support::{eventually, TIMEOUT};
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use tinymcp::{CallToolResult, MemoryClient, Options, Server, TaskSupport, Tool};
use tinymcp_http::{HttpOptions, HttpServer};

/// A server of at most `workers` handler threads with a `block` tool (callable as a task) that
/// waits until `release` is set; `running` counts the calls that wait.
fn blocking_server(workers: usize) -> (Arc<Server>, Arc<AtomicBool>, Arc<AtomicUsize>) {
    let release = Arc::new(AtomicBool::new(false));
    let running = Arc::new(AtomicUsize::new(0));
    let (released, waiting) = (Arc::clone(&release), Arc::clone(&running));
    let server = Server::with_options("fair", "1", Options::default().with_max_workers(workers));
    let tool = Tool::new("block", "Waits until released", json!({"type": "object"}));
    server.register_tool(tool.with_task_support(TaskSupport::Optional), move |_, _| {
        waiting.fetch_add(1, Ordering::SeqCst);
        let started = Instant::now();
        while !released.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(30) {
            thread::sleep(Duration::from_millis(5));
        }
        waiting.fetch_sub(1, Ordering::SeqCst);
        Ok(CallToolResult::text("released"))
    });
    (Arc::new(server), release, running)
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

/// Waits until `n` `block` handlers run, and checks no more start.
fn exactly_run(running: &AtomicUsize, n: usize, what: &str) {
    eventually("blocked handlers", || running.load(Ordering::SeqCst) >= n);
    // A window, not an event: what is checked is that nothing more starts.
    thread::sleep(Duration::from_millis(100));
    assert_eq!(running.load(Ordering::SeqCst), n, "{what} holds more than its share of the workers");
}

/// `client`'s ping is answered while the blocked handlers still hold their workers (they wait
/// up to 30 s to be released).
fn answers_ping_at_once(client: &MemoryClient) {
    let pong = client.call("ping", json!({}), TIMEOUT);
    assert_eq!(pong.expect("the ping was answered")["result"], json!({}));
}

/// Reads `client`'s messages until `n` of them are `wanted`.
fn receive_until(client: &MemoryClient, n: usize, wanted: impl Fn(&serde_json::Value) -> bool) {
    let mut seen = 0;
    while seen < n {
        let message = client.recv(Duration::from_secs(5)).expect("every awaited message came");
        if wanted(&message) {
            seen += 1;
        }
    }
}

#[test]
fn one_client_cannot_take_every_worker() {
    let (server, release, running) = blocking_server(4);
    let greedy = client(&server);
    let other = client(&server);
    block_many(&greedy, 10);
    exactly_run(&running, 2, "one client");
    answers_ping_at_once(&other);
    // Released, the greedy client's ten calls all finish, in turn.
    release.store(true, Ordering::SeqCst);
    receive_until(&greedy, 10, |m| m["result"]["content"][0]["text"] == "released");
}

#[test]
fn healthz_says_when_every_worker_is_busy() {
    let (server, release, running) = blocking_server(2);
    let http = HttpServer::start(Arc::clone(&server), "127.0.0.1:0", HttpOptions::default()).expect("start");
    let port = http.local_addr().port();
    assert!(healthz(port).starts_with("HTTP/1.1 200"), "{}", healthz(port));
    // Two clients, one worker each: the pool is full.
    let (a, b) = (client(&server), client(&server));
    block_many(&a, 3);
    block_many(&b, 3);
    eventually("two blocked handlers", || running.load(Ordering::SeqCst) == 2);
    let busy = healthz(port);
    assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
    assert!(busy.contains("saturated"), "{busy}");
    release.store(true, Ordering::SeqCst);
    eventually("the pool to drain", || {
        running.load(Ordering::SeqCst) == 0 && healthz(port).starts_with("HTTP/1.1 200")
    });
    drop((a, b));
    http.shutdown();
}

#[test]
fn batches_cannot_hold_workers_beyond_the_share() {
    // Before: each batch held a worker until its answers came, beyond the session's share:
    // four batches of one blocking call each took all four workers, and another client's ping
    // waited for the release.
    let (server, release, running) = blocking_server(4);
    let greedy = MemoryClient::connect(Arc::clone(&server));
    greedy.initialize("2025-03-26", json!({}), Duration::from_secs(5)).expect("initialized");
    let other = client(&server);
    for id in 0..6 {
        let call = json!({"jsonrpc": "2.0", "id": 2000 + id, "method": "tools/call", "params": {"name": "block"}});
        let note = json!({"jsonrpc": "2.0", "method": "notifications/x"});
        greedy.send(&json!([call, note]).to_string());
    }
    exactly_run(&running, 2, "one client's batches");
    answers_ping_at_once(&other);
    release.store(true, Ordering::SeqCst);
    receive_until(&greedy, 6, |message| {
        let items = message.as_array().expect("each batch answered as an array");
        assert_eq!(items.len(), 1, "{message}");
        items[0]["result"]["content"][0]["text"] == "released"
    });
}

/// Starts `n` `block` calls as 2025-11-25 tasks; each answer is a `CreateTaskResult` at once.
fn block_as_tasks(client: &MemoryClient, n: usize) -> Vec<serde_json::Value> {
    for id in 0..n {
        let call = json!({"jsonrpc": "2.0", "id": 3000 + id, "method": "tools/call",
                          "params": {"name": "block", "task": {}}});
        client.send(&call.to_string());
    }
    (0..n).map(|_| client.recv(Duration::from_secs(5)).expect("every task call answered at once")).collect()
}

#[test]
fn tasks_cannot_take_every_worker() {
    // Before: task work ran on the pool outside every share: one client's ten blocking tasks
    // and ten blocking calls (two run) took all four workers, and another client's ping waited
    // for the release. Now all task work shares a quarter of the workers: three of four run.
    let (server, release, running) = blocking_server(4);
    let greedy = client(&server);
    let other = client(&server);
    for created in block_as_tasks(&greedy, 10) {
        assert_eq!(created["result"]["task"]["status"], "working", "{created}");
    }
    block_many(&greedy, 10);
    exactly_run(&running, 3, "one client's requests and tasks");
    answers_ping_at_once(&other);
    // Released, the waiting calls and tasks run in turn and all complete.
    release.store(true, Ordering::SeqCst);
    receive_until(&greedy, 20, |m| completed(m) || m["result"]["content"][0]["text"] == "released");
}

fn completed(status: &serde_json::Value) -> bool {
    status["method"] == "notifications/tasks/status" && status["params"]["status"] == "completed"
}

#[test]
fn tasks_beyond_the_share_and_its_queue_are_refused_until_one_finishes() {
    let (server, release, running) = blocking_server(4);
    let greedy = client(&server);
    // One runs (a quarter of four workers), 256 wait: the next one is refused, and no task is
    // made for it.
    let answers = block_as_tasks(&greedy, 1 + 256 + 1);
    exactly_run(&running, 1, "task work");
    let refused: Vec<_> = answers.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(refused.len(), 1, "one refused of 258");
    assert_eq!(refused[0]["error"]["code"], -32600, "{}", refused[0]);
    assert!(refused[0]["error"]["message"].as_str().unwrap().contains("too many tasks"), "{}", refused[0]);
    let listed = greedy.call("tasks/list", json!({}), Duration::from_secs(3)).expect("tasks/list answered");
    let mut tasks = listed["result"]["tasks"].as_array().map_or(0, Vec::len);
    let mut cursor = listed["result"]["nextCursor"].clone();
    while let Some(c) = cursor.as_str() {
        let page = greedy.call("tasks/list", json!({"cursor": c}), Duration::from_secs(3)).expect("a page");
        tasks += page["result"]["tasks"].as_array().map_or(0, Vec::len);
        cursor = page["result"]["nextCursor"].clone();
    }
    assert_eq!(tasks, 257, "the refused call made no task");
    release.store(true, Ordering::SeqCst);
    receive_until(&greedy, 257, completed);
    let again = block_as_tasks(&greedy, 1);
    assert_eq!(again[0]["result"]["task"]["status"], "working", "room again: {}", again[0]);
}
