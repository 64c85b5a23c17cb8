//! Schemas derived from types (feature `schemars`): draft 2020-12 with every subschema inline,
//! so a client needs no `$defs` to read them (a recursive type keeps its `$defs` at the root,
//! where its `$ref`s resolve). Also the shape checks the typed registrations make of them.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The schema of `T`: draft 2020-12, inline, without the `$schema` (2020-12 is MCP's default
/// dialect) and the top `title` (the Rust type's name, noise for a model).
pub(crate) fn schema_for<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut schema = settings.into_generator().into_root_schema_for::<T>().to_value();
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    schema
}

/// The schema of `T`, which must describe a JSON object (a struct, a map): a tool's arguments,
/// a prompt's, a template's variables. Else why not, naming `what`.
pub(crate) fn object_schema<T: JsonSchema>(what: &str) -> Result<Value, String> {
    let schema = schema_for::<T>();
    if schema.get("type") == Some(&Value::from("object")) {
        return Ok(schema);
    }
    Err(format!(
        "{what}: {} must be a struct (its schema has to be a JSON object, not {schema}); for no arguments use \
         an empty struct `struct NoArgs {{}}` deriving Deserialize and JsonSchema",
        std::any::type_name::<T>()
    ))
}

/// One field of an object schema.
pub(crate) struct Field<'a> {
    pub name: &'a str,
    pub schema: &'a Map<String, Value>,
    pub required: bool,
}

/// The fields of an object schema, in its (alphabetical) order.
pub(crate) fn fields(schema: &Value) -> Vec<Field<'_>> {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .filter_map(|(name, s)| s.as_object().map(|s| (name, s)))
        .map(|(name, s)| Field { name, schema: s, required: required.contains(&name.as_str()) })
        .collect()
}

/// The one JSON type a field's schema names, `null` left out (`Option<T>` gives `[T, "null"]`);
/// `None` for several or none.
pub(crate) fn single_type(schema: &Map<String, Value>) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => {
            let mut named = types.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            let first = named.next()?;
            named.next().is_none().then_some(first)
        }
        _ => None,
    }
}

/// The fields of an object schema whose values arrive as strings (prompt arguments, template
/// variables): each must be a string (or an optional one). Else which field is not, and why.
pub(crate) fn string_fields<'s>(schema: &'s Value, what: &str) -> Result<Vec<Field<'s>>, String> {
    let fields = fields(schema);
    if let Some(bad) = fields.iter().find(|f| single_type(f.schema) != Some("string")) {
        return Err(format!(
            "{what}: field {} must be a String or an Option<String> (its values arrive as text), not {}",
            bad.name,
            Value::Object(bad.schema.clone())
        ));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        inner: Inner,
        maybe: Option<String>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        n: u8,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        children: Vec<Tree>,
    }

    #[test]
    fn a_nested_struct_is_inlined_and_checks_as_the_validator_reads_it() {
        let schema = schema_for::<Outer>();
        assert_eq!(schema["properties"]["inner"]["type"], "object");
        assert!(schema.get("$defs").is_none() && schema.get("$schema").is_none() && schema.get("title").is_none());
        crate::util::schema::check_schema(&schema).expect("a schema the validator takes");
        assert!(crate::util::schema::validate(&schema, &json!({"inner": {"n": 3}})).is_ok());
        assert!(crate::util::schema::validate(&schema, &json!({"inner": {"n": 300}})).is_err());
        // An `Option` field: `["string", "null"]`, so absent, null and a string all pass.
        for maybe in [json!(null), json!("x")] {
            assert!(crate::util::schema::validate(&schema, &json!({"inner": {"n": 3}, "maybe": maybe})).is_ok());
        }
        assert!(crate::util::schema::validate(&schema, &json!({"inner": {"n": 3}, "maybe": 1})).is_err());
    }

    #[test]
    fn a_recursive_type_keeps_defs_its_refs_resolve_in() {
        let schema = schema_for::<Tree>();
        crate::util::schema::check_schema(&schema).expect("its $ref resolves");
        assert!(crate::util::schema::validate(&schema, &json!({"children": [{"children": []}]})).is_ok());
        assert!(crate::util::schema::validate(&schema, &json!({"children": [{"children": 1}]})).is_err());
    }

    #[test]
    fn only_structs_are_objects_and_only_strings_are_string_fields() {
        assert!(object_schema::<u32>("tool t").expect_err("not an object").contains("must be a struct"));
        let outer = object_schema::<Outer>("prompt p").expect("an object");
        let why = string_fields(&outer, "prompt p").err().expect("inner is not a string");
        assert!(why.contains("field inner"), "{why}");
        let fields = fields(&outer);
        assert_eq!(
            fields.iter().map(|f| (f.name, f.required)).collect::<Vec<_>>(),
            [("inner", true), ("maybe", false)]
        );
    }
}
