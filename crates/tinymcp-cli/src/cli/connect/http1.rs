//! The client side of HTTP/1.1 for `tinymcp connect` and the gateway's HTTP upstreams:
//! connections kept alive (a few idle ones per origin, reused once an answer's body was read to
//! its end), the answer's head parsed by hand and its body read by length, by chunks or to the
//! end of the connection. `https://` URLs go through TLS (rustls, feature
//! `https`) under the same code: the stream is plain TCP or a TLS session over it, and every
//! deadline is set on the TCP socket either way.

#[cfg(feature = "https")]
use super::tls;
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// The longest line of a response head or chunk size; longer is refused.
const HEAD_LINE_CAP: usize = 16 * 1024;
/// Header lines in one response head.
const HEADERS_CAP: usize = 100;
/// How long connecting may take, the TLS handshake included, unless `--connect-secs` says.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one write may block (a server that stopped reading).
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Idle connections kept per origin; more are closed.
const IDLE_PER_ORIGIN: usize = 8;
/// How long an idle connection is kept: below common servers' keep-alive timeouts (tinymcp's
/// 30 s, nginx's 75 s), so that one is rarely reused just as the server closes it; one closed
/// sooner (Node's 5 s) is seen closed before reuse, or its request is sent again once.
const IDLE_FOR: Duration = Duration::from_secs(15);

/// How connections are made: the deadline of connecting (and of the TLS handshake), and for
/// `https://` the roots the server's certificate must chain to. One per remote server, shared
/// by its URLs (a gateway's upstreams each have their own).
pub struct Connector {
    within: Duration,
    #[cfg(feature = "https")]
    tls: Arc<tls::ClientConfig>,
    /// Idle kept-alive connections by origin, oldest first, each with when it went idle.
    idle: Mutex<HashMap<String, Vec<(Stream, Instant)>>>,
}

impl Connector {
    /// Connections made within `within`; `ca_file` (PEM) adds a private CA's certificates to
    /// Mozilla's roots. A file that cannot be read or holds no certificate is an error here,
    /// before anything is sent.
    pub fn new(within: Duration, ca_file: Option<&str>) -> Result<Arc<Connector>, String> {
        #[cfg(feature = "https")]
        return Ok(Arc::new(Connector { within, tls: tls::config(ca_file)?, idle: Mutex::default() }));
        #[cfg(not(feature = "https"))]
        match ca_file {
            Some(_) => Err(format!("--ca-file: {}", no_https())),
            None => Ok(Arc::new(Connector { within, idle: Mutex::default() })),
        }
    }

    /// The newest idle connection to `origin` still fresh and open, if any.
    fn take(&self, origin: &str) -> Option<Stream> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.get_mut(origin)?;
        while let Some((stream, since)) = list.pop() {
            if since.elapsed() < IDLE_FOR && still_open(stream.tcp()) {
                return Some(stream);
            }
        }
        None
    }

    /// Keeps `stream` for the next request to `origin`, the oldest idle one closed past the bound.
    fn put(&self, origin: String, stream: Stream) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.entry(origin).or_default();
        list.retain(|(_, since)| since.elapsed() < IDLE_FOR);
        if list.len() >= IDLE_PER_ORIGIN {
            list.remove(0);
        }
        list.push((stream, Instant::now()));
    }
}

