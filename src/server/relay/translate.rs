//! Between the revisions: what a relay changes in a message when its client and the other
//! server speak different eras. A 2026-07-28 client of a server that speaks only the
//! handshake revisions gets `server/discover` from the server's `initialize` answer, requests
//! without the per-request `_meta` terms, and results with `resultType`, cache hints and the
//! server's identity; a handshake client of a server that speaks only 2026-07-28 gets
//! `initialize` from its `server/discover`, and requests with the session's terms added as
//! `_meta`. Pure functions of JSON values: no state, no I/O.

use crate::util::lit;
use crate::wire::error::RpcError;
use crate::wire::meta::{CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PROTOCOL_VERSION};
use crate::wire::protocol::{Id, ProtocolVersion};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::Arc;

/// `_meta` key of a server's identity on every 2026-07-28 result.
pub(super) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What the other server settled when the relay first spoke to it.
#[derive(Debug, Clone)]
pub(crate) enum Speaks {
    /// A handshake revision: its `initialize` result.
    Handshake { version: ProtocolVersion, result: Value },
    /// Only 2026-07-28: its `server/discover` result.
    PerRequest { discover: Value },
}

impl Speaks {
    /// What the other server's `initialize` answer says it speaks, if it is a handshake
    /// revision this relay knows.
    pub(crate) fn from_initialize(result: Value) -> Option<Speaks> {
        let version = result.get("protocolVersion").and_then(Value::as_str).and_then(ProtocolVersion::parse)?;
        version.is_stateful().then_some(Speaks::Handshake { version, result })
    }

