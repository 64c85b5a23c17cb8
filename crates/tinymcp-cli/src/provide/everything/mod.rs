//! The `everything` profile: the fixture the official conformance suite expects (every name and
//! answer of its server scenarios), plus `echo` (our benchmark yardstick) and tools that exercise
//! roots, URL elicitation, structured output, resource links and list changes for interop tests.
//! Uses only the public registration API.

use crate::provide::lit;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::sleep;
use std::time::Duration;
use tinymcp::{
    Annotations, CallToolResult, Content, GetPromptResult, LogLevel, Prompt, PromptArgument, PromptMessage,
    ProtocolVersion, Resource, ResourceContents, ResourceTemplate, Role, Server, Tool, ToolAnnotations,
};

mod app;
mod per_request;

/// A 1x1 red PNG.
pub const TEST_IMAGE_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file.
pub const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

fn no_args() -> Value {
    lit(r#"{"type":"object","properties":{}}"#)
}

fn string_arg(name: &str, description: &str) -> Value {
    let mut schema = lit(r#"{"type":"object","properties":{}}"#);
    schema["properties"][name] = lit(r#"{"type":"string"}"#);
    schema["properties"][name]["description"] = description.into();
    schema["required"] = vec![name].into();
    schema
}

/// Registers the whole fixture on `server`.
pub fn register(server: &Server) {
    register_content_tools(server);
    register_interactive_tools(server);
    register_extra_tools(server);
    app::register(server);
    per_request::register_task_tools(server);
    register_prompts(server);
    per_request::register_per_request_fixtures(server);
}

fn register_content_tools(server: &Server) {
    server.register_tool(
        Tool::new("echo", "Echoes back the message", string_arg("message", "The message to echo")),
        |_, args| Ok(CallToolResult::text(format!("Echo: {}", args["message"].as_str().unwrap_or_default()))),
    );
    server.register_tool(Tool::new("test_simple_text", "Tests simple text content response", no_args()), |_, _| {
        Ok(CallToolResult::text("This is a simple text response for testing."))
    });
    server.register_tool(Tool::new("test_image_content", "Tests image content response", no_args()), |_, _| {
        Ok(CallToolResult::success(vec![Content::image(TEST_IMAGE_BASE64, "image/png")]))
    });
    server.register_tool(Tool::new("test_audio_content", "Tests audio content response", no_args()), |_, _| {
        Ok(CallToolResult::success(vec![Content::audio(TEST_AUDIO_BASE64, "audio/wav")]))
    });
    server.register_tool(
        Tool::new("test_embedded_resource", "Tests embedded resource content response", no_args()),
        |_, _| {
            Ok(CallToolResult::success(vec![Content::resource(ResourceContents::text(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            ))]))
        },
    );
    server.register_tool(
        Tool::new(
            "test_multiple_content_types",
            "Tests response with multiple content types (text, image, resource)",
            no_args(),
        ),
        |_, _| {
            Ok(CallToolResult::success(vec![
                Content::text("Multiple content types test:"),
                Content::image(TEST_IMAGE_BASE64, "image/png"),
                Content::resource(ResourceContents::text(
                    "test://mixed-content-resource",
                    "application/json",
                    lit(r#"{"test":"data","value":123}"#).to_string(),
                )),
            ]))
        },
    );
    server.register_tool(Tool::new("test_error_handling", "Tests error response handling", no_args()), |_, _| {
        Ok(CallToolResult::error("This tool intentionally returns an error for testing"))
    });
    server.register_tool(
        Tool::new(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
            json_schema_2020_12(),
        ),
        |_, args| Ok(CallToolResult::text(format!("JSON Schema 2020-12 tool called with: {args}"))),
    );
}

fn register_interactive_tools(server: &Server) {
    server.register_tool(
        Tool::new("test_tool_with_logging", "Tests tool that emits log messages during execution", no_args()),
        |cx, _| {
            for (i, text) in
                ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate()
            {
                if i > 0 {
                    sleep(Duration::from_millis(50));
                }
                cx.log(LogLevel::Info, None, Value::from(*text));
            }
            Ok(CallToolResult::text("Tool with logging executed successfully"))
        },
    );
    server.register_tool(
        Tool::new("test_tool_with_progress", "Tests tool that reports progress notifications", no_args()),
        |cx, _| {
            for step in [0.0, 50.0, 100.0] {
                if step > 0.0 {
                    sleep(Duration::from_millis(50));
                }
                if cx.is_cancelled() {
                    return Ok(CallToolResult::error("cancelled"));
                }
                cx.progress(step, Some(100.0), Some(&format!("Completed step {step} of 100")));
            }
            Ok(CallToolResult::text("Progress reported"))
        },
    );
    server.register_tool(
        Tool::new(
            "test_reconnection",
            "Tests SSE stream disconnection and client reconnection (SEP-1699)",
            no_args(),
        ),
        |cx, _| {
            // The stream closes before the answer exists; the client must poll back for it.
            cx.close_stream();
            sleep(Duration::from_millis(100));
            Ok(CallToolResult::text(
                "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
            ))
        },
    );
    server.register_tool(
        Tool::new(
            "test_sampling",
            "Tests server-initiated sampling (LLM completion request)",
            string_arg("prompt", "The prompt to send to the LLM"),
        ),
        |cx, args| {
            let mut params = lit(r#"{"messages":[{"role":"user","content":{"type":"text"}}],"maxTokens":100}"#);
            params["messages"][0]["content"]["text"] = args["prompt"].clone();
            let answer = cx.sample(params)?;
            let text = answer.pointer("/content/text").and_then(Value::as_str).unwrap_or("No response");
            Ok(CallToolResult::text(format!("LLM response: {text}")))
        },
    );
    server.register_tool(
        Tool::new(
            "test_elicitation",
            "Tests server-initiated elicitation (user input request)",
            string_arg("message", "The message to show the user"),
        ),
        |cx, args| {
            let mut params = lit(r#"{"requestedSchema":{"type":"object","properties":{
                    "username":{"type":"string","description":"User's name"},
                    "email":{"type":"string","description":"User's email address","format":"email"}},
                    "required":["username","email"]}}"#);
            params["message"] = args["message"].clone();
            let answer = cx.elicit_raw(params)?;
            Ok(CallToolResult::text(elicitation_summary("User response", &answer)))
        },
    );
    server.register_tool(
        Tool::new("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", no_args()),
        |cx, _| {
            let answer = cx.elicit_raw(lit(r#"{"message":"Please review and update the form fields with defaults","requestedSchema":{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}}"#))?;
            Ok(CallToolResult::text(elicitation_summary("Elicitation completed", &answer)))
        },
    );
    server.register_tool(
        Tool::new(
            "test_elicitation_sep1330_enums",
            "Tests elicitation with enum schema improvements per SEP-1330",
            no_args(),
        ),
        |cx, _| {
            let mut params = lit(r#"{"message":"Please select options from the enum fields"}"#);
            params["requestedSchema"] = sep1330_schema(cx.version());
            let answer = cx.elicit_raw(params)?;
            Ok(CallToolResult::text(elicitation_summary("Elicitation completed", &answer)))
        },
    );
}

fn elicitation_summary(prefix: &str, answer: &Value) -> String {
    let action = answer["action"].as_str().unwrap_or("unknown");
    let content = answer.get("content").cloned().unwrap_or_else(|| lit(r#"{}"#));
    format!("{prefix}: action={action}, content={content}")
}

fn register_extra_tools(server: &Server) {
    server.register_tool(Tool::new("test_roots", "Lists the client's roots (roots/list)", no_args()), |cx, _| {
        let answer = cx.list_roots()?;
        let roots = answer["roots"].as_array().cloned().unwrap_or_default();
        let lines: Vec<String> = roots.iter().map(|r| r["uri"].as_str().unwrap_or_default().to_owned()).collect();
        Ok(CallToolResult::text(format!("Roots: {}", lines.join(", "))))
    });
    server.register_tool(
        Tool::new("test_url_elicitation", "Asks the user to visit a URL (URL-mode elicitation)", no_args()),
        |cx, _| {
            let answer = cx.elicit_raw(lit(r#"{"mode":"url","message":"Please authorize at the example page","url":"https://example.com/authorize","elicitationId":"everything-url-1"}"#))?;
            cx.elicitation_complete("everything-url-1");
            Ok(CallToolResult::text(elicitation_summary("URL elicitation", &answer)))
        },
    );
    server.register_tool(
        Tool::new("test_sampling_with_tools", "Sampling that offers the model a tool (2025-11-25)", no_args()),
        |cx, _| {
            let answer = cx.sample(lit(r#"{"messages":[{"role":"user","content":{"type":"text","text":"What is the weather?"}}],"maxTokens":100,"tools":[{"name":"get_weather","description":"Weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],"toolChoice":{"mode":"auto"}}"#))?;
            Ok(CallToolResult::text(format!("Sampling answer: {answer}")))
        },
    );
    server.register_tool(
        Tool::new(
            "add",
            "Adds two integers; the sum comes back as structured content",
            lit(r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}"#),
        )
        .with_title("Add")
        .with_output_schema(lit(r#"{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}"#))
        .with_annotations(ToolAnnotations {
            read_only_hint: Some(true),
            idempotent_hint: Some(true),
            ..Default::default()
        }),
        |_, args| {
            let sum = args["a"].as_i64().unwrap_or(0).saturating_add(args["b"].as_i64().unwrap_or(0));
            Ok(CallToolResult::structured(json!({ "sum": sum })))
        },
    );
    server.register_tool(
        Tool::new("test_resource_link", "Returns a link to a resource instead of its contents", no_args()),
        |_, _| {
            let link = Resource::new("test://static-text", "static-text")
                .with_mime_type("text/plain")
                .with_description("A static text resource for testing");
            let note = Content::text("See the linked resource.").with_annotations(Annotations {
                audience: Some(vec![Role::User]),
                priority: Some(0.5),
                last_modified: None,
            });
            Ok(CallToolResult::success(vec![note, Content::link(link)]))
        },
    );
    server.register_tool(
        Tool::new(
            "test_slow",
            "Sleeps for `ms` milliseconds in steps, honouring cancellation",
            lit(r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000}}}"#),
        ),
        |cx, args| {
            let total = args["ms"].as_u64().unwrap_or(1000);
            let mut waited = 0;
            while waited < total {
                if cx.is_cancelled() {
                    return Ok(CallToolResult::error("cancelled"));
                }
                sleep(Duration::from_millis(10));
                waited += 10;
            }
            Ok(CallToolResult::text(format!("slept {total} ms")))
        },
    );
    let generation = Arc::new(AtomicU64::new(0));
    let g = Arc::clone(&generation);
    server.register_tool(
        Tool::new(
            "test_trigger_resource_update",
            "Changes test://watched-resource and notifies its subscribers",
            no_args(),
        ),
        move |cx, _| {
            g.fetch_add(1, Ordering::SeqCst);
            cx.server().notify_resource_updated("test://watched-resource");
            Ok(CallToolResult::text("Resource update triggered"))
        },
    );
    server.register_tool(
        Tool::new("test_trigger_tool_change", "Adds or removes a dynamic tool and announces the change", no_args()),
        |cx, _| {
            let server = cx.server();
            if !server.remove_tool("test_dynamic_tool") {
                server
                    .register_tool(Tool::new("test_dynamic_tool", "A tool that comes and goes", no_args()), |_, _| {
                        Ok(CallToolResult::text("dynamic"))
                    });
            }
            server.notify_tool_list_changed();
            Ok(CallToolResult::text("Mutation triggered"))
        },
    );
    server.register_tool(
        Tool::new("test_trigger_prompt_change", "Adds or removes a dynamic prompt and announces the change", no_args()),
        |cx, _| {
            let server = cx.server();
            if !server.remove_prompt("test_dynamic_prompt") {
                server.register_prompt(
                    Prompt::new("test_dynamic_prompt", "A prompt that comes and goes", vec![]),
                    |_, _| Ok(GetPromptResult::new(vec![PromptMessage::user(Content::text("dynamic"))])),
                    None,
                );
            }
            server.notify_prompt_list_changed();
            Ok(CallToolResult::text("Mutation triggered"))
        },
    );
    register_resources(server, &generation);
}

fn register_resources(server: &Server, generation: &Arc<AtomicU64>) {
    server.register_resource(
        Resource::new("test://static-text", "static-text")
            .with_description("A static text resource for testing")
            .with_mime_type("text/plain"),
        |_, uri| {
            Ok(vec![ResourceContents::text(uri, "text/plain", "This is the content of the static text resource.")])
        },
    );
    server.register_resource(
        Resource::new("test://static-binary", "static-binary")
            .with_description("A static binary resource (image) for testing")
            .with_mime_type("image/png"),
        |_, uri| {
            Ok(vec![ResourceContents::Blob {
                uri: uri.to_owned(),
                mime_type: Some("image/png".into()),
                blob: TEST_IMAGE_BASE64.into(),
            }])
        },
    );
    server.register_resource(
        Resource::new("test://watched-resource", "watched-resource")
            .with_description("A resource that changes when test_trigger_resource_update runs")
            .with_mime_type("text/plain"),
        {
            let generation = Arc::clone(generation);
            move |_, uri| {
                let text = match generation.load(Ordering::SeqCst) {
                    0 => "Watched resource content".to_owned(),
                    n => format!("Watched resource content (update {n})"),
                };
                Ok(vec![ResourceContents::text(uri, "text/plain", text)])
            }
        },
    );
    let template = ResourceTemplate::new("test://template/{id}/data", "template")
        .with_description("A resource template with parameter substitution")
        .with_mime_type("application/json");
    let registered = server.register_resource_template(
        template,
        |_, uri, vars| {
            let id = vars.get("id").cloned().unwrap_or_default();
            let body = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Ok(vec![ResourceContents::text(uri, "application/json", body.to_string())])
        },
        Some(Box::new(|_, req| tinymcp::filter_prefix(["1", "2", "3", "123"], req.value))),
    );
    if let Err(e) = registered {
        log::error!("everything: bad template: {e}");
    }
}

fn register_prompts(server: &Server) {
    server.register_prompt(
        Prompt::new("test_simple_prompt", "A simple prompt without arguments", vec![]),
        |_, _| {
            Ok(GetPromptResult::new(vec![PromptMessage::user(Content::text("This is a simple prompt for testing."))]))
        },
        None,
    );
    server.register_prompt(
        Prompt::new(
            "test_prompt_with_arguments",
            "A prompt with required arguments",
            vec![
                PromptArgument::new("arg1", "First test argument", true),
                PromptArgument::new("arg2", "Second test argument", true),
            ],
        ),
        |_, args| {
            let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", args["arg1"], args["arg2"]);
            Ok(GetPromptResult::new(vec![PromptMessage::user(Content::text(text))]))
        },
        Some(Box::new(|_, req| {
            let candidates: &[&str] = match req.argument {
                "arg1" => &["test", "testValue1", "paris", "park"],
                _ => &["testValue2", "other"],
            };
            tinymcp::filter_prefix(candidates.iter().copied(), req.value)
        })),
    );
    server.register_prompt(
        Prompt::new(
            "test_prompt_with_embedded_resource",
            "A prompt that includes an embedded resource",
            vec![PromptArgument::new("resourceUri", "URI of the resource to embed", true)],
        ),
        |_, args| {
            let uri = args.get("resourceUri").cloned().unwrap_or_default();
            Ok(GetPromptResult::new(vec![
                PromptMessage::user(Content::resource(ResourceContents::text(
                    uri,
                    "text/plain",
                    "Embedded resource content for testing.",
                ))),
                PromptMessage::user(Content::text("Please process the embedded resource above.")),
            ]))
        },
        None,
    );
    server.register_prompt(
        Prompt::new("test_prompt_with_image", "A prompt that includes image content", vec![]),
        |_, _| {
            Ok(GetPromptResult::new(vec![
                PromptMessage::user(Content::image(TEST_IMAGE_BASE64, "image/png")),
                PromptMessage::user(Content::text("Please analyze the image above.")),
            ]))
        },
        None,
    );
}

fn json_schema_2020_12() -> Value {
    lit(
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##,
    )
}

/// The SEP-1330 enum shapes the client's revision can describe: before 2025-11-25 the
/// elicitation schema has single-select `enum` (with the legacy `enumNames`) only, no titled
/// `oneOf` and no multi-select arrays.
fn sep1330_schema(version: ProtocolVersion) -> Value {
    let mut schema = lit(
        r#"{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}"#,
    );
    if version < ProtocolVersion::V2025_11_25 {
        if let Some(properties) = schema["properties"].as_object_mut() {
            properties.retain(|name, _| name == "untitledSingle" || name == "legacyEnum");
        }
    }
    schema
}
