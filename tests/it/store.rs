//! `--store redis://…` (feature `store`): replicas share their tasks through a real
//! `redis-server` on a loopback port (each test skipped, with one line, when it is missing).
//! A task of either era made on replica A is read, waited for and cancelled through replica B;
//! a task whose replica died reads `failed`, saying so; the store lost while serving fails task
//! calls only, naming it, and they work again once it is back.

#![cfg_attr(not(feature = "store"), allow(dead_code, unused_imports))]

use crate::raw_http::Server;
use crate::raw_http::{read_chunk, read_head, write_request, ACCEPT_BOTH, JSON};
use crate::stateless_http::{body, post};
use crate::support::{binary, eventually, last_id_at_first_progress, wait_for, TempDir};
use serde_json::{json, Value};
use std::io::BufReader;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `redis-server` on a loopback port, persisting nothing, killed when dropped.
pub struct Redis {
    child: Child,
    pub port: u16,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Redis {
    /// A fresh one, or `None` (and one line saying why) when `redis-server` is not installed.
    pub fn start() -> Option<Redis> {
        if Command::new("redis-server").arg("--version").stdout(Stdio::null()).status().is_err() {
            let why = "store: skipped, redis-server is not installed (apt-get install -y redis-server)";
            let _ = writeln!(std::io::stderr(), "{why}");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port();
        Some(Redis::on(port))
    }

    /// One on `port` (again, after `stop`).
    pub fn on(port: u16) -> Redis {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        let redis = Redis { child, port };
        eventually("redis-server to answer PING", || redis.ping());
        redis
    }

    fn ping(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
        let mut buf = [0u8; 7];
        s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

const EXT: &str = "io.modelcontextprotocol/tasks";

fn ext() -> Value {
    json!({"extensions": {EXT: {}}})
}

/// Replicas sharing a state key (so a 2025-11-25 session moves) and a store.
struct Replicas {
    _dir: TempDir,
    key: String,
    url: String,
}

impl Replicas {
    fn new(redis: &Redis) -> Replicas {
        let dir = TempDir::new("store");
        let key = dir.write("state.key", format!("{}\n", "5b".repeat(32))).to_str().expect("UTF-8").to_owned();
        Replicas { _dir: dir, key, url: redis.url() }
    }

    fn start(&self, node: &str, extra: &[&str]) -> Server {
        let mut args = vec!["--state-key-file", &self.key, "--node-id", node, "--store", &self.url];
        args.extend_from_slice(extra);
        Server::start(&args, &[])
    }
}

/// Starts `seconds` of `slow_compute` as a tasks-extension task on `server`: its id.
fn ext_task(server: &Server, seconds: f64) -> String {
    let call = body(1, "tools/call", json!({"name": "slow_compute", "arguments": {"seconds": seconds}}), ext());
    let created = post(server, &call, &[]).json();
    created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}")).to_owned()
}

fn ext_get(server: &Server, id: &str) -> Value {
    post(server, &body(2, "tasks/get", json!({"taskId": id}), ext()), &[]).json()
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Starts `seconds` of `slow_compute` as a 2025-11-25 task in `session` on `server`: its id.
fn old_task(server: &Server, session: &str, seconds: f64) -> String {
    let call = rpc(
        2,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": seconds}, "task": {"ttl": 60000}}),
    );
    let created = server.post(&[("Mcp-Session-Id", session)], &call).json();
    created["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}")).to_owned()
}

fn old(server: &Server, session: &str, method: &str, id: &str) -> Value {
    server.post(&[("Mcp-Session-Id", session)], &rpc(3, method, json!({"taskId": id}))).json()
}

#[cfg(feature = "store")]
#[test]
fn a_task_of_either_era_is_answered_by_any_replica() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    // 2026-07-28: made on A, its result read on B.
    let id = ext_task(&a, 0.0);
    let done = wait_for("the task to complete, read through B", Duration::from_secs(10), || {
        let got = ext_get(&b, &id);
        (got["result"]["status"] == "completed").then_some(got)
    });
    assert_eq!(done["result"]["taskId"], json!(id));
    assert_eq!(done["result"]["result"]["content"][0]["text"], "job finished after 0 ms", "{done}");
    // A task neither replica nor the store knows stays unknown.
    let unknown = ext_get(&b, "a.nothing-like-this");
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    // 2025-11-25: made on A in a session, waited for and read through B.
    let session = a.session(json!({"tasks": {}}));
    let id = old_task(&a, &session, 0.0);
    let result = old(&b, &session, "tasks/result", &id);
    assert_eq!(result["result"]["content"][0]["text"], "job finished after 0 ms", "{result}");
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], json!(id), "{result}");
    let got = old(&b, &session, "tasks/get", &id);
    assert_eq!(got["result"]["status"], "completed", "{got}");
}

