//! Sealed `requestState` for input-required results (2026-07-28, multi round-trip requests): the
//! state a handler needs on the client's retry, bound to the request it came from and to an
//! expiry, authenticated with HMAC-SHA-256 and encoded as URL-safe base64. The key also
//! derives the one that tags HTTP session ids. Std, serde_json, sha2 and the other `util` leaves
//! only.
//!
//! Spec (basic/patterns/mrtr): `requestState` is attacker-controlled input; protect its integrity
//! and bind it to an expiry and to the originating request (method and a digest of its salient
//! parameters). The state is authenticated, not encrypted: the client can read it, so handlers
//! must not put secrets in it.

use crate::util::base64;
use crate::util::crypto::{TagKey, DIGEST_LEN};
use crate::util::random;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The smallest key accepted, in bytes (the HMAC-SHA-256 output size, RFC 2104 §3).
pub(crate) const MIN_KEY_LEN: usize = 32;

/// The longest key file read, in bytes: far more than any sensible hex key.
const MAX_KEY_FILE_LEN: u64 = 4096;

/// The longest sealed token accepted, in characters; a longer one is refused before decoding.
pub(crate) const MAX_TOKEN_LEN: usize = 256 * 1024;

/// The first byte of every token, so the layout can change without misreading old tokens.
const FORMAT_V1: u8 = 1;

/// version (1) + expiry (8) + method length (4) + name length (4) + arguments digest (32).
const FIXED_LEN: usize = 1 + 8 + 4 + 4 + DIGEST_LEN;

/// The request a state belongs to: the retry must name the same method, tool or prompt, and
/// arguments, or the state is refused as foreign.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    /// The method, e.g. `tools/call` or `prompts/get`.
    pub(crate) method: &'a str,
    /// The tool or prompt name (or the resource URI for `resources/read`).
    pub(crate) name: &'a str,
    /// The request's arguments, digested in a canonical form (object keys sorted).
    pub(crate) arguments: &'a Value,
}

/// Why a sealed state was refused. Each is a JSON-RPC error (`-32602`), never a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StateError {
    /// Not a token this server could have written: bad characters, too short or too long,
    /// an unknown format version.
    Malformed(String),
    /// The tag does not match: the token was altered, or sealed under another key.
    Tampered,
    /// Authentic, but issued for another request.
    Foreign {
        /// The method it was issued for.
        method: String,
        /// The tool or prompt name it was issued for.
        name: String,
    },
    /// At sealing: the state would make a token longer than [`MAX_TOKEN_LEN`], which `open`
    /// refuses; the answers gathered so far are too large to carry through the client.
    TooLarge {
        /// The token length it would have, in characters.
        len: usize,
    },
    /// Authentic and for this request, but past its expiry.
    Expired {
        /// How long ago it expired.
        ago: Duration,
    },
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Malformed(why) => write!(f, "malformed requestState: {why}"),
            StateError::Tampered => {
                f.write_str("requestState failed verification: it was altered, or sealed by a server with another key")
            }
            StateError::Foreign { method, name } => {
                write!(f, "requestState was issued for another request ({method} {name:?} with other arguments or another name)")
            }
            StateError::TooLarge { len } => {
                write!(f, "requestState too large: {len} characters, the limit is {MAX_TOKEN_LEN}")
            }
            StateError::Expired { ago } => {
                write!(f, "requestState expired {} ms ago: start the request again", ago.as_millis())
            }
        }
    }
}

impl std::error::Error for StateError {}

/// The label of the key derived for `requestState` tags.
const REQUEST_STATE_LABEL: &str = "tinymcp requestState v1";
/// The label of the key derived for HTTP session id tags.
const SESSION_ID_LABEL: &str = "tinymcp session-id v1";

/// The secret that seals and opens states and session ids: random per process, or shared by
/// replicas through a key file so each accepts the others'. Each use tags with its own key,
/// derived from this master key under a fixed label, so a tag made for one use never passes
/// for another, whatever the bytes tagged.
#[derive(Clone, Debug)]
pub struct StateKey {
    request_states: TagKey,
    session_ids: TagKey,
}

