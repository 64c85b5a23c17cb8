//! The `everything` fixture's tools for revision 2026-07-28 (contract §2.3, §2.5, §2.6) and the
//! tasks extension (§2.7): input-required results, a required capability, response streams, a
//! custom header, and the task tools. Through the public registration API only, as the rest.

use super::{lit, no_args, string_arg};
use serde_json::{json, Value};
use std::thread::sleep;
use std::time::Duration;
use tinymcp::{
    CallToolResult, Content, GetPromptResult, InputRequest, LogLevel, Prompt, PromptMessage, RequestCx, RpcError,
    Server, TaskSupport, Tool,
};

/// The 2026-07-28 fixtures (contract §2.3, §2.5, §2.6): input-required results, a required
/// capability, response streams, a custom header. The handlers ask through `RequestCx` as any
/// handler does, so on older revisions they send real requests to the client instead.
pub(super) fn register_per_request_fixtures(server: &Server) {
    server.register_tool(
        Tool::new("test_missing_capability", "Needs the client's sampling capability (-32021 without it)", no_args()),
        |cx, _| {
            cx.require_capability("sampling")?;
            Ok(CallToolResult::text("Success"))
        },
    );
    server.register_tool(
        Tool::new("test_streaming_elicitation", "Streams progress before its result, never a request", no_args()),
        |cx, _| {
            cx.progress(1.0, Some(1.0), Some("streaming"));
            Ok(CallToolResult::text("Streaming complete"))
        },
    );
    server.register_tool(
        Tool::new(
            "test_logging_tool",
            "Logs at info, which reaches the client only if it asked for a level",
            no_args(),
        ),
        |cx, _| {
            cx.log(LogLevel::Info, None, "Diagnostic trace logging activated".into());
            Ok(CallToolResult::text("Logging evaluated"))
        },
    );
    server.register_tool(
        Tool::new(
            "test_custom_header",
            "Echoes a value that also travels in the Mcp-Param-Value header (SEP-2243)",
            lit(r#"{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Value"}},"required":["value"]}"#),
        ),
        |_, args| Ok(CallToolResult::text(args["value"].as_str().unwrap_or_default())),
    );
    server.register_tool(
        Tool::new("test_input_required_result_elicitation", "Asks the user's name, then greets them", no_args()),
        |cx, _| {
            let answer = cx.elicit_raw_as("user_name", ask_name("What is your name?", "name"))?;
            Ok(CallToolResult::text(format!("Hello, {}!", answer["content"]["name"].as_str().unwrap_or("stranger"))))
        },
    );
    server.register_tool(
        Tool::new("test_input_required_result_sampling", "Asks the client's model a question", no_args()),
        |cx, _| {
            let answer = cx.sample_as("sample_request", sampling("What is the capital of France?", 100))?;
            Ok(CallToolResult::text(format!("Sampling result: {}", answer["content"]["text"].as_str().unwrap_or(""))))
        },
    );
    server.register_tool(
        Tool::new("test_input_required_result_list_roots", "Counts the client's roots", no_args()),
        |cx, _| {
            let answer = cx.list_roots_as("client_roots")?;
            Ok(CallToolResult::text(format!("Found {} root(s)", root_count(&answer))))
        },
    );
    server.register_tool(
        Tool::new(
            "test_input_required_result_request_state",
            "Asks for a confirmation carried in requestState",
            no_args(),
        ),
        |cx, _| confirm(cx),
    );
    server.register_tool(
        Tool::new(
            "test_input_required_result_tampered_state",
            "Asks for a confirmation (its state must not be altered)",
            no_args(),
        ),
        |cx, _| confirm(cx),
    );
    server.register_tool(
        Tool::new(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, a greeting and the roots in one round",
            no_args(),
        ),
        |cx, _| {
            let answers = cx.ask(&[
                InputRequest::elicit("user_name", ask_name("What is your name?", "name")),
                InputRequest::sample("greeting", sampling("Generate a greeting", 50)),
                InputRequest::list_roots("client_roots"),
            ])?;
            let name = answers[0]["content"]["name"].as_str().unwrap_or("stranger");
            let greeting = answers[1]["content"]["text"].as_str().unwrap_or("");
            Ok(CallToolResult::text(format!("Name: {name}; Greeting: {greeting}; Roots: {}", root_count(&answers[2]))))
        },
    );
    server.register_tool(
        Tool::new(
            "test_input_required_result_multi_round",
            "Asks a name, then a favourite colour, in two rounds",
            no_args(),
        ),
        |cx, _| {
            let first = cx.elicit_raw_as("step1", ask_name("Step 1: What is your name?", "name"))?;
            let second = cx.elicit_raw_as("step2", ask_name("Step 2: What is your favorite color?", "color"))?;
            let name = first["content"]["name"].as_str().unwrap_or("stranger");
            let color = second["content"]["color"].as_str().unwrap_or("no colour");
            Ok(CallToolResult::text(format!("Multi-round complete for {name} who likes {color}")))
        },
    );
    server.register_tool(
        Tool::new(
            "test_input_required_result_capabilities",
            "Asks only what the client's capabilities allow",
            no_args(),
        ),
        |cx, _| {
            let mut asks = Vec::new();
            if cx.client_supports("elicitation") {
                asks.push(InputRequest::elicit("elicit_input", ask_name("What is your name?", "name")));
            }
            if cx.client_supports("sampling") {
                asks.push(InputRequest::sample("sample_input", sampling("Sample request", 50)));
            }
            if asks.is_empty() {
                return Ok(CallToolResult::text("No supported capabilities declared"));
            }
            let keys: Vec<String> = asks.iter().map(|a| a.key.clone()).collect();
            cx.ask(&asks)?;
            Ok(CallToolResult::text(format!("capabilities-ok: received {}", keys.join(", "))))
        },
    );
    server.register_prompt(
        Prompt::new("test_input_required_result_prompt", "Asks the user for context, then builds the prompt", vec![]),
        |cx, _| {
            let answer =
                cx.elicit_raw_as("user_context", ask_name("What context should the prompt use?", "context"))?;
            let context = answer["content"]["context"].as_str().unwrap_or("");
            Ok(GetPromptResult::new(vec![PromptMessage::user(Content::text(format!(
                "Prompt with context: {context}"
            )))]))
        },
        None,
    );
}

/// A form elicitation of one required string `field`.
fn ask_name(message: &str, field: &str) -> Value {
    let mut params = lit(r#"{"requestedSchema":{"type":"object","properties":{}}}"#);
    params["message"] = message.into();
    params["requestedSchema"]["properties"][field] = lit(r#"{"type":"string"}"#);
    params["requestedSchema"]["required"] = vec![field].into();
    params
}

/// A one-message sampling request.
fn sampling(text: &str, max_tokens: u64) -> Value {
    let mut params = lit(r#"{"messages":[{"role":"user","content":{"type":"text"}}]}"#);
    params["messages"][0]["content"]["text"] = text.into();
    params["maxTokens"] = max_tokens.into();
    params
}

fn root_count(answer: &Value) -> usize {
    answer["roots"].as_array().map_or(0, Vec::len)
}

/// `Please confirm` under key `confirm`; the retry's sealed state brings the answer back.
fn confirm(cx: &RequestCx) -> Result<CallToolResult, RpcError> {
    let params = lit(
        r#"{"message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}"#,
    );
    let answer = cx.elicit_raw_as("confirm", params)?;
    let ok = answer["action"] == "accept" && answer["content"]["ok"] == true;
    Ok(CallToolResult::text(if ok { "state-ok: confirmed" } else { "state-ok: not confirmed" }))
}

/// Tools of the tasks fixture (names shared with the conformance suite's task scenarios).
pub(super) fn register_task_tools(server: &Server) {
    server.register_tool(
        Tool::new("greet", "Greets someone (never a task)", string_arg("name", "Who to greet")),
        |_, args| Ok(CallToolResult::text(format!("Hello, {}!", args["name"].as_str().unwrap_or_default()))),
    );
    server.register_tool(
        Tool::new(
            "slow_compute",
            "Works for `seconds` seconds, honouring cancellation; may run as a task",
            lit(r#"{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":3600},"label":{"type":"string"}}}"#),
        )
        .with_task_support(TaskSupport::Optional),
        |cx, args| {
            let ms = (args["seconds"].as_f64().unwrap_or(1.0) * 1000.0) as u64;
            let mut waited = 0;
            while waited < ms {
                if cx.is_cancelled() {
                    return Ok(CallToolResult::error("cancelled"));
                }
                sleep(Duration::from_millis(10));
                waited += 10;
            }
            let label = args["label"].as_str().unwrap_or("job");
            Ok(CallToolResult::text(format!("{label} finished after {ms} ms")))
        },
    );
    server.register_tool(
        Tool::new("failing_job", "A task whose tool reports failure (isError)", no_args())
            .with_task_support(TaskSupport::Required),
        |_, _| Ok(CallToolResult::error("The job failed as designed")),
    );
    server.register_tool(
        Tool::new("protocol_error_job", "A task that ends in a protocol error", no_args())
            .with_task_support(TaskSupport::Optional),
        |_, _| Err(RpcError::invalid_params("protocol_error_job always fails")),
    );
    server.register_tool(
        Tool::new("confirm_delete", "Asks the user to confirm before pretending to delete a file", string_arg("filename", "The file"))
            .with_task_support(TaskSupport::Required),
        |cx, args| {
            let filename = args["filename"].as_str().unwrap_or_default();
            let mut params = lit(
                r#"{"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}"#,
            );
            params["message"] = format!("Delete {filename}?").into();
            let answer = cx.elicit_raw(params)?;
            let confirmed = answer["action"] == "accept" && answer["content"]["confirm"] == true;
            Ok(CallToolResult::text(if confirmed { format!("Deleted {filename}") } else { format!("Kept {filename}") }))
        },
    );
    server.register_tool(
        Tool::new("multi_input", "Asks two questions at once, then answers with both", no_args())
            .with_task_support(TaskSupport::Required),
        |cx, _| {
            let ask = |message: &str, field: &str| {
                let mut params = lit(r#"{"requestedSchema":{"type":"object","properties":{}}}"#);
                params["message"] = message.into();
                params["requestedSchema"]["properties"][field] = json!({ "type": "string" });
                params
            };
            let answers = cx.ask(&[
                InputRequest::elicit("name", ask("What is your name?", "name")),
                InputRequest::elicit("color", ask("What is your favourite colour?", "color")),
            ])?;
            Ok(CallToolResult::text(format!("Answers: {} and {}", answers[0]["content"], answers[1]["content"])))
        },
    );
    server.register_tool(
        Tool::new("test_tool_with_task", "Asks for a name first, then greets it as a task", no_args())
            .with_task_support(TaskSupport::Required)
            .with_input_before_task(),
        |cx, _| {
            let params = lit(
                r#"{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
            );
            let answer = cx.elicit_raw_as("name", params)?;
            let name = answer["content"]["name"].as_str().unwrap_or("stranger");
            Ok(CallToolResult::text(format!("Hello, {name}! (from a task)")))
        },
    );
}
