//! `tinymcp gateway --config gateway.json`: one MCP endpoint in front of many upstream servers
//! (stdio commands, remote servers over Streamable HTTP, https included). The gateway is a
//! `tinymcp::Server` built through the library's public API: each upstream's tools, prompts,
//! resources and templates are registered on it under the upstream's name, with handlers that
//! forward to the upstream (`catalogue.rs`); served over HTTP (Streamable and legacy SSE, the
//! server's flags and checks) or stdio, so every revision is served to clients whatever each
//! upstream speaks. Each upstream has a supervisor thread (`upstream.rs`): connected, listed,
//! pinged, taken out when it goes down and tried again with back-off; spoken to through a
//! small synchronous client (`link.rs`, over `stdio.rs` or `http.rs`).

mod audit;
mod catalogue;
mod config;
mod discovery;
mod http;
mod legacy;
mod link;
mod stdio;
mod upstream;
mod wire;

use crate::cli::connect::auth::{ClientCredentials, Credentials, Secret};
use crate::cli::connect::http1::{self, Connector, Url};
use crate::cli::flags::{Arg, Flags};
use crate::cli::options::{parse_args, Args, Parsed};
use audit::{Audit, Record};
use catalogue::Entry;
use serde_json::{json, Value};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};
use tinymcp::{CallToolResult, RequestCx, RpcError, Server};
use upstream::{Status, Upstream};

/// Variables every command upstream gets from our environment when set; others only with
/// `--pass-env` or its own `env`.
const BASE_ENV: [&str; 2] = ["PATH", "HOME"];
/// How long the start waits for every upstream's first attempt, so the first list is whole.
const FIRST_ATTEMPT_WITHIN: Duration = Duration::from_secs(30);

/// The gateway: its server, its upstreams and the catalogue of their tools.
pub struct Gateway {
    pub server: Arc<Server>,
    pub separator: String,
    pub discovery: bool,
    audit: Option<Audit>,
    upstreams: Vec<Arc<Upstream>>,
    /// Every tool offered, in the upstreams' order (discovery searches it, sizes count it).
    entries: RwLock<Vec<Entry>>,
}

impl Gateway {
    /// Tells every client that the lists changed (an upstream came, went or changed its own).
    pub fn list_changed(&self) {
        if !self.discovery {
            self.server.notify_tool_list_changed();
        }
        self.server.notify_prompt_list_changed();
        self.server.notify_resource_list_changed();
    }

    /// Puts `entries` in place of `upstream`'s; the names it had.
    fn replace_entries(&self, upstream: &Arc<Upstream>, entries: Vec<Entry>) -> Vec<String> {
        let mut all = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        let before = all.iter().filter(|e| Arc::ptr_eq(&e.upstream, upstream)).map(|e| e.tool.name.clone()).collect();
        all.retain(|e| !Arc::ptr_eq(&e.upstream, upstream));
        all.extend(entries);
        let order = |e: &Entry| self.upstreams.iter().position(|u| Arc::ptr_eq(u, &e.upstream));
        all.sort_by_key(order);
        before
    }

    /// Takes `upstream`'s tools out; their names.
    fn take_entries(&self, upstream: &Upstream) -> Vec<String> {
        let mut all = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        let names = all.iter().filter(|e| std::ptr::eq(&*e.upstream, upstream)).map(|e| e.tool.name.clone()).collect();
        all.retain(|e| !std::ptr::eq(&*e.upstream, upstream));
        names
    }

