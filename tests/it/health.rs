//! `tinymcp health URL`: the probe a container's HEALTHCHECK runs (an image `FROM scratch` has
//! no curl). Exit 0 only on a 200 from the URL, else 1 with the reason, within its deadline.

use crate::raw_http::Server;
use crate::support::{binary, run_binary, TempDir};
use serde_json::json;
use std::net::TcpListener;

fn health(url: &str) -> (bool, String) {
    let out = run_binary(&["health", url]);
    assert!(out.stdout.is_empty(), "{out:?}");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_serving_server_is_healthy_and_anything_else_is_not_with_the_reason() {
    let server = Server::start(&[], &[]);
    let (ok, stderr) = health(&format!("http://127.0.0.1:{}/healthz", server.port));
    assert!(ok && stderr.is_empty(), "{stderr}");
    let (ok, stderr) = health(&format!("http://127.0.0.1:{}/nothing-here", server.port));
    assert!(!ok && stderr.contains("404"), "{stderr}");
    drop(server);
    // Nothing listens on a port just freed.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (ok, stderr) = health(&format!("http://127.0.0.1:{port}/healthz"));
    assert!(!ok && stderr.contains("cannot connect"), "{stderr}");
    let (ok, stderr) = health("https://127.0.0.1:1/healthz");
    assert!(!ok && stderr.contains("expected http://HOST:PORT/PATH"), "{stderr}");
}

#[test]
fn a_server_that_never_answers_is_unhealthy_within_the_deadline() {
    // Accepts (the kernel's backlog) and never says a word.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let (ok, stderr) = health(&format!("http://{}/healthz", silent.local_addr().unwrap()));
    assert!(!ok && stderr.contains("no answer within 3000 ms"), "{stderr}");
}

/// `/healthz` is checked like every path: a request from a page that rebound a name to the
/// server (a foreign `Host`) or from a foreign `Origin` learns only the bare status, never the
/// names of the servers behind `proxy --config`; a request that passes the checks gets them.
#[test]
fn health_names_the_proxys_servers_only_to_requests_that_pass_the_host_and_origin_checks() {
    let dir = TempDir::new("health-config");
    let entry = json!({"command": binary(), "args": ["--everything"]});
    let config = dir.write("servers.json", json!({"mcpServers": {"payroll": entry, "wiki": entry}}).to_string());
    let server = Server::proxy(&["--config", config.to_str().unwrap()]);
    let named = server.send("GET", "/healthz", &[], "");
    assert_eq!((named.status, named.body.as_str()), (200, "payroll: ok\nwiki: ok\n"));
    let foreign: [&[(&str, &str)]; 3] = [
        &[("Host", "rebound.example")],
        &[("Origin", "http://rebound.example")],
        &[("Host", "rebound.example:8080"), ("Origin", "http://rebound.example:8080")],
    ];
    for headers in foreign {
        let bare = server.send("GET", "/healthz", headers, "");
        assert_eq!((bare.status, bare.body.as_str()), (200, "ok\n"), "{headers:?}");
        assert!(bare.header("access-control-allow-origin").is_none(), "{headers:?}");
    }
}
