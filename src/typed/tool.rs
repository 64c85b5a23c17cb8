//! Typed tools: `Server::tool` (schemas derived from the argument and return types, feature
//! `schemars`) and `Server::typed_tool` (the same handler, the descriptor written by hand).
//! Both register a plain handler that reads the checked arguments into the type, runs the
//! typed handler and turns what it returns into a result.

use super::error::ToolError;
use super::output::ToolOutput;
use crate::features::tools::Tool;
use crate::server::context::RequestCx;
use crate::server::Server;
use crate::wire::content::CallToolResult;
use serde::de::DeserializeOwned;

impl Server {
    /// Registers a tool whose schemas come from its types (feature `schemars`): the arguments'
    /// type `A` gives `inputSchema`, a return type that serializes to an object gives
    /// `outputSchema`, and the value is sent as `structuredContent` with its JSON as text.
    /// A `String`, [`Content`](crate::Content), `Vec<Content>` or [`CallToolResult`] answers as
    /// it is. `?` on any error in the handler is a result the model reads (`isError`), except an
    /// [`RpcError`](crate::RpcError), which stays a protocol error (see [`ToolError`]).
    ///
    /// ```
    /// # use tinymcp::{Server, ToolError};
    /// # use serde::{Deserialize, Serialize};
    /// # use schemars::JsonSchema;
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Add { a: i64, b: i64 }
    /// #[derive(Serialize, JsonSchema)]
    /// struct Sum { sum: i64 }
    /// let server = Server::new("demo", "1.0.0");
    /// server.tool("add", "Adds two integers", |_cx, x: Add| -> Result<Sum, ToolError> {
    ///     Ok(Sum { sum: x.a.checked_add(x.b).ok_or(ToolError::new("the sum overflows"))? })
    /// });
    /// ```
    ///
    /// # Panics
    /// When `A` is not a struct (its schema is not a JSON object): a tool's arguments are one.
    #[cfg(feature = "schemars")]
    pub fn tool<A, R, M, E, F>(&self, name: impl Into<String>, description: impl Into<String>, handler: F)
    where
        A: DeserializeOwned + schemars::JsonSchema + 'static,
        R: ToolOutput<M> + super::output::OutputSchema<M> + 'static,
        E: Into<ToolError> + 'static,
        F: Fn(&RequestCx, A) -> Result<R, E> + Send + Sync + 'static,
    {
        let name = name.into();
        let input = super::derive::object_schema::<A>(&format!("the arguments of tool {name}"))
            .unwrap_or_else(|why| panic!("{why}"));
        let mut tool = Tool::new(name, description, input);
        tool.output_schema = R::output_schema();
        self.typed_tool(tool, handler);
    }

    /// Registers a tool with a typed handler and the descriptor written by hand (its
    /// `inputSchema`, and `outputSchema` if it returns structured content): the path without
    /// the feature `schemars`. The arguments, checked against the input schema, are read into
    /// `A`; a field serde cannot read is a tool error naming it. What the handler returns is
    /// answered as for `Server::tool` (feature `schemars`).
    pub fn typed_tool<A, R, M, E, F>(&self, tool: Tool, handler: F)
    where
        A: DeserializeOwned + 'static,
        R: ToolOutput<M> + 'static,
        E: Into<ToolError> + 'static,
        F: Fn(&RequestCx, A) -> Result<R, E> + Send + Sync + 'static,
    {
        let name = tool.name.clone();
        self.register_tool(tool, move |cx, arguments| {
            let arguments: A = match serde_json::from_value(arguments) {
                Ok(arguments) => arguments,
                Err(e) => return Ok(CallToolResult::error(format!("invalid arguments for tool {name}: {e}"))),
            };
            match handler(cx, arguments) {
                Ok(output) => Ok(output.into_result().unwrap_or_else(|e| {
                    log::error!("tool {name} returned a value that does not encode as JSON: {e}");
                    CallToolResult::error(format!("tool {name} could not encode its result: {e}"))
                })),
                Err(e) => e.into().into_tool_result(),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::transport::memory::MemoryClient;
    use crate::{Server, Tool, ToolError};
    use serde::{Deserialize, Serialize};
    use serde_json::{json, Value};
    use std::sync::Arc;
    use std::time::Duration;

    #[derive(Deserialize)]
    struct Convert {
        celsius: f64,
    }

    #[derive(Serialize)]
    struct Reading {
        fahrenheit: f64,
    }

    fn call(server: Server, arguments: Value) -> Value {
        let client = MemoryClient::connect(Arc::new(server));
        client.initialize("2025-11-25", json!({}), Duration::from_secs(5)).expect("initialized");
        let params = json!({"name": "convert", "arguments": arguments});
        client.call("tools/call", params, Duration::from_secs(5)).expect("an answer")["result"].clone()
    }

    fn server() -> Server {
        let server = Server::new("t", "0");
        let input = json!({"type": "object", "properties": {"celsius": {"type": "number"}}});
        let output = json!({"type": "object", "properties": {"fahrenheit": {"type": "number"}}});
        let tool = Tool::new("convert", "Converts", input).with_output_schema(output);
        server.typed_tool(tool, |_cx, c: Convert| -> Result<Reading, ToolError> {
            if c.celsius < -273.15 {
                return Err(ToolError::new("below absolute zero"));
            }
            Ok(Reading { fahrenheit: c.celsius * 9.0 / 5.0 + 32.0 })
        });
        server
    }

    #[test]
    fn a_hand_described_typed_tool_answers_structured_content() {
        let result = call(server(), json!({"celsius": 100}));
        assert_eq!(result["structuredContent"], json!({"fahrenheit": 212.0}));
        assert_eq!(result["content"][0]["text"], r#"{"fahrenheit":212.0}"#);
    }

    #[test]
    fn what_serde_cannot_read_and_a_tool_error_reach_the_model() {
        // The hand schema does not require celsius; serde does, and says which field.
        let result = call(server(), json!({}));
        assert_eq!(result["isError"], true);
        assert!(result["content"][0]["text"].as_str().unwrap_or_default().contains("celsius"), "{result}");
        let result = call(server(), json!({"celsius": -300}));
        assert_eq!((&result["isError"], &result["content"][0]["text"]), (&json!(true), &json!("below absolute zero")));
    }
}
