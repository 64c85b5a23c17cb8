//! MCP authorization (spec `basic/authorization`): an embedded HTTP server whose tokens an
//! embedder's own `TokenVerifier` checks. Protected resource metadata (RFC 9728) without a
//! token, 401 and 403 challenges (RFC 6750 §3), and the token on every request.

use crate::raw_http::{connect, initialize, read_reply, write_request, Reply, ACCEPT_BOTH, JSON};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::BufReader;
use std::sync::Arc;
use tinymcp::{
    CallToolResult, GetPromptResult, Prompt, PromptArgument, Resource, ResourceContents, ResourceTemplate, Tool,
};
use tinymcp_http::{Grant, HttpOptions, HttpServer, OAuth};

const RESOURCE: &str = "https://mcp.example.com/mcp";
const METADATA: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/// An embedded server requiring the scope `mcp:use`; its verifier knows four tokens. Its tool
/// `echo` needs nothing more, `wipe` needs `mcp:admin` too; so do the prompt `secret`, the
/// resource `plans://all` and the template `plans://{name}`, not the resource `notes://open`.
fn protected() -> HttpServer {
    let verifier = |token: &str| match token {
        "full-token" => Ok(Grant::new(["mcp:use", "profile"])),
        "admin-token" => Ok(Grant::new(["mcp:use", "mcp:admin"])),
        "narrow-token" => Ok(Grant::new(["profile"])),
        _ => Err("unknown token".to_owned()),
    };
    let mut oauth = OAuth::new(RESOURCE, "https://auth.example.com", Arc::new(verifier));
    oauth.scopes = vec!["mcp:use".into()];
    let mut options = HttpOptions::default();
    options.access.oauth = Some(oauth);
    let server = Arc::new(tinymcp::Server::new("protected", "1.0.0"));
    let text = |text: &str| Ok(CallToolResult::text(text));
    server.register_tool(Tool::new("echo", "says it back", json!({"type": "object"})), move |_, _| text("echo"));
    let wipe = Tool::new("wipe", "wipes", json!({"type": "object"}))
        .with_required_scopes(["mcp:admin"])
        .with_task_support(tinymcp::TaskSupport::Optional);
    server.register_tool(wipe, move |_, _| text("wiped"));
    let who = PromptArgument::new("who", "whom it is about", false);
    let secret = Prompt::new("secret", "a prompt for admins", vec![who]).with_required_scopes(["mcp:admin"]);
    let names = |_: &tinymcp::RequestCx, _: &tinymcp::CompletionRequest| vec!["alice".to_owned()];
    let completer = |names| Some(Box::new(names) as Box<tinymcp::Completer>);
    server.register_prompt(secret, |_, _| Ok(GetPromptResult::new(Vec::new())), completer(names));
    let read = |_: &tinymcp::RequestCx, uri: &str| -> Result<Vec<ResourceContents>, tinymcp::RpcError> {
        Ok(vec![ResourceContents::text(uri, "text/plain", "read")])
    };
    server.register_resource(Resource::new("notes://open", "open notes"), read);
    server.register_resource(Resource::new("plans://all", "plans").with_required_scopes(["mcp:admin"]), read);
    let plans = ResourceTemplate::new("plans://{name}", "a plan").with_required_scopes(["mcp:admin"]);
    let read_plan = move |cx: &tinymcp::RequestCx, uri: &str, _: &HashMap<String, String>| read(cx, uri);
    server.register_resource_template(plans, read_plan, completer(names)).expect("template");
    HttpServer::start(server, "127.0.0.1:0", options).expect("start")
}

fn send(http: &HttpServer, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let port = http.local_addr().port();
    let mut stream = connect(port);
    write_request(&mut stream, port, method, path, headers, body);
    read_reply(&mut BufReader::new(stream))
}

fn post(http: &HttpServer, headers: &[(&str, &str)], body: &Value) -> Reply {
    let mut all = vec![ACCEPT_BOTH, JSON];
    all.extend_from_slice(headers);
    send(http, "POST", "/mcp", &all, &body.to_string())
}

