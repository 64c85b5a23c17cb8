//! `tinymcp connect`'s credentials for a remote server: static headers whose values come from
//! the environment (`--header-env`), and OAuth client credentials (feature `oauth`) obtained
//! from the server's own authorization server, a real OpenID provider (oidc-provider, as the
//! interop test runs it: tests/interop/oidc_issuer.mjs), in front of a `tinymcp --http
//! --oauth-issuer` that checks them.

use crate::support::{Client, TIMEOUT};
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;

/// A secret that must reach the server and never the log.
const SECRET: &str = "s3cret-9f8e7d6c5b4a-never-logged";

/// A listener that records the head of the first request and answers it 401, as a server that
/// wants a credential it did not get would.
fn recording_listener() -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else { return };
        let mut seen = Vec::new();
        let mut byte = [0; 1];
        while !seen.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
            seen.push(byte[0]);
        }
        let _ = tx.send(String::from_utf8_lossy(&seen).to_ascii_lowercase());
        let _ = stream.write_all(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    (port, rx)
}

/// `--header-env Name=VAR`: the value is read from VAR, sent, and never logged (the client runs
/// at RUST_LOG=trace).
#[test]
fn a_header_value_comes_from_the_environment_and_is_never_logged() {
    let (port, heads) = recording_listener();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let args = ["connect", "--transport", "http", "--header-env", "X-Api-Key=IT_API_KEY", &url];
    let mut host = Client::spawn_keeping_stderr_with_env(&args, &[("IT_API_KEY", SECRET)]);
    let refused = host.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("401"), "{refused}");
    let head = heads.recv_timeout(TIMEOUT).expect("the request reached the listener");
    assert!(head.contains(&format!("x-api-key: {SECRET}")), "{head}");
    let log = host.close_keeping_stderr();
    assert!(log.contains("TRACE") || log.contains("DEBUG"), "logging at trace: {log}");
    assert!(!log.contains(SECRET), "the header's value was logged: {log}");
}

