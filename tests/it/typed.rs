//! The typed API (feature `schemars`): tools, prompts, resource templates and elicitation whose
//! schemas are derived from Rust types. What a client sees is checked against the spec's schema
//! of 2025-11-25, and the derived schemas against the spec's `Tool` definition.

use crate::support::{check, SchemaBook, TempDir};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tinymcp::{CallToolResult, Content, Elicited, MemoryClient, ResourceTemplate, RpcError, Server, ToolError};

const WAIT: Duration = Duration::from_secs(10);
const REVISION: &str = "2025-11-25";

/// The arguments of `to_fahrenheit`.
#[derive(Deserialize, JsonSchema)]
struct Convert {
    /// Degrees Celsius.
    celsius: f64,
    /// Round to a whole degree.
    #[serde(default)]
    round: bool,
}

/// What `to_fahrenheit` answers.
#[derive(Serialize, JsonSchema)]
struct Reading {
    fahrenheit: f64,
}

/// Arguments with a nested struct and an enum: what a derive would put under `$defs`.
#[derive(Deserialize, JsonSchema)]
struct Span {
    range: Range,
    unit: Unit,
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Range {
    lo: i64,
    hi: i64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Metres,
    Feet,
}

#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

fn server() -> Arc<Server> {
    let server = Server::new("typed", "1.0.0");
    server.tool("to_fahrenheit", "Converts degrees Celsius to Fahrenheit", |_cx, a: Convert| {
        let f = a.celsius * 9.0 / 5.0 + 32.0;
        Ok::<_, ToolError>(Reading { fahrenheit: if a.round { f.round() } else { f } })
    });
    server.tool("span", "Measures a span", |_cx, s: Span| {
        let _ = (s.unit, s.label);
        Ok::<_, ToolError>(format!("{}", s.range.hi - s.range.lo))
    });
    // `?` on a std error: a tool error the model reads.
    server.tool("parse", "Parses a number", |_cx, t: Text| -> Result<String, ToolError> {
        let n: f64 = t.text.trim().parse()?;
        Ok(format!("{n}"))
    });
    // An explicit RpcError stays a protocol error.
    server.tool("refuse", "Refuses", |_cx, _t: Text| -> Result<Content, RpcError> {
        Err(RpcError::invalid_params("refused on purpose"))
    });
    server.tool("blocks", "Two blocks", |_cx, t: Text| {
        Ok::<_, ToolError>(vec![Content::text(&t.text), Content::text("2")])
    });
    server.tool("raw", "A whole result", |_cx, _t: Text| Ok::<_, std::io::Error>(CallToolResult::text("raw")));
    Arc::new(server)
}

fn client(server: Arc<Server>, capabilities: Value) -> MemoryClient {
    let client = MemoryClient::connect(server);
    client.initialize(REVISION, capabilities, WAIT).expect("initialized");
    client
}

fn call(client: &MemoryClient, name: &str, arguments: Value) -> Value {
    let answer = client.call("tools/call", json!({"name": name, "arguments": arguments}), WAIT).expect("an answer");
    if let Some(result) = answer.get("result") {
        SchemaBook::get().validate(REVISION, "CallToolResult", result);
    }
    answer
}

/// Every `$ref` anywhere in `schema`.
fn refs(schema: &Value, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref" {
                    found.push(v.to_string());
                }
                refs(v, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
        _ => {}
    }
}

