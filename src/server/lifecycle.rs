//! `initialize`: version negotiation, client capabilities, server identity and capabilities.
//! Never names a transport or a thread.

use crate::server::session::{Negotiated, Session};
use crate::server::Server;
use crate::wire::error::RpcError;
use crate::wire::protocol::{ProtocolVersion, Revisions};
use serde_json::{json, Value};
use std::sync::Arc;

/// The revision to answer: the client's when we speak it (a handshake revision among
/// `revisions`), otherwise the newest handshake revision among them; `None` when `revisions`
/// has no handshake revision (such a server has no `initialize`).
pub fn negotiate(requested: &str, revisions: Revisions) -> Option<ProtocolVersion> {
    match ProtocolVersion::parse(requested) {
        Some(v) if v.is_stateful() && revisions.contains(v) => Some(v),
        _ => revisions.latest_stateful(),
    }
}

/// `initialize`. A second `initialize` on the same session is refused.
pub(crate) fn initialize(server: &Server, session: &Session, params: Value) -> Result<Value, RpcError> {
    if session.is_initialized() {
        return Err(RpcError::invalid_request("initialize: this session is already initialized"));
    }
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("initialize: protocolVersion must be a string"))?;
    let capabilities = match params.get("capabilities") {
        Some(c @ Value::Object(_)) => c.clone(),
        None | Some(Value::Null) => json!({}),
        Some(_) => return Err(RpcError::invalid_params("initialize: capabilities must be an object")),
    };
    let client_info = params.get("clientInfo").cloned().unwrap_or(Value::Null);
    // Invariant: `initialize` reaches here only on a server that speaks a handshake revision
    // (`meta::method_served` refuses it on any other).
    let Some(version) = negotiate(requested, server.options().revisions) else {
        return Err(RpcError::method_not_found("initialize"));
    };
    log::info!(
        "initialize: client {} asked for {requested}, answering {version}",
        client_info.get("name").and_then(Value::as_str).unwrap_or("(unnamed)")
    );
    session.set_negotiated(Negotiated { version, client_capabilities: Arc::new(capabilities) });
    if let Some(name) = client_info.get("name").and_then(Value::as_str) {
        session.set_client(name);
    }
    let mut result = json!({
        "protocolVersion": version.as_str(),
        "capabilities": server.capabilities(version),
        "serverInfo": server.info(version),
    });
    if let Some(instructions) = server.instructions() {
        result["instructions"] = instructions.into();
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_versions_are_echoed_and_others_get_the_latest() {
        let all = Revisions::ALL;
        assert_eq!(negotiate("2024-11-05", all), Some(ProtocolVersion::V2024_11_05));
        assert_eq!(negotiate("2025-06-18", all), Some(ProtocolVersion::V2025_06_18));
        assert_eq!(negotiate("1999-01-01", all), Some(ProtocolVersion::V2025_11_25));
        // The stateless revision has no handshake; a client asking for it here gets the latest stateful one.
        assert_eq!(negotiate("2026-07-28", all), Some(ProtocolVersion::V2025_11_25));
    }

    #[test]
    fn a_pinned_server_negotiates_within_its_range() {
        let mid: Revisions = "2025-03-26..2025-06-18".parse().unwrap();
        assert_eq!(negotiate("2025-03-26", mid), Some(ProtocolVersion::V2025_03_26));
        for outside in ["2024-11-05", "2025-11-25", "2026-07-28", "1999-01-01"] {
            assert_eq!(negotiate(outside, mid), Some(ProtocolVersion::V2025_06_18), "{outside}");
        }
        let old: Revisions = "..2025-11-25".parse().unwrap();
        assert_eq!(negotiate("2026-07-28", old), Some(ProtocolVersion::V2025_11_25));
        assert_eq!(negotiate("2025-11-25", "2026-07-28..".parse().unwrap()), None);
    }
}