#[cfg(feature = "store")]
#[test]
fn a_cancel_on_one_replica_stops_the_work_on_another() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let lease = ["--store-lease-ms", "300"];
    let (a, b) = (replicas.start("a", &lease), replicas.start("b", &lease));
    // 2026-07-28: cancelled through B, A's own task (A answers from its memory) ends cancelled.
    let id = ext_task(&a, 60.0);
    assert_eq!(ext_get(&b, &id)["result"]["status"], "working");
    let cancelled = post(&b, &body(3, "tasks/cancel", json!({"taskId": id}), ext()), &[]).json();
    assert!(cancelled["result"].is_object() && cancelled.get("error").is_none(), "{cancelled}");
    assert_eq!(ext_get(&b, &id)["result"]["status"], "cancelled");
    eventually("A's task to hear the cancel", || ext_get(&a, &id)["result"]["status"] == "cancelled");
    // 2025-11-25 alike.
    let session = a.session(json!({"tasks": {}}));
    let id = old_task(&a, &session, 60.0);
    let cancelled = old(&b, &session, "tasks/cancel", &id);
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    eventually("A's 2025-11-25 task to hear the cancel", || {
        old(&a, &session, "tasks/get", &id)["result"]["status"] == "cancelled"
    });
    let again = old(&b, &session, "tasks/cancel", &id);
    assert_eq!(again["error"]["code"], -32602, "{again}");
}

#[cfg(feature = "store")]
#[test]
fn an_update_on_one_replica_answers_the_task_running_on_another() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let lease = ["--store-lease-ms", "300"];
    let (a, b) = (replicas.start("a", &lease), replicas.start("b", &lease));
    // Started on A, it asks for input: B reads the request from the store.
    let asks = json!({"extensions": {EXT: {}}, "elicitation": {}});
    let call = json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}});
    let call = body(1, "tools/call", call, asks.clone());
    let created = post(&a, &call, &[]).json();
    let id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}")).to_owned();
    let waiting = wait_for("the task to ask for input, read through B", Duration::from_secs(10), || {
        let got = ext_get(&b, &id);
        (got["result"]["status"] == "input_required").then_some(got)
    });
    let key = waiting["result"]["inputRequests"].as_object().and_then(|m| m.keys().next()).expect("a request").clone();
    // Answered through B: the work on A gets it and completes; B reads the result.
    let answers = json!({key: {"action": "accept", "content": {"confirm": true}}, "unknown-key": {"ignored": true}});
    let update = body(4, "tasks/update", json!({"taskId": id, "inputResponses": answers}), ext());
    let ack = post(&b, &update, &[]).json();
    assert!(ack["result"].is_object() && ack.get("error").is_none(), "{ack}");
    let done = wait_for("the task to complete on A with B's answer", Duration::from_secs(10), || {
        let got = ext_get(&b, &id);
        (got["result"]["status"] == "completed").then_some(got)
    });
    assert_eq!(done["result"]["result"]["content"][0]["text"], "Deleted a.txt", "{done}");
    assert_eq!(ext_get(&a, &id)["result"]["status"], "completed");
    // Of two requests answered one at a time through B, the first answer waits on A for the second.
    let call = body(1, "tools/call", json!({"name": "multi_input", "arguments": {}}), asks);
    let id = post(&a, &call, &[]).json()["result"]["taskId"].as_str().expect("a task").to_owned();
    let waiting = wait_for("two requests, read through B", Duration::from_secs(10), || {
        let got = ext_get(&b, &id);
        (got["result"]["status"] == "input_required").then_some(got)
    });
    let keys: Vec<String> = waiting["result"]["inputRequests"].as_object().expect("map").keys().cloned().collect();
    assert_eq!(keys.len(), 2, "{waiting}");
    let answer = |key: &str, name: &str| {
        let answers = json!({key: {"action": "accept", "content": {"name": name}}});
        post(&b, &body(5, "tasks/update", json!({"taskId": id, "inputResponses": answers}), ext()), &[]).json()
    };
    assert!(answer(&keys[0], "Ada").get("error").is_none());
    let still = ext_get(&b, &id);
    let left: Vec<&String> = still["result"]["inputRequests"].as_object().expect("map").keys().collect();
    assert_eq!(left, vec![&keys[1]], "{still}");
    assert!(answer(&keys[1], "blue").get("error").is_none());
    eventually("the second task to complete", || ext_get(&b, &id)["result"]["status"] == "completed");
}