/// Spec (authorization, discovery): the metadata names the resource and its authorization
/// server, at the path derived from the resource and at the root, and needs no token.
#[test]
fn the_protected_resource_metadata_is_served_without_a_token() {
    let http = protected();
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let reply = send(&http, "GET", path, &[], "");
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        assert_eq!(
            reply.json(),
            json!({"resource": RESOURCE, "authorization_servers": ["https://auth.example.com"],
                   "scopes_supported": ["mcp:use"], "bearer_methods_supported": ["header"]})
        );
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    }
    // Only this resource's path: another is the MCP server's 404 behind the token check.
    assert_eq!(send(&http, "GET", "/.well-known/oauth-protected-resource/other", &[], "").status, 401);
    // Host is checked still: a rebound name gets nothing.
    let rebound = send(&http, "GET", "/.well-known/oauth-protected-resource", &[("Host", "evil.example")], "");
    assert_eq!(rebound.status, 403);
}

/// Spec (authorization, discovery and token handling): no token or an invalid one is a 401
/// whose challenge names the metadata and the scope; an invalid one says `invalid_token`.
#[test]
fn a_missing_or_invalid_token_is_challenged_with_the_metadata_url() {
    let http = protected();
    let missing = post(&http, &[], &initialize(json!({})));
    assert_eq!(missing.status, 401, "{}", missing.body);
    assert_eq!(
        missing.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{METADATA}\", scope=\"mcp:use\"").as_str())
    );
    for wrong in ["Bearer forged-token", "Basic full-token", "Bearer "] {
        let reply = post(&http, &[("Authorization", wrong)], &initialize(json!({})));
        assert_eq!(reply.status, 401, "{wrong}");
        let challenge = reply.header("www-authenticate").unwrap();
        assert!(challenge.starts_with(&format!("Bearer resource_metadata=\"{METADATA}\"")), "{challenge}");
        if wrong == "Bearer forged-token" {
            assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        }
    }
}

/// Spec (authorization, scope challenges): a valid token without the scope is a 403 with
/// `insufficient_scope` and the scope needed.
#[test]
fn a_token_without_the_scope_is_forbidden_with_insufficient_scope() {
    let http = protected();
    let reply = post(&http, &[("Authorization", "Bearer narrow-token")], &initialize(json!({})));
    assert_eq!(reply.status, 403, "{}", reply.body);
    let challenge = reply.header("www-authenticate").unwrap();
    assert!(challenge.contains("error=\"insufficient_scope\""), "{challenge}");
    assert!(challenge.contains("scope=\"mcp:use\""), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"{METADATA}\"")), "{challenge}");
}

/// Spec (authorization, token requirements): the token goes with every request of a session,
/// not only with `initialize`.
#[test]
fn a_valid_token_is_needed_on_every_request() {
    let http = protected();
    let auth = ("Authorization", "Bearer full-token");
    let init = post(&http, &[auth], &initialize(json!({})));
    assert_eq!(init.status, 200, "{}", init.body);
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let id = ("Mcp-Session-Id", session.as_str());
    assert_eq!(post(&http, &[id], &ping).status, 401);
    assert_eq!(post(&http, &[id, ("Authorization", "Bearer narrow-token")], &ping).status, 403);
    let answered = post(&http, &[id, auth], &ping);
    assert_eq!(answered.status, 200, "{}", answered.body);
    // DNS rebinding is refused before the token is looked at, valid or not.
    let rebound = post(&http, &[auth, ("Host", "evil.example")], &initialize(json!({})));
    assert_eq!(rebound.status, 403);
    assert!(rebound.header("www-authenticate").is_none());
}

/// The names `tools/list` gives this token, in a session.
fn tool_names(http: &HttpServer, auth: (&str, &str), session: &str) -> Vec<String> {
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let reply = post(http, &[auth, ("Mcp-Session-Id", session)], &list);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let tools = reply.json()["result"]["tools"].as_array().cloned().unwrap_or_default();
    tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
}

