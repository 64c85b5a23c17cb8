//! The client side of `/healthz`, for `tinymcp health URL`: a container built `FROM scratch`
//! has no curl, so the binary probes itself. One `GET`, `Connection: close`, the status line
//! read and nothing else, everything within one deadline.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The longest status line read: `HTTP/1.1 200 OK\r\n` and a generous reason.
const STATUS_LINE_CAP: usize = 256;

/// `GET url` (`http://HOST:PORT/PATH`; no TLS) and its status: `Ok` for 200, else why not (the
/// status line, a refused connection, or the deadline passed). Connecting, writing and reading
/// all fit in `within`, however slowly the peer trickles bytes.
pub fn probe(url: &str, within: Duration) -> Result<(), String> {
    let deadline = Instant::now() + within;
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("{url}: expected http://HOST:PORT/PATH"))?;
    let (authority, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
    if authority.is_empty() || authority.contains('@') {
        return Err(format!("{url}: expected http://HOST:PORT/PATH"));
    }
    let with_port = if authority.rsplit_once(':').is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit())) {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let addr = with_port
        .to_socket_addrs()
        .map_err(|e| format!("{authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority}: no address"))?;
    let left = |deadline: Instant| deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero());
    let timeout = || format!("{url}: no answer within {} ms", within.as_millis());
    let mut stream = TcpStream::connect_timeout(&addr, left(deadline).ok_or_else(timeout)?)
        .map_err(|e| format!("{url}: cannot connect: {e}"))?;
    stream.set_write_timeout(left(deadline)).map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(|e| format!("{url}: {e}"))?;
    let mut head = Vec::with_capacity(STATUS_LINE_CAP);
    let mut buf = [0; STATUS_LINE_CAP];
    while !head.contains(&b'\n') && head.len() < STATUS_LINE_CAP {
        stream.set_read_timeout(Some(left(deadline).ok_or_else(timeout)?)).map_err(|e| e.to_string())?;
        let n = match stream.read(&mut buf[..STATUS_LINE_CAP - head.len()]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return Err(timeout())
            }
            Err(e) => return Err(format!("{url}: {e}")),
        };
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head);
    let line = line.lines().next().unwrap_or_default().trim();
    let status = line.strip_prefix("HTTP/1.").and_then(|rest| rest.get(2..5));
    match status {
        Some("200") => Ok(()),
        Some(_) => Err(format!("{url}: {line}")),
        None => Err(format!("{url}: not an HTTP answer: {line:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::probe;
    use std::time::Duration;

    #[test]
    fn urls_it_cannot_probe_are_refused_before_connecting() {
        for url in ["https://127.0.0.1:1/healthz", "127.0.0.1:1", "http:///healthz", "http://user@127.0.0.1:1/"] {
            let why = probe(url, Duration::from_millis(100)).unwrap_err();
            assert!(why.contains("expected http://HOST:PORT/PATH"), "{url}: {why}");
        }
    }
}