#[cfg(feature = "store")]
#[test]
fn tasks_list_shows_the_sessions_tasks_of_every_replica() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    let session = a.session(json!({"tasks": {}}));
    // One task made on A, one on B (the session rebuilt there), one finished on A.
    let on_a = old_task(&a, &session, 60.0);
    let on_b = old_task(&b, &session, 60.0);
    let done = old_task(&a, &session, 0.0);
    assert_eq!(old(&a, &session, "tasks/result", &done)["result"]["content"][0]["text"], "job finished after 0 ms");
    // Another session's task is not listed.
    let other = b.session(json!({"tasks": {}}));
    let theirs = old_task(&b, &other, 60.0);
    for (name, server) in [("A", &a), ("B", &b)] {
        let listed = server.post(&[("Mcp-Session-Id", &session)], &rpc(4, "tasks/list", json!({}))).json();
        let tasks = listed["result"]["tasks"].as_array().unwrap_or_else(|| panic!("no list on {name}: {listed}"));
        let ids: Vec<&str> = tasks.iter().filter_map(|t| t["taskId"].as_str()).collect();
        assert_eq!(ids, [on_a.as_str(), on_b.as_str(), done.as_str()], "on {name}: {listed}");
        let statuses: Vec<&str> = tasks.iter().filter_map(|t| t["status"].as_str()).collect();
        assert_eq!(statuses, ["working", "working", "completed"], "on {name}: {listed}");
        assert!(!ids.contains(&theirs.as_str()));
    }
}

#[cfg(feature = "store")]
#[test]
fn a_task_whose_replica_died_fails_saying_so() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let lease = ["--store-lease-ms", "300"];
    let (mut a, b) = (replicas.start("a", &lease), replicas.start("b", &lease));
    let ext_id = ext_task(&a, 60.0);
    let session = a.session(json!({"tasks": {}}));
    let old_id = old_task(&a, &session, 60.0);
    a.child.kill().expect("kill A");
    let _ = a.child.wait();
    let failed = wait_for("the task of the killed replica to fail", Duration::from_secs(10), || {
        let got = ext_get(&b, &ext_id);
        (got["result"]["status"] != "working").then_some(got)
    });
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    let message = failed["result"]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("replica running it stopped"), "{failed}");
    // 2025-11-25: tasks/result answers the error (it waits no longer than the lease).
    let result = old(&b, &session, "tasks/result", &old_id);
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("replica running it stopped"), "{result}");
    assert_eq!(old(&b, &session, "tasks/get", &old_id)["result"]["status"], "failed");
}

