//! Self-contained session ids: `[<node>.]<payload>.<tag>`, both parts URL-safe base64. The
//! payload carries what a replica needs to serve the session's plain POSTs without having seen
//! its `initialize`: the negotiated revision, the client capabilities the server reads, the
//! log level, an expiry, the minting process's instance and a random nonce. The tag is
//! HMAC-SHA-256 over the node id and the payload, under the session id key derived from the
//! `--state-key-file` key (random per process without one), so a changed character anywhere,
//! another key or a past expiry is refused, and no `requestState` tag passes for one.
//! Authenticated, not encrypted: the client can read its capabilities back.

use serde_json::{Map, Value};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tinymcp::transport::kit::base64;
use tinymcp::transport::kit::random;
use tinymcp::transport::kit::{from_url_safe, to_url_safe, StateKey};
use tinymcp::LogLevel;
use tinymcp::ProtocolVersion;

/// The longest id read; a longer one is refused before decoding (ours are about 120).
pub(super) const MAX_ID_LEN: usize = 512;
/// Which process minted an id: a process ends its own sessions for good (DELETE, idle,
/// eviction), while another replica rebuilds them from the id.
pub(super) const INSTANCE_LEN: usize = 8;
const NONCE_LEN: usize = 16;
/// The payload's first byte, so the layout can change without misreading old ids.
const FORMAT_V1: u8 = 1;
/// format (1) + revision (1) + capabilities (2) + log level (1) + expiry (4) + instance + nonce.
const PAYLOAD_LEN: usize = 1 + 1 + 2 + 1 + 4 + INSTANCE_LEN + NONCE_LEN;

/// The client capabilities the server reads, one bit each, parents before their children.
/// A capability object's members are `{}` when rebuilt; `listChanged` is `true`.
const CAPABILITIES: [&[&str]; 13] = [
    &["roots"],
    &["roots", "listChanged"],
    &["sampling"],
    &["sampling", "context"],
    &["sampling", "tools"],
    &["elicitation"],
    &["elicitation", "form"],
    &["elicitation", "url"],
    &["tasks"],
    &["tasks", "list"],
    &["tasks", "cancel"],
    &["tasks", "requests", "sampling", "createMessage"],
    &["tasks", "requests", "elicitation", "create"],
];

const LEVELS: [LogLevel; 8] = [
    LogLevel::Debug,
    LogLevel::Info,
    LogLevel::Notice,
    LogLevel::Warning,
    LogLevel::Error,
    LogLevel::Critical,
    LogLevel::Alert,
    LogLevel::Emergency,
];

/// What a session id says about its session.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SessionClaims {
    pub version: ProtocolVersion,
    /// The capabilities of [`CAPABILITIES`] the client declared, as a capabilities object.
    pub capabilities: Value,
    pub log_level: LogLevel,
    /// When the id stops being accepted (whole seconds).
    pub expires: SystemTime,
    pub instance: [u8; INSTANCE_LEN],
}

/// Why an id was refused (all answered `404`; the reason goes to the debug log).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    Malformed(&'static str),
    Tampered,
    Expired,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Malformed(why) => write!(f, "malformed session id: {why}"),
            Refusal::Tampered => f.write_str("session id failed verification (altered, or sealed with another key)"),
            Refusal::Expired => f.write_str("session id expired"),
        }
    }
}

/// Mints an id for a session with these terms, after `node.` when a node id is given.
pub(super) fn mint(key: &StateKey, node: Option<&str>, terms: &SessionClaims) -> std::io::Result<String> {
    let mut payload = Vec::with_capacity(PAYLOAD_LEN);
    payload.push(FORMAT_V1);
    payload.push(ProtocolVersion::ALL.iter().position(|v| *v == terms.version).unwrap_or(0) as u8);
    payload.extend_from_slice(&capability_bits(&terms.capabilities).to_be_bytes());
    payload.push(LEVELS.iter().position(|l| *l == terms.log_level).unwrap_or(1) as u8);
    let expires = terms.expires.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    payload.extend_from_slice(&u32::try_from(expires).unwrap_or(u32::MAX).to_be_bytes());
    payload.extend_from_slice(&terms.instance);
    payload.extend_from_slice(&random::bytes(NONCE_LEN)?);
    let tag = key.session_ids().tag(&signed(node.unwrap_or(""), &payload));
    let (payload, tag) = (to_url_safe(&base64::encode(&payload)), to_url_safe(&base64::encode(&tag)));
    Ok(match node {
        Some(node) => format!("{node}.{payload}.{tag}"),
        None => format!("{payload}.{tag}"),
    })
}

