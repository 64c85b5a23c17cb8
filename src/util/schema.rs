//! A JSON Schema validator (the draft 2020-12 subset tools use) for tool
//! arguments and structured results, plus a sanity check for schemas.
//! Pure: std and serde_json only. No regex, so `pattern` and `format` are ignored.

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

/// How many `$ref` hops may be nested before validation gives up.
const MAX_REF_DEPTH: usize = 64;

/// The type names `type` accepts.
const TYPE_NAMES: [&str; 7] = ["null", "boolean", "object", "array", "number", "string", "integer"];

/// Why an instance does not match a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    /// JSON Pointer into the instance, `""` for the root (e.g. `/items/0/name`).
    pub path: String,
    /// What was expected there, lowercase and without a trailing period.
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", shown(&self.path), self.message)
    }
}

impl std::error::Error for SchemaError {}

/// Validates `instance` against `schema` and returns the first error, in a
/// fixed keyword order. `$ref` resolves against `schema` as the root.
///
/// Supported: `type`, `enum`, `const`, `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`,
/// `maxLength`, `minItems`, `maxItems`, `uniqueItems`, `prefixItems`, `items`
/// (also the older array form with `additionalItems`), `required`,
/// `properties`, `additionalProperties`, `minProperties`, `maxProperties`,
/// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, and local `$ref`
/// (`#`, `#/json/pointer`, `#anchor`). Other keywords are ignored; when
/// `patternProperties` is present `additionalProperties` is not enforced,
/// since patterns are not evaluated.
pub fn validate(schema: &Value, instance: &Value) -> Result<(), SchemaError> {
    let validator = Validator { root: schema };
    validator.check(schema, instance, &Loc::Root, 0).map_err(|fail| match fail {
        Fail::Invalid(e) | Fail::Broken(e) => e,
    })
}

/// Sanity-checks a schema before it is used (one read from a manifest, say):
/// it must be an object or a boolean, use known type names, give keywords
/// values of the right kind, and only use `$ref`s that resolve locally.
/// Errors name the JSON Pointer of the offending keyword in the schema.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    check_node(schema, schema, "")
}

/// A failure while validating: the instance is invalid, or the schema is
/// broken (bad `$ref`, too deep), which no combinator may swallow.
enum Fail {
    Invalid(SchemaError),
    Broken(SchemaError),
}

fn error(path: &Loc<'_>, message: impl Into<String>) -> SchemaError {
    SchemaError { path: path.pointer(), message: message.into() }
}

/// Where in the instance validation is, built as a chain on the stack and only turned into a
/// JSON Pointer when an error needs it (validation runs on every tool call).
enum Loc<'a> {
    Root,
    Key(&'a Loc<'a>, &'a str),
    Index(&'a Loc<'a>, usize),
}

impl Loc<'_> {
    fn pointer(&self) -> String {
        match self {
            Loc::Root => String::new(),
            Loc::Key(parent, key) => child(&parent.pointer(), key),
            Loc::Index(parent, i) => child(&parent.pointer(), &i.to_string()),
        }
    }
}

/// A schema's keywords, or an instance object.
type Keywords = Map<String, Value>;

/// The keywords validation reads, picked out of a schema object in one pass over its entries
/// (a schema names a few of them; looking each of the thirty up in the map cost more than the
/// rest of validating a tool call's arguments).
#[derive(Default)]
struct Kw<'s> {
    reference: Option<&'s Value>,
    types: Option<&'s Value>,
    enumeration: Option<&'s Value>,
    constant: Option<&'s Value>,
    minimum: Option<&'s Value>,
    maximum: Option<&'s Value>,
    exclusive_minimum: Option<&'s Value>,
    exclusive_maximum: Option<&'s Value>,
    multiple_of: Option<&'s Value>,
    min_length: Option<&'s Value>,
    max_length: Option<&'s Value>,
    min_items: Option<&'s Value>,
    max_items: Option<&'s Value>,
    unique_items: Option<&'s Value>,
    items: Option<&'s Value>,
    prefix_items: Option<&'s Value>,
    additional_items: Option<&'s Value>,
    required: Option<&'s Value>,
    min_properties: Option<&'s Value>,
    max_properties: Option<&'s Value>,
    properties: Option<&'s Value>,
    pattern_properties: Option<&'s Value>,
    additional_properties: Option<&'s Value>,
    all_of: Option<&'s Value>,
    any_of: Option<&'s Value>,
    one_of: Option<&'s Value>,
    not: Option<&'s Value>,
    condition: Option<&'s Value>,
    then: Option<&'s Value>,
    otherwise: Option<&'s Value>,
}

