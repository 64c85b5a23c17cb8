//! The typed API (feature `schemars`): the tool's input and output schemas come from the Rust
//! types, its arguments arrive as a `Convert` and its `Reading` goes out as structured content.
//!
//! `cargo run --example temperature --features schemars` calls it through an in-memory client
//! and prints the answers; add `-- --stdio` to serve it to an MCP host over stdio.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tinymcp::{MemoryClient, Server, ToolError};

// The arguments: each doc comment is a description in the input schema.
/// A temperature to convert.
#[derive(Deserialize, JsonSchema)]
struct Convert {
    /// Degrees Celsius.
    celsius: f64,
    /// Round to a whole degree.
    #[serde(default)]
    round: bool,
}

// The answer: its schema is the tool's output schema.
/// The temperature in degrees Fahrenheit.
#[derive(Serialize, JsonSchema)]
struct Reading {
    fahrenheit: f64,
}

fn server() -> Server {
    let server = Server::new("temperature", "1.0.0");
    server.tool("to_fahrenheit", "Converts Celsius to Fahrenheit", |_cx, c: Convert| -> Result<Reading, ToolError> {
        if c.celsius < -273.15 {
            return Err(ToolError::new("below absolute zero"));
        }
        let fahrenheit = c.celsius * 9.0 / 5.0 + 32.0;
        Ok(Reading { fahrenheit: if c.round { fahrenheit.round() } else { fahrenheit } })
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

    let listed = client.call("tools/list", json!({}), wait).ok_or("no answer")?;
    writeln!(out, "input schema: {}", listed["result"]["tools"][0]["inputSchema"])?;

    let call = json!({"name": "to_fahrenheit", "arguments": {"celsius": 21.5, "round": true}});
    let answer = client.call("tools/call", call, wait).ok_or("no answer")?;
    writeln!(out, "21.5 °C, rounded: {}", answer["result"]["structuredContent"])?;
    assert_eq!(answer["result"]["structuredContent"]["fahrenheit"], 71.0);

    // Arguments that fail the derived schema reach the model as a tool error naming the field.
    let call = json!({"name": "to_fahrenheit", "arguments": {"celsius": "warm"}});
    let answer = client.call("tools/call", call, wait).ok_or("no answer")?;
    writeln!(out, "\"warm\": {}", answer["result"]["content"][0]["text"])?;
    assert_eq!(answer["result"]["isError"], true);

    let call = json!({"name": "to_fahrenheit", "arguments": {"celsius": -300}});
    let answer = client.call("tools/call", call, wait).ok_or("no answer")?;
    writeln!(out, "-300 °C: {}", answer["result"]["content"][0]["text"])?;
    assert_eq!(answer["result"]["content"][0]["text"], "below absolute zero");

    drop(client);
    server.shutdown();
    Ok(())
}
