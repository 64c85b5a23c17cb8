//! The client side of HTTP/1.1 for `tinymcp connect`: one request per connection
//! (`Connection: close`), the answer's head parsed by hand and its body read by length, by
//! chunks or to the end of the connection. Plain TCP only: TLS is left to a local proxy.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The longest line of a response head or chunk size; longer is refused.
const HEAD_LINE_CAP: usize = 16 * 1024;
/// Header lines in one response head.
const HEADERS_CAP: usize = 100;
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one write may block (a server that stopped reading).
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Where requests go: `http://HOST[:PORT]/PATH`.
#[derive(Clone, Debug)]
pub struct Url {
    /// `HOST:PORT`, for connecting.
    addr: String,
    /// `HOST[:PORT]` as given, for the `Host` header.
    authority: String,
    /// The path and query, starting with `/`.
    pub path: String,
}

impl Url {
    /// Parses an `http://` URL; `https://` is refused with what to do instead.
    pub fn parse(url: &str) -> Result<Url, String> {
        if url.get(..8).is_some_and(|s| s.eq_ignore_ascii_case("https://")) {
            return Err(format!(
                "{url}: https is not supported (no TLS in tinymcp); run a local TLS-terminating proxy \
                 (e.g. stunnel, or `socat TCP-LISTEN:8443,fork,bind=127.0.0.1 OPENSSL:HOST:443`) and connect \
                 to it with http://127.0.0.1:PORT/PATH"
            ));
        }
        let expected = || format!("{url}: expected http://HOST[:PORT]/PATH");
        let rest = url.strip_prefix("http://").ok_or_else(expected)?;
        let (authority, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
        if authority.is_empty() || authority.contains('@') || authority.contains(['?', '#']) {
            return Err(expected());
        }
        let has_port =
            authority.rsplit_once(':').is_some_and(|(h, p)| !h.ends_with(':') && p.bytes().all(|b| b.is_ascii_digit()));
        let addr = if has_port { authority.to_owned() } else { format!("{authority}:80") };
        let path = path.split('#').next().unwrap_or("/").to_owned();
        Ok(Url { addr, authority: authority.to_owned(), path })
    }

    /// `http://HOST:PORT`, the port always written: two URLs are same-origin when these are
    /// equal (host names compared ignoring case).
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr.to_ascii_lowercase())
    }

    /// The legacy transport's `endpoint` reference resolved against this URL. It must be on
    /// the same origin (scheme, host and port), as both official SDKs require: every message
    /// and the user's headers (a bearer token) are POSTed there, so a server must not be able
    /// to send them to another host.
    pub fn join(&self, reference: &str) -> Result<Url, String> {
        // RFC 3986 §3.1: a scheme is a letter, then letters, digits, `+`, `-` or `.`, before `:`.
        let scheme = reference.split_once(':').map(|(s, _)| s).filter(|s| {
            s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        });
        let joined = match scheme {
            Some(scheme) if scheme.eq_ignore_ascii_case("http") => Url::parse(&format!("http{}", &reference[4..]))?,
            Some(_) => {
                let elsewhere = reference.split(['/', '?', '#']).take(3).collect::<Vec<_>>().join("/");
                return Err(self.cross_origin(reference, &elsewhere.to_ascii_lowercase()));
            }
            // A network-path reference names another host with this scheme.
            None if reference.starts_with("//") => Url::parse(&format!("http:{reference}"))?,
            None if reference.starts_with('/') => Url { path: reference.to_owned(), ..self.clone() },
            None => {
                let base = self.path.rsplit_once('/').map_or("", |(dir, _)| dir);
                Url { path: format!("{base}/{reference}"), ..self.clone() }
            }
        };
        let path = joined.path.split('#').next().unwrap_or("/").to_owned();
        let joined = Url { path, ..joined };
        if joined.origin() != self.origin() {
            return Err(self.cross_origin(reference, &joined.origin()));
        }
        Ok(joined)
    }

    fn cross_origin(&self, reference: &str, elsewhere: &str) -> String {
        format!(
            "the server's endpoint {reference:?} is on origin {elsewhere}, not on the server's origin {}: \
             refused, as every message and the credentials (--header, --token-env) would be sent there",
            self.origin()
        )
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "http://{}{}", self.authority, self.path)
    }
}

/// A request written, its answer not yet read.
pub struct Sent {
    reader: BufReader<TcpStream>,
}

/// Ends one request's connection, both ways: its reader sees the end at once, the server a
/// hang-up.
pub struct Closer(TcpStream);