impl StateKey {
    /// A fresh random key from the OS; states do not survive a restart.
    pub fn random() -> std::io::Result<StateKey> {
        Ok(StateKey::from_master(&random::bytes(MIN_KEY_LEN)?))
    }

    /// The per-use keys of the master key `master`.
    fn from_master(master: &[u8]) -> StateKey {
        StateKey {
            request_states: TagKey::derive(master, REQUEST_STATE_LABEL),
            session_ids: TagKey::derive(master, SESSION_ID_LABEL),
        }
    }

    /// The key that tags HTTP session ids (see tinymcp-http's `token.rs`).
    pub fn session_ids(&self) -> &TagKey {
        &self.session_ids
    }

    /// The key that tags `requestState`s, for tests that cross the two uses (here and
    /// tinymcp-http's, through the test-support feature `fuzz-mutator`).
    #[cfg(any(test, feature = "fuzz-mutator"))]
    #[doc(hidden)]
    pub fn request_states(&self) -> &TagKey {
        &self.request_states
    }

    /// Reads a key file: the key as hexadecimal text, at least 64 hex digits (32 bytes),
    /// surrounding whitespace ignored, e.g. made by `openssl rand -hex 32 > state.key`. The
    /// error names the file and says what is wrong (the binary wraps it in `Error::Config`).
    pub(crate) fn from_file(path: &Path) -> Result<StateKey, String> {
        let refuse = |why: String| format!("state key file {}: {why}", path.display());
        let file = std::fs::File::open(path).map_err(|e| refuse(e.to_string()))?;
        let mut text = String::new();
        file.take(MAX_KEY_FILE_LEN + 1).read_to_string(&mut text).map_err(|e| refuse(e.to_string()))?;
        if text.len() as u64 > MAX_KEY_FILE_LEN {
            return Err(refuse(format!("longer than {MAX_KEY_FILE_LEN} bytes: expected one line of hex digits")));
        }
        StateKey::from_hex(&text).map_err(refuse)
    }