    fn entries(&self) -> Vec<Entry> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn entry(&self, name: &str) -> Option<Entry> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner).iter().find(|e| e.tool.name == name).cloned()
    }

    /// A tool call forwarded to its upstream, audited.
    pub fn call_tool(
        &self,
        cx: &RequestCx,
        upstream: &Arc<Upstream>,
        original: &str,
        exposed: &str,
        arguments: Value,
    ) -> Result<CallToolResult, RpcError> {
        let started = Instant::now();
        let bytes_in = arguments.to_string().len();
        let kept = (self.audit.is_some() && upstream.config.audit_payloads).then(|| arguments.clone());
        let params = json!({"name": original, "arguments": arguments});
        let answer = match upstream.link_for(cx) {
            Ok(link) => link.request("tools/call", params, Some(cx), upstream.config.timeout),
            Err(why) => Err(link::down(upstream.name(), &why)),
        };
        if let Some(audit) = &self.audit {
            let (outcome, out) = match &answer {
                Ok(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => {
                    ("tool_error", result.clone())
                }
                Ok(result) => ("ok", result.clone()),
                Err(e) => ("error", json!({"code": e.code, "message": e.message})),
            };
            let outcome = match () {
                () if cx.is_cancelled() => "cancelled",
                // 2026-07-28: answered with an input-required round (its error is not the answer).
                () if cx.input_pending() => "input_required",
                () => outcome,
            };
            audit.record(&Record {
                caller: caller(cx),
                upstream: upstream.name(),
                tool: original,
                exposed,
                took: started.elapsed(),
                outcome,
                bytes_in,
                bytes_out: out.to_string().len(),
                payloads: kept.as_ref().map(|arguments| (arguments, out.clone())),
            });
        }
        answer.map(|result| wire::call_result(&result, upstream.name()))
    }

    /// What `/healthz` says of the upstreams and the tool list.
    fn health(&self) -> String {
        let entries = self.entries();
        let mut body = String::new();
        for upstream in &self.upstreams {
            let tools = entries.iter().filter(|e| Arc::ptr_eq(&e.upstream, upstream)).count();
            let line = match upstream.status() {
                Status::Up => match upstream.session_processes() {
                    Some(n) => format!("upstream {}: up, {tools} tools, {n} processes for sessions\n", upstream.name()),
                    None => format!("upstream {}: up, {tools} tools\n", upstream.name()),
                },
                Status::Starting => format!("upstream {}: starting\n", upstream.name()),
                Status::Down(why) => format!("upstream {}: down: {why}\n", upstream.name()),
            };
            body.push_str(&line);
        }
        body.push_str(&self.size_line(&entries));
        body.push('\n');
        body
    }

    /// The size of the tool list a client gets: tools and bytes (and, in discovery mode, of
    /// the catalogue behind its two tools).
    fn size_line(&self, entries: &[Entry]) -> String {
        let bytes = |tools: &[&tinymcp::Tool]| json!({"tools": tools}).to_string().len();
        let catalogue: Vec<&tinymcp::Tool> = entries.iter().map(|e| &e.tool).collect();
        if self.discovery {
            return format!(
                "tool list: 2 tools (discovery), over a catalogue of {} tools, {} bytes",
                catalogue.len(),
                bytes(&catalogue)
            );
        }
        format!("tool list: {} tools, {} bytes", catalogue.len(), bytes(&catalogue))
    }
}

/// Who called, for the audit log: the subject of the caller's verified token (under OAuth),
/// else `anonymous` (stdio, a static token, a token that names no one).
fn caller(cx: &RequestCx) -> &str {
    cx.subject().unwrap_or("anonymous")
}

