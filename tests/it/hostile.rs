//! Hostile clients over raw TCP: each attack once took the HTTP transport down, stalled it or
//! made it hoard memory, threads or descriptors. After each, the server must still be up and
//! answer a fresh client, and its threads must come back near where they started. A fixed
//! interval of the server (a deadline, the reaper's) is shortened by its flag, and the test waits
//! for the event (`wait_until`), never for a fixed time; what memory an attack costs is measured
//! by `scripts/bench.sh`, not asserted here.

use crate::raw_http::{connect, read_head, read_reply, write_request, Server, ACCEPT_BOTH, JSON};
use crate::support::Log;
use crate::support::{binary, logged, refuses_to_start, wait_until, TIMEOUT};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::thread;
use std::time::Duration;

/// Started from a shell that first lowers the descriptor limit to `limit`.
fn with_fd_limit(limit: u32) -> (Server, Log) {
    let mut command = Command::new("sh");
    command.args(["-c", &format!("ulimit -n {limit} && exec \"$0\" \"$@\""), binary()]);
    Server::spawn_keeping_log(command, &[], &[])
}

/// What the attacks watch: the process, its threads and memory.
trait Watched {
    fn status(&self, key: &str) -> u64;
    fn threads(&self) -> u64;
    fn alive(&mut self) -> bool;
    fn answers(&mut self);
    fn threads_settle(&self, baseline: u64, within: Duration);
}