/// Spec (authorization, scope challenges and step-up): a tool needing a scope the token lacks
/// is not listed to it, and a call is a 403 whose challenge names every scope the call needs;
/// a token granting them (the same session, a new token) sees and calls it.
#[test]
fn a_tool_needing_a_scope_is_hidden_and_refused_until_the_token_grants_it() {
    let http = protected();
    let user = ("Authorization", "Bearer full-token");
    let init = post(&http, &[user], &initialize(json!({})));
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&http, &[user, ("Mcp-Session-Id", &session)], &initialized).status, 202);
    assert_eq!(tool_names(&http, user, &session), ["echo"]);
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "wipe"}});
    let refused = post(&http, &[user, ("Mcp-Session-Id", &session)], &call);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            format!(
                "Bearer resource_metadata=\"{METADATA}\", scope=\"mcp:use mcp:admin\", \
                 error=\"insufficient_scope\", error_description=\"the tool wipe needs the scope mcp:admin\""
            )
            .as_str()
        )
    );
    assert_eq!(refused.json()["error"]["code"], -32003, "{}", refused.body);
    assert_eq!(refused.json()["error"]["data"], json!({"scopes": ["mcp:admin"]}));
    // A prompt needing the scope: not listed, and a get is refused the same way.
    let prompts = json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/list"});
    let listed = post(&http, &[user, ("Mcp-Session-Id", &session)], &prompts);
    assert_eq!(listed.json()["result"]["prompts"], json!([]), "{}", listed.body);
    let get = json!({"jsonrpc": "2.0", "id": 6, "method": "prompts/get", "params": {"name": "secret"}});
    let refused = post(&http, &[user, ("Mcp-Session-Id", &session)], &get);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.header("www-authenticate").unwrap().contains("scope=\"mcp:use mcp:admin\""));
    // Step-up: the client comes back with a token granting the scope.
    let admin = ("Authorization", "Bearer admin-token");
    assert_eq!(post(&http, &[admin, ("Mcp-Session-Id", &session)], &get).status, 200);
    assert_eq!(tool_names(&http, admin, &session), ["echo", "wipe"]);
    let called = post(&http, &[admin, ("Mcp-Session-Id", &session)], &call);
    assert_eq!(called.status, 200, "{}", called.body);
    assert_eq!(called.json()["result"]["content"][0]["text"], "wiped");
}

/// One request in a session with this token.
fn rpc(http: &HttpServer, auth: (&str, &str), session: &str, method: &str, params: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    post(http, &[auth, ("Mcp-Session-Id", session)], &body)
}

/// A session opened (and initialized) with this token.
fn session(http: &HttpServer, auth: (&str, &str)) -> String {
    let init = post(http, &[auth], &initialize(json!({})));
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(http, &[auth, ("Mcp-Session-Id", &session)], &initialized).status, 202);
    session
}

/// Asserts a 403 step-up challenge naming `mcp:use mcp:admin` and the JSON-RPC error `-32003`.
fn assert_step_up(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 403, "{what}: {}", reply.body);
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(challenge.contains("error=\"insufficient_scope\""), "{what}: {challenge}");
    assert!(challenge.contains("scope=\"mcp:use mcp:admin\""), "{what}: {challenge}");
    assert_eq!(reply.json()["error"]["code"], -32003, "{what}: {}", reply.body);
}