/// Parses the command line, starts the upstreams and serves until the end.
pub fn run(raw: impl Iterator<Item = String>) -> Result<(), String> {
    let mut flags = Flags::new(raw);
    let (mut config_file, mut ca_file, mut pass, mut rest) = (None, None, Vec::new(), Vec::new());
    while let Some(arg) = flags.next()? {
        match &arg {
            Arg::Flag(flag) if flag == "--config" => config_file = Some(flags.value_named("--config", "a file")?),
            Arg::Flag(flag) if flag == "--ca-file" => ca_file = Some(flags.value_named("--ca-file", "a PEM file")?),
            Arg::Flag(flag) if flag == "--pass-env" => {
                let name = flags.value_named("--pass-env", "a variable name")?;
                crate::cli::secret::refuse_secret_variable(&name)?;
                pass.push(name);
            }
            _ => flags.pass(arg, &mut rest)?,
        }
    }
    let file = config_file.ok_or("gateway needs --config FILE (see tinymcp gateway --help)")?;
    let args = match parse_args(rest)? {
        Parsed::Run(args) => *args,
        _ => return Err("expected the gateway's flags and the server's protocol and HTTP options".into()),
    };
    if args.everything || args.manifest.is_some() || !args.roots.is_empty() || args.skills.is_some() {
        return Err("the gateway serves its upstreams only: --everything, --root, --manifest and --skills do not apply (run them as upstreams)".into());
    }
    let env: Vec<(String, String)> = BASE_ENV
        .iter()
        .map(|name| name.to_string())
        .chain(pass)
        .filter_map(|name| std::env::var(&name).ok().map(|value| (name, value)))
        .collect();
    let config = config::read(&file, &env)?;
    let audit = config.audit.as_deref().map(Audit::open).transpose()?;
    let mut server = Server::with_options("tinymcp-gateway", env!("CARGO_PKG_VERSION"), crate::server_options(&args));
    if let Some(file) = &args.state_key_file {
        crate::cli::secret::warn_if_exposed(file, "state key file");
        server.set_state_key_file(file).map_err(|e| e.to_string())?;
    }
    if let Some(id) = &args.node_id {
        server.set_node_id(id).map_err(|e| e.to_string())?;
    }
    let server = Arc::new(server);
    let mut upstreams = Vec::new();
    for upstream in config.upstreams {
        let url = match &upstream.how {
            config::How::Url { url, headers, oauth, .. } => {
                let at = format!("upstreams.{}", upstream.name);
                let connector =
                    Connector::new(http1::CONNECT_TIMEOUT, ca_file.as_deref()).map_err(|e| format!("{at}: {e}"))?;
                let url = Url::parse(url, &connector).map_err(|e| format!("{at}.url: {e}"))?;
                let headers = headers
                    .iter()
                    .map(|h| crate::cli::connect::header(h, |name| std::env::var(name).ok()))
                    .map(|h| h.map(|(name, value)| (name, Secret::new(value))))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("{at}.headers: {}", e.trim_start_matches("--header ")))?;
                // The secret is read now: a variable not set is refused before anything starts.
                let oauth = match oauth {
                    Some(client) => {
                        let var = &client.secret_var;
                        let secret = Secret::from_env(var, &format!("{at}.oauth.client_secret_env"))?;
                        Some(ClientCredentials {
                            client_id: client.client_id.clone(),
                            secret,
                            secret_var: var.clone(),
                            scope: client.scope.clone(),
                        })
                    }
                    None => None,
                };
                Some((url, Credentials::new(headers, oauth)))
            }
            config::How::Command { .. } => None,
        };
        upstreams.push(Upstream::new(upstream, url, args.http.is_some()));
    }
    let gateway = Arc::new(Gateway {
        server: Arc::clone(&server),
        separator: config.separator,
        discovery: config.discovery,
        audit,
        upstreams,
        entries: RwLock::new(Vec::new()),
    });
    if gateway.discovery {
        discovery::register(&gateway);
    }
    let subscribed = Arc::clone(&gateway);
    server.on_subscribe_from(move |uri, by| {
        for upstream in &subscribed.upstreams {
            if let Some(own) = wire::strip_uri(upstream.name(), uri) {
                upstream.subscribe(own, by);
            }
        }
    });
    // Its last subscriber downstream gone, the upstream's subscription ends too.
    let unsubscribed = Arc::clone(&gateway);
    server.on_unsubscribe_from(move |uri, by| {
        let last = !unsubscribed.server.has_subscribers(uri);
        for upstream in &unsubscribed.upstreams {
            if let Some(own) = wire::strip_uri(upstream.name(), uri) {
                upstream.unsubscribe(own, last, by);
            }
        }
    });
    for upstream in &gateway.upstreams {
        upstream.supervise(&gateway).map_err(|e| format!("cannot start a thread: {e}"))?;
    }
    let deadline = Instant::now() + FIRST_ATTEMPT_WITHIN;
    for upstream in &gateway.upstreams {
        upstream.wait_first_attempt(deadline);
    }
    let entries = gateway.entries();
    let per: Vec<String> = gateway
        .upstreams
        .iter()
        .map(|u| format!("{} {}", u.name(), entries.iter().filter(|e| Arc::ptr_eq(&e.upstream, u)).count()))
        .collect();
    // Shown by default, as the listener's own line is.
    log::info!(target: "tinymcp::listening", "gateway: {} ({})", gateway.size_line(&entries), per.join(", "));
    serve(gateway, &args)
}

fn serve(gateway: Arc<Gateway>, args: &Args) -> Result<(), String> {
    crate::start_metrics(args).map_err(|e| e.to_string())?;
    crate::start_otlp(args).map_err(|e| e.to_string())?;
    let server = Arc::clone(&gateway.server);
    let drain = Duration::from_secs(args.drain_secs as u64);
    let served = match &args.http {
        Some(addr) => {
            let health = Arc::clone(&gateway);
            crate::serve_http_with(server, args, addr, drain, Some(Arc::new(move || health.health())))
        }
        None => crate::serve_stdio(server, drain),
    };
    // The upstreams end with the gateway: their processes (in trees of their own) are ended,
    // their sessions closed.
    for upstream in &gateway.upstreams {
        upstream.end();
    }
    served.map_err(|e| e.to_string())
}