impl Closer {
    /// Shuts the connection (a second call does nothing more).
    pub fn close(&self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }
}

/// Connects, writes `METHOD url` with `headers` and `body`, and returns before the answer.
pub fn send(url: &Url, method: &str, headers: &[(String, String)], body: &[u8]) -> io::Result<Sent> {
    // A line break in a header would end the head early and smuggle in what follows it.
    let broken = |text: &str| text.contains(['\r', '\n', '\0']);
    if let Some((name, _)) = headers.iter().find(|(name, value)| broken(name) || broken(value)) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("the {name:?} header holds a line break")));
    }
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{}: no address", url.addr));
    let mut stream = None;
    for addr in url.addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e,
        }
    }
    let mut stream = stream.ok_or(last)?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let _ = stream.set_nodelay(true);
    let mut head = format!("{method} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n", url.path, url.authority);
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut message = head.into_bytes();
    message.extend_from_slice(body);
    stream.write_all(&message)?;
    Ok(Sent { reader: BufReader::new(stream) })
}

impl Sent {
    /// A handle that ends this connection from another thread (a cancellation).
    pub fn closer(&self) -> io::Result<Closer> {
        self.reader.get_ref().try_clone().map(Closer)
    }

    /// Reads the answer's head; `within` bounds every read of head and body (`None`: the
    /// caller is a thread of its own that may wait as long as the server keeps the stream).
    pub fn response(mut self, within: Option<Duration>) -> io::Result<Response> {
        self.reader.get_ref().set_read_timeout(within)?;
        let status_line = read_line(&mut self.reader, HEAD_LINE_CAP)?.ok_or_else(|| bad("no answer"))?;
        let status_line = String::from_utf8_lossy(&status_line).into_owned();
        let status = status_line
            .strip_prefix("HTTP/1.")
            .and_then(|rest| rest.get(2..5))
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| bad(&format!("not an HTTP answer: {status_line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let line = read_line(&mut self.reader, HEAD_LINE_CAP)?.ok_or_else(|| bad("the head ended early"))?;
            if line.is_empty() {
                break;
            }
            if headers.len() == HEADERS_CAP {
                return Err(bad("more than 100 header lines"));
            }
            let line = String::from_utf8_lossy(&line);
            let (name, value) = line.split_once(':').ok_or_else(|| bad(&format!("not a header: {line:?}")))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let find = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let framing = if find("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
            Framing::Chunked { left: 0, done: false }
        } else if let Some(length) = find("content-length") {
            Framing::Length(length.parse().map_err(|_| bad(&format!("bad Content-Length {length:?}")))?)
        } else if status == 204 || status == 304 || (100..200).contains(&status) {
            Framing::Length(0)
        } else {
            Framing::Close
        };
        Ok(Response { status, headers, body: BufReader::new(Body { inner: self.reader, framing }) })
    }
}

/// An answer: status, headers (names lowercase) and the body still to read.
pub struct Response {
    /// The status code.
    pub status: u16,
    headers: Vec<(String, String)>,
    /// The body, unframed.
    pub body: BufReader<Body>,
}

impl Response {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Lifts the read deadline, for a stream read on a thread of its own.
    pub fn wait_forever(&mut self) -> io::Result<()> {
        self.body.get_ref().inner.get_ref().set_read_timeout(None)
    }

    /// Whether the body is a stream of server-sent events.
    pub fn is_event_stream(&self) -> bool {
        self.header("content-type").is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"))
    }

    /// The whole body, at most `cap` bytes (more is an error).
    pub fn text(&mut self, cap: usize) -> io::Result<String> {
        let mut all = Vec::new();
        self.body.by_ref().take(cap as u64 + 1).read_to_end(&mut all)?;
        if all.len() > cap {
            return Err(bad(&format!("a body larger than {cap} bytes")));
        }
        Ok(String::from_utf8_lossy(&all).into_owned())
    }
}

enum Framing {
    Length(u64),
    Chunked { left: u64, done: bool },
    Close,
}

/// A response body with its framing taken off.
pub struct Body {
    inner: BufReader<TcpStream>,
    framing: Framing,
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Body { inner, framing } = self;
        match framing {
            Framing::Close => inner.read(buf),
            Framing::Length(left) => {
                if *left == 0 || buf.is_empty() {
                    return Ok(0);
                }
                let max = buf.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                let n = inner.read(&mut buf[..max])?;
                if n == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                *left -= n as u64;
                Ok(n)
            }
            Framing::Chunked { left, done } => {
                if *done || buf.is_empty() {
                    return Ok(0);
                }
                if *left == 0 {
                    let line = read_line(inner, HEAD_LINE_CAP)?.ok_or(io::ErrorKind::UnexpectedEof)?;
                    let line = String::from_utf8_lossy(&line);
                    let size = line.split(';').next().unwrap_or_default().trim();
                    let size = u64::from_str_radix(size, 16).map_err(|_| bad(&format!("bad chunk size {size:?}")))?;
                    if size == 0 {
                        // Trailers, then the blank line that ends the body.
                        while read_line(inner, HEAD_LINE_CAP)?.is_some_and(|l| !l.is_empty()) {}
                        *done = true;
                        return Ok(0);
                    }
                    *left = size;
                }
                let max = buf.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                let n = inner.read(&mut buf[..max])?;
                if n == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                *left -= n as u64;
                if *left == 0 && read_line(inner, HEAD_LINE_CAP)?.is_none_or(|l| !l.is_empty()) {
                    return Err(bad("a chunk not followed by CRLF"));
                }
                Ok(n)
            }
        }
    }
}

/// One line without its `\n` or `\r\n`; `None` at the end of input. A line longer than `cap`
/// is an error, so a peer cannot make us buffer without bound.
pub fn read_line(reader: &mut impl BufRead, cap: usize) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    reader.take(cap as u64 + 1).read_until(b'\n', &mut line)?;
    if line.is_empty() {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    } else if line.len() > cap {
        return Err(bad(&format!("a line longer than {cap} bytes")));
    }
    Ok(Some(line))
}

