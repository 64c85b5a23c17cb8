//! A tool with typed arguments and the schemas written by hand (`Server::typed_tool`, the path
//! without the feature `schemars`; `examples/temperature.rs` derives them): serde reads the
//! checked arguments into a struct, and the tool's `Reading` is answered as structured content
//! that its output schema describes.
//!
//! `cargo run --example typed_tool` calls it twice through an in-memory client and prints the
//! answers; `cargo run --example typed_tool -- --stdio` serves it to an MCP host over stdio.

use serde::{Deserialize, Serialize};
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tinymcp::{MemoryClient, Server, Tool, ToolError};

/// The arguments of `to_fahrenheit`, as the input schema declares them.
#[derive(Deserialize)]
struct Convert {
    celsius: f64,
    #[serde(default)]
    round: bool,
}

/// What `to_fahrenheit` answers, as the output schema declares it.
#[derive(Serialize)]
struct Reading {
    fahrenheit: f64,
}

fn server() -> Server {
    let server = Server::new("temperature", "1.0.0");
    let input = json!({
        "type": "object",
        "properties": {
            "celsius": {"type": "number", "description": "degrees Celsius"},
            "round": {"type": "boolean", "description": "round to a whole degree"}
        },
        "required": ["celsius"]
    });
    let output = json!({
        "type": "object",
        "properties": {"fahrenheit": {"type": "number"}},
        "required": ["fahrenheit"]
    });
    let tool = Tool::new("to_fahrenheit", "Converts degrees Celsius to Fahrenheit", input).with_output_schema(output);
    server.typed_tool(tool, |_cx, args: Convert| -> Result<Reading, ToolError> {
        let fahrenheit = args.celsius * 9.0 / 5.0 + 32.0;
        Ok(Reading { fahrenheit: if args.round { fahrenheit.round() } else { fahrenheit } })
    });
    server
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Arc::new(server());
    if std::env::args().any(|a| a == "--stdio") {
        return Ok(tinymcp::transport::stdio::serve(server)?);
    }
    let wait = Duration::from_secs(5);
    let client = MemoryClient::connect(Arc::clone(&server));
    client.initialize("2025-11-25", json!({}), wait).ok_or("no answer to initialize")?;
    let mut out = std::io::stdout().lock();

    let call = json!({"name": "to_fahrenheit", "arguments": {"celsius": 21.5, "round": true}});
    let answer = client.call("tools/call", call, wait).ok_or("no answer")?;
    writeln!(out, "21.5 °C, rounded: {}", answer["result"]["structuredContent"])?;
    assert_eq!(answer["result"]["structuredContent"]["fahrenheit"], 71.0);

    // Arguments that fail the input schema reach the model as a tool error, not the handler.
    let call = json!({"name": "to_fahrenheit", "arguments": {"celsius": "warm"}});
    let answer = client.call("tools/call", call, wait).ok_or("no answer")?;
    writeln!(out, "\"warm\": {}", answer["result"]["content"][0]["text"])?;
    assert_eq!(answer["result"]["isError"], true);

    drop(client);
    server.shutdown();
    Ok(())
}
