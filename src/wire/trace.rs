//! W3C Trace Context (`traceparent`, `tracestate`) as a request carries it: in its `_meta`
//! (SEP-414: the keys `traceparent` and `tracestate`, unprefixed, as OpenTelemetry's MCP
//! conventions say) or in the HTTP headers of the same names. Read and checked here, made
//! fresh for a request that came without one when tracing is on, and written out again for
//! what the request starts (a command's environment, a proxied server's `_meta`).
//!
//! Unless spans are recorded (`server::scope::record_spans`, the binary's `--otlp`), tinymcp
//! passes the context on as it came (a participant that does not record, in W3C terms), so
//! the spans of a proxied server or a command tool are children of the caller's; recording,
//! it passes on its own span's id instead. A fresh context is one of its own making, sampled.

use crate::util::random;
use crate::wire::params::{string_value, Meta};
use std::fmt;

/// The longest `tracestate` kept (W3C: at least 512 characters SHOULD be propagated; a longer
/// one may be dropped). Longer ones are dropped whole, never cut.
pub const MAX_TRACESTATE: usize = 512;
/// The most list members a `tracestate` may have (W3C: 32).
const MAX_TRACESTATE_MEMBERS: usize = 32;
/// The length of a version `00` `traceparent`: `00-` 32 hex `-` 16 hex `-` 2 hex.
const TRACEPARENT_LEN: usize = 55;

/// One request's trace context: the trace it belongs to, its parent span, the flags, and the
/// vendors' `tracestate`, checked.
#[derive(Clone, Eq)]
pub struct TraceContext {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
    tracestate: Option<Box<str>>,
    /// Made here (`fresh`): its parent id names no caller's span.
    fresh: bool,
}

impl TraceContext {
    /// Reads a `traceparent` (and its `tracestate`): `None` when the `traceparent` is not a
    /// valid one (W3C Trace Context level 1: `version-traceid-parentid-flags` in lowercase hex,
    /// version `ff` and all-zero ids invalid; a later version is read by its first four fields
    /// and written again as version `00`). A `tracestate` that is not valid (too long, too many
    /// members, a member without `=`, a character outside printable ASCII) is dropped alone.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<TraceContext> {
        let text = traceparent.trim_matches([' ', '\t']).as_bytes();
        if text.len() < TRACEPARENT_LEN {
            return None;
        }
        let version = hex_byte(&text[0..2])?;
        match version {
            0xff => return None,
            0 if text.len() != TRACEPARENT_LEN => return None,
            // A later version: more fields may follow, after a dash.
            _ if text.len() > TRACEPARENT_LEN && text[TRACEPARENT_LEN] != b'-' => return None,
            _ => {}
        }
        if text[2] != b'-' || text[35] != b'-' || text[52] != b'-' {
            return None;
        }
        let mut trace_id = [0u8; 16];
        for (i, byte) in trace_id.iter_mut().enumerate() {
            *byte = hex_byte(&text[3 + 2 * i..5 + 2 * i])?;
        }
        let mut parent_id = [0u8; 8];
        for (i, byte) in parent_id.iter_mut().enumerate() {
            *byte = hex_byte(&text[36 + 2 * i..38 + 2 * i])?;
        }
        let flags = hex_byte(&text[53..55])?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        let tracestate = tracestate.map(|s| s.trim_matches([' ', '\t'])).filter(|s| valid_tracestate(s));
        Some(TraceContext { trace_id, parent_id, flags, tracestate: tracestate.map(Box::from), fresh: false })
    }

    /// A context of our own for a request that came without one: a random trace id and span
    /// id, sampled. `None` only when the OS gives no random bytes.
    pub fn fresh() -> Option<TraceContext> {
        let bytes = random::bytes(24).ok()?;
        let mut trace_id = [0u8; 16];
        let mut parent_id = [0u8; 8];
        trace_id.copy_from_slice(&bytes[..16]);
        parent_id.copy_from_slice(&bytes[16..]);
        // All zeros is invalid; one chance in 2^64 or 2^128, made impossible.
        trace_id[15] |= (trace_id == [0; 16]) as u8;
        parent_id[7] |= (parent_id == [0; 8]) as u8;
        Some(TraceContext { trace_id, parent_id, flags: 0x01, tracestate: None, fresh: true })
    }

    /// The same trace, flags and `tracestate` with a fresh random parent span id: the context a
    /// span of our own passes on (its id the parent of what it starts). `None` only when the
    /// OS gives no random bytes.
    pub(crate) fn with_fresh_parent(&self) -> Option<TraceContext> {
        let bytes = random::bytes(8).ok()?;
        let mut parent_id = [0u8; 8];
        parent_id.copy_from_slice(&bytes);
        parent_id[7] |= (parent_id == [0; 8]) as u8;
        Some(TraceContext { parent_id, fresh: false, ..self.clone() })
    }

    /// Whether this context was made here (`fresh`) rather than received.
    pub(crate) fn is_fresh(&self) -> bool {
        self.fresh
    }

    /// The trace id, 32 lowercase hex digits: what a log line names.
    pub fn trace_id(&self) -> String {
        hex(&self.trace_id)
    }

    /// The parent span id, 16 lowercase hex digits.
    pub fn parent_id(&self) -> String {
        hex(&self.parent_id)
    }

    /// Whether the caller sampled the trace (flag bit 0).
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The `traceparent` to pass on, version `00`.
    pub fn traceparent(&self) -> String {
        format!("00-{}-{}-{:02x}", hex(&self.trace_id), hex(&self.parent_id), self.flags)
    }

    /// The `tracestate` to pass on, when one came and was valid.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }
}

