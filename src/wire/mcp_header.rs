//! The 2026-07-28 headers that mirror a request's body (SEP-2243; spec transports/
//! streamable-http): the `x-mcp-header` annotations of a tool's input schema (where they sit,
//! and the registration-time check that refuses a tool whose annotations clients would
//! reject), and `validate`, which checks a Streamable HTTP request's `Mcp-Method`, `Mcp-Name`
//! and `Mcp-Param-*` headers against its body (the connection calls it where it looks the tool
//! up; the headers travel in `Arrival::Http`). Pure functions over the schema, header pairs and
//! the body, in the wire so that the registry, the HTTP transport's check and the binary's
//! client share them; no socket.

use crate::util::base64;
use crate::wire::error::{RpcError, HEADER_MISMATCH};
use crate::wire::jsonrpc::Method;
use crate::wire::params::Params;
use crate::wire::protocol::Id;
use serde_json::{Map, Value};

/// The schema keyword that names a tool argument's header suffix.
pub(crate) const X_MCP_HEADER: &str = "x-mcp-header";

/// How deep `x-mcp-header` annotations are looked for in an input schema.
const MAX_SCHEMA_DEPTH: usize = 32;

/// The params member the `Mcp-Name` header mirrors for `method` (`name`, `uri`, `taskId`), if
/// that method has one: the method table's column, for a client building the header.
pub fn name_member(method: &str) -> Option<&'static str> {
    super::protocol::spec(method).and_then(|spec| spec.mcp_name)
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

// Over HTTP: the headers checked against the body.

/// One request header as the transport read it: the name, and the raw value bytes.
pub(crate) type Header<'a> = (&'a str, &'a [u8]);

/// The `Mcp-Method` header: the body's `method`, required on every request.
pub(crate) const MCP_METHOD: &str = "Mcp-Method";
/// The `Mcp-Name` header: the body's name, URI or task id on the methods that have one.
pub(crate) const MCP_NAME: &str = "Mcp-Name";
/// Prefix of the headers that mirror `x-mcp-header` tool arguments.
pub(crate) const MCP_PARAM_PREFIX: &str = "Mcp-Param-";

/// Spec (transports/streamable-http, Value Encoding): the sentinel around a Base64 value.
const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";

/// `-32020` (HeaderMismatch), the one error of this module (HTTP 400).
fn mismatch(message: String) -> RpcError {
    RpcError::new(HEADER_MISMATCH, message)
}

/// The value of header `name` (compared case-insensitively), without surrounding whitespace.
/// `-32020` when it is sent twice (an intermediary and the server could each read another
/// copy) or holds a byte outside visible ASCII, space and tab (RFC 9110 §5.5; values that need
/// more are Base64-encoded).
pub(crate) fn find<'a>(headers: &[Header<'a>], name: &str) -> Result<Option<&'a str>, RpcError> {
    let mut found = None;
    for (header, value) in headers {
        if !header.eq_ignore_ascii_case(name) {
            continue;
        }
        if found.is_some() {
            return Err(mismatch(format!("the {name} header is sent more than once")));
        }
        if let Some(bad) = value.iter().find(|&&b| !(b == b'\t' || (b' '..=b'~').contains(&b))) {
            return Err(mismatch(format!(
                "the {name} header holds byte 0x{bad:02x}: expected visible ASCII, or a =?base64?...?= value"
            )));
        }
        // Only ASCII is left, so this never fails.
        let text = std::str::from_utf8(value).unwrap_or_default();
        found = Some(text.trim_matches([' ', '\t']));
    }
    Ok(found)
}

/// Decodes a `=?base64?…?=` value (strict standard Base64 of UTF-8); anything else is literal.
/// Spec: the markers are case-sensitive; a value without both markers is taken as it is.
fn decode(name: &str, value: &str) -> Result<String, RpcError> {
    // `=?base64?=` has both markers only if they overlap: stripping one after the other
    // leaves it literal, as it must be.
    let encoded = value.strip_prefix(BASE64_PREFIX).and_then(|rest| rest.strip_suffix(BASE64_SUFFIX));
    let Some(encoded) = encoded else {
        return Ok(value.to_string());
    };
    let bytes =
        base64::decode(encoded).map_err(|why| mismatch(format!("the {name} header is not valid base64: {why}")))?;
    String::from_utf8(bytes).map_err(|_| mismatch(format!("the {name} header decodes to bytes that are not UTF-8")))
}