impl<'s> Kw<'s> {
    fn of(keywords: &'s Keywords) -> Self {
        let mut kw = Kw::default();
        for (key, value) in keywords {
            let slot = match key.as_str() {
                "$ref" => &mut kw.reference,
                "type" => &mut kw.types,
                "enum" => &mut kw.enumeration,
                "const" => &mut kw.constant,
                "minimum" => &mut kw.minimum,
                "maximum" => &mut kw.maximum,
                "exclusiveMinimum" => &mut kw.exclusive_minimum,
                "exclusiveMaximum" => &mut kw.exclusive_maximum,
                "multipleOf" => &mut kw.multiple_of,
                "minLength" => &mut kw.min_length,
                "maxLength" => &mut kw.max_length,
                "minItems" => &mut kw.min_items,
                "maxItems" => &mut kw.max_items,
                "uniqueItems" => &mut kw.unique_items,
                "items" => &mut kw.items,
                "prefixItems" => &mut kw.prefix_items,
                "additionalItems" => &mut kw.additional_items,
                "required" => &mut kw.required,
                "minProperties" => &mut kw.min_properties,
                "maxProperties" => &mut kw.max_properties,
                "properties" => &mut kw.properties,
                "patternProperties" => &mut kw.pattern_properties,
                "additionalProperties" => &mut kw.additional_properties,
                "allOf" => &mut kw.all_of,
                "anyOf" => &mut kw.any_of,
                "oneOf" => &mut kw.one_of,
                "not" => &mut kw.not,
                "if" => &mut kw.condition,
                "then" => &mut kw.then,
                "else" => &mut kw.otherwise,
                _ => continue,
            };
            *slot = Some(value);
        }
        kw
    }
}

fn invalid<T>(path: &Loc<'_>, message: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Invalid(error(path, message)))
}

/// A path for humans: `(root)` rather than the empty pointer.
fn shown(path: &str) -> &str {
    if path.is_empty() {
        "(root)"
    } else {
        path
    }
}

/// Appends one reference token to a JSON Pointer (RFC 6901 escaping).
fn child(path: &str, token: &str) -> String {
    format!("{path}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// A value as JSON text, for messages.
fn quote(name: &str) -> String {
    Value::from(name).to_string()
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn count(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX)
}

fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Numeric comparison that is exact for integers and treats 1 and 1.0 alike.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality where numbers compare by value.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// A canonical text for a value such that `json_eq` values get equal texts,
/// so `uniqueItems` runs in linear time.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => match (as_i128(n), n.as_f64()) {
            (Some(i), _) => out.push_str(&i.to_string()),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e18 => out.push_str(&format!("{f:.0}")),
            _ => out.push_str(&n.to_string()),
        },
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Sorted keys, as `seal::feed` sorts them (one sort instantiated for both).
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for key in keys {
                out.push_str(&quote(key));
                out.push(':');
                canonical(&map[key], out);
                out.push(',');
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("integer", Value::Number(n)) => is_integer(n),
        ("number", Value::Number(_)) => true,
        _ => name == type_name(value),
    }
}

/// Resolves a local reference: `#`, `#/json/pointer` or `#anchor`.
fn resolve<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        Some(root)
    } else if fragment.starts_with('/') {
        root.pointer(fragment)
    } else {
        find_anchor(root, fragment)
    }
}

fn find_anchor<'s>(node: &'s Value, name: &str) -> Option<&'s Value> {
    match node {
        Value::Object(map) if map.get("$anchor").and_then(Value::as_str) == Some(name) => Some(node),
        Value::Object(map) => map.values().find_map(|v| find_anchor(v, name)),
        Value::Array(items) => items.iter().find_map(|v| find_anchor(v, name)),
        _ => None,
    }
}