/// Whether an idle connection is still usable: nothing to read yet (a server that closed it
/// shows the end, or a TLS close alert, at once).
fn still_open(tcp: &TcpStream) -> bool {
    if tcp.set_nonblocking(true).is_err() {
        return false;
    }
    let open = matches!(tcp.peek(&mut [0; 1]), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
    tcp.set_nonblocking(false).is_ok() && open
}

/// Why an `https://` URL is refused by a build without TLS, and what to do.
#[cfg(not(feature = "https"))]
fn no_https() -> String {
    "this tinymcp was built without HTTPS (the cargo feature `https`): use a release binary \
     (https://github.com/tinymcp/tinymcp/releases, or the Docker image), or build with \
     `--features https` (or `--features oauth`, which includes it); or run a local TLS-terminating \
     proxy (e.g. stunnel) and connect to it with http://127.0.0.1:PORT/PATH"
        .to_owned()
}

/// Where requests go: `http://HOST[:PORT]/PATH` or `https://…`.
#[derive(Clone)]
pub struct Url {
    /// Whether this is `https`.
    secure: bool,
    /// The host without port or brackets: the TLS server name.
    #[cfg_attr(not(feature = "https"), allow(dead_code))]
    host: String,
    /// `HOST:PORT`, for connecting.
    addr: String,
    /// `HOST[:PORT]` as given, for the `Host` header.
    authority: String,
    /// The path and query, starting with `/`.
    pub path: String,
    connector: Arc<Connector>,
}

impl std::fmt::Debug for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl Url {
    /// Parses an `http://` or `https://` URL, reached through `connector` (a build without
    /// the `https` feature refuses `https://`, saying what to do instead).
    pub fn parse(url: &str, connector: &Arc<Connector>) -> Result<Url, String> {
        let expected = || format!("{url}: expected http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH");
        let scheme_end = url.find("://").ok_or_else(expected)?;
        let secure = match &url[..scheme_end] {
            s if s.eq_ignore_ascii_case("http") => false,
            s if s.eq_ignore_ascii_case("https") => true,
            _ => return Err(expected()),
        };
        #[cfg(not(feature = "https"))]
        if secure {
            return Err(format!("{url}: {}", no_https()));
        }
        let rest = &url[scheme_end + 3..];
        let (authority, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
        if authority.is_empty() || authority.contains('@') || authority.contains(['?', '#']) {
            return Err(expected());
        }
        let port = authority
            .rsplit_once(':')
            .filter(|(h, p)| !h.ends_with(':') && p.bytes().all(|b| b.is_ascii_digit()))
            .map(|(h, _)| h);
        let host = port.unwrap_or(authority);
        let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        if host.is_empty() {
            return Err(expected());
        }
        let addr = match port {
            Some(_) => authority.to_owned(),
            None => format!("{authority}:{}", if secure { 443 } else { 80 }),
        };
        let path = path.split('#').next().unwrap_or("/").to_owned();
        Ok(Url {
            secure,
            host: host.to_owned(),
            addr,
            authority: authority.to_owned(),
            path,
            connector: Arc::clone(connector),
        })
    }

    /// How connections to this URL are made (for other URLs of the same server's exchanges:
    /// its authorization server's, under the same roots).
    #[cfg(feature = "https")]
    pub fn connector(&self) -> &Arc<Connector> {
        &self.connector
    }

    fn scheme(&self) -> &'static str {
        if self.secure {
            "https"
        } else {
            "http"
        }
    }

    /// `SCHEME://HOST:PORT`, the port always written: two URLs are same-origin when these are
    /// equal (host names compared ignoring case).
    pub fn origin(&self) -> String {
        format!("{}://{}", self.scheme(), self.addr.to_ascii_lowercase())
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
            Some(scheme) if scheme.eq_ignore_ascii_case(self.scheme()) => Url::parse(reference, &self.connector)?,
            Some(_) => {
                let elsewhere = reference.split(['/', '?', '#']).take(3).collect::<Vec<_>>().join("/");
                return Err(self.cross_origin(reference, &elsewhere.to_ascii_lowercase()));
            }
            // A network-path reference names another host with this scheme.
            None if reference.starts_with("//") => {
                Url::parse(&format!("{}:{reference}", self.scheme()), &self.connector)?
            }
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
             refused, as every message and the credentials (--header, --token-env, a token) would be sent there",
            self.origin()
        )
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://{}{}", self.scheme(), self.authority, self.path)
    }
}

/// One request's connection: plain TCP, or a TLS session over it.
enum Stream {
    Plain(TcpStream),
    #[cfg(feature = "https")]
    Tls(Box<tls::Stream<TcpStream>>),
}

impl Stream {
    /// The socket under it, where deadlines are set and from which a closer is cloned.
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(tcp) => tcp,
            #[cfg(feature = "https")]
            Stream::Tls(tls) => tls.get_ref(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(tcp) => tcp.read(buf),
            #[cfg(feature = "https")]
            Stream::Tls(tls) => tls.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(tcp) => tcp.write(buf),
            #[cfg(feature = "https")]
            Stream::Tls(tls) => tls.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(tcp) => tcp.flush(),
            #[cfg(feature = "https")]
            Stream::Tls(tls) => tls.flush(),
        }
    }
}

