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
    use crate::util::fuzz::{corpus, rounds, valid_jsonrpc, Mutator, JSON_TOKENS};
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
        let wait = Duration::from_secs(5);
        let seeds = corpus(&root, |method, key| {
            let answer = client.call(method, json!({}), wait).expect("a list answer");
            answer["result"][key].as_array().cloned().unwrap_or_default()
        });
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