#[cfg(feature = "store")]
#[test]
fn a_drained_replica_finishes_its_tasks_within_the_drain_and_fails_the_rest_saying_so() {
    use crate::drain::{exit_within, sigterm};
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let lease = ["--store-lease-ms", "300"];
    let (mut a, b) =
        (replicas.start("a", &["--store-lease-ms", "300", "--drain-secs", "2"]), replicas.start("b", &lease));
    let short = ext_task(&a, 0.5);
    let long = ext_task(&a, 60.0);
    let session = a.session(json!({"tasks": {}}));
    let old_long = old_task(&a, &session, 60.0);
    assert_eq!(ext_get(&b, &long)["result"]["status"], "working");
    sigterm(a.child.id());
    assert!(exit_within(&mut a, Duration::from_secs(10)).success());
    // Read on B at once: the short task finished within the drain, its result kept...
    let done = ext_get(&b, &short);
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "job finished after 500 ms", "{done}");
    // ...the long ones were failed when it ended, saying why (not left working for the lease).
    let failed = ext_get(&b, &long);
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    let message = failed["result"]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("shut down"), "{failed}");
    assert_eq!(failed["result"]["statusMessage"], json!(message), "{failed}");
    let got = old(&b, &session, "tasks/get", &old_long);
    assert_eq!(got["result"]["status"], "failed", "{got}");
    assert!(got["result"]["statusMessage"].as_str().unwrap_or_default().contains("shut down"), "{got}");
    let result = old(&b, &session, "tasks/result", &old_long);
    assert!(result["error"]["message"].as_str().unwrap_or_default().contains("shut down"), "{result}");
}

#[cfg(feature = "store")]
#[test]
fn the_store_lost_while_serving_fails_task_calls_only_and_they_recover() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let port = redis.port;
    let a = replicas.start("a", &[]);
    drop(redis);
    // What needs no store is answered.
    let echo = body(1, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}}), json!({}));
    let answered = post(&a, &echo, &[]).json();
    assert_eq!(answered["result"]["content"][0]["text"], "Echo: hi", "{answered}");
    // A task is refused, naming the store.
    let call = body(2, "tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 0}}), ext());
    let refused = post(&a, &call, &[]).json();
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("redis://127.0.0.1:{port}")), "{refused}");
    // The store back: tasks work again (after the back-off).
    let _redis = Redis::on(port);
    let id = wait_for("a task once the store is back", Duration::from_secs(15), || {
        post(&a, &call, &[]).json()["result"]["taskId"].as_str().map(str::to_owned)
    });
    eventually("the task to complete", || ext_get(&a, &id)["result"]["status"] == "completed");
}

/// The notifications (JSON-RPC messages with a method) an SSE body carries, read chunk by
/// chunk until `n` came (keep-alive comments between them; 20 s at most).
fn notifications(stream: &mut impl std::io::BufRead, n: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut found = Vec::new();
    while found.len() < n {
        assert!(std::time::Instant::now() < deadline, "only {found:?} came of {n} notifications");
        let chunk = read_chunk(stream).expect("the stream ended");
        let text = String::from_utf8(chunk).expect("UTF-8");
        for data in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
            if let Ok(message) = serde_json::from_str::<Value>(data) {
                if message.get("method").is_some() && message.get("id").is_none() {
                    found.push(message);
                }
            }
        }
    }
    found
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages.iter().map(|m| m["method"].as_str().unwrap_or_default()).collect()
}

