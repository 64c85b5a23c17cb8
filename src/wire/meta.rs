//! What a request's own `_meta` carries, and the wire types it shares with the methods: the
//! progress token, the related-task key, the logging level, and (revision 2026-07-28) the
//! per-request revision, client capabilities, client info and log level, read into a typed
//! [`RequestMeta`] in the order the spec and the conformance suite expect, with the rule that
//! tells the two eras apart per message. Imports only the wire.

use crate::wire::error::{RpcError, HEADER_MISMATCH, METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION};
use crate::wire::jsonrpc::{Malformed, Message, Method};
use crate::wire::params::{member, string_value, Meta, Params};
use crate::wire::protocol::{Id, ProtocolVersion, Revisions};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// The `_meta` key that ties a message to the task it belongs to (2025-11-25 tasks).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The `_meta.progressToken` of a request's params, if it asked for progress.
pub fn progress_token(params: &Params) -> Option<Value> {
    progress_token_of(params.read_meta().as_ref())
}

/// [`progress_token`], for a message whose `_meta` was read already (`Params::read_meta`).
pub(crate) fn progress_token_of(meta: Option<&Meta>) -> Option<Value> {
    let token = meta?.keys.as_ref().ok()?.progress_token?;
    serde_json::from_str(token).ok().filter(|t: &Value| !t.is_null())
}

/// The eight syslog severities, least severe first, so `Ord` filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed debugging.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level used until the client sets one.
    pub const DEFAULT: LogLevel = LogLevel::Info;

    /// Reads a level name.
    pub fn parse(text: &str) -> Option<LogLevel> {
        serde_json::from_value(Value::String(text.to_owned())).ok()
    }
}

/// `_meta` key: the revision this request speaks (required).
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for this request (required, an object).
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version (optional since spec PR #3002).
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the least severe `notifications/message` level the client wants (optional;
/// without it the server sends no log messages for this request).
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// What the transport knows about a message besides its body.
// Only the HTTP transport builds the variants beyond `Plain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival<'a> {
    /// No facts besides the message: stdio, an in-memory connection, the legacy HTTP+SSE
    /// transport (2024-11-05 has no protocol headers).
    Plain,
    /// Streamable HTTP.
    Http {
        /// The `MCP-Protocol-Version` header, surrounding whitespace already trimmed, if sent.
        protocol_version: Option<&'a str>,
        /// Whether the request carried an `Mcp-Session-Id` header.
        session: bool,
        /// The scopes the request's verified access token granted, when the transport checks
        /// scopes (OAuth); `None`: nothing is withheld for want of a scope.
        scopes: Option<&'a [String]>,
        /// The subject (`sub`) of the request's verified access token, when it named one.
        subject: Option<&'a str>,
        /// The request's headers, as data: a 2026-07-28 request's SEP-2243 headers are checked
        /// against its body where its tool is looked up (`mcp_header::validate`).
        headers: &'a [(String, String)],
        /// The message's era, when its transport decided it already (with [`era`], to choose
        /// the connection that serves it): not decided again.
        era: Option<Era>,
    },
    /// No facts but what a verified access token granted, and to whom: the legacy HTTP+SSE
    /// transport under OAuth.
    Scoped {
        /// The scopes it granted.
        scopes: &'a [String],
        /// Its subject (`sub`), when it named one.
        subject: Option<&'a str>,
    },
}

impl<'a> Arrival<'a> {
    /// The scopes granted, when the transport checks them (see `Arrival::Http::scopes`).
    pub fn scopes(self) -> Option<&'a [String]> {
        match self {
            Arrival::Plain => None,
            Arrival::Http { scopes, .. } => scopes,
            Arrival::Scoped { scopes, .. } => Some(scopes),
        }
    }

    /// The subject of the request's verified access token, when it named one.
    pub fn subject(self) -> Option<&'a str> {
        match self {
            Arrival::Plain => None,
            Arrival::Http { subject, .. } | Arrival::Scoped { subject, .. } => subject,
        }
    }

    /// The era its transport decided already, if it did.
    pub fn era(self) -> Option<Era> {
        match self {
            Arrival::Http { era, .. } => era,
            Arrival::Plain | Arrival::Scoped { .. } => None,
        }
    }
}

