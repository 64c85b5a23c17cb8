//! Revision 2026-07-28 (and any later per-request revision) from the client side: which messages
//! are of that era, and the headers their POST carries (SEP-2243: `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), with the tools' `x-mcp-header` annotations learnt
//! from the `tools/list` answers that pass. Pure functions and a cache; no socket.

use serde_json::Value;
use std::collections::HashMap;
use tinymcp::{base64, mcp_headers, ProtocolVersion};

/// The `_meta` member that names a request's revision.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Tools whose annotations are remembered, at most (a server cannot make the bridge hold more).
const TOOLS_CAP: usize = 10_000;
/// Spec (Value Encoding): the sentinel around a Base64 value.
const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";

/// The per-request revision a message names in its `_meta`, when it is of that era: any revision
/// but the handshake's (2024-11-05 to 2025-11-25), whose terms live in the session instead.
pub fn revision(message: &Value) -> Option<&str> {
    let version = message.get("params")?.get("_meta")?.get(META_VERSION)?.as_str()?;
    let handshake = ProtocolVersion::parse(version).is_some_and(ProtocolVersion::is_stateful);
    (!handshake).then_some(version)
}

/// A tool's `x-mcp-header` annotations: (property path, header suffix).
type Annotations = Vec<(Vec<String>, String)>;

/// The annotations of the tools seen in `tools/list` answers, by tool name.
#[derive(Default)]
pub struct Tools {
    by_name: HashMap<String, Annotations>,
}

impl Tools {
    /// Learns the tools of a `tools/list` result, and takes out those whose annotations are
    /// invalid. Spec (Schema Extension): a Streamable HTTP client must exclude them from the
    /// list, and should log why; the host, behind stdio, would otherwise call a tool whose
    /// headers cannot be made.
    pub fn learn(&mut self, result: &mut Value) {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return };
        tools.retain(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            if let Err(why) = mcp_headers::check_annotations(schema) {
                log::warn!("tool {name:?} left out of tools/list: {why}");
                self.by_name.remove(name);
                return false;
            }
            let annotations: Annotations = mcp_headers::annotations(schema)
                .into_iter()
                .map(|(path, suffix)| (path.into_iter().map(str::to_owned).collect(), suffix.to_owned()))
                .collect();
            if annotations.is_empty() {
                self.by_name.remove(name);
            } else if self.by_name.len() < TOOLS_CAP || self.by_name.contains_key(name) {
                self.by_name.insert(name.to_owned(), annotations);
            }
            true
        });
    }

    /// The `Mcp-Param-*` headers of a `tools/call` (spec Client Behavior): each annotated
    /// argument present and not `null`, as text, encoded.
    fn params(&self, params: &Value) -> Vec<(String, String)> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(annotations) = self.by_name.get(name) else { return Vec::new() };
        let arguments = params.get("arguments");
        let mut headers = Vec::new();
        for (path, suffix) in annotations {
            let mut value = arguments;
            for key in path {
                value = value.and_then(|at| at.get(key));
            }
            let text = match value {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Bool(flag)) => flag.to_string(),
                Some(Value::Number(number)) => number.to_string(),
                // Absent or `null`: no header; objects and arrays have no header form.
                _ => continue,
            };
            headers.push((format!("Mcp-Param-{suffix}"), encode(&text)));
        }
        headers
    }
}

/// The headers of one per-request POST besides the user's and `Accept`/`Content-Type`: the
/// revision, `Mcp-Method`, `Mcp-Name` where the method has one, and `Mcp-Param-*` for a
/// `tools/call` of a tool whose annotations are known. `Err` says why a header cannot carry
/// the message (a method or revision that is not visible ASCII has no encoded form).
pub fn headers(message: &Value, version: &str, tools: &Tools) -> Result<Vec<(String, String)>, String> {
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    for (what, text) in [("method", method), ("protocol version", version)] {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!("the {what} {text:?} cannot travel in an HTTP header: expected visible ASCII"));
        }
    }
    let mut headers =
        vec![("MCP-Protocol-Version".to_owned(), version.to_owned()), ("Mcp-Method".to_owned(), method.to_owned())];
    let params = message.get("params").unwrap_or(&Value::Null);
    if let Some(name) = mcp_headers::name_member(method).and_then(|field| params.get(field)).and_then(Value::as_str) {
        headers.push(("Mcp-Name".to_owned(), encode(name)));
    }
    if method == "tools/call" {
        headers.extend(tools.params(params));
    }
    Ok(headers)
}

