//! The mutation fuzzer against the real binary: the seeds (a request of every
//! method for every tool, prompt, resource and template `--everything` and a served folder
//! list, on both eras) mutated and written to its stdin, and POSTed to `/mcp` (with, now and
//! then, the request head mutated too). After each message a `ping` must be answered, and
//! every message the server sends must be valid JSON-RPC. The mutator, corpus and check are
//! the in-process fuzzers' own (the library's `util/fuzz.rs`, which its and the binary's unit
//! tests use too); `TINYMCP_FUZZ_ROUNDS` runs longer (`scripts/fuzz.sh`), and a failure
//! names its round, which replays.

use tinymcp::fuzz_support as mutation;

use crate::raw_http::{read_reply, sse_events, write_request, Server, ACCEPT_BOTH, JSON};
use crate::stateless::{meta, REV};
use crate::support::{Client, TempDir};
use mutation::{corpus, rounds, valid_jsonrpc, Mutator, JSON_TOKENS};
use serde_json::{json, Value};
use std::io::{BufReader, Write};
use std::time::{Duration, Instant};

/// The served folder the corpus names: `a.txt` and `sub/b.md`.
fn folder() -> TempDir {
    let dir = TempDir::new("fuzz-binary");
    dir.write("a.txt", "alpha\nbeta\n");
    dir.write("sub/b.md", "# b\n");
    dir
}

/// Every seed, and each request of it again on the per-request era (2026-07-28 `_meta`).
fn both_eras(seeds: Vec<String>) -> Vec<String> {
    let mut all = seeds.clone();
    for seed in seeds {
        let Ok(mut message) = serde_json::from_str::<Value>(&seed) else { continue };
        if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
            params.insert("_meta".into(), meta(json!({"sampling": {}, "elicitation": {}, "roots": {}})));
            all.push(message.to_string());
        }
    }
    all
}

#[test]
fn mutated_messages_on_stdio_to_the_binary() {
    let dir = folder();
    let mut client = Client::spawn(&["--everything", "--root", dir.arg(), "--no-watch"]);
    client.initialize("2025-11-25", json!({"sampling": {}, "elicitation": {}, "roots": {}}));
    // Mutated requests get error answers no schema names; validity is checked here instead.
    client.revision = None;
    let root = dir.path().display().to_string();
    let seeds = both_eras(corpus(&root, |method, key| {
        let answer = client.request(method, json!({}));
        answer["result"][key].as_array().cloned().unwrap_or_default()
    }));
    assert!(seeds.len() > 80, "{} seeds", seeds.len());
    let mut mutator = Mutator::with_tokens(0x7374_6469, JSON_TOKENS);
    for round in 0..rounds(1000) {
        let text = mutator.round_text(&seeds, round);
        // A line break inside makes two messages of it, which is fine; the ping follows them.
        client.send_line(&text);
        let ping = format!("ping-{round}");
        client.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}));
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(message) = client.next_message(left) else {
                panic!("round {round}: no answer to ping within 10 s after {text:?}");
            };
            if let Err(why) = valid_jsonrpc(&message) {
                panic!("round {round}: {why}: {message} (after {text:?})");
            }
            if let (Some(_), Some(id)) = (message.get("method"), message.get("id")) {
                // The server asks something (sampling, elicitation, roots): refuse.
                client.send(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}));
            } else if message.get("id") == Some(&json!(ping)) {
                break;
            }
        }
    }
}

/// The headers a body needs to reach its handler: the session (handshake era) or the
/// SEP-2243 routing headers (per-request era), read from the body when it still parses.
fn headers_for(body: &str, session: &str) -> Vec<(String, String)> {
    let mut headers = vec![("Mcp-Session-Id".to_owned(), session.to_owned())];
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let per_request = parsed
        .as_ref()
        .and_then(|m| m.pointer("/params/_meta"))
        .is_some_and(|m| m.get("io.modelcontextprotocol/protocolVersion").is_some());
    if let (true, Some(message)) = (per_request, &parsed) {
        headers.clear();
        headers.push(("MCP-Protocol-Version".into(), REV.into()));
        if let Some(method) = message["method"].as_str() {
            headers.push(("Mcp-Method".into(), method.into()));
        }
        let name = message["params"]["name"].as_str().or(message["params"]["uri"].as_str());
        if let Some(name) = name.filter(|n| n.is_ascii() && !n.contains(['\r', '\n'])) {
            headers.push(("Mcp-Name".into(), name.into()));
        }
    } else {
        headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    }
    headers
}

