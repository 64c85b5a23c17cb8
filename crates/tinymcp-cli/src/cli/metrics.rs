//! `--metrics ADDR`: `/metrics` on a loopback listener of its own, for a stdio server (which has
//! no HTTP listener) or to keep scrapes off the MCP listener. One thread answers one scrape at
//! a time, each connection closed after its answer; a head is read within `READ_WITHIN` and at
//! most `MAX_HEAD` bytes. As on the MCP listener, `Host` must name loopback (a page on another
//! site cannot read it through DNS rebinding) and the bearer token, when one is set, is asked for.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use tinymcp::Metrics;

/// A request head larger than this is refused.
const MAX_HEAD: usize = 8 * 1024;
/// A scrape's head must arrive within this.
const READ_WITHIN: Duration = Duration::from_secs(2);

/// Binds `addr` (a loopback address, or a port alone) and answers scrapes on a thread of its
/// own for as long as the process runs.
pub fn serve(addr: &str, metrics: Arc<Metrics>, token: Option<String>) -> Result<SocketAddr, String> {
    let addr = crate::cli::options::listen_addr(addr);
    let listener = TcpListener::bind(&addr).map_err(|e| format!("--metrics {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| format!("--metrics {addr}: {e}"))?;
    if !local.ip().is_loopback() {
        return Err(format!(
            "--metrics {addr}: the metrics listener serves loopback only (127.0.0.1:PORT or [::1]:PORT); to scrape \
             from elsewhere, give --metrics with no address, which serves /metrics on the --http listener behind \
             its checks"
        ));
    }
    thread::Builder::new()
        .name("tinymcp-metrics".into())
        .stack_size(128 * 1024)
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                answer(stream, &metrics, token.as_deref());
            }
        })
        .map_err(|e| format!("--metrics: cannot start its thread: {e}"))?;
    log::info!(target: "tinymcp::listening", "metrics on http://{local}/metrics");
    Ok(local)
}

fn answer(mut stream: TcpStream, metrics: &Metrics, token: Option<&str>) {
    let (status, body) = match read_head(&mut stream) {
        Some(head) => respond(&head, metrics, token),
        None => (400, "bad request\n".to_owned()),
    };
    let (reason, kind) = match status {
        200 => ("OK", "text/plain; version=0.0.4; charset=utf-8"),
        400 => ("Bad Request", "text/plain; charset=utf-8"),
        401 => ("Unauthorized", "text/plain; charset=utf-8"),
        403 => ("Forbidden", "text/plain; charset=utf-8"),
        404 => ("Not Found", "text/plain; charset=utf-8"),
        _ => ("Method Not Allowed", "text/plain; charset=utf-8"),
    };
    let challenge = if status == 401 { "WWW-Authenticate: Bearer\r\n" } else { "" };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{challenge}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.set_write_timeout(Some(READ_WITHIN));
    let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes()));
}

/// The status and body for a request head.
fn respond(head: &str, metrics: &Metrics, token: Option<&str>) -> (u16, String) {
    let mut lines = head.split("\r\n");
    let mut request = lines.next().unwrap_or_default().split(' ');
    let (method, target) = (request.next().unwrap_or_default(), request.next().unwrap_or_default());
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    };
    if !header("Host").is_some_and(names_loopback) {
        return (403, "forbidden: Host must name this loopback listener\n".into());
    }
    if let Some(token) = token {
        let sent = header("Authorization").and_then(|v| v.strip_prefix("Bearer ")).unwrap_or_default();
        if !same(sent, token) {
            return (401, "a valid bearer token is required\n".into());
        }
    }
    match (method, target.split('?').next().unwrap_or_default()) {
        ("GET", "/metrics") => (200, metrics.render()),
        (_, "/metrics") => (405, "use GET\n".into()),
        _ => (404, "not found: the metrics are at /metrics\n".into()),
    }
}

/// Whether a `Host` value names loopback: `localhost`, `127.0.0.1` or `[::1]`, any port.
fn names_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `sent` is `token`: tinymcp-http's static-token check, which compares in constant time.
#[cfg(feature = "http")]
fn same(sent: &str, token: &str) -> bool {
    use tinymcp_http::TokenVerifier;
    tinymcp_http::StaticToken::new(token).verify(sent).is_ok()
}

/// Without HTTP there are no bearer tokens: the binary passes none, so this is never asked.
#[cfg(not(feature = "http"))]
fn same(_: &str, _: &str) -> bool {
    false
}

/// The request head, up to the blank line; `None` when it is too large, late or not text.
fn read_head(stream: &mut TcpStream) -> Option<String> {
    let deadline = Instant::now() + READ_WITHIN;
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || head.len() > MAX_HEAD || stream.set_read_timeout(Some(left)).is_err() {
            return None;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8(head).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_and_the_token_pass() {
        let metrics = Metrics::new();
        let get = |host: &str, auth: &str| {
            let head = format!("GET /metrics HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n");
            respond(&head, &metrics, Some("s3cret")).0
        };
        assert_eq!(get("127.0.0.1:9", "Authorization: Bearer s3cret\r\n"), 200);
        assert_eq!(get("[::1]:9", "Authorization: Bearer s3cret\r\n"), 200);
        assert_eq!(get("localhost", "Authorization: Bearer s3cret\r\n"), 200);
        assert_eq!(get("evil.example:9", "Authorization: Bearer s3cret\r\n"), 403);
        assert_eq!(get("127.0.0.1:9", "Authorization: Bearer wrong\r\n"), 401);
        assert_eq!(get("127.0.0.1:9", ""), 401);
        let head = "POST /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
        assert_eq!(respond(head, &metrics, None).0, 405);
        assert_eq!(respond("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", &metrics, None).0, 404);
    }
}
