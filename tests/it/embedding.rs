//! The library API, driven in memory through a `Connection` (no process, no pipes).

use crate::support::{check, wait_for, wait_until};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tinymcp::{
    CallToolResult, Content, GetPromptResult, MemoryClient, Options, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, Server, TaskSupport, Tool,
};

fn server() -> Arc<Server> {
    let mut server = Server::new("embedded", "9.9.9");
    server.set_instructions("Use the add tool.");
    server.register_tool(
        Tool::new("add", "Adds", json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]})),
        |_, args| Ok(CallToolResult::text((args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string())),
    );
    server.register_tool(Tool::new("boom", "Panics", json!({"type": "object"})), |_, _| panic!("handler bug"));
    server.register_resource(Resource::new("mem://greeting", "greeting").with_mime_type("text/plain"), |_, uri| {
        Ok(vec![ResourceContents::text(uri, "text/plain", "hello")])
    });
    server.register_prompt(
        Prompt::new("greet", "Greets", vec![PromptArgument::new("name", "Who", true)]),
        |_, args| {
            Ok(GetPromptResult::new(vec![PromptMessage::user(Content::text(format!("Hello, {}!", args["name"])))]))
        },
        None,
    );
    Arc::new(server)
}

struct Peer(MemoryClient);

impl Peer {
    fn new() -> Peer {
        Peer(MemoryClient::connect(server()))
    }
    fn request(&self, _id: i64, method: &str, params: Value) -> Value {
        self.0.call(method, params, Duration::from_secs(5)).expect("an answer")
    }
}

#[test]
fn an_embedded_server_answers_through_an_in_memory_connection() {
    let peer = Peer::new();
    let init = peer.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    check(
        &init,
        json!({"result": {"protocolVersion": "2025-06-18", "instructions": "Use the add tool.", "serverInfo": {"name": "embedded", "version": "9.9.9"}}}),
    );
    check(
        &peer.request(2, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})),
        json!({"result": {"content": [{"text": "5"}]}}),
    );
    check(
        &peer.request(3, "resources/read", json!({"uri": "mem://greeting"})),
        json!({"result": {"contents": [{"text": "hello"}]}}),
    );
    check(
        &peer.request(4, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})),
        json!({"result": {"messages": [{"content": {"text": "Hello, Ada!"}}]}}),
    );
}

#[test]
fn a_panicking_handler_is_internal_error_and_the_server_lives_on() {
    let peer = Peer::new();
    peer.request(1, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}}));
    let res = peer.request(2, "tools/call", json!({"name": "boom", "arguments": {}}));
    check(&res, json!({"error": {"code": -32603, "message": "internal error"}}));
    assert!(!res.to_string().contains("handler bug"), "details stay in the log: {res}");
    check(
        &peer.request(3, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})),
        json!({"result": {"content": [{"text": "2"}]}}),
    );
}

const WAIT: Duration = Duration::from_secs(5);

#[test]
fn a_subscribe_hook_may_register_another_hook() {
    // Hooks once ran under the hook list's read lock: one calling `on_subscribe` deadlocked.
    let server = server();
    let weak = Arc::downgrade(&server);
    server.on_subscribe(move |_| {
        if let Some(server) = weak.upgrade() {
            server.on_subscribe(|_| {});
        }
    });
    let client = MemoryClient::connect(server);
    client.initialize("2025-11-25", json!({}), WAIT).expect("initialized");
    let res = client.call("resources/subscribe", json!({"uri": "mem://greeting"}), WAIT);
    check(&res.expect("subscribe answered"), json!({"result": {}}));
}