impl Watched for Server {
    fn status(&self, key: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("the server is gone");
        status
            .lines()
            .find_map(|l| l.strip_prefix(key)?.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in /proc status"))
    }

    fn threads(&self) -> u64 {
        self.status("Threads:")
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// A fresh, well-behaved client is answered (the attack left it a thread and a descriptor).
    fn answers(&mut self) {
        assert!(self.alive(), "the server exited: {:?}", self.child.try_wait());
        let mut stream = connect(self.port);
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        write_request(&mut stream, self.port, "GET", "/healthz", &[], "");
        let reply = read_reply(&mut BufReader::new(stream));
        assert_eq!(reply.status, 200);
    }

    /// Waits (up to `within`) for the thread count to come back to `baseline` plus a little.
    fn threads_settle(&self, baseline: u64, within: Duration) {
        wait_until(&format!("the threads to come back to {baseline} (plus 4)"), within, || {
            self.threads() <= baseline + 4
        });
    }
}

/// Sends raw bytes on a new connection and reads the status the server answers with.
fn raw_status(port: u16, bytes: &[u8]) -> u16 {
    let mut stream = connect(port);
    stream.write_all(bytes).unwrap();
    read_head(&mut BufReader::new(stream)).status
}

#[test]
fn a_huge_content_length_on_every_early_answer_path_is_refused_without_allocating_it() {
    let mut server = Server::start(&["--max-message-bytes", "100000"], &[("TINYMCP_TOKEN", "secret-0123456789")]);
    let huge = "Content-Length: 1099511627776\r\n";
    let cases: [(&str, &str, &str); 7] = [
        ("GET /healthz HTTP/1.1\r\nHost: localhost\r\n", "", "healthz"),
        ("POST /mcp HTTP/1.1\r\nHost: localhost\r\n", "", "401: no token"),
        ("POST /mcp HTTP/1.1\r\nHost: evil.example\r\n", "Authorization: Bearer secret-0123456789\r\n", "403: foreign host"),
        ("POST /nowhere HTTP/1.1\r\nHost: localhost\r\n", "Authorization: Bearer secret-0123456789\r\n", "404"),
        ("PUT /mcp HTTP/1.1\r\nHost: localhost\r\n", "Authorization: Bearer secret-0123456789\r\n", "405"),
        ("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", "Authorization: Bearer secret-0123456789\r\n", "413"),
        ("POST /messages?sessionId=x HTTP/1.1\r\nHost: localhost\r\n", "Authorization: Bearer secret-0123456789\r\n", "legacy 404"),
    ];
    for (start, auth, what) in cases {
        let status = raw_status(server.port, format!("{start}{auth}{huge}\r\n{{}}").as_bytes());
        assert_eq!(status, 413, "{what}");
        server.answers();
    }
    // The same lie in chunked form: a chunk declaring a terabyte.
    let chunked = b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer secret-0123456789\r\n\
        Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
        Transfer-Encoding: chunked\r\n\r\n10000000000\r\n{}";
    assert_eq!(raw_status(server.port, chunked), 413);
    // A terabyte allocated, or even reserved, would have ended the process.
    server.answers();
}

#[test]
fn running_out_of_descriptors_pauses_accepting_and_it_resumes() {
    let (mut server, log) = with_fd_limit(64);
    server.answers();
    // Far more idle connections than descriptors: accept fails with EMFILE for a while.
    let held: Vec<TcpStream> = (0..150).filter_map(|_| TcpStream::connect(("127.0.0.1", server.port)).ok()).collect();
    wait_until("accept to fail for want of descriptors", TIMEOUT, || logged(&log, "cannot accept connections"));
    assert!(server.alive(), "the server exited when descriptors ran out: {:?}", server.child.try_wait());
    drop(held);
    // Accepting resumes by itself (it retries): the fresh client waits in the backlog meanwhile.
    server.answers();
    assert!(server.alive());
}

#[test]
fn header_floods_are_cut_off_at_the_cap() {
    let mut server = Server::start(&[], &[]);
    // One endless header line: refused once the head passes 16 KiB, not read to its end.
    let mut stream = connect(server.port);
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Flood: ").unwrap();
    let line = vec![b'a'; 64 * 1024];
    for _ in 0..64 {
        if stream.write_all(&line).is_err() {
            break;
        }
    }
    assert_eq!(read_head(&mut BufReader::new(&stream)).status, 431);
    // A request line longer than the cap, and too many headers.
    let long_line = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(20_000));
    assert_eq!(raw_status(server.port, long_line.as_bytes()), 414);
    let many: String = (0..100).map(|i| format!("X-{i}: v\r\n")).collect();
    assert_eq!(
        raw_status(server.port, format!("GET /healthz HTTP/1.1\r\nHost: localhost\r\n{many}\r\n").as_bytes()),
        431
    );
    server.answers();
}

#[test]
fn slowloris_and_slow_bodies_are_timed_out_and_their_threads_freed() {
    // Deadlines of 3 s instead of 5 (`--read-secs`), long enough to see the attack take hold.
    let mut server = Server::start(&["--read-secs", "3"], &[]);
    server.answers();
    let threads = server.threads();
    // 150 heads that never finish, a byte at a time, and 150 bodies that stop half-way.
    let mut slow: Vec<TcpStream> = (0..150).map(|_| connect(server.port)).collect();
    let dribble = |slow: &mut Vec<TcpStream>| {
        for stream in slow {
            let _ = stream.write_all(b"G");
        }
    };
    dribble(&mut slow);
    let mut bodies: Vec<TcpStream> = (0..150).map(|_| connect(server.port)).collect();
    for stream in &mut bodies {
        let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                    Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"";
        stream.write_all(head.as_bytes()).unwrap();
    }
    wait_until("the attack to take hold", TIMEOUT, || server.threads() > threads + 100);
    server.answers();
    // The head deadline and the body deadline pass while the slow heads keep dribbling.
    wait_until("the slow connections to be cut", TIMEOUT, || {
        dribble(&mut slow);
        server.threads() <= threads + 4
    });
    server.answers();
    // The body's connection got a 400, then was closed.
    let mut answer = String::new();
    let _ = bodies[0].read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
}

#[test]
fn pipelined_requests_are_answered_in_order_and_lying_lengths_go_nowhere() {
    let mut server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let ping = |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
    let post = |body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    // Three requests in one write, one of them with a body nobody reads (404), one chunked.
    let chunked_ping = ping(3);
    let pipelined = format!(
        "{}POST /nowhere HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nxxxxx{}\
         POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nTransfer-Encoding: chunked\r\n\r\n\
         {:x}\r\n{chunked_ping}\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        post(&ping(1)),
        post(&ping(2)),
        chunked_ping.len(),
    );
    let mut stream = connect(server.port);
    stream.write_all(pipelined.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let first = read_reply(&mut reader);
    assert_eq!(first.json()["id"], 1);
    assert_eq!(read_reply(&mut reader).status, 404);
    assert_eq!(read_reply(&mut reader).json()["id"], 2);
    assert_eq!(read_reply(&mut reader).json()["id"], 3);
    let last = read_reply(&mut reader);
    assert_eq!(last.status, 200);
    assert_eq!(last.header("connection"), Some("close"));
    let mut rest = Vec::new();
    assert_eq!(reader.read_to_end(&mut rest).unwrap(), 0, "the connection stays open after Connection: close");
    // A length that says less than what follows: the rest is read as the next request, which
    // is not one (400, and closed).
    let mut stream = connect(server.port);
    stream.write_all(format!("{}garbage that is no request\r\n\r\n", post(&ping(4))).as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    assert_eq!(read_reply(&mut reader).json()["id"], 4);
    assert_eq!(read_head(&mut reader).status, 400);
    // Two lengths that disagree, or a length and chunks: refused, never guessed.
    let conflicting = b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\n";
    assert_eq!(raw_status(server.port, conflicting), 400);
    let both = b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n";
    assert_eq!(raw_status(server.port, both), 400);
    // Expect: 100-continue gets its interim answer, then the real one.
    let mut stream = connect(server.port);
    let body = ping(5);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nExpect: 100-continue\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 100"), "{line}");
    reader.read_line(&mut line).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    assert_eq!(read_reply(&mut reader).json()["id"], 5);
    server.answers();
}

#[test]
fn a_body_that_is_not_utf8_is_a_parse_error() {
    let mut server = Server::start(&[], &[]);
    let session = server.session(json!({}));
    let body = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}";
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let mut stream = connect(server.port);
    stream.write_all(&request).unwrap();
    let reply = read_reply(&mut BufReader::new(stream));
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32700, "{}", reply.body);
    server.answers();
}

#[test]
fn an_unread_legacy_stream_is_bounded_and_ends() {
    // A write that cannot progress ends the stream after 2 s instead of 10 (`--write-secs`).
    let mut server = Server::start(&["--write-secs", "2"], &[]);
    let mut get = connect(server.port);
    write_request(&mut get, server.port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut reader = BufReader::new(get);
    let endpoint = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        if let Some(path) = line.strip_prefix("data: /messages") {
            break format!("/messages{}", path.trim());
        }
    };
    // From here on the client reads nothing while it asks for megabytes of answers.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}});
    let send = |body: &str| {
        let mut stream = connect(server.port);
        write_request(&mut stream, server.port, "POST", &endpoint, &[JSON], body);
        read_reply(&mut BufReader::new(stream)).status
    };
    assert_eq!(send(&init.to_string()), 202);
    assert_eq!(send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()), 202);
    // More than the socket's buffers and the stream's queue (4 MiB) hold: what does not fit is
    // dropped, not kept (`scripts/bench.sh` measures the memory), and the writer blocks.
    let big = "x".repeat(32 * 1024);
    let mut ended = false;
    for i in 0..1000 {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": big}}});
        if send(&call.to_string()) == 404 {
            ended = true;
            break;
        }
    }
    // The stream ends once a write could not progress for the write timeout.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    wait_until("the unread stream's session to end", Duration::from_secs(30), || ended || send(&initialized) == 404);
    drop(reader);
    server.answers();
}

