//! HTTP/1.1 on one connection: request heads parsed by `httparse` under caps, bodies read by
//! declared length or in chunks under the message cap and a deadline that grows with their size,
//! answers written whole, streams framed by the caller. Knows nothing of MCP: `mod.rs` routes.
//!
//! Nothing here allocates by a number the peer sent: a head is read into at most `MAX_HEAD`
//! bytes, a declared length is compared with the cap before a byte is kept, and a chunk's size
//! before its data.

use super::chunked::{ChunkError, Chunked};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tinymcp::metrics::{Open, Refusal};
use tinymcp::Metrics;

/// The request line and headers together, at most (then 414 or 431, and close).
pub(super) const MAX_HEAD: usize = 16 * 1024;
/// Headers one request may carry (then 431, and close).
pub(super) const MAX_HEADERS: usize = 64;
/// A body gets `HttpOptions::read_within`, plus a second for every `BODY_RATE` bytes it
/// declares (or has sent).
const BODY_RATE: u64 = 64 * 1024;
/// A body nobody read is drained, to keep the connection, only when this small.
const DRAIN_MAX: u64 = 64 * 1024;
/// Bytes read from the socket at once.
const READ_CHUNK: usize = 8 * 1024;
/// A connection closed while its client may still be sending (a body over the limit, a refused
/// head) is half-closed and what comes is read and dropped, for at most this long and this
/// many bytes: closing with unread bytes resets it, and the client loses the answer.
const LINGER: Duration = Duration::from_secs(5);
const LINGER_BYTES: u64 = 64 * 1024 * 1024;

/// How a request's body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BodyKind {
    None,
    Length(u64),
    Chunked,
}

/// A parsed request head.
#[derive(Debug)]
pub(super) struct Head {
    pub(super) method: String,
    /// The request target as sent: path and query.
    pub(super) target: String,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: BodyKind,
    /// HTTP/1.1 without `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`.
    pub(super) keep_alive: bool,
    pub(super) expect_continue: bool,
}

impl Head {
    /// The first header of that name (names compare without case).
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every line of that name as one list, in order, joined by commas (RFC 9110 §5.3): for
    /// list-valued headers a proxy may append a line of its own to.
    pub(super) fn header_list(&self, name: &str) -> Option<String> {
        let mut lines = self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        let first = lines.next()?;
        Some(lines.fold(first.to_owned(), |list, line| list + ", " + line))
    }
}

/// Whether `host` is `host[:port]` (RFC 9110 §7.2): a registered name or IPv4 address of
/// RFC 3986 name characters, or an IP literal in brackets, then at most a port of digits.
/// Userinfo (`a@b`), a path, spaces or an empty port are refused.
pub(super) fn is_host_syntax(host: &str) -> bool {
    let (name_ok, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((literal, port)) => {
                (!literal.is_empty() && literal.bytes().all(|b| b.is_ascii_hexdigit() || b":.".contains(&b)), port)
            }
            None => return false,
        },
        None => {
            let (name, port) = host.find(':').map_or((host, ""), |at| host.split_at(at));
            (
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=".contains(&b)),
                port,
            )
        }
    };
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|p| (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
    name_ok && port_ok
}

/// Why a request head was refused; answered with its status, then the connection closes.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum HeadError {
    /// 414: the request line alone does not fit in `MAX_HEAD`.
    UriTooLong,
    /// 431: the head does not fit in `MAX_HEAD`, or has more than `MAX_HEADERS` headers.
    HeadersTooLarge,
    /// 400, and why.
    Bad(&'static str),
    /// 501: a transfer coding other than `chunked`.
    NotImplemented,
    /// 408: the head did not complete within `HttpOptions::read_within`.
    Timeout,
}

impl HeadError {
    pub(super) fn status(&self) -> u16 {
        match self {
            HeadError::UriTooLong => 414,
            HeadError::HeadersTooLarge => 431,
            HeadError::Bad(_) => 400,
            HeadError::NotImplemented => 501,
            HeadError::Timeout => 408,
        }
    }

    pub(super) fn reason(&self) -> &'static str {
        match self {
            HeadError::UriTooLong => "request line too long",
            HeadError::HeadersTooLarge => "request headers too large or too many",
            HeadError::Bad(why) => why,
            HeadError::NotImplemented => "only the chunked transfer coding is supported",
            HeadError::Timeout => "request head not complete in time",
        }
    }
}