type Outcome = Result<(), Fail>;

struct Validator<'s> {
    root: &'s Value,
}

impl<'s> Validator<'s> {
    /// `depth` counts the `$ref` hops on the way here.
    fn check(&self, schema: &'s Value, instance: &Value, path: &Loc<'_>, depth: usize) -> Outcome {
        let broken = |message: String| Err(Fail::Broken(error(path, message)));
        let keywords = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return invalid(path, "no value is allowed here"),
            Value::Object(map) => map,
            _ => return broken("invalid schema: expected an object or boolean".to_string()),
        };
        let kw = Kw::of(keywords);
        if let Some(reference) = kw.reference.and_then(Value::as_str) {
            if depth >= MAX_REF_DEPTH {
                return broken(format!("$ref nesting deeper than {MAX_REF_DEPTH}"));
            }
            let Some(target) = resolve(self.root, reference) else {
                return broken(format!("unresolvable $ref {}", quote(reference)));
            };
            self.check(target, instance, path, depth + 1)?;
        }
        check_type(&kw, instance, path)?;
        if let Some(Value::Array(options)) = kw.enumeration {
            if !options.iter().any(|option| json_eq(option, instance)) {
                let listed = Value::Array(options.clone());
                return invalid(path, format!("expected one of {listed}"));
            }
        }
        if let Some(constant) = kw.constant.filter(|c| !json_eq(c, instance)) {
            return invalid(path, format!("expected {constant}"));
        }
        match instance {
            Value::Number(n) => check_number(&kw, n, path)?,
            // Counting characters only when a bound asks for it.
            Value::String(s) if kw.min_length.is_some() || kw.max_length.is_some() => {
                let sizes = (kw.min_length, kw.max_length, "character", "characters");
                check_size(sizes, s.chars().count(), path)?;
            }
            Value::String(_) => {}
            Value::Array(items) => self.check_array(&kw, items, path, depth)?,
            Value::Object(object) => self.check_object(&kw, object, path, depth)?,
            Value::Null | Value::Bool(_) => {}
        }
        self.check_combinators(&kw, instance, path, depth)
    }

    /// Like `check`, but an invalid instance is `Ok(false)`.
    fn passes(&self, schema: &'s Value, instance: &Value, path: &Loc<'_>, depth: usize) -> Result<bool, Fail> {
        match self.check(schema, instance, path, depth) {
            Ok(()) => Ok(true),
            Err(Fail::Invalid(_)) => Ok(false),
            Err(broken) => Err(broken),
        }
    }

    fn check_array(&self, kw: &Kw<'s>, items: &[Value], path: &Loc<'_>, depth: usize) -> Outcome {
        check_size((kw.min_items, kw.max_items, "item", "items"), items.len(), path)?;
        if kw.unique_items == Some(&Value::Bool(true)) {
            let mut seen: HashMap<String, usize> = HashMap::new();
            for (i, item) in items.iter().enumerate() {
                let mut key = String::new();
                canonical(item, &mut key);
                if let Some(first) = seen.insert(key, i) {
                    return invalid(path, format!("expected unique items, but items {first} and {i} are equal"));
                }
            }
        }
        // Draft 2020-12 `prefixItems` + `items`, or the older array `items` + `additionalItems`.
        let (prefix, rest) = match kw.items {
            Some(Value::Array(tuple)) => (Some(tuple), kw.additional_items),
            items => (kw.prefix_items.and_then(Value::as_array), items),
        };
        let prefix = prefix.map_or(&[][..], Vec::as_slice);
        for (i, (schema, item)) in prefix.iter().zip(items).enumerate() {
            self.check(schema, item, &Loc::Index(path, i), depth)?;
        }
        let Some(rest) = rest else { return Ok(()) };
        if rest == &Value::Bool(false) && items.len() > prefix.len() {
            let most = plural(count(prefix.len()), "item", "items");
            return invalid(path, format!("expected at most {most}"));
        }
        for (i, item) in items.iter().enumerate().skip(prefix.len()) {
            self.check(rest, item, &Loc::Index(path, i), depth)?;
        }
        Ok(())
    }

    fn check_object(&self, kw: &Kw<'s>, object: &Keywords, path: &Loc<'_>, depth: usize) -> Outcome {
        if let Some(Value::Array(required)) = kw.required {
            let mut names = required.iter().filter_map(Value::as_str);
            if let Some(missing) = names.find(|name| !object.contains_key(*name)) {
                return invalid(path, format!("missing required property {}", quote(missing)));
            }
        }
        let sizes = (kw.min_properties, kw.max_properties, "property", "properties");
        check_size(sizes, object.len(), path)?;
        let properties = kw.properties.and_then(Value::as_object);
        // Without regex support we cannot tell which names patternProperties
        // covers, so additionalProperties is only enforced without it.
        let additional = match kw.pattern_properties {
            Some(_) => None,
            None => kw.additional_properties,
        };
        for (key, value) in object {
            let schema = match (properties.and_then(|p| p.get(key)), additional) {
                (Some(schema), _) => schema,
                (None, Some(Value::Bool(false))) => {
                    return invalid(path, format!("unexpected property {}", quote(key)));
                }
                (None, Some(schema)) => schema,
                (None, None) => continue,
            };
            self.check(schema, value, &Loc::Key(path, key), depth)?;
        }
        Ok(())
    }

    fn check_combinators(&self, kw: &Kw<'s>, instance: &Value, path: &Loc<'_>, depth: usize) -> Outcome {
        let list = |keyword: Option<&'s Value>| keyword.and_then(Value::as_array);
        for schema in list(kw.all_of).into_iter().flatten() {
            self.check(schema, instance, path, depth)?;
        }
        if let Some(any) = list(kw.any_of) {
            let mut matched = false;
            for schema in any {
                matched = self.passes(schema, instance, path, depth)?;
                if matched {
                    break;
                }
            }
            if !matched {
                return invalid(path, "does not match any schema in anyOf");
            }
        }
        if let Some(one) = list(kw.one_of) {
            let mut matched = Vec::new();
            for (i, schema) in one.iter().enumerate() {
                if self.passes(schema, instance, path, depth)? {
                    matched.push(i);
                }
            }
            match matched.as_slice() {
                [_] => {}
                [] => return invalid(path, "does not match any schema in oneOf"),
                [a, b, ..] => {
                    return invalid(path, format!("matches schemas {a} and {b} in oneOf, expected exactly one"));
                }
            }
        }
        if let Some(not) = kw.not {
            if self.passes(not, instance, path, depth)? {
                return invalid(path, "must not match the schema in not");
            }
        }
        if let Some(condition) = kw.condition {
            let branch = if self.passes(condition, instance, path, depth)? { kw.then } else { kw.otherwise };
            if let Some(schema) = branch {
                self.check(schema, instance, path, depth)?;
            }
        }
        Ok(())
    }
}