#[test]
fn derived_tool_schemas_are_inline_draft_2020_12_objects_the_spec_accepts() {
    let client = client(server(), json!({}));
    let listed = client.call("tools/list", json!({}), WAIT).expect("an answer");
    SchemaBook::get().validate(REVISION, "ListToolsResult", &listed["result"]);
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    assert_eq!(tools.len(), 6);
    for tool in &tools {
        SchemaBook::get().validate(REVISION, "Tool", tool);
        let input = &tool["inputSchema"];
        assert_eq!(input["type"], "object", "{tool}");
        assert!(
            input.get("$schema").is_none_or(|s| s == "https://json-schema.org/draft/2020-12/schema"),
            "draft 2020-12 or the default: {tool}"
        );
        let mut found = Vec::new();
        refs(tool, &mut found);
        assert!(found.is_empty(), "no $ref a client must resolve: {found:?} in {tool}");
        assert!(tool.get("$defs").is_none() && input.get("$defs").is_none(), "{tool}");
    }
    let convert = &tools[0];
    check(
        convert,
        json!({
            "name": "to_fahrenheit",
            "description": "Converts degrees Celsius to Fahrenheit",
            "inputSchema": {"type": "object", "properties": {"celsius": {"type": "number", "description": "Degrees Celsius."}}, "required": ["celsius"]},
            "outputSchema": {"type": "object", "properties": {"fahrenheit": {"type": "number"}}, "required": ["fahrenheit"]}
        }),
    );
    // A tool answering text has no output schema.
    assert!(tools[1].get("outputSchema").is_none(), "{}", tools[1]);
    check(
        &tools[1],
        json!({"inputSchema": {"properties": {"range": {"type": "object", "properties": {"lo": {}, "hi": {}}}, "unit": {"enum": ["metres", "feet"]}}}}),
    );
}

#[test]
fn a_typed_tool_answers_structured_content_with_its_text() {
    let client = client(server(), json!({}));
    let answer = call(&client, "to_fahrenheit", json!({"celsius": 21.5, "round": true}));
    check(
        &answer,
        json!({"result": {"structuredContent": {"fahrenheit": 71.0}, "content": [{"type": "text", "text": "{\"fahrenheit\":71.0}"}]}}),
    );
    assert!(answer["result"].get("isError").is_none(), "{answer}");
    // Nested arguments arrive as the types say.
    let answer = call(&client, "span", json!({"range": {"lo": 2, "hi": 9}, "unit": "feet"}));
    check(&answer, json!({"result": {"content": [{"type": "text", "text": "7"}]}}));
    check(
        &call(&client, "blocks", json!({"text": "1"})),
        json!({"result": {"content": [{"text": "1"}, {"text": "2"}]}}),
    );
    check(&call(&client, "raw", json!({"text": "1"})), json!({"result": {"content": [{"text": "raw"}]}}));
}

#[test]
fn argument_errors_reach_the_model_as_tool_errors_naming_the_field() {
    let client = client(server(), json!({}));
    for (arguments, field) in [
        (json!({}), "celsius"),
        (json!({"celsius": "warm"}), "celsius"),
        (json!({"celsius": 1, "round": "yes"}), "round"),
    ] {
        let answer = call(&client, "to_fahrenheit", arguments.clone());
        check(&answer, json!({"result": {"isError": true}}));
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(field), "{arguments}: {text}");
    }
    let answer = call(&client, "span", json!({"range": {"lo": 2, "hi": 9}, "unit": "parsecs"}));
    check(&answer, json!({"result": {"isError": true}}));
    assert!(answer["result"]["content"][0]["text"].as_str().unwrap_or_default().contains("unit"), "{answer}");
}

#[test]
fn a_std_error_is_a_tool_error_and_an_rpc_error_a_protocol_error() {
    let client = client(server(), json!({}));
    let answer = call(&client, "parse", json!({"text": "twelve"}));
    check(
        &answer,
        json!({"result": {"isError": true, "content": [{"type": "text", "text": "invalid float literal"}]}}),
    );
    let answer = call(&client, "refuse", json!({"text": "x"}));
    check(&answer, json!({"error": {"code": -32602, "message": "refused on purpose"}}));
}

/// The arguments of the `review` prompt: `required` from the fields that are not `Option`.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The code to review.
    code: String,
    /// What to focus on.
    focus: Option<String>,
}