/// Parses a complete head at the start of `bytes`, with how many bytes it took; `Ok(None)`
/// while it is incomplete and still within the cap.
pub(super) fn parse_head(bytes: &[u8]) -> Result<Option<(Head, usize)>, HeadError> {
    let window = &bytes[..bytes.len().min(MAX_HEAD)];
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let used = match request.parse(window) {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) if bytes.len() >= MAX_HEAD => {
            // Leading empty lines are skipped by the parser, so look past them for the line end.
            let line_ends = window.iter().skip_while(|&&b| b == b'\r' || b == b'\n').any(|&b| b == b'\n');
            return Err(if line_ends { HeadError::HeadersTooLarge } else { HeadError::UriTooLong });
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(HeadError::HeadersTooLarge),
        Err(_) => return Err(HeadError::Bad("malformed request head")),
    };
    let mut head = Head {
        method: request.method.unwrap_or_default().to_owned(),
        target: request.path.unwrap_or_default().to_owned(),
        headers: Vec::with_capacity(request.headers.len()),
        body: BodyKind::None,
        keep_alive: false,
        expect_continue: false,
    };
    let mut length: Option<u64> = None;
    let mut chunked = false;
    let (mut close, mut keep) = (false, false);
    for h in request.headers.iter() {
        let value = String::from_utf8_lossy(h.value).trim().to_owned();
        if h.name.eq_ignore_ascii_case("content-length") {
            // Digits only: `+5`, `5 5` or a second, different length are request smuggling.
            if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                return Err(HeadError::Bad("invalid Content-Length"));
            }
            let n = value.parse::<u64>().map_err(|_| HeadError::Bad("invalid Content-Length"))?;
            if length.is_some_and(|l| l != n) {
                return Err(HeadError::Bad("conflicting Content-Length headers"));
            }
            length = Some(n);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            if !value.eq_ignore_ascii_case("chunked") || chunked {
                return Err(HeadError::NotImplemented);
            }
            chunked = true;
        } else if h.name.eq_ignore_ascii_case("connection") {
            for token in value.split(',').map(str::trim) {
                close |= token.eq_ignore_ascii_case("close");
                keep |= token.eq_ignore_ascii_case("keep-alive");
            }
        } else if h.name.eq_ignore_ascii_case("host") {
            // RFC 9112 §3.2: a second Host, or one that is not `host[:port]`, is a 400: which
            // one a check reads must not depend on who reads it.
            if head.header("host").is_some() {
                return Err(HeadError::Bad("more than one Host header"));
            }
            // Empty is allowed (RFC 9110 §7.2: no authority); the checks refuse it later.
            if !value.is_empty() && !is_host_syntax(&value) {
                return Err(HeadError::Bad("invalid Host: expected host[:port]"));
            }
        } else if h.name.eq_ignore_ascii_case("authorization") && head.header("authorization").is_some() {
            // Not a list (RFC 9110 §11.6.2): which credentials count must not depend on who
            // reads them, a proxy in front or this server.
            return Err(HeadError::Bad("more than one Authorization header"));
        } else if h.name.eq_ignore_ascii_case("expect") {
            if !value.eq_ignore_ascii_case("100-continue") {
                return Err(HeadError::Bad("unsupported Expect"));
            }
            head.expect_continue = true;
        }
        head.headers.push((h.name.to_owned(), value));
    }
    head.body = match (length, chunked) {
        (Some(_), true) => return Err(HeadError::Bad("both Content-Length and Transfer-Encoding")),
        (Some(0), false) | (None, false) => BodyKind::None,
        (Some(n), false) => BodyKind::Length(n),
        (None, true) => BodyKind::Chunked,
    };
    head.keep_alive = match request.version {
        Some(1) => !close,
        _ => keep && !close,
    };
    Ok(Some((head, used)))
}

/// Why a body could not be read.
#[derive(Debug)]
pub(super) enum BodyError {
    /// Over the cap (declared or decoded).
    TooLarge,
    /// Broken chunked framing.
    Malformed(&'static str),
    /// Not complete in time, or the peer went away.
    Io(io::Error),
}

/// One client connection: its socket and the bytes read past the last request.
pub(super) struct Conn {
    pub(super) stream: Arc<TcpStream>,
    buf: Vec<u8>,
    /// Close once the current answer is out.
    pub(super) close: bool,
    /// The client may still be sending what we will not read: the close lingers (`end`).
    unread: bool,
    /// A head must be complete this long after its first byte (a new connection's first byte
    /// must come this soon too), and a body gets this long plus its size's share.
    pub(super) read_within: Duration,
    /// A write that makes no progress this long ends the connection (a client that stopped
    /// reading).
    pub(super) write_within: Duration,
    /// Where bytes, statuses and streams are counted, when the server keeps metrics.
    metrics: Option<Arc<Metrics>>,
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "deadline passed")
}