/// Which protocol era a message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: the `initialize` handshake, then a session.
    Handshake,
    /// 2026-07-28 and later: every request carries its version and capabilities in `_meta`.
    PerRequest,
}

/// Tells the eras apart for one message (contract §2.1; spec basic/versioning, "A dual-era
/// server selects its behavior from how the client opens").
///
/// Per-request when any of these holds:
/// - `params._meta` holds a key this revision reserves (`io.modelcontextprotocol/protocolVersion`,
///   `…/clientCapabilities`, `…/clientInfo`, `…/logLevel`): no older client sends them;
/// - the method is `server/discover`, which only this revision has;
/// - over HTTP without a session, the `MCP-Protocol-Version` header names anything but a
///   handshake revision (`2026-07-28`, or a version we do not know, such as `v999.0.0`).
///
/// Everything else is the handshake era. A bare `_meta` (e.g. only `progressToken`) is not a
/// sign: older revisions use it too. A handshake request names a handshake revision in its
/// header (or none, on `initialize` and before 2025-06-18), and inside a session the session's
/// revision rules.
///
/// A server that speaks one era only (`revisions`, `Options::revisions`) reads every message
/// in it, as a server that knows no other would: pinned to the handshake revisions, a
/// 2026-07-28 request is a request before (or inside) a session; pinned to 2026-07-28, every
/// request must carry its `_meta`. One comparison, on the branch taken.
pub fn era(method: &Method, params: &Params, arrival: Arrival, revisions: Revisions) -> Era {
    era_of(method, params.read_meta().as_ref(), arrival, revisions)
}

/// [`era`], for a message whose `_meta` was read already (`Params::read_meta`).
pub(crate) fn era_of(method: &Method, meta: Option<&Meta>, arrival: Arrival, revisions: Revisions) -> Era {
    let modern_header = match arrival {
        Arrival::Plain | Arrival::Scoped { .. } => false,
        Arrival::Http { protocol_version, session, .. } => {
            !session && protocol_version.is_some_and(|v| !ProtocolVersion::parse(v).is_some_and(|v| v.is_stateful()))
        }
    };
    let discover = method.spec().is_some_and(|spec| spec.id == Id::ServerDiscover);
    let reserved_key = meta.is_some_and(|meta| meta.keys.as_ref().is_ok_and(|keys| keys.per_request()));
    if reserved_key || discover || modern_header {
        if revisions.has_per_request() {
            Era::PerRequest
        } else {
            Era::Handshake
        }
    } else if revisions.has_handshake() {
        Era::Handshake
    } else {
        Era::PerRequest
    }
}

/// Refuses, before anything else is read (its `_meta`, the lifecycle's order), a request for a
/// known method that none of the served `revisions` has, with `-32601`: `server/discover` on a
/// server pinned to the handshake revisions (what an older server answers a method it does not
/// know: the TypeScript SDK's answer), `initialize` on one pinned to 2026-07-28, whose refusal
/// names the revisions it serves (spec basic/versioning: a server that supports only modern
/// versions SHOULD name them in any error it returns to `initialize`). Each method exists in
/// some revision of `Revisions::ALL`: the default server pays one comparison.
pub(crate) fn method_served(method: &Method, revisions: Revisions) -> Result<(), RpcError> {
    if revisions == Revisions::ALL {
        return Ok(());
    }
    match method.spec() {
        Some(spec) if !revisions.meets(spec.since, spec.until) => {
            if spec.id != Id::Initialize {
                return Err(RpcError::method_not_found(method));
            }
            let supported = supported_versions(revisions);
            Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "method not found: initialize (this server speaks {} only: send each request with {PROTOCOL_VERSION} and {CLIENT_CAPABILITIES} in its params._meta)",
                    supported.join(", ")
                ),
            )
            .with_data(json!({ "supported": supported })))
        }
        _ => Ok(()),
    }
}

