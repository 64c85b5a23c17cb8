//! Test-only: the mutation fuzzer for the providers. Mutated messages to every method of
//! `everything` and a served folder through a `MemoryClient`: no panic, no hang (a `ping` after
//! each is answered in time), every answer valid JSON-RPC. Manifests and globs get mutated input
//! directly, each call under a time bound.

// The mutator every fuzz test shares (the library's `util/fuzz.rs`); this one uses no HTTP tokens.
use tinymcp::fuzz_support as mutation;

use super::files::{self, FilesOptions};
use super::glob::GlobPattern;
use super::{everything, manifest};
use mutation::{bounded, corpus, rounds, valid_jsonrpc, Mutator, JSON_TOKENS};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tinymcp::{MemoryClient, Server};

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
        let text = mutator.round_text(&seeds, round);
        client.send(&text);
        let ping_id = format!("ping-{round}");
        client.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}).to_string());
        drain_to_ping(&client, &ping_id, round, &text);
    }
    drop(client);
    server.shutdown();
}

#[test]
fn mutated_manifests_and_globs_parse_and_match_in_time() {
    let scratch = Scratch::new("parsers");
    let manifest_seed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/manifest.json"))
        .expect("examples/manifest.json");
    let globs = ["*.rs", "src/**/*.rs", "**", "?.txt", "a*b*c*d", "**/x/**/y"];
    let paths = ["main.rs", "src/a/b/main.rs", "a/b/c", "a.txt", "aXbXcXd", "q/x/r/y"];
    let mut mutator = Mutator::with_tokens(0x7061_7273, JSON_TOKENS);
    for round in 0..rounds(20_000) {
        if round % 4 == 0 {
            let text = mutator.mutate_text(&manifest_seed);
            let _ = bounded("manifest::parse", round, &text, || manifest::parse(&text, &scratch.0));
        }
        let glob = mutator.pick(&globs);
        let path = mutator.pick(&paths);
        let _ = bounded("GlobPattern", round, &glob, || GlobPattern::new(&glob).is_ok_and(|g| g.matches(&path)));
    }
}