impl Conn {
    pub(super) fn new(stream: Arc<TcpStream>, options: &super::HttpOptions, metrics: Option<Arc<Metrics>>) -> Conn {
        let (read_within, write_within) = (options.read_within, options.write_within);
        Conn { stream, buf: Vec::new(), close: false, unread: false, read_within, write_within, metrics }
    }

    /// Reads once more into the buffer, waiting until `deadline` at most; 0 means closed.
    fn fill(&mut self, deadline: Instant) -> io::Result<usize> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut chunk = [0u8; READ_CHUNK];
        loop {
            match (&*self.stream).read(&mut chunk) {
                Ok(n) => {
                    self.metrics.as_ref().inspect(|m| m.bytes_in(n));
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Err(timed_out()),
                Err(e) => return Err(e),
            }
        }
    }

    /// The next request's head. The first byte may take `first_byte` (the idle timeout on a
    /// kept-alive connection), the rest `read_within`. `Ok(None)`: the peer closed or stayed
    /// silent, and nothing is owed.
    pub(super) fn next_head(&mut self, first_byte: Duration) -> Result<Option<Head>, HeadError> {
        let mut deadline = Instant::now() + if self.buf.is_empty() { first_byte } else { self.read_within };
        let mut started = !self.buf.is_empty();
        loop {
            // Parse only once the head can be complete: a byte-a-second client must not make us
            // parse 16 KiB for every byte.
            if self.buf.len() >= MAX_HEAD || self.buf.windows(2).any(|w| w == b"\n\n" || w == b"\n\r") {
                if let Some((head, used)) = parse_head(&self.buf)? {
                    self.buf.drain(..used);
                    return Ok(Some(head));
                }
            }
            match self.fill(deadline) {
                Ok(0) => return Ok(None),
                Ok(_) if !started => {
                    started = true;
                    deadline = Instant::now() + self.read_within;
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::TimedOut && started => return Err(HeadError::Timeout),
                Err(e) => {
                    log::debug!("connection closed while waiting for a request: {e}");
                    return Ok(None);
                }
            }
        }
    }

    /// Answers a refused head and marks the connection for closing.
    pub(super) fn refuse(&mut self, error: &HeadError) {
        log::debug!("refused a request: {}", error.reason());
        self.metrics.as_ref().filter(|_| matches!(error.status(), 414 | 431)).inspect(|m| m.refused(Refusal::Size));
        self.close = true;
        // A client too slow to finish its head gets no more time.
        self.unread = *error != HeadError::Timeout;
        let body = format!("{}\n", error.reason());
        let _ =
            self.write_head_and_body(error.status(), &[("Content-Type", "text/plain; charset=utf-8")], body.as_bytes());
    }

    fn write_head_and_body(&mut self, status: u16, headers: &[(&str, &str)], body: &[u8]) -> io::Result<()> {
        let mut out = Vec::with_capacity(body.len() + 256);
        let _ = write!(out, "HTTP/1.1 {status} {}\r\n", reason(status));
        for (name, value) in headers {
            let _ = write!(out, "{name}: {value}\r\n");
        }
        if status != 204 {
            let _ = write!(out, "Content-Length: {}\r\n", body.len());
        }
        if self.close {
            out.extend_from_slice(b"Connection: close\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(body);
        self.metrics.as_ref().inspect(|m| m.http_status(status)).inspect(|m| m.bytes_out(out.len()));
        let written = (&*self.stream).write_all(&out).and_then(|()| (&*self.stream).flush());
        if written.is_err() {
            self.close = true;
        }
        written
    }

    /// The connection is over. When the client may still be sending, our side is closed first
    /// and what it sends is read and dropped (bounded by `LINGER` and `LINGER_BYTES`) until it
    /// closes too: closed with bytes unread, the socket would be reset, and a client still
    /// writing its request (one that does not wait for `100 Continue`) would lose the answer
    /// already sent, a `413` say.
    pub(super) fn end(self) {
        if !self.unread {
            return;
        }
        if self.stream.shutdown(std::net::Shutdown::Write).is_err() {
            return;
        }
        let deadline = Instant::now() + LINGER;
        let mut left = LINGER_BYTES;
        let mut chunk = [0u8; READ_CHUNK];
        while left > 0 {
            let wait = deadline.saturating_duration_since(Instant::now());
            if wait.is_zero() || self.stream.set_read_timeout(Some(wait)).is_err() {
                break;
            }
            match (&*self.stream).read(&mut chunk) {
                Ok(0) => return,
                Ok(n) => left = left.saturating_sub(n as u64),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
        log::debug!("closing a connection whose client is still sending");
    }

    /// Whether the peer has closed its side (checked without blocking; data waiting means no).
    pub(super) fn peer_closed(stream: &TcpStream) -> bool {
        if stream.set_nonblocking(true).is_err() {
            return true;
        }
        let mut byte = [0u8; 1];
        let peeked = stream.peek(&mut byte);
        let _ = stream.set_nonblocking(false);
        match peeked {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted),
        }
    }
}

/// One request on a connection, from its head to the end of its answer.
pub(super) struct Exchange<'c> {
    pub(super) head: Head,
    conn: &'c mut Conn,
    /// The body was read whole, or there is none.
    body_done: bool,
    /// Reading the body failed on the socket (its deadline passed, the peer went away).
    body_lost: bool,
    continue_sent: bool,
}

impl<'c> Exchange<'c> {
    pub(super) fn new(conn: &'c mut Conn, head: Head) -> Self {
        let body_done = head.body == BodyKind::None;
        Exchange { head, conn, body_done, body_lost: false, continue_sent: false }
    }

    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    /// Every line of a list-valued header as one list; see [`Head::header_list`].
    pub(super) fn header_list(&self, name: &str) -> Option<String> {
        self.head.header_list(name)
    }

    /// Whether the declared length alone is over `cap`.
    pub(super) fn declares_over(&self, cap: usize) -> bool {
        matches!(self.head.body, BodyKind::Length(n) if n > cap as u64)
    }

    /// Whether the client hung up while its answer is pending (checked without blocking; a
    /// pipelined next request waiting counts as still there).
    pub(super) fn client_gone(&self) -> bool {
        Conn::peer_closed(&self.conn.stream)
    }

    /// The TCP peer's address (a system call: asked only when a check needs it).
    pub(super) fn peer_ip(&self) -> Option<std::net::IpAddr> {
        self.conn.stream.peer_addr().ok().map(|a| a.ip())
    }

    /// Closes the connection after this answer whatever else happens.
    pub(super) fn close_after(&mut self) {
        self.conn.close = true;
    }

    /// Reads the whole body, at most `cap` bytes, answering `Expect: 100-continue` first.
    pub(super) fn read_body(&mut self, cap: usize) -> Result<Vec<u8>, BodyError> {
        if self.body_done {
            return Ok(Vec::new());
        }
        let read = self.read_body_inner(cap);
        match &read {
            Ok(_) => self.body_done = true,
            Err(e) => {
                self.conn.close = true;
                self.body_lost = matches!(e, BodyError::Io(_));
            }
        }
        read
    }

    fn read_body_inner(&mut self, cap: usize) -> Result<Vec<u8>, BodyError> {
        if self.declares_over(cap) {
            return Err(BodyError::TooLarge);
        }
        if self.head.expect_continue && !self.continue_sent {
            self.continue_sent = true;
            (&*self.conn.stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n").map_err(BodyError::Io)?;
        }
        let start = Instant::now();
        let grace = self.conn.read_within;
        let allowed = |bytes: u64| start + grace + Duration::from_secs(bytes / BODY_RATE);
        match self.head.body {
            BodyKind::None => Ok(Vec::new()),
            BodyKind::Length(n) => {
                // Invariant: n <= cap, a usize, was checked above.
                let n = usize::try_from(n).unwrap_or(cap);
                let deadline = allowed(n as u64);
                let mut body = Vec::with_capacity(n.min(READ_CHUNK * 8));
                loop {
                    let take = (n - body.len()).min(self.conn.buf.len());
                    body.extend(self.conn.buf.drain(..take));
                    if body.len() == n {
                        return Ok(body);
                    }
                    if self.conn.fill(deadline).map_err(BodyError::Io)? == 0 {
                        return Err(BodyError::Io(io::ErrorKind::UnexpectedEof.into()));
                    }
                }
            }
            BodyKind::Chunked => {
                let mut decoder = Chunked::new(cap);
                let mut body = Vec::new();
                loop {
                    let used = decoder.feed(&self.conn.buf, &mut body).map_err(|e| match e {
                        ChunkError::TooLarge => BodyError::TooLarge,
                        ChunkError::Malformed(why) => BodyError::Malformed(why),
                    })?;
                    self.conn.buf.drain(..used);
                    if decoder.is_done() {
                        return Ok(body);
                    }
                    let deadline = allowed(body.len() as u64 + BODY_RATE);
                    if self.conn.fill(deadline).map_err(BodyError::Io)? == 0 {
                        return Err(BodyError::Io(io::ErrorKind::UnexpectedEof.into()));
                    }
                }
            }
        }
    }

    /// Decides, before the answer's head goes out, whether the connection survives it: not
    /// when the client asked to close, or left a body we will not read (too big to drain, chunked,
    /// or held back waiting for `100 Continue`).
    fn settle_close(&mut self) {
        let drainable = match self.head.body {
            _ if self.body_done => true,
            BodyKind::Length(n) => n <= DRAIN_MAX && !self.head.expect_continue,
            _ => false,
        };
        if !self.head.keep_alive || !drainable {
            self.conn.close = true;
        }
    }

    /// Writes a whole answer.
    pub(super) fn respond(&mut self, status: u16, headers: &[(&str, &str)], body: &[u8]) {
        self.settle_close();
        if let Err(e) = self.conn.write_head_and_body(status, headers, body) {
            log::debug!("client went away before the answer: {e}");
        }
    }

    /// Writes a chunked answer's head and hands out the socket for its body.
    pub(super) fn stream(&mut self, status: u16, headers: &[(&str, &str)]) -> io::Result<RawOut<'_>> {
        self.settle_close();
        let mut head = format!("HTTP/1.1 {status} {}\r\nTransfer-Encoding: chunked\r\n", reason(status));
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if self.conn.close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        let within = self.conn.write_within;
        let metrics = self.conn.metrics.as_deref().inspect(|m| m.http_status(status));
        let open = metrics.map(Metrics::stream);
        let mut out = RawOut {
            stream: &self.conn.stream,
            close: &mut self.conn.close,
            ended: false,
            within,
            metrics,
            _open: open,
        };
        out.write(head.as_bytes())?;
        Ok(out)
    }

    /// After the answer: drains a small unread body so the connection can carry the next request.
    pub(super) fn finish(self) {
        if self.body_lost {
            return;
        }
        if self.body_done {
            // Requests sent after one that closes the connection are dropped, lingering.
            self.conn.unread |= self.conn.close && !self.conn.buf.is_empty();
            return;
        }
        if self.conn.close {
            // A body left unread (too big, refused before it was read): the close lingers.
            self.conn.unread = true;
            return;
        }
        if let BodyKind::Length(n) = self.head.body {
            let deadline = Instant::now() + self.conn.read_within;
            let mut left = usize::try_from(n).unwrap_or(usize::MAX);
            loop {
                let take = left.min(self.conn.buf.len());
                self.conn.buf.drain(..take);
                left -= take;
                if left == 0 {
                    return;
                }
                if !matches!(self.conn.fill(deadline), Ok(n) if n > 0) {
                    self.conn.close = true;
                    return;
                }
            }
        }
        self.conn.close = true;
        self.conn.unread = true;
    }
}

/// The body side of a streamed answer. Dropped before `end`, it leaves the answer unfinished,
/// so the connection closes after it.
pub(super) struct RawOut<'a> {
    stream: &'a TcpStream,
    close: &'a mut bool,
    ended: bool,
    /// `Conn::write_within`.
    within: Duration,
    /// Where its bytes are counted, and its place among the streams open.
    metrics: Option<&'a Metrics>,
    _open: Option<Open<'a>>,
}

impl RawOut<'_> {
    /// Writes and flushes; a failure (including a write stuck for `Conn::write_within`) ends
    /// the connection after this answer.
    pub(super) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.metrics.inspect(|m| m.bytes_out(bytes.len()));
        let written = write_within(self.stream, bytes, self.within).and_then(|()| { self.stream }.flush());
        if written.is_err() {
            *self.close = true;
        }
        written
    }

