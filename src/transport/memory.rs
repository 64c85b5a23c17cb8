//! An in-memory transport: a client in the same process, driven by tests and embedders without
//! a process, a pipe or a socket. Reads only the envelope, like every transport.

use crate::server::connection::Connection;
use crate::server::sink::{Outgoing, Sink};
use crate::server::Server;
use serde_json::{json, Value};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A client connected to a server in memory. What the server sends (responses, notifications,
/// its own requests) waits in order until read with [`MemoryClient::recv`].
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use serde_json::json;
/// use tinymcp::{CallToolResult, MemoryClient, Server, Tool};
///
/// let server = Server::new("demo", "1.0.0");
/// server.register_tool(Tool::new("hello", "Says hello", json!({"type": "object"})), |_, _| {
///     Ok(CallToolResult::text("hello"))
/// });
/// let client = MemoryClient::connect(Arc::new(server));
/// let wait = Duration::from_secs(5);
/// client.initialize("2025-11-25", json!({}), wait).unwrap();
/// let answer = client.call("tools/call", json!({"name": "hello"}), wait).unwrap();
/// assert_eq!(answer["result"]["content"][0]["text"], "hello");
/// ```
pub struct MemoryClient {
    connection: Connection,
    sink: Sink,
    outbox: Receiver<Outgoing>,
    next_id: std::sync::atomic::AtomicI64,
}

impl MemoryClient {
    /// A new client of `server`, with a session of its own.
    pub fn connect(server: Arc<Server>) -> MemoryClient {
        let (sink, outbox) = Sink::channel();
        let connection = Connection::new(server, sink.clone());
        MemoryClient { connection, sink, outbox, next_id: std::sync::atomic::AtomicI64::new(1) }
    }

    /// Sends one JSON-RPC message (or batch), as text. Returns once the server has taken it;
    /// handlers run on the server's workers.
    pub fn send(&self, text: &str) {
        self.connection.handle_text(text, &self.sink);
    }

    /// The next message the server sent, or `None` when none came within `timeout`.
    pub fn recv(&self, timeout: Duration) -> Option<Value> {
        loop {
            match self.outbox.recv_timeout(timeout) {
                Ok(Outgoing::CloseStream) => continue,
                Ok(message) => return serde_json::from_str(&message.to_text()).ok(),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Sends a request and waits for its response (the whole envelope), passing over whatever
    /// else arrives first; `None` when no response came within `timeout`.
    pub fn call(&self, method: &str, params: Value, timeout: Duration) -> Option<Value> {
        let id = self.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        let deadline = Instant::now() + timeout;
        loop {
            let message = self.recv(deadline.saturating_duration_since(Instant::now()))?;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return Some(message);
            }
        }
    }

    /// `initialize` then `notifications/initialized`; the `initialize` result.
    pub fn initialize(&self, version: &str, capabilities: Value, timeout: Duration) -> Option<Value> {
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "memory", "version": "0"},
        });
        let answer = self.call("initialize", params, timeout)?;
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        answer.get("result").cloned()
    }

    /// The connection underneath, for what this client does not wrap.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }
}

impl Drop for MemoryClient {
    /// Ends the session: running handlers see cancellation, pending client requests fail.
    fn drop(&mut self) {
        self.connection.close();
    }
}