/// Reads an id minted under `key`, at `now`: well-formed, authentic, not expired.
pub(super) fn open(key: &StateKey, id: &str, now: SystemTime) -> Result<SessionClaims, Refusal> {
    if id.len() > MAX_ID_LEN {
        return Err(Refusal::Malformed("too long"));
    }
    let mut parts = id.rsplitn(3, '.');
    let (Some(tag), Some(payload)) = (parts.next(), parts.next()) else {
        return Err(Refusal::Malformed("not node.payload.tag"));
    };
    // Without a node id there is no node part at all: an empty one (`.payload.tag`) would
    // be a second spelling of the same id, which a table keyed by the id would take for
    // another session. Base64 is read strictly too, so each valid id has one spelling.
    let node = match parts.next() {
        Some("") => return Err(Refusal::Malformed("empty node id")),
        node => node.unwrap_or(""),
    };
    let payload = from_url_safe(payload).ok_or(Refusal::Malformed("payload is not URL-safe base64"))?;
    let tag = from_url_safe(tag).ok_or(Refusal::Malformed("tag is not URL-safe base64"))?;
    if payload.len() != PAYLOAD_LEN || payload[0] != FORMAT_V1 {
        return Err(Refusal::Malformed("unknown layout"));
    }
    if !key.session_ids().verify(&signed(node, &payload), &tag) {
        return Err(Refusal::Tampered);
    }
    // Authentic from here on: `mint` wrote every field under our key.
    let version = ProtocolVersion::ALL
        .get(usize::from(payload[1]))
        .copied()
        .filter(|v| v.is_stateful())
        .ok_or(Refusal::Malformed("unknown revision"))?;
    let bits = u16::from_be_bytes([payload[2], payload[3]]);
    let log_level = *LEVELS.get(usize::from(payload[4])).ok_or(Refusal::Malformed("unknown log level"))?;
    let expires = UNIX_EPOCH
        + Duration::from_secs(u64::from(u32::from_be_bytes([payload[5], payload[6], payload[7], payload[8]])));
    if now >= expires {
        return Err(Refusal::Expired);
    }
    let mut instance = [0; INSTANCE_LEN];
    instance.copy_from_slice(&payload[9..9 + INSTANCE_LEN]);
    Ok(SessionClaims { version, capabilities: capabilities(bits), log_level, expires, instance })
}

/// What the tag covers: the node id (length-prefixed; at most 32 bytes) and the payload.
fn signed(node: &str, payload: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(1 + node.len() + payload.len());
    data.push(u8::try_from(node.len()).unwrap_or(u8::MAX));
    data.extend_from_slice(node.as_bytes());
    data.extend_from_slice(payload);
    data
}

fn capability_bits(declared: &Value) -> u16 {
    let present = |path: &[&str]| {
        let mut at = declared;
        for name in path {
            match at.get(name) {
                Some(next) => at = next,
                None => return false,
            }
        }
        !(at.is_null() || *at == Value::Bool(false))
    };
    CAPABILITIES.iter().enumerate().filter(|(_, path)| present(path)).fold(0, |bits, (i, _)| bits | 1 << i)
}

