//! The binary with `--oauth-issuer` (feature `oauth`): a tiny authorization server in the test
//! process publishes metadata and a key set over loopback HTTP; tokens are JWTs the test signs.
//! Key rotation, the refetch rate limit, audience and scope.

use crate::raw_http::{initialize, Server, ACCEPT_BOTH, JSON};
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) const AUDIENCE: &str = "https://mcp.example.com/mcp";

/// URL-safe base64 without padding (RFC 7515 §2).
fn b64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

pub(crate) fn jwk(kid: &str, seed: u8) -> Value {
    json!({"kty": "OKP", "crv": "Ed25519", "kid": kid, "use": "sig", "x": b64(key(seed).verifying_key().as_bytes())})
}

/// An authorization server on loopback: its metadata, and whatever key set `keys` holds now.
pub(crate) struct Issuer {
    pub(crate) url: String,
    keys: Arc<Mutex<Value>>,
    /// How many times the key set was fetched.
    fetches: Arc<AtomicUsize>,
}

impl Issuer {
    pub(crate) fn start(keys: Value) -> Issuer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let (keys, fetches) = (Arc::new(Mutex::new(keys)), Arc::new(AtomicUsize::new(0)));
        let (served, counted, issuer) = (Arc::clone(&keys), Arc::clone(&fetches), url.clone());
        // Serves until the test process ends; each answer closes its connection.
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let mut reader = BufReader::new(&stream);
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {}
                let (status, body) = match path.as_str() {
                    "/.well-known/oauth-authorization-server" => {
                        ("200 OK", json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}).to_string())
                    }
                    "/jwks" => {
                        counted.fetch_add(1, Ordering::SeqCst);
                        ("200 OK", served.lock().unwrap().to_string())
                    }
                    _ => ("404 Not Found", String::new()),
                };
                let mut stream = &stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Issuer { url, keys, fetches }
    }

    /// A token for `AUDIENCE` (unless `claims` says otherwise) signed by the key `seed` as `kid`.
    pub(crate) fn token(&self, kid: &str, seed: u8, claims: Value) -> String {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let mut all = json!({"iss": self.url, "aud": AUDIENCE, "exp": now + 300, "iat": now, "scope": "mcp:use"});
        for (k, v) in claims.as_object().unwrap() {
            all[k] = v.clone();
        }
        let header = json!({"alg": "EdDSA", "kid": kid, "typ": "at+jwt"});
        let signed = format!("{}.{}", b64(header.to_string().as_bytes()), b64(all.to_string().as_bytes()));
        let signature = key(seed).sign(signed.as_bytes());
        format!("{signed}.{}", b64(&signature.to_bytes()))
    }

    fn serve(&self, extra: &[&str]) -> Server {
        let args =
            [&["--oauth-issuer", &self.url, "--public-url", AUDIENCE, "--oauth-scope", "mcp:use"], extra].concat();
        Server::start(&args, &[])
    }
}

fn initialize_with(server: &Server, token: &str) -> u16 {
    let auth = format!("Bearer {token}");
    server.post(&[("Authorization", &auth)], &initialize(json!({}))).status
}

/// Spec (authorization, token handling): a token the issuer signed for this server passes;
/// one for another audience, without the scope, expired or signed by another key does not.
#[test]
fn tokens_are_checked_against_the_issuers_published_keys() {
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let server = issuer.serve(&[]);
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({}))), 200);
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({"aud": "https://other.example.com"}))), 401);
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({"iss": "https://evil.example.com"}))), 401);
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({"exp": 1_000_000_000}))), 401);
    assert_eq!(initialize_with(&server, &issuer.token("k1", 2, json!({}))), 401, "another key, same kid");
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({"scope": "profile"}))), 403);
    let metadata = server.send("GET", "/.well-known/oauth-protected-resource/mcp", &[], "");
    assert_eq!(metadata.json()["authorization_servers"], json!([issuer.url]));
}

