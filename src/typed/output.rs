//! What typed handlers may return, and how each becomes a tool result, prompt messages or
//! resource contents. A serializable value that is a JSON object is structured output (with its
//! text in `content`); a string is text; content blocks and whole results pass as they are.

use crate::features::prompts::{GetPromptResult, PromptMessage};
use crate::wire::content::CallToolResult;
use crate::wire::content::{Content, ResourceContents};
use serde::Serialize;
use serde_json::Value;

/// How a value is answered, the parameter of [`ToolOutput`] and `OutputSchema` (feature `schemars`) that keeps
/// their impls apart (a `Vec<Content>` is not `Serialize`, but the compiler cannot rule out that
/// it may become so): a `Serialize` value is answered as JSON. Inferred, never written.
#[derive(Debug)]
pub enum AsJson {}

/// How a value is answered: content blocks or a whole result, as they are (see [`AsJson`]).
#[derive(Debug)]
pub enum AsContent {}

/// What a typed tool may return: any `Serialize` value (an object is `structuredContent` and
/// its JSON text; a string is a text block; anything else its JSON as text), a [`Content`], a
/// `Vec<Content>` or a whole [`CallToolResult`]. `M` ([`AsJson`] or [`AsContent`]) is inferred.
pub trait ToolOutput<M> {
    /// The result, or why the value could not be encoded.
    fn into_result(self) -> Result<CallToolResult, String>;
}

impl<T: Serialize> ToolOutput<AsJson> for T {
    fn into_result(self) -> Result<CallToolResult, String> {
        Ok(match serde_json::to_value(self).map_err(|e| e.to_string())? {
            value @ Value::Object(_) => CallToolResult::structured(value),
            Value::String(text) => CallToolResult::text(text),
            other => CallToolResult::text(other.to_string()),
        })
    }
}

impl ToolOutput<AsContent> for Content {
    fn into_result(self) -> Result<CallToolResult, String> {
        Ok(CallToolResult::success(vec![self]))
    }
}

impl ToolOutput<AsContent> for Vec<Content> {
    fn into_result(self) -> Result<CallToolResult, String> {
        Ok(CallToolResult::success(self))
    }
}

impl ToolOutput<AsContent> for CallToolResult {
    fn into_result(self) -> Result<CallToolResult, String> {
        Ok(self)
    }
}

/// The output schema a typed tool's return type gives (feature `schemars`): the derived schema
/// of a type that serializes to an object, none for text, content blocks and whole results.
#[cfg(feature = "schemars")]
pub trait OutputSchema<M> {
    /// The schema of `structuredContent`, if the type gives one.
    fn output_schema() -> Option<Value>;
}

#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema> OutputSchema<AsJson> for T {
    fn output_schema() -> Option<Value> {
        let schema = super::derive::schema_for::<T>();
        (schema.get("type") == Some(&Value::from("object"))).then_some(schema)
    }
}

#[cfg(feature = "schemars")]
impl OutputSchema<AsContent> for Content {
    fn output_schema() -> Option<Value> {
        None
    }
}

#[cfg(feature = "schemars")]
impl OutputSchema<AsContent> for Vec<Content> {
    fn output_schema() -> Option<Value> {
        None
    }
}

#[cfg(feature = "schemars")]
impl OutputSchema<AsContent> for CallToolResult {
    fn output_schema() -> Option<Value> {
        None
    }
}

/// What a typed prompt may return: a `String` (one user message), a [`PromptMessage`], a
/// `Vec<PromptMessage>` or a whole [`GetPromptResult`].
pub trait PromptOutput {
    /// The result of `prompts/get`.
    fn into_prompt(self) -> GetPromptResult;
}

impl PromptOutput for String {
    fn into_prompt(self) -> GetPromptResult {
        GetPromptResult::new(vec![PromptMessage::user(Content::text(self))])
    }
}

impl PromptOutput for PromptMessage {
    fn into_prompt(self) -> GetPromptResult {
        GetPromptResult::new(vec![self])
    }
}

impl PromptOutput for Vec<PromptMessage> {
    fn into_prompt(self) -> GetPromptResult {
        GetPromptResult::new(self)
    }
}

impl PromptOutput for GetPromptResult {
    fn into_prompt(self) -> GetPromptResult {
        self
    }
}

/// What a typed resource template may return for a URI: a `String` (text, of the template's
/// MIME type or `text/plain`), a [`ResourceContents`], a `Vec<ResourceContents>`, or an
/// `Option` of one of those (`None`: no such resource, and the next template may match).
pub trait ResourceOutput {
    /// The contents of `uri`; empty means "no such resource".
    fn into_contents(self, uri: &str, mime_type: &str) -> Vec<ResourceContents>;
}

impl ResourceOutput for String {
    fn into_contents(self, uri: &str, mime_type: &str) -> Vec<ResourceContents> {
        vec![ResourceContents::text(uri, mime_type, self)]
    }
}

impl ResourceOutput for ResourceContents {
    fn into_contents(self, _uri: &str, _mime_type: &str) -> Vec<ResourceContents> {
        vec![self]
    }
}

impl ResourceOutput for Vec<ResourceContents> {
    fn into_contents(self, _uri: &str, _mime_type: &str) -> Vec<ResourceContents> {
        self
    }
}

impl<T: ResourceOutput> ResourceOutput for Option<T> {
    fn into_contents(self, uri: &str, mime_type: &str) -> Vec<ResourceContents> {
        self.map(|found| found.into_contents(uri, mime_type)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_is_structured_and_a_string_is_text() {
        let structured = ToolOutput::<AsJson>::into_result(json!({"n": 1})).expect("encodes");
        assert_eq!(structured.structured_content, Some(json!({"n": 1})));
        assert_eq!(structured.content, vec![Content::text(r#"{"n":1}"#)]);
        let text = "hi".to_owned().into_result().expect("encodes");
        assert_eq!((text.content, text.structured_content), (vec![Content::text("hi")], None));
        assert_eq!(3.5.into_result().expect("encodes").content, vec![Content::text("3.5")]);
        assert_eq!(vec![Content::text("a")].into_result().expect("passes").content.len(), 1);
    }

    #[test]
    fn none_is_no_such_resource() {
        assert!(None::<String>.into_contents("a:b", "text/plain").is_empty());
        assert_eq!(Some("x".to_owned()).into_contents("a:b", "text/plain").len(), 1);
    }
}