/// A variable that is not set is refused at start, naming it; a value cannot be written on the
/// command line with `--header-env`.
#[test]
fn a_missing_header_variable_is_refused_at_start_naming_it() {
    let out = crate::support::run_binary(&[
        "connect",
        "--header-env",
        "X-Api-Key=IT_UNSET_KEY_VAR",
        "http://127.0.0.1:1/mcp",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("IT_UNSET_KEY_VAR") && stderr.contains("not set"), "{stderr}");
    let out = crate::support::run_binary(&["connect", "--header-env", "X-Api-Key", "http://127.0.0.1:1/mcp"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected 'Name=VAR'"), "{out:?}");
}

#[cfg(feature = "oauth")]
mod oauth {
    use super::SECRET;
    use crate::support::{announced_port_keeping_log, binary, tool_text, wait_until, Client, TIMEOUT};
    use serde_json::{json, Value};
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::path::Path;
    use std::process::{Child, Command, Stdio};

    const CLIENT_ID: &str = "tinymcp-upstream";

    /// The OpenID provider and a `tinymcp --http` that takes its tokens, killed when dropped.
    struct Upstream {
        issuer: Child,
        server: Child,
        url: String,
    }

    impl Drop for Upstream {
        fn drop(&mut self) {
            for child in [&mut self.issuer, &mut self.server] {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }

    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    /// `None` (said on stderr) where scripts/deps.sh has not installed node and oidc-provider.
    fn upstream() -> Option<Upstream> {
        let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let node = top.join(".cache/npm/node_modules/.bin/node");
        let oidc = top.join(".cache/oidc/node_modules/oidc-provider");
        if !node.exists() || !oidc.exists() {
            let why = "connect_auth: skipped: node and oidc-provider are not in .cache (run scripts/deps.sh)";
            let _ = writeln!(std::io::stderr(), "{why}");
            return None;
        }
        let mut issuer = Command::new(node)
            .arg(top.join("tests/interop/oidc_issuer.mjs"))
            .args([free_port().to_string().as_str(), CLIENT_ID, SECRET])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the OpenID provider");
        let said = BufReader::new(issuer.stdout.take().unwrap())
            .lines()
            .map_while(Result::ok)
            .find(|l| l.starts_with("issuer "));
        let issuer_url = said.expect("the provider said where it listens")["issuer ".len()..].to_owned();
        let port = free_port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let mut server = Command::new(binary())
            .args(["--everything", "--http", &format!("127.0.0.1:{port}")])
            .args(["--oauth-issuer", &issuer_url, "--public-url", &url, "--oauth-scope", "mcp:use"])
            // Expired means expired: the bridge must not lean on the server's leeway.
            .args(["--oauth-leeway-ms", "1"])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the upstream server");
        let (announced, _log) = announced_port_keeping_log(&mut server);
        assert_eq!(announced, port);
        Some(Upstream { issuer, server, url })
    }

    fn connect(upstream: &Upstream, client_id: &str, secret: &str) -> Client {
        let args =
            ["connect", "--oauth-client-id", client_id, "--oauth-client-secret-env", "IT_CLIENT_SECRET", &upstream.url];
        Client::spawn_keeping_stderr_with_env(&args, &[("IT_CLIENT_SECRET", secret)])
    }

    /// The 401 names the protected-resource metadata, which names the provider; the bridge gets
    /// a token for the server's URL with the client's credentials and sends the request again.
    #[test]
    fn client_credentials_from_the_servers_authorization_server_list_and_call_tools() {
        let Some(upstream) = upstream() else { return };
        let mut host = connect(&upstream, CLIENT_ID, SECRET);
        let init = host.initialize("2025-11-25", json!({}));
        assert_eq!(init["protocolVersion"], "2025-11-25");
        let listed = host.request("tools/list", json!({}));
        let tools = listed["result"]["tools"].as_array().expect("tools listed");
        assert!(tools.iter().any(|t| t["name"] == "echo"), "{listed}");
        assert_eq!(tool_text(&host.call_tool("echo", json!({"message": "with a token"}))), "Echo: with a token");
        let log = host.close_keeping_stderr();
        assert!(log.contains("access token obtained"), "{log}");
        assert!(!log.contains(SECRET), "the client secret was logged: {log}");
        // A token (a JWT) never appears in the log: none of its parts does.
        assert!(!log.contains("eyJ"), "a token was logged: {log}");
    }

    /// A wrong secret: the host's initialize fails saying the provider refused the client.
    #[test]
    fn a_wrong_client_secret_fails_saying_so() {
        let Some(upstream) = upstream() else { return };
        let mut host = connect(&upstream, CLIENT_ID, "not-the-secret");
        let refused = host.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
        );
        let why = refused["error"]["message"].as_str().unwrap_or_default().to_owned();
        assert!(why.contains("invalid_client") && why.contains("IT_CLIENT_SECRET"), "{refused}");
        let log = host.close_keeping_stderr();
        assert!(!log.contains("not-the-secret"), "the client secret was logged: {log}");
    }

    /// Tokens of `CLIENT_ID-short` live one second: a session that outlives one gets another
    /// before it expires (or on the server's 401), and every call goes through.
    #[test]
    fn a_token_that_expires_mid_session_is_renewed() {
        let Some(upstream) = upstream() else { return };
        let mut host = connect(&upstream, &format!("{CLIENT_ID}-short"), SECRET);
        host.initialize("2025-11-25", json!({}));
        let obtained = |host: &Client| host.stderr_text().matches("access token obtained").count();
        assert_eq!(obtained(&host), 1);
        let mut calls = 0;
        wait_until("a second token", TIMEOUT, || {
            calls += 1;
            let answer: Value = host.call_tool("echo", json!({"message": format!("call {calls}")}));
            assert_eq!(tool_text(&answer), format!("Echo: call {calls}"), "{answer}");
            obtained(&host) >= 2
        });
        let log = host.close_keeping_stderr();
        assert!(!log.contains(SECRET), "{log}");
    }
}