    /// Reads a key written as hexadecimal text: at least 64 hex digits (32 bytes), surrounding
    /// whitespace ignored, as in the file of `Server::set_state_key_file`.
    pub fn from_hex(text: &str) -> Result<StateKey, String> {
        let digits = text.trim().as_bytes();
        if !digits.len().is_multiple_of(2) {
            return Err(format!("odd number of hex digits ({}): expected whole bytes", digits.len()));
        }
        let mut key = Vec::with_capacity(digits.len() / 2);
        for (pair_index, pair) in digits.chunks_exact(2).enumerate() {
            let digit = |b: u8| char::from(b).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                // Both digits are below 16, so the byte fits.
                (Some(high), Some(low)) => key.push((high * 16 + low) as u8),
                _ => {
                    return Err(format!(
                        "not a hex digit at offset {}: expected only 0-9 and a-f",
                        pair_index * 2 + usize::from(digit(pair[0]).is_some())
                    ))
                }
            }
        }
        if key.len() < MIN_KEY_LEN {
            return Err(format!(
                "key too short: {} bytes, expected at least {MIN_KEY_LEN} ({} hex digits), e.g. from `openssl rand -hex 32`",
                key.len(),
                MIN_KEY_LEN * 2
            ));
        }
        if key.iter().all(|&b| b == 0) {
            return Err("key is all zeros: expected random bytes, e.g. from `openssl rand -hex 32`".into());
        }
        Ok(StateKey::from_master(&key))
    }

    /// Seals `state` for the request `origin`, valid until `expires`. Refuses a state whose
    /// token [`StateKey::open`] would refuse as too long.
    pub(crate) fn seal(&self, state: &[u8], origin: &Origin, expires: SystemTime) -> Result<String, StateError> {
        let raw_len = FIXED_LEN + origin.method.len() + origin.name.len() + state.len() + DIGEST_LEN;
        // Unpadded base64: four characters per three bytes, rounded up.
        let len = (raw_len * 4).div_ceil(3);
        if len > MAX_TOKEN_LEN {
            return Err(StateError::TooLarge { len });
        }
        let expires_ms =
            expires.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut token =
            Vec::with_capacity(FIXED_LEN + origin.method.len() + origin.name.len() + state.len() + DIGEST_LEN);
        token.push(FORMAT_V1);
        token.extend_from_slice(&expires_ms.to_be_bytes());
        push_field(&mut token, origin.method.as_bytes());
        push_field(&mut token, origin.name.as_bytes());
        token.extend_from_slice(&arguments_digest(origin.arguments));
        token.extend_from_slice(state);
        let tag = self.request_states.tag(&token);
        token.extend_from_slice(&tag);
        Ok(to_url_safe(&base64::encode(&token)))
    }

    /// Opens a token sealed by [`StateKey::seal`] for the request `origin`, at time `now`.
    /// Checked in order: well-formed, authentic, for this request, not expired.
    pub(crate) fn open(&self, token: &str, origin: &Origin, now: SystemTime) -> Result<Vec<u8>, StateError> {
        let malformed = |why: &str| StateError::Malformed(why.to_string());
        if token.len() > MAX_TOKEN_LEN {
            return Err(StateError::Malformed(format!("longer than {MAX_TOKEN_LEN} characters")));
        }
        let bytes = from_url_safe(token).ok_or_else(|| malformed("not URL-safe base64"))?;
        if bytes.len() < FIXED_LEN + DIGEST_LEN {
            return Err(malformed("too short"));
        }
        let (body, tag) = bytes.split_at(bytes.len() - DIGEST_LEN);
        if body.first() != Some(&FORMAT_V1) {
            return Err(malformed("unknown format version"));
        }
        if !self.request_states.verify(body, tag) {
            return Err(StateError::Tampered);
        }
        // Authentic from here on: the fields were written by `seal` under our key.
        let mut reader = Fields { rest: body.get(1..).unwrap_or_default() };
        let expires_ms = reader.take(8).and_then(|b| b.try_into().ok()).map(u64::from_be_bytes);
        let method = reader.field();
        let name = reader.field();
        let digest = reader.take(DIGEST_LEN);
        let (Some(expires_ms), Some(method), Some(name), Some(digest)) = (expires_ms, method, name, digest) else {
            return Err(malformed("truncated fields"));
        };
        // A plain compare: the digest is no secret (the client holds the token and its arguments).
        if method != origin.method.as_bytes()
            || name != origin.name.as_bytes()
            || digest != arguments_digest(origin.arguments)
        {
            return Err(StateError::Foreign {
                method: String::from_utf8_lossy(method).into_owned(),
                name: String::from_utf8_lossy(name).into_owned(),
            });
        }
        let expires = UNIX_EPOCH + Duration::from_millis(expires_ms);
        if let Ok(ago) = now.duration_since(expires) {
            if !ago.is_zero() {
                return Err(StateError::Expired { ago });
            }
        }
        Ok(reader.rest.to_vec())
    }

    /// [`StateKey::seal`] for a JSON state.
    pub(crate) fn seal_json(&self, state: &Value, origin: &Origin, expires: SystemTime) -> Result<String, StateError> {
        self.seal(state.to_string().as_bytes(), origin, expires)
    }

    /// [`StateKey::open`] for a JSON state.
    pub(crate) fn open_json(&self, token: &str, origin: &Origin, now: SystemTime) -> Result<Value, StateError> {
        let bytes = self.open(token, origin, now)?;
        // Only our own `seal_json` wrote an authentic token, so this fails only on a caller's mix-up.
        serde_json::from_slice(&bytes).map_err(|_| StateError::Malformed("the sealed state is not JSON".to_string()))
    }
}

/// Appends a length-prefixed field (u32, big-endian) so no two (method, name) pairs encode alike.
fn push_field(out: &mut Vec<u8>, field: &[u8]) {
    // A field longer than 4 GiB cannot come from a request we accepted; clamp the prefix anyway.
    let len = u32::try_from(field.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(field.get(..len as usize).unwrap_or(field));
}

/// Reads the fields `seal` wrote.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.rest.len() < n {
            return None;
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(head)
    }

    fn field(&mut self) -> Option<&'a [u8]> {
        let len = u32::from_be_bytes(self.take(4)?.try_into().ok()?);
        self.take(usize::try_from(len).ok()?)
    }
}

