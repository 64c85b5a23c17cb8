//! The test client's Streamable HTTP side: every line the client sends becomes a POST, and every
//! message the server sends (a JSON answer, the events of an SSE answer, the events of the
//! session's GET stream) comes back as one line on the same channel stdio uses, so a test reads
//! the same whichever transport it runs over.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

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
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the HTTP server did not start");
            thread::sleep(Duration::from_millis(10));
        }
        HttpLink { port, session: None, revision: None, lines }
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
            write_request(&mut stream, port, "GET", &headers, "");
            let mut reader = BufReader::new(stream);
            let head = read_head(&mut reader);
            assert_eq!(head.status, 200, "GET stream refused");
            forward_events(&mut reader, &lines);
        });
    }
}

struct Head {
    status: u16,
    session: Option<String>,
    content_type: String,
    length: Option<usize>,
}

struct Answered {
    session: Option<String>,
    revision: Option<String>,
}

/// One POST; what it answers goes to `lines`. Returns the session and revision it set up.
fn post(port: u16, headers: &[(&'static str, String)], body: &str, lines: &Sender<String>) -> Answered {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write_request(&mut stream, port, "POST", headers, body);
    let mut reader = BufReader::new(stream);
    let head = read_head(&mut reader);
    let mut answered = Answered { session: head.session.clone(), revision: None };
    if head.content_type.starts_with("text/event-stream") {
        forward_events(&mut reader, lines);
    } else if let Some(length) = head.length.filter(|&n| n > 0) {
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

fn write_request(stream: &mut TcpStream, port: u16, method: &str, headers: &[(&'static str, String)], body: &str) {
    let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("write request");
}

fn read_head(reader: &mut impl BufRead) -> Head {
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    let status = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut head = Head { status, session: None, content_type: String::new(), length: None };
    loop {
        line.clear();
        reader.read_line(&mut line).expect("header");
        let Some((name, value)) = line.trim_end().split_once(':') else { break };
        let value = value.trim().to_owned();
        match name.to_ascii_lowercase().as_str() {
            "mcp-session-id" => head.session = Some(value),
            "content-type" => head.content_type = value,
            "content-length" => head.length = value.parse().ok(),
            _ => {}
        }
    }
    head
}

/// Reads a chunked SSE body and sends every event's data on; stops at the end of the stream.
fn forward_events(reader: &mut impl BufRead, lines: &Sender<String>) {
    let mut pending = String::new();
    let mut size_line = String::new();
    loop {
        size_line.clear();
        if reader.read_line(&mut size_line).unwrap_or(0) == 0 {
            return;
        }
        let size = usize::from_str_radix(size_line.trim(), 16).expect("chunk size");
        let mut chunk = vec![0; size + 2];
        if reader.read_exact(&mut chunk).is_err() || size == 0 {
            return;
        }
        pending.push_str(std::str::from_utf8(&chunk[..size]).expect("UTF-8 event"));
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
