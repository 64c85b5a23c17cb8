//! The result of `tools/call`: content blocks, structured output and the error flag, shaped for
//! each revision, and kept typed on its way to the writer ([`ToolReply`], which a `Reply` holds
//! without a box). Uses the wire's content blocks only.

use super::content::{list_to_wire, Content, WireBlock};
use super::decoration::Decoration;
use super::typed::{encoded_len, Members, Typed};
use super::version::ProtocolVersion;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallToolResult {
    /// The content blocks.
    pub content: Vec<Content>,
    /// Structured output, checked against the tool's `outputSchema` (2025-06-18 and later).
    pub structured_content: Option<Value>,
    /// Whether the tool failed (the model reads why in `content`).
    pub is_error: bool,
    /// Extra metadata.
    pub meta: Option<Value>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult { content, ..Default::default() }
    }
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![Content::text(text)])
    }
    /// A failed result whose text says why.
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![Content::text(text)], is_error: true, ..Default::default() }
    }
    /// A structured result; its JSON is also given as a text block for older clients.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            content: vec![Content::text(value.to_string())],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// The result as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        let mut map = Map::new();
        map.insert("content".into(), list_to_wire(&self.content, version));
        if let (Some(s), true) = (&self.structured_content, version.has_structured_output()) {
            map.insert("structuredContent".into(), s.clone());
        }
        if self.is_error {
            map.insert("isError".into(), true.into());
        }
        if let Some(meta) = &self.meta {
            map.insert("_meta".into(), meta.clone());
        }
        Value::Object(map)
    }
}

/// A result as `to_wire` shapes it, kept typed for the writer of its stream, which serialises
/// it straight into its output: the same members in the order a `Value` (a sorted map) writes
/// them. A `Reply` holds it without a box (the usual answer: one allocation less per call).
#[derive(Debug)]
pub struct ToolReply(pub(crate) CallToolResult, pub(crate) ProtocolVersion, pub(crate) Option<Arc<Decoration>>);

/// With its decoration around it, the result writes its `_meta` itself, merged.
impl Typed for ToolReply {
    fn write_members(&self, members: &mut Members<'_>) -> serde_json::Result<()> {
        let ToolReply(result, version, around) = self;
        if let Some(around) = around {
            around.write_around(result.meta.as_ref(), members)?;
        }
        members.entry("content", &WireBlocks(&result.content, *version))?;
        if result.is_error {
            members.entry("isError", &true)?;
        }
        if let (Some(s), true) = (&result.structured_content, version.has_structured_output()) {
            members.entry("structuredContent", s)?;
        }
        Ok(())
    }

    fn meta(&self) -> Option<&Value> {
        self.0.meta.as_ref().filter(|_| self.2.is_none())
    }

    fn size_hint(&self) -> usize {
        let ToolReply(result, _, around) = self;
        let structured = result.structured_content.as_ref().map_or(0, encoded_len);
        let around = around.as_ref().map_or(0, |a| a.size_hint() + result.meta.as_ref().map_or(0, encoded_len));
        result.content.iter().map(Content::size_hint).sum::<usize>() + structured + around + 40
    }
}

struct WireBlocks<'a>(&'a [Content], ProtocolVersion);

impl Serialize for WireBlocks<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|block| WireBlock(block, self.1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::content::Annotations;
    use serde_json::json;

    #[test]
    fn a_typed_result_written_out_is_its_value_written_out() {
        let annotated = Content::text("b").with_annotations(Annotations { priority: Some(0.5), ..Default::default() });
        let results = [
            CallToolResult::text("Echo: h\u{e9}llo \"x\"\n"),
            CallToolResult::error("no such thing"),
            CallToolResult::structured(json!({"n": 1, "list": [true, null]})),
            CallToolResult {
                content: vec![annotated, Content::image("aGk=", "image/png"), Content::text("c")],
                meta: Some(json!({"k": "v"})),
                ..Default::default()
            },
            CallToolResult::default(),
        ];
        for version in ProtocolVersion::ALL {
            for result in &results {
                let typed = crate::wire::frame::Reply::Tool(ToolReply(result.clone(), version, None));
                let text = crate::wire::frame::text_of(|out| typed.write_to(out));
                assert_eq!(text, result.to_wire(version).to_string(), "{version} {result:?}");
            }
        }
    }
}