#[test]
fn closed_get_streams_are_noticed_and_a_second_stream_is_never_starved() {
    let (mut server, log) = Server::start_keeping_log(&[], &[("RUST_LOG", "tinymcp=debug")]);
    let session = server.session(json!({}));
    let threads = server.threads();
    let open_stream = || {
        let mut stream = connect(server.port);
        let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", session.as_str())];
        write_request(&mut stream, server.port, "GET", "/mcp", &headers, "");
        let mut reader = BufReader::new(stream);
        assert_eq!(read_head(&mut reader).status, 200);
        reader
    };
    // Two streams of one session; the first (which holds the notices) is dropped.
    let first = open_stream();
    let mut second = open_stream();
    drop(first);
    let ended = |log: &Log| log.lock().unwrap().lines().any(|l| l.contains("GET stream") && l.ends_with(" ended"));
    wait_until("the server to notice the closed stream", TIMEOUT, || ended(&log));
    let trigger = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_trigger_tool_change", "arguments": {}}});
    assert_eq!(server.post(&[("Mcp-Session-Id", &session)], &trigger).status, 200);
    second.get_ref().set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut seen = String::new();
    while !seen.contains("notifications/tools/list_changed") {
        let mut line = String::new();
        let read = second.read_line(&mut line);
        assert!(matches!(read, Ok(n) if n > 0), "the second stream got nothing: {seen}");
        seen.push_str(&line);
    }
    drop(second);
    // Many streams opened and dropped: their threads and descriptors go within a second or two.
    let other = server.session(json!({}));
    let streams: Vec<_> = (0..8)
        .map(|_| {
            let mut stream = connect(server.port);
            let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", other.as_str())];
            write_request(&mut stream, server.port, "GET", "/mcp", &headers, "");
            stream
        })
        .collect();
    wait_until("the 8 streams to be served", TIMEOUT, || server.threads() >= threads + 8);
    drop(streams);
    server.threads_settle(threads, Duration::from_secs(3));
    server.answers();
}

