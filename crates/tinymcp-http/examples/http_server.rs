//! A server over Streamable HTTP: started on a port the OS picks, asked once by a plain HTTP
//! client, then stopped with every thread joined.
//!
//! `cargo run --example http_server` does that and prints the answer; with `-- --serve ADDR`
//! (say `127.0.0.1:8080`) it serves until interrupted, for a host or the MCP Inspector.

use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;
use tinymcp::{CallToolResult, Server, Tool};
use tinymcp_http::{HttpOptions, HttpServer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::new("clock", "1.0.0");
    server.register_tool(Tool::new("uptime", "Seconds since the server started", json!({"type": "object"})), {
        let started = std::time::Instant::now();
        move |_cx, _args| Ok(CallToolResult::text(started.elapsed().as_secs().to_string()))
    });
    let server = Arc::new(server);
    let mut args = std::env::args().skip_while(|a| a != "--serve").skip(1);
    if let Some(addr) = args.next() {
        // Only loopback clients by default; see `HttpOptions` for tokens and origins.
        HttpServer::start(server, &addr, HttpOptions::default())?.wait();
        return Ok(());
    }

    let http = HttpServer::start(Arc::clone(&server), "127.0.0.1:0", HttpOptions::default())?;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "example", "version": "0"}}
    })
    .to_string();
    let mut stream = TcpStream::connect(http.local_addr())?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        http.local_addr(),
        body.len()
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let status = answer.lines().next().unwrap_or_default().to_owned();
    let session = answer
        .lines()
        .find_map(|l| {
            l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id")).map(|(_, v)| v.trim())
        })
        .unwrap_or("(none)")
        .to_owned();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{status}; session {session}")?;
    writeln!(out, "{}", answer.split("\r\n\r\n").nth(1).unwrap_or_default())?;
    assert!(status.contains("200"), "{answer}");

    // Stop the transport first (no new requests), then the server's workers.
    http.shutdown();
    server.shutdown();
    Ok(())
}
