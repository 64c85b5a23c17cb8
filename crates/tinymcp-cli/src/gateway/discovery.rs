//! Progressive discovery (`"discovery": true`): instead of every schema, the model is offered
//! two tools: `search_tools` (words over the catalogue's names and descriptions; the tools
//! found come back with their schemas) and `call_tool` (a name and its arguments).

use super::Gateway;
use serde_json::{json, Value};
use std::sync::Arc;
use tinymcp::{CallToolResult, Content, RpcError, Tool, ToolAnnotations};

/// Tools one search returns unless it asks for fewer or more (at most `MOST`).
const DEFAULT_LIMIT: usize = 10;
const MOST: usize = 50;

pub fn register(gateway: &Arc<Gateway>) {
    let search = Tool::new(
        "search_tools",
        "Search the tools this gateway can call, by words matched against their names and descriptions. \
         Returns the matching tools with their input schemas; call one with call_tool.",
        json!({"type": "object", "properties": {
            "query": {"type": "string", "description": "words to look for, e.g. \"read file\""},
            "limit": {"type": "integer", "minimum": 1, "maximum": MOST, "description": "the most tools to return (default 10)"}
        }, "required": ["query"]}),
    )
    .with_annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() });
    let gw = Arc::clone(gateway);
    gateway.server.register_tool(search, move |cx, arguments| Ok(gw.search(cx, &arguments)));
    let call = Tool::new(
        "call_tool",
        "Call a tool found with search_tools, by its name, with its arguments.",
        json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "the tool's name, as search_tools returned it"},
            "arguments": {"type": "object", "description": "the tool's arguments, as its input schema says"}
        }, "required": ["name"]}),
    );
    let gw = Arc::clone(gateway);
    gateway.server.register_tool(call, move |cx, arguments| {
        let name = arguments.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(entry) = gw.entry(name) else {
            return Ok(CallToolResult::error(format!(
                "no tool named {name:?}: use search_tools to find the tools there are (an upstream that is down has none)"
            )));
        };
        // The scopes its registration would have made the library check.
        if !cx.grants(&entry.tool.required_scopes) {
            return Err(RpcError::insufficient_scope(&format!("the tool {name}"), &entry.tool.required_scopes));
        }
        let arguments = arguments.get("arguments").cloned().unwrap_or_else(|| json!({}));
        if let Err(e) = tinymcp::schema::validate(&entry.tool.input_schema, &arguments) {
            return Err(RpcError::invalid_params(format!("{name}: the arguments do not match its input schema: {e}")));
        }
        gw.call_tool(cx, &entry.upstream, &entry.original, name, arguments)
    });
}

impl Gateway {
    /// The tools whose names and descriptions hold the most of the query's words.
    fn search(&self, cx: &tinymcp::RequestCx, arguments: &Value) -> CallToolResult {
        let query = arguments.get("query").and_then(Value::as_str).unwrap_or_default().to_lowercase();
        let words: Vec<&str> = query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let limit =
            arguments.get("limit").and_then(Value::as_u64).map_or(DEFAULT_LIMIT, |n| (n as usize).clamp(1, MOST));
        let mut found: Vec<(usize, Value)> = self
            .entries()
            .into_iter()
            // A tool the caller's token may not use is not found.
            .filter(|entry| cx.grants(&entry.tool.required_scopes))
            .filter_map(|entry| {
                let text = format!("{} {}", entry.tool.name, entry.tool.description.as_deref().unwrap_or_default())
                    .to_lowercase();
                let score = words.iter().filter(|w| text.contains(**w)).count();
                (score > 0 || words.is_empty()).then(|| (score, serde_json::to_value(&entry.tool).unwrap_or_default()))
            })
            .collect();
        // Most words first; the catalogue's order among equals.
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        let tools: Vec<Value> = found.into_iter().take(limit).map(|(_, tool)| tool).collect();
        let structured = json!({"tools": tools});
        let mut result = CallToolResult::success(vec![Content::text(structured.to_string())]);
        result.structured_content = Some(structured);
        result
    }
}