/// Checks the SEP-2243 headers of one per-request-era POST against its body: `Mcp-Method`
/// (always), `Mcp-Name` (on the methods that name something), and for `tools/call` every
/// `Mcp-Param-{Name}` the tool's `input_schema` declares (pass `None` when the tool is unknown:
/// the method table then answers `-32602`). Which field `Mcp-Name`
/// mirrors is the method table's to say (`Spec::mcp_name`). Every failure is `-32020`, answered with HTTP 400.
///
/// Spec (transports/streamable-http, Server Validation): header names are case-insensitive,
/// values case-sensitive; surrounding whitespace is not part of a value; a header whose body
/// value is present must be sent and match, after Base64 decoding; a header must not be sent
/// for an absent or `null` value; integers compare as numbers.
pub(crate) fn validate(
    headers: &[Header],
    method: &Method,
    params: &Params,
    input_schema: Option<&Value>,
) -> Result<(), RpcError> {
    match find(headers, MCP_METHOD)? {
        None => return Err(mismatch(format!("missing {MCP_METHOD} header: expected {method:?}"))),
        Some(header) if header != method.as_str() => {
            return Err(mismatch(format!(
                "the {MCP_METHOD} header {header:?} does not match the body's method {method:?}"
            )))
        }
        Some(_) => {}
    }
    if let Some(field) = method.spec().and_then(|spec| spec.mcp_name) {
        let body = params.string_member(field);
        let body = body.as_deref();
        match (find(headers, MCP_NAME)?, body) {
            (None, None) => {}
            (None, Some(body)) => {
                return Err(mismatch(format!("missing {MCP_NAME} header: expected {body:?} (params.{field})")))
            }
            (Some(header), None) => {
                return Err(mismatch(format!(
                    "the {MCP_NAME} header {header:?} names nothing: params.{field} is missing"
                )))
            }
            (Some(header), Some(body)) => {
                let decoded = decode(MCP_NAME, header)?;
                if decoded != body {
                    return Err(mismatch(format!(
                        "the {MCP_NAME} header {decoded:?} does not match params.{field} {body:?}"
                    )));
                }
            }
        }
    }
    let tools_call = method.spec().is_some_and(|spec| spec.id == Id::ToolsCall);
    let annotated = input_schema.filter(|_| tools_call).map(annotations).unwrap_or_default();
    if !annotated.is_empty() {
        // Read as a value only for a tool whose arguments headers mirror.
        let params = params.to_value();
        let empty = Value::Object(Map::new());
        let arguments = params.get("arguments").filter(|a| !a.is_null()).unwrap_or(&empty);
        for (path, suffix) in annotated {
            check_param(headers, arguments, &path, suffix)?;
        }
    }
    Ok(())
}

/// One `x-mcp-header` argument: its header against the value at `path` in `arguments`.
fn check_param(headers: &[Header], arguments: &Value, path: &[&str], suffix: &str) -> Result<(), RpcError> {
    let name = format!("{MCP_PARAM_PREFIX}{suffix}");
    let mut body = Some(arguments);
    for key in path {
        body = body.and_then(|value| value.get(key));
    }
    let shown = path.join(".");
    match (find(headers, &name)?, body) {
        (None, None | Some(Value::Null)) => Ok(()),
        (Some(header), None | Some(Value::Null)) => {
            Err(mismatch(format!("the {name} header {header:?} is sent but arguments.{shown} has no value")))
        }
        // An annotation on an object or array is invalid (`check_annotations` refuses it at
        // registration); there is no header form to compare.
        (_, Some(Value::Object(_) | Value::Array(_))) => Ok(()),
        (None, Some(_)) => Err(mismatch(format!("missing {name} header: arguments.{shown} has a value"))),
        (Some(header), Some(body)) => {
            let decoded = decode(&name, header)?;
            let matches = match body {
                Value::String(text) => decoded == *text,
                Value::Bool(flag) => decoded == if *flag { "true" } else { "false" },
                Value::Number(number) => number_matches(number, &decoded),
                _ => false,
            };
            if matches {
                Ok(())
            } else {
                Err(mismatch(format!("the {name} header {decoded:?} does not match arguments.{shown} {body}")))
            }
        }
    }
}

