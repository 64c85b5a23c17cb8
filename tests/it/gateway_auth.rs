//! The gateway's own credentials at its remote upstreams (features `gateway` and `oauth`):
//! OAuth client credentials to a `tinymcp --http --oauth-issuer` behind a real OpenID provider
//! (the one connect_auth.rs runs), static headers from the environment, a wrong or missing
//! secret; and what the gateway never does: pass its caller's token upstream.

use crate::connect_auth::oauth::{upstream, CLIENT_ID};
use crate::connect_auth::SECRET;
use crate::gateway::{as_holder, config_file, healthz, http_gateway_with};
use crate::support::{binary, run_binary_in, tool_text, wait_for, Client, TIMEOUT};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// The upstream through the OpenID provider: `oauth` of a url upstream, the secret in `IT_GW_SECRET`.
fn oauth_config(url: &str) -> Value {
    json!({"upstreams": {"secure": {"url": url,
        "oauth": {"client_id": CLIENT_ID, "client_secret_env": "IT_GW_SECRET", "scope": "mcp:use"}}}})
}

/// The gateway gets a token from the upstream's authorization server (found from its 401) and
/// lists and calls its tools, namespaced; the secret is never logged.
#[test]
fn client_credentials_reach_an_oauth_upstream_through_the_gateway() {
    let Some(upstream) = upstream() else { return };
    let (_dir, config) = config_file(&oauth_config(&upstream.url));
    let mut client =
        Client::spawn_keeping_stderr_with_env(&["gateway", "--config", &config], &[("IT_GW_SECRET", SECRET)]);
    client.initialize("2025-11-25", json!({}));
    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools listed");
    assert!(tools.iter().any(|t| t["name"] == "secure__echo"), "{listed}");
    let called = client.call_tool("secure__echo", json!({"message": "through the gateway"}));
    assert_eq!(tool_text(&called), "Echo: through the gateway", "{called}");
    let log = client.close_keeping_stderr();
    assert!(log.contains("access token obtained"), "{log}");
    assert!(!log.contains(SECRET), "the client secret was logged: {log}");
    assert!(!log.contains("eyJ"), "a token was logged: {log}");
}

/// A secret the provider refuses: the upstream is down, `/healthz` says the provider refused
/// the client and names the variable to fix; the secret is in neither.
#[test]
fn a_wrong_client_secret_leaves_the_upstream_down_saying_why() {
    let Some(upstream) = upstream() else { return };
    let (_dir, config) = config_file(&oauth_config(&upstream.url));
    let gateway = http_gateway_with(&config, &[], &[("IT_GW_SECRET", "not-the-secret")]);
    let health = wait_for("the upstream down", TIMEOUT, || {
        let health = healthz(&gateway);
        health.contains("upstream secure: down").then_some(health)
    });
    assert!(health.contains("invalid_client") && health.contains("IT_GW_SECRET"), "{health}");
    assert!(!health.contains("not-the-secret"), "{health}");
}

/// The secret's variable not set: refused at start, naming the key and the variable.
#[test]
fn a_missing_client_secret_variable_is_refused_at_start() {
    let (_dir, config) = config_file(&oauth_config("http://127.0.0.1:1/mcp"));
    let out = run_binary_in(&["gateway", "--config", &config], None, &[("IT_GW_SECRET", None)]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("upstreams.secure.oauth.client_secret_env") && stderr.contains("IT_GW_SECRET"), "{stderr}");
}

