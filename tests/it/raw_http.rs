//! The one raw HTTP/1.1 client of the tests, as tiny_http's own tests did it: requests written
//! byte by byte over a `TcpStream`, answers read by `Content-Length` or chunk by chunk, and the
//! server process they talk to. The HTTP tests, the test client's HTTP link and the
//! hostile-client tests all speak through it.

use crate::support::{announced_port, announced_port_keeping_log, binary, Log};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");
pub const JSON: (&str, &str) = ("Content-Type", "application/json");

/// `tinymcp --everything --http 127.0.0.1:0` (and more arguments), killed when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    pub fn start(extra: &[&str], env: &[(&str, &str)]) -> Server {
        Self::spawn(Command::new(binary()), extra, env)
    }

    /// Runs `command` (the binary, or a shell that execs it) with the server's arguments.
    pub fn spawn(command: Command, extra: &[&str], env: &[(&str, &str)]) -> Server {
        Self::spawn_keeping_log(command, extra, env).0
    }

    /// `start`, with what the server logs kept (`RUST_LOG` can be given in `env`).
    pub fn start_keeping_log(extra: &[&str], env: &[(&str, &str)]) -> (Server, Log) {
        Self::spawn_keeping_log(Command::new(binary()), extra, env)
    }

    /// `spawn`, with what the server logs kept.
    pub fn spawn_keeping_log(mut command: Command, extra: &[&str], env: &[(&str, &str)]) -> (Server, Log) {
        command
            .args(["--everything", "--http", "127.0.0.1:0"])
            .args(extra)
            .env("RUST_LOG", "tinymcp=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("spawn tinymcp");
        let (port, log) = announced_port_keeping_log(&mut child);
        (Server { child, port }, log)
    }

    /// `tinymcp proxy --http 127.0.0.1:0 ARGS`, the token not inherited.
    pub fn proxy(args: &[&str]) -> Server {
        let mut child = proxy_command(args).spawn().expect("spawn tinymcp proxy");
        let port = announced_port(&mut child);
        Server { child, port }
    }

    pub fn connect(&self) -> TcpStream {
        connect(self.port)
    }

    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut stream = self.connect();
        write_request(&mut stream, self.port, method, path, headers, body);
        read_reply(&mut BufReader::new(stream))
    }

    pub fn post(&self, headers: &[(&str, &str)], body: &Value) -> Reply {
        let mut all = vec![ACCEPT_BOTH, JSON];
        all.extend_from_slice(headers);
        self.send("POST", "/mcp", &all, &body.to_string())
    }

    /// A session at 2025-11-25: its id, after `notifications/initialized`.
    pub fn session(&self, capabilities: Value) -> String {
        let reply = self.post(&[], &initialize(capabilities));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let id = reply.header("mcp-session-id").expect("Mcp-Session-Id").to_owned();
        let ack =
            self.post(&[("Mcp-Session-Id", &id)], &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(ack.status, 202);
        id
    }
}

/// `initialize` at 2025-11-25.
pub fn initialize(capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "it", "version": "1"}}})
}

/// Connects to a server on loopback, every read bounded by the tests' timeout.
pub fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("read timeout");
    stream
}

/// Writes one request; `Host` is added unless given, `Content-Length` always.
pub fn write_request(
    stream: &mut TcpStream,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) {
    let mut text = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(text.as_bytes()).expect("write request");
}

/// A status line and headers.
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn is_chunked(&self) -> bool {
        self.header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    }
}

/// Reads a status line and headers; skips `100 Continue` interim answers.
pub fn read_head(reader: &mut impl BufRead) -> Head {
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("status line {line:?}"));
        let mut headers = Vec::new();
        loop {
            line.clear();
            reader.read_line(&mut line).expect("header");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').expect("a header line");
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
        if status != 100 {
            return Head { status, headers };
        }
    }
}

/// The next chunk of a chunked body; `None` at its end (or when the connection ends).
pub fn read_chunk(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut size_line = String::new();
    if reader.read_line(&mut size_line).unwrap_or(0) == 0 {
        return None;
    }
    let size = usize::from_str_radix(size_line.trim(), 16).expect("chunk size");
    let mut chunk = vec![0; size + 2];
    reader.read_exact(&mut chunk).ok()?;
    chunk.truncate(size);
    (size > 0).then_some(chunk)
}

/// One whole answer.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The JSON of every `data:` line of an SSE body, with its event id.
    pub fn events(&self) -> Vec<(Option<String>, Value)> {
        sse_events(&self.body)
    }
}

pub fn sse_events(body: &str) -> Vec<(Option<String>, Value)> {
    let mut events = Vec::new();
    for block in body.split("\n\n") {
        let id = block.lines().find_map(|l| l.strip_prefix("id: ")).map(str::to_owned);
        if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) {
            if !data.trim().is_empty() {
                events.push((id, serde_json::from_str(data).unwrap()));
            }
        }
    }
    events
}

/// Reads one answer: a `Content-Length` body or a chunked one, to its end.
pub fn read_reply(reader: &mut impl BufRead) -> Reply {
    let Head { status, headers } = read_head(reader);
    let head = Head { status, headers };
    let mut body = Vec::new();
    if head.is_chunked() {
        while let Some(chunk) = read_chunk(reader) {
            body.extend_from_slice(&chunk);
        }
    } else if let Some(n) = head.header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(n, 0);
        reader.read_exact(&mut body).expect("body");
    }
    Reply { status: head.status, headers: head.headers, body: String::from_utf8(body).expect("UTF-8 body") }
}

/// The command `tinymcp proxy --http 127.0.0.1:0 ARGS`, logging at info on a piped stderr (where
/// it announces its port), the token never inherited.
pub fn proxy_command<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Command {
    let mut command = Command::new(binary());
    command
        .args(["proxy", "--http", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "tinymcp=info")
        .env_remove("TINYMCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}
