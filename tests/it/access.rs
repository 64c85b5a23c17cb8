//! Who may reach the HTTP server once it is reachable beyond loopback: CORS wildcards, the
//! `Host` header (one, well-formed, a known name), forwarded headers, the bearer scheme, the
//! secret files, and one session cap for every transport. Each test is an attack first.

use crate::raw_http::{connect, initialize, read_head, read_reply, write_request, Server, ACCEPT_BOTH, JSON};
use crate::support::{binary, refuses_to_start, run_binary, wait_for, TempDir, TIMEOUT};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// A token long enough to be accepted.
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// Starts `tinymcp --everything ARGS` (logging at info) and reads its stderr up to the line
/// that says where it listens: the server, and everything it logged before that line.
fn start_logged(args: &[&str], env: &[(&str, &str)]) -> (Server, String) {
    let mut command = Command::new(binary());
    command.arg("--everything").args(args).env("RUST_LOG", "tinymcp=info").env_remove("TINYMCP_TOKEN");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut before = String::new();
    let port = loop {
        let line = lines.next().and_then(Result::ok).unwrap_or_else(|| panic!("did not start:\n{before}"));
        if let Some((_, rest)) = line.split_once("listening on http://") {
            let authority = rest.split('/').next().unwrap();
            break authority.rsplit_once(':').unwrap().1.parse().unwrap();
        }
        before.push_str(&line);
        before.push('\n');
    };
    std::thread::spawn(move || lines.for_each(drop));
    (Server { child, port }, before)
}

/// A POST of `body` with the raw header lines `extra` (each `Name: value`), in that order.
fn post_raw(server: &Server, extra: &[&str], body: &Value) -> u16 {
    let body = body.to_string();
    let mut text = String::from("POST /mcp HTTP/1.1\r\nAccept: application/json, text/event-stream\r\n");
    text.push_str("Content-Type: application/json\r\n");
    for line in extra {
        text.push_str(line);
        text.push_str("\r\n");
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = connect(server.port);
    stream.write_all(text.as_bytes()).unwrap();
    read_reply(&mut BufReader::new(stream)).status
}

#[test]
fn a_wildcard_origin_needs_a_token_and_null_is_never_echoed() {
    // The drive-by: any web page would run tools on an unauthenticated server.
    let refused = refuses_to_start(&["--allow-origin", "*"], &[]);
    assert!(refused.contains("--allow-origin") && refused.contains("token"), "{refused}");
    let refused = refuses_to_start(&["--allow-origin", "null"], &[("TINYMCP_TOKEN", TOKEN)]);
    assert!(refused.contains("null"), "{refused}");
    // With a token, `*` lets any page in that holds the token; an opaque origin never.
    let server = Server::start(&["--allow-origin", "*"], &[("TINYMCP_TOKEN", TOKEN)]);
    let bearer = format!("Bearer {TOKEN}");
    let auth = ("Authorization", bearer.as_str());
    let body = initialize(json!({})).to_string();
    let null = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, auth, ("Origin", "null")], &body);
    assert_eq!(null.status, 403, "{}", null.body);
    assert_eq!(null.header("access-control-allow-origin"), None);
    let app = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, auth, ("Origin", "https://app.example")], &body);
    assert_eq!(app.status, 200, "{}", app.body);
    assert_eq!(app.header("access-control-allow-origin"), Some("https://app.example"));
    let anonymous = server.send("POST", "/mcp", &[ACCEPT_BOTH, JSON, ("Origin", "https://drive-by.evil")], &body);
    assert_eq!(anonymous.status, 401);
    // Documented.
    let help = String::from_utf8(run_binary(&["--help"]).stdout).unwrap();
    assert!(help.contains("'*'") && help.contains("--allow-host"), "{help}");
}