/// Spec (authorization, scope challenges) applied to resources: a resource or template needing
/// a scope the token lacks is left out of both lists, and reading, subscribing to or
/// completing it is a 403 step-up; a token granting the scope sees and reads them.
#[test]
fn a_resource_needing_a_scope_is_hidden_and_refused_until_the_token_grants_it() {
    let http = protected();
    let user = ("Authorization", "Bearer full-token");
    let session = session(&http, user);
    let listed = rpc(&http, user, &session, "resources/list", json!({}));
    let uris: Vec<String> = listed.json()["result"]["resources"]
        .as_array()
        .map(|all| all.iter().filter_map(|r| r["uri"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert_eq!(uris, ["notes://open"], "{}", listed.body);
    let templates = rpc(&http, user, &session, "resources/templates/list", json!({}));
    assert_eq!(templates.json()["result"]["resourceTemplates"], json!([]), "{}", templates.body);
    let open = rpc(&http, user, &session, "resources/read", json!({"uri": "notes://open"}));
    assert_eq!(open.status, 200, "{}", open.body);
    for (method, params) in [
        ("resources/read", json!({"uri": "plans://all"})),
        ("resources/read", json!({"uri": "plans://q3"})),
        ("resources/subscribe", json!({"uri": "plans://all"})),
        ("resources/subscribe", json!({"uri": "plans://q3"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "plans://{name}"},
                                        "argument": {"name": "name", "value": "a"}}),
        ),
    ] {
        assert_step_up(&rpc(&http, user, &session, method, params.clone()), &format!("{method} {params}"));
    }
    let refused = rpc(&http, user, &session, "resources/read", json!({"uri": "plans://all"}));
    assert!(refused.header("www-authenticate").unwrap().contains("the resource plans://all needs the scope mcp:admin"));
    // Step-up: the same session with a token granting the scope.
    let admin = ("Authorization", "Bearer admin-token");
    let listed = rpc(&http, admin, &session, "resources/list", json!({}));
    assert_eq!(listed.json()["result"]["resources"].as_array().map(Vec::len), Some(2), "{}", listed.body);
    let templates = rpc(&http, admin, &session, "resources/templates/list", json!({}));
    assert_eq!(templates.json()["result"]["resourceTemplates"][0]["uriTemplate"], "plans://{name}");
    for uri in ["plans://all", "plans://q3"] {
        let read = rpc(&http, admin, &session, "resources/read", json!({"uri": uri}));
        assert_eq!(read.json()["result"]["contents"][0]["text"], "read", "{}", read.body);
        assert_eq!(rpc(&http, admin, &session, "resources/subscribe", json!({"uri": uri})).status, 200);
    }
}

/// A prompt hidden by its scopes is not completed either: `completion/complete` of its
/// arguments is refused as `prompts/get` is, so its arguments and values do not leak.
#[test]
fn a_prompt_needing_a_scope_is_not_completed_without_it() {
    let http = protected();
    let user = ("Authorization", "Bearer full-token");
    let session = session(&http, user);
    let complete = json!({"ref": {"type": "ref/prompt", "name": "secret"}, "argument": {"name": "who", "value": "a"}});
    assert_step_up(&rpc(&http, user, &session, "completion/complete", complete.clone()), "completion of secret");
    let admin = ("Authorization", "Bearer admin-token");
    let completed = rpc(&http, admin, &session, "completion/complete", complete);
    assert_eq!(completed.json()["result"]["completion"]["values"], json!(["alice"]), "{}", completed.body);
}

/// A task keeps the scopes of the tool it runs: a later request of the same session whose token
/// lacks them does not see it in `tasks/list` and gets a 403 step-up for its status and result.
#[test]
fn a_task_of_a_scoped_tool_is_hidden_from_a_token_without_the_scope() {
    let http = protected();
    let (user, admin) = (("Authorization", "Bearer full-token"), ("Authorization", "Bearer admin-token"));
    let session = session(&http, admin);
    let created = rpc(&http, admin, &session, "tools/call", json!({"name": "wipe", "task": {}}));
    let id = created.json()["result"]["task"]["taskId"].as_str().map(str::to_owned).expect(&created.body);
    let listed = rpc(&http, user, &session, "tasks/list", json!({}));
    assert_eq!(listed.json()["result"]["tasks"], json!([]), "{}", listed.body);
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        assert_step_up(&rpc(&http, user, &session, method, json!({"taskId": id})), method);
    }
    let result = rpc(&http, admin, &session, "tasks/result", json!({"taskId": id}));
    assert_eq!(result.json()["result"]["content"][0]["text"], "wiped", "{}", result.body);
    let listed = rpc(&http, admin, &session, "tasks/list", json!({}));
    assert_eq!(listed.json()["result"]["tasks"][0]["taskId"], id.as_str(), "{}", listed.body);
}

/// The same gate on revision 2026-07-28, where each POST stands alone.
#[test]
fn a_tool_needing_a_scope_is_refused_per_request_too() {
    let http = protected();
    let meta = crate::stateless::meta(json!({}));
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "wipe", "arguments": {}, "_meta": meta}});
    let headers = |token| {
        [
            ("Authorization", token),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "wipe"),
        ]
    };
    let refused = post(&http, &headers("Bearer full-token"), &call);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.header("www-authenticate").unwrap().contains("scope=\"mcp:use mcp:admin\""));
    let called = post(&http, &headers("Bearer admin-token"), &call);
    assert_eq!(called.status, 200, "{}", called.body);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}});
    let listed = post(
        &http,
        &[("Authorization", "Bearer full-token"), ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")],
        &list,
    );
    let tools = listed.json()["result"]["tools"].clone();
    let names: Vec<&str> = tools.as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["echo"], "{}", listed.body);
}