/// SHA-256 of `value` in a canonical form: object keys sorted, every item typed and
/// length-prefixed, so the digest does not depend on key order or on serde_json's features.
fn arguments_digest(value: &Value) -> [u8; DIGEST_LEN] {
    fn item(hash: &mut Sha256, tag: u8, bytes: &[u8]) {
        hash.update([tag]);
        hash.update((bytes.len() as u64).to_be_bytes());
        hash.update(bytes);
    }
    fn feed(hash: &mut Sha256, value: &Value) {
        match value {
            Value::Null => item(hash, b'z', b""),
            Value::Bool(b) => item(hash, b'b', if *b { b"1" } else { b"0" }),
            Value::Number(n) => item(hash, b'n', n.to_string().as_bytes()),
            Value::String(s) => item(hash, b's', s.as_bytes()),
            Value::Array(items) => {
                item(hash, b'a', &(items.len() as u64).to_be_bytes());
                for value in items {
                    feed(hash, value);
                }
            }
            Value::Object(map) => {
                item(hash, b'o', &(map.len() as u64).to_be_bytes());
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort_unstable();
                for key in keys {
                    item(hash, b'k', key.as_bytes());
                    if let Some(value) = map.get(key) {
                        feed(hash, value);
                    }
                }
            }
        }
    }
    let mut hash = Sha256::new();
    feed(&mut hash, value);
    hash.finalize().into()
}

/// Standard base64 to the URL-safe alphabet without padding (RFC 4648 §5), which survives
/// URLs, headers and JSON without escaping.
pub fn to_url_safe(standard: &str) -> String {
    standard
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            other => other,
        })
        .collect()
}

/// The inverse of [`to_url_safe`], strict: only the URL-safe alphabet, no padding, and the
/// canonical encoding (the shared decoder refuses non-zero trailing bits).
pub fn from_url_safe(token: &str) -> Option<Vec<u8>> {
    if token.len() % 4 == 1 || token.bytes().any(|b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_')) {
        return None;
    }
    let mut standard: String = token
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            other => other,
        })
        .collect();
    while !standard.len().is_multiple_of(4) {
        standard.push('=');
    }
    base64::decode(&standard).ok()
}