#[test]
fn deleting_a_session_during_a_request_still_answers_it() {
    let (server, log) = Server::start_keeping_log(&[], &[("RUST_LOG", "tinymcp=debug")]);
    let session = server.session(json!({}));
    let port = server.port;
    let sid = session.clone();
    let call = thread::spawn(move || {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "test_slow", "arguments": {"ms": 3000}}});
        let mut stream = connect(port);
        write_request(
            &mut stream,
            port,
            "POST",
            "/mcp",
            &[ACCEPT_BOTH, JSON, ("Mcp-Session-Id", &sid)],
            &body.to_string(),
        );
        read_reply(&mut BufReader::new(stream))
    });
    wait_until("the call to be read", TIMEOUT, || logged(&log, r#"<- {"id":9,"#) || logged(&log, r#""id":9,"method""#));
    let mut stream = connect(port);
    write_request(&mut stream, port, "DELETE", "/mcp", &[("Mcp-Session-Id", &session)], "");
    assert_eq!(read_reply(&mut BufReader::new(stream)).status, 200);
    let reply = call.join().unwrap();
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = if reply.body.starts_with('{') { reply.json() } else { reply.events().last().unwrap().1.clone() };
    assert_eq!(answer["id"], 9, "an answer for the request, not an empty body: {:?}", reply.body);
    assert!(answer.get("result").is_some() || answer.get("error").is_some(), "{answer}");
}

#[test]
fn a_blank_token_refuses_to_start() {
    for blank in ["", "   "] {
        let stderr = refuses_to_start(&[], &[("TINYMCP_TOKEN", blank)]);
        assert!(stderr.contains("token"), "{stderr}");
    }
}

#[test]
fn abandoned_handshakes_expire_at_the_handshake_limit() {
    let (mut server, log) = Server::start_keeping_log(&["--handshake-secs", "2"], &[]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}});
    let abandoned: Vec<String> =
        (0..20).map(|_| server.post(&[], &init).header("mcp-session-id").unwrap().to_owned()).collect();
    let used = server.session(json!({}));
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(server.post(&[("Mcp-Session-Id", &used)], &ping).status, 200);
    // Unused for 2 s (`--handshake-secs`; the reaper looks four times a limit). Watched in the
    // log: a request would use the session, and keep it.
    for id in &abandoned {
        wait_until(&format!("session {id} to end"), TIMEOUT, || logged(&log, &format!("session {id} expired")));
    }
    for id in &abandoned {
        assert_eq!(server.post(&[("Mcp-Session-Id", id)], &ping).status, 404, "session {id} outlived its handshake");
    }
    assert_eq!(server.post(&[("Mcp-Session-Id", &used)], &ping).status, 200);
    server.answers();
}