fn check_type(kw: &Kw<'_>, instance: &Value, path: &Loc<'_>) -> Outcome {
    // The names are collected only for the error message.
    let names: Vec<&str> = match kw.types {
        Some(Value::String(name)) if has_type(name, instance) => return Ok(()),
        Some(Value::String(name)) => vec![name],
        Some(Value::Array(names)) if names.iter().filter_map(Value::as_str).any(|name| has_type(name, instance)) => {
            return Ok(());
        }
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    let expected = match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "no type".to_string(),
    };
    invalid(path, format!("expected {expected}, got {}", type_name(instance)))
}

/// `minItems`/`maxItems` and their string and object twins.
fn check_size(
    (min, max, one, many): (Option<&Value>, Option<&Value>, &str, &str),
    len: usize,
    path: &Loc<'_>,
) -> Outcome {
    let len = count(len);
    if let Some(min) = min.and_then(Value::as_u64).filter(|&min| len < min) {
        return invalid(path, format!("expected at least {}", plural(min, one, many)));
    }
    if let Some(max) = max.and_then(Value::as_u64).filter(|&max| len > max) {
        return invalid(path, format!("expected at most {}", plural(max, one, many)));
    }
    Ok(())
}

fn check_number<'s>(kw: &Kw<'s>, n: &Number, path: &Loc<'_>) -> Outcome {
    let bound = |keyword: Option<&'s Value>| match keyword {
        Some(Value::Number(b)) => compare(n, b).map(|order| (order, b)),
        _ => None,
    };
    if let Some((Ordering::Less, min)) = bound(kw.minimum) {
        return invalid(path, format!("must be >= {min}"));
    }
    if let Some((Ordering::Greater, max)) = bound(kw.maximum) {
        return invalid(path, format!("must be <= {max}"));
    }
    if let Some((Ordering::Less | Ordering::Equal, min)) = bound(kw.exclusive_minimum) {
        return invalid(path, format!("must be > {min}"));
    }
    if let Some((Ordering::Greater | Ordering::Equal, max)) = bound(kw.exclusive_maximum) {
        return invalid(path, format!("must be < {max}"));
    }
    let Some(Value::Number(divisor)) = kw.multiple_of else {
        return Ok(());
    };
    let multiple = match (as_i128(n), as_i128(divisor), n.as_f64(), divisor.as_f64()) {
        (_, Some(0), _, _) => true,
        (Some(x), Some(d), _, _) => x % d == 0,
        (_, _, Some(x), Some(d)) if d > 0.0 => {
            // Floats: allow for representation error, e.g. 0.3 / 0.1.
            let q = x / d;
            q.is_finite() && (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
        }
        _ => true,
    };
    if !multiple {
        return invalid(path, format!("must be a multiple of {divisor}"));
    }
    Ok(())
}