/// Connects to `url`'s address within its connector's deadline; for `https`, the TLS
/// handshake too, within the same deadline (a server that stalls mid-handshake cannot hold
/// the bridge), the certificate verified for the URL's host.
fn connect(url: &Url) -> io::Result<Stream> {
    let within = url.connector.within;
    #[cfg(feature = "https")]
    let deadline = Instant::now() + within;
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{}: no address", url.addr));
    let mut stream = None;
    for addr in url.addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, within) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e,
        }
    }
    let tcp = stream.ok_or(last)?;
    tcp.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let _ = tcp.set_nodelay(true);
    if !url.secure {
        return Ok(Stream::Plain(tcp));
    }
    #[cfg(feature = "https")]
    return tls::handshake(&url.connector.tls, &url.host, tcp, deadline, |tcp, left| tcp.set_read_timeout(Some(left)))
        .map(|tls| Stream::Tls(Box::new(tls)));
    #[cfg(not(feature = "https"))]
    Err(io::Error::other(no_https()))
}

/// A request written, its answer not yet read.
pub struct Sent {
    reader: BufReader<Stream>,
    url: Url,
    /// The request, kept when it went on a reused connection: the server may have closed
    /// that one meanwhile, and then it is sent once more on a fresh one.
    again: Option<Vec<u8>>,
    /// Made by the first `closer()` (most requests are never cancelled).
    watch: OnceLock<Arc<Mutex<Watch>>>,
}

/// What a `Closer` shuts: the request's connection while it is the request's (not once it
/// went back to the pool), and whether it was closed (a retry then does not connect again).
#[derive(Default)]
struct Watch {
    tcp: Option<TcpStream>,
    closed: bool,
}

/// Ends one request's connection, both ways: its reader sees the end at once, the server a
/// hang-up.
pub struct Closer(Arc<Mutex<Watch>>);

impl Closer {
    /// Shuts the connection (a second call does nothing more; nor does a call after the
    /// answer was read whole and its connection kept for another request).
    pub fn close(&self) {
        let mut watch = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        watch.closed = true;
        if let Some(tcp) = watch.tcp.take() {
            let _ = tcp.shutdown(Shutdown::Both);
        }
    }
}

/// Connects, writes `METHOD url` with `headers` and `body`, and returns before the answer.
pub fn send(url: &Url, method: &str, headers: &[(String, String)], body: &[u8]) -> io::Result<Sent> {
    // A line break in a header would end the head early and smuggle in what follows it.
    let broken = |text: &str| text.contains(['\r', '\n', '\0']);
    if let Some((name, _)) = headers.iter().find(|(name, value)| broken(name) || broken(value)) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("the {name:?} header holds a line break")));
    }
    let mut head = format!("{method} {} HTTP/1.1\r\nHost: {}\r\n", url.path, url.authority);
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut message = head.into_bytes();
    message.extend_from_slice(body);
    if let Some(mut stream) = url.connector.take(&url.origin()) {
        // A kept connection the server closed meanwhile fails here or before the answer's
        // first byte; either way the request goes once more on a fresh one.
        if stream.write_all(&message).and_then(|()| stream.flush()).is_ok() {
            return Ok(Sent {
                reader: BufReader::new(stream),
                url: url.clone(),
                again: Some(message),
                watch: OnceLock::new(),
            });
        }
    }
    let stream = write_fresh(url, &message)?;
    Ok(Sent { reader: BufReader::new(stream), url: url.clone(), again: None, watch: OnceLock::new() })
}

/// `message` written on a new connection to `url`.
fn write_fresh(url: &Url, message: &[u8]) -> io::Result<Stream> {
    let mut stream = connect(url)?;
    stream.write_all(message)?;
    // TLS buffers what is written: flushing sends it.
    stream.flush()?;
    Ok(stream)
}