/// Two `Authorization` headers are refused as two `Host`s are (RFC 9110 §5.3: a header that is
/// not a list is sent once): which one a check reads must not depend on who reads it, a proxy
/// in front or this server.
#[test]
fn two_authorization_headers_are_a_bad_request() {
    let server = Server::start(&[], &[("TINYMCP_TOKEN", "secret-0123456789")]);
    let good = "Authorization: Bearer secret-0123456789\r\n";
    let bad = "Authorization: Bearer forged-0123456789\r\n";
    for (first, second) in [(good, bad), (bad, good), (good, good)] {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\n{first}{second}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: 2\r\n\r\n{{}}"
        );
        assert_eq!(raw_status(server.port, request.as_bytes()), 400, "{first}{second}");
    }
    let one = format!("GET /mcp HTTP/1.1\r\nHost: localhost\r\n{good}Accept: text/event-stream\r\n\r\n");
    assert_eq!(raw_status(server.port, one.as_bytes()), 400, "one is fine: no session yet is the 400");
}

/// A body over the limit, sent whole without waiting (as the Python SDK's client does: no
/// `Expect: 100-continue`), gets its `413` read by the client: the server does not close with
/// the body unread, which would reset the connection and lose the answer.
#[test]
fn a_body_over_the_limit_sent_whole_gets_its_413_not_a_reset() {
    let mut server = Server::start(&["--max-message-bytes", "100000"], &[]);
    let session = server.session(json!({}));
    // By declared length, and in chunks (found over the limit only as they are read).
    for (size, chunked) in [(100_001, false), (8 * 1024 * 1024, false), (8 * 1024 * 1024, true)] {
        let mut stream = connect(server.port);
        let framing = if chunked { "Transfer-Encoding: chunked".to_owned() } else { format!("Content-Length: {size}") };
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n{framing}\r\n\r\n"
        );
        let body = match chunked {
            false => vec![b' '; size],
            true => {
                let chunk = [format!("{:x}\r\n", 64 * 1024).into_bytes(), vec![b' '; 64 * 1024], b"\r\n".to_vec()];
                [chunk.concat().repeat(size / (64 * 1024)), b"0\r\n\r\n".to_vec()].concat()
            }
        };
        let mut writer = stream.try_clone().unwrap();
        let sending = thread::spawn(move || {
            writer.write_all(head.as_bytes())?;
            writer.write_all(&body)
        });
        let sent = sending.join().unwrap();
        assert!(sent.is_ok(), "{size} bytes: the server reset the connection while the body was sent: {sent:?}");
        let reply = read_reply(&mut BufReader::new(&stream));
        assert_eq!(reply.status, 413, "{size} bytes: {}", reply.body);
        assert_eq!(reply.json()["error"]["code"], -32600, "{}", reply.body);
        assert!(reply.json()["error"]["message"].as_str().unwrap().contains("100000"), "{}", reply.body);
        let mut rest = Vec::new();
        assert_eq!(stream.read_to_end(&mut rest).unwrap(), 0, "the connection ends cleanly after the 413");
    }
    server.answers();
}