/// One level of [`check_schema`]; `path` points into the schema.
fn check_node(root: &Value, schema: &Value, path: &str) -> Result<(), String> {
    let fail = |at: &str, message: &str| Err(format!("{}: {message}", shown(at)));
    let map = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        _ => return fail(path, "expected a schema (object or boolean)"),
    };
    for (key, value) in map {
        let here = child(path, key);
        let non_negative = value.as_number().is_some_and(|n| is_integer(n) && n.as_f64().is_some_and(|f| f >= 0.0));
        match key.as_str() {
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(names) => names.iter().collect(),
                    name => vec![name],
                };
                for name in names {
                    match name.as_str() {
                        Some(known) if TYPE_NAMES.contains(&known) => {}
                        Some(_) => return fail(&here, &format!("unknown type {name}")),
                        None => return fail(&here, "expected a type name or an array of type names"),
                    }
                }
            }
            "required" if !value.as_array().is_some_and(|a| a.iter().all(Value::is_string)) => {
                return fail(&here, "expected an array of strings");
            }
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                let Some(schemas) = value.as_object() else {
                    return fail(&here, "expected an object of schemas");
                };
                for (name, schema) in schemas {
                    check_node(root, schema, &child(&here, name))?;
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value.as_array() {
                Some(schemas) if !schemas.is_empty() => {
                    for (i, schema) in schemas.iter().enumerate() {
                        check_node(root, schema, &child(&here, &i.to_string()))?;
                    }
                }
                _ => return fail(&here, "expected a non-empty array of schemas"),
            },
            "items" if value.is_array() => {
                for (i, schema) in value.as_array().into_iter().flatten().enumerate() {
                    check_node(root, schema, &child(&here, &i.to_string()))?;
                }
            }
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames" => check_node(root, value, &here)?,
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" if !value.is_number() => {
                return fail(&here, "expected a number");
            }
            "multipleOf" if !value.as_f64().is_some_and(|d| d > 0.0) => {
                return fail(&here, "expected a number greater than 0");
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
                if !non_negative =>
            {
                return fail(&here, "expected a non-negative integer");
            }
            "enum" if !value.is_array() => return fail(&here, "expected an array"),
            "uniqueItems" if !value.is_boolean() => return fail(&here, "expected a boolean"),
            "$ref" => match value.as_str() {
                Some(reference) if resolve(root, reference).is_some() => {}
                Some(reference) => return fail(&here, &format!("unresolvable $ref {}", quote(reference))),
                None => return fail(&here, "expected a string"),
            },
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