fn bad(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_owned())
}

#[cfg(test)]
mod tests {
    use super::{read_line, Url};

    #[test]
    fn https_is_refused_with_what_to_do() {
        let why = Url::parse("https://example.com/mcp").unwrap_err();
        assert!(why.contains("TLS-terminating proxy"), "{why}");
    }

    #[test]
    fn urls_split_into_address_and_path() {
        let url = Url::parse("http://127.0.0.1:8080/mcp?x=1").unwrap();
        assert_eq!((url.addr.as_str(), url.path.as_str()), ("127.0.0.1:8080", "/mcp?x=1"));
        let url = Url::parse("http://example.com").unwrap();
        assert_eq!((url.addr.as_str(), url.path.as_str()), ("example.com:80", "/"));
        for bad in ["ftp://x/", "http:///mcp", "http://user@host/", "example.com/mcp"] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
        let sse = Url::parse("http://h:1/sse").unwrap();
        assert_eq!(sse.join("/messages?sessionId=a").unwrap().path, "/messages?sessionId=a");
        assert_eq!(sse.join("messages").unwrap().path, "/messages");
        assert_eq!(sse.join("http://H:1/m#frag").unwrap().path, "/m");
        assert_eq!(sse.join("HTTP://h:1/m").unwrap().path, "/m");
        assert_eq!(sse.join("/m?next=http://other:2/").unwrap().path, "/m?next=http://other:2/");
        let default_port = Url::parse("http://h/sse").unwrap();
        assert_eq!(default_port.join("http://h:80/m").unwrap().path, "/m");
    }

    #[test]
    fn an_endpoint_on_another_origin_is_refused_naming_both() {
        let sse = Url::parse("http://h:1/sse").unwrap();
        for elsewhere in
            ["http://other:1/m", "http://h:2/m", "http://h/m", "//other:1/m", "https://h:1/m", "ftp://h:1/m"]
        {
            let why = sse.join(elsewhere).unwrap_err();
            assert!(why.contains("http://h:1") && why.contains("origin"), "{elsewhere}: {why}");
        }
        let why = sse.join("http://other:2/m").unwrap_err();
        assert!(why.contains("origin http://other:2, not on the server's origin http://h:1"), "{why}");
    }

    #[test]
    fn lines_are_capped() {
        let mut input: &[u8] = b"abc\r\nde\nfgh";
        assert_eq!(read_line(&mut input, 8).unwrap().unwrap(), b"abc");
        assert_eq!(read_line(&mut input, 8).unwrap().unwrap(), b"de");
        assert_eq!(read_line(&mut input, 8).unwrap().unwrap(), b"fgh");
        assert!(read_line(&mut input, 8).unwrap().is_none());
        let mut long: &[u8] = b"0123456789\n";
        assert!(read_line(&mut long, 4).is_err());
    }
}
