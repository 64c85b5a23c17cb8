//! `tinymcp connect https://…` (feature `https`): the bridge against a real `tinymcp --http`
//! behind a real TLS server (rustls, in the test's threads), with a local CA and certificates
//! made by the test. The attacks: a certificate for another name, a self-signed one without
//! `--ca-file`, a server that stalls mid-handshake.

use crate::connect::{modern, Remote};
use crate::support::{run_binary, tool_text, Client, TempDir};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

/// A local CA: its certificate in `ca.pem` of a folder of its own, and what signs with it.
pub(crate) struct Ca {
    dir: TempDir,
    issuer: Issuer<'static, KeyPair>,
}

impl Ca {
    pub(crate) fn new() -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA certificate");
        let dir = TempDir::new("tls-ca");
        dir.write("ca.pem", cert.pem());
        Ca { dir, issuer: Issuer::new(params, key) }
    }

    /// The `--ca-file` argument.
    pub(crate) fn pem(&self) -> String {
        self.dir.path().join("ca.pem").to_str().expect("UTF-8 path").to_owned()
    }

    /// A server configuration with a certificate for `names`, signed by this CA.
    pub(crate) fn server(&self, names: &[&str]) -> Arc<ServerConfig> {
        let params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("params");
        let key = KeyPair::generate().expect("server key");
        let cert = params.signed_by(&key, &self.issuer).expect("server certificate");
        server_config(cert.der().clone(), &key)
    }
}

/// A server configuration with a self-signed certificate for `names` (no CA vouches for it),
/// and that certificate as PEM.
/// With `ca`, the certificate says it is a CA's (what `openssl req -x509` makes).
fn self_signed(names: &[&str], ca: bool) -> (Arc<ServerConfig>, String) {
    let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("params");
    if ca {
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    }
    let key = KeyPair::generate().expect("key");
    let cert = params.self_signed(&key).expect("certificate");
    (server_config(cert.der().clone(), &key), cert.pem())
}

fn server_config(cert: CertificateDer<'static>, key: &KeyPair) -> Arc<ServerConfig> {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let config = ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .expect("server certificate and key");
    Arc::new(config)
}

/// A TLS terminator on a free loopback port: each connection's TLS is ended here and its bytes
/// carried, both ways, to the plain listener at `backend`. Returns its port.
fn tls_front(backend: u16, config: Arc<ServerConfig>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the TLS front");
    let port = listener.local_addr().expect("its address").port();
    thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let config = Arc::clone(&config);
            thread::spawn(move || terminate(client, backend, config));
        }
    });
    port
}

/// One connection through the front: the client's side read here (which drives the handshake),
/// the backend's on a thread of its own; the TLS state shared between them.
fn terminate(client: TcpStream, backend: u16, config: Arc<ServerConfig>) {
    let (Ok(server), Ok(conn)) = (TcpStream::connect(("127.0.0.1", backend)), ServerConnection::new(config)) else {
        return;
    };
    let conn = Arc::new(Mutex::new(conn));
    let (Ok(mut to_client), Ok(mut from_server)) = (client.try_clone(), server.try_clone()) else { return };
    let back = Arc::clone(&conn);
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = from_server.read(&mut buf).unwrap_or(0);
            let mut conn = back.lock().unwrap();
            if n == 0 {
                conn.send_close_notify();
            } else if conn.writer().write_all(&buf[..n]).is_err() {
                return;
            }
            while conn.wants_write() {
                if conn.write_tls(&mut to_client).is_err() {
                    return;
                }
            }
            if n == 0 {
                let _ = to_client.shutdown(Shutdown::Write);
                return;
            }
        }
    });
    let (mut from_client, mut to_server) = (client, server);
    let mut buf = [0u8; 16 * 1024];
    'read: loop {
        let n = from_client.read(&mut buf).unwrap_or(0);
        if n == 0 {
            break;
        }
        let mut conn = conn.lock().unwrap();
        let mut input = &buf[..n];
        while !input.is_empty() {
            let processed = conn.read_tls(&mut input).map_err(|e| e.to_string());
            let processed = processed.and_then(|_| conn.process_new_packets().map_err(|e| e.to_string()));
            if processed.is_err() {
                // The alert (a bad certificate, as the client saw it) goes back; the connection ends.
                let _ = conn.write_tls(&mut from_client);
                break 'read;
            }
        }
        let mut plain = Vec::new();
        let closed = conn.reader().read_to_end(&mut plain).is_ok();
        if !plain.is_empty() && to_server.write_all(&plain).is_err() {
            break;
        }
        while conn.wants_write() {
            if conn.write_tls(&mut from_client).is_err() {
                break 'read;
            }
        }
        if closed {
            break;
        }
    }
    let _ = to_server.shutdown(Shutdown::Write);
}