#[test]
fn a_request_beyond_the_in_flight_cap_does_not_hold_up_the_reader() {
    // The reader once waited up to a second for a slot, while the answers the running handlers
    // waited for sat unread behind it. Now the request waits in the session's queue instead.
    let options = Options::default().with_max_in_flight(1);
    let server = Server::with_options("capped", "0", options);
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = std::sync::Mutex::new(gate);
    server.register_tool(Tool::new("wait", "Waits for the test", json!({"type": "object"})), move |_, _| {
        // Longer than the test waits for the sends: a reader held until it frees is seen so.
        let _ = gate.lock().unwrap().recv_timeout(6 * WAIT);
        Ok(CallToolResult::text("released"))
    });
    let client = MemoryClient::connect(Arc::new(server));
    client.initialize("2025-11-25", json!({}), WAIT).expect("initialized");
    let call =
        |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "wait"}}).to_string();
    // The slot is released only once the sends returned (or the test gave up on them): a
    // reader that waits for a slot would wait for the release.
    let (sent, was_sent) = std::sync::mpsc::channel::<()>();
    let releaser = std::thread::spawn(move || {
        let in_time = was_sent.recv_timeout(WAIT).is_ok();
        for _ in 0..3 {
            let _ = release.send(());
        }
        in_time
    });
    client.send(&call(1));
    client.send(&call(2));
    client.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    let _ = sent.send(());
    assert!(releaser.join().unwrap(), "the reader was held at the in-flight cap until a slot freed");
    let mut answered = Vec::new();
    while answered.len() < 3 {
        let message = client.recv(WAIT).expect("every request is answered");
        assert!(message.get("error").is_none(), "refused: {message}");
        answered.push(message["id"].as_u64().unwrap());
    }
    answered.sort();
    assert_eq!(answered, [1, 2, 3]);
}

