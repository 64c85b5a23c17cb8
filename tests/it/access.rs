//! Who may reach the HTTP server once it is reachable beyond loopback: one session cap for
//! every transport. Each test is an attack first.

use crate::raw_http::{initialize, read_head, write_request, Server};
use serde_json::json;
use std::io::BufReader;
use std::time::{Duration, Instant};

/// Opens a legacy SSE stream; the stream, kept open, or the status it was refused with.
fn legacy_stream(server: &Server) -> Result<BufReader<std::net::TcpStream>, u16> {
    let mut get = server.connect();
    write_request(&mut get, server.port, "GET", "/sse", &[("Accept", "text/event-stream")], "");
    let mut reader = BufReader::new(get);
    let head = read_head(&mut reader);
    if head.status == 200 {
        Ok(reader)
    } else {
        Err(head.status)
    }
}

#[test]
fn legacy_sessions_share_the_one_session_cap() {
    let server = Server::start(&["--max-sessions", "2"], &[]);
    let streams: Vec<_> = (0..2).map(|_| legacy_stream(&server).expect("a legacy session")).collect();
    // Full of legacy sessions (never idle: each holds its stream), nothing makes room.
    let refused = server.post(&[], &initialize(json!({})));
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(legacy_stream(&server).err(), Some(503));
    drop(streams);
    // The server notices the streams' clients gone within a second or so.
    let deadline = Instant::now() + Duration::from_secs(10);
    let first = loop {
        let reply = server.post(&[], &initialize(json!({})));
        if reply.status == 200 {
            break reply.header("mcp-session-id").unwrap().to_owned();
        }
        assert!(Instant::now() < deadline, "the legacy sessions never ended: {}", reply.status);
        std::thread::sleep(Duration::from_millis(100));
    };
    // Full of idle Streamable HTTP sessions: a legacy one makes room, as a third would.
    let sessions = [first, server.session(json!({}))];
    let _legacy = legacy_stream(&server).expect("room made for a legacy session");
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let alive = sessions.iter().filter(|id| server.post(&[("Mcp-Session-Id", id)], &ping).status == 200).count();
    assert_eq!(alive, 1, "one cap: two sessions and a legacy one do not fit in 2");
}