/// Spec (Server Validation): integers compare as numbers, so `42.0` matches 42. Only a plain
/// decimal (`-?digits[.digits]`) compares numerically, exactly and without a float round trip
/// (as the Python and TypeScript SDKs do); other numbers compare as their JSON text.
fn number_matches(number: &serde_json::Number, header: &str) -> bool {
    let integer = number.as_i64().map(i128::from).or_else(|| number.as_u64().map(i128::from));
    let (whole, fraction) = header.split_once('.').unwrap_or((header, ""));
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (header.len() == whole.len() || (!fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit())));
    match integer {
        Some(body) if plain => fraction.bytes().all(|b| b == b'0') && whole.parse::<i128>().is_ok_and(|h| h == body),
        _ => header == number.to_string(),
    }
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

#[cfg(test)]
mod header_tests {
    use super::tests::custom_schema;
    use super::*;
    use serde_json::json;

    /// Header pairs as a test writes them.
    type Pairs = Vec<(&'static str, &'static str)>;

    fn call(name: &str, arguments: Value) -> Value {
        json!({"name": name, "arguments": arguments, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
    }

    fn run(headers: &[(&str, &str)], method: &str, params: &Value, schema: Option<&Value>) -> Result<(), RpcError> {
        let pairs: Vec<Header> = headers.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
        validate(&pairs, &Method::from(method), &Params::from_value(params), schema)
    }

    #[test]
    fn standard_headers_follow_contract_http_header_validation() {
        let list = json!({});
        let first_tool = call("test_simple_text", json!({}));
        // Contract §2.6 http-header-validation, cases 1-8, then the tasks-request-headers cases.
        let cases: Vec<(&str, Pairs, &str, &Value, bool)> = vec![
            ("1 method mismatch", vec![("Mcp-Method", "prompts/list")], "tools/list", &list, false),
            ("2 method missing", vec![], "tools/list", &list, false),
            (
                "3 wrong name",
                vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "wrong_tool_name")],
                "tools/call",
                &first_tool,
                false,
            ),
            (
                "4 name in whitespace",
                vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "  test_simple_text  ")],
                "tools/call",
                &first_tool,
                true,
            ),
            ("5 name missing", vec![("Mcp-Method", "tools/call")], "tools/call", &first_tool, false),
            ("6 lower-case header name", vec![("mcp-method", "tools/list")], "tools/list", &list, true),
            ("7 upper-case header name", vec![("MCP-METHOD", "tools/list")], "tools/list", &list, true),
            ("8 upper-case value", vec![("Mcp-Method", "TOOLS/LIST")], "tools/list", &list, false),
            ("tab around the method", vec![("Mcp-Method", "\ttools/list ")], "tools/list", &list, true),
            (
                "method sent twice",
                vec![("Mcp-Method", "tools/list"), ("mcp-method", "tools/list")],
                "tools/list",
                &list,
                false,
            ),
            ("method with a control byte", vec![("Mcp-Method", "tools/list\u{1}")], "tools/list", &list, false),
            (
                "name header on a method without one",
                vec![("Mcp-Method", "tools/list"), ("Mcp-Name", "x")],
                "tools/list",
                &list,
                true,
            ),
            (
                "greet routed as tasks/get",
                vec![("Mcp-Method", "tasks/get"), ("Mcp-Name", "greet")],
                "tools/call",
                &first_tool,
                false,
            ),
        ];
        for (name, headers, method, params, accept) in cases {
            let got = run(&headers, method, params, None);
            assert_eq!(got.is_ok(), accept, "{name}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.code, HEADER_MISMATCH, "{name}");
                assert!(e.message.starts_with(|c: char| c.is_lowercase()) && !e.message.ends_with('.'), "{name}: {e}");
            }
        }
    }

    #[test]
    fn name_headers_of_every_method_that_has_one() {
        let cases: Vec<(&str, Value, &str, bool)> = vec![
            ("prompts/get", json!({"name": "test_simple_prompt"}), "test_simple_prompt", true),
            ("prompts/get", json!({"name": "test_simple_prompt"}), "Test_Simple_Prompt", false),
            ("resources/read", json!({"uri": "test://static-text"}), "test://static-text", true),
            ("resources/read", json!({"uri": "test://static-text"}), "test://static-binary", false),
            ("tasks/get", json!({"taskId": "t-1"}), "t-1", true),
            ("tasks/update", json!({"taskId": "t-1", "inputResponses": {}}), "t-1", true),
            ("tasks/cancel", json!({"taskId": "t-1"}), "sep-2663-wrong-task-id-for-routing-header-mismatch", false),
            // Spec (Value Encoding): names outside the header-safe set travel Base64-encoded.
            ("tools/call", json!({"name": "Hello, 世界"}), "=?base64?SGVsbG8sIOS4lueVjA==?=", true),
            ("tools/call", json!({"name": "=?base64?literal?="}), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", true),
            // A header that names something the body does not.
            ("tools/call", json!({"arguments": {}}), "test_simple_text", false),
        ];
        for (method, params, header, accept) in cases {
            let got = run(&[("Mcp-Method", method), ("Mcp-Name", header)], method, &params, None);
            assert_eq!(got.is_ok(), accept, "{method} {header:?}: {got:?}");
        }
        // No header and no body value: the method table answers -32602 for the body.
        assert!(run(&[("Mcp-Method", "tools/call")], "tools/call", &json!({}), None).is_ok());
        let non_ascii: &[Header] = &[("Mcp-Method", b"tools/call"), ("Mcp-Name", "世界".as_bytes())];
        let err = validate(non_ascii, &Method::from("tools/call"), &Params::from_value(&json!({"name": "世界"})), None)
            .unwrap_err();
        assert!(err.message.contains("byte 0xe4"), "{}", err.message);
    }

    #[test]
    fn param_headers_follow_contract_custom_header_validation() {
        let schema = custom_schema();
        let base = [("Mcp-Method", "tools/call"), ("Mcp-Name", "test_custom_header")];
        let with = |extra: &[(&'static str, &'static str)]| -> Pairs { base.iter().chain(extra).copied().collect() };
        // Contract §2.6 http-custom-header-server-validation first, then the other types.
        let cases: Vec<(&str, Value, Pairs, bool)> = vec![
            ("decode base64", json!({"value": "Hello"}), with(&[("Mcp-Param-Value", "=?base64?SGVsbG8=?=")]), true),
            ("bad padding", json!({"value": "Hello"}), with(&[("Mcp-Param-Value", "=?base64?SGVsbG8?=")]), false),
            (
                "bad characters",
                json!({"value": "Hello"}),
                with(&[("Mcp-Param-Value", "=?base64?SGVs!!!bG8=?=")]),
                false,
            ),
            ("literal without prefix", json!({"value": "SGVsbG8="}), with(&[("Mcp-Param-Value", "SGVsbG8=")]), true),
            (
                "literal without suffix",
                json!({"value": "=?base64?SGVsbG8="}),
                with(&[("Mcp-Param-Value", "=?base64?SGVsbG8=")]),
                true,
            ),
            ("header omitted, value in body", json!({"value": "test-value"}), with(&[]), false),
            ("plain match", json!({"value": "us-west1"}), with(&[("mcp-param-value", "us-west1")]), true),
            ("plain mismatch", json!({"value": "us-west1"}), with(&[("Mcp-Param-Value", "us-east1")]), false),
            ("value case matters", json!({"value": "Hello"}), with(&[("Mcp-Param-Value", "hello")]), false),
            (
                "padded value in base64",
                json!({"value": " padded "}),
                with(&[("Mcp-Param-Value", "=?base64?IHBhZGRlZCA=?=")]),
                true,
            ),
            (
                "newline in base64",
                json!({"value": "line1\nline2"}),
                with(&[("Mcp-Param-Value", "=?base64?bGluZTEKbGluZTI=?=")]),
                true,
            ),
            (
                "url-safe alphabet refused",
                json!({"value": "\u{fb}\u{ff}"}),
                with(&[("Mcp-Param-Value", "=?base64?w7vDvw-_?=")]),
                false,
            ),
            (
                "markers are lower-case only",
                json!({"value": "Hello"}),
                with(&[("Mcp-Param-Value", "=?BASE64?SGVsbG8=?=")]),
                false,
            ),
            ("empty base64", json!({"value": ""}), with(&[("Mcp-Param-Value", "=?base64??=")]), true),
            (
                "overlapping markers are literal",
                json!({"value": "=?base64?="}),
                with(&[("Mcp-Param-Value", "=?base64?=")]),
                true,
            ),
            ("base64 of invalid UTF-8", json!({"value": "x"}), with(&[("Mcp-Param-Value", "=?base64?/w==?=")]), false),
            (
                "value sent twice",
                json!({"value": "a"}),
                with(&[("Mcp-Param-Value", "a"), ("MCP-PARAM-VALUE", "a")]),
                false,
            ),
            ("null value, no header", json!({"value": null}), with(&[]), true),
            ("null value, header sent", json!({"value": null}), with(&[("Mcp-Param-Value", "x")]), false),
            ("absent value, header sent", json!({}), with(&[("Mcp-Param-Value", "x")]), false),
            ("no arguments at all", json!(null), with(&[]), true),
            ("integer", json!({"count": 42}), with(&[("Mcp-Param-Count", "42")]), true),
            ("integer compared as a number", json!({"count": 42}), with(&[("Mcp-Param-Count", "42.0")]), true),
            ("negative integer", json!({"count": -7}), with(&[("Mcp-Param-Count", "-7")]), true),
            ("integer mismatch", json!({"count": 42}), with(&[("Mcp-Param-Count", "43")]), false),
            ("integer not a number", json!({"count": 42}), with(&[("Mcp-Param-Count", "forty-two")]), false),
            ("integer with a fraction", json!({"count": 42}), with(&[("Mcp-Param-Count", "42.5")]), false),
            ("integer in exponent form", json!({"count": 10}), with(&[("Mcp-Param-Count", "1e1")]), false),
            ("integer with a bare dot", json!({"count": 42}), with(&[("Mcp-Param-Count", "42.")]), false),
            ("integer with a plus", json!({"count": 42}), with(&[("Mcp-Param-Count", "+42")]), false),
            (
                "integer beyond f64",
                json!({"count": 9007199254740993u64}),
                with(&[("Mcp-Param-Count", "9007199254740993")]),
                true,
            ),
            (
                "integer beyond f64, off by one",
                json!({"count": 9007199254740993u64}),
                with(&[("Mcp-Param-Count", "9007199254740992")]),
                false,
            ),
            ("a float body compares as text", json!({"count": 2.5}), with(&[("Mcp-Param-Count", "2.5")]), true),
            ("minus zero", json!({"count": 0}), with(&[("Mcp-Param-Count", "-0")]), true),
            ("integer header missing", json!({"count": 0}), with(&[]), false),
            ("boolean", json!({"dry": true}), with(&[("Mcp-Param-Dry-Run", "true")]), true),
            ("boolean false", json!({"dry": false}), with(&[("Mcp-Param-Dry-Run", "false")]), true),
            ("boolean is lower-case", json!({"dry": true}), with(&[("Mcp-Param-Dry-Run", "True")]), false),
            ("nested property", json!({"target": {"region": "eu"}}), with(&[("Mcp-Param-Region", "eu")]), true),
            ("nested property missing header", json!({"target": {"region": "eu"}}), with(&[]), false),
            ("unannotated property needs no header", json!({"plain": "x"}), with(&[]), true),
            ("unknown param headers are ignored", json!({}), with(&[("Mcp-Param-Other", "x")]), true),
        ];
        for (name, arguments, headers, accept) in cases {
            let got = run(&headers, "tools/call", &call("test_custom_header", arguments), Some(&schema));
            assert_eq!(got.is_ok(), accept, "{name}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.code, HEADER_MISMATCH, "{name}");
            }
        }
    }

    #[test]
    fn param_headers_are_checked_only_on_tools_call_with_a_schema() {
        let headers = [("Mcp-Method", "tools/call"), ("Mcp-Name", "test_custom_header")];
        let params = call("test_custom_header", json!({"value": "x"}));
        assert!(run(&headers, "tools/call", &params, None).is_ok(), "unknown tool: left to the method table");
        let prompt = [("Mcp-Method", "prompts/get"), ("Mcp-Name", "test_custom_header")];
        assert!(run(&prompt, "prompts/get", &params, Some(&custom_schema())).is_ok());
    }

    #[test]
    fn errors_say_which_header_and_which_values() {
        let schema = custom_schema();
        let headers = [("Mcp-Method", "tools/call"), ("Mcp-Name", "t"), ("Mcp-Param-Value", "a")];
        let err = run(&headers, "tools/call", &call("t", json!({"value": "b"})), Some(&schema)).unwrap_err();
        assert_eq!(err.message, r#"the Mcp-Param-Value header "a" does not match arguments.value "b""#);
        let err = run(&[("Mcp-Method", "tools/list")], "prompts/list", &json!({}), None).unwrap_err();
        assert_eq!(
            err.message,
            r#"the Mcp-Method header "tools/list" does not match the body's method "prompts/list""#
        );
        let err = run(&headers[..2], "tools/call", &call("t", json!({"target": {"region": "eu"}})), Some(&schema));
        assert_eq!(err.unwrap_err().message, "missing Mcp-Param-Region header: arguments.target.region has a value");
    }
}