/// A plain `tinymcp --everything --http` behind a TLS front whose certificate is `config`'s:
/// `https://127.0.0.1:PORT` (the remote is kept alive by the caller).
pub(crate) fn behind_tls(config: Arc<ServerConfig>) -> (Remote, String) {
    let remote = Remote::start(&[]);
    let port = tls_front(remote.port, config);
    (remote, format!("https://127.0.0.1:{port}"))
}

fn initialize_params(revision: &str) -> Value {
    json!({"protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}})
}

// The whole bridge over TLS: a 2025-11-25 session (initialize, tools/list, a call, an answer
// streamed as SSE with its progress), then a 2026-07-28 host's calls, each on its own connection.
#[test]
fn https_carries_a_session_a_streamed_answer_and_2026_07_28_calls() {
    let ca = Ca::new();
    let (_remote, base) = behind_tls(ca.server(&["localhost", "127.0.0.1"]));
    let url = format!("{base}/mcp");
    let mut host = Client::spawn(&["connect", "--ca-file", &ca.pem(), &url]);
    let init = host.initialize("2025-11-25", json!({}));
    assert_eq!(init["protocolVersion"], "2025-11-25");
    let listed = host.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().cloned().unwrap_or_default();
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{listed}");
    let echo = host.call_tool("echo", json!({"message": "over TLS"}));
    assert_eq!(tool_text(&echo), "Echo: over TLS");
    let call = host.send_request(
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "tls"}}),
    );
    let progress = host.wait(|m| m["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "tls");
    assert_eq!(tool_text(&host.response(&call)), "Progress reported");
    assert!(host.close().success(), "connect exits 0 at end of input");

    let mut host = Client::spawn_keeping_stderr(&["connect", "--ca-file", &ca.pem(), &url]);
    host.revision = Some("2026-07-28".into());
    let echo = host.request("tools/call", modern(json!({"name": "echo", "arguments": {"message": "modern TLS"}})));
    assert_eq!((tool_text(&echo).as_str(), &echo["result"]["resultType"]), ("Echo: modern TLS", &json!("complete")));
    let custom = json!({"name": "test_custom_header", "arguments": {"value": "Hello, 世界"}});
    assert_eq!(tool_text(&host.request("tools/call", modern(custom))), "Hello, 世界");
    // A listen stream held open over TLS, then cancelled: its connection is closed under the
    // TLS session, and the bridge carries on.
    let listen =
        host.send_request("subscriptions/listen", modern(json!({"notifications": {"toolsListChanged": true}})));
    host.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    host.notify("notifications/cancelled", json!({"requestId": listen, "_meta": crate::stateless::meta(json!({}))}));
    let echo = host.request("tools/call", modern(json!({"name": "echo", "arguments": {"message": "after"}})));
    assert_eq!(tool_text(&echo), "Echo: after");
    let log = host.close_keeping_stderr();
    assert!(log.contains(&format!("request {listen} cancelled: its connection closed")), "{log}");
}

// The legacy transport shares the client: its stream and its POSTs go over TLS, the endpoint
// resolved on the https origin.
#[test]
fn legacy_sse_is_spoken_over_https() {
    let ca = Ca::new();
    let (_remote, base) = behind_tls(ca.server(&["127.0.0.1"]));
    let mut host = Client::spawn(&["connect", "--transport", "sse", "--ca-file", &ca.pem(), &format!("{base}/sse")]);
    host.initialize("2024-11-05", json!({}));
    assert_eq!(tool_text(&host.call_tool("echo", json!({"message": "legacy TLS"}))), "Echo: legacy TLS");
    assert!(host.close().success());
}

/// Sends `initialize` through `connect ARGS` and returns its answer (an error, here) and what
/// the bridge logged.
fn refused_initialize(args: &[&str]) -> (Value, String) {
    let mut all = vec!["connect"];
    all.extend_from_slice(args);
    let mut host = Client::spawn_keeping_stderr(&all);
    let answer = host.request("initialize", initialize_params("2025-11-25"));
    (answer, host.close_keeping_stderr())
}

// A certificate from the trusted CA but for another name: refused, the host's initialize gets
// a JSON-RPC error saying the certificate did not verify and why, and so does the log.
#[test]
fn a_certificate_for_another_name_is_refused_saying_so() {
    let ca = Ca::new();
    let (_remote, base) = behind_tls(ca.server(&["other.example"]));
    let (answer, log) = refused_initialize(&["--ca-file", &ca.pem(), &format!("{base}/mcp")]);
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("certificate did not verify for 127.0.0.1"), "{message}");
    assert!(message.contains("not valid for name"), "{message}");
    assert!(log.contains("certificate did not verify"), "{log}");
    assert!(!log.contains("Echo"), "nothing was carried: {log}");
}

