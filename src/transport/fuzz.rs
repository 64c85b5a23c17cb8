//! Test-only: the deterministic mutation fuzzer of issue 11 for the protocol and the code behind
//! it. Mutated messages go to every method of the `everything` profile and a served folder
//! through a `Connection` (the path every transport takes): no panic, no hang (a `ping` after
//! each one is answered within a deadline), every answer valid JSON-RPC. The JSON-RPC parser,
//! URI templates, the schema validator, the manifest checker and globs are fed mutated input
//! directly, each call under a time bound. The one mutator is `util::fuzz`; `scripts/fuzz.sh`
//! runs these longer (`TINYMCP_FUZZ_ROUNDS`); a failure names its round, which replays.

// Test code only (declared under `#[cfg(test)]`): the layer rules leave tests out, and this
// one drives the providers through a connection, as the binary does.
#[cfg(test)]
mod tests {
    use crate::provide::file_tools::GlobPattern;
    use crate::provide::files::{self, FilesOptions};
    use crate::provide::{everything, manifest};
    use crate::transport::memory::MemoryClient;
    use crate::util::fuzz::{rounds, Mutator, JSON_TOKENS};
    use crate::util::schema;
    use crate::util::uri_template::UriTemplate;
    use crate::wire::jsonrpc;
    use crate::Server;
    use serde_json::{json, Value};
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Longest a single direct call may take before it counts as a hang.
    const CALL_BOUND: Duration = Duration::from_secs(2);
    /// Longest the `ping` after a mutated message may wait for its answer.
    const PING_BOUND: Duration = Duration::from_secs(10);

