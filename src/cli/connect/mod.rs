//! `tinymcp connect URL`: a remote server spoken to over stdio, for hosts that only start
//! stdio servers. Each line read on stdin is forwarded to the server; everything the server
//! sends is written to stdout, one JSON message per line. Logs go to stderr.

mod http1;
mod sse;
mod streamable;

use serde_json::Value;
use std::io::{self, Write};

/// The largest message taken from stdin or from the server.
pub(crate) const MESSAGE_CAP: usize = 16 * 1024 * 1024;

/// Parses the options and forwards until the end of stdin; `Err` says why it could not.
pub fn run(args: impl Iterator<Item = String>) -> Result<(), String> {
    let mut url = None;
    for arg in args {
        match arg.as_str() {
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            _ if url.is_none() => url = Some(arg),
            _ => return Err(format!("connect takes one URL, got also {arg:?}")),
        }
    }
    let url = url.ok_or("expected a URL, e.g. tinymcp connect http://127.0.0.1:8080/mcp")?;
    let url = http1::Url::parse(&url)?;
    let session = streamable::Session::new(url, Vec::new(), Output);
    let mut input = io::stdin().lock();
    loop {
        let line = match http1::read_line(&mut input, MESSAGE_CAP) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                session.close();
                return Err(format!("reading stdin: {e}"));
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(&line) {
            Ok(message) => {
                log::debug!("host -> {}", String::from_utf8_lossy(&line));
                session.forward(&message, &line);
            }
            Err(e) => log::warn!("stdin: a line that is not JSON ({e}), skipped"),
        }
    }
    log::debug!("end of input: closing the session");
    session.close();
    Ok(())
}

/// Stdout, shared by the threads that read the server: one whole line per message (the lock
/// on stdout keeps two threads' lines apart).
#[derive(Clone, Copy, Default)]
pub(crate) struct Output;

impl Output {
    /// Writes one message as one line (a message the server split over lines is rejoined).
    pub(crate) fn line(&self, text: &str) {
        let text = text.trim();
        let joined;
        let text = if text.contains(['\n', '\r']) {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => {
                    joined = value.to_string();
                    joined.as_str()
                }
                Err(e) => return log::warn!("the server sent something that is not JSON ({e}), dropped"),
            }
        } else {
            text
        };
        log::debug!("host <- {text}");
        let mut out = io::stdout().lock();
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()) {
            log::debug!("stdout: {e}");
        }
    }
}
