//! The `everything` profile's MCP App: a counter tool with its HTML view, and an app-only reset
//! tool the view calls. Uses only the public registration API.

use super::lit;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use tinymcp::{AppView, CallToolResult, Server, Tool, ToolUi, ViewMeta};

/// Where the view is served.
pub const COUNTER_VIEW: &str = "ui://tinymcp/counter";

/// Registers `counter` (model and app) with its view, and `counter_reset` (app only).
pub fn register(server: &Server) {
    let count = Arc::new(AtomicI64::new(0));
    let view = AppView::html(COUNTER_VIEW, "Counter", include_str!("counter.html"))
        .with_description("A counter: shows the count and adds to it or resets it through the tools")
        .with_meta(ViewMeta { prefers_border: Some(true), ..Default::default() });
    let output = || lit(r#"{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}"#);
    let counted = Arc::clone(&count);
    server.register_app_tool(
        Tool::new(
            "counter",
            "Adds `by` (default 0) to a counter and shows it",
            lit(r#"{"type":"object","properties":{"by":{"type":"integer","minimum":-1000,"maximum":1000}}}"#),
        )
        .with_output_schema(output()),
        view,
        move |_, args: Value| {
            let by = args["by"].as_i64().unwrap_or(0);
            Ok(result(counted.fetch_add(by, Ordering::SeqCst).saturating_add(by)))
        },
    );
    server.register_tool(
        Tool::new("counter_reset", "Resets the counter to 0", lit(r#"{"type":"object"}"#))
            .with_output_schema(output())
            .with_ui(ToolUi::new(COUNTER_VIEW).app_only()),
        move |_, _| {
            count.store(0, Ordering::SeqCst);
            Ok(result(0))
        },
    );
}

/// The count as structured content, and as text for a client without views.
fn result(count: i64) -> CallToolResult {
    CallToolResult {
        structured_content: Some(json!({ "count": count })),
        ..CallToolResult::text(format!("count: {count}"))
    }
}