/// The variables of `note:///{folder}/{name}`.
#[derive(Deserialize, JsonSchema)]
struct NoteVars {
    folder: String,
    name: String,
}

fn prompt_server() -> Arc<Server> {
    let server = Server::new("typed", "1.0.0");
    server.prompt("review", "Reviews code", |_cx, r: Review| {
        let focus = r.focus.map(|f| format!(" Focus on {f}.")).unwrap_or_default();
        Ok::<_, ToolError>(format!("Review this code:{focus}\n{}", r.code))
    });
    server
        .resource_template(
            ResourceTemplate::new("note:///{folder}/{name}", "note").with_mime_type("text/plain"),
            |_cx, _uri, v: NoteVars| Ok::<_, ToolError>((v.folder == "home").then(|| format!("{}: a note", v.name))),
        )
        .expect("a valid template");
    Arc::new(server)
}

#[test]
fn a_typed_prompt_lists_its_arguments_from_the_struct() {
    let client = client(prompt_server(), json!({}));
    let listed = client.call("prompts/list", json!({}), WAIT).expect("an answer");
    SchemaBook::get().validate(REVISION, "ListPromptsResult", &listed["result"]);
    check(
        &listed,
        json!({"result": {"prompts": [{"name": "review", "description": "Reviews code", "arguments": [
            {"name": "code", "description": "The code to review.", "required": true},
            {"name": "focus", "description": "What to focus on."}
        ]}]}}),
    );
    assert!(listed["result"]["prompts"][0]["arguments"][1].get("required").is_none(), "{listed}");
    let got = client
        .call("prompts/get", json!({"name": "review", "arguments": {"code": "x = 1", "focus": "names"}}), WAIT)
        .expect("an answer");
    SchemaBook::get().validate(REVISION, "GetPromptResult", &got["result"]);
    check(
        &got,
        json!({"result": {"messages": [{"role": "user", "content": {"type": "text", "text": "Review this code: Focus on names.\nx = 1"}}]}}),
    );
    let missing = client.call("prompts/get", json!({"name": "review", "arguments": {}}), WAIT).expect("an answer");
    check(&missing, json!({"error": {"code": -32602}}));
    assert!(missing["error"]["message"].as_str().unwrap_or_default().contains("code"), "{missing}");
}

#[test]
fn a_typed_template_reads_its_variables_into_a_struct() {
    let client = client(prompt_server(), json!({}));
    let read = client.call("resources/read", json!({"uri": "note:///home/groceries"}), WAIT).expect("an answer");
    SchemaBook::get().validate(REVISION, "ReadResourceResult", &read["result"]);
    check(
        &read,
        json!({"result": {"contents": [{"uri": "note:///home/groceries", "mimeType": "text/plain", "text": "groceries: a note"}]}}),
    );
    let missing = client.call("resources/read", json!({"uri": "note:///work/x"}), WAIT).expect("an answer");
    check(&missing, json!({"error": {"code": tinymcp::error_codes::RESOURCE_NOT_FOUND}}));
}

#[test]
fn a_template_whose_struct_wants_a_variable_it_lacks_is_refused_at_registration() {
    let server = Server::new("typed", "1.0.0");
    let refused = server
        .resource_template(ResourceTemplate::new("note:///{name}", "note"), |_cx, _uri, v: NoteVars| {
            Ok::<_, ToolError>(Some(v.name))
        });
    let why = refused.expect_err("folder is not a variable of the template");
    assert!(why.contains("folder"), "{why}");
}

/// What the `delete` tool asks the user.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Really delete?
    confirm: bool,
    /// Why.
    reason: Option<String>,
}

// Never read: the form is refused before anything is asked.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Nested {
    inner: Range,
}