impl Sent {
    /// A handle that ends this connection from another thread (a cancellation).
    pub fn closer(&self) -> io::Result<Closer> {
        if self.watch.get().is_none() {
            let tcp = self.reader.get_ref().tcp().try_clone()?;
            let _ = self.watch.set(Arc::new(Mutex::new(Watch { tcp: Some(tcp), closed: false })));
        }
        self.watch.get().map(|watch| Closer(Arc::clone(watch))).ok_or_else(|| io::Error::other("no closer"))
    }

    /// Sends the request again on a fresh connection, the closer (if any) now shutting that one.
    fn again(&mut self, message: &[u8]) -> io::Result<()> {
        let stream = write_fresh(&self.url, message)?;
        if let Some(watch) = self.watch.get() {
            let mut watch = watch.lock().unwrap_or_else(PoisonError::into_inner);
            if watch.closed {
                let _ = stream.tcp().shutdown(Shutdown::Both);
                return Err(io::Error::new(io::ErrorKind::ConnectionAborted, "closed"));
            }
            watch.tcp = Some(stream.tcp().try_clone()?);
        }
        self.reader = BufReader::new(stream);
        Ok(())
    }

    /// Reads the answer's head; `within` bounds every read of head and body (`None`: the
    /// caller is a thread of its own that may wait as long as the server keeps the stream).
    pub fn response(mut self, within: Option<Duration>) -> io::Result<Response> {
        self.reader.get_ref().tcp().set_read_timeout(within)?;
        let status_line = match (read_line(&mut self.reader, HEAD_LINE_CAP), self.again.take()) {
            (Ok(Some(line)), _) => line,
            // The kept connection was closed by the server before it answered (a timed-out
            // read is not retried: the server may be working on the request).
            (Ok(None), Some(message)) => self.retry(&message, within)?,
            (Err(e), Some(message)) if closed_under_us(&e) => self.retry(&message, within)?,
            (got, _) => got?.ok_or_else(|| bad("no answer"))?,
        };
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
        // The connection serves another request once this body is read to its end, unless the
        // server closes it or the body is a stream (of events, or to the end of the connection).
        let keep = status_line.starts_with("HTTP/1.1")
            && !find("connection").is_some_and(|v| v.to_ascii_lowercase().contains("close"))
            && !find("content-type").is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"))
            && !matches!(framing, Framing::Close);
        let keep = keep.then(|| (Arc::clone(&self.url.connector), self.url.origin()));
        let mut body = Body { inner: Some(self.reader), framing, keep, watch: self.watch.into_inner() };
        if matches!(body.framing, Framing::Length(0)) {
            body.release();
        }
        Ok(Response { status, headers, body: BufReader::new(body) })
    }

    /// The status line of the request sent again on a fresh connection.
    fn retry(&mut self, message: &[u8], within: Option<Duration>) -> io::Result<Vec<u8>> {
        self.again(message)?;
        self.reader.get_ref().tcp().set_read_timeout(within)?;
        read_line(&mut self.reader, HEAD_LINE_CAP)?.ok_or_else(|| bad("no answer"))
    }
}

/// Whether a read failed as one does on a connection the server had closed.
fn closed_under_us(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
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
        match &self.body.get_ref().inner {
            Some(inner) => inner.get_ref().tcp().set_read_timeout(None),
            None => Ok(()),
        }
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
    /// The connection, until the body was read to its end.
    inner: Option<BufReader<Stream>>,
    framing: Framing,
    /// Where the connection goes once the body was read to its end, if it may be kept.
    keep: Option<(Arc<Connector>, String)>,
    watch: Option<Arc<Mutex<Watch>>>,
}

impl Body {
    /// The body was read to its end: its connection goes back to the pool if it may, nothing
    /// more arriving on it (a server that sent more is not trusted with another request).
    fn release(&mut self) {
        let (Some(inner), Some((connector, origin))) = (self.inner.take(), self.keep.take()) else { return };
        if !inner.buffer().is_empty() {
            return;
        }
        if let Some(watch) = &self.watch {
            let mut watch = watch.lock().unwrap_or_else(PoisonError::into_inner);
            if watch.closed {
                return;
            }
            watch.tcp = None;
        }
        connector.put(origin, inner.into_inner());
    }
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.read_framed(buf)?;
        let ended = match self.framing {
            Framing::Length(left) => left == 0,
            Framing::Chunked { done, .. } => done,
            Framing::Close => false,
        };
        if ended {
            self.release();
        }
        Ok(n)
    }
}

