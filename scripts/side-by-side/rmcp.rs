// The temperature server with rmcp's macros, over stdio (scripts/side-by-side.sh).
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_handler, tool_router, transport::stdio, Json, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

#[derive(Clone)]
struct Temperature;

#[tool_router]
impl Temperature {
    #[tool(description = "Converts degrees Celsius to Fahrenheit")]
    async fn to_fahrenheit(&self, Parameters(c): Parameters<Convert>) -> Result<Json<Reading>, String> {
        if c.celsius < -273.15 {
            return Err("below absolute zero".into());
        }
        let fahrenheit = c.celsius * 9.0 / 5.0 + 32.0;
        Ok(Json(Reading { fahrenheit: if c.round { fahrenheit.round() } else { fahrenheit } }))
    }
}

#[tool_handler]
impl ServerHandler for Temperature {}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Temperature.serve(stdio()).await?.waiting().await?;
    Ok(())
}
