// The temperature server with tinymcp's typed API, over stdio (scripts/side-by-side.sh).
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tinymcp::{Server, ToolError};

/// A temperature to convert.
#[derive(Deserialize, JsonSchema)]
struct Convert {
    /// Degrees Celsius.
    celsius: f64,
    /// Round to a whole degree.
    #[serde(default)]
    round: bool,
}

/// The temperature in degrees Fahrenheit.
#[derive(Serialize, JsonSchema)]
struct Reading {
    fahrenheit: f64,
}

fn main() -> Result<(), tinymcp::Error> {
    let server = Server::new("temperature", "1.0.0");
    server.tool("to_fahrenheit", "Converts degrees Celsius to Fahrenheit", |_cx, c: Convert| -> Result<Reading, ToolError> {
        if c.celsius < -273.15 {
            return Err(ToolError::new("below absolute zero"));
        }
        let fahrenheit = c.celsius * 9.0 / 5.0 + 32.0;
        Ok(Reading { fahrenheit: if c.round { fahrenheit.round() } else { fahrenheit } })
    });
    tinymcp::transport::stdio::serve(Arc::new(server))
}