/// Whether a JSON-RPC batch speaks 2026-07-28: any member that would be per-request on its own
/// makes it so. Such a batch is refused with [`batch_refused`], since that revision has no
/// batches, rather than with a handshake-era error ("before initialize", "session required").
pub fn batch_is_per_request(items: &[Result<Message, Malformed>], arrival: Arrival, revisions: Revisions) -> bool {
    items.iter().any(|item| match item {
        Ok(Message::Request(r)) => era(&r.method, &r.params, arrival, revisions) == Era::PerRequest,
        Ok(Message::Notification(n)) => era(&n.method, &n.params, arrival, revisions) == Era::PerRequest,
        _ => false,
    })
}

/// The `-32600` a 2026-07-28 batch gets.
pub fn batch_refused() -> RpcError {
    RpcError::invalid_request("batches are not part of 2026-07-28: send each request as a message of its own")
}

/// The revisions served per request among `revisions`, newest first: `supportedVersions` in
/// `server/discover` and `data.supported` in `-32022`. The handshake revisions are not listed:
/// a client cannot name them in `_meta`, and the Python SDK and the TypeScript fixture list the
/// per-request ones only. A dual-era client learns of the others from `initialize`.
pub(crate) fn supported_versions(revisions: Revisions) -> Vec<&'static str> {
    ProtocolVersion::ALL
        .iter()
        .rev()
        .filter(|v| !v.is_stateful() && revisions.contains(**v))
        .map(|v| v.as_str())
        .collect()
}

/// The capabilities a client declared: a session's, read into a value by `initialize`, or a
/// 2026-07-28 request's, kept as the text of its `_meta` (a JSON object) and read only as far
/// as what is asked of them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Capabilities {
    /// Read (a session's).
    Value(Arc<Value>),
    /// The text of a JSON object, as the request carried it.
    Text(Arc<str>),
}

impl Capabilities {
    /// Whether the client declared `name` (present and not `null`), read from the text without
    /// making a value of it (the last of a name given twice, as a map reads it).
    pub(crate) fn declares(&self, name: &str) -> bool {
        match self {
            Capabilities::Value(value) => value.get(name).is_some_and(|v| !v.is_null()),
            Capabilities::Text(text) => member(text, name).is_some_and(|v| v.get() != "null"),
        }
    }

    /// The capabilities as a value (read from the text each time: for who wants the whole).
    pub(crate) fn to_value(&self) -> Arc<Value> {
        match self {
            Capabilities::Value(value) => Arc::clone(value),
            Capabilities::Text(text) => Arc::new(Capabilities::read(text)),
        }
    }

    /// The text read into a value; `{}` when serde_json cannot make one of it (a number out of
    /// range, a lone surrogate), as if nothing were declared.
    pub(crate) fn read(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or_else(|_| Value::Object(Default::default()))
    }
}

/// A 2026-07-28 request's `_meta`, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestMeta {
    /// The revision the request speaks; always a per-request one.
    pub(crate) protocol_version: ProtocolVersion,
    /// The capabilities the client declared for this request (a JSON object), as their text.
    pub(crate) client_capabilities: Capabilities,
    /// The least severe log level to send; `None`: send no `notifications/message` at all.
    pub(crate) log_level: Option<LogLevel>,
    /// `_meta.progressToken`, when the request asked for progress.
    pub(crate) progress_token: Option<Value>,
}

