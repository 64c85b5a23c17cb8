//! `tinymcp gateway` (feature `gateway`): one endpoint in front of real upstreams nobody here
//! wrote for it: `tinymcp --everything` and a served folder as stdio children, the reference
//! server-everything (Node, from .cache/npm, when scripts/deps.sh installed it), a
//! `tinymcp --http` over plain HTTP and behind TLS. What a client sees through it: namespaced
//! tools, prompts and resources, the config's filters and overrides, progressive discovery,
//! audit lines, an upstream killed and restarted, an upstream that hangs, `/healthz`.

use crate::raw_http::Server;
use crate::stateless_http::{body, post};
use crate::support::{
    announced_port, announced_port_keeping_log, binary, eventually, process_gone, tool_text, wait_for, wait_until,
    Client, Log, TempDir, TIMEOUT,
};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long an upstream may take to come back (the gateway's back-off is at most 10 s).
const COMES_BACK: Duration = Duration::from_secs(30);

/// `tinymcp ARGS` as a stdio upstream.
fn tiny(args: &[&str]) -> Value {
    json!({"command": binary(), "args": args})
}

/// server-everything over stdio, when .cache has Node and it.
fn server_everything() -> Option<Value> {
    let cache = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.cache/npm/node_modules");
    let (node, script) = (cache.join(".bin/node"), cache.join("@modelcontextprotocol/server-everything/dist/index.js"));
    if !node.exists() || !script.exists() {
        let why = "gateway: server-everything not in .cache (scripts/deps.sh installs it): its part skipped";
        let _ = writeln!(std::io::stderr(), "{why}");
        return None;
    }
    Some(json!({"command": node, "args": [script, "stdio"]}))
}

/// The config written to a folder of its own (kept alive by the caller).
pub(crate) fn config_file(config: &Value) -> (TempDir, String) {
    let dir = TempDir::new("gateway");
    let path = dir.write("gateway.json", config.to_string());
    (dir, path.to_str().expect("UTF-8 path").to_owned())
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key].as_array().expect("a list").iter().map(|t| t[field].as_str().unwrap_or_default().to_owned()).collect()
}

fn all_tools(client: &mut Client) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let params = if cursor.is_null() { json!({}) } else { json!({"cursor": cursor}) };
        let page = client.request("tools/list", params);
        tools.extend(page["result"]["tools"].as_array().cloned().unwrap_or_default());
        cursor = page["result"]["nextCursor"].clone();
        if cursor.is_null() {
            return tools;
        }
    }
}

fn tool_names(client: &mut Client) -> Vec<String> {
    all_tools(client).iter().map(|t| t["name"].as_str().unwrap_or_default().to_owned()).collect()
}