    /// The answer is complete: the connection may carry another request.
    pub(super) fn end(mut self) {
        self.ended = true;
    }

    pub(super) fn peer_closed(&self) -> bool {
        Conn::peer_closed(self.stream)
    }
}

/// Writes all of `bytes` within `limit` in all. The socket's own timeout bounds each call only,
/// so a peer that lets a few bytes through per call could otherwise hold a writer for ever.
fn write_within(mut stream: &TcpStream, mut bytes: &[u8], limit: Duration) -> io::Result<()> {
    let deadline = Instant::now() + limit;
    while !bytes.is_empty() {
        if Instant::now() >= deadline {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "the peer took too long to read"));
        }
        match stream.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Drop for RawOut<'_> {
    fn drop(&mut self) {
        if !self.ended {
            *self.close = true;
        }
    }
}

/// The reason phrase of the statuses we send.
pub(super) fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tinymcp::fuzz_support::{rounds, Mutator};

    fn parsed(text: &str) -> Head {
        parse_head(text.as_bytes()).unwrap().unwrap().0
    }

    #[test]
    fn heads_parse_with_their_framing_and_connection_rules() {
        let head = parsed("POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\nrest");
        assert_eq!((head.method.as_str(), head.target.as_str()), ("POST", "/mcp?x=1"));
        assert_eq!(head.body, BodyKind::Length(12));
        assert!(head.keep_alive);
        assert_eq!(head.header("HOST"), Some("a"));
        let (_, used) = parse_head(b"GET / HTTP/1.1\r\n\r\nGET").unwrap().unwrap();
        assert_eq!(used, 18);
        assert!(!parsed("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").keep_alive);
        assert!(!parsed("GET / HTTP/1.0\r\n\r\n").keep_alive);
        assert!(parsed("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keep_alive);
        assert_eq!(parsed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").body, BodyKind::Chunked);
        assert!(parsed("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n").expect_continue);
        assert!(parse_head(b"GET / HTTP/1.1\r\nHost: a\r\n").unwrap().is_none());
    }

    #[test]
    fn smuggling_shapes_and_oversized_heads_are_refused() {
        let refused = |text: &[u8]| parse_head(text).unwrap_err();
        assert_eq!(refused(b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").status(), 400);
        assert_eq!(refused(b"POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n").status(), 400);
        assert_eq!(refused(b"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n").status(), 400);
        let both = b"POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(refused(both).status(), 400);
        assert_eq!(refused(b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n").status(), 501);
        let long_line = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(refused(long_line.as_bytes()), HeadError::UriTooLong);
        let long_header = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(refused(long_header.as_bytes()), HeadError::HeadersTooLarge);
        let many: String = (0..=MAX_HEADERS).map(|i| format!("X-{i}: v\r\n")).collect();
        assert_eq!(refused(format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes()), HeadError::HeadersTooLarge);
    }

    #[test]
    fn host_and_authorization_are_one_header_each_and_a_host_is_host_and_port_only() {
        let refused = |text: &str| parse_head(text.as_bytes()).unwrap_err();
        assert_eq!(refused("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").status(), 400);
        assert_eq!(refused("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n").status(), 400);
        let two = "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\r\nauthorization: Bearer x\r\n\r\n";
        assert_eq!(refused(two), HeadError::Bad("more than one Authorization header"));
        for good in ["localhost", "a.example:8080", "127.0.0.1:1", "[::1]", "[::1]:80", "xn--bcher-kva.example", "a_b"]
        {
            assert!(is_host_syntax(good), "{good}");
        }
        for bad in [
            "",
            "localhost:80@evil.com",
            "a@b",
            "a/b",
            "a b",
            "[::1",
            "[]:80",
            "[::1]x",
            "a:",
            "a:8o",
            "a:123456",
            ":80",
        ] {
            assert!(!is_host_syntax(bad), "{bad}");
        }
    }

    #[test]
    fn mutated_heads_never_panic() {
        let seeds: [&[u8]; 4] = [
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello",
            b"GET /mcp HTTP/1.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: abc\r\nLast-Event-ID: 1-2\r\n\r\n",
            b"POST /messages?sessionId=x HTTP/1.0\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n",
            b"OPTIONS * HTTP/1.1\r\nExpect: 100-continue\r\nOrigin: http://localhost\r\n\r\n",
        ];
        let mut mutator = Mutator::new(0x0dd_ba11);
        for round in 0..rounds(50_000) {
            let input = mutator.mutate(seeds[round % seeds.len()]);
            if let Ok(Some((head, used))) = parse_head(&input) {
                assert!(used <= input.len() && used <= MAX_HEAD, "round {round}");
                assert!(head.headers.len() <= MAX_HEADERS);
            }
        }
    }
}