/// A key the issuer starts signing with is fetched when a token first names it.
#[test]
fn a_rotated_key_is_fetched_when_a_token_names_it() {
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let server = issuer.serve(&["--oauth-refetch-ms", "1"]);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1, "fetched once at start");
    *issuer.keys.lock().unwrap() = json!({"keys": [jwk("k1", 1), jwk("k2", 2)]});
    assert_eq!(initialize_with(&server, &issuer.token("k2", 2, json!({}))), 200);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({}))), 200, "the old key still listed");
}

/// A flood of tokens naming unknown keys costs the issuer no fetch within the interval.
#[test]
fn unknown_key_ids_do_not_make_the_server_fetch_without_end() {
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let server = issuer.serve(&["--oauth-refetch-ms", "600000"]);
    for n in 0..20 {
        assert_eq!(initialize_with(&server, &issuer.token(&format!("unknown-{n}"), 3, json!({}))), 401);
    }
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1, "only the fetch at start");
    assert_eq!(initialize_with(&server, &issuer.token("k1", 1, json!({}))), 200);
}

/// A wrong issuer, plain HTTP beyond loopback, or an issuer without --public-url refuse to start.
#[test]
fn an_issuer_that_cannot_be_used_refuses_to_start() {
    let refused = |args: &[&str]| {
        let out = crate::support::run_binary(&[&["--everything", "--http", "127.0.0.1:0"], args].concat());
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let plain = refused(&["--oauth-issuer", "http://auth.example.com", "--public-url", AUDIENCE]);
    assert!(plain.contains("https://"), "{plain}");
    let issuer = Issuer::start(json!({"keys": []}));
    let no_url = refused(&["--oauth-issuer", &issuer.url]);
    assert!(no_url.contains("--public-url"), "{no_url}");
    let other = refused(&["--oauth-issuer", &format!("{}/tenant", issuer.url), "--public-url", AUDIENCE]);
    assert!(other.contains("no metadata"), "{other}");
}

/// A manifest's `scopes` on a resource (spec authorization, scope challenges): the resource is
/// left out of `resources/list` for a token without them and a read is a 403 step-up; a tool's
/// view needs the tool's scopes, and a prompt embedding the resource is refused as its read is.
#[test]
fn manifest_resources_and_views_need_their_scopes() {
    let dir = crate::support::TempDir::new("oauth-manifest");
    dir.write("view.html", "<p>deploy</p>");
    let manifest = json!({
        "tools": [{"name": "deploy", "command": ["echo", "{}"], "output": "json", "ui": "view.html",
                   "scopes": ["mcp:admin"]}],
        "prompts": [{"name": "brief", "messages": [{"resource": "note://plans"}]}],
        "resources": [{"uri": "note://plans", "text": "the plans", "scopes": ["mcp:admin"]}]
    });
    let file = dir.write("tools.json", manifest.to_string());
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let server = issuer.serve(&["--manifest", file.to_str().unwrap()]);
    let user = format!("Bearer {}", issuer.token("k1", 1, json!({})));
    let admin = format!("Bearer {}", issuer.token("k1", 1, json!({"scope": "mcp:use mcp:admin"})));
    let init = server.post(&[("Authorization", &user)], &initialize(json!({})));
    let session = init.header("mcp-session-id").expect("a session").to_owned();
    let rpc = |token: &str, method: &str, params: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params});
        server.post(&[("Authorization", token), ("Mcp-Session-Id", &session)], &body)
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post(&[("Authorization", &user), ("Mcp-Session-Id", &session)], &initialized).status, 202);
    let uris = |token: &str| {
        let listed = rpc(token, "resources/list", json!({}));
        let all = listed.json()["result"]["resources"].as_array().cloned().unwrap_or_default();
        all.iter().filter_map(|r| r["uri"].as_str().map(str::to_owned)).collect::<Vec<_>>()
    };
    let hidden = ["note://plans", "ui://tinymcp/deploy"];
    assert!(uris(&user).iter().all(|u| !hidden.contains(&u.as_str())), "{:?}", uris(&user));
    for uri in hidden {
        let refused = rpc(&user, "resources/read", json!({"uri": uri}));
        assert_eq!(refused.status, 403, "{uri}: {}", refused.body);
        let challenge = refused.header("www-authenticate").unwrap_or_default();
        assert!(challenge.contains("scope=\"mcp:use mcp:admin\", error=\"insufficient_scope\""), "{challenge}");
    }
    let brief = json!({"name": "brief"});
    assert_eq!(rpc(&user, "prompts/get", brief.clone()).status, 403, "the prompt embeds a hidden resource");
    // Step-up: the same session with a token granting the scope.
    assert!(hidden.iter().all(|h| uris(&admin).iter().any(|u| u == h)), "{:?}", uris(&admin));
    let read = rpc(&admin, "resources/read", json!({"uri": "note://plans"}));
    assert_eq!(read.json()["result"]["contents"][0]["text"], "the plans", "{}", read.body);
    let view = rpc(&admin, "resources/read", json!({"uri": "ui://tinymcp/deploy"}));
    assert_eq!(view.json()["result"]["contents"][0]["text"], "<p>deploy</p>", "{}", view.body);
    let got = rpc(&admin, "prompts/get", brief);
    assert_eq!(got.json()["result"]["messages"][0]["content"]["resource"]["text"], "the plans", "{}", got.body);
}

