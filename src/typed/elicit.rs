//! Typed elicitation: `cx.elicit::<Confirm>("…")` asks the user for a form derived from a
//! struct (feature `schemars`) and reads the answer into it; `cx.elicit_with::<T>(message,
//! schema)` does the same with the schema written by hand. Both are inherent methods of
//! `RequestCx` (nothing to import); the untyped form is `RequestCx::elicit_raw`. Elicitation
//! forms are flat objects of primitives (strings, numbers, integers, booleans, enums of
//! strings): a struct that is not one is refused before anything is asked, naming the field.

use crate::server::context::RequestCx;
use crate::wire::error::RpcError;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// The user's answer to a typed elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T> {
    /// The user filled in the form.
    Accept(T),
    /// The user said no.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// Typed elicitation on a handler's context.
impl RequestCx {
    /// Asks the user (`elicitation/create`, form mode) to fill in the form `requested_schema`
    /// describes, with `message`, and reads an accepted answer into `T`. The client must have
    /// declared elicitation (else `-32021`); an answer that does not read as `T` is `-32602`.
    pub fn elicit_with<T: DeserializeOwned>(
        &self,
        message: &str,
        requested_schema: Value,
    ) -> Result<Elicited<T>, RpcError> {
        let answer = self.elicit_raw(json!({ "message": message, "requestedSchema": requested_schema }))?;
        match answer.get("action").and_then(Value::as_str) {
            Some("accept") => {
                let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
                serde_json::from_value(content).map(Elicited::Accept).map_err(|e| {
                    RpcError::invalid_params(format!(
                        "the elicitation answer does not fit the form asked ({}): {e}",
                        std::any::type_name::<T>()
                    ))
                })
            }
            Some("decline") => Ok(Elicited::Decline),
            Some("cancel") => Ok(Elicited::Cancel),
            _ => Err(RpcError::invalid_params(format!(
                "the elicitation answer has no action accept, decline or cancel: {answer}"
            ))),
        }
    }

    /// Asks the user for a `T` (feature `schemars`): the form's schema is derived from the
    /// struct, each field a primitive (an `Option` is a field the user may leave empty; doc
    /// comments are the fields' descriptions), and an accepted answer is read into `T`. A
    /// struct with a nested object, a list of anything but enum strings or a map is refused
    /// with `-32603` naming the field, before the client is asked. On 2026-07-28 the question
    /// is an input-required result and the answer comes from the retry, as for `elicit_raw`.
    #[cfg(feature = "schemars")]
    pub fn elicit<T: DeserializeOwned + schemars::JsonSchema>(&self, message: &str) -> Result<Elicited<T>, RpcError> {
        let schema = form::<T>().map_err(|why| {
            log::error!("{why}");
            RpcError::new(crate::wire::error::INTERNAL_ERROR, why)
        })?;
        self.elicit_with(message, schema)
    }
}

/// The form `T` derives: a flat object whose every field is a primitive schema as elicitation
/// defines it, with only the keywords that definition knows (a derived `format: "double"` or
/// `nullable` type would make a strict client refuse the request).
#[cfg(feature = "schemars")]
fn form<T: schemars::JsonSchema>() -> Result<Value, String> {
    use super::derive::{fields, object_schema};
    let name = std::any::type_name::<T>();
    let what = format!("elicitation of {name}");
    let schema = object_schema::<T>(&what)?;
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for field in fields(&schema) {
        let primitive = primitive(field.schema).ok_or_else(|| {
            format!(
                "{what}: field {} is {}; elicitation asks a flat object of strings, numbers, integers, booleans \
                 and enums of strings, so a nested struct, a map or a list of other things cannot be asked",
                field.name,
                Value::Object(field.schema.clone())
            )
        })?;
        properties.insert(field.name.to_owned(), primitive);
        if field.required {
            required.push(Value::from(field.name));
        }
    }
    Ok(json!({"type": "object", "properties": properties, "required": required}))
}

/// The values of a unit enum whose variants are documented: `oneOf` string constants.
#[cfg(feature = "schemars")]
fn one_of_strings(schema: &serde_json::Map<String, Value>) -> Option<Vec<Value>> {
    let variants = schema.get("oneOf")?.as_array()?;
    variants.iter().map(|v| v.get("const").filter(|c| c.is_string()).cloned()).collect()
}

/// One field as an elicitation primitive schema, or `None` if it is not one.
#[cfg(feature = "schemars")]
fn primitive(schema: &serde_json::Map<String, Value>) -> Option<Value> {
    const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];
    let keep = |keys: &[&str], kind: &str| {
        let mut out = serde_json::Map::new();
        out.insert("type".into(), kind.into());
        for key in keys.iter().chain(&["title", "description", "default"]) {
            if let Some(v) = schema.get(*key).filter(|v| !v.is_null()) {
                out.insert((*key).into(), v.clone());
            }
        }
        Value::Object(out)
    };
    if let Some(values) = one_of_strings(schema) {
        let mut out = keep(&[], "string");
        out["enum"] = Value::Array(values);
        return Some(out);
    }
    let strings = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|a| a.iter().all(Value::is_string));
    match super::derive::single_type(schema)? {
        "string" => {
            let mut out = keep(&["minLength", "maxLength"], "string");
            if let Some(format) = schema.get("format").and_then(Value::as_str).filter(|f| FORMATS.contains(f)) {
                out["format"] = format.into();
            }
            if strings(schema.get("enum")) {
                out["enum"] = schema["enum"].clone();
            }
            Some(out)
        }
        kind @ ("number" | "integer") => Some(keep(&["minimum", "maximum"], kind)),
        "boolean" => Some(keep(&[], "boolean")),
        "array" => {
            let items = schema.get("items")?.as_object()?;
            let values = match one_of_strings(items) {
                Some(values) => values,
                None if items.get("type") == Some(&Value::from("string")) && strings(items.get("enum")) => {
                    items["enum"].as_array()?.clone()
                }
                None => return None,
            };
            let mut out = keep(&["minItems", "maxItems"], "array");
            out["items"] = json!({"type": "string", "enum": values});
            Some(out)
        }
        _ => None,
    }
}

#[cfg(all(test, feature = "schemars"))]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Booking {
        /// How many nights.
        nights: u8,
        email: Option<String>,
        room: Room,
        extras: Vec<Room>,
        breakfast: bool,
        price: f64,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Room {
        /// A single.
        Single,
        /// A double.
        Double,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Deep {
        list: Vec<u8>,
    }

    #[test]
    fn a_flat_struct_is_a_form_with_only_the_keywords_elicitation_knows() {
        let form = form::<Booking>().expect("a flat form");
        assert_eq!(
            form["properties"]["nights"],
            json!({"type": "integer", "description": "How many nights.", "minimum": 0, "maximum": 255})
        );
        assert_eq!(form["properties"]["email"], json!({"type": "string"}));
        assert_eq!(form["properties"]["room"]["enum"], json!(["Single", "Double"]));
        assert_eq!(form["properties"]["extras"]["items"], json!({"type": "string", "enum": ["Single", "Double"]}));
        assert_eq!(form["properties"]["price"], json!({"type": "number"}));
        let required = form["required"].as_array().expect("a list");
        assert!(!required.contains(&json!("email")) && required.contains(&json!("nights")), "{form}");
    }

    #[test]
    fn a_list_of_numbers_is_refused_naming_the_field() {
        let why = form::<Deep>().expect_err("not a primitive");
        assert!(why.contains("field list") && why.contains("flat object"), "{why}");
    }
}