#[cfg(feature = "store")]
#[test]
fn notifications_seen_on_one_replica_reach_the_streams_of_the_others_once() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let (a, b, c) = (replicas.start("a", &[]), replicas.start("b", &[]), replicas.start("c", &[]));
    const WATCHED: &str = "test://watched-resource";
    // A 2026-07-28 listen stream on A.
    let listen = body(
        7,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": [WATCHED]}}),
        json!({}),
    );
    let mut open = a.connect();
    open.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut open, a.port, "POST", "/mcp", &headers, &listen.to_string());
    let mut listen = BufReader::new(open);
    assert_eq!(read_head(&mut listen).status, 200);
    assert!(String::from_utf8(read_chunk(&mut listen).unwrap()).unwrap().contains("acknowledged"));
    // A 2025-11-25 session on B, subscribed, with its GET stream.
    let session = b.session(json!({}));
    let sid = ("Mcp-Session-Id", session.as_str());
    let subscribed = b.post(&[sid], &rpc(2, "resources/subscribe", json!({"uri": WATCHED})));
    assert!(subscribed.json().get("result").is_some(), "{}", subscribed.body);
    let mut get = b.connect();
    get.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    write_request(&mut get, b.port, "GET", "/mcp", &[("Accept", "text/event-stream"), sid], "");
    let mut get = BufReader::new(get);
    assert_eq!(read_head(&mut get).status, 200);
    let trigger = |server: &Server, tool: &str| {
        let call = body(9, "tools/call", json!({"name": tool, "arguments": {}}), json!({}));
        let answered = post(server, &call, &[]).json();
        assert!(answered.get("result").is_some(), "{answered}");
    };
    // Seen on C: both streams hear each, once, in order.
    trigger(&c, "test_trigger_resource_update");
    trigger(&c, "test_trigger_tool_change");
    let expected = ["notifications/resources/updated", "notifications/tools/list_changed"];
    let heard = notifications(&mut listen, 2);
    assert_eq!(methods(&heard), expected, "{heard:?}");
    assert_eq!(heard[0]["params"]["uri"], WATCHED);
    let heard = notifications(&mut get, 2);
    assert_eq!(methods(&heard), expected, "{heard:?}");
    // Seen on A itself: its stream hears it once (its own notice is not heard back), B once.
    trigger(&a, "test_trigger_tool_change");
    assert_eq!(methods(&notifications(&mut listen, 1)), ["notifications/tools/list_changed"]);
    assert_eq!(methods(&notifications(&mut get, 1)), ["notifications/tools/list_changed"]);
    // Then C's next update is the next thing each hears: nothing came twice.
    trigger(&c, "test_trigger_resource_update");
    assert_eq!(methods(&notifications(&mut listen, 1)), ["notifications/resources/updated"]);
    assert_eq!(methods(&notifications(&mut get, 1)), ["notifications/resources/updated"]);
}

#[cfg(feature = "store")]
#[test]
fn a_file_written_through_one_replica_is_heard_once_on_another_watching_the_same_folder() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let shared = TempDir::new("store-shared");
    shared.write("readme.txt", "served by both\n");
    let root = shared.path().to_str().expect("UTF-8").to_owned();
    let args = ["--root", root.as_str(), "--write", "--watch-interval", "20"];
    let (a, b) = (replicas.start("a", &args), replicas.start("b", &args));
    let listen = body(
        7,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "resourcesListChanged": true}}),
        json!({}),
    );
    let mut open = a.connect();
    open.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut open, a.port, "POST", "/mcp", &headers, &listen.to_string());
    let mut listen = BufReader::new(open);
    assert_eq!(read_head(&mut listen).status, 200);
    assert!(String::from_utf8(read_chunk(&mut listen).unwrap()).unwrap().contains("acknowledged"));
    // A new file written through B: A's own watcher sees it on the disk both serve, and B's
    // write tool tells its own listeners; A's stream hears it once, not once per replica.
    let write = body(
        3,
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "added.txt", "content": "new\n"}}),
        json!({}),
    );
    // A's watcher has looked at the folder once a listing was walked there.
    assert!(post(&a, &body(2, "resources/list", json!({}), json!({})), &[]).json().get("result").is_some());
    let written = post(&b, &write, &[]).json();
    assert!(written["result"]["content"][0]["text"].as_str().is_some_and(|t| t.starts_with("created")), "{written}");
    assert_eq!(methods(&notifications(&mut listen, 1)), ["notifications/resources/list_changed"]);
    // Past several of A's watcher ticks (a second copy, from the store, would be here by then),
    // the next thing A's stream hears is B's tool change.
    std::thread::sleep(Duration::from_millis(100));
    let call = body(9, "tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}}), json!({}));
    assert!(post(&b, &call, &[]).json().get("result").is_some());
    assert_eq!(methods(&notifications(&mut listen, 1)), ["notifications/tools/list_changed"]);
}

