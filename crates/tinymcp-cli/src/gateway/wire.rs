//! What an upstream lists and answers, read from its JSON into the library's types (which
//! the gateway registers and returns, so every revision is served whatever the upstream
//! speaks), and resource URIs under the upstream's prefix (`NAME+URI`) and back.

use serde_json::{json, Map, Value};
use tinymcp::{
    Annotations, CallToolResult, Content, GetPromptResult, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, ResourceTemplate, Role, Tool, ToolAnnotations,
};

/// `NAME+URI`: unique across upstreams, and a URI still (`NAME` is a valid scheme start).
pub fn prefix_uri(upstream: &str, uri: &str) -> String {
    format!("{upstream}+{uri}")
}

/// The upstream's own URI of a prefixed one, when it is this upstream's.
pub fn strip_uri<'u>(upstream: &str, uri: &'u str) -> Option<&'u str> {
    uri.strip_prefix(upstream)?.strip_prefix('+')
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A tool descriptor; `None` without a name.
pub fn tool(value: &Value) -> Option<Tool> {
    let name = text(value, "name")?;
    let schema =
        value.get("inputSchema").filter(|s| s.is_object()).cloned().unwrap_or_else(|| json!({"type": "object"}));
    let mut tool = Tool::new(name, "", schema);
    tool.description = text(value, "description");
    tool.title = text(value, "title");
    tool.output_schema = value.get("outputSchema").filter(|s| s.is_object()).cloned();
    tool.meta = value.get("_meta").filter(|m| m.is_object()).cloned();
    tool.annotations = value.get("annotations").and_then(Value::as_object).map(tool_annotations);
    Some(tool)
}

/// Tool annotations from their JSON (unknown members dropped).
pub fn tool_annotations(map: &Map<String, Value>) -> ToolAnnotations {
    let flag = |key: &str| map.get(key).and_then(Value::as_bool);
    ToolAnnotations {
        title: map.get("title").and_then(Value::as_str).map(str::to_owned),
        read_only_hint: flag("readOnlyHint"),
        destructive_hint: flag("destructiveHint"),
        idempotent_hint: flag("idempotentHint"),
        open_world_hint: flag("openWorldHint"),
    }
}

fn annotations(value: &Value) -> Option<Annotations> {
    let map = value.get("annotations")?.as_object()?;
    let audience = map
        .get("audience")
        .and_then(Value::as_array)
        .map(|roles| roles.iter().filter_map(|r| role(r.as_str()?)).collect::<Vec<_>>());
    Some(Annotations {
        audience,
        priority: map.get("priority").and_then(Value::as_f64),
        last_modified: map.get("lastModified").and_then(Value::as_str).map(str::to_owned),
    })
}