impl Body {
    fn read_framed(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Body { inner, framing, .. } = self;
        let Some(inner) = inner else { return Ok(0) };
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
    use super::{read_line, Connector, CONNECT_TIMEOUT};
    use std::sync::Arc;

    fn connector() -> Arc<Connector> {
        Connector::new(CONNECT_TIMEOUT, None).unwrap()
    }

    /// `Url::parse` with the default connector.
    struct Url;
    impl Url {
        fn parse(url: &str) -> Result<super::Url, String> {
            super::Url::parse(url, &connector())
        }
    }

    #[cfg(not(feature = "https"))]
    #[test]
    fn https_is_refused_naming_the_feature() {
        let why = Url::parse("https://example.com/mcp").unwrap_err();
        assert!(why.contains("`https`") && why.contains("release binary"), "{why}");
        let why = Connector::new(CONNECT_TIMEOUT, Some("ca.pem")).err().unwrap();
        assert!(why.contains("--ca-file") && why.contains("`https`"), "{why}");
    }

    #[cfg(feature = "https")]
    #[test]
    fn https_urls_name_their_host_and_port_443() {
        let url = Url::parse("https://Example.com/mcp").unwrap();
        assert_eq!((url.host.as_str(), url.addr.as_str()), ("Example.com", "Example.com:443"));
        assert_eq!(url.to_string(), "https://Example.com/mcp");
        let url = Url::parse("HTTPS://[::1]:8443/mcp").unwrap();
        assert_eq!((url.host.as_str(), url.addr.as_str()), ("::1", "[::1]:8443"));
        let sse = Url::parse("https://h/sse").unwrap();
        assert_eq!(sse.join("https://h:443/m").unwrap().path, "/m");
        assert_eq!(sse.join("//h/m").unwrap().path, "/m");
        for elsewhere in ["http://h/m", "http://h:443/m", "https://other/m"] {
            let why = sse.join(elsewhere).unwrap_err();
            assert!(why.contains("not on the server's origin https://h:443"), "{elsewhere}: {why}");
        }
    }

    #[cfg(feature = "https")]
    #[test]
    fn a_ca_file_that_is_not_pem_certificates_is_refused_naming_it() {
        let dir = std::env::temp_dir().join(format!("tinymcp-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.pem");
        let why = Connector::new(CONNECT_TIMEOUT, missing.to_str()).err().unwrap();
        assert!(why.starts_with("--ca-file") && why.contains("missing.pem"), "{why}");
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let why = Connector::new(CONNECT_TIMEOUT, empty.to_str()).err().unwrap();
        assert!(why.contains("no certificate in it"), "{why}");
        let broken = dir.join("broken.pem");
        std::fs::write(&broken, "-----BEGIN CERTIFICATE-----\nAAAA\n").unwrap();
        let why = Connector::new(CONNECT_TIMEOUT, broken.to_str()).err().unwrap();
        assert!(why.contains("not a PEM file"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
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

    /// A server that answers one request per connection and then, without saying so, closes
    /// it on the next request unanswered (as one does whose keep-alive timeout ran out just
    /// then): every request is still answered, each on its own connection.
    #[test]
    fn a_request_on_a_kept_connection_closed_unanswered_is_sent_once_more() {
        use std::io::{BufRead, BufReader, Read, Write};
        use std::net::TcpListener;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let mut reader = BufReader::new(stream);
                for answered in [true, false] {
                    let mut line = String::new();
                    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                        line.clear();
                    }
                    if !answered {
                        break;
                    }
                    let _ = reader.get_mut().write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                }
            }
        });
        let url = Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
        for _ in 0..3 {
            let mut answer = super::send(&url, "GET", &[], &[]).unwrap().response(Some(CONNECT_TIMEOUT)).unwrap();
            let mut body = String::new();
            answer.body.read_to_string(&mut body).unwrap();
            assert_eq!((answer.status, body.as_str()), (200, "ok"));
        }
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