    /// A temporary folder removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(label: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("tinymcp-fuzz-{label}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("sub")).unwrap();
            std::fs::write(dir.join("a.txt"), "alpha\nbeta\n").unwrap();
            std::fs::write(dir.join("sub/b.md"), "# b\n").unwrap();
            std::fs::write(dir.join("c.bin"), [0u8, 159, 146, 150]).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn lossy(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Whether `message` is a valid JSON-RPC message from a server: a request or notification
    /// (a string method), or a response with an id and exactly one of `result` (an object) and
    /// `error` (an integer code and a string message); a batch answer holds only responses.
    fn valid_jsonrpc(message: &Value) -> Result<(), String> {
        if let Some(items) = message.as_array() {
            if items.is_empty() {
                return Err("an empty batch answer".into());
            }
            return items.iter().try_for_each(valid_jsonrpc);
        }
        let obj = message.as_object().ok_or("not an object")?;
        if obj.get("jsonrpc") != Some(&json!("2.0")) {
            return Err("no jsonrpc 2.0".into());
        }
        if let Some(method) = obj.get("method") {
            return if method.is_string() { Ok(()) } else { Err("a method that is not a string".into()) };
        }
        match obj.get("id") {
            Some(Value::String(_) | Value::Null) => {}
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
            other => return Err(format!("a response with id {other:?}")),
        }
        match (obj.get("result"), obj.get("error")) {
            (Some(Value::Object(_)), None) => Ok(()),
            (None, Some(Value::Object(e))) if e.get("code").is_some_and(Value::is_i64) && e["message"].is_string() => {
                Ok(())
            }
            _ => Err("a response without exactly one valid result or error".into()),
        }
    }

    /// One request of every method, for every tool, prompt, resource and template the server lists.
    fn corpus(client: &MemoryClient, root: &str) -> Vec<String> {
        let wait = Duration::from_secs(5);
        let listed = |method: &str, key: &str| -> Vec<Value> {
            let answer = client.call(method, json!({}), wait).expect("a list answer");
            answer["result"][key].as_array().cloned().unwrap_or_default()
        };
        let mut params: Vec<(&str, Value)> = vec![
            ("ping", json!({})),
            ("tools/list", json!({"cursor": "AAAA"})),
            ("resources/list", json!({})),
            ("resources/templates/list", json!({})),
            ("prompts/list", json!({})),
            ("logging/setLevel", json!({"level": "debug"})),
            ("tasks/list", json!({})),
            ("tasks/get", json!({"taskId": "t1"})),
            ("tasks/result", json!({"taskId": "t1"})),
            ("tasks/cancel", json!({"taskId": "t1"})),
            ("resources/read", json!({"uri": format!("file://{root}/a.txt")})),
            ("resources/subscribe", json!({"uri": format!("file://{root}/sub/b.md")})),
            ("resources/unsubscribe", json!({"uri": format!("file://{root}/sub/b.md")})),
        ];
        for tool in listed("tools/list", "tools") {
            let mut arguments = serde_json::Map::new();
            for (name, spec) in tool["inputSchema"]["properties"].as_object().into_iter().flatten() {
                let value = match spec["type"].as_str() {
                    Some("number" | "integer") => json!(2),
                    Some("boolean") => json!(true),
                    Some("array") => json!(["*.txt"]),
                    Some("object") => json!({}),
                    _ => json!(if name.contains("path") { "a.txt" } else { "a" }),
                };
                arguments.insert(name.clone(), value);
            }
            params.push(("tools/call", json!({"name": tool["name"], "arguments": arguments})));
        }
        for prompt in listed("prompts/list", "prompts") {
            let arguments: serde_json::Map<String, Value> = prompt["arguments"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| Some((a["name"].as_str()?.to_owned(), json!("x"))))
                .collect();
            params.push(("prompts/get", json!({"name": prompt["name"], "arguments": arguments})));
            let first = prompt["arguments"][0]["name"].as_str().unwrap_or("x").to_owned();
            params.push((
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": prompt["name"]}, "argument": {"name": first, "value": "a"}}),
        ));
        }
        for resource in listed("resources/list", "resources") {
            params.push(("resources/read", json!({"uri": resource["uri"]})));
            params.push(("resources/subscribe", json!({"uri": resource["uri"]})));
        }
        for template in listed("resources/templates/list", "resourceTemplates") {
            let uri_template = template["uriTemplate"].as_str().unwrap_or_default().to_owned();
            let variable = uri_template.split('{').nth(1).and_then(|v| v.split('}').next()).unwrap_or("id");
            let name = variable.trim_start_matches(['+', '#', '/', '.', ';', '?', '&']).to_owned();
            params.push((
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": uri_template}, "argument": {"name": name, "value": "s"}}),
            ));
        }
        let mut messages: Vec<String> = params
            .into_iter()
            .enumerate()
            .map(|(n, (method, params))| {
                json!({"jsonrpc": "2.0", "id": n, "method": method, "params": params, "_meta": {"progressToken": n}})
                    .to_string()
            })
            .collect();
        messages.push(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#.into());
        messages.push(r#"{"jsonrpc":"2.0","id":77,"result":{}}"#.into());
        messages.push(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.into());
        messages
    }

    /// Reads what the server sent until the answer to `ping_id`, checking every message and
    /// answering the server's own requests (sampling, elicitation, roots) with an error.
    fn drain_to_ping(client: &MemoryClient, ping_id: &str, round: usize, sent: &str) {
        let deadline = Instant::now() + PING_BOUND;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = client
                .recv(left)
                .unwrap_or_else(|| panic!("round {round}: no answer to ping within {PING_BOUND:?} after {sent:?}"));
            if let Err(why) = valid_jsonrpc(&message) {
                panic!("round {round}: {why}: {message} (after {sent:?})");
            }
            if message.get("method").is_some() {
                if let Some(id) = message.get("id") {
                    let refusal = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}});
                    client.send(&refusal.to_string());
                }
                continue;
            }
            if message.get("id") == Some(&json!(ping_id)) {
                return;
            }
        }
    }

    #[test]
    fn mutated_messages_to_every_method() {
        let scratch = Scratch::new("methods");
        let server = Arc::new(Server::new("fuzz", "0"));
        everything::register(&server);
        files::register(&server, std::slice::from_ref(&scratch.0), FilesOptions::default()).unwrap();
        let client = MemoryClient::connect(Arc::clone(&server));
        let capabilities = json!({"sampling": {}, "elicitation": {}, "roots": {}});
        client.initialize("2025-11-25", capabilities, Duration::from_secs(5)).expect("initialized");
        let root = scratch.0.canonicalize().unwrap().display().to_string();
        let seeds = corpus(&client, &root);
        assert!(seeds.len() > 40, "{} seeds", seeds.len());
        let mut mutator = Mutator::with_tokens(0x6d63_7066, JSON_TOKENS);
        for round in 0..rounds(3_000) {
            let seed = &seeds[round % seeds.len()];
            // One round in eight sends a seed as is, so the handlers past the decoders run too.
            let text = if round % 8 == 0 { seed.clone() } else { lossy(&mutator.mutate(seed.as_bytes())) };
            client.send(&text);
            let ping_id = format!("ping-{round}");
            client.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}).to_string());
            drain_to_ping(&client, &ping_id, round, &text);
        }
        drop(client);
        server.shutdown();
    }

    /// Runs `f`, failing when it took longer than `CALL_BOUND`.
    fn bounded<T>(what: &str, round: usize, input: &str, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        let took = started.elapsed();
        assert!(took < CALL_BOUND, "round {round}: {what} took {took:?} on {input:?}");
        out
    }

    #[test]
    fn mutated_input_to_the_parsers_and_matchers() {
        let scratch = Scratch::new("parsers");
        let envelopes = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":"x","result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        ];
        let templates = ["file:///{+path}", "test://template/{id}/data", "x://{a}{/b,c}{?q,r}{#f}", "{.x}{;y}{&z}"];
        let uris = ["file:///srv/a/b.txt", "test://template/123/data", "x://1/2/3?q=4&r=5#6", ".a;y=2&z=3"];
        let schemas = [
            r#"{"type":"object","properties":{"a":{"type":"string","minLength":1},"n":{"type":"integer","maximum":9}},"required":["a"]}"#,
            r#"{"type":"array","items":{"enum":[1,"two",null]},"maxItems":3}"#,
            r#"{"anyOf":[{"type":"number","multipleOf":0.5},{"type":"string","pattern":"^a+$"}]}"#,
        ];
        let instances = [r#"{"a":"x","n":3}"#, r#"[1,"two"]"#, r#"2.5"#, r#""aaa""#];
        let manifest_seed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/manifest.json"))
            .expect("examples/manifest.json");
        let globs = ["*.rs", "src/**/*.rs", "**", "?.txt", "a*b*c*d", "**/x/**/y"];
        let paths = ["main.rs", "src/a/b/main.rs", "a/b/c", "a.txt", "aXbXcXd", "q/x/r/y"];
        let mut mutator = Mutator::with_tokens(0x7061_7273, JSON_TOKENS);
        for round in 0..rounds(20_000) {
            let pick = |m: &mut Mutator, list: &[&str]| {
                let seed = list[m.below(list.len())];
                lossy(&m.mutate(seed.as_bytes()))
            };

            let text = pick(&mut mutator, &envelopes);
            let _ = bounded("jsonrpc::parse", round, &text, || jsonrpc::parse(&text));

            let template = pick(&mut mutator, &templates);
            let uri = pick(&mut mutator, &uris);
            if let Ok(parsed) = bounded("UriTemplate::parse", round, &template, || UriTemplate::parse(&template)) {
                let found = bounded("UriTemplate::matches", round, &uri, || parsed.matches(&uri));
                let vars: HashMap<String, String> = found.unwrap_or_default().into_iter().collect();
                let _ = bounded("UriTemplate::expand", round, &template, || parsed.expand(&vars));
            }

            let schema_text = pick(&mut mutator, &schemas);
            let instance_text = pick(&mut mutator, &instances);
            if let (Ok(s), Ok(i)) =
                (serde_json::from_str::<Value>(&schema_text), serde_json::from_str::<Value>(&instance_text))
            {
                let _ = bounded("schema::check_schema", round, &schema_text, || schema::check_schema(&s));
                let _ = bounded("schema::validate", round, &schema_text, || schema::validate(&s, &i));
            }

            if round % 4 == 0 {
                let text = lossy(&mutator.mutate(manifest_seed.as_bytes()));
                let _ = bounded("manifest::parse", round, &text, || manifest::parse(&text, &scratch.0));
            }

            let glob = pick(&mut mutator, &globs);
            let path = pick(&mut mutator, &paths);
            let _ = bounded("GlobPattern", round, &glob, || GlobPattern::new(&glob).matches(&path));
        }
    }
}
