//! Unit tests of `schema`.
use super::*;
use serde_json::json;

/// Runs `validate` and renders the outcome as `ok` or the Display form.
fn run(schema: &str, instance: &str) -> String {
    let schema: Value = serde_json::from_str(schema).unwrap();
    let instance: Value = serde_json::from_str(instance).unwrap();
    validate(&schema, &instance).map_or_else(|e| e.to_string(), |()| "ok".to_string())
}

fn table(cases: &[(&str, &str, &str)]) {
    for (schema, instance, want) in cases {
        assert_eq!(run(schema, instance), *want, "schema {schema} instance {instance}");
    }
}

#[test]
fn type_keyword() {
    table(&[
        (r#"{"type":"integer"}"#, "5", "ok"),
        (r#"{"type":"integer"}"#, "5.0", "ok"),
        (r#"{"type":"integer"}"#, "-3", "ok"),
        (r#"{"type":"integer"}"#, "5.5", "(root): expected integer, got number"),
        (r#"{"type":"integer"}"#, r#""5""#, "(root): expected integer, got string"),
        (r#"{"type":"number"}"#, "5", "ok"),
        (r#"{"type":"number"}"#, "null", "(root): expected number, got null"),
        (r#"{"type":"string"}"#, "[]", "(root): expected string, got array"),
        (r#"{"type":"object"}"#, "true", "(root): expected object, got boolean"),
        (r#"{"type":"array"}"#, "{}", "(root): expected array, got object"),
        (r#"{"type":"null"}"#, "null", "ok"),
        (r#"{"type":"boolean"}"#, "false", "ok"),
        (r#"{"type":["string","null"]}"#, "null", "ok"),
        (r#"{"type":["string","null"]}"#, "1", "(root): expected string or null, got integer"),
        (r#"{"type":["a","b","c"]}"#, "1", "(root): expected a, b or c, got integer"),
    ]);
}

#[test]
fn object_keywords_report_nested_paths() {
    let schema = r#"{"type":"object","required":["path"],"additionalProperties":false,
        "properties":{"path":{"type":"string"},"count":{"type":"integer"},
        "items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}}}"#;
    table(&[
        (schema, r#"{"path":"a","count":2}"#, "ok"),
        (schema, r#"{"count":2}"#, r#"(root): missing required property "path""#),
        (schema, r#"{"path":"a","count":"2"}"#, "/count: expected integer, got string"),
        (schema, r#"{"path":"a","foo":1}"#, r#"(root): unexpected property "foo""#),
        (schema, r#"{"path":"a","items":[{"name":"x"},{"name":3}]}"#, "/items/1/name: expected string, got integer"),
        (r#"{"additionalProperties":{"type":"integer"}}"#, r#"{"a/b~":"x"}"#, "/a~1b~0: expected integer, got string"),
        (r#"{"additionalProperties":false,"patternProperties":{"^x":{}}}"#, r#"{"y":1}"#, "ok"),
        (r#"{"properties":{"x":false}}"#, r#"{"x":1}"#, "/x: no value is allowed here"),
        (r#"{"minProperties":1}"#, "{}", "(root): expected at least 1 property"),
        (r#"{"maxProperties":1}"#, r#"{"a":1,"b":2}"#, "(root): expected at most 1 property"),
        (r#"{"maxProperties":2}"#, r#"{"a":1,"b":2}"#, "ok"),
        (r#"{"required":["a"]}"#, "5", "ok"),
    ]);
}

#[test]
fn enum_and_const_use_json_equality() {
    table(&[
        (r#"{"enum":["a","b"]}"#, r#""b""#, "ok"),
        (r#"{"enum":["a","b"]}"#, r#""c""#, r#"(root): expected one of ["a","b"]"#),
        (r#"{"enum":[1,[2,{"x":3}]]}"#, r#"[2.0,{"x":3.0}]"#, "ok"),
        (r#"{"const":1}"#, "1.0", "ok"),
        (r#"{"const":{"a":[1]}}"#, r#"{"a":[1]}"#, "ok"),
        (r#"{"const":"x"}"#, r#""y""#, r#"(root): expected "x""#),
        (r#"{"const":null}"#, "false", "(root): expected null"),
    ]);
}

#[test]
fn numeric_keywords() {
    table(&[
        (r#"{"minimum":1}"#, "1", "ok"),
        (r#"{"minimum":1}"#, "0", "(root): must be >= 1"),
        (r#"{"maximum":2.5}"#, "3", "(root): must be <= 2.5"),
        (r#"{"exclusiveMinimum":0}"#, "0", "(root): must be > 0"),
        (r#"{"exclusiveMinimum":0}"#, "0.1", "ok"),
        (r#"{"exclusiveMaximum":10}"#, "10.0", "(root): must be < 10"),
        (r#"{"maximum":18446744073709551615}"#, "-9223372036854775808", "ok"),
        (r#"{"multipleOf":3}"#, "9", "ok"),
        (r#"{"multipleOf":3}"#, "10", "(root): must be a multiple of 3"),
        (r#"{"multipleOf":0.1}"#, "0.3", "ok"),
        (r#"{"multipleOf":0.5}"#, "0.7", "(root): must be a multiple of 0.5"),
        (r#"{"minimum":5}"#, r#""not a number""#, "ok"),
    ]);
}

#[test]
fn string_lengths_count_characters() {
    table(&[
        (r#"{"minLength":2}"#, r#""é""#, "(root): expected at least 2 characters"),
        (r#"{"maxLength":3}"#, r#""日本語""#, "ok"),
        (r#"{"maxLength":1}"#, r#""ab""#, "(root): expected at most 1 character"),
    ]);
}

#[test]
fn array_keywords() {
    table(&[
        (r#"{"minItems":1}"#, "[]", "(root): expected at least 1 item"),
        (r#"{"maxItems":3}"#, "[1,2,3,4]", "(root): expected at most 3 items"),
        (r#"{"uniqueItems":true}"#, r#"[1,"1",[1],{"a":1}]"#, "ok"),
        (r#"{"uniqueItems":true}"#, "[1,2,1.0]", "(root): expected unique items, but items 0 and 2 are equal"),
        (
            r#"{"uniqueItems":true}"#,
            r#"[{"a":1,"b":2},{"b":2,"a":1}]"#,
            "(root): expected unique items, but items 0 and 1 are equal",
        ),
        (r#"{"items":{"type":"string"}}"#, r#"["a",2]"#, "/1: expected string, got integer"),
        (r#"{"prefixItems":[{"type":"string"},{"type":"integer"}]}"#, r#"["a",1,null]"#, "ok"),
        (
            r#"{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}"#,
            r#"["a",1,"b"]"#,
            "/2: expected integer, got string",
        ),
        (r#"{"prefixItems":[{"type":"string"}],"items":false}"#, r#"["a",1]"#, "(root): expected at most 1 item"),
        (r#"{"prefixItems":[{"type":"string"}]}"#, "[3]", "/0: expected string, got integer"),
        (r#"{"items":[{"type":"string"}],"additionalItems":false}"#, r#"["a","b"]"#, "(root): expected at most 1 item"),
    ]);
}

#[test]
fn combinators() {
    let one_of = r#"{"oneOf":[{"type":"integer"},{"minimum":0}]}"#;
    table(&[
        (r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#, "1", "ok"),
        (r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#, "null", "(root): does not match any schema in anyOf"),
        (one_of, "-1", "ok"),
        (one_of, "-1.5", "(root): does not match any schema in oneOf"),
        (one_of, "1", "(root): matches schemas 0 and 1 in oneOf, expected exactly one"),
        (r#"{"allOf":[{"type":"integer"},{"minimum":3}]}"#, "2", "(root): must be >= 3"),
        (r#"{"not":{"type":"string"}}"#, r#""x""#, "(root): must not match the schema in not"),
        (r#"{"not":{"type":"string"}}"#, "1", "ok"),
        (r#"{"properties":{"a":{"anyOf":[{"const":1}]}}}"#, r#"{"a":2}"#, "/a: does not match any schema in anyOf"),
    ]);
}

#[test]
fn if_then_else() {
    let schema = r#"{"if":{"properties":{"kind":{"const":"file"}}},
        "then":{"required":["path"]},"else":{"required":["url"]}}"#;
    table(&[
        (schema, r#"{"kind":"file","path":"/x"}"#, "ok"),
        (schema, r#"{"kind":"file"}"#, r#"(root): missing required property "path""#),
        (schema, r#"{"kind":"web"}"#, r#"(root): missing required property "url""#),
        (r#"{"if":{"type":"string"}}"#, "1", "ok"),
    ]);
}

#[test]
fn boolean_schemas_and_ignored_keywords() {
    table(&[
        ("true", r#"{"anything":[1]}"#, "ok"),
        ("false", "null", "(root): no value is allowed here"),
        (
            r#"{"title":"t","description":"d","default":1,"format":"uri","$schema":"x","x-foo":1,"pattern":"^a"}"#,
            r#""zz""#,
            "ok",
        ),
    ]);
}

#[test]
fn refs_resolve_against_the_root() {
    let tree = r##"{"$defs":{"node":{"type":"object","required":["v"],"properties":{"v":{"type":"integer"},
        "kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}"##;
    table(&[
        (tree, r#"{"v":1,"kids":[{"v":2,"kids":[{"v":3}]}]}"#, "ok"),
        (tree, r#"{"v":1,"kids":[{"v":2,"kids":[{"v":"x"}]}]}"#, "/kids/0/kids/0/v: expected integer, got string"),
        (
            r##"{"definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}"##,
            r#"{"a":1}"#,
            "/a: expected string, got integer",
        ),
        (
            r##"{"properties":{"next":{"$ref":"#"}},"required":["id"]}"##,
            r#"{"id":1,"next":{}}"#,
            r#"/next: missing required property "id""#,
        ),
        (r##"{"$defs":{"x":{"$anchor":"pos","minimum":0}},"$ref":"#pos"}"##, "-1", "(root): must be >= 0"),
        (r##"{"$ref":"#/$defs/missing"}"##, "1", r##"(root): unresolvable $ref "#/$defs/missing""##),
        (r##"{"$ref":"other.json"}"##, "1", r#"(root): unresolvable $ref "other.json""#),
        (
            r##"{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}},"maxLength":1}"##,
            r#""ab""#,
            "(root): expected at most 1 character",
        ),
    ]);
}

#[test]
fn infinite_ref_recursion_is_an_error_not_a_stack_overflow() {
    let err = run(r##"{"$ref":"#"}"##, "1");
    assert_eq!(err, "(root): $ref nesting deeper than 64");
    // A broken schema inside `not` or `anyOf` must not flip into a pass.
    assert!(run(r##"{"not":{"$ref":"#"}}"##, "1").contains("deeper than 64"));
    assert!(run(r##"{"anyOf":[{"$ref":"#"}]}"##, "1").contains("deeper than 64"));
    assert!(run(r#"{"anyOf":[5]}"#, "1").contains("invalid schema"));
}

#[test]
fn display_and_fields() {
    let e = validate(&json!({"type": "string"}), &json!(1)).unwrap_err();
    assert_eq!(e, SchemaError { path: String::new(), message: "expected string, got integer".into() });
    assert_eq!(e.to_string(), "(root): expected string, got integer");
}

#[test]
fn check_schema_accepts_realistic_tool_schemas() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "file"},
            "mode": {"enum": ["r", "w"]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "uniqueItems": true},
            "n": {"type": ["integer", "null"], "minimum": 0, "multipleOf": 2}
        },
        "required": ["path"],
        "additionalProperties": false,
        "$defs": {"tag": {"type": "string", "maxLength": 20}}
    });
    assert_eq!(check_schema(&schema), Ok(()));
    assert_eq!(check_schema(&json!(true)), Ok(()));
    assert_eq!(check_schema(&json!({})), Ok(()));
}

#[test]
fn check_schema_names_the_bad_keyword() {
    let cases = [
        (json!(5), "(root): expected a schema (object or boolean)"),
        (json!({"type": "int"}), "/type: unknown type \"int\""),
        (json!({"type": ["string", 1]}), "/type: expected a type name or an array of type names"),
        (json!({"required": "path"}), "/required: expected an array of strings"),
        (json!({"properties": []}), "/properties: expected an object of schemas"),
        (
            json!({"properties": {"a": {"properties": {"b": {"type": "strin"}}}}}),
            "/properties/a/properties/b/type: unknown type \"strin\"",
        ),
        (json!({"items": 3}), "/items: expected a schema (object or boolean)"),
        (json!({"anyOf": []}), "/anyOf: expected a non-empty array of schemas"),
        (json!({"oneOf": [true, 1]}), "/oneOf/1: expected a schema (object or boolean)"),
        (json!({"minimum": "1"}), "/minimum: expected a number"),
        (json!({"multipleOf": 0}), "/multipleOf: expected a number greater than 0"),
        (json!({"maxLength": -1}), "/maxLength: expected a non-negative integer"),
        (json!({"minItems": 1.5}), "/minItems: expected a non-negative integer"),
        (json!({"enum": "a"}), "/enum: expected an array"),
        (json!({"uniqueItems": 1}), "/uniqueItems: expected a boolean"),
        (json!({"$ref": "#/$defs/nope"}), "/$ref: unresolvable $ref \"#/$defs/nope\""),
        (json!({"$defs": {"a": {"$ref": 1}}}), "/$defs/a/$ref: expected a string"),
        (json!({"not": {"if": {"type": "nope"}}}), "/not/if/type: unknown type \"nope\""),
    ];
    for (schema, want) in cases {
        assert_eq!(check_schema(&schema), Err(want.to_string()), "{schema}");
    }
}

#[test]
fn mutated_schemas_and_instances_check_and_validate_in_time() {
    use crate::util::fuzz::{bounded, rounds, Mutator, JSON_TOKENS};
    let schemas = [
        r#"{"type":"object","properties":{"a":{"type":"string","minLength":1},"n":{"type":"integer","maximum":9}},"required":["a"]}"#,
        r#"{"type":"array","items":{"enum":[1,"two",null]},"maxItems":3}"#,
        r#"{"anyOf":[{"type":"number","multipleOf":0.5},{"type":"string","pattern":"^a+$"}]}"#,
    ];
    let instances = [r#"{"a":"x","n":3}"#, r#"[1,"two"]"#, r#"2.5"#, r#""aaa""#];
    let mut mutator = Mutator::with_tokens(0x7363_686d, JSON_TOKENS);
    for round in 0..rounds(20_000) {
        let schema_text = mutator.pick(&schemas);
        let instance_text = mutator.pick(&instances);
        if let (Ok(s), Ok(i)) =
            (serde_json::from_str::<Value>(&schema_text), serde_json::from_str::<Value>(&instance_text))
        {
            let _ = bounded("schema::check_schema", round, &schema_text, || check_schema(&s));
            let _ = bounded("schema::validate", round, &schema_text, || validate(&s, &i));
        }
    }
}