/// On 2026-07-28 too (the tasks extension): a task of a scoped tool is refused to a token without
/// its scopes, at `tasks/get` and for a listen stream naming it.
#[test]
fn a_task_of_a_scoped_tool_is_refused_per_request_too() {
    let http = protected();
    let meta = crate::stateless::meta(crate::tasks_ext::with_ext());
    let send = |token: &str, method: &str, name: (&str, &str), params: Value| {
        let mut params = params;
        params["_meta"] = meta.clone();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let headers = [("Authorization", token), ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method), name];
        post(&http, &headers, &body)
    };
    let created = send("Bearer admin-token", "tools/call", ("Mcp-Name", "wipe"), json!({"name": "wipe"}));
    let id = created.json()["result"]["taskId"].as_str().map(str::to_owned).expect(&created.body);
    let get = json!({"taskId": id});
    assert_step_up(&send("Bearer full-token", "tasks/get", ("Mcp-Name", &id), get.clone()), "tasks/get");
    let listen = json!({"notifications": {"taskIds": [id]}});
    let refused = send("Bearer full-token", "subscriptions/listen", ("X-Unused", "1"), listen);
    assert_step_up(&refused, "a listen stream naming the task");
    let got = send("Bearer admin-token", "tasks/get", ("Mcp-Name", &id), get);
    assert_eq!(got.status, 200, "{}", got.body);
}

/// A 2026-07-28 listen stream naming a resource the token may not read is refused as
/// `resources/subscribe` is, so its updates do not reach that token.
#[test]
fn a_listen_stream_naming_a_hidden_resource_is_refused() {
    let http = protected();
    let meta = crate::stateless::meta(json!({}));
    for uri in ["plans://all", "plans://q3"] {
        let notifications = json!({"resourceSubscriptions": [uri]});
        let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                            "params": {"notifications": notifications, "_meta": meta}});
        let headers = [
            ("Authorization", "Bearer full-token"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "subscriptions/listen"),
        ];
        assert_step_up(&post(&http, &headers, &listen), uri);
    }
}

/// OAuth and a static token exclude each other; a resource that is no URL is refused at start.
#[test]
fn settings_that_cannot_be_served_refuse_to_start() {
    let verifier = Arc::new(|_: &str| Ok(Grant::default()));
    let start = |oauth: OAuth, token: Option<&str>| {
        let mut options = HttpOptions::default();
        options.access.oauth = Some(oauth);
        options.access.token = token.map(str::to_owned);
        let server = Arc::new(tinymcp::Server::new("protected", "1.0.0"));
        HttpServer::start(server, "127.0.0.1:0", options).err().map(|e| e.to_string())
    };
    let both = start(OAuth::new(RESOURCE, "https://auth.example.com", verifier.clone()), Some("0123456789abcdef0"));
    assert!(both.is_some_and(|e| e.contains("choose one")));
    let no_url = start(OAuth::new("mcp.example.com", "https://auth.example.com", verifier), None);
    assert!(no_url.is_some_and(|e| e.contains("--public-url")));
}

/// A build without the `oauth` feature says so rather than serving without the check asked for.
#[cfg(not(feature = "oauth"))]
#[test]
fn without_the_oauth_feature_the_flags_refuse_to_start() {
    let args = ["--everything", "--http", "127.0.0.1:0", "--oauth-issuer", "https://auth.example.com"];
    let out = crate::support::run_binary(&[&args[..], &["--public-url", RESOURCE]].concat());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`oauth` feature"), "{stderr}");
}