#[cfg(feature = "store")]
#[test]
fn a_sessions_log_level_and_subscriptions_set_on_one_replica_hold_on_another() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    const WATCHED: &str = "test://watched-resource";
    let session = a.session(json!({}));
    let sid = ("Mcp-Session-Id", session.as_str());
    // Set on A after `initialize` (so not in the signed id): the level, a subscription.
    let set = a.post(&[sid], &rpc(2, "logging/setLevel", json!({"level": "warning"})));
    assert!(set.json().get("result").is_some(), "{}", set.body);
    let subscribed = a.post(&[sid], &rpc(3, "resources/subscribe", json!({"uri": WATCHED})));
    assert!(subscribed.json().get("result").is_some(), "{}", subscribed.body);
    // B rebuilds the session: its GET stream hears an update of the URI subscribed on A...
    let mut get = b.connect();
    get.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    write_request(&mut get, b.port, "GET", "/mcp", &[("Accept", "text/event-stream"), sid], "");
    let mut get = BufReader::new(get);
    assert_eq!(read_head(&mut get).status, 200);
    let trigger = rpc(4, "tools/call", json!({"name": "test_trigger_resource_update", "arguments": {}}));
    assert!(b.post(&[sid], &trigger).json().get("result").is_some());
    let heard = notifications(&mut get, 1);
    assert_eq!(methods(&heard), ["notifications/resources/updated"], "{heard:?}");
    assert_eq!(heard[0]["params"]["uri"], WATCHED);
    // ...and its info messages are below the level set on A: none comes, the answer alone.
    let logged = b.post(&[sid], &rpc(5, "tools/call", json!({"name": "test_tool_with_logging", "arguments": {}})));
    assert!(!logged.body.contains("notifications/message"), "{}", logged.body);
    assert!(logged.body.contains("Tool with logging executed successfully"), "{}", logged.body);
}

#[cfg(feature = "store")]
#[test]
fn a_stream_cut_on_one_replica_is_resumed_on_another() {
    let Some(redis) = Redis::start() else { return };
    let replicas = Replicas::new(&redis);
    let (a, b) = (replicas.start("a", &[]), replicas.start("b", &[]));
    let session = a.session(json!({}));
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "r"}}});
    let mut stream = a.connect();
    let headers = [ACCEPT_BOTH, JSON, ("Mcp-Session-Id", session.as_str())];
    write_request(&mut stream, a.port, "POST", "/mcp", &headers, &call.to_string());
    // Read until the first progress event on A, then hang up.
    let last_id = last_id_at_first_progress(stream);
    // Resumed on B: exactly what came after, with A's ids, the response last.
    let resumed = wait_for("the stream to resume on B", Duration::from_secs(10), || {
        let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", &session), ("Last-Event-ID", &last_id)];
        Some(b.send("GET", "/mcp", &headers, "")).filter(|r| r.status == 200)
    });
    let events = resumed.events();
    let (stream_id, first) = last_id.split_once('-').unwrap();
    let first: u64 = first.parse().unwrap();
    let ids: Vec<String> = events.iter().map(|(id, _)| id.clone().unwrap_or_default()).collect();
    assert_eq!(ids, (1..=3).map(|n| format!("{stream_id}-{}", first + n)).collect::<Vec<_>>(), "{}", resumed.body);
    assert_eq!(methods(&events[..2].iter().map(|(_, m)| m.clone()).collect::<Vec<_>>()), ["notifications/progress"; 2]);
    assert_eq!(events[2].1["id"], 8);
    assert_eq!(events[2].1["result"]["content"][0]["text"], "Progress reported");
    // An id nobody kept is still 404.
    let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", session.as_str()), ("Last-Event-ID", "999-1")];
    assert_eq!(b.send("GET", "/mcp", &headers, "").status, 404);
}

#[cfg(feature = "store")]
#[test]
fn a_store_unreachable_at_start_is_refused() {
    let port = TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("address").port();
    let url = format!("redis://127.0.0.1:{port}");
    let out = Command::new(binary())
        .args(["--everything", "--http", "127.0.0.1:0", "--store", &url])
        .stdin(Stdio::null())
        .output()
        .expect("run tinymcp");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&url) && err.contains("cannot reach the store"), "{err}");
    let bad = crate::support::run_binary(&["--everything", "--store", "http://127.0.0.1:1"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected redis://HOST:PORT"));
}

#[cfg(not(feature = "store"))]
#[test]
fn the_store_is_refused_when_not_built_in() {
    let out = crate::support::run_binary(&["--everything", "--store", "redis://127.0.0.1:1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built without a store") && err.contains("--features store"), "{err}");
}