fn elicit_server() -> Arc<Server> {
    let server = Server::new("typed", "1.0.0");
    server.tool("delete", "Deletes after asking", |cx, t: Text| -> Result<String, ToolError> {
        Ok(match cx.elicit::<Confirm>(&format!("Delete {}?", t.text))? {
            Elicited::Accept(c) if c.confirm => format!("deleted {} ({})", t.text, c.reason.unwrap_or_default()),
            Elicited::Accept(_) => "kept".into(),
            Elicited::Decline | Elicited::Cancel => "not asked".into(),
        })
    });
    server.tool("nested", "Asks a nested form", |cx, _t: Text| -> Result<String, ToolError> {
        cx.elicit::<Nested>("which?")?;
        Ok("asked".into())
    });
    Arc::new(server)
}

#[test]
fn typed_elicitation_asks_the_derived_flat_schema_and_reads_the_answer() {
    let client = client(elicit_server(), json!({"elicitation": {}}));
    client.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "delete", "arguments": {"text": "a.txt"}}}).to_string());
    let ask = client.recv(WAIT).expect("the elicitation");
    SchemaBook::get().validate(REVISION, "ElicitRequest", &ask);
    check(
        &ask,
        json!({"method": "elicitation/create", "params": {"message": "Delete a.txt?", "requestedSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "description": "Really delete?"}, "reason": {"type": "string"}},
            "required": ["confirm"]
        }}}),
    );
    let answer = json!({"action": "accept", "content": {"confirm": true, "reason": "old"}});
    client.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer}).to_string());
    let done = client.recv(WAIT).expect("the tool's answer");
    check(&done, json!({"id": 7, "result": {"content": [{"text": "deleted a.txt (old)"}]}}));
}

#[test]
fn typed_elicitation_reads_decline_and_cancel_and_refuses_an_answer_that_does_not_fit() {
    let client = client(elicit_server(), json!({"elicitation": {}}));
    for (id, answer, expected) in [
        (8, json!({"action": "decline"}), json!({"result": {"content": [{"text": "not asked"}]}})),
        (9, json!({"action": "cancel"}), json!({"result": {"content": [{"text": "not asked"}]}})),
        (
            10,
            json!({"action": "accept", "content": {"confirm": false}}),
            json!({"result": {"content": [{"text": "kept"}]}}),
        ),
        // `confirm` is a boolean: "yes" does not read as a Confirm.
        (11, json!({"action": "accept", "content": {"confirm": "yes"}}), json!({"error": {"code": -32602}})),
    ] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "delete", "arguments": {"text": "c.txt"}}});
        client.send(&call.to_string());
        let ask = client.recv(WAIT).expect("the elicitation");
        SchemaBook::get().validate(REVISION, "ElicitRequest", &ask);
        SchemaBook::get().validate(REVISION, "ElicitResult", &answer);
        client.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer}).to_string());
        let done = client.recv(WAIT).expect("the tool's answer");
        check(&done, expected.clone());
        check(&done, json!({"id": id}));
        if let Some(result) = done.get("result") {
            SchemaBook::get().validate(REVISION, "CallToolResult", result);
        } else {
            let message = done["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("Confirm") && message.contains("boolean"), "{done}");
        }
    }
}

#[test]
fn elicitation_with_a_hand_written_schema_reads_the_answer_into_the_struct() {
    // The form without the feature's derive: the schema as the embedder wrote it goes out as is.
    let form = json!({"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Sure?"}}, "required": ["confirm"]});
    let server = Server::new("typed", "1.0.0");
    let asked = form.clone();
    server.tool("sure", "Asks with a form written by hand", move |cx, _t: Text| -> Result<String, ToolError> {
        Ok(match cx.elicit_with::<Confirm>("Sure?", asked.clone())? {
            Elicited::Accept(c) => format!("confirm={}", c.confirm),
            Elicited::Decline | Elicited::Cancel => "no answer".into(),
        })
    });
    let client = client(Arc::new(server), json!({"elicitation": {}}));
    client.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "sure", "arguments": {"text": "x"}}}).to_string());
    let ask = client.recv(WAIT).expect("the elicitation");
    SchemaBook::get().validate(REVISION, "ElicitRequest", &ask);
    assert_eq!(ask["params"]["requestedSchema"], form, "{ask}");
    client.send(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}})
            .to_string(),
    );
    let done = client.recv(WAIT).expect("the tool's answer");
    SchemaBook::get().validate(REVISION, "CallToolResult", &done["result"]);
    check(&done, json!({"id": 3, "result": {"content": [{"text": "confirm=true"}]}}));
}

