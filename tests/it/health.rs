//! `tinymcp health URL`: the probe a container's HEALTHCHECK runs (an image `FROM scratch` has
//! no curl). Exit 0 only on a 200 from the URL, else 1 with the reason, within its deadline.

use crate::raw_http::Server;
use crate::support::run_binary;
use std::net::TcpListener;
use std::time::{Duration, Instant};

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
    let started = Instant::now();
    let (ok, stderr) = health(&format!("http://{}/healthz", silent.local_addr().unwrap()));
    assert!(!ok && stderr.contains("no answer within 3000 ms"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(6), "{:?}", started.elapsed());
}
