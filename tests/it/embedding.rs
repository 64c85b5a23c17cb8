//! The library API, driven in memory through a `Connection` (no process, no pipes).

use crate::support::check;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tinymcp::wire::jsonrpc::parse;
use tinymcp::{
    CallToolResult, Connection, Content, GetPromptResult, Outgoing, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, Server, Sink, Tool,
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

struct Peer {
    connection: Connection,
    sink: Sink,
    outbox: std::sync::mpsc::Receiver<Outgoing>,
}

impl Peer {
    fn new() -> Peer {
        let (sink, outbox) = Sink::channel();
        Peer { connection: Connection::new(server(), sink.clone()), sink, outbox }
    }
    fn request(&self, id: i64, method: &str, params: Value) -> Value {
        let text = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.connection.handle(parse(&text), &self.sink);
        loop {
            let frame = self.outbox.recv_timeout(Duration::from_secs(5)).expect("an answer");
            let value: Value = serde_json::from_str(frame.json()).unwrap();
            if value["id"] == id {
                return value;
            }
        }
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