// A self-signed certificate is refused when no --ca-file vouches for it (verification is
// always on: there is no flag to turn it off); the error says what to do, and doing it works.
#[test]
fn a_self_signed_certificate_without_ca_file_is_refused() {
    let (config, pem) = self_signed(&["127.0.0.1"], false);
    let (_remote, base) = behind_tls(config);
    let url = format!("{base}/mcp");
    let (answer, log) = refused_initialize(&[&url]);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("certificate did not verify") && message.contains("--ca-file"), "{message}");
    assert!(log.contains("UnknownIssuer"), "{log}");

    let dir = TempDir::new("tls-self-signed");
    let own = dir.write("server.pem", pem);
    let mut host = Client::spawn(&["connect", "--ca-file", own.to_str().expect("UTF-8 path"), &url]);
    host.initialize("2025-11-25", json!({}));
    assert_eq!(tool_text(&host.call_tool("echo", json!({"message": "pinned"}))), "Echo: pinned");
    assert!(host.close().success());

    // A self-signed CA certificate served as the server's own is refused even when given
    // (webpki's rule), and the error says what to do instead.
    let (config, pem) = self_signed(&["127.0.0.1"], true);
    let (_remote, base) = behind_tls(config);
    let own = dir.write("ca-as-server.pem", pem);
    let (answer, _) = refused_initialize(&["--ca-file", own.to_str().expect("UTF-8 path"), &format!("{base}/mcp")]);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("presents a CA certificate") && message.contains("signed by that CA"), "{message}");
}

// A server that takes the connection and never answers the ClientHello: the handshake's
// deadline (--connect-secs 1) ends it, and the host hears why instead of hanging (without it,
// the answer would not come within the test client's wait).
#[test]
fn a_server_that_stalls_mid_handshake_meets_the_deadline() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let holding = Arc::clone(&held);
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            holding.lock().unwrap().push(stream);
        }
    });
    let url = format!("https://127.0.0.1:{port}/mcp");
    let (answer, log) = refused_initialize(&["--connect-secs", "1", &url]);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("TLS handshake with 127.0.0.1 did not finish in time"), "{message}");
    assert!(log.contains("did not finish in time"), "{log}");
    assert!(!held.lock().unwrap().is_empty(), "the bridge did connect");
}

#[test]
fn a_ca_file_that_cannot_be_read_stops_connect_before_connecting() {
    let out = run_binary(&["connect", "--ca-file", "/nonexistent/ca.pem", "https://127.0.0.1:1/mcp"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--ca-file /nonexistent/ca.pem"), "{stderr}");
}
