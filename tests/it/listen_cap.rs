//! The server-wide cap on open 2026-07-28 `subscriptions/listen` streams: every
//! client together holds at most `--max-listen-streams`; beyond, `-32603` (server busy; over
//! HTTP `503` with `Retry-After` and the JSON-RPC error, id echoed), and a stream that ends
//! gives its place back.

use crate::raw_http::{read_chunk, read_head, write_request, Server, ACCEPT_BOTH, JSON};
use crate::stateless::{meta, REV};
use crate::stateless_http::{body, post};
use crate::support::{check, wait_for, Client, TIMEOUT};
use serde_json::{json, Value};
use std::io::BufReader;
use std::net::TcpStream;

fn listen_params() -> Value {
    json!({"notifications": {"toolsListChanged": true}, "_meta": meta(json!({}))})
}

#[test]
fn listen_streams_beyond_the_server_wide_cap_are_refused_over_stdio_until_one_ends() {
    let mut c = Client::spawn(&["--everything", "--max-listen-streams", "2"]);
    c.revision = Some(REV.into());
    let first = c.send_request("subscriptions/listen", listen_params());
    c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    c.send_request("subscriptions/listen", listen_params());
    c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    let refused = c.request("subscriptions/listen", listen_params());
    check(&refused, json!({"error": {"code": -32603, "data": {"maxListenStreams": 2}}}));
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("--max-listen-streams"), "{refused}");
    // Other requests are unaffected.
    let tools = c.request("tools/list", json!({"_meta": meta(json!({}))}));
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    // A cancelled stream gives its place back.
    c.notify("notifications/cancelled", json!({"requestId": first, "_meta": meta(json!({}))}));
    c.send_request("subscriptions/listen", listen_params());
    c.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
}

/// Opens a listen stream on its own connection and reads its acknowledgement; the stream stays
/// open while the returned socket lives.
fn open_listen(server: &Server, id: u64) -> Result<BufReader<TcpStream>, (u16, String)> {
    let mut stream = server.connect();
    let text =
        body(id, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({})).to_string();
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", REV), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut stream, server.port, "POST", "/mcp", &headers, &text);
    let mut reader = BufReader::new(stream);
    let head = read_head(&mut reader);
    if head.status != 200 {
        return Err((head.status, head.header("retry-after").unwrap_or_default().to_owned()));
    }
    let chunk = read_chunk(&mut reader).expect("the acknowledgement");
    let event = String::from_utf8(chunk).expect("UTF-8");
    assert!(event.contains("notifications/subscriptions/acknowledged"), "{event}");
    Ok(reader)
}

#[test]
fn over_http_the_cap_counts_every_post_and_answers_503_with_the_json_rpc_error() {
    let server = Server::start(&["--max-listen-streams", "2"], &[]);
    let a = open_listen(&server, 1).expect("first stream");
    let _b = open_listen(&server, 2).expect("second stream");
    // Each POST is a connection of its own: the third is over the server-wide cap.
    let listen = body(3, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    let reply = post(&server, &listen, &[]);
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(reply.header("retry-after"), Some("5"));
    assert_eq!(reply.header("content-type"), Some("application/json"));
    check(
        &reply.json(),
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "data": {"maxListenStreams": 2}}}),
    );
    // Ordinary requests are served meanwhile.
    let tools = post(&server, &body(4, "tools/list", json!({}), json!({})), &[]);
    assert_eq!(tools.status, 200, "{}", tools.body);
    // The client that hangs up frees its place within about a second.
    drop(a);
    let _c = wait_for("a listen stream's place to be freed", TIMEOUT, || match open_listen(&server, 5) {
        Ok(stream) => Some(stream),
        Err((503, retry)) => {
            assert_eq!(retry, "5");
            None
        }
        Err(other) => panic!("no place freed: {other:?}"),
    });
}
