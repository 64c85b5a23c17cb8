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
pub(crate) const SECRET: &str = "s3cret-9f8e7d6c5b4a-never-logged";

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

/// OAuth client credentials against a resource and authorization server in the test (feature
/// `https`: without it the flags are refused, below).
#[cfg(feature = "https")]
mod in_test {
    use crate::support::{tool_text, Client};
    use serde_json::{json, Value};
    use std::collections::HashSet;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::thread;

    /// A resource server and its authorization server in one listener, as small as the test needs:
    /// `/mcp` speaks just enough Streamable HTTP (JSON answers, no session) and takes only the tokens
    /// in `accepted`, answering 401 without `resource_metadata` otherwise (the well-known path is
    /// used); `/other`'s metadata names a resource elsewhere; `/token` hands out `tok-1`, `tok-2`…
    /// to `client_secret_post`, keeping each request's body.
    struct FakeServers {
        port: u16,
        accepted: Arc<Mutex<HashSet<String>>>,
        token_requests: Arc<Mutex<Vec<String>>>,
    }

    impl FakeServers {
        fn start() -> FakeServers {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let accepted = Arc::new(Mutex::new(HashSet::new()));
            let token_requests = Arc::new(Mutex::new(Vec::new()));
            let (tokens, bodies) = (Arc::clone(&accepted), Arc::clone(&token_requests));
            thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { return };
                    let (tokens, bodies) = (Arc::clone(&tokens), Arc::clone(&bodies));
                    thread::spawn(move || serve_one(stream, port, &tokens, &bodies));
                }
            });
            FakeServers { port, accepted, token_requests }
        }

        fn url(&self, path: &str) -> String {
            format!("http://127.0.0.1:{}{path}", self.port)
        }
    }

    fn serve_one(stream: TcpStream, port: u16, tokens: &Mutex<HashSet<String>>, bodies: &Mutex<Vec<String>>) {
        let origin = format!("http://127.0.0.1:{port}");
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        while reader.read_line(&mut head).is_ok_and(|n| n > 2) {}
        let header = |name: &str| {
            head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
        };
        let length = header("content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
        let mut body = vec![0; length];
        let _ = reader.read_exact(&mut body);
        let mut words = head.split(' ');
        let (method, target) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
        let (status, json) = match (method, target) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => {
                ("200 OK", json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]}))
            }
            ("GET", "/.well-known/oauth-protected-resource/other") => {
                ("200 OK", json!({"resource": "http://elsewhere.example/mcp", "authorization_servers": [origin]}))
            }
            ("GET", "/.well-known/oauth-authorization-server") => (
                "200 OK",
                json!({"issuer": origin, "token_endpoint": format!("{origin}/token"),
                       "token_endpoint_auth_methods_supported": ["client_secret_post"]}),
            ),
            ("POST", "/token") => {
                let mut bodies = bodies.lock().unwrap();
                bodies.push(String::from_utf8_lossy(&body).into_owned());
                let token = format!("tok-{}", bodies.len());
                tokens.lock().unwrap().insert(token.clone());
                ("200 OK", json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600}))
            }
            ("GET", "/mcp") => ("405 Method Not Allowed", json!({})),
            ("POST", "/mcp") => {
                let token = header("authorization").and_then(|v| v.strip_prefix("Bearer ").map(str::to_owned));
                match token.filter(|t| tokens.lock().unwrap().contains(t)) {
                    None => ("401 Unauthorized", Value::Null),
                    Some(token) => {
                        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
                        let result = match message["method"].as_str() {
                            Some("initialize") => {
                                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                                         "serverInfo": {"name": "fake", "version": "0"}})
                            }
                            Some("tools/call") => {
                                json!({"content": [{"type": "text", "text": format!("called with {token}")}]})
                            }
                            _ => Value::Null,
                        };
                        match message.get("id") {
                            Some(id) => ("200 OK", json!({"jsonrpc": "2.0", "id": id, "result": result})),
                            None => ("202 Accepted", Value::Null),
                        }
                    }
                }
            }
            _ => ("401 Unauthorized", Value::Null),
        };
        let text = if json.is_null() { String::new() } else { json.to_string() };
        let challenge =
            if status.starts_with("401") { "WWW-Authenticate: Bearer error=\"invalid_token\"\r\n" } else { "" };
        let answer = format!(
            "HTTP/1.1 {status}\r\n{challenge}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        );
        let _ = reader.get_mut().write_all(answer.as_bytes());
    }

    /// The first 401 discovers (the well-known path) and gets a token; a 401 while a token is held
    /// (revoked at the server) gets another, and the request is sent once more: the host sees
    /// neither. The token request carries `resource` and the scope, the client's id and secret
    /// form-encoded (`client_secret_post`, as the metadata says).
    #[test]
    fn a_401_gets_a_new_token_and_the_request_is_sent_once_more() {
        let servers = FakeServers::start();
        let url = servers.url("/mcp");
        let args = ["connect", "--oauth-client-id", "my client", "--oauth-client-secret-env", "IT_SECRET"];
        let args = [&args[..], &["--oauth-scope", "mcp:use", &url]].concat();
        let mut host = Client::spawn_keeping_stderr_with_env(&args, &[("IT_SECRET", "p&ss")]);
        host.initialize("2025-11-25", json!({}));
        assert_eq!(tool_text(&host.call_tool("echo", json!({}))), "called with tok-1");
        servers.accepted.lock().unwrap().remove("tok-1");
        assert_eq!(tool_text(&host.call_tool("echo", json!({}))), "called with tok-2");
        let bodies = servers.token_requests.lock().unwrap().clone();
        let resource = format!("http%3A%2F%2F127.0.0.1%3A{}%2Fmcp", servers.port);
        let expected = format!(
            "grant_type=client_credentials&resource={resource}&scope=mcp%3Ause&client_id=my+client&client_secret=p%26ss"
        );
        assert_eq!(bodies, [expected.clone(), expected]);
        let log = host.close_keeping_stderr();
        assert!(!log.contains("p&ss") && !log.contains("Bearer tok-"), "a secret was logged: {log}");

        // Metadata for a resource on another origin is not used: a token for it would come here.
        let mut host = Client::spawn_with_env(
            &[&args[..args.len() - 1], &[&servers.url("/other")]].concat(),
            &[("IT_SECRET", "p&ss")],
        );
        let refused = host.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
        );
        let why = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(why.contains("elsewhere.example") && why.contains("refused"), "{refused}");
        assert_eq!(servers.token_requests.lock().unwrap().len(), 2, "no token asked for it");
    }
}

#[cfg(not(feature = "https"))]
#[test]
fn client_credentials_are_refused_without_https_saying_why() {
    let out = crate::support::run_binary_in(
        &["connect", "--oauth-client-id", "cid", "--oauth-client-secret-env", "IT_SECRET", "http://127.0.0.1:1/mcp"],
        None,
        &[("IT_SECRET", Some(SECRET))],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("need a build with HTTPS") && !stderr.contains(SECRET), "{stderr}");
}

/// Also the gateway's test of its OAuth upstreams (gateway_auth.rs) runs these.
#[cfg(feature = "oauth")]
pub(crate) mod oauth {
    use super::SECRET;
    use crate::support::{announced_port_keeping_log, binary, tool_text, wait_until, Client, TIMEOUT};
    use serde_json::{json, Value};
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::path::Path;
    use std::process::{Child, Command, Stdio};

    pub(crate) const CLIENT_ID: &str = "tinymcp-upstream";

    /// The OpenID provider and a `tinymcp --http` that takes its tokens, killed when dropped.
    pub(crate) struct Upstream {
        issuer: Child,
        server: Child,
        pub(crate) url: String,
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
    pub(crate) fn upstream() -> Option<Upstream> {
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