#[test]
fn tools_of_every_upstream_are_namespaced_filtered_and_renamed() {
    let folder = TempDir::new("gateway-folder");
    folder.write("notes.txt", "through the gateway\n");
    let mut upstreams = json!({
        "tiny": {"command": binary(), "args": ["--everything"], "tools": {
            "allow": ["echo", "add", "test_*"], "deny": ["test_[a-r]*", "test_s*", "test_t*", "test_u*"],
            "overrides": {"echo": {"rename": "say", "description": "Says it back", "annotations": {"readOnlyHint": true}}}}},
        "fs": tiny(&["--root", folder.arg()]),
    });
    let everything = server_everything();
    if let Some(ev) = &everything {
        upstreams["ev"] = ev.clone();
    }
    let (_dir, config) = config_file(&json!({"upstreams": upstreams}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    let tools = all_tools(&mut client);
    let listed: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    // Allowed, then denied: of tiny's test_* only those after `u` are left (test_url_elicitation is denied).
    let tiny: Vec<&str> = listed.iter().copied().filter(|n| n.starts_with("tiny__")).collect();
    assert!(tiny.contains(&"tiny__say") && tiny.contains(&"tiny__add"), "{tiny:?}");
    assert!(!tiny.contains(&"tiny__echo"), "renamed: {tiny:?}");
    assert!(tiny.iter().all(|n| ["tiny__say", "tiny__add"].contains(n) || n > &"tiny__test_v"), "{tiny:?}");
    assert!(!tiny.iter().any(|n| n.starts_with("tiny__greet") || n.starts_with("tiny__test_slow")), "{tiny:?}");
    assert!(listed.contains(&"fs__read_file") && listed.contains(&"fs__list_directory"), "{listed:?}");
    let say = tools.iter().find(|t| t["name"] == "tiny__say").expect("tiny__say");
    assert_eq!(say["description"], "Says it back");
    assert_eq!(say["annotations"]["readOnlyHint"], true);
    assert!(say["inputSchema"]["properties"]["message"].is_object(), "{say}");

    assert_eq!(tool_text(&client.call_tool("tiny__say", json!({"message": "hi"}))), "Echo: hi");
    let sum = client.call_tool("tiny__add", json!({"a": 2, "b": 3}));
    assert!(tool_text(&sum).contains('5'), "{sum}");
    let read = client.call_tool("fs__read_file", json!({"path": "notes.txt"}));
    assert!(tool_text(&read).contains("through the gateway"), "{read}");
    // A name the gateway does not offer is refused as unknown.
    let unknown = client.call_tool("tiny__echo", json!({"message": "x"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    if everything.is_some() {
        assert!(listed.contains(&"ev__echo") && listed.contains(&"ev__get-sum"), "{listed:?}");
        assert_eq!(tool_text(&client.call_tool("ev__echo", json!({"message": "yo"}))), "Echo: yo");
        let structured = client.call_tool("ev__get-structured-content", json!({"location": "New York"}));
        assert!(structured["result"]["structuredContent"].is_object(), "{structured}");
    }
    client.close();
}

#[test]
fn prompts_resources_and_templates_are_read_back_through_their_upstream() {
    let folder = TempDir::new("gateway-folder");
    folder.write("a.txt", "alpha\n");
    let (_dir, config) =
        config_file(&json!({"upstreams": {"tiny": tiny(&["--everything"]), "fs": tiny(&["--root", folder.arg()])}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    let prompts = client.request("prompts/list", json!({}));
    let prompt_names = names(&prompts["result"], "prompts", "name");
    assert!(prompt_names.contains(&"tiny__test_prompt_with_arguments".to_owned()), "{prompt_names:?}");
    let got = client.request(
        "prompts/get",
        json!({"name": "tiny__test_prompt_with_arguments", "arguments": {"arg1": "one", "arg2": "two"}}),
    );
    let text = got["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("one") && text.contains("two"), "{got}");

    let resources = client.request("resources/list", json!({}));
    let uris = names(&resources["result"], "resources", "uri");
    assert!(uris.contains(&"tiny+test://static-text".to_owned()), "{uris:?}");
    let file = uris.iter().find(|u| u.starts_with("fs+file://") && u.ends_with("/a.txt")).expect("fs's a.txt");
    let read = client.request("resources/read", json!({"uri": file}));
    assert_eq!(read["result"]["contents"][0]["uri"], file.as_str(), "{read}");
    assert_eq!(read["result"]["contents"][0]["text"], "alpha\n");
    let templates = client.request("resources/templates/list", json!({}));
    let templates = names(&templates["result"], "resourceTemplates", "uriTemplate");
    assert!(templates.iter().all(|t| t.starts_with("tiny+") || t.starts_with("fs+")), "{templates:?}");
    assert!(templates.contains(&"tiny+test://template/{id}/data".to_owned()), "{templates:?}");
    let uri = "tiny+test://template/7/data";
    let read = client.request("resources/read", json!({"uri": uri}));
    assert_eq!(read["result"]["contents"][0]["uri"], uri, "{read}");
    client.close();
}

#[test]
fn progress_sampling_and_elicitation_pass_through_a_call() {
    let mut upstreams = json!({"tiny": tiny(&["--everything"])});
    let everything = server_everything();
    if let Some(ev) = &everything {
        upstreams["ev"] = ev.clone();
    }
    let (_dir, config) = config_file(&json!({"upstreams": upstreams}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({"sampling": {}, "elicitation": {}}));
    let call = client.send_request(
        "tools/call",
        json!({"name": "tiny__test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p1"}}),
    );
    let progress = client.wait(|m| m["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(tool_text(&client.response(&call)), "Progress reported");

    let call =
        client.send_request("tools/call", json!({"name": "tiny__test_sampling", "arguments": {"prompt": "hello"}}));
    let ask = client.wait(|m| m["method"] == "sampling/createMessage");
    assert_eq!(ask["params"]["messages"][0]["content"]["text"], "hello");
    client
        .answer(&ask["id"], json!({"role": "assistant", "content": {"type": "text", "text": "hi back"}, "model": "m"}));
    assert_eq!(tool_text(&client.response(&call)), "LLM response: hi back");

    if everything.is_some() {
        let call =
            client.send_request("tools/call", json!({"name": "ev__trigger-elicitation-request", "arguments": {}}));
        let ask = client.wait(|m| m["method"] == "elicitation/create");
        client.answer(&ask["id"], json!({"action": "accept", "content": {"name": "Ada"}}));
        let answer = client.response(&call);
        assert!(tool_text(&answer).contains("Ada"), "{answer}");
    }
    client.close();
}

#[test]
fn discovery_offers_search_tools_and_call_tool_only() {
    let (_dir, config) = config_file(&json!({"discovery": true, "upstreams": {"tiny": tiny(&["--everything"])}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    assert_eq!(tool_names(&mut client), ["search_tools", "call_tool"]);
    let found = client.call_tool("search_tools", json!({"query": "echo message"}));
    let tools = found["result"]["structuredContent"]["tools"].as_array().expect("tools found").clone();
    assert_eq!(tools[0]["name"], "tiny__echo", "{found}");
    assert!(tools[0]["inputSchema"]["properties"]["message"].is_object(), "{found}");
    let called = client.call_tool("call_tool", json!({"name": "tiny__echo", "arguments": {"message": "found"}}));
    assert_eq!(tool_text(&called), "Echo: found");
    let missing = client.call_tool("call_tool", json!({"name": "tiny__nothing", "arguments": {}}));
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    let wrong = client.call_tool("call_tool", json!({"name": "tiny__echo", "arguments": {"message": 3}}));
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    client.close();
}

#[test]
fn each_tool_call_is_one_audit_line_without_payloads_unless_asked() {
    let dir = TempDir::new("gateway-audit");
    let audit = dir.path().join("audit.log");
    let (_dir, config) = config_file(&json!({"audit": audit, "upstreams": {
        "tiny": tiny(&["--everything"]),
        "open": {"command": binary(), "args": ["--everything"], "audit_payloads": true}}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    client.call_tool("tiny__echo", json!({"message": "secret words"}));
    client.call_tool("tiny__test_error_handling", json!({}));
    client.call_tool("open__echo", json!({"message": "shown"}));
    let lines: Vec<Value> = wait_for("three audit lines", TIMEOUT, || {
        let text = std::fs::read_to_string(&audit).ok()?;
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        (lines.len() == 3).then_some(lines)
    });
    let text = std::fs::read_to_string(&audit).expect("the audit log");
    assert!(!text.contains("secret words"), "{text}");
    assert_eq!(lines[0]["caller"], "anonymous");
    assert_eq!((lines[0]["upstream"].as_str(), lines[0]["tool"].as_str()), (Some("tiny"), Some("echo")));
    assert_eq!(lines[0]["outcome"], "ok");
    assert!(lines[0]["bytes_in"].as_u64() > Some(0) && lines[0]["bytes_out"].as_u64() > Some(0), "{}", lines[0]);
    assert!(lines[0]["duration_ms"].is_u64() && lines[0]["time"].is_string(), "{}", lines[0]);
    assert!(lines[0].get("arguments").is_none());
    assert_eq!(lines[1]["outcome"], "tool_error");
    assert_eq!(lines[2]["arguments"]["message"], "shown");
    assert_eq!(lines[2]["result"]["content"][0]["text"], "Echo: shown");
    client.close();
}

/// A process of the test's, killed when dropped (a failed assertion leaves none behind).
struct Killed(Child);

impl Killed {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `tinymcp --everything --http 127.0.0.1:PORT` (0: a free one); its port.
fn remote(port: u16) -> (Killed, u16) {
    remote_with(port, &[])
}

/// [`remote`] with more of the server's flags.
fn remote_with(port: u16, extra: &[&str]) -> (Killed, u16) {
    let mut child = Command::new(binary())
        .args(["--everything", "--http", &format!("127.0.0.1:{port}")])
        .args(extra)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the upstream");
    let port = announced_port(&mut child);
    (Killed(child), port)
}

/// The gateway served over HTTP on a free port.
fn http_gateway(config: &str, extra: &[&str]) -> Server {
    http_gateway_with(config, extra, &[])
}

/// [`http_gateway`] with `env` set (the token never inherited).
pub(crate) fn http_gateway_with(config: &str, extra: &[&str], env: &[(&str, &str)]) -> Server {
    http_gateway_keeping_log(config, extra, env).0
}

/// [`http_gateway_with`], with what the gateway logs kept (its upstreams' stderr included).
fn http_gateway_keeping_log(config: &str, extra: &[&str], env: &[(&str, &str)]) -> (Server, Log) {
    let mut child = Command::new(binary())
        .args(["gateway", "--config", config, "--http", "127.0.0.1:0"])
        .args(extra)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .env_remove("TINYMCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the gateway");
    let (port, log) = announced_port_keeping_log(&mut child);
    (Server { child, port }, log)
}

pub(crate) fn healthz(gateway: &Server) -> String {
    let reply = gateway.send("GET", "/healthz", &[], "");
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

#[test]
fn an_upstream_killed_is_left_out_its_calls_fail_naming_it_and_it_comes_back() {
    let (mut upstream, port) = remote(0);
    let (_dir, config) = config_file(&json!({"upstreams": {
        "web": {"url": format!("http://127.0.0.1:{port}/mcp")},
        "tiny": tiny(&["--everything"])}}));
    let gateway = http_gateway(&config, &[]);
    let health = healthz(&gateway);
    assert!(health.contains("upstream web: up") && health.contains("upstream tiny: up"), "{health}");
    assert!(health.contains("tool list: ") && health.contains(" bytes"), "{health}");
    let mut client = Client::spawn_http_at(gateway.port);
    client.initialize("2025-11-25", json!({}));
    assert!(tool_names(&mut client).contains(&"web__echo".to_owned()));
    assert_eq!(tool_text(&client.call_tool("web__echo", json!({"message": "up"}))), "Echo: up");
    // A stream the upstream closes before its answer is resumed (SEP-1699).
    let resumed = client.call_tool("web__test_reconnection", json!({}));
    assert!(tool_text(&resumed).contains("properly reconnected"), "{resumed}");

    upstream.kill();
    let failed = client.call_tool("web__echo", json!({"message": "down"}));
    let message = failed["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("upstream web"), "{failed}");
    wait_for("web's tools left out", TIMEOUT, || {
        (!tool_names(&mut client).contains(&"web__echo".to_owned())).then_some(())
    });
    assert!(client.backlog.iter().any(|m| m["method"] == "notifications/tools/list_changed"), "{:?}", client.backlog);
    // Refused at once, naming it, while it is down; the other upstream still serves.
    let started = Instant::now();
    let refused = client.call_tool("web__echo", json!({"message": "down"}));
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("upstream web"), "{refused}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(tool_text(&client.call_tool("tiny__echo", json!({"message": "still"}))), "Echo: still");
    assert!(healthz(&gateway).contains("upstream web: down"));

    let (_again, _) = remote(port);
    wait_for("web back", COMES_BACK, || tool_names(&mut client).contains(&"web__echo".to_owned()).then_some(()));
    assert_eq!(tool_text(&client.call_tool("web__echo", json!({"message": "back"}))), "Echo: back");
    assert!(healthz(&gateway).contains("upstream web: up"));
}

#[test]
fn an_upstream_that_hangs_meets_its_deadline_and_holds_nothing() {
    let (_dir, config) = config_file(&json!({"upstreams": {
        "slow": {"command": binary(), "args": ["--everything"], "timeout_secs": 1},
        // Never speaks: its handshake fails within its timeout, and it is reported down.
        "mute": {"command": "sh", "args": ["-c", "exec cat >/dev/null"], "timeout_secs": 1}}}));
    let gateway = http_gateway(&config, &[]);
    let mut client = Client::spawn_http_at(gateway.port);
    client.initialize("2025-11-25", json!({}));
    let started = Instant::now();
    let late = client.call_tool("slow__test_slow", json!({"ms": 600000}));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let message = late["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("upstream slow") && message.contains("within 1 s"), "{late}");
    // The upstream was told (its tool honours cancellation) and the gateway goes on.
    for n in 0..4 {
        assert_eq!(tool_text(&client.call_tool("slow__echo", json!({"message": n.to_string()}))), format!("Echo: {n}"));
    }
    let health = healthz(&gateway);
    assert!(health.contains("upstream mute: down: its handshake failed"), "{health}");
    assert!(!tool_names(&mut client).iter().any(|n| n.starts_with("mute__")));
}

#[test]
fn a_2026_07_28_request_is_served_whatever_the_upstream_speaks() {
    let (_dir, config) =
        config_file(&json!({"upstreams": {"tiny": tiny(&["--everything", "--revisions", "..2025-11-25"])}}));
    let gateway = http_gateway(&config, &[]);
    let call = body(7, "tools/call", json!({"name": "tiny__echo", "arguments": {"message": "new"}}), json!({}));
    let reply = post(&gateway, &call, &[]);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["result"]["content"][0]["text"], "Echo: new", "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
}

#[test]
fn a_config_with_a_problem_is_refused_naming_it() {
    let (_dir, config) = config_file(&json!({"upstreams": {"a_b": {"command": "x"}}}));
    let out = Command::new(binary()).args(["gateway", "--config", &config]).stdin(Stdio::null()).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("upstreams.a_b:"), "{stderr}");
    let out = Command::new(binary()).args(["gateway"]).stdin(Stdio::null()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--config FILE"));
}

#[test]
fn an_upstreams_list_change_is_listed_again_and_passed_on() {
    let (_dir, config) = config_file(&json!({"upstreams": {"tiny": tiny(&["--everything"])}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    assert!(!tool_names(&mut client).contains(&"tiny__test_dynamic_tool".to_owned()));
    assert_eq!(tool_text(&client.call_tool("tiny__test_trigger_tool_change", json!({}))), "Mutation triggered");
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    wait_for("the new tool listed", TIMEOUT, || {
        tool_names(&mut client).contains(&"tiny__test_dynamic_tool".to_owned()).then_some(())
    });
    assert_eq!(tool_text(&client.call_tool("tiny__test_dynamic_tool", json!({}))), "dynamic");
    client.close();
}

#[test]
fn subscriptions_and_completions_go_to_the_owning_upstream() {
    let (_dir, config) = config_file(&json!({"upstreams": {"tiny": tiny(&["--everything"])}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": "tiny+test://watched-resource"}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    // The subscription reaches the upstream on the supervisor's thread: triggered until it has.
    wait_for("the update passed on", TIMEOUT, || {
        client.call_tool("tiny__test_trigger_resource_update", json!({}));
        let seen = client.backlog.iter().any(|m| {
            m["method"] == "notifications/resources/updated" && m["params"]["uri"] == "tiny+test://watched-resource"
        });
        seen.then_some(())
    });
    let completed = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "tiny__test_prompt_with_arguments"},
               "argument": {"name": "arg1", "value": "pa"}}),
    );
    assert_eq!(completed["result"]["completion"]["values"], json!(["paris", "park"]), "{completed}");
    let completed = client.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "tiny+test://template/{id}/data"},
               "argument": {"name": "id", "value": "1"}}),
    );
    assert_eq!(completed["result"]["completion"]["values"], json!(["1", "123"]), "{completed}");
    client.close();
}

#[test]
fn healthz_names_the_upstreams_only_past_the_host_check() {
    let (_dir, config) = config_file(&json!({"upstreams": {"tiny": tiny(&["--everything"])}}));
    let gateway = http_gateway(&config, &[]);
    let health = healthz(&gateway);
    assert!(health.starts_with("ok\n") && health.contains("upstream tiny: up, "), "{health}");
    let rebound = gateway.send("GET", "/healthz", &[("Host", "evil.example")], "");
    assert_eq!(rebound.body, "ok\n", "a page that rebound a name learns no upstream");
}

// Its TLS crates are not dev-dependencies for macOS targets (see the binary's Cargo.toml).
#[cfg(not(target_os = "macos"))]
#[test]
fn an_https_upstream_is_reached_through_a_private_ca() {
    use crate::connect_tls::{behind_tls, Ca};
    let ca = Ca::new();
    let (_remote, url) = behind_tls(ca.server(&["127.0.0.1"]));
    let (_dir, config) = config_file(&json!({"upstreams": {"secure": {"url": format!("{url}/mcp")}}}));
    let mut client = Client::spawn(&["gateway", "--config", &config, "--ca-file", &ca.pem()]);
    client.initialize("2025-11-25", json!({}));
    assert!(tool_names(&mut client).contains(&"secure__echo".to_owned()));
    assert_eq!(tool_text(&client.call_tool("secure__echo", json!({"message": "over tls"}))), "Echo: over tls");
    client.close();
    // Without the CA the certificate is refused, and the upstream is down saying why.
    let gateway = http_gateway(&config, &[]);
    let health = healthz(&gateway);
    assert!(health.contains("upstream secure: down: ") && health.contains("certificate"), "{health}");
}

#[test]
fn the_python_sdk_lists_and_calls_namespaced_tools_at_both_eras() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(".cache/venv/bin/python");
    if !python.exists() {
        let _ = writeln!(std::io::stderr(), "gateway: the Python SDK not in .cache/venv (scripts/deps.sh): skipped");
        return;
    }
    let (_dir, config) = config_file(&json!({"upstreams": {"tiny": tiny(&["--everything"])}}));
    let gateway = http_gateway(&config, &[]);
    let url = format!("http://127.0.0.1:{}/mcp", gateway.port);
    for mode in ["legacy", "2026-07-28"] {
        let out = Command::new(&python)
            .arg(root.join("tests/interop/python_gateway.py"))
            .args(["--mode", mode, &url])
            .stdin(Stdio::null())
            .output()
            .expect("run the Python SDK client");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{mode}:\n{stdout}\n{stderr}");
        assert!(stdout.contains("6 passed, 0 failed"), "{mode}:\n{stdout}\n{stderr}");
    }
}

#[test]
fn an_upstream_over_legacy_sse_is_served_like_the_others() {
    let (mut upstream, port) = remote(0);
    let (_dir, config) = config_file(&json!({"upstreams": {
        "old": {"url": format!("http://127.0.0.1:{port}/sse"), "transport": "sse"}}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({"sampling": {}}));
    assert!(tool_names(&mut client).contains(&"old__echo".to_owned()));
    assert_eq!(tool_text(&client.call_tool("old__echo", json!({"message": "sse"}))), "Echo: sse");
    let call = client.send_request("tools/call", json!({"name": "old__test_sampling", "arguments": {"prompt": "old"}}));
    let ask = client.wait(|m| m["method"] == "sampling/createMessage");
    client.answer(&ask["id"], json!({"role": "assistant", "content": {"type": "text", "text": "new"}, "model": "m"}));
    assert_eq!(tool_text(&client.response(&call)), "LLM response: new");
    // Its stream's end takes it out.
    upstream.kill();
    wait_for("old's tools left out", TIMEOUT, || {
        (!tool_names(&mut client).contains(&"old__echo".to_owned())).then_some(())
    });
    client.close();
}

#[test]
fn a_stdio_upstream_that_dies_mid_call_fails_it_naming_itself_and_is_started_again() {
    let dir = TempDir::new("gateway-dies");
    // A tool whose command kills the server that runs it (its parent), mid-call.
    let manifest = dir.write(
        "manifest.json",
        json!({"tools": [{"name": "die", "description": "Ends the server", "command": ["sh", "-c", "kill -9 $PPID; sleep 2"]},
                         {"name": "hello", "description": "Says hello", "command": ["echo", "hello"]}]})
        .to_string(),
    );
    let (_dir, config) =
        config_file(&json!({"upstreams": {"mortal": tiny(&["--manifest", manifest.to_str().unwrap()])}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    assert_eq!(tool_text(&client.call_tool("mortal__hello", json!({}))).trim(), "hello");
    let died = client.call_tool("mortal__die", json!({}));
    let message = died["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("upstream mortal is unavailable") && message.contains("exited"), "{died}");
    // Taken out (list_changed), started again after its back-off, listed again (list_changed).
    client.wait(|m| m["method"] == "notifications/tools/list_changed");
    wait_for("mortal back", COMES_BACK, || {
        let hello = client.call_tool("mortal__hello", json!({}));
        (tool_text(&hello).trim() == "hello").then_some(())
    });
    client.close();
}

/// `tools/list` and a call of `tool` with `arguments`, as the holder of `token` (a session of
/// its own).
#[cfg(feature = "oauth")]
pub(crate) fn as_holder(
    gateway: &Server,
    token: &str,
    tool: &str,
    arguments: Value,
) -> (Vec<String>, crate::raw_http::Reply) {
    use crate::raw_http::initialize;
    let auth = format!("Bearer {token}");
    let init = gateway.post(&[("Authorization", &auth)], &initialize(json!({})));
    assert_eq!(init.status, 200, "{}", init.body);
    let session = init.header("mcp-session-id").expect("a session").to_owned();
    let headers = [("Authorization", auth.as_str()), ("Mcp-Session-Id", session.as_str())];
    let ack = gateway.post(&headers, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(ack.status, 202);
    let listed = gateway.post(&headers, &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let names = listed.json()["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    let call =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    (names, gateway.post(&headers, &call))
}

#[cfg(feature = "oauth")]
#[test]
fn scopes_per_upstream_and_per_tool_hide_and_refuse_what_a_token_lacks() {
    use crate::oauth_issuer::{jwk, Issuer, AUDIENCE};
    let issuer = Issuer::start(json!({"keys": [jwk("k1", 1)]}));
    let (_dir, config) = config_file(&json!({"upstreams": {
        "tiny": {"command": binary(), "args": ["--everything"], "tools": {"allow": ["echo", "add"],
                 "overrides": {"echo": {"scopes": ["tools:echo"]}}}},
        "locked": {"command": binary(), "args": ["--everything"], "scopes": ["admin"], "tools": {"allow": ["add"]}}}}));
    let gateway =
        http_gateway(&config, &["--oauth-issuer", &issuer.url, "--public-url", AUDIENCE, "--oauth-scope", "mcp:use"]);
    let echo = json!({"message": "scoped"});
    let (names, call) =
        as_holder(&gateway, &issuer.token("k1", 1, json!({"scope": "mcp:use"})), "tiny__echo", echo.clone());
    assert_eq!(names, ["tiny__add"]);
    assert_eq!(call.status, 403, "{}", call.body);
    let full = issuer.token("k1", 1, json!({"scope": "mcp:use tools:echo admin"}));
    let (mut names, call) = as_holder(&gateway, &full, "tiny__echo", echo.clone());
    names.sort();
    assert_eq!(names, ["locked__add", "tiny__add", "tiny__echo"]);
    assert_eq!(call.json()["result"]["content"][0]["text"], "Echo: scoped", "{}", call.body);

    // Discovery: a tool the token lacks a scope for is not found, and not called.
    let (_dir, config) = config_file(&json!({"discovery": true, "upstreams": {
        "tiny": {"command": binary(), "args": ["--everything"], "tools": {"allow": ["echo", "add"],
                 "overrides": {"echo": {"scopes": ["tools:echo"]}}}}}}));
    let gateway =
        http_gateway(&config, &["--oauth-issuer", &issuer.url, "--public-url", AUDIENCE, "--oauth-scope", "mcp:use"]);
    let narrow = issuer.token("k1", 1, json!({"scope": "mcp:use"}));
    let (_, found) = as_holder(&gateway, &narrow, "search_tools", json!({"query": "echo add"}));
    let found = found.json()["result"]["structuredContent"]["tools"].clone();
    assert_eq!(found.as_array().map(|t| t.len()), Some(1), "{found}");
    assert_eq!(found[0]["name"], "tiny__add", "{found}");
    let call = json!({"name": "tiny__echo", "arguments": echo});
    let (_, refused) = as_holder(&gateway, &narrow, "call_tool", call.clone());
    assert_eq!(refused.json()["error"]["code"], -32003, "{}", refused.body);
    let (_, called) = as_holder(&gateway, &full, "call_tool", call);
    assert_eq!(called.json()["result"]["content"][0]["text"], "Echo: scoped", "{}", called.body);
}

/// A stdio upstream whose tool `pid` says the pid of the `tinymcp` serving it (the shell's
/// parent), `shared` or not (the config's default).
fn pid_upstream(dir: &TempDir, shared: Option<bool>) -> Value {
    let manifest = dir.write(
        "pid.json",
        json!({"tools": [{"name": "pid", "description": "the server's pid", "command": ["sh", "-c", "echo $PPID"],
                          "inputSchema": {"type": "object"}}]})
        .to_string(),
    );
    let mut upstream = tiny(&["--manifest", manifest.to_str().expect("UTF-8 path")]);
    if let Some(shared) = shared {
        upstream["shared"] = json!(shared);
    }
    upstream
}

/// The pid `NAME__pid` answers in `session`.
fn pid_in(gateway: &Server, session: &str, name: &str) -> u32 {
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": format!("{name}__pid"), "arguments": {}}});
    let reply = gateway.post(&[("Mcp-Session-Id", session)], &call);
    tool_text(&reply.json()).trim().parse().unwrap_or_else(|_| panic!("a pid: {}", reply.body))
}

// A stdio server assumes one client: by default (as `tinymcp proxy`) each downstream session
// gets its own process, which ends with the session; `"shared": true` serves every session
// from one. A 2026-07-28 request, which has no session, goes to the process the gateway
// lists the upstream through.
#[test]
fn a_stdio_upstream_runs_once_per_session_unless_shared_and_ends_with_its_session() {
    let dir = TempDir::new("gateway-sessions");
    let (_dir, config) = config_file(&json!({"upstreams": {
        "own": pid_upstream(&dir, None), "one": pid_upstream(&dir, Some(true))}}));
    let gateway = http_gateway(&config, &[]);
    let (a, b) = (gateway.session(json!({})), gateway.session(json!({})));
    let (own_a, own_b) = (pid_in(&gateway, &a, "own"), pid_in(&gateway, &b, "own"));
    assert_ne!(own_a, own_b, "two sessions, two processes");
    assert_eq!(pid_in(&gateway, &a, "own"), own_a, "a session keeps its process");
    assert_eq!(pid_in(&gateway, &a, "one"), pid_in(&gateway, &b, "one"), "shared: one process");

    // Without a session: the listed process, the same for every such request.
    let call = body(3, "tools/call", json!({"name": "own__pid", "arguments": {}}), json!({}));
    let alone: Vec<u32> = (0..2)
        .map(|_| {
            let reply = post(&gateway, &call, &[]);
            tool_text(&reply.json()).trim().parse().unwrap_or_else(|_| panic!("a pid: {}", reply.body))
        })
        .collect();
    assert_eq!(alone[0], alone[1]);
    assert!(alone[0] != own_a && alone[0] != own_b, "{alone:?} {own_a} {own_b}");

    let deleted = gateway.send("DELETE", "/mcp", &[("Mcp-Session-Id", &a)], "");
    assert_eq!(deleted.status, 200);
    eventually("the deleted session's process to end", || process_gone(own_a));
    assert!(!process_gone(own_b) && !process_gone(alone[0]));
    assert_eq!(pid_in(&gateway, &b, "own"), own_b);
    let health = healthz(&gateway);
    assert!(health.contains("upstream own: up, 1 tools, 1 processes for sessions"), "{health}");
    assert!(health.contains("upstream one: up, 1 tools\n"), "{health}");
}

// A session that expires idle takes its processes with it, as a DELETE does.
#[test]
fn an_idle_session_that_expires_ends_its_upstream_process() {
    let dir = TempDir::new("gateway-idle");
    let (_dir, config) = config_file(&json!({"upstreams": {"own": pid_upstream(&dir, None)}}));
    let gateway = http_gateway(&config, &["--session-idle-secs", "1"]);
    let session = gateway.session(json!({}));
    let pid = pid_in(&gateway, &session, "own");
    eventually("the expired session's process to end", || process_gone(pid));
}

// At 2026-07-28 a call whose upstream asks for input is answered with an input-required
// round, and the client sends it again with the answer: the first is not a failure, and the
// audit log says what it was.
#[test]
fn an_input_required_round_is_audited_as_such() {
    let dir = TempDir::new("gateway-audit-input");
    let audit = dir.path().join("audit.log");
    let (_dir, config) = config_file(&json!({"audit": audit, "upstreams": {"tiny": tiny(&["--everything"])}}));
    let gateway = http_gateway(&config, &[]);
    let call = |id: u64, more: Value| {
        let mut message = body(
            id,
            "tools/call",
            json!({"name": "tiny__test_sampling", "arguments": {"prompt": "hi"}}),
            json!({"sampling": {}}),
        );
        for (key, value) in more.as_object().expect("params") {
            message["params"][key] = value.clone();
        }
        post(&gateway, &message, &[]).json()
    };
    let first = call(1, json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let (key, _) = first["result"]["inputRequests"].as_object().and_then(|m| m.iter().next()).expect("a request");
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "round"}, "model": "m"});
    let state = first["result"]["requestState"].clone();
    let done = call(2, json!({"inputResponses": {key.clone(): answer}, "requestState": state}));
    assert_eq!(done["result"]["content"][0]["text"], "LLM response: round", "{done}");
    let outcomes: Vec<String> = wait_for("two audit lines", TIMEOUT, || {
        let text = std::fs::read_to_string(&audit).ok()?;
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        (lines.len() == 2).then(|| lines.iter().map(|l| l["outcome"].as_str().unwrap_or_default().to_owned()).collect())
    });
    assert_eq!(outcomes, ["input_required", "ok"]);
}

// An upstream that speaks only 2026-07-28 refuses `initialize`: the gateway finds its era
// with `server/discover` and sends each request with its terms in `_meta` (over HTTP alone,
// with that revision's headers); its requests for input come back as input-required results,
// asked of the gateway's client and sent again with the answers.
#[test]
fn upstreams_that_speak_only_2026_07_28_are_listed_and_called() {
    let (_web, port) = remote_with(0, &["--revisions", "2026-07-28"]);
    let (_dir, config) = config_file(&json!({"upstreams": {
        "new": tiny(&["--everything", "--revisions", "2026-07-28"]),
        "web": {"url": format!("http://127.0.0.1:{port}/mcp")}}}));
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({"sampling": {}}));
    let tools = tool_names(&mut client);
    assert!(tools.contains(&"new__echo".to_owned()) && tools.contains(&"web__echo".to_owned()), "{tools:?}");
    for name in ["new", "web"] {
        let echoed = client.call_tool(&format!("{name}__echo"), json!({"message": name}));
        assert_eq!(tool_text(&echoed), format!("Echo: {name}"), "{echoed}");
        assert!(echoed["result"].get("resultType").is_none(), "a 2025-11-25 answer: {echoed}");
        let call = client.send_request(
            "tools/call",
            json!({"name": format!("{name}__test_sampling"), "arguments": {"prompt": name}}),
        );
        let ask = client.wait(|m| m["method"] == "sampling/createMessage");
        assert_eq!(ask["params"]["messages"][0]["content"]["text"], name, "{ask}");
        let reply = json!({"role": "assistant", "content": {"type": "text", "text": "said"}, "model": "m"});
        client.answer(&ask["id"], reply);
        assert_eq!(tool_text(&client.response(&call)), "LLM response: said");
    }
    let resources = client.request("resources/list", json!({}));
    let uris = names(&resources["result"], "resources", "uri");
    assert!(uris.contains(&"new+test://static-text".to_owned()), "{uris:?}");
    let read = client.request("resources/read", json!({"uri": "web+test://static-text"}));
    assert_eq!(read["result"]["contents"][0]["uri"], "web+test://static-text", "{read}");
    // Their list changes come on a listen stream the gateway holds there, and are passed on.
    for name in ["new", "web"] {
        let dynamic = format!("{name}__test_dynamic_tool");
        assert!(!tool_names(&mut client).contains(&dynamic));
        client.call_tool(&format!("{name}__test_trigger_tool_change"), json!({}));
        wait_for("the new tool listed", TIMEOUT, || tool_names(&mut client).contains(&dynamic).then_some(()));
    }
    client.close();

    // A 2026-07-28 client: the upstream's input-required round becomes the gateway's own, and
    // the client's retry carries the answer through to the upstream's.
    let gateway = http_gateway(&config, &[]);
    for name in ["new", "web"] {
        let call = |id: u64, more: Value| {
            let params = json!({"name": format!("{name}__test_sampling"), "arguments": {"prompt": name}});
            let mut message = body(id, "tools/call", params, json!({"sampling": {}}));
            for (key, value) in more.as_object().expect("params") {
                message["params"][key] = value.clone();
            }
            post(&gateway, &message, &[]).json()
        };
        let first = call(1, json!({}));
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let (key, asked) = first["result"]["inputRequests"].as_object().and_then(|m| m.iter().next()).expect("asked");
        assert_eq!(asked["params"]["messages"][0]["content"]["text"], name, "{first}");
        let reply = json!({"role": "assistant", "content": {"type": "text", "text": "later"}, "model": "m"});
        let state = first["result"]["requestState"].clone();
        let done = call(2, json!({"inputResponses": {key.clone(): reply}, "requestState": state}));
        assert_eq!(done["result"]["content"][0]["text"], "LLM response: later", "{done}");
    }
}

// A 2026-07-28 upstream subscribes on a listen stream: the gateway's stream there is opened
// again with the URIs its clients subscribed to (a 2025-11-25 `resources/subscribe`, a
// 2026-07-28 listen stream's `resourceSubscriptions`), and each update it hears goes to them
// under the namespaced URI.
#[test]
fn a_2026_07_28_upstreams_resources_are_subscribed_through_its_listen_stream() {
    let (_dir, config) =
        config_file(&json!({"upstreams": {"new": tiny(&["--everything", "--revisions", "2026-07-28"])}}));
    let uri = "new+test://watched-resource";
    let updated = |m: &Value| m["method"] == "notifications/resources/updated" && m["params"]["uri"] == uri;
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    client.initialize("2025-11-25", json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    // The stream is opened again on the supervisor's and its own thread: triggered until it is.
    wait_for("the update passed on", TIMEOUT, || {
        client.call_tool("new__test_trigger_resource_update", json!({}));
        client.backlog.iter().any(updated).then_some(())
    });
    // Once per update: the update is heard before the call that made it is answered.
    client.backlog.clear();
    client.call_tool("new__test_trigger_resource_update", json!({}));
    client.request("ping", json!({}));
    assert_eq!(client.backlog.iter().filter(|&m| updated(m)).count(), 1, "{:?}", client.backlog);
    client.close();

    // A 2026-07-28 client's listen stream: the same, tagged with its own subscription.
    let mut client = Client::spawn(&["gateway", "--config", &config]);
    let terms = crate::stateless::meta(json!({}));
    let params = json!({"notifications": {"resourceSubscriptions": [uri]}, "_meta": terms});
    let listen = client.send_request("subscriptions/listen", params);
    client.wait(|m| m["method"] == "notifications/subscriptions/acknowledged");
    let heard = wait_for("the update on the listen stream", TIMEOUT, || {
        let call = json!({"name": "new__test_trigger_resource_update", "arguments": {}, "_meta": terms});
        client.request("tools/call", call);
        client.backlog.iter().find(|&m| updated(m)).cloned()
    });
    assert_eq!(heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen, "{heard}");
    client.close();
}

// The session cap bounds the processes: an initialize at the cap makes the longest-idle
// session give way, and its processes end with it.
#[test]
fn the_session_cap_bounds_the_per_session_processes() {
    let dir = TempDir::new("gateway-cap");
    let (_dir, config) = config_file(&json!({"upstreams": {"own": pid_upstream(&dir, None)}}));
    let gateway = http_gateway(&config, &["--max-sessions", "1"]);
    let first = gateway.session(json!({}));
    let pid = pid_in(&gateway, &first, "own");
    let second = gateway.session(json!({}));
    eventually("the evicted session's process to end", || process_gone(pid));
    assert_ne!(pid_in(&gateway, &second, "own"), pid);
}

// A session's subscription is made on its own process, where its changes happen: the update
// a call in the session triggers there reaches it.
#[test]
fn a_sessions_subscription_is_made_on_its_own_process() {
    let (_dir, config) = config_file(&json!({"upstreams": {"tiny": tiny(&["--everything"])}}));
    let gateway = http_gateway(&config, &[]);
    let mut client = Client::spawn_http_at(gateway.port);
    client.initialize("2025-11-25", json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": "tiny+test://watched-resource"}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    client.call_tool("tiny__test_trigger_resource_update", json!({}));
    let updated = client.wait(|m| m["method"] == "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "tiny+test://watched-resource");
}

/// A `tinymcp --everything` upstream, shared by every session, that logs each message it reads
/// and writes (JSON lines, which the gateway logs as its child's): what it was asked is seen
/// there, not guessed. `revisions`: the ones it speaks.
fn logged_upstream(revisions: &str) -> Value {
    let mut upstream = tiny(&["--everything", "--revisions", revisions, "--log-format", "json"]);
    upstream["shared"] = json!(true);
    upstream["env"] = json!({"RUST_LOG": "info,tinymcp::transport::stdio=debug"});
    upstream
}

/// The lines of `log` the upstream logged on reading (`<-`) or writing (`->`) a message holding
/// all of `parts`.
fn upstream_lines(log: &Log, way: &str, parts: &[&str]) -> Vec<String> {
    let log = log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let way = format!("\"message\":\"{way} ");
    log.lines().filter(|l| l.contains(&way) && parts.iter().all(|p| l.contains(p))).map(str::to_owned).collect()
}

/// The updates the upstream `name` sends when its trigger tool is called through `client`,
/// counted in its log up to the answer to an echo sent after the trigger (it writes in order).
fn updates_from_trigger(client: &mut Client, log: &Log, name: &str) -> usize {
    let sent = || upstream_lines(log, "->", &["notifications/resources/updated"]).len();
    let echoes = || upstream_lines(log, "->", &["Echo: after the trigger"]).len();
    let (before, echoed) = (sent(), echoes());
    client.call_tool(&format!("{name}__test_trigger_resource_update"), json!({}));
    client.call_tool(&format!("{name}__echo"), json!({"message": "after the trigger"}));
    wait_until("the echo's answer logged", TIMEOUT, || echoes() > echoed);
    sent() - before
}

/// Two sessions of a gateway over HTTP that subscribed to `uri`.
fn two_subscribed(gateway: &Server, uri: &str) -> (Client, Client) {
    let subscribed = || {
        let mut client = Client::spawn_http_at(gateway.port);
        client.initialize("2025-11-25", json!({}));
        let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
        assert!(subscribed["result"].is_object(), "{subscribed}");
        client
    };
    (subscribed(), subscribed())
}

/// `client` triggers its upstream's update of `uri` until it hears it (a subscription reaches
/// the upstream on the supervisor's thread).
fn hears_update(client: &mut Client, tool: &str, uri: &str) {
    wait_for("the update passed on", TIMEOUT, || {
        client.call_tool(tool, json!({}));
        let heard = client
            .backlog
            .iter()
            .any(|m| m["method"] == "notifications/resources/updated" && m["params"]["uri"] == uri);
        heard.then_some(())
    });
}

// Unsubscribing is passed on with the last subscriber: while another session holds the URI the
// upstream keeps its subscription (that session still hears its updates); once the last
// unsubscribes the upstream is sent `resources/unsubscribe` (its own log shows it read it), and
// an update after that is sent by it to no one.
#[test]
fn the_last_unsubscription_of_a_resource_is_passed_on_upstream() {
    let (_dir, config) = config_file(&json!({"upstreams": {"one": logged_upstream("2025-11-25")}}));
    let (gateway, log) = http_gateway_keeping_log(&config, &[], &[]);
    let (uri, trigger) = ("one+test://watched-resource", "one__test_trigger_resource_update");
    let (mut a, mut b) = two_subscribed(&gateway, uri);
    hears_update(&mut b, trigger, uri);
    let unsubscribe = |client: &mut Client| {
        let done = client.request("resources/unsubscribe", json!({"uri": uri}));
        assert!(done["result"].is_object(), "{done}");
    };
    unsubscribe(&mut a);
    b.backlog.clear();
    hears_update(&mut b, trigger, uri);
    let asked = ["resources/unsubscribe", "test://watched-resource"];
    assert_eq!(upstream_lines(&log, "<-", &asked), Vec::<String>::new(), "b still holds it");

    unsubscribe(&mut b);
    wait_until("the upstream read resources/unsubscribe", TIMEOUT, || upstream_lines(&log, "<-", &asked).len() == 1);
    assert_eq!(updates_from_trigger(&mut b, &log, "one"), 0, "no update sent once nobody holds it");
    assert_eq!(upstream_lines(&log, "<-", &asked).len(), 1);

    // A session that ends (DELETE) holding the last subscription ends it too.
    let session = gateway.session(json!({}));
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}});
    assert!(gateway.post(&[("Mcp-Session-Id", &session)], &subscribe).json()["result"].is_object());
    let subscribes = || upstream_lines(&log, "<-", &["resources/subscribe", "test://watched-resource"]).len();
    // Once for a (b's found it subscribed there), once for this session.
    wait_until("the upstream read resources/subscribe again", TIMEOUT, || subscribes() == 2);
    assert_eq!(gateway.send("DELETE", "/mcp", &[("Mcp-Session-Id", &session)], "").status, 200);
    wait_until("the upstream read resources/unsubscribe again", TIMEOUT, || {
        upstream_lines(&log, "<-", &asked).len() == 2
    });
}

/// The pid of the gateway's one child process (its one upstream's, shared), once it has one.
fn upstream_pid(gateway: &Server) -> u32 {
    upstream_pids(gateway, 1)[0]
}

fn kill_9(pid: u32) {
    let killed = Command::new("kill").args(["-9", &pid.to_string()]).status().expect("run kill");
    assert!(killed.success());
}

// An upstream whose process is killed is started again by the gateway, and subscribed again
// to what its clients hold (a new process holds none of the last one's subscriptions): a
// session subscribed before keeps hearing its updates. At 2026-07-28 its listen stream names
// them again.
#[test]
fn a_restarted_upstream_is_subscribed_again_to_what_its_clients_hold() {
    for revisions in ["2025-11-25", "2026-07-28"] {
        let (_dir, config) = config_file(&json!({"upstreams": {"one": logged_upstream(revisions)}}));
        let gateway = http_gateway(&config, &[]);
        let (uri, trigger) = ("one+test://watched-resource", "one__test_trigger_resource_update");
        let mut client = Client::spawn_http_at(gateway.port);
        client.initialize("2025-11-25", json!({}));
        let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
        assert!(subscribed["result"].is_object(), "{subscribed}");
        hears_update(&mut client, trigger, uri);
        let pid = upstream_pid(&gateway);
        kill_9(pid);
        wait_for("the upstream started again", COMES_BACK, || {
            let echoed = client.call_tool("one__echo", json!({"message": "back"}));
            (tool_text(&echoed) == "Echo: back").then_some(())
        });
        assert_ne!(upstream_pid(&gateway), pid);
        client.backlog.clear();
        hears_update(&mut client, trigger, uri);
    }
}

// The same for a remote upstream over HTTP whose server is restarted: the gateway's new session
// there is subscribed again.
#[test]
fn a_remote_upstreams_new_session_is_subscribed_again_to_what_its_clients_hold() {
    let (mut upstream, port) = remote(0);
    let (_dir, config) = config_file(&json!({"upstreams": {"web": {"url": format!("http://127.0.0.1:{port}/mcp")}}}));
    let gateway = http_gateway(&config, &[]);
    let (uri, trigger) = ("web+test://watched-resource", "web__test_trigger_resource_update");
    let mut client = Client::spawn_http_at(gateway.port);
    client.initialize("2025-11-25", json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    hears_update(&mut client, trigger, uri);
    upstream.kill();
    // A call finds it gone (else the next ping would).
    wait_until("the upstream down", TIMEOUT, || {
        client.call_tool("web__echo", json!({"message": "down"}));
        healthz(&gateway).contains("upstream web: down")
    });
    let (_again, _) = remote(port);
    wait_for("the upstream back", COMES_BACK, || {
        let echoed = client.call_tool("web__echo", json!({"message": "back"}));
        (tool_text(&echoed) == "Echo: back").then_some(())
    });
    client.backlog.clear();
    hears_update(&mut client, trigger, uri);
}

/// The URIs `lines` (an upstream's log) subscribed to and not unsubscribed from since.
fn net_subscriptions(lines: &[&str]) -> std::collections::BTreeSet<String> {
    let mut held = std::collections::BTreeSet::new();
    for line in lines.iter().filter(|l| l.contains("\"message\":\"<- ")) {
        // Its one URI, however deep the log quotes it.
        let uri = || Some(line[line.find("test://")?..].split(['\\', '"']).next()?.to_owned());
        if line.contains("resources/subscribe") {
            held.extend(uri());
        } else if line.contains("resources/unsubscribe") {
            uri().map(|u| held.remove(&u));
        }
    }
    held
}

/// A 2026-07-28 listen stream naming `uris`, as [`listen_naming`]; `None` when refused (the
/// gateway holds as many streams as it may).
fn listen_naming_all(gateway: &Server, uris: &[String]) -> Option<std::io::BufReader<std::net::TcpStream>> {
    use crate::raw_http::{read_chunk, read_head, write_request, ACCEPT_BOTH, JSON};
    let mut stream = gateway.connect();
    let params = json!({"notifications": {"resourceSubscriptions": uris}});
    let text = body(1, "subscriptions/listen", params, json!({})).to_string();
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut stream, gateway.port, "POST", "/mcp", &headers, &text);
    let mut reader = std::io::BufReader::new(stream);
    if read_head(&mut reader).status != 200 {
        return None;
    }
    let event = String::from_utf8(read_chunk(&mut reader).expect("the acknowledgement")).expect("UTF-8");
    assert!(event.contains("notifications/subscriptions/acknowledged"), "{event}");
    Some(reader)
}

// While an upstream is down its clients' subscriptions may come and go without end (listen
// streams naming thousands of URIs, opened and closed): the gateway keeps only which URIs to
// look at again, bounded (past its cap it looks at all), and once the upstream is back it is
// subscribed to exactly what its clients hold then: the URI a session held all along and the
// one a stream still open names, none of those let go.
#[test]
fn an_upstream_back_is_subscribed_to_exactly_what_its_clients_hold_whatever_came_and_went() {
    let dir = TempDir::new("gateway-held");
    let hold = dir.path().join("hold");
    let mut one = logged_upstream("2025-11-25");
    // Its process waits while `hold` exists (the gateway's handshake waits for it).
    let wait = format!("while [ -e '{}' ]; do sleep 0.05; done; exec \"$0\" \"$@\"", hold.display());
    let mut args = vec![json!("-c"), json!(wait), json!(binary())];
    args.extend(one["args"].as_array().cloned().unwrap_or_default());
    (one["command"], one["args"]) = (json!("/bin/sh"), json!(args));
    let (_dir, config) = config_file(&json!({"upstreams": {"one": one}}));
    let (gateway, log) = http_gateway_keeping_log(&config, &["--max-listen-streams", "1"], &[]);
    let (uri, trigger) = ("one+test://watched-resource", "one__test_trigger_resource_update");
    let mut client = Client::spawn_http_at(gateway.port);
    client.initialize("2025-11-25", json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    hears_update(&mut client, trigger, uri);

    std::fs::write(&hold, "").expect("write the hold file");
    let pid = upstream_pid(&gateway);
    kill_9(pid);
    wait_until("the upstream down", TIMEOUT, || healthz(&gateway).contains("upstream one: down"));
    // More distinct URIs than the gateway keeps, each subscribed and let go.
    // One stream at a time (`--max-listen-streams 1`): the next opens once the last one's end
    // let its URIs go.
    for round in 0..5 {
        let uris: Vec<String> = (0..1024).map(|i| format!("one+test://template/{round}-{i}/data")).collect();
        drop(wait_for("a listen stream", TIMEOUT, || listen_naming_all(&gateway, &uris)));
    }
    let kept = ["one+test://static-text".to_owned()];
    let _kept = wait_for("a listen stream", TIMEOUT, || listen_naming_all(&gateway, &kept));
    std::fs::remove_file(&hold).expect("remove the hold file");
    let want: std::collections::BTreeSet<String> =
        ["test://static-text", "test://watched-resource"].into_iter().map(str::to_owned).collect();
    let deadline = Instant::now() + COMES_BACK;
    loop {
        let seen = {
            let log = log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let lines: Vec<&str> = log.lines().collect();
            // What the new process read: after its start was logged.
            let started = lines.iter().rposition(|l| l.contains("one: started ")).unwrap_or_default();
            net_subscriptions(&lines[started..])
        };
        if seen == want {
            break;
        }
        let tail: Vec<String> = log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .lines()
            .rev()
            .take(20)
            .map(str::to_owned)
            .collect();
        assert!(
            Instant::now() < deadline,
            "the log ends with {tail:#?}; the upstream holds {} {seen:?}, not {want:?}",
            seen.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_ne!(upstream_pid(&gateway), pid);
    client.backlog.clear();
    hears_update(&mut client, trigger, uri);
}

// The same for an upstream that speaks only 2026-07-28, where a subscription is its listen
// stream's: while a session holds the URI the stream names it; once the last unsubscribes the
// stream is opened again without it (the upstream read that listen), and the upstream's
// update is not sent.
#[test]
fn the_last_unsubscription_reopens_a_2026_07_28_upstreams_listen_stream_without_it() {
    let (_dir, config) = config_file(&json!({"upstreams": {"new": logged_upstream("2026-07-28")}}));
    let (gateway, log) = http_gateway_keeping_log(&config, &[], &[]);
    let (uri, trigger) = ("new+test://watched-resource", "new__test_trigger_resource_update");
    let (mut a, mut b) = two_subscribed(&gateway, uri);
    hears_update(&mut b, trigger, uri);
    let listens = || upstream_lines(&log, "<-", &["subscriptions/listen"]);
    let opened = listens().len();
    let done = a.request("resources/unsubscribe", json!({"uri": uri}));
    assert!(done["result"].is_object(), "{done}");
    b.backlog.clear();
    hears_update(&mut b, trigger, uri);
    assert_eq!(listens().len(), opened, "b still holds it: the stream is not opened again");

    let done = b.request("resources/unsubscribe", json!({"uri": uri}));
    assert!(done["result"].is_object(), "{done}");
    wait_until("the listen stream opened again", TIMEOUT, || listens().len() == opened + 1);
    let last = listens().pop().unwrap_or_default();
    assert!(!last.contains("resourceSubscriptions"), "{last}");
    assert_eq!(updates_from_trigger(&mut b, &log, "new"), 0, "no update sent once nobody holds it");
    assert_eq!(listens().len(), opened + 1, "opened again once");

    // A 2026-07-28 client's listen stream naming it: named upstream while it is open, not once
    // it closed.
    let stream = listen_naming(&gateway, uri);
    wait_until("the upstream's stream names it again", TIMEOUT, || {
        listens().len() == opened + 2 && listens().last().is_some_and(|l| l.contains("resourceSubscriptions"))
    });
    drop(stream);
    wait_until("the upstream's stream opened again without it", TIMEOUT, || listens().len() == opened + 3);
    let last = listens().pop().unwrap_or_default();
    assert!(!last.contains("resourceSubscriptions"), "{last}");
}

/// A 2026-07-28 listen stream naming `uri`, on a connection of its own, acknowledged; it ends
/// when the returned socket is dropped.
fn listen_naming(gateway: &Server, uri: &str) -> std::io::BufReader<std::net::TcpStream> {
    use crate::raw_http::{read_chunk, read_head, write_request, ACCEPT_BOTH, JSON};
    let mut stream = gateway.connect();
    let params = json!({"notifications": {"resourceSubscriptions": [uri]}});
    let text = body(1, "subscriptions/listen", params, json!({})).to_string();
    let headers = [ACCEPT_BOTH, JSON, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    write_request(&mut stream, gateway.port, "POST", "/mcp", &headers, &text);
    let mut reader = std::io::BufReader::new(stream);
    assert_eq!(read_head(&mut reader).status, 200);
    let event = String::from_utf8(read_chunk(&mut reader).expect("the acknowledgement")).expect("UTF-8");
    assert!(event.contains("notifications/subscriptions/acknowledged"), "{event}");
    reader
}

// With a process per session, a session's unsubscription goes to its own process, where its
// subscription was made (no other session's is there).
#[test]
fn a_sessions_unsubscription_goes_to_its_own_process() {
    let mut own = logged_upstream("2025-11-25");
    own["shared"] = json!(false);
    let (_dir, config) = config_file(&json!({"upstreams": {"own": own}}));
    let (gateway, log) = http_gateway_keeping_log(&config, &[], &[]);
    let uri = "own+test://watched-resource";
    let (mut a, _b) = two_subscribed(&gateway, uri);
    let done = a.request("resources/unsubscribe", json!({"uri": uri}));
    assert!(done["result"].is_object(), "{done}");
    let asked = ["resources/unsubscribe", "test://watched-resource"];
    wait_until("a process read resources/unsubscribe", TIMEOUT, || upstream_lines(&log, "<-", &asked).len() == 1);
    // The one that read it is a's: a's trigger there sends no update (b's process, subscribed
    // still, is not triggered).
    assert_eq!(updates_from_trigger(&mut a, &log, "own"), 0);
    let updates = upstream_lines(&log, "->", &["notifications/resources/updated"]);
    assert_eq!(updates, Vec::<String>::new(), "a's process sends no update once a unsubscribed");
}

// A process per session that speaks only 2026-07-28: a session's subscription is named on a
// listen stream held on its own process (opened on its first), so a change made in the
// session's process reaches it; once it unsubscribes that stream ends (the upstream read its
// cancellation) and the process sends no update.
#[test]
fn a_sessions_subscription_to_a_2026_07_28_process_of_its_own_is_made_on_its_listen_stream() {
    let mut own = logged_upstream("2026-07-28");
    own["shared"] = json!(false);
    let (_dir, config) = config_file(&json!({"upstreams": {"new": own}}));
    let (gateway, log) = http_gateway_keeping_log(&config, &[], &[]);
    let uri = "new+test://watched-resource";
    let mut client = Client::spawn_http_at(gateway.port);
    client.initialize("2025-11-25", json!({}));
    let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
    assert!(subscribed["result"].is_object(), "{subscribed}");
    hears_update(&mut client, "new__test_trigger_resource_update", uri);
    let named = upstream_lines(&log, "<-", &["subscriptions/listen", "test://watched-resource"]);
    assert_eq!(named.len(), 1, "one stream names it: {named:?}");

    let done = client.request("resources/unsubscribe", json!({"uri": uri}));
    assert!(done["result"].is_object(), "{done}");
    let cancelled = || upstream_lines(&log, "<-", &["notifications/cancelled"]).len();
    wait_until("the session's stream cancelled", TIMEOUT, || cancelled() == 1);
    assert_eq!(updates_from_trigger(&mut client, &log, "new"), 0, "no update sent once it let it go");
    let listens = upstream_lines(&log, "<-", &["subscriptions/listen", "test://watched-resource"]);
    assert_eq!(listens.len(), 1, "not opened again: {listens:?}");
}

/// The pids of the gateway's child processes (its upstreams'), once there are `count`.
fn upstream_pids(gateway: &Server, count: usize) -> Vec<u32> {
    let children = || -> Option<Vec<u32>> {
        let mut pids = Vec::new();
        for task in std::fs::read_dir(format!("/proc/{}/task", gateway.child.id())).ok()? {
            let text = std::fs::read_to_string(task.ok()?.path().join("children")).ok()?;
            pids.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
        Some(pids)
    };
    wait_for("the upstreams' processes", TIMEOUT, || children().filter(|p| p.len() == count))
}

// With a process per session, a session's own process killed is started again on its next
// request, and subscribed again to what the session holds (a new process holds none of the
// last one's subscriptions): the session keeps hearing the updates made there. At 2026-07-28
// its listen stream on the new process names them.
#[test]
fn a_sessions_own_process_started_again_is_subscribed_again_to_what_it_holds() {
    for revisions in ["2025-11-25", "2026-07-28"] {
        let mut own = logged_upstream(revisions);
        own["shared"] = json!(false);
        let (_dir, config) = config_file(&json!({"upstreams": {"own": own}}));
        let gateway = http_gateway(&config, &[]);
        let (uri, trigger) = ("own+test://watched-resource", "own__test_trigger_resource_update");
        let listed = upstream_pid(&gateway);
        let mut client = Client::spawn_http_at(gateway.port);
        client.initialize("2025-11-25", json!({}));
        let subscribed = client.request("resources/subscribe", json!({"uri": uri}));
        assert!(subscribed["result"].is_object(), "{subscribed}");
        hears_update(&mut client, trigger, uri);
        let pids = upstream_pids(&gateway, 2);
        let Some(&own) = pids.iter().find(|&&p| p != listed) else { panic!("its own process: {pids:?}") };
        kill_9(own);
        wait_for("its process started again", COMES_BACK, || {
            let echoed = client.call_tool("own__echo", json!({"message": "back"}));
            (tool_text(&echoed) == "Echo: back").then_some(())
        });
        let pids = upstream_pids(&gateway, 2);
        assert!(pids.contains(&listed) && !pids.contains(&own), "{revisions}: {pids:?} {listed} {own}");
        client.backlog.clear();
        hears_update(&mut client, trigger, uri);
    }
}