fn capabilities(bits: u16) -> Value {
    let mut root = Map::new();
    for (i, path) in CAPABILITIES.iter().enumerate() {
        if bits & (1 << i) == 0 {
            continue;
        }
        let mut at = &mut root;
        for (depth, name) in path.iter().enumerate() {
            let leaf = depth + 1 == path.len();
            let value = if leaf && *name == "listChanged" { Value::Bool(true) } else { Value::Object(Map::new()) };
            let entry = at.entry(name.to_string()).or_insert(value);
            match entry {
                Value::Object(map) => at = map,
                _ => break,
            }
        }
    }
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(byte: &str) -> StateKey {
        StateKey::from_hex(&byte.repeat(32)).unwrap()
    }

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    fn terms(capabilities: Value) -> SessionClaims {
        SessionClaims {
            version: ProtocolVersion::V2025_06_18,
            capabilities,
            log_level: LogLevel::Warning,
            expires: now() + Duration::from_secs(60),
            instance: *b"instance",
        }
    }

    #[test]
    fn an_id_round_trips_what_the_server_reads() {
        let declared = json!({"roots": {"listChanged": true}, "sampling": {"tools": {}}, "elicitation": {},
            "tasks": {"requests": {"elicitation": {"create": {}}}}, "experimental": {"big": [1, 2, 3]}});
        let id = mint(&key("42"), Some("node-7"), &terms(declared)).unwrap();
        assert!(id.starts_with("node-7.") && id.len() < 130, "{id} ({} bytes)", id.len());
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{id}");
        let expected = json!({"roots": {"listChanged": true}, "sampling": {"tools": {}}, "elicitation": {},
            "tasks": {"requests": {"elicitation": {"create": {}}}}});
        assert_eq!(open(&key("42"), &id, now()).unwrap(), terms(expected));
        let plain = mint(&key("42"), None, &terms(json!({}))).unwrap();
        assert_eq!(plain.matches('.').count(), 1, "{plain}");
        assert_eq!(open(&key("42"), &plain, now()).unwrap(), terms(json!({})));
        assert_ne!(plain, mint(&key("42"), None, &terms(json!({}))).unwrap(), "a nonce makes each id unique");
    }

    #[test]
    fn every_changed_character_another_key_or_node_and_the_expiry_are_refused() {
        let id = mint(&key("42"), Some("a1"), &terms(json!({"sampling": {}}))).unwrap();
        for at in 0..id.len() {
            let mut bytes = id.clone().into_bytes();
            bytes[at] = if bytes[at] == b'B' { b'C' } else { b'B' };
            let changed = String::from_utf8(bytes).unwrap();
            assert!(open(&key("42"), &changed, now()).is_err(), "byte {at}: {changed}");
        }
        assert_eq!(open(&key("43"), &id, now()), Err(Refusal::Tampered));
        assert_eq!(open(&key("42"), &id.replacen("a1.", "b1.", 1), now()), Err(Refusal::Tampered));
        assert_eq!(open(&key("42"), &id.replacen("a1.", "", 1), now()), Err(Refusal::Tampered));
        let plain = mint(&key("42"), None, &terms(json!({}))).unwrap();
        assert_eq!(open(&key("42"), &format!(".{plain}"), now()), Err(Refusal::Malformed("empty node id")));
        let at_expiry = now() + Duration::from_secs(60);
        assert_eq!(open(&key("42"), &id, at_expiry), Err(Refusal::Expired));
        assert!(open(&key("42"), &id, at_expiry - Duration::from_millis(1)).is_ok());
        for bad in ["", ".", "..", "a.b.c.d", "x", &"A".repeat(MAX_ID_LEN + 1), &format!("{id}=")] {
            assert!(matches!(open(&key("42"), bad, now()), Err(Refusal::Malformed(_))), "{bad:?}");
        }
    }

    /// A tag made with the `requestState` key over exactly what a session id's tag covers is
    /// refused: the two uses have separate derived keys.
    #[test]
    fn an_id_tagged_with_the_request_state_key_is_refused() {
        let id = mint(&key("42"), None, &terms(json!({}))).unwrap();
        let (payload, _) = id.split_once('.').unwrap();
        let signed = signed("", &from_url_safe(payload).unwrap());
        let state_tag = key("42").request_states().tag(&signed);
        let forged = format!("{payload}.{}", to_url_safe(&base64::encode(&state_tag)));
        assert_eq!(open(&key("42"), &forged, now()), Err(Refusal::Tampered));
        // The same construction with the session id key is accepted, so the refusal is the key's.
        let session_tag = key("42").session_ids().tag(&signed);
        let genuine = format!("{payload}.{}", to_url_safe(&base64::encode(&session_tag)));
        assert_eq!(open(&key("42"), &genuine, now()).unwrap(), terms(json!({})));
    }

    /// With `TINYMCP_SESSION_ID_COST=FILE` (as `scripts/bench.sh` runs it, in release) it writes
    /// `session_mint_ns=N session_open_ns=N session_bytes=N` to FILE: the median of 9 runs of
    /// 2000 each; without it, a few rounds as a check.
    #[test]
    fn session_id_cost() {
        let key = key("42");
        let terms = terms(json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": true}}));
        let id = mint(&key, Some("replica-1"), &terms).unwrap();
        let out = std::env::var_os("TINYMCP_SESSION_ID_COST");
        let (rounds, calls) = if out.is_some() { (9, 2000) } else { (1, 10) };
        let per_call = |f: &dyn Fn()| tinymcp::fuzz_support::median_ns_per_call(rounds, calls, f);
        let minted = per_call(&|| {
            std::hint::black_box(mint(&key, Some("replica-1"), &terms).unwrap());
        });
        let opened = per_call(&|| {
            std::hint::black_box(open(&key, &id, now()).unwrap());
        });
        if let Some(out) = out {
            let line = format!("session_mint_ns={minted} session_open_ns={opened} session_bytes={}\n", id.len());
            std::fs::write(out, line).unwrap();
        }
    }
}