fn role(text: &str) -> Option<Role> {
    match text {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// A content block; a type the library does not know becomes a text block saying what was
/// there, so nothing is silently lost.
pub fn content(value: &Value, upstream: &str) -> Content {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
    let block = match kind {
        "text" => Content::text(text(value, "text").unwrap_or_default()),
        "image" => {
            Content::image(text(value, "data").unwrap_or_default(), &text(value, "mimeType").unwrap_or_default())
        }
        "audio" => {
            Content::audio(text(value, "data").unwrap_or_default(), &text(value, "mimeType").unwrap_or_default())
        }
        "resource" => match value.get("resource").and_then(|r| contents(r, upstream)) {
            Some(resource) => Content::resource(resource),
            None => Content::text(format!("[a resource block the gateway could not read: {value}]")),
        },
        "resource_link" => match resource(value, upstream) {
            Some(link) => Content::link(link),
            None => Content::text(format!("[a resource link without a uri or name: {value}]")),
        },
        other => Content::text(format!("[a {other:?} content block: {value}]")),
    };
    match annotations(value) {
        Some(a) if !matches!(block, Content::ResourceLink(_)) => block.with_annotations(a),
        _ => block,
    }
}

/// A tool's result.
pub fn call_result(value: &Value, upstream: &str) -> CallToolResult {
    let blocks = value.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut result = CallToolResult::success(blocks.iter().map(|b| content(b, upstream)).collect());
    result.is_error = value.get("isError").and_then(Value::as_bool).unwrap_or(false);
    result.structured_content = value.get("structuredContent").filter(|s| !s.is_null()).cloned();
    result.meta = value.get("_meta").filter(|m| m.is_object()).cloned();
    result
}

/// Resource contents, their URI under the upstream's prefix.
pub fn contents(value: &Value, upstream: &str) -> Option<ResourceContents> {
    let uri = prefix_uri(upstream, value.get("uri")?.as_str()?);
    let mime_type = text(value, "mimeType");
    if let Some(blob) = text(value, "blob") {
        return Some(ResourceContents::Blob { uri, mime_type, blob });
    }
    Some(ResourceContents::Text { uri, mime_type, text: text(value, "text").unwrap_or_default() })
}

/// A resource descriptor, its URI under the upstream's prefix.
pub fn resource(value: &Value, upstream: &str) -> Option<Resource> {
    let uri = prefix_uri(upstream, value.get("uri")?.as_str()?);
    let mut resource = Resource::new(uri, text(value, "name")?);
    resource.title = text(value, "title");
    resource.description = text(value, "description");
    resource.mime_type = text(value, "mimeType");
    resource.size = value.get("size").and_then(Value::as_u64);
    resource.annotations = annotations(value);
    resource.meta = value.get("_meta").filter(|m| m.is_object()).cloned();
    Some(resource)
}

/// A resource template, under the upstream's prefix.
pub fn template(value: &Value, upstream: &str) -> Option<ResourceTemplate> {
    let uri_template = prefix_uri(upstream, value.get("uriTemplate")?.as_str()?);
    let mut template = ResourceTemplate::new(uri_template, text(value, "name")?);
    template.title = text(value, "title");
    template.description = text(value, "description");
    template.mime_type = text(value, "mimeType");
    template.annotations = annotations(value);
    Some(template)
}

/// A prompt descriptor under the name `exposed`.
pub fn prompt(value: &Value, exposed: String) -> Prompt {
    let arguments = value.get("arguments").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let arguments = arguments
        .iter()
        .filter_map(|a| {
            let mut argument =
                PromptArgument::new(text(a, "name")?, "", a.get("required").and_then(Value::as_bool).unwrap_or(false));
            argument.description = text(a, "description");
            argument.title = text(a, "title");
            Some(argument)
        })
        .collect();
    let mut prompt = Prompt::new(exposed, "", arguments);
    prompt.description = text(value, "description");
    prompt.title = text(value, "title");
    prompt
}

/// A prompt's messages.
pub fn prompt_result(value: &Value, upstream: &str) -> GetPromptResult {
    let messages = value.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let messages = messages
        .iter()
        .map(|m| {
            let content = m.get("content").map_or_else(|| Content::text(""), |c| content(c, upstream));
            match m.get("role").and_then(Value::as_str) {
                Some("assistant") => PromptMessage::assistant(content),
                _ => PromptMessage::user(content),
            }
        })
        .collect();
    GetPromptResult { description: text(value, "description"), messages }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_prefixed_and_stripped() {
        assert_eq!(prefix_uri("fs", "file:///a"), "fs+file:///a");
        assert_eq!(strip_uri("fs", "fs+file:///a"), Some("file:///a"));
        assert_eq!(strip_uri("fs", "fsx+file:///a"), None);
        assert_eq!(strip_uri("fs", "file:///a"), None);
    }

    #[test]
    fn results_keep_what_the_upstream_said() {
        let result = call_result(
            &json!({"content": [{"type": "text", "text": "hi"}, {"type": "resource_link", "uri": "a://b", "name": "b"},
                                {"type": "weird"}], "isError": true, "structuredContent": {"n": 1}}),
            "up",
        );
        assert!(result.is_error);
        assert_eq!(result.structured_content, Some(json!({"n": 1})));
        assert_eq!(result.content[0], Content::text("hi"));
        assert!(matches!(&result.content[1], Content::ResourceLink(r) if r.uri == "up+a://b"));
        assert!(matches!(&result.content[2], Content::Text { text, .. } if text.contains("weird")));
        let tool = tool(&json!({"name": "t", "annotations": {"readOnlyHint": true}})).unwrap();
        assert_eq!(tool.input_schema, json!({"type": "object"}));
        assert_eq!(tool.annotations.unwrap().read_only_hint, Some(true));
    }
}
