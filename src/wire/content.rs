//! Content blocks shared by tools, prompts and resources (text, image, audio, embedded resource,
//! resource link), their builders, and their shape for each protocol revision; a tool's result
//! made of them (`CallToolResult`).
//! Also the `Resource` descriptor (a resource link carries one), so `resources` builds on content
//! and not the other way round. Uses only the wire and util; no transport, no threads.

use crate::util::base64;
use crate::wire::protocol::ProtocolVersion;
use serde::Serialize;
use serde_json::{Map, Value};

/// Who a piece of content is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Hints to the client about how to use an object.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// The intended audience.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// 0 (least important) to 1 (most important).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Annotations {
    /// The annotations as the given revision knows them (`None` when nothing is left).
    pub fn to_wire(&self, version: ProtocolVersion) -> Option<Value> {
        let mut map = to_map(self);
        if !version.has_last_modified() {
            map.remove("lastModified");
        }
        (!map.is_empty()).then_some(Value::Object(map))
    }
}

/// An icon for a tool, resource, prompt or the server (2025-11-25 and later).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The image's MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `48x48` or `any`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `light` or `dark`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// The contents of a resource: text or a binary blob.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource URI.
        uri: String,
        /// MIME type.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents, base64-encoded on the wire.
    Blob {
        /// The resource URI.
        uri: String,
        /// MIME type.
        mime_type: Option<String>,
        /// Base64 of the bytes.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, mime_type: &str, text: impl Into<String>) -> Self {
        ResourceContents::Text { uri: uri.into(), mime_type: Some(mime_type.to_owned()), text: text.into() }
    }
    /// Binary contents from raw bytes.
    pub fn blob(uri: impl Into<String>, mime_type: &str, bytes: &[u8]) -> Self {
        ResourceContents::Blob { uri: uri.into(), mime_type: Some(mime_type.to_owned()), blob: base64::encode(bytes) }
    }
    /// The URI.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }
    /// The wire form (the same in every revision).
    pub fn to_wire(&self) -> Value {
        let mut map = Map::new();
        let (uri, mime_type) = match self {
            ResourceContents::Text { uri, mime_type, text } => {
                map.insert("text".into(), text.clone().into());
                (uri, mime_type)
            }
            ResourceContents::Blob { uri, mime_type, blob } => {
                map.insert("blob".into(), blob.clone().into());
                (uri, mime_type)
            }
        };
        map.insert("uri".into(), uri.clone().into());
        if let Some(m) = mime_type {
            map.insert("mimeType".into(), m.clone().into());
        }
        Value::Object(map)
    }
}

/// One content block of a tool result, prompt message or sampling message.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Optional annotations.
        annotations: Option<Annotations>,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `image/png`.
        mime_type: String,
        /// Optional annotations.
        annotations: Option<Annotations>,
    },
    /// Audio, base64-encoded (2025-03-26 and later).
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `audio/wav`.
        mime_type: String,
        /// Optional annotations.
        annotations: Option<Annotations>,
    },
    /// A resource embedded in full.
    Resource {
        /// The contents.
        resource: ResourceContents,
        /// Optional annotations.
        annotations: Option<Annotations>,
    },
    /// A link to a resource the client may read (2025-06-18 and later).
    ResourceLink(Box<Resource>),
}

impl Content {
    /// About how many bytes the block takes as JSON, without writing it: the data it carries
    /// and some for its members (what a metered stream counts while it waits for its writer).
    pub(crate) fn size_hint(&self) -> usize {
        let data = match self {
            Content::Text { text, .. } => text.len(),
            Content::Image { data, mime_type, .. } | Content::Audio { data, mime_type, .. } => {
                data.len() + mime_type.len()
            }
            Content::Resource { resource: ResourceContents::Text { uri, text: data, .. }, .. }
            | Content::Resource { resource: ResourceContents::Blob { uri, blob: data, .. }, .. } => {
                uri.len() + data.len()
            }
            Content::ResourceLink(_) => 256,
        };
        data + 64
    }

    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into(), annotations: None }
    }
    /// An image block from base64 data.
    pub fn image(data_base64: impl Into<String>, mime_type: &str) -> Self {
        Content::Image { data: data_base64.into(), mime_type: mime_type.to_owned(), annotations: None }
    }
    /// An image block from raw bytes, base64-encoded here.
    pub fn image_bytes(bytes: &[u8], mime_type: &str) -> Self {
        Content::image(base64::encode(bytes), mime_type)
    }
    /// An audio block from base64 data.
    pub fn audio(data_base64: impl Into<String>, mime_type: &str) -> Self {
        Content::Audio { data: data_base64.into(), mime_type: mime_type.to_owned(), annotations: None }
    }
    /// An embedded resource.
    pub fn resource(resource: ResourceContents) -> Self {
        Content::Resource { resource, annotations: None }
    }
    /// A resource link.
    pub fn link(resource: Resource) -> Self {
        Content::ResourceLink(Box::new(resource))
    }
    /// Sets the annotations (a resource link keeps them on its descriptor).
    pub fn with_annotations(mut self, new: Annotations) -> Self {
        match &mut self {
            Content::Text { annotations, .. }
            | Content::Image { annotations, .. }
            | Content::Audio { annotations, .. }
            | Content::Resource { annotations, .. } => *annotations = Some(new),
            Content::ResourceLink(r) => r.annotations = Some(new),
        }
        self
    }

    /// The block as the given revision knows it. Types a revision lacks become a text block
    /// that says what was there, so nothing is silently lost.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        let mut map = Map::new();
        let annotations = match self {
            Content::Text { text, annotations } => {
                map.insert("type".into(), "text".into());
                map.insert("text".into(), text.clone().into());
                annotations
            }
            Content::Image { data, mime_type, annotations } => {
                map.insert("type".into(), "image".into());
                map.insert("data".into(), data.clone().into());
                map.insert("mimeType".into(), mime_type.clone().into());
                annotations
            }
            Content::Audio { mime_type, .. } if !version.has_audio_content() => {
                return Content::text(format!("[{mime_type} audio omitted: protocol {version} has no audio content]"))
                    .to_wire(version)
            }
            Content::Audio { data, mime_type, annotations } => {
                map.insert("type".into(), "audio".into());
                map.insert("data".into(), data.clone().into());
                map.insert("mimeType".into(), mime_type.clone().into());
                annotations
            }
            Content::Resource { resource, annotations } => {
                map.insert("type".into(), "resource".into());
                map.insert("resource".into(), resource.to_wire());
                annotations
            }
            Content::ResourceLink(r) if !version.has_resource_links() => {
                return Content::text(format!("Resource: {} <{}>", r.name, r.uri)).to_wire(version)
            }
            Content::ResourceLink(r) => {
                let Value::Object(mut link) = r.to_wire(version) else { return Value::Null };
                link.insert("type".into(), "resource_link".into());
                return Value::Object(link);
            }
        };
        if let Some(a) = annotations.as_ref().and_then(|a| a.to_wire(version)) {
            map.insert("annotations".into(), a);
        }
        Value::Object(map)
    }
}

