//! The test client's Streamable HTTP side: every line the client sends becomes a POST, and every
//! message the server sends (a JSON answer, the events of an SSE answer, the events of the
//! session's GET stream) comes back as one line on the same channel stdio uses, so a test reads
//! the same whichever transport it runs over.

use crate::raw_http::{read_chunk, read_head, write_request};
use crate::support::{wait_until, TIMEOUT};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::sync::mpsc::Sender;
use std::thread;

/// The HTTP link of one session.
pub struct HttpLink {
    port: u16,
    session: Option<String>,
    revision: Option<String>,
    lines: Sender<String>,
}

impl HttpLink {
    /// Waits until the server on `port` accepts connections.
    pub fn connect(port: u16, lines: Sender<String>) -> HttpLink {
        wait_until("the HTTP server to start", TIMEOUT, || TcpStream::connect(("127.0.0.1", port)).is_ok());
        HttpLink { port, session: None, revision: None, lines }
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Sends one message. `initialize` and `notifications/initialized` are sent in order before
    /// this returns (the first sets the session, the second opens the GET stream); anything
    /// else is posted from a thread of its own, so a request can wait for its answer while the
    /// test sends more (a cancellation, the answer to a server request).
    pub fn send(&mut self, line: &str) {
        let method = serde_json::from_str::<Value>(line).ok().and_then(|m| m["method"].as_str().map(str::to_owned));
        let headers = self.headers();
        match method.as_deref() {
            Some("initialize") => {
                let answer = post(self.port, &headers, line, &self.lines);
                self.session = answer.session;
                self.revision = answer.revision;
            }
            Some("notifications/initialized") => {
                post(self.port, &headers, line, &self.lines);
                self.open_stream();
            }
            _ => {
                let (port, line, lines) = (self.port, line.to_owned(), self.lines.clone());
                thread::spawn(move || post(port, &headers, &line, &lines));
            }
        }
    }

    fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("Accept", "application/json, text/event-stream".to_owned()),
            ("Content-Type", "application/json".to_owned()),
        ];
        headers.extend(self.session.clone().map(|id| ("Mcp-Session-Id", id)));
        headers.extend(self.revision.clone().map(|v| ("MCP-Protocol-Version", v)));
        headers
    }

    /// The GET stream: messages not tied to a request (list changes, resource updates).
    fn open_stream(&self) {
        let mut headers = self.headers();
        headers.retain(|(name, _)| *name != "Content-Type");
        headers[0].1 = "text/event-stream".to_owned();
        let (port, lines) = (self.port, self.lines.clone());
        thread::spawn(move || {
            let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            write_request(&mut stream, port, "GET", "/mcp", &pairs(&headers), "");
            let mut reader = BufReader::new(stream);
            let head = read_head(&mut reader);
            assert_eq!(head.status, 200, "GET stream refused");
            forward_events(&mut reader, &lines);
        });
    }
}

struct Answered {
    session: Option<String>,
    revision: Option<String>,
}

/// One POST; what it answers goes to `lines`. Returns the session and revision it set up.
fn post(port: u16, headers: &[(&'static str, String)], body: &str, lines: &Sender<String>) -> Answered {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write_request(&mut stream, port, "POST", "/mcp", &pairs(headers), body);
    let mut reader = BufReader::new(stream);
    let head = read_head(&mut reader);
    let mut answered = Answered { session: head.header("mcp-session-id").map(str::to_owned), revision: None };
    let length = head.header("content-length").and_then(|v| v.parse::<usize>().ok());
    if head.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
        forward_events(&mut reader, lines);
    } else if let Some(length) = length.filter(|&n| n > 0) {
        let mut body = vec![0; length];
        reader.read_exact(&mut body).expect("body");
        let text = String::from_utf8(body).expect("UTF-8 body");
        let value: Value = serde_json::from_str(&text).expect("a JSON body");
        answered.revision = value["result"]["protocolVersion"].as_str().map(str::to_owned);
        let _ = lines.send(text);
    } else {
        assert!(head.status == 202 || head.status == 200, "HTTP {} with no body", head.status);
    }
    answered
}

fn pairs<'a>(headers: &'a [(&'static str, String)]) -> Vec<(&'a str, &'a str)> {
    headers.iter().map(|(n, v)| (*n, v.as_str())).collect()
}

/// Reads a chunked SSE body and sends every event's data on; stops at the end of the stream.
fn forward_events(reader: &mut impl BufRead, lines: &Sender<String>) {
    let mut pending = String::new();
    while let Some(chunk) = read_chunk(reader) {
        pending.push_str(std::str::from_utf8(&chunk).expect("UTF-8 event"));
        while let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            for data in event.lines().filter_map(|l| l.strip_prefix("data:")) {
                let data = data.trim_start();
                if !data.is_empty() && lines.send(data.to_owned()).is_err() {
                    return;
                }
            }
        }
    }
}