#[test]
fn a_task_asks_the_client_only_after_the_result_that_names_the_task() {
    // Spec (tasks): the client learns the task id from the CreateTaskResult; a task's first
    // elicitation/create once raced ahead of it, since the work started before the answer left.
    let options = Options::default().with_resident_workers(4);
    let server = Server::with_options("tasks", "0", options);
    server.register_tool(
        Tool::new("ask", "Asks at once", json!({"type": "object"})).with_task_support(TaskSupport::Required),
        |cx, _| {
            let _ = cx.elicit_raw(json!({"message": "?", "requestedSchema": {"type": "object", "properties": {}}}));
            Ok(CallToolResult::text("done"))
        },
    );
    let server = Arc::new(server);
    for round in 0..30 {
        let client = MemoryClient::connect(Arc::clone(&server));
        client.initialize("2025-11-25", json!({"elicitation": {}}), WAIT).expect("initialized");
        client.send(r#"{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"ask","task":{}}}"#);
        let first = client.recv(WAIT).expect("a message");
        assert_eq!(first["id"], "t", "round {round}: {first} came before the CreateTaskResult");
        check(&first, json!({"result": {"task": {"status": "working"}}}));
        let ask = client.recv(WAIT).expect("the elicitation");
        check(&ask, json!({"method": "elicitation/create"}));
    }
}

#[test]
fn shutting_a_server_down_ends_its_worker_threads() {
    // The handler notes the worker thread it runs on (Linux: /proc/thread-self names it).
    let server = Server::with_options("stoppable", "0", Options::default().with_resident_workers(2));
    server.register_tool(Tool::new("where", "Names its thread", json!({"type": "object"})), |_, _| {
        let link = std::fs::read_link("/proc/thread-self")
            .map_err(|e| tinymcp::RpcError::new(tinymcp::error_codes::INTERNAL_ERROR, e.to_string()))?;
        Ok(CallToolResult::text(link.display().to_string()))
    });
    let server = Arc::new(server);
    let client = MemoryClient::connect(Arc::clone(&server));
    client.initialize("2025-11-25", json!({}), WAIT).expect("initialized");
    let res = client.call("tools/call", json!({"name": "where"}), WAIT).expect("an answer");
    let task = res["result"]["content"][0]["text"].as_str().expect("a thread").to_owned();
    let tid = task.rsplit('/').next().unwrap().to_owned();
    let alive = || std::path::Path::new(&format!("/proc/self/task/{tid}")).exists();
    assert!(alive(), "the worker waits for more work: {task}");
    server.shutdown();
    // A joined thread has run its last instruction, but the kernel may list it in /proc for a
    // moment longer (the join wakes before the task is reaped): allow that moment, not more.
    wait_until(&format!("the worker thread {tid} to end after shutdown"), WAIT, || !alive());
}

#[test]
fn a_tool_with_an_invalid_x_mcp_header_is_not_registered() {
    let server = Server::new("headers", "0");
    let schema =
        |suffix: &str| json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": suffix}}});
    server.register_tool(Tool::new("good", "A valid header", schema("Region")), |_, _| Ok(CallToolResult::text("ok")));
    server
        .register_tool(Tool::new("spaced", "Not a token", schema("Two Words")), |_, _| Ok(CallToolResult::text("no")));
    let on_object = json!({"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}});
    server.register_tool(Tool::new("object", "On an object", on_object), |_, _| Ok(CallToolResult::text("no")));
    let client = MemoryClient::connect(Arc::new(server));
    client.initialize("2025-11-25", json!({}), WAIT).expect("initialized");
    let list = client.call("tools/list", json!({}), WAIT).expect("tools/list answered");
    let names: Vec<&str> =
        list["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["good"], "{list}");
}

/// A request on the 2026-07-28 wire declaring the tasks extension.
fn with_tasks_ext(client: &MemoryClient, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    client.call(method, params, WAIT).expect("an answer")
}

/// A server with one required-task tool that answers with the worker thread it ran on.
fn tasks_server() -> Arc<Server> {
    let server = Server::with_options("tasks", "0", Options::default().with_resident_workers(2));
    server.register_tool(
        Tool::new("where", "Names its thread", json!({"type": "object"})).with_task_support(TaskSupport::Required),
        |_, _| {
            let link = std::fs::read_link("/proc/thread-self")
                .map_err(|e| tinymcp::RpcError::new(tinymcp::error_codes::INTERNAL_ERROR, e.to_string()))?;
            Ok(CallToolResult::text(link.display().to_string()))
        },
    );
    Arc::new(server)
}

/// Polls `tasks/get` until the task finished; its last state.
fn finished(client: &MemoryClient, id: &str) -> Value {
    wait_for(&format!("task {id} to complete"), WAIT, || {
        let got = with_tasks_ext(client, "tasks/get", json!({"taskId": id}));
        (got["result"]["status"] == "completed").then(|| got["result"].clone())
    })
}

#[test]
fn dropping_a_server_with_a_finished_task_frees_it_and_ends_its_workers() {
    // ARCHITECTURE.md: dropping the last `Arc<Server>` stops it. A finished task is kept for
    // its `ttlMs`, and it once kept its server (and its worker threads) alive that long.
    let server = tasks_server();
    let weak = Arc::downgrade(&server);
    let client = MemoryClient::connect(Arc::clone(&server));
    let created = with_tasks_ext(&client, "tools/call", json!({"name": "where", "arguments": {}}));
    let id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}")).to_owned();
    let done = finished(&client, &id);
    let path = done["result"]["content"][0]["text"].as_str().expect("a thread").to_owned();
    let tid = path.rsplit('/').next().unwrap().to_owned();
    let alive = || std::path::Path::new(&format!("/proc/self/task/{tid}")).exists();
    drop(client);
    drop(server);
    // The worker that ran the task may hold the server until its round returns; then it is freed.
    wait_until("the server and its worker to be freed", WAIT, || weak.strong_count() == 0 && !alive());
    assert_eq!(weak.strong_count(), 0, "the server outlived its last Arc (its finished task held it)");
    assert!(weak.upgrade().is_none());
    assert!(!alive(), "the worker thread {tid} that ran the task outlived its server");
}

#[test]
fn two_servers_in_one_process_do_not_see_each_others_tasks() {
    let (a, b) = (tasks_server(), tasks_server());
    let (client_a, client_b) = (MemoryClient::connect(Arc::clone(&a)), MemoryClient::connect(Arc::clone(&b)));
    let created = with_tasks_ext(&client_a, "tools/call", json!({"name": "where", "arguments": {}}));
    let id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}")).to_owned();
    finished(&client_a, &id);
    check(&with_tasks_ext(&client_b, "tasks/get", json!({"taskId": id})), json!({"error": {"code": -32602}}));
    check(&with_tasks_ext(&client_b, "tasks/cancel", json!({"taskId": id})), json!({"error": {"code": -32602}}));
    check(&with_tasks_ext(&client_a, "tasks/get", json!({"taskId": id})), json!({"result": {"status": "completed"}}));
}
