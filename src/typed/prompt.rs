//! Typed prompts: `Server::prompt` (the argument list derived from a struct, feature
//! `schemars`: each field an argument, `required` unless it is an `Option`) and
//! `Server::typed_prompt` (the same handler, the argument list written by hand). The arguments,
//! strings on the wire, are read into the struct.

use super::error::ToolError;
use super::output::PromptOutput;
use crate::features::prompts::{Prompt, PromptArguments};
use crate::server::context::RequestCx;
use crate::server::Server;
use crate::wire::error::RpcError;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

impl Server {
    /// Registers a prompt whose arguments are the fields of `A` (feature `schemars`): each
    /// field an argument (its doc comment the description), required unless it is an `Option`
    /// or has a serde default. Arguments are strings on the wire, so each field is a `String` or
    /// an `Option<String>`; they are listed in alphabetical order. The handler returns a
    /// `String` (one user message), messages or a [`GetPromptResult`](crate::GetPromptResult);
    /// an error is answered as a protocol error (see [`ToolError`]).
    ///
    /// # Panics
    /// When `A` is not a struct of string fields.
    #[cfg(feature = "schemars")]
    pub fn prompt<A, P, E, F>(&self, name: impl Into<String>, description: impl Into<String>, handler: F)
    where
        A: DeserializeOwned + schemars::JsonSchema + 'static,
        P: PromptOutput + 'static,
        E: Into<ToolError> + 'static,
        F: Fn(&RequestCx, A) -> Result<P, E> + Send + Sync + 'static,
    {
        use crate::features::prompts::PromptArgument;
        let name = name.into();
        let what = format!("the arguments of prompt {name}");
        let schema = super::derive::object_schema::<A>(&what).unwrap_or_else(|why| panic!("{why}"));
        let fields = super::derive::string_fields(&schema, &what).unwrap_or_else(|why| panic!("{why}"));
        let arguments = fields
            .iter()
            .map(|f| PromptArgument {
                name: f.name.to_owned(),
                title: None,
                description: f.schema.get("description").and_then(Value::as_str).map(str::to_owned),
                required: f.required,
            })
            .collect();
        self.typed_prompt(Prompt::new(name, description, arguments), handler);
    }

    /// Registers a prompt with a typed handler and its argument list written by hand: the path
    /// without the feature `schemars`. The arguments (the required ones checked first) are read
    /// into `A`; one serde cannot read is `-32602` naming it.
    pub fn typed_prompt<A, P, E, F>(&self, prompt: Prompt, handler: F)
    where
        A: DeserializeOwned + 'static,
        P: PromptOutput + 'static,
        E: Into<ToolError> + 'static,
        F: Fn(&RequestCx, A) -> Result<P, E> + Send + Sync + 'static,
    {
        let name = prompt.name.clone();
        self.register_prompt(
            prompt,
            move |cx, arguments| {
                let arguments: A = read_strings(arguments)
                    .map_err(|e| RpcError::invalid_params(format!("invalid arguments for prompt {name}: {e}")))?;
                handler(cx, arguments).map(PromptOutput::into_prompt).map_err(|e| e.into().into_rpc())
            },
            None,
        );
    }
}

/// Reads string pairs (prompt arguments, template variables) into a type, as a JSON object.
pub(crate) fn read_strings<A: DeserializeOwned>(pairs: &PromptArguments) -> Result<A, serde_json::Error> {
    let object: Map<String, Value> = pairs.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    serde_json::from_value(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use crate::transport::memory::MemoryClient;
    use crate::{Prompt, PromptArgument, Server, ToolError};
    use serde::Deserialize;
    use serde_json::json;
    use std::sync::Arc;
    use std::time::Duration;

    #[derive(Deserialize)]
    struct Greet {
        name: String,
        #[serde(default)]
        greeting: Option<String>,
    }

    #[test]
    fn a_hand_described_typed_prompt_reads_its_arguments_into_a_struct() {
        let server = Server::new("t", "0");
        let arguments = vec![PromptArgument::new("name", "Who", true), PromptArgument::new("greeting", "How", false)];
        server.typed_prompt(Prompt::new("greet", "Greets", arguments), |_cx, g: Greet| {
            Ok::<_, ToolError>(format!("{}, {}!", g.greeting.as_deref().unwrap_or("Hello"), g.name))
        });
        let client = MemoryClient::connect(Arc::new(server));
        let wait = Duration::from_secs(5);
        client.initialize("2025-11-25", json!({}), wait).expect("initialized");
        let got = client.call("prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}}), wait);
        let got = got.expect("an answer");
        assert_eq!(got["result"]["messages"][0]["content"]["text"], "Hello, Ada!", "{got}");
    }
}