/// Spec (Value Encoding): a value goes as it is when it is visible ASCII and spaces with none at
/// either end, and does not look like the sentinel; otherwise as `=?base64?…?=` of its UTF-8.
fn encode(value: &str) -> String {
    let header_safe = value.bytes().all(|b| b == b' ' || b.is_ascii_graphic());
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let sentinel = value.starts_with(BASE64_PREFIX) && value.ends_with(BASE64_SUFFIX);
    let plain = header_safe && !padded && !sentinel;
    if plain {
        value.to_owned()
    } else {
        format!("{BASE64_PREFIX}{}{BASE64_SUFFIX}", base64::encode(value.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(version: &str) -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": version})
    }

    #[test]
    fn the_era_is_read_from_the_request_meta() {
        let call = |version: &str| json!({"method": "tools/list", "params": {"_meta": meta(version)}});
        assert_eq!(revision(&call("2026-07-28")), Some("2026-07-28"));
        assert_eq!(revision(&call("2099-01-01")), Some("2099-01-01"), "a later revision is carried as it is");
        assert_eq!(revision(&call("2025-11-25")), None);
        assert_eq!(revision(&json!({"method": "tools/list", "params": {}})), None);
        assert_eq!(revision(&json!({"method": "initialize"})), None);
    }

    #[test]
    fn values_are_encoded_as_the_spec_shows() {
        // Spec (Value Encoding), the examples' table.
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        assert_eq!(encode("a\r\nX-Injected: 1"), "=?base64?YQ0KWC1JbmplY3RlZDogMQ==?=");
    }

    #[test]
    fn headers_mirror_the_body() {
        let mut tools = Tools::default();
        let mut listed = json!({"tools": [
            {"name": "sql", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry"},
                "target": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {"o": {"type": "object", "x-mcp-header": "O"}}}},
            {"name": "plain", "inputSchema": {"type": "object"}}
        ]});
        tools.learn(&mut listed);
        let names: Vec<&str> =
            listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["sql", "plain"], "a tool with an invalid annotation is left out");
        assert!(tools.by_name.contains_key("sql") && !tools.by_name.contains_key("plain"));

        let call = json!({"method": "tools/call", "params": {"name": "sql", "arguments": {
            "region": "us-west1", "n": 42, "dry": false, "target": {"zone": " z "}, "query": "x"}}});
        let got = headers(&call, "2026-07-28", &tools).unwrap();
        let want = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "sql"),
            ("Mcp-Param-Region", "us-west1"),
            ("Mcp-Param-N", "42"),
            ("Mcp-Param-Dry", "false"),
            ("Mcp-Param-Zone", "=?base64?IHog?="),
        ];
        let mut got: Vec<(&str, &str)> = got.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let mut want = want.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);

        // Absent and null arguments make no header.
        let call = json!({"method": "tools/call", "params": {"name": "sql", "arguments": {"region": null}}});
        assert_eq!(headers(&call, "2026-07-28", &tools).unwrap().len(), 3);

        let read = json!({"method": "resources/read", "params": {"uri": "file:///a b"}});
        assert!(headers(&read, "2026-07-28", &tools).unwrap().contains(&("Mcp-Name".into(), "file:///a b".into())));
        let task = json!({"method": "tasks/get", "params": {"taskId": "t-1"}});
        assert!(headers(&task, "2026-07-28", &tools).unwrap().contains(&("Mcp-Name".into(), "t-1".into())));
        let list = json!({"method": "tools/list", "params": {"name": "x"}});
        assert_eq!(headers(&list, "2026-07-28", &tools).unwrap().len(), 2, "tools/list has no Mcp-Name");

        let bad = json!({"method": "tools/list\r\nX-Evil: 1"});
        assert!(headers(&bad, "2026-07-28", &tools).unwrap_err().contains("visible ASCII"));
        assert!(headers(&list, "2026-07-28\n", &tools).is_err());
    }
}