#[test]
fn typed_elicitation_refuses_a_nested_form_before_asking() {
    let client = client(elicit_server(), json!({"elicitation": {}}));
    let answer = call(&client, "nested", json!({"text": "x"}));
    check(&answer, json!({"error": {"code": -32603}}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("inner") && message.contains("flat object"), "{message}");
}

#[test]
fn typed_elicitation_at_2026_07_28_is_an_input_required_result_read_on_retry() {
    // No handshake: each request carries its revision and capabilities in `_meta`, and the
    // question comes back as the result; the handler runs again on the retry with the answer.
    let client = MemoryClient::connect(elicit_server());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let params = json!({"name": "delete", "arguments": {"text": "b.txt"}, "_meta": meta});
    let round1 = client.call("tools/call", params.clone(), WAIT).expect("an answer");
    check(&round1, json!({"result": {"resultType": "input_required"}}));
    let requests = round1["result"]["inputRequests"].as_object().expect("input requests");
    let (key, ask) = requests.iter().next().expect("one question");
    check(
        ask,
        json!({"method": "elicitation/create", "params": {"message": "Delete b.txt?", "requestedSchema": {"required": ["confirm"]}}}),
    );
    let mut retry = params;
    retry["inputResponses"] = json!({ key.as_str(): {"action": "accept", "content": {"confirm": false}} });
    retry["requestState"] = round1["result"]["requestState"].clone();
    let round2 = client.call("tools/call", retry, WAIT).expect("an answer");
    check(&round2, json!({"result": {"resultType": "complete", "content": [{"text": "kept"}]}}));
}

// The server of docs/embedding.md's side by side with rmcp, as the example registers it.
#[allow(dead_code)]
#[path = "../../examples/side_by_side.rs"]
mod side_by_side;

/// Sends `request` (method, params) as id `id` and reads until its answer, answering an
/// elicitation with `elicited`; every message on the way is checked against the spec's schema.
/// Returns the notifications and requests seen before the answer, and the answer.
fn exchange(client: &MemoryClient, id: u64, method: &str, params: Value, elicited: &Value) -> (Vec<Value>, Value) {
    let book = SchemaBook::get();
    client.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
    let mut before = Vec::new();
    loop {
        let message = client.recv(WAIT).expect("a message before the answer");
        let answered = (message.get("id") == Some(&json!(id))).then_some(method);
        let definition = SchemaBook::definition_for(&message, answered).expect("a message the spec names");
        book.validate(REVISION, definition, if answered.is_some() { &message["result"] } else { &message });
        if answered.is_some() {
            return (before, message);
        }
        if message["method"] == "elicitation/create" {
            book.validate(REVISION, "ElicitResult", elicited);
            client.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": elicited}).to_string());
        }
        before.push(message);
    }
}

#[test]
fn the_side_by_side_example_answers_every_call_as_the_spec_says() {
    let client = client(Arc::new(side_by_side::server().expect("the example registers")), json!({"elicitation": {}}));
    let none = json!({});
    let (_, listed) = exchange(&client, 1, "tools/list", json!({}), &none);
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["divide", "read_file", "confirm"]);
    for tool in &tools {
        let mut found = Vec::new();
        refs(tool, &mut found);
        assert!(found.is_empty(), "{tool}");
    }
    check(
        &tools[0],
        json!({"inputSchema": {"required": ["dividend", "divisor"]}, "outputSchema": {"properties": {"quotient": {"type": "number"}}}}),
    );

    let (_, divided) = exchange(
        &client,
        2,
        "tools/call",
        json!({"name": "divide", "arguments": {"dividend": 3, "divisor": 4}}),
        &none,
    );
    check(
        &divided,
        json!({"result": {"structuredContent": {"quotient": 0.75}, "content": [{"text": "{\"quotient\":0.75}"}]}}),
    );
    let (_, by_zero) = exchange(
        &client,
        3,
        "tools/call",
        json!({"name": "divide", "arguments": {"dividend": 1, "divisor": 0}}),
        &none,
    );
    check(&by_zero, json!({"result": {"isError": true, "content": [{"text": "division by zero"}]}}));

    // 8893 bytes: three chunks, a progress notification after each.
    let dir = TempDir::new("side-by-side");
    let text: String = (1..=2000).map(|n| format!("{n}\n")).collect();
    let path = dir.write("numbers.txt", &text);
    let params = json!({"name": "read_file", "arguments": {"path": path}, "_meta": {"progressToken": "p"}});
    let (progress, read) = exchange(&client, 4, "tools/call", params, &none);
    check(&read, json!({"result": {"content": [{"type": "text", "text": text}]}}));
    let seen: Vec<(f64, f64)> = progress
        .iter()
        .map(|p| (p["params"]["progress"].as_f64().unwrap_or(-1.0), p["params"]["total"].as_f64().unwrap_or(-1.0)))
        .collect();
    assert_eq!(seen, [(4096.0, 8893.0), (8192.0, 8893.0), (8893.0, 8893.0)], "{progress:?}");
    let params = json!({"name": "read_file", "arguments": {"path": dir.path().join("none")}});
    check(&exchange(&client, 5, "tools/call", params, &none).1, json!({"result": {"isError": true}}));

    let accept = json!({"action": "accept", "content": {"confirm": true}});
    let (asked, confirmed) =
        exchange(&client, 6, "tools/call", json!({"name": "confirm", "arguments": {"action": "deploy"}}), &accept);
    check(
        &json!(asked),
        json!([{"method": "elicitation/create", "params": {"message": "Really deploy?", "requestedSchema": {
            "type": "object", "properties": {"confirm": {"type": "boolean", "description": "Go ahead?"}}, "required": ["confirm"]
        }}}]),
    );
    check(&confirmed, json!({"result": {"content": [{"text": "confirmed: deploy"}]}}));
    let decline = json!({"action": "decline"});
    let (_, declined) =
        exchange(&client, 7, "tools/call", json!({"name": "confirm", "arguments": {"action": "delete"}}), &decline);
    check(&declined, json!({"result": {"content": [{"text": "declined"}]}}));

    let (_, prompts) = exchange(&client, 8, "prompts/list", json!({}), &none);
    check(
        &prompts,
        json!({"result": {"prompts": [{"name": "review", "arguments": [{"name": "code", "required": true}, {"name": "focus"}]}]}}),
    );
    let params = json!({"name": "review", "arguments": {"code": "x = 1", "focus": "names"}});
    let (_, review) = exchange(&client, 9, "prompts/get", params, &none);
    check(
        &review,
        json!({"result": {"messages": [{"role": "user", "content": {"type": "text", "text": "Review this code, focusing on names:\nx = 1"}}]}}),
    );

    let (_, templates) = exchange(&client, 10, "resources/templates/list", json!({}), &none);
    check(
        &templates,
        json!({"result": {"resourceTemplates": [{"uriTemplate": "note:///{name}", "name": "note", "mimeType": "text/plain"}]}}),
    );
    let (_, note) = exchange(&client, 11, "resources/read", json!({"uri": "note:///groceries"}), &none);
    check(
        &note,
        json!({"result": {"contents": [{"uri": "note:///groceries", "mimeType": "text/plain", "text": "A note called groceries"}]}}),
    );
}