    /// The server's identity, serialised once, as 2026-07-28 results carry it.
    pub(crate) fn info(&self) -> Arc<Box<RawValue>> {
        let info = match self {
            Speaks::Handshake { result, .. } => result.get("serverInfo"),
            Speaks::PerRequest { discover } => discover.get("_meta").and_then(|m| m.get(SERVER_INFO)),
        };
        let info =
            info.filter(|i| i.is_object()).cloned().unwrap_or_else(|| lit(r#"{"name": "proxied", "version": "0"}"#));
        Arc::new(serde_json::value::to_raw_value(&info).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }

    /// `server/discover` for a 2026-07-28 client, from a handshake server's `initialize` answer.
    /// The handshake `tasks` is left out of the capabilities: 2026-07-28 has the tasks
    /// extension instead, which the relay does not map it to. List changes and resource
    /// subscriptions reach such a client on `subscriptions/listen` streams of the relay's own.
    pub(crate) fn discover(&self) -> Value {
        match self {
            Speaks::PerRequest { discover } => discover.clone(),
            Speaks::Handshake { result, .. } => {
                let mut capabilities = result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
                if let Value::Object(caps) = &mut capabilities {
                    caps.remove("tasks");
                }
                let mut discover = json!({
                    "supportedVersions": [ProtocolVersion::V2026_07_28.as_str()],
                    "capabilities": capabilities,
                    "ttlMs": 0,
                    "cacheScope": "private",
                });
                if let Some(instructions) = result.get("instructions").filter(|i| i.is_string()) {
                    discover["instructions"] = instructions.clone();
                }
                discover
            }
        }
    }

    /// `initialize`'s answer for a handshake client that asked for `requested`: the other
    /// server's own when it speaks a handshake revision (with the revision the client asked
    /// for when the server's is newer, since the relay passes messages as they are), else
    /// made from its `server/discover` (list changes and resource subscriptions reach the
    /// session through a `subscriptions/listen` stream the relay holds open for it).
    pub(crate) fn initialize(&self, requested: Option<ProtocolVersion>) -> Value {
        match self {
            Speaks::Handshake { version, result } => {
                let mut result = result.clone();
                if let Some(requested) = requested.filter(|r| r.is_stateful() && r < version) {
                    result["protocolVersion"] = requested.as_str().into();
                }
                result
            }
            Speaks::PerRequest { discover } => {
                let version = requested.filter(|r| r.is_stateful()).unwrap_or(ProtocolVersion::LATEST_STATEFUL);
                let capabilities = discover.get("capabilities").cloned().unwrap_or_else(|| json!({}));
                let info = discover.get("_meta").and_then(|m| m.get(SERVER_INFO)).filter(|i| i.is_object());
                let mut result = json!({
                    "protocolVersion": version.as_str(),
                    "capabilities": capabilities,
                    "serverInfo": info.cloned().unwrap_or_else(|| lit(r#"{"name": "proxied", "version": "0"}"#)),
                });
                if let Some(instructions) = discover.get("instructions").filter(|i| i.is_string()) {
                    result["instructions"] = instructions.clone();
                }
                result
            }
        }
    }
}

/// The 2026-07-28 terms of a handshake client's requests, as `_meta` members: what its
/// `initialize` and `logging/setLevel` settled.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientTerms {
    pub(crate) capabilities: Value,
    pub(crate) info: Value,
    pub(crate) log_level: Option<String>,
}

impl ClientTerms {
    /// The terms of an `initialize` request's params.
    pub(crate) fn of_initialize(params: &Value) -> ClientTerms {
        let capabilities = params.get("capabilities").filter(|c| c.is_object()).cloned().unwrap_or_else(|| json!({}));
        let info = params.get("clientInfo").filter(|i| i.is_object()).cloned().unwrap_or(Value::Null);
        ClientTerms { capabilities, info, log_level: None }
    }

    /// `params` with the per-request `_meta` members added (a client's own members stay).
    pub(crate) fn add_to(&self, mut params: Value) -> Value {
        if !params.is_object() {
            params = json!({});
        }
        let meta = params.as_object_mut().map(|p| p.entry("_meta").or_insert_with(|| json!({})));
        if let Some(Value::Object(meta)) = meta {
            meta.insert(PROTOCOL_VERSION.into(), ProtocolVersion::V2026_07_28.as_str().into());
            meta.insert(CLIENT_CAPABILITIES.into(), self.capabilities.clone());
            if self.info.is_object() {
                meta.insert(CLIENT_INFO.into(), self.info.clone());
            }
            if let Some(level) = &self.log_level {
                meta.insert(LOG_LEVEL.into(), level.as_str().into());
            }
        }
        params
    }
}

/// The `notifications` filter of the listen stream a handshake session's relay holds open on
/// a 2026-07-28 server: every list change its `server/discover` declares, and the resources
/// the session subscribed to.
pub(crate) fn listen_filter(discover: &Value, uris: &[String]) -> Value {
    let caps = discover.get("capabilities").cloned().unwrap_or_default();
    let changes = |key: &str| caps.get(key).and_then(|c| c.get("listChanged")).and_then(Value::as_bool) == Some(true);
    let mut filter = json!({
        "toolsListChanged": changes("tools"),
        "promptsListChanged": changes("prompts"),
        "resourcesListChanged": changes("resources"),
    });
    if !uris.is_empty() {
        filter["resourceSubscriptions"] = json!(uris);
    }
    json!({ "notifications": filter })
}

/// Who the relay says it is to the server it proxies.
const PROXY_INFO: &str = concat!(r#"{"name": "tinymcp-proxy", "version": ""#, env!("CARGO_PKG_VERSION"), r#""}"#);

/// The `_meta` of the relay's own 2026-07-28 request (its `server/discover`).
pub(crate) fn own_terms() -> Value {
    ClientTerms { capabilities: json!({}), info: lit(PROXY_INFO), log_level: None }.add_to(json!({}))
}

/// The params of the relay's own `initialize` of a shared server: the newest handshake
/// revision, and the client capabilities it declares (each of the server's requests then goes
/// to the client whose request caused it).
pub(crate) fn own_initialize<'a>(capabilities: impl Iterator<Item = &'a str>) -> Value {
    // Each with every option it has: what a client lacks is checked when it is asked.
    let full = |name: &str| match name {
        "sampling" => lit(r#"{"tools": {}, "context": {}}"#),
        "elicitation" => lit(r#"{"form": {}, "url": {}}"#),
        _ => lit(r#"{"listChanged": true}"#),
    };
    // Inserted one by one: `collect` into a map instantiates a sort and a bulk build (~5 KB).
    let mut declared = serde_json::Map::new();
    for c in capabilities {
        declared.insert(c.to_owned(), full(c));
    }
    json!({
        "protocolVersion": ProtocolVersion::LATEST_STATEFUL.as_str(),
        "capabilities": declared,
        "clientInfo": lit(PROXY_INFO),
    })
}

/// A 2026-07-28 request's params as a handshake server takes them: the per-request terms
/// (`io.modelcontextprotocol/…` members of `_meta`) and the input-required members removed (a
/// shared server's progress token is `Upstream::request`'s to replace). A `_meta` left empty
/// is removed.
pub(crate) fn strip_terms(mut params: Value) -> Value {
    let Some(object) = params.as_object_mut() else { return json!({}) };
    // The input-required rounds are the relay's to play with the client (`Upstream::resume`).
    object.remove("inputResponses");
    object.remove("requestState");
    if let Some(Value::Object(meta)) = object.get_mut("_meta") {
        meta.retain(|key, _| !key.starts_with("io.modelcontextprotocol/"));
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
    params
}

/// `params` with its `_meta.progressToken` set to `token`.
pub(crate) fn with_token(mut params: Value, token: &Value) -> Value {
    if let Some(Value::Object(meta)) = params.get_mut("_meta") {
        meta.insert("progressToken".into(), token.clone());
    }
    params
}

/// A 2026-07-28 server's error as a handshake client knows it: an unknown resource is
/// `-32002` there (`-32602` with `data.uri` since 2026-07-28).
pub(crate) fn older_error(method: &str, mut error: RpcError) -> RpcError {
    let names_uri = error.data.as_ref().is_some_and(|d| d.get("uri").is_some());
    if method == "resources/read" && error.code == crate::wire::error::INVALID_PARAMS && names_uri {
        error.code = crate::wire::error::RESOURCE_NOT_FOUND;
    }
    error
}

/// A handshake server's error as a 2026-07-28 client knows it: an unknown resource is
/// `-32602` with `data.uri` there (`-32002` before).
pub(crate) fn newer_error(method: Option<Id>, mut error: RpcError) -> RpcError {
    if method == Some(Id::ResourcesRead) && error.code == crate::wire::error::RESOURCE_NOT_FOUND {
        error.code = crate::wire::error::INVALID_PARAMS;
    }
    error
}

/// Whether a 2026-07-28 result asks for the client's input (an `InputRequiredResult`).
pub(crate) fn needs_input(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// The client capability a server's request to the client needs, if it is one the spec names.
pub(crate) fn capability_of(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// The first client capability a server's request to the client needs that `declared` (the
/// client's capabilities) lacks, by its dotted name: `sampling` (and `sampling.tools` when it
/// offers tools), `elicitation` (and `elicitation.url` for a URL), `roots`.
pub(crate) fn lacking(method: &str, params: &Value, declared: &Value) -> Option<&'static str> {
    let needs: &[&'static str] = match method {
        "sampling/createMessage" if params.get("tools").is_some() => &["sampling", "sampling.tools"],
        "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => {
            &["elicitation", "elicitation.url"]
        }
        _ => match capability_of(method) {
            Some("sampling") => &["sampling"],
            Some("elicitation") => &["elicitation"],
            Some(_) => &["roots"],
            None => &[],
        },
    };
    needs.iter().copied().find(|need| need.split('.').try_fold(declared, |at, key| at.get(key)).is_none())
}

/// The key of a server's request to the client in an `inputRequests` map: named for what it
/// asks (one request a round, so no two keys meet in one map).
pub(crate) fn input_key(method: &str) -> String {
    match capability_of(method) {
        Some(kind) => kind.to_owned(),
        None => method.replace('/', "_"),
    }
}

/// A 2026-07-28 log level name the handshake revisions also know, read from a request's
/// `logging/setLevel` params.
pub(crate) fn level_of(params: &Value) -> Option<String> {
    let level = params.get("level").and_then(Value::as_str)?;
    crate::wire::meta::LogLevel::parse(level).map(|_| level.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    #[test]
    fn a_handshake_answer_becomes_discover_without_what_the_relay_cannot_carry() {
        let init = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true}, "tasks": {}, "logging": {}},
            "serverInfo": {"name": "child", "version": "2"},
            "instructions": "be nice",
        });
        let speaks = Speaks::from_initialize(init).unwrap();
        let discover = speaks.discover();
        assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(
            discover["capabilities"],
            json!({"tools": {"listChanged": true}, "resources": {"subscribe": true}, "logging": {}})
        );
        assert_eq!(discover["instructions"], "be nice");
        assert_eq!(
            serde_json::from_str::<Value>(speaks.info().get()).unwrap(),
            json!({"name": "child", "version": "2"})
        );
        // An older client gets the revision it asked for.
        let answer = speaks.initialize(ProtocolVersion::parse("2025-03-26"));
        assert_eq!(answer["protocolVersion"], "2025-03-26");
    }

    #[test]
    fn a_discover_answer_becomes_initialize() {
        let discover = json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}, "resources": {"subscribe": true}},
            "_meta": {SERVER_INFO: {"name": "modern", "version": "1"}},
            "resultType": "complete",
        });
        let answer = Speaks::PerRequest { discover }.initialize(ProtocolVersion::parse("2025-06-18"));
        assert_eq!(
            answer,
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}, "resources": {"subscribe": true}},
                   "serverInfo": {"name": "modern", "version": "1"}})
        );
    }

    #[test]
    fn terms_are_stripped_and_added() {
        let params = json!({"name": "echo", "_meta": {PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, "progressToken": 7}});
        assert_eq!(strip_terms(params), json!({"name": "echo", "_meta": {"progressToken": 7}}));
        let params = json!({"name": "echo", "_meta": {PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}}});
        assert_eq!(strip_terms(params), json!({"name": "echo"}));
        let terms = ClientTerms {
            capabilities: json!({"sampling": {}}),
            info: json!({"name": "c"}),
            log_level: Some("debug".into()),
        };
        let mut meta = Map::new();
        meta.insert(PROTOCOL_VERSION.into(), "2026-07-28".into());
        meta.insert(CLIENT_CAPABILITIES.into(), json!({"sampling": {}}));
        meta.insert(CLIENT_INFO.into(), json!({"name": "c"}));
        meta.insert(LOG_LEVEL.into(), "debug".into());
        meta.insert("progressToken".into(), 1.into());
        assert_eq!(terms.add_to(json!({"_meta": {"progressToken": 1}})), json!({"_meta": Value::Object(meta)}));
    }
}
