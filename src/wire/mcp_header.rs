//! `x-mcp-header` annotations of a tool's input schema (2026-07-28, SEP-2243; spec transports/
//! streamable-http, Schema Extension): where they sit, and the registration-time check that
//! refuses a tool whose annotations clients would reject. Pure functions over the schema, in the
//! wire so that the registry and the HTTP transport's header check share them.

use serde_json::Value;

/// The schema keyword that names a tool argument's header suffix.
pub(crate) const X_MCP_HEADER: &str = "x-mcp-header";

/// How deep `x-mcp-header` annotations are looked for in an input schema.
const MAX_SCHEMA_DEPTH: usize = 32;

/// The params member the `Mcp-Name` header mirrors for `method` (`name`, `uri`, `taskId`), if
/// that method has one: the method table's column, for a client building the header.
pub fn name_member(method: &str) -> Option<&'static str> {
    super::method::spec(method).and_then(|spec| spec.mcp_name)
}

/// The `x-mcp-header` annotations of an input schema that sit on a chain of `properties` keys
/// from the root, as (property path, header suffix). Others are invalid and ignored here.
pub fn annotations(schema: &Value) -> Vec<(Vec<&str>, &str)> {
    fn walk<'s>(schema: &'s Value, path: &mut Vec<&'s str>, out: &mut Vec<(Vec<&'s str>, &'s str)>) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        if path.len() >= MAX_SCHEMA_DEPTH {
            return;
        }
        for (key, property) in properties {
            path.push(key);
            if let Some(suffix) = property.get(X_MCP_HEADER).and_then(Value::as_str) {
                out.push((path.clone(), suffix));
            }
            walk(property, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// Checks a tool's `x-mcp-header` annotations when it is registered (spec transports/
/// streamable-http, Schema Extension): each a non-empty HTTP token, unique ignoring case, on
/// a `string`, `integer` or `boolean` property reachable from the root through `properties`
/// keys only. Clients drop a tool that breaks these rules, so the server must not list it.
pub fn check_annotations(schema: &Value) -> Result<(), String> {
    let mut seen: Vec<String> = Vec::new();
    for (path, suffix) in annotations(schema) {
        let at = path.join(".");
        if suffix.is_empty() || !suffix.bytes().all(is_tchar) {
            return Err(format!(
                "x-mcp-header {suffix:?} on {at} is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)"
            ));
        }
        let lower = suffix.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!("x-mcp-header {suffix:?} on {at} is used twice (names ignore case)"));
        }
        seen.push(lower);
        let mut property = schema;
        for key in &path {
            property = &property["properties"][*key];
        }
        match property.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(format!(
                    "x-mcp-header {suffix:?} on {at}: the property's type is {}, expected string, integer or boolean",
                    other.unwrap_or("not a single type name")
                ))
            }
        }
    }
    // An annotation anywhere else (under items, anyOf, $defs, ...) makes the tool invalid.
    let reachable = annotations(schema).len();
    let everywhere = count_everywhere(schema, 0);
    if everywhere != reachable {
        return Err(format!(
            "{} x-mcp-header annotation(s) are not reachable through properties alone (items, anyOf, $ref, ... are not allowed)",
            everywhere - reachable
        ));
    }
    Ok(())
}

/// Every `x-mcp-header` key in a schema, wherever it sits (as a schema keyword, not as a
/// property name).
fn count_everywhere(value: &Value, depth: usize) -> usize {
    if depth > MAX_SCHEMA_DEPTH {
        return 0;
    }
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, child)| {
                let here = usize::from(key == X_MCP_HEADER && child.is_string());
                here + count_everywhere(child, depth + 1)
            })
            .sum(),
        Value::Array(items) => items.iter().map(|item| count_everywhere(item, depth + 1)).sum(),
        _ => 0,
    }
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// The rust fixture's custom-header tool (contract §2.3 `test_custom_header`), plus an
    /// integer, a boolean and a nested string to cover the other types and paths.
    pub(crate) fn custom_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "value": {"type": "string", "x-mcp-header": "Value"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
                "target": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
                "plain": {"type": "string"}
            },
            "required": ["value"]
        })
    }

    #[test]
    fn annotations_follow_properties_chains_only() {
        let schema = custom_schema();
        let found = annotations(&schema);
        let mut found: Vec<(String, &str)> = found.into_iter().map(|(path, s)| (path.join("."), s)).collect();
        found.sort();
        assert_eq!(
            found,
            vec![
                ("count".to_string(), "Count"),
                ("dry".to_string(), "Dry-Run"),
                ("target.region".to_string(), "Region"),
                ("value".to_string(), "Value"),
            ]
        );
        assert!(annotations(&json!({"type": "object"})).is_empty());
        assert!(annotations(&json!({"items": {"properties": {"a": {"x-mcp-header": "A"}}}})).is_empty());
    }

    #[test]
    fn registration_check_refuses_invalid_annotations() {
        assert_eq!(check_annotations(&custom_schema()), Ok(()));
        assert_eq!(check_annotations(&json!({"type": "object"})), Ok(()));
        let bad = [
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}), "not an HTTP token"),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": "Two Words"}}}), "not an HTTP token"),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": "Bad\r\nX"}}}), "not an HTTP token"),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "Id"}, "b": {"type": "string", "x-mcp-header": "ID"}}}),
                "used twice",
            ),
            (json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}), "type is number"),
            (json!({"properties": {"a": {"x-mcp-header": "A"}}}), "not a single type name"),
            (json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}), "type is object"),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "not reachable",
            ),
            (json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}), "not reachable"),
            (json!({"$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}), "not reachable"),
        ];
        for (schema, expected) in bad {
            let err = check_annotations(&schema).unwrap_err();
            assert!(err.contains(expected), "{schema}: {err}");
        }
    }
}