/// A block as `to_wire` shapes it, serialized straight to JSON (the same members in the same
/// order a `Value` writes them) without building the `Value` for the common text block.
pub(crate) struct WireBlock<'a>(pub &'a Content, pub ProtocolVersion);

impl Serialize for WireBlock<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Content::Text { text, annotations } = self.0 else {
            return self.0.to_wire(self.1).serialize(serializer);
        };
        let mut map = serializer.serialize_map(None)?;
        if let Some(a) = annotations.as_ref().and_then(|a| a.to_wire(self.1)) {
            map.serialize_entry("annotations", &a)?;
        }
        map.serialize_entry("text", text)?;
        map.serialize_entry("type", "text")?;
        map.end()
    }
}

/// Serializes a plain struct to a JSON object.
pub(crate) fn to_map<T: Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// A list of blocks for a revision.
pub fn list_to_wire(blocks: &[Content], version: ProtocolVersion) -> Value {
    Value::Array(blocks.iter().map(|c| c.to_wire(version)).collect())
}

/// A resource descriptor, as listed by `resources/list` or sent as a resource link.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// A human-readable title (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Extra metadata (2025-06-18 and later).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Scopes an access token must grant for the resource to be listed, read and subscribed
    /// to, when the transport checks scopes (HTTP under OAuth), as for a tool's
    /// `required_scopes`.
    #[serde(skip)]
    pub required_scopes: Vec<String>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
            required_scopes: Vec::new(),
        }
    }
    /// Sets the scopes a token must grant to list, read and subscribe to the resource.
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
    /// Sets the size.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// The descriptor as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        descriptor_to_wire(to_map(self), self.annotations.as_ref(), version)
    }
}

pub(crate) fn descriptor_to_wire(
    mut map: serde_json::Map<String, Value>,
    annotations: Option<&Annotations>,
    version: ProtocolVersion,
) -> Value {
    if !version.has_titles() {
        map.remove("title");
        map.remove("_meta");
    }
    if !version.has_icons() {
        map.remove("icons");
    }
    match annotations.and_then(|a| a.to_wire(version)) {
        Some(a) => map.insert("annotations".into(), a),
        None => map.remove("annotations"),
    };
    Value::Object(map)
}

// A tool's result, made of content blocks.

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn audio_and_links_degrade_to_text_for_old_revisions() {
        let audio = Content::audio("AAAA", "audio/wav");
        assert_eq!(audio.to_wire(ProtocolVersion::V2024_11_05)["type"], "text");
        assert_eq!(audio.to_wire(ProtocolVersion::V2025_03_26)["type"], "audio");
        let link = Content::link(Resource::new("file:///a", "a"));
        assert_eq!(link.to_wire(ProtocolVersion::V2025_03_26)["type"], "text");
        assert_eq!(
            link.to_wire(ProtocolVersion::V2025_06_18),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"})
        );
    }

    #[test]
    fn last_modified_needs_2025_06_18() {
        let a = Annotations { priority: Some(0.5), last_modified: Some("2025-01-01T00:00:00Z".into()), audience: None };
        let block = Content::text("x").with_annotations(a);
        assert_eq!(block.to_wire(ProtocolVersion::V2025_03_26)["annotations"], json!({"priority": 0.5}));
        assert!(block.to_wire(ProtocolVersion::V2025_11_25)["annotations"]["lastModified"].is_string());
    }
}
