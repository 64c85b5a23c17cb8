//! Cache hints per registration (SEP-2549): a resource or template's own `ttlMs` and
//! `cacheScope` on its 2026-07-28 `resources/read`, over the server-wide default; the
//! manifest's `cache` field; older revisions see no hint at all.

use crate::stateless::{meta, REV};
use crate::support::{check, Client, TempDir};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tinymcp::{CacheHint, CacheScope, MemoryClient, Resource, ResourceContents, ResourceTemplate, Server};

fn read(client: &mut Client, uri: &str) -> Value {
    client.request("resources/read", json!({"uri": uri, "_meta": meta(json!({}))}))
}

#[test]
fn a_manifest_resource_cache_field_overrides_the_server_wide_hint_over_stdio() {
    let dir = TempDir::new("cache-hints");
    dir.write("notes.md", "# notes");
    let manifest = json!({"resources": [
        {"uri": "note://public", "text": "same for everyone", "cache": {"ttlMs": 3600000, "scope": "public"}},
        {"uri": "note://fresh", "text": "changes often", "cache": {"ttlMs": 0, "scope": "private"}},
        {"uri": "file:///notes.md", "path": "notes.md", "cache": {"ttlMs": 1500, "scope": "public"}},
        {"uri": "note://plain", "text": "no hint of its own"},
    ]});
    let file = dir.write("manifest.json", manifest.to_string());
    let mut client = Client::spawn(&["--manifest", file.to_str().expect("utf-8 path"), "--cache-ttl-ms", "7000"]);
    client.revision = Some(REV.into());
    for (uri, ttl, scope) in [
        ("note://public", 3_600_000, "public"),
        ("note://fresh", 0, "private"),
        ("file:///notes.md", 1500, "public"),
        // The server-wide hint: `--cache-ttl-ms`, private for reads.
        ("note://plain", 7000, "private"),
    ] {
        let res = read(&mut client, uri);
        check(
            &res["result"],
            json!({"resultType": "complete", "ttlMs": ttl, "cacheScope": scope, "contents": [{"uri": uri}]}),
        );
    }
    // The list keeps the list hint; a per-resource hint is about reads only.
    let list = client.request("resources/list", json!({"_meta": meta(json!({}))}));
    check(&list["result"], json!({"ttlMs": 7000, "cacheScope": "public"}));
    // The handshake's revisions know no cache hints: the same resource has none.
    client.revision = None;
    client.initialize("2025-11-25", json!({}));
    let old = client.request("resources/read", json!({"uri": "note://public"}));
    check(&old, json!({"result": {"contents": [{"uri": "note://public"}]}}));
    assert!(old["result"].get("ttlMs").is_none() && old["result"].get("cacheScope").is_none(), "{old}");
}

#[test]
fn a_broken_manifest_cache_field_is_refused_by_check() {
    let dir = TempDir::new("cache-check");
    let manifest =
        json!({"resources": [{"uri": "note://n", "text": "x", "cache": {"ttlMs": "1s", "scope": "shared"}}]});
    let file = dir.write("manifest.json", manifest.to_string());
    let out = crate::support::run_binary(&["--check", file.to_str().expect("utf-8 path")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("resources[0].cache.ttlMs: expected a whole number of milliseconds"), "{stderr}");
    assert!(stderr.contains("resources[0].cache.scope: expected \"public\" or \"private\""), "{stderr}");
}

#[test]
fn a_template_registration_carries_its_own_read_hint() {
    let server = Server::new("hints", "1");
    let text = |uri: &str| Ok(vec![ResourceContents::text(uri, "text/plain", "x")]);
    server.register_resource(Resource::new("mem://fixed", "fixed"), move |_, uri| text(uri));
    server
        .register_resource_template(
            ResourceTemplate::new("mem://users/{id}", "user"),
            move |_, uri, _: &HashMap<String, String>| text(uri),
            None,
        )
        .expect("a valid template");
    server
        .register_resource_template(
            ResourceTemplate::new("mem://docs/{id}", "doc"),
            move |_, uri, _: &HashMap<String, String>| text(uri),
            None,
        )
        .expect("a valid template");
    assert!(server.set_read_cache("mem://users/{id}", CacheHint { ttl_ms: 0, scope: CacheScope::Private }));
    assert!(server.set_read_cache("mem://fixed", CacheHint { ttl_ms: 90_000, scope: CacheScope::Public }));
    assert!(!server.set_read_cache("mem://nothing", CacheHint { ttl_ms: 1, scope: CacheScope::Public }));
    let client = MemoryClient::connect(Arc::new(server));
    let read = |uri: &str| {
        let params = json!({"uri": uri, "_meta": meta(json!({}))});
        client.call("resources/read", params, Duration::from_secs(5)).expect("an answer")
    };
    check(&read("mem://users/7"), json!({"result": {"ttlMs": 0, "cacheScope": "private"}}));
    check(&read("mem://fixed"), json!({"result": {"ttlMs": 90000, "cacheScope": "public"}}));
    // No hint of its own: the server-wide default (60 s, private).
    check(&read("mem://docs/1"), json!({"result": {"ttlMs": 60000, "cacheScope": "private"}}));
}