impl RequestMeta {
    /// Reads and checks `params._meta` of a per-request-era message, in this order (contract
    /// §2.5 server-stateless, §2.9):
    /// 1. `_meta`, its protocol version (a string) and client capabilities (an object) are
    ///    present: otherwise `-32602`;
    /// 2. over HTTP, the `MCP-Protocol-Version` header is present and equals the `_meta`
    ///    version: otherwise `-32020`;
    /// 3. the version is one this server serves per request, among `revisions`: otherwise
    ///    `-32022` with `data.supported` and `data.requested`;
    /// 4. the optional client info (an object) and log level (a level name): otherwise `-32602`.
    ///
    /// `meta`: the request's `_meta`, read once (`Params::read_meta`).
    pub(crate) fn read(meta: Option<Meta>, arrival: Arrival, revisions: Revisions) -> Result<RequestMeta, RpcError> {
        let progress_token = progress_token_of(meta.as_ref());
        let keys = match meta {
            None => {
                return Err(RpcError::invalid_params(format!(
                    "missing params._meta: a {} request carries {PROTOCOL_VERSION} and {CLIENT_CAPABILITIES}",
                    ProtocolVersion::V2026_07_28
                )))
            }
            Some(Meta { keys }) => match keys {
                Ok(keys) => keys,
                Err((meta, Some(e))) if e.is_data() && meta.starts_with('{') => {
                    return Err(RpcError::invalid_params(format!("params._meta: {e}")))
                }
                Err(_) => return Err(RpcError::invalid_params("params._meta must be an object")),
            },
        };
        let is_null = |text: Option<&str>| text.is_none_or(|t| t == "null");
        if is_null(keys.protocol_version) {
            return Err(RpcError::invalid_params(format!("missing params._meta[\"{PROTOCOL_VERSION}\"]")));
        }
        let requested = match keys.protocol_version.and_then(string_value) {
            Some(version) => version,
            _ => {
                return Err(RpcError::invalid_params(format!("params._meta[\"{PROTOCOL_VERSION}\"] must be a string")))
            }
        };
        let requested = requested.as_ref();
        if is_null(keys.client_capabilities) {
            return Err(RpcError::invalid_params(format!("missing params._meta[\"{CLIENT_CAPABILITIES}\"]")));
        }
        // Kept as their text (valid JSON: the message was read): a `Value` of a real client's
        // capabilities costs about a fifth of a call, and most calls ask for none of them.
        let client_capabilities = match keys.client_capabilities {
            Some(text) if text.starts_with('{') => Capabilities::Text(text.into()),
            _ => {
                return Err(RpcError::invalid_params(format!(
                    "params._meta[\"{CLIENT_CAPABILITIES}\"] must be an object"
                )))
            }
        };
        if let Arrival::Http { protocol_version, .. } = arrival {
            // Spec (transports/streamable-http, Protocol Version Header): every POST carries it,
            // equal to the `_meta` version; otherwise 400 with HeaderMismatch.
            match protocol_version {
                None => {
                    return Err(RpcError::new(
                        HEADER_MISMATCH,
                        format!("missing MCP-Protocol-Version header: expected {requested:?}, as in params._meta"),
                    ))
                }
                Some(header) if header.trim() != requested => {
                    return Err(RpcError::new(
                        HEADER_MISMATCH,
                        format!(
                            "the MCP-Protocol-Version header {header:?} does not match params._meta[\"{PROTOCOL_VERSION}\"] {requested:?}"
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let protocol_version = match ProtocolVersion::parse(requested) {
            Some(version) if !version.is_stateful() && revisions.contains(version) => version,
            known => {
                let why = match known {
                    Some(v) if v.is_stateful() && revisions.contains(v) => {
                        format!("protocol version {requested} is served after an initialize handshake, not per request")
                    }
                    _ => format!("unsupported protocol version {requested:?}"),
                };
                return Err(RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, why)
                    .with_data(json!({ "supported": supported_versions(revisions), "requested": requested })));
            }
        };
        // Read only to be checked: nothing uses it (the text was checked as JSON already).
        if keys.client_info.is_some_and(|text| text != "null" && !text.starts_with('{')) {
            return Err(RpcError::invalid_params(format!(
                "params._meta[\"{CLIENT_INFO}\"] must be an object with name and version"
            )));
        }
        let log_level = match keys.log_level.filter(|text| *text != "null").map(string_value) {
            None => None,
            Some(Some(level)) => Some(LogLevel::parse(&level).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "params._meta[\"{LOG_LEVEL}\"] {level:?} is not a level: expected debug, info, notice, warning, error, critical, alert or emergency"
                ))
            })?),
            Some(None) => {
                return Err(RpcError::invalid_params(format!("params._meta[\"{LOG_LEVEL}\"] must be a level name")))
            }
        };
        Ok(RequestMeta { protocol_version, client_capabilities, log_level, progress_token })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::error::INVALID_PARAMS;

    fn parse_meta(params: &Params, arrival: Arrival, revisions: Revisions) -> Result<RequestMeta, RpcError> {
        RequestMeta::read(params.read_meta(), arrival, revisions)
    }

    #[test]
    fn levels_order_like_syslog() {
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
        assert_eq!(LogLevel::parse("warning"), Some(LogLevel::Warning));
        assert_eq!(LogLevel::parse("warn"), None);
    }

    #[test]
    fn a_progress_token_is_read_from_meta_only() {
        assert_eq!(progress_token(&Params::from_value(&json!({"_meta": {"progressToken": 7}}))), Some(json!(7)));
        assert_eq!(progress_token(&Params::from_value(&json!({"progressToken": 7}))), None);
        assert_eq!(progress_token(&Params::from_value(&Value::Null)), None);
    }

    const HTTP_2026: Arrival = Arrival::Http {
        protocol_version: Some("2026-07-28"),
        session: false,
        scopes: None,
        subject: None,
        headers: &[],
        era: None,
    };

    /// The conformance suite's `validMeta` (server-stateless).
    fn valid_meta() -> Value {
        json!({
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_INFO: {"name": "conformance-client", "version": "1.0.0"},
            CLIENT_CAPABILITIES: {},
        })
    }

    fn without(key: &str) -> Value {
        let mut meta = valid_meta();
        meta.as_object_mut().unwrap().remove(key);
        json!({ "_meta": meta })
    }

    fn with(key: &str, value: Value) -> Value {
        let mut meta = valid_meta();
        meta[key] = value;
        json!({ "_meta": meta })
    }

    fn code(result: Result<RequestMeta, RpcError>) -> i64 {
        result.map_or_else(|e| e.code, |_| 0)
    }

    /// A request's capabilities kept as text declare what their value declares, read alike.
    #[test]
    fn capabilities_as_text_declare_what_their_value_declares() {
        let cases = [
            r#"{}"#,
            r#"{"sampling":{},"roots":{"listChanged":true},"elicitation":null}"#,
            r#"{"s\u0061mpling":{"tools":{}},"x":[1,{"sampling":{}}]}"#,
            r#"{"roots":{},"roots":null}"#,
            r#"{"roots":null,"roots":{}}"#,
            r#"{ "elicitation" : { "form" : {} } }"#,
        ];
        for text in cases {
            let value = Capabilities::Value(Arc::new(serde_json::from_str(text).unwrap()));
            let kept = Capabilities::Text(text.into());
            for name in ["sampling", "roots", "elicitation", "tools", "x", "listChanged"] {
                assert_eq!(kept.declares(name), value.declares(name), "{text}: {name}");
            }
            assert_eq!(kept.to_value(), value.to_value(), "{text}");
        }
        // What serde_json cannot make a value of declares nothing when read whole.
        assert_eq!(*Capabilities::Text(r#"{"n":1e400}"#.into()).to_value(), json!({}));
    }

    #[test]
    fn valid_meta_reads_into_the_typed_struct() {
        let params = json!({"name": "t", "_meta": {
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_CAPABILITIES: {"sampling": {}, "roots": {"listChanged": true}},
            CLIENT_INFO: {"name": "conformance-test-client", "version": "1.0.0"},
            LOG_LEVEL: "warning",
        }});
        for arrival in [Arrival::Plain, HTTP_2026] {
            let meta = parse_meta(&Params::from_value(&params), arrival, Revisions::ALL).unwrap();
            assert_eq!(meta.protocol_version, ProtocolVersion::V2026_07_28);
            assert_eq!(*meta.client_capabilities.to_value(), json!({"sampling": {}, "roots": {"listChanged": true}}));
            assert_eq!(meta.log_level, Some(LogLevel::Warning));
        }
    }

    #[test]
    fn client_info_and_log_level_are_optional() {
        // Contract §2.5 sep-2575-request-meta-client-info-optional (id 105).
        let meta = parse_meta(&Params::from_value(&without(CLIENT_INFO)), HTTP_2026, Revisions::ALL).unwrap();
        assert_eq!(meta.log_level, None);
    }

    /// Every error path, in the order the checks run. The header probes of server-stateless:
    /// ids 101, 102, 104 (-32602), 301 (-32022), 302 (-32020).
    #[test]
    fn errors_come_in_the_contract_order() {
        let header = |v: &'static str| Arrival::Http {
            protocol_version: Some(v),
            session: false,
            scopes: None,
            subject: None,
            headers: &[],
            era: None,
        };
        let no_header = Arrival::Http {
            protocol_version: None,
            session: false,
            scopes: None,
            subject: None,
            headers: &[],
            era: None,
        };
        let v999 = with(PROTOCOL_VERSION, json!("v999.0.0"));
        let cases: Vec<(&str, Value, Arrival, i64)> = vec![
            // 1. required fields, before any header comparison (the probes still send the header).
            ("101 params {}", json!({}), HTTP_2026, INVALID_PARAMS),
            ("no params", Value::Null, HTTP_2026, INVALID_PARAMS),
            ("params array", json!([1]), HTTP_2026, INVALID_PARAMS),
            ("_meta null", json!({"_meta": null}), HTTP_2026, INVALID_PARAMS),
            ("_meta string", json!({"_meta": "2026-07-28"}), HTTP_2026, INVALID_PARAMS),
            ("102 no protocolVersion", without(PROTOCOL_VERSION), HTTP_2026, INVALID_PARAMS),
            ("protocolVersion number", with(PROTOCOL_VERSION, json!(20260728)), HTTP_2026, INVALID_PARAMS),
            ("104 no clientCapabilities", without(CLIENT_CAPABILITIES), HTTP_2026, INVALID_PARAMS),
            ("clientCapabilities array", with(CLIENT_CAPABILITIES, json!([])), HTTP_2026, INVALID_PARAMS),
            ("missing fields beat a bad header", without(CLIENT_CAPABILITIES), header("v999.0.0"), INVALID_PARAMS),
            ("missing fields beat no header", json!({}), no_header, INVALID_PARAMS),
            // 2. the header against _meta.
            ("302 header 2026, _meta v999", v999.clone(), HTTP_2026, HEADER_MISMATCH),
            ("header missing", json!({"_meta": valid_meta()}), no_header, HEADER_MISMATCH),
            ("header with other case", json!({"_meta": valid_meta()}), header("2026-07-28T"), HEADER_MISMATCH),
            ("bad header beats a bad log level", with(LOG_LEVEL, json!("loud")), header("2025-11-25"), HEADER_MISMATCH),
            // 3. the version.
            ("301 header and _meta v999", v999.clone(), header("v999.0.0"), UNSUPPORTED_PROTOCOL_VERSION),
            ("v999 over stdio", v999, Arrival::Plain, UNSUPPORTED_PROTOCOL_VERSION),
            (
                "a handshake revision per request",
                with(PROTOCOL_VERSION, json!("2025-11-25")),
                header("2025-11-25"),
                UNSUPPORTED_PROTOCOL_VERSION,
            ),
            (
                "unsupported beats a bad client info",
                json!({"_meta": {PROTOCOL_VERSION: "1900-01-01", CLIENT_CAPABILITIES: {}, CLIENT_INFO: 7}}),
                Arrival::Plain,
                UNSUPPORTED_PROTOCOL_VERSION,
            ),
            // 4. optional fields.
            ("clientInfo string", with(CLIENT_INFO, json!("me")), HTTP_2026, INVALID_PARAMS),
            ("logLevel unknown", with(LOG_LEVEL, json!("warn")), HTTP_2026, INVALID_PARAMS),
            ("logLevel number", with(LOG_LEVEL, json!(3)), HTTP_2026, INVALID_PARAMS),
            // And the good ones.
            ("valid over http", json!({"_meta": valid_meta()}), HTTP_2026, 0),
            ("valid over stdio", json!({"_meta": valid_meta()}), Arrival::Plain, 0),
            ("untrimmed header", json!({"_meta": valid_meta()}), header(" 2026-07-28 "), 0),
            (
                "the session flag does not matter here",
                json!({"_meta": valid_meta()}),
                Arrival::Http {
                    protocol_version: Some("2026-07-28"),
                    session: true,
                    scopes: None,
                    subject: None,
                    headers: &[],
                    era: None,
                },
                0,
            ),
            ("clientInfo null", with(CLIENT_INFO, Value::Null), HTTP_2026, 0),
            ("logLevel null", with(LOG_LEVEL, Value::Null), HTTP_2026, 0),
            ("logLevel emergency", with(LOG_LEVEL, json!("emergency")), HTTP_2026, 0),
        ];
        for (name, params, arrival, expected) in cases {
            let params = Params::from_value(&params);
            let got = parse_meta(&params, arrival, Revisions::ALL);
            if let Err(e) = &got {
                assert!(e.message.starts_with(|c: char| c.is_lowercase()) && !e.message.ends_with('.'), "{name}: {e}");
            }
            assert_eq!(code(got.clone()), expected, "{name}: {got:?}");
        }
    }

    #[test]
    fn unsupported_version_carries_supported_and_requested() {
        let err =
            parse_meta(&Params::from_value(&with(PROTOCOL_VERSION, json!("v999.0.0"))), Arrival::Plain, Revisions::ALL)
                .unwrap_err();
        assert_eq!(err.code, UNSUPPORTED_PROTOCOL_VERSION);
        let data = err.data.unwrap();
        assert_eq!(data["requested"], "v999.0.0");
        assert_eq!(data["supported"], json!(["2026-07-28"]));
    }

    #[test]
    fn mismatch_names_both_values() {
        let err =
            parse_meta(&Params::from_value(&with(PROTOCOL_VERSION, json!("v999.0.0"))), HTTP_2026, Revisions::ALL)
                .unwrap_err();
        assert!(err.message.contains("\"2026-07-28\"") && err.message.contains("\"v999.0.0\""), "{}", err.message);
    }

    #[test]
    fn the_era_is_chosen_per_message() {
        let http = |v: Option<&'static str>, session: bool| Arrival::Http {
            protocol_version: v,
            session,
            scopes: None,
            subject: None,
            headers: &[],
            era: None,
        };
        let meta = json!({"_meta": valid_meta()});
        let progress_only = json!({"name": "t", "_meta": {"progressToken": 1}});
        let cases: Vec<(&str, &str, Value, Arrival, Era)> = vec![
            // The conformance probes (contract §2.1, §2.5).
            ("stateless discover", "server/discover", meta.clone(), HTTP_2026, Era::PerRequest),
            ("101 params {} with the 2026 header", "server/discover", json!({}), HTTP_2026, Era::PerRequest),
            ("removed initialize with _meta", "initialize", meta.clone(), HTTP_2026, Era::PerRequest),
            (
                "301 v999 header and _meta",
                "server/discover",
                meta.clone(),
                http(Some("v999.0.0"), false),
                Era::PerRequest,
            ),
            ("v999 header without _meta", "tools/list", json!({}), http(Some("v999.0.0"), false), Era::PerRequest),
            (
                "legacy initialize probe",
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
                http(Some("2025-11-25"), false),
                Era::Handshake,
            ),
            (
                "initialize without a header",
                "initialize",
                json!({"protocolVersion": "2025-03-26"}),
                http(None, false),
                Era::Handshake,
            ),
            ("in a session", "tools/list", json!({}), http(Some("2025-11-25"), true), Era::Handshake),
            (
                "in a session with progressToken",
                "tools/call",
                progress_only.clone(),
                http(Some("2025-06-18"), true),
                Era::Handshake,
            ),
            (
                "reserved key wins over a session",
                "tools/list",
                meta.clone(),
                http(Some("2026-07-28"), true),
                Era::PerRequest,
            ),
            ("2026 header inside a session", "tools/list", json!({}), http(Some("2026-07-28"), true), Era::Handshake),
            ("no header, no _meta", "tools/list", json!({}), http(None, false), Era::Handshake),
            // stdio: only the body tells.
            ("stdio modern", "tools/list", meta.clone(), Arrival::Plain, Era::PerRequest),
            ("stdio discover probe without _meta", "server/discover", Value::Null, Arrival::Plain, Era::PerRequest),
            ("stdio legacy", "tools/list", json!({}), Arrival::Plain, Era::Handshake),
            ("stdio progressToken only", "tools/call", progress_only, Arrival::Plain, Era::Handshake),
            ("stdio only capabilities", "tools/list", without(PROTOCOL_VERSION), Arrival::Plain, Era::PerRequest),
            (
                "stdio only logLevel",
                "tools/list",
                json!({"_meta": {LOG_LEVEL: "info"}}),
                Arrival::Plain,
                Era::PerRequest,
            ),
            (
                "stdio initialize",
                "initialize",
                json!({"protocolVersion": "2025-11-25"}),
                Arrival::Plain,
                Era::Handshake,
            ),
            ("_meta not an object", "tools/list", json!({"_meta": 5}), Arrival::Plain, Era::Handshake),
        ];
        for (name, method, params, arrival, expected) in cases {
            let (method, params) = (Method::from(method), Params::from_value(&params));
            assert_eq!(era(&method, &params, arrival, Revisions::ALL), expected, "{name}");
            // A server that speaks one era reads every message in it.
            assert_eq!(era(&method, &params, arrival, old()), Era::Handshake, "{name}, pinned to the handshake");
            assert_eq!(era(&method, &params, arrival, new()), Era::PerRequest, "{name}, pinned to 2026-07-28");
        }
    }

    fn old() -> Revisions {
        "..2025-11-25".parse().unwrap()
    }

    fn new() -> Revisions {
        "2026-07-28..".parse().unwrap()
    }

    #[test]
    fn a_method_no_served_revision_has_is_not_found_and_initialize_names_the_served_ones() {
        let served = |name: &str, revisions| method_served(&Method::from(name), revisions);
        for name in ["initialize", "server/discover", "tools/call", "x/unknown", "subscriptions/listen"] {
            assert!(served(name, Revisions::ALL).is_ok(), "{name}");
        }
        for name in ["server/discover", "subscriptions/listen", "tasks/update"] {
            assert_eq!(served(name, old()).map_err(|e| e.code), Err(METHOD_NOT_FOUND), "{name}");
        }
        for name in ["initialize", "ping", "tools/list", "x/unknown"] {
            assert!(served(name, old()).is_ok(), "{name}");
        }
        for name in ["ping", "logging/setLevel", "resources/subscribe", "tasks/list"] {
            assert_eq!(served(name, new()).map_err(|e| e.code), Err(METHOD_NOT_FOUND), "{name}");
        }
        let refused = served("initialize", new()).unwrap_err();
        assert_eq!((refused.code, refused.data), (METHOD_NOT_FOUND, Some(json!({"supported": ["2026-07-28"]}))));
        assert!(refused.message.contains("2026-07-28 only"), "{}", refused.message);
        assert!(served("server/discover", new()).is_ok());
    }

    #[test]
    fn the_versions_served_per_request_follow_the_range() {
        assert_eq!(supported_versions(Revisions::ALL), ["2026-07-28"]);
        assert_eq!(supported_versions(new()), ["2026-07-28"]);
        assert!(supported_versions(old()).is_empty());
        let params = Params::from_value(&json!({"_meta": valid_meta()}));
        let refused = parse_meta(&params, Arrival::Plain, old()).unwrap_err();
        assert_eq!(refused.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(refused.data.unwrap()["supported"], json!([]));
        assert!(parse_meta(&params, Arrival::Plain, new()).is_ok());
    }
}