/// Whether an HTTP answer body is what it should be: empty, JSON-RPC, or SSE events of it.
fn check_answer(round: usize, text: &str, content_type: Option<&str>, body: &str) {
    let messages: Vec<Value> = match content_type {
        Some("application/json") => vec![serde_json::from_str(body).unwrap_or_else(|e| {
            panic!("round {round}: a JSON answer that is not JSON ({e}): {body} (after {text:?})")
        })],
        Some("text/event-stream") => sse_events(body).into_iter().map(|(_, m)| m).collect(),
        _ => Vec::new(),
    };
    for message in messages {
        if let Err(why) = valid_jsonrpc(&message) {
            panic!("round {round}: {why}: {message} (after {text:?})");
        }
    }
}

#[test]
fn mutated_messages_over_http_to_the_binary() {
    let dir = folder();
    let server = Server::start(&["--root", dir.arg(), "--no-watch"], &[]);
    let session = server.session(json!({}));
    let root = dir.path().display().to_string();
    let list_headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let seeds = both_eras(corpus(&root, |method, key| {
        let reply = server.post(&list_headers, &json!({"jsonrpc": "2.0", "id": 1, "method": method}));
        let answer = match reply.header("content-type") {
            Some("text/event-stream") => reply.events().pop().map(|(_, m)| m).unwrap_or_default(),
            _ => reply.json(),
        };
        answer["result"][key].as_array().cloned().unwrap_or_default()
    }));
    let mut bodies = Mutator::with_tokens(0x6874_7470, JSON_TOKENS);
    let mut heads = Mutator::new(0x6865_6164);
    let mut session = session;
    for round in 0..rounds(600) {
        let text = bodies.round_text(&seeds, round);
        let headers = headers_for(&text, &session);
        let mut all: Vec<(&str, &str)> = vec![ACCEPT_BOTH, JSON];
        all.extend(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let mut stream = server.connect();
        if heads.below(8) == 0 {
            // The whole request, head too, mutated: written, and the connection dropped (an
            // answer may never come for a head that now declares more body than it has).
            let mut raw = Vec::new();
            let mut request = std::io::Cursor::new(&mut raw);
            let _ = write!(request, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", server.port);
            for (k, v) in &all {
                let _ = write!(request, "{k}: {v}\r\n");
            }
            let _ = write!(request, "Content-Length: {}\r\n\r\n{text}", text.len());
            let _ = stream.write_all(&heads.mutate(&raw));
        } else {
            write_request(&mut stream, server.port, "POST", "/mcp", &all, &text);
            let reply = read_reply(&mut BufReader::new(stream));
            assert!((200..600).contains(&reply.status), "round {round}: status {}", reply.status);
            check_answer(round, &text, reply.header("content-type"), &reply.body);
        }
        // Still serving: a ping on the session is answered (a new session if that one ended).
        let ping = json!({"jsonrpc": "2.0", "id": format!("ping-{round}"), "method": "ping"});
        let reply = server.post(&[("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "2025-11-25")], &ping);
        if reply.status == 404 {
            session = server.session(json!({}));
            continue;
        }
        assert_eq!(reply.status, 200, "round {round}: ping answered {} after {text:?}", reply.body);
        let answer = match reply.header("content-type") {
            Some("text/event-stream") => reply.events().pop().map(|(_, m)| m).unwrap_or_default(),
            _ => reply.json(),
        };
        assert_eq!(answer["result"], json!({}), "round {round}: {answer} after {text:?}");
    }
}