/// Test-only: the median over `rounds` runs of the time per call of `f`, in nanoseconds, each
/// run `calls` calls (the cost measurements `scripts/bench.sh` reads; `tinymcp-http`'s too,
/// through `fuzz_support`).
#[cfg(any(test, feature = "fuzz-mutator"))]
pub fn median_ns_per_call(rounds: usize, calls: u128, f: &dyn Fn()) -> u128 {
    let mut runs: Vec<u128> = (0..rounds)
        .map(|_| {
            let start = std::time::Instant::now();
            for _ in 0..calls {
                f();
            }
            start.elapsed().as_nanos() / calls
        })
        .collect();
    runs.sort_unstable();
    runs[runs.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HOUR: Duration = Duration::from_secs(3600);

    fn key() -> StateKey {
        StateKey::from_hex(&"42".repeat(32)).unwrap()
    }

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    fn origin(arguments: &Value) -> Origin<'_> {
        Origin { method: "tools/call", name: "test_input_required_result_multi_round", arguments }
    }

    /// Sealing and opening one typical state round-trips; with `TINYMCP_SEAL_COST=FILE` (as
    /// `scripts/bench.sh` runs it, in release) it also measures the cost and writes
    /// `seal_ns=N open_ns=N bytes=N` to FILE: the median of 9 runs of 2000 each.
    #[test]
    fn seal_cost() {
        let key = key();
        let args = json!({"city": "Lisbon", "units": "metric", "days": 3});
        let state = json!({"answers": {"elicitation-1": {"action": "accept", "content": {"ok": true}}},
            "pending": {"sampling-2": {"method": "sampling/createMessage", "params": {"maxTokens": 100}}}});
        let origin = origin(&args);
        let token = key.seal_json(&state, &origin, now() + HOUR).unwrap();
        let out = std::env::var_os("TINYMCP_SEAL_COST");
        // Without the variable a few rounds only: the test then checks the round trip, cheaply.
        let (rounds, calls) = if out.is_some() { (9, 2000) } else { (1, 10) };
        let per_call = |f: &dyn Fn()| median_ns_per_call(rounds, calls, f);
        let seal = per_call(&|| {
            std::hint::black_box(key.seal_json(&state, &origin, now() + HOUR).unwrap());
        });
        let open = per_call(&|| {
            std::hint::black_box(key.open_json(&token, &origin, now()).unwrap());
        });
        // Into the file bench.sh names (only main.rs prints).
        if let Some(out) = out {
            std::fs::write(out, format!("seal_ns={seal} open_ns={open} bytes={}\n", token.len())).unwrap();
        }
    }

    #[test]
    fn sealed_state_opens_for_the_same_request() {
        let args = json!({"b": [1, 2.5, "x"], "a": {"nested": null, "t": true}});
        let token = key().seal(b"round 2 of 3", &origin(&args), now() + HOUR).unwrap();
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{token}");
        assert_eq!(key().open(&token, &origin(&args), now()).unwrap(), b"round 2 of 3");
        // Key order in the arguments does not matter.
        let reordered: Value = serde_json::from_str(r#"{"a":{"t":true,"nested":null},"b":[1,2.5,"x"]}"#).unwrap();
        assert_eq!(key().open(&token, &origin(&reordered), now()).unwrap(), b"round 2 of 3");
    }

    #[test]
    fn json_state_round_trips_and_empty_state_is_allowed() {
        let args = json!({});
        let state = json!({"round": 2, "answers": {"step1": {"name": "Alice"}}});
        let token = key().seal_json(&state, &origin(&args), now() + HOUR).unwrap();
        assert_eq!(key().open_json(&token, &origin(&args), now()).unwrap(), state);
        let empty = key().seal(b"", &origin(&args), now() + HOUR).unwrap();
        assert_eq!(key().open(&empty, &origin(&args), now()).unwrap(), b"");
    }

    #[test]
    fn two_seals_of_one_state_open_alike_and_differ_by_expiry() {
        let args = json!({});
        let first = key().seal(b"s", &origin(&args), now() + HOUR).unwrap();
        let second = key().seal(b"s", &origin(&args), now() + HOUR + Duration::from_millis(1)).unwrap();
        assert_ne!(first, second);
    }

    #[test]
    fn every_refusal_names_its_reason() {
        let args = json!({"city": "Paris"});
        let token = key().seal(b"state", &origin(&args), now() + HOUR).unwrap();
        let other_args = json!({"city": "Lyon"});
        let other_tool = Origin { name: "test_input_required_result_elicitation", ..origin(&args) };
        let other_method = Origin { method: "prompts/get", ..origin(&args) };
        let foreign = StateError::Foreign {
            method: "tools/call".to_string(),
            name: "test_input_required_result_multi_round".to_string(),
        };
        let mut flipped = token.clone().into_bytes();
        flipped[20] = if flipped[20] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap();
        let other_key = StateKey::from_hex(&"43".repeat(32)).unwrap();
        let mut bytes = from_url_safe(&token).unwrap();
        bytes.truncate(bytes.len() - 3);
        let truncated = to_url_safe(&base64::encode(&bytes));
        let cases: Vec<(&str, Result<Vec<u8>, StateError>)> = vec![
            ("suffix", key().open(&format!("{token}-TAMPERED"), &origin(&args), now())),
            ("flipped", key().open(&flipped, &origin(&args), now())),
            ("truncated tag", key().open(&truncated, &origin(&args), now())),
            ("other key", other_key.open(&token, &origin(&args), now())),
            ("other tool", key().open(&token, &other_tool, now())),
            ("other method", key().open(&token, &other_method, now())),
            ("other arguments", key().open(&token, &origin(&other_args), now())),
            ("expired", key().open(&token, &origin(&args), now() + HOUR + Duration::from_millis(1))),
            ("at expiry", key().open(&token, &origin(&args), now() + HOUR)),
            ("empty", key().open("", &origin(&args), now())),
            ("padding", key().open(&format!("{token}="), &origin(&args), now())),
            ("standard alphabet", key().open(&format!("{}+", &token[..token.len() - 1]), &origin(&args), now())),
            ("spaces", key().open(&format!(" {token}"), &origin(&args), now())),
            ("short", key().open("AQAAAAAAAAAA", &origin(&args), now())),
            ("huge", key().open(&"A".repeat(MAX_TOKEN_LEN + 4), &origin(&args), now())),
        ];
        let expect = |name: &str| -> Result<Vec<u8>, &'static str> {
            Err(match name {
                "suffix" | "flipped" | "truncated tag" | "other key" => "tampered",
                "other tool" | "other method" | "other arguments" => "foreign",
                "expired" => "expired",
                "at expiry" => return Ok(b"state".to_vec()),
                _ => "malformed",
            })
        };
        for (name, got) in cases {
            let kind = got.clone().map_err(|e| match e {
                StateError::Malformed(_) => "malformed",
                StateError::Tampered => "tampered",
                StateError::Foreign { .. } => "foreign",
                StateError::Expired { .. } => "expired",
                StateError::TooLarge { .. } => "too large",
            });
            assert_eq!(kind, expect(name), "{name}: {got:?}");
            if let Err(StateError::Foreign { .. }) = &got {
                assert_eq!(got, Err(foreign.clone()), "{name}");
            }
            if let Err(e) = got {
                let text = e.to_string();
                assert!(text.starts_with(|c: char| c.is_lowercase()) && !text.ends_with('.'), "{text}");
            }
        }
    }

    #[test]
    fn a_version_byte_we_do_not_know_is_malformed_not_tampered() {
        let args = json!({});
        let token = key().seal(b"s", &origin(&args), now() + HOUR).unwrap();
        let mut bytes = from_url_safe(&token).unwrap();
        bytes[0] = 2;
        let forged = to_url_safe(&base64::encode(&bytes));
        assert!(matches!(key().open(&forged, &origin(&args), now()), Err(StateError::Malformed(_))));
    }

    #[test]
    fn seal_refuses_exactly_the_states_open_would_refuse_as_too_long() {
        let args = json!({});
        let o = origin(&args);
        let boundary = MAX_TOKEN_LEN * 3 / 4 - (FIXED_LEN + o.method.len() + o.name.len() + DIGEST_LEN);
        let mut largest = 0;
        for len in boundary - 4..boundary + 4 {
            match key().seal(&vec![b'x'; len], &origin(&args), now() + HOUR) {
                Ok(token) => {
                    assert!(token.len() <= MAX_TOKEN_LEN);
                    largest = len;
                }
                Err(StateError::TooLarge { len: predicted }) => {
                    assert!(predicted > MAX_TOKEN_LEN, "{predicted}");
                    let err = StateError::TooLarge { len: predicted }.to_string();
                    assert!(err.starts_with("requestState too large: "), "{err}");
                }
                Err(other) => panic!("{other}"),
            }
        }
        assert!(largest > 0, "some state near the limit seals");
        let token = key().seal(&vec![b'x'; largest], &origin(&args), now() + HOUR).unwrap();
        assert_eq!(key().open(&token, &origin(&args), now()).unwrap().len(), largest);
        assert!(matches!(
            key().seal(&vec![b'x'; largest + 1], &origin(&args), now() + HOUR),
            Err(StateError::TooLarge { .. })
        ));
    }

    #[test]
    fn expired_error_says_how_long_ago() {
        let args = json!({});
        let token = key().seal(b"s", &origin(&args), now()).unwrap();
        let err = key().open(&token, &origin(&args), now() + Duration::from_millis(1500)).unwrap_err();
        assert_eq!(err, StateError::Expired { ago: Duration::from_millis(1500) });
        assert_eq!(err.to_string(), "requestState expired 1500 ms ago: start the request again");
    }

    #[test]
    fn replicas_with_the_same_key_file_accept_each_other() {
        let dir = std::env::temp_dir().join(format!("tinymcp-seal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.key");
        std::fs::write(&path, format!("  {}\n", "0123456789abcdefABCDEF".repeat(3))).unwrap();
        let (a, b) = (StateKey::from_file(&path).unwrap(), StateKey::from_file(&path).unwrap());
        let args = json!({});
        let token = a.seal(b"shared", &origin(&args), now() + HOUR).unwrap();
        assert_eq!(b.open(&token, &origin(&args), now()).unwrap(), b"shared");
        let random = StateKey::random().unwrap();
        assert_eq!(random.open(&token, &origin(&args), now()), Err(StateError::Tampered));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The two derived keys are apart: a state's tag does not verify as a session id's over the
    /// same bytes, and a token tagged with the session id key is refused as tampered.
    #[test]
    fn a_request_state_tag_never_verifies_as_a_session_id_tag_nor_back() {
        let args = json!({});
        let token = key().seal(b"s", &origin(&args), now() + HOUR).unwrap();
        let bytes = from_url_safe(&token).unwrap();
        let (body, tag) = bytes.split_at(bytes.len() - DIGEST_LEN);
        assert!(key().request_states.verify(body, tag), "the state's own key verifies it");
        assert!(!key().session_ids().verify(body, tag), "a state's tag passed for a session id's");
        let as_session = [body, key().session_ids().tag(body).as_slice()].concat();
        let forged = to_url_safe(&base64::encode(&as_session));
        assert_eq!(key().open(&forged, &origin(&args), now()), Err(StateError::Tampered));
        // The labels are part of the format: replicas of every version must derive the same keys
        // (values from Python's hmac, see `crypto.rs`).
        let hex = |tag: [u8; DIGEST_LEN]| tag.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(key().request_states.tag(b"data")),
            "1cc7f8a58fa2775683abe9970d9e80441c0060f43e6be0aa621b3d8954376427"
        );
        assert_eq!(
            hex(key().session_ids().tag(b"data")),
            "8c044741858ddf8e721e36895425b2763ac8b09e9be0ffa96ccfee40b2753ae5"
        );
    }

    #[test]
    fn bad_key_texts_are_refused_with_the_reason() {
        let cases = [
            ("", "too short: 0 bytes"),
            (&*"ab".repeat(31), "too short: 31 bytes, expected at least 32 (64 hex digits)"),
            (&*format!("{}a", "ab".repeat(32)), "odd number of hex digits (65)"),
            (&*format!("{}zz", "ab".repeat(32)), "not a hex digit at offset 64"),
            (&*format!("{}az", "ab".repeat(32)), "not a hex digit at offset 65"),
            (&*format!("{} {}", "ab".repeat(16), "ab".repeat(16)), "odd number of hex digits"),
        ];
        for (text, expected) in cases {
            let err = StateKey::from_hex(text).unwrap_err();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
        assert!(StateKey::from_hex(&"ab".repeat(32)).is_ok());
        assert!(StateKey::from_hex(&"AB".repeat(64)).is_ok());
    }

    #[test]
    fn key_file_errors_name_the_file() {
        let missing = Path::new("/nonexistent/tinymcp/state.key");
        let err = StateKey::from_file(missing).unwrap_err();
        assert!(err.contains("/nonexistent/tinymcp/state.key"), "{err}");
        let dir = std::env::temp_dir().join(format!("tinymcp-seal-short-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let short = dir.join("short.key");
        std::fs::write(&short, "abcd\n").unwrap();
        let err = StateKey::from_file(&short).unwrap_err();
        assert!(err.contains("short.key") && err.contains("key too short: 2 bytes"), "{err}");
        let big = dir.join("big.key");
        std::fs::write(&big, "ab".repeat(4096)).unwrap();
        let err = StateKey::from_file(&big).unwrap_err();
        assert!(err.contains("longer than 4096 bytes"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn key_debug_hides_the_key() {
        let shown = format!("{:?}", key());
        assert!(shown.starts_with("StateKey { request_states: TagKey(..)") && !shown.contains("42"), "{shown}");
    }

    #[test]
    fn argument_digest_separates_types_and_structure() {
        let distinct = [
            json!(null),
            json!(""),
            json!("1"),
            json!(1),
            json!(true),
            json!([]),
            json!({}),
            json!(["a", "b"]),
            json!(["ab"]),
            json!({"a": "b"}),
            json!({"ab": ""}),
            json!([["a"], "b"]),
            json!([["a", "b"]]),
        ];
        for (i, a) in distinct.iter().enumerate() {
            for b in &distinct[i + 1..] {
                assert_ne!(arguments_digest(a), arguments_digest(b), "{a} vs {b}");
            }
        }
    }
}