#[test]
fn a_repeated_forwarded_host_counts_the_proxys_value_last() {
    // The test connects from 127.0.0.1: the trusted proxy, which appends its own line.
    let server = Server::start(&["--trusted-proxy", "127.0.0.1"], &[]);
    let ping = initialize(json!({}));
    let proxied = |lines: &[&str]| {
        let mut all = vec!["Host: mcp_replicas", "X-Forwarded-Proto: http"];
        all.extend_from_slice(lines);
        post_raw(&server, &all, &ping)
    };
    let client_first = proxied(&["X-Forwarded-Host: localhost", "X-Forwarded-Host: evil.example"]);
    assert_eq!(client_first, 403, "the client's line must not win over the proxy's");
    assert_eq!(proxied(&["X-Forwarded-Host: localhost, evil.example"]), 403);
    assert_eq!(proxied(&["X-Forwarded-Host: evil.example, localhost"]), 200);
    assert_eq!(proxied(&["X-Forwarded-Host: evil.example", "X-Forwarded-Host: localhost"]), 200);
    let proto =
        proxied(&["X-Forwarded-Host: localhost:8080", "X-Forwarded-Proto: https", "Origin: https://localhost:8080"]);
    assert_eq!(proto, 200, "the proxy's X-Forwarded-Proto is the last too");
}

#[test]
fn two_hosts_or_a_host_with_userinfo_are_bad_requests() {
    let server = Server::start(&[], &[]);
    let ping = initialize(json!({}));
    assert_eq!(post_raw(&server, &["Host: localhost", "Host: evil.example"], &ping), 400);
    assert_eq!(post_raw(&server, &["Host: localhost:80@evil.com"], &ping), 400);
    for bad in ["Host: localhost/x", "Host: local host", "Host: [::1", "Host: localhost:8o"] {
        assert_eq!(post_raw(&server, &[bad], &ping), 400, "{bad}");
    }
    for good in ["Host: localhost", "Host: 127.0.0.1:8080", "Host: [::1]:80", "Host: LOCALHOST"] {
        assert_eq!(post_raw(&server, &[good], &ping), 200, "{good}");
    }
}

#[test]
fn the_bearer_scheme_is_case_insensitive_and_spaces_may_repeat() {
    let server = Server::start(&[], &[("TINYMCP_TOKEN", TOKEN)]);
    let body = initialize(json!({}));
    for scheme in ["bearer", "BEARER", "Bearer", "bEaReR"] {
        for gap in [" ", "  ", "\t", " \t "] {
            let line = format!("Authorization: {scheme}{gap}{TOKEN}");
            assert_eq!(post_raw(&server, &["Host: localhost", &line], &body), 200, "{line:?}");
        }
    }
    for wrong in [format!("Bearer{TOKEN}"), format!("Basic {TOKEN}"), format!("Bearer {TOKEN} x"), "Bearer".into()] {
        let line = format!("Authorization: {wrong}");
        assert_eq!(post_raw(&server, &["Host: localhost", &line], &body), 401, "{line:?}");
    }
}