/// A Streamable HTTP upstream that records the head of every request it gets; its one tool,
/// `whoami`, answers the `Authorization` header its call came with (`none`).
struct Recorder {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    fn start() -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&heads);
        // Serves until the test process ends; each answer closes its connection.
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || Recorder::serve(stream, &kept));
            }
        });
        Recorder { port, heads }
    }

    fn serve(stream: TcpStream, heads: &Mutex<Vec<String>>) {
        let mut reader = BufReader::new(&stream);
        let mut head = String::new();
        while reader.read_line(&mut head).is_ok_and(|n| n > 2) {}
        let header = |name: &str| {
            head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
        };
        let length = header("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
        let mut body = vec![0; length];
        let _ = reader.read_exact(&mut body);
        heads.lock().unwrap().push(head.clone());
        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
        let result = match message["method"].as_str() {
            _ if !head.starts_with("POST ") => return Recorder::answer(&stream, "405 Method Not Allowed", ""),
            Some(_) if message.get("id").is_none() => return Recorder::answer(&stream, "202 Accepted", ""),
            Some("initialize") => json!({"protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "recorder", "version": "1"}}),
            Some("tools/list") => json!({"tools": [{"name": "whoami",
                "description": "The Authorization header this call came with", "inputSchema": {"type": "object"}}]}),
            Some("tools/call") => {
                let said = header("authorization").unwrap_or_else(|| "none".to_owned());
                json!({"content": [{"type": "text", "text": said}]})
            }
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string();
        Recorder::answer(&stream, "200 OK", &answer);
    }

    fn answer(mut stream: &TcpStream, status: &str, body: &str) {
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

/// The gateway under OAuth: its caller's token is checked there and goes no further: the
/// upstream gets the gateway's own header (from the environment) and no `Authorization`.
#[test]
fn the_callers_token_never_reaches_the_upstream() {
    use crate::oauth_issuer::{jwk, Issuer, AUDIENCE};
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let recorder = Recorder::start();
    let (_dir, config) = config_file(&json!({"upstreams": {"rec": {
        "url": format!("http://127.0.0.1:{}/mcp", recorder.port), "headers": {"X-Upstream-Key": "${IT_UP_KEY}"}}}}));
    let oauth = ["--oauth-issuer", &issuer.url, "--public-url", AUDIENCE, "--oauth-scope", "mcp:use"];
    let gateway = http_gateway_with(&config, &oauth, &[("IT_UP_KEY", "up-key-1234")]);
    let token = issuer.token("k1", 1, json!({"scope": "mcp:use", "sub": "alice"}));
    let (names, call) = as_holder(&gateway, &token, "rec__whoami", json!({}));
    assert_eq!(names, ["rec__whoami"]);
    assert_eq!(call.json()["result"]["content"][0]["text"], "none", "{}", call.body);
    let heads = recorder.heads();
    assert!(heads.iter().any(|h| h.starts_with("POST ")), "{heads:?}");
    for head in &heads {
        assert!(!head.contains(&token) && !head.to_ascii_lowercase().contains("authorization:"), "{head}");
        assert!(head.contains("X-Upstream-Key: up-key-1234"), "{head}");
    }
}

/// Under OAuth the audit line names the caller by its token's subject (`sub`); a token without
/// one is `anonymous`.
#[test]
fn the_audit_line_names_the_callers_token_subject() {
    use crate::oauth_issuer::{jwk, Issuer, AUDIENCE};
    use crate::support::TempDir;
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let dir = TempDir::new("gateway-audit-subject");
    let audit = dir.path().join("audit.log");
    let (_dir, config) = config_file(&json!({"audit": audit, "upstreams": {
        "tiny": {"command": binary(), "args": ["--everything"], "tools": {"allow": ["echo"]}}}}));
    let oauth = ["--oauth-issuer", &issuer.url, "--public-url", AUDIENCE, "--oauth-scope", "mcp:use"];
    let gateway = http_gateway_with(&config, &oauth, &[]);
    let alice = issuer.token("k1", 1, json!({"scope": "mcp:use", "sub": "alice@example.com"}));
    let (_, call) = as_holder(&gateway, &alice, "tiny__echo", json!({"message": "audited"}));
    assert_eq!(call.json()["result"]["content"][0]["text"], "Echo: audited", "{}", call.body);
    let nobody = issuer.token("k1", 1, json!({"scope": "mcp:use"}));
    as_holder(&gateway, &nobody, "tiny__echo", json!({"message": "unnamed"}));
    let lines: Vec<Value> = wait_for("two audit lines", TIMEOUT, || {
        let text = std::fs::read_to_string(&audit).ok()?;
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        (lines.len() == 2).then_some(lines)
    });
    assert_eq!(lines[0]["caller"], "alice@example.com", "{}", lines[0]);
    assert_eq!(lines[1]["caller"], "anonymous", "{}", lines[1]);
}