/// `proxy --config` under OAuth: each server is a resource of its own (RFC 8707, RFC 9728), its
/// canonical URL `--public-url` + `/NAME/mcp`. A token minted for one is refused at another, and
/// each one's challenge and metadata name that server, not the first.
#[test]
fn each_server_behind_the_proxy_is_its_own_audience_with_its_own_metadata() {
    let dir = crate::support::TempDir::new("oauth-mounts");
    let entry = json!({"command": crate::support::binary(), "args": ["--everything"]});
    let config = dir.write("servers.json", json!({"mcpServers": {"a": entry, "payroll": entry}}).to_string());
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let base = "https://mcp.example.com";
    let args = ["--oauth-issuer", &issuer.url, "--public-url", base, "--oauth-scope", "mcp:use"];
    let server = Server::proxy(&[&args[..], &["--config", config.to_str().unwrap()]].concat());
    let at = |path: &str, token: Option<&str>| {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        let mut all = vec![ACCEPT_BOTH, JSON];
        all.extend(headers);
        server.send("POST", path, &all, &initialize(json!({})).to_string())
    };
    let for_a = issuer.token("k1", 1, json!({"aud": format!("{base}/a/mcp")}));
    let for_payroll = issuer.token("k1", 1, json!({"aud": format!("{base}/payroll/mcp")}));
    assert_eq!(at("/a/mcp", Some(&for_a)).status, 200);
    assert_eq!(at("/payroll/mcp", Some(&for_payroll)).status, 200);
    let crossed = at("/payroll/mcp", Some(&for_a));
    assert_eq!(crossed.status, 401, "a token for /a accepted at /payroll: {}", crossed.body);
    assert!(crossed.header("www-authenticate").unwrap_or_default().contains("another audience"));
    assert_eq!(at("/a/mcp", Some(&for_payroll)).status, 401, "a token for /payroll accepted at /a");
    let base_token = issuer.token("k1", 1, json!({"aud": base}));
    assert_eq!(at("/a/mcp", Some(&base_token)).status, 401, "the base URL is no server's audience");
    for name in ["a", "payroll"] {
        let challenge = at(&format!("/{name}/mcp"), None);
        assert_eq!(challenge.status, 401);
        let expected = format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/{name}/mcp\"");
        let got = challenge.header("www-authenticate").unwrap_or_default();
        assert!(got.starts_with(&expected), "{name}: {got}");
        let metadata = server.send("GET", &format!("/.well-known/oauth-protected-resource/{name}/mcp"), &[], "");
        assert_eq!(metadata.status, 200, "{name}: {}", metadata.body);
        assert_eq!(metadata.json()["resource"], format!("{base}/{name}/mcp"));
        assert_eq!(metadata.json()["authorization_servers"], json!([issuer.url]));
    }
}
