//! `initialize`: version negotiation, client capabilities, server identity and capabilities.
//! Never names a transport or a thread.

use crate::server::session::{Negotiated, Session};
use crate::server::Server;
use crate::wire::rpc::RpcError;
use crate::wire::version::ProtocolVersion;
use serde_json::{json, Value};
use std::sync::Arc;

/// The revision to answer: the client's when we speak it, otherwise our latest stateful one.
pub fn negotiate(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if v.is_stateful() => v,
        _ => ProtocolVersion::LATEST_STATEFUL,
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
    let version = negotiate(requested);
    log::info!(
        "initialize: client {} asked for {requested}, answering {version}",
        client_info.get("name").and_then(Value::as_str).unwrap_or("(unnamed)")
    );
    session.set_negotiated(Negotiated { version, client_capabilities: Arc::new(capabilities) });
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
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate("1999-01-01"), ProtocolVersion::V2025_11_25);
        // The stateless revision has no handshake; a client asking for it here gets the latest stateful one.
        assert_eq!(negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
    }
}