/// The trace context a request's `_meta` carries (`traceparent`, `tracestate`: strings), if
/// valid; `meta` as `Params::read_meta` read it.
pub(crate) fn of_meta(meta: Option<&Meta>) -> Option<TraceContext> {
    let keys = meta?.keys.as_ref().ok()?;
    let traceparent = string_value(keys.traceparent?)?;
    let tracestate = keys.tracestate.and_then(string_value);
    TraceContext::parse(&traceparent, tracestate.as_deref())
}

/// The trace context of HTTP headers (`traceparent`, `tracestate`), if valid. W3C: more than
/// one `traceparent` is invalid; several `tracestate` lines are one list.
pub(crate) fn of_headers(headers: &[(String, String)]) -> Option<TraceContext> {
    let mut parents = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("traceparent"));
    let traceparent = parents.next().filter(|_| parents.next().is_none())?;
    let states: Vec<&str> =
        headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("tracestate")).map(|(_, v)| v.as_str()).collect();
    let tracestate = (!states.is_empty()).then(|| states.join(","));
    TraceContext::parse(&traceparent.1, tracestate.as_deref())
}

/// The same context whoever made it (`fresh` is where it came from, not what it is).
impl PartialEq for TraceContext {
    fn eq(&self, other: &TraceContext) -> bool {
        (self.trace_id, self.parent_id, self.flags, &self.tracestate)
            == (other.trace_id, other.parent_id, other.flags, &other.tracestate)
    }
}

/// Shows the `traceparent` (the `tracestate` is vendors' data, not what a reader follows).
impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TraceContext({})", self.traceparent())
    }
}

/// Two lowercase hex digits (W3C: uppercase is invalid).
fn hex_byte(pair: &[u8]) -> Option<u8> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// A `tracestate` worth passing on: at most [`MAX_TRACESTATE`] characters of printable ASCII,
/// at most 32 comma-separated members, each empty (W3C allows empty ones) or `key=value`.
fn valid_tracestate(text: &str) -> bool {
    if text.is_empty() || text.len() > MAX_TRACESTATE || !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return false;
    }
    let mut members = 0;
    for member in text.split(',').map(|m| m.trim_matches([' ', '\t'])).filter(|m| !m.is_empty()) {
        members += 1;
        let Some((key, value)) = member.split_once('=') else { return false };
        if key.is_empty() || value.is_empty() || members > MAX_TRACESTATE_MEMBERS {
            return false;
        }
    }
    members > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_traceparent_reads_and_writes_back_the_same() {
        let cx = TraceContext::parse(GOOD, Some("congo=t61rcWkgMzE, rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!(cx.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(cx.parent_id(), "00f067aa0ba902b7");
        assert!(cx.sampled());
        assert_eq!(cx.traceparent(), GOOD);
        assert_eq!(cx.tracestate(), Some("congo=t61rcWkgMzE, rojo=00f067aa0ba902b7"));
        // A later version keeps its first four fields and is written as 00.
        let later =
            TraceContext::parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future", None);
        assert_eq!(later.unwrap().traceparent(), GOOD);
    }

    #[test]
    fn what_w3c_calls_invalid_is_refused() {
        let bad = [
            "",
            "garbage",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
            "00-4bf92f3577b34da6a3ce929d0e0e473\u{e9}-00f067aa0ba902b7-01",
        ];
        for text in bad {
            assert_eq!(TraceContext::parse(text, None), None, "{text:?}");
        }
    }

    #[test]
    fn a_bad_tracestate_is_dropped_alone() {
        let long = format!("a={}", "b".repeat(MAX_TRACESTATE));
        let many = (0..33).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",");
        for state in ["", "novalue", "=v", "k=", "k=v\n", "k=\u{e9}", long.as_str(), many.as_str()] {
            let cx = TraceContext::parse(GOOD, Some(state)).unwrap();
            assert_eq!(cx.tracestate(), None, "{state:?}");
        }
    }

    #[test]
    fn a_fresh_context_is_valid_sampled_and_new_each_time() {
        let (a, b) = (TraceContext::fresh().unwrap(), TraceContext::fresh().unwrap());
        assert_ne!(a.trace_id(), b.trace_id());
        assert_eq!(TraceContext::parse(&a.traceparent(), None), Some(a.clone()));
        assert!(a.sampled() && a.tracestate().is_none());
    }
}
