//! The one seeded mutator of every fuzz test (xorshift: a failure replays), the seed corpus and
//! the JSON-RPC check; `TINYMCP_FUZZ_ROUNDS` runs longer. The library's unit tests
//! (JSON-RPC, URI templates, schemas) use it as `util::fuzz`; tinymcp-http's (HTTP heads,
//! chunked bodies), the binary's (providers, manifests, globs) and tests/it/fuzz_binary.rs (the
//! real binary) as `tinymcp::fuzz_support` (the library's `fuzz-mutator` feature, turned on only
//! by their dev-dependencies). It lives in the library's package, so the published crate's tests
//! build.

// For the timing checks of tinymcp-http's tests (the library's own use it from `seal`).
#[cfg(feature = "fuzz-mutator")]
pub use crate::util::seal::median_ns_per_call;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Tokens that tend to reach corners of an HTTP parser.
pub const HTTP_TOKENS: &[&[u8]] = &[
    b"\r\n",
    b"\n",
    b"\r\n\r\n",
    b":",
    b" ",
    b";",
    b"0",
    b"ffffffffffffffff",
    b"18446744073709551616",
    b"Content-Length: 99999999999999\r\n",
    b"Content-Length: 5\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Expect: 100-continue\r\n",
    b"\0",
    b"\xff\xfe",
    b"HTTP/1.1",
];

/// Tokens that tend to reach corners of JSON, JSON-RPC and our parameter decoders.
pub const JSON_TOKENS: &[&[u8]] = &[
    b"null",
    b"{}",
    b"[]",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"\"",
    b",",
    b":",
    b"-1",
    b"1e308",
    b"9223372036854775808",
    b"0.5",
    b"\"\\u0000\"",
    b"\"\\ud800\"",
    b"\"jsonrpc\":\"2.0\",",
    b"\"id\":1,",
    b"\"method\":\"ping\",",
    b"\"_meta\":{\"progressToken\":1},",
    b"../",
    b"%2e%2e/",
    b"{+path}",
    b"{",
    b"}",
    b"**",
    b"*",
    b"?",
    b"\xff",
];

/// A seeded byte mutator.
pub struct Mutator {
    state: u64,
    tokens: &'static [&'static [u8]],
}

impl Mutator {
    /// A mutator splicing in HTTP tokens.
    pub fn new(seed: u64) -> Self {
        Mutator::with_tokens(seed, HTTP_TOKENS)
    }

    /// A mutator splicing in `tokens`.
    pub fn with_tokens(seed: u64, tokens: &'static [&'static [u8]]) -> Self {
        Mutator { state: seed | 1, tokens }
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// `seed` with one to four random edits, as text (bytes that are not UTF-8 replaced).
    pub fn mutate_text(&mut self, seed: &str) -> String {
        String::from_utf8_lossy(&self.mutate(seed.as_bytes())).into_owned()
    }

    /// One of `seeds`, picked at random, mutated.
    pub fn pick(&mut self, seeds: &[&str]) -> String {
        let seed = seeds[self.below(seeds.len())];
        self.mutate_text(seed)
    }

    /// The message of round `round`: seed `round % seeds.len()`, as is one round in eight (so
    /// the handlers past the decoders run too), else mutated.
    pub fn round_text(&mut self, seeds: &[String], round: usize) -> String {
        let seed = &seeds[round % seeds.len()];
        if round.is_multiple_of(8) {
            seed.clone()
        } else {
            self.mutate_text(seed)
        }
    }

    /// `seed` with one to four random edits.
    pub fn mutate(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut data = seed.to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(data.len() + 1);
            match self.below(7) {
                0 if at < data.len() => data[at] ^= 1 << self.below(8),
                1 if at < data.len() => data[at] = self.next() as u8,
                2 => {
                    let token = self.tokens[self.below(self.tokens.len())];
                    data.splice(at..at, token.iter().copied());
                }
                3 => {
                    let end = (at + self.below(16)).min(data.len());
                    data.drain(at..end);
                }
                4 => {
                    let end = (at + self.below(32)).min(data.len());
                    let copy = data[at..end].to_vec();
                    data.splice(at..at, copy);
                }
                5 => data.truncate(at),
                _ => data.insert(at, self.next() as u8),
            }
        }
        data
    }
}

/// Rounds to run: `default`, or `TINYMCP_FUZZ_ROUNDS` for a longer run.
pub fn rounds(default: usize) -> usize {
    std::env::var("TINYMCP_FUZZ_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

/// Longest a single direct call may take before it counts as a hang.
pub const CALL_BOUND: Duration = Duration::from_secs(2);

/// Runs `f` (`what` on `input` in round `round`), failing when it took longer than `CALL_BOUND`.
pub fn bounded<T>(what: &str, round: usize, input: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    let took = started.elapsed();
    assert!(took < CALL_BOUND, "round {round}: {what} took {took:?} on {input:?}");
    out
}

/// Whether `message` is a valid JSON-RPC message from a server: a request or notification
/// (a string method), or a response with an id and exactly one of `result` (an object) and
/// `error` (an integer code and a string message); a batch answer holds only responses.
pub fn valid_jsonrpc(message: &Value) -> Result<(), String> {
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

/// One request of every method, for every tool, prompt, resource and template the server lists
/// (`listed(method, key)`: the items under `key` of the `method` list answer), over a served
/// folder at `root` holding `a.txt` and `sub/b.md`.
pub fn corpus(root: &str, mut listed: impl FnMut(&str, &str) -> Vec<Value>) -> Vec<String> {
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