#[cfg(unix)]
fn chmod(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(unix)]
#[test]
fn secret_files_are_checked_and_exposed_ones_warned_about() {
    let dir = TempDir::new("secrets");
    let loopback = ["--http", "127.0.0.1:0"];
    // Readable by others: served, with a warning naming the file and the fix.
    let open = dir.write("open.token", format!("{TOKEN}\n"));
    chmod(&open, 0o644);
    let (server, log) = start_logged(&[&loopback[..], &["--token-file", open.to_str().unwrap()]].concat(), &[]);
    assert!(log.contains(open.to_str().unwrap()) && log.contains("chmod 600"), "{log}");
    // One trailing newline (as `echo` writes) is not part of the token.
    let line = format!("Authorization: Bearer {TOKEN}");
    assert_eq!(post_raw(&server, &["Host: localhost", &line], &initialize(json!({}))), 200);
    drop(server);
    let key = dir.write("open.key", "5a".repeat(32));
    chmod(&key, 0o640);
    let (_server, log) = start_logged(&[&loopback[..], &["--state-key-file", key.to_str().unwrap()]].concat(), &[]);
    assert!(log.contains(key.to_str().unwrap()) && log.contains("chmod 600"), "{log}");
    // Private: no warning.
    let private = dir.write("private.token", TOKEN);
    chmod(&private, 0o600);
    let (_server, log) = start_logged(&[&loopback[..], &["--token-file", private.to_str().unwrap()]].concat(), &[]);
    assert!(!log.contains("chmod"), "{log}");
    // Refused, each with its reason.
    let short = dir.write("short.token", "fifteen-bytes!!");
    chmod(&short, 0o600);
    let err = refuses_to_start(&["--token-file", short.to_str().unwrap()], &[]);
    assert!(err.contains(short.to_str().unwrap()) && err.contains("16"), "{err}");
    let split = dir.write("split.token", format!("{TOKEN}\n{TOKEN}\n"));
    chmod(&split, 0o600);
    let err = refuses_to_start(&["--token-file", split.to_str().unwrap()], &[]);
    assert!(err.contains(split.to_str().unwrap()) && err.contains("line"), "{err}");
    let zero = dir.write("zero.key", "00".repeat(32));
    chmod(&zero, 0o600);
    let err = refuses_to_start(&["--state-key-file", zero.to_str().unwrap()], &[]);
    assert!(err.contains(zero.to_str().unwrap()) && err.contains("zero"), "{err}");
    let missing = dir.path().join("missing.token");
    let err = refuses_to_start(&["--token-file", missing.to_str().unwrap()], &[]);
    assert!(err.contains(missing.to_str().unwrap()) && err.contains("No such file"), "{err}");
    // The environment variable gets the same checks.
    let err = refuses_to_start(&[], &[("TINYMCP_TOKEN", "short")]);
    assert!(err.contains("TINYMCP_TOKEN") && err.contains("16"), "{err}");
    let err = refuses_to_start(&[], &[("TINYMCP_TOKEN", &format!("{TOKEN}\n{TOKEN}"))]);
    assert!(err.contains("TINYMCP_TOKEN") && err.contains("line"), "{err}");
}

#[test]
fn beyond_loopback_without_a_token_warns_and_host_is_checked() {
    let (server, log) = start_logged(&["--http", "0.0.0.0:0", "--allow-host", "mcp.example"], &[]);
    assert!(log.contains("WARN") && log.contains("no authentication") && log.contains("--token-file"), "{log}");
    // DNS rebinding: a page of evil.example whose name now points here, no Origin needed.
    assert_eq!(post_raw(&server, &["Host: evil.example"], &initialize(json!({}))), 403);
    assert_eq!(post_raw(&server, &["Host: evil.example:8080"], &initialize(json!({}))), 403);
    // Loopback names, the addresses it listens on, and the allowed names pass.
    for host in ["localhost", "127.0.0.1:8080", "10.1.2.3:8080", "[fe80::1]", "mcp.example", "MCP.example:443"] {
        let line = format!("Host: {host}");
        assert_eq!(post_raw(&server, &[&line], &initialize(json!({}))), 200, "{host}");
    }
    // With a token: no warning.
    let (_server, log) = start_logged(&["--http", "0.0.0.0:0"], &[("TINYMCP_TOKEN", TOKEN)]);
    assert!(!log.contains("no authentication"), "{log}");
}

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
    // The server notices each stream's client gone within a second or so, one at a time: a
    // busy machine may free the second slot well after the first.
    let open = || {
        wait_for("a legacy session to end", TIMEOUT, || {
            let reply = server.post(&[], &initialize(json!({})));
            (reply.status == 200).then(|| reply.header("mcp-session-id").unwrap().to_owned())
        })
    };
    // Full of idle Streamable HTTP sessions: a legacy one makes room, as a third would.
    let sessions = [open(), open()];
    let _legacy = legacy_stream(&server).expect("room made for a legacy session");
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let alive = sessions.iter().filter(|id| server.post(&[("Mcp-Session-Id", id)], &ping).status == 200).count();
    assert_eq!(alive, 1, "one cap: two sessions and a legacy one do not fit in 2");
}
