//! The gateway's catalogue: each upstream's tools (allowed, not denied, renamed and described
//! as the config says) under `NAME__tool`, its prompts the same way, its resources and
//! templates under `NAME+URI`, registered on the gateway's `Server` with handlers that forward
//! to the upstream; taken out again when it goes down. The library lists them, pages them
//! and shapes them for each client's revision.

use super::upstream::{Listing, Upstream};
use super::{link, wire, Gateway};
use serde_json::{json, Value};
use std::sync::{Arc, PoisonError};
use std::time::Duration;
use tinymcp::{CompletionRequest, RequestCx, ResourceContents, RpcError, Tool};

/// How long a completion may take upstream: a user types meanwhile.
const COMPLETE_WITHIN: Duration = Duration::from_secs(10);

/// A tool as the gateway offers it.
#[derive(Clone)]
pub struct Entry {
    pub tool: Tool,
    pub upstream: Arc<Upstream>,
    /// Its name upstream.
    pub original: String,
}

/// The names and URIs an upstream has registered, to take out when it goes down.
#[derive(Default)]
pub struct Registered {
    prompts: Vec<String>,
    resources: Vec<String>,
    templates: Vec<String>,
}

/// Whether `name` is a tool name clients accept (SEP-986: 1 to 128 of `A-Za-z0-9_-.`).
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The upstream's tools as the gateway offers them.
pub fn tools(gateway: &Gateway, upstream: &Arc<Upstream>, listed: &[Value]) -> Vec<Entry> {
    let rules = &upstream.config.tools;
    let mut entries = Vec::new();
    for value in listed {
        let Some(mut tool) = wire::tool(value) else { continue };
        let original = tool.name.clone();
        if !rules.offers(&original) {
            continue;
        }
        let changed = rules.override_of(&original);
        let local = changed.and_then(|o| o.rename.as_deref()).unwrap_or(&original);
        tool.name = format!("{}{}{local}", upstream.name(), gateway.separator);
        if !valid_tool_name(&tool.name) {
            log::warn!(
                "upstream {}: the tool {original:?} is left out: {:?} is not a valid tool name",
                upstream.name(),
                tool.name
            );
            continue;
        }
        if entries.iter().any(|e: &Entry| e.tool.name == tool.name) {
            log::warn!("upstream {}: two tools would be {:?}; the second is left out", upstream.name(), tool.name);
            continue;
        }
        tool.required_scopes = upstream.config.scopes.clone();
        if let Some(changed) = changed {
            tool.required_scopes.extend(changed.scopes.iter().cloned());
            if let Some(description) = &changed.description {
                tool.description = Some(description.clone());
            }
            if let Some(annotations) = &changed.annotations {
                let mut merged = serde_json::to_value(&tool.annotations).ok().and_then(|v| v.as_object().cloned());
                let merged = merged.get_or_insert_with(Default::default);
                merged.extend(annotations.clone());
                tool.annotations = Some(wire::tool_annotations(merged));
            }
        }
        entries.push(Entry { tool, upstream: Arc::clone(upstream), original });
    }
    entries
}

/// Registers what `upstream` listed, replacing what it had registered before.
pub fn register(gateway: &Arc<Gateway>, upstream: &Arc<Upstream>, listing: Listing) {
    let server = &gateway.server;
    let name = upstream.name().to_owned();
    let entries = tools(gateway, upstream, &listing.tools);
    let before = gateway.replace_entries(upstream, entries.clone());
    if !gateway.discovery {
        for gone in before.iter().filter(|b| !entries.iter().any(|e| &e.tool.name == *b)) {
            server.remove_tool(gone);
        }
        for entry in entries {
            let (gw, exposed) = (Arc::clone(gateway), entry.tool.name.clone());
            let (up, original) = (Arc::clone(&entry.upstream), entry.original.clone());
            server
                .register_tool(entry.tool, move |cx, arguments| gw.call_tool(cx, &up, &original, &exposed, arguments));
        }
    }
    let mut registered = upstream.registered.lock().unwrap_or_else(PoisonError::into_inner);
    // Prompts: `NAME__prompt`.
    let mut prompts = Vec::new();
    for value in &listing.prompts {
        let Some(original) = value.get("name").and_then(Value::as_str).map(str::to_owned) else { continue };
        let exposed = format!("{name}{}{original}", gateway.separator);
        let prompt = wire::prompt(value, exposed.clone()).with_required_scopes(upstream.config.scopes.clone());
        let (up, asked) = (Arc::clone(upstream), original.clone());
        let (up2, completed) = (Arc::clone(upstream), original.clone());
        server.register_prompt(
            prompt,
            move |cx, arguments| {
                let params = json!({"name": asked, "arguments": arguments});
                forward(&up, cx, "prompts/get", params).map(|v| wire::prompt_result(&v, up.name()))
            },
            Some(Box::new(move |cx, request| {
                complete(&up2, cx, json!({"type": "ref/prompt", "name": completed}), request)
            })),
        );
        prompts.push(exposed);
    }
    for gone in registered.prompts.iter().filter(|p| !prompts.contains(p)) {
        server.remove_prompt(gone);
    }
    registered.prompts = prompts;
    // Resources: `NAME+URI`, read back through the upstream.
    let mut resources = Vec::new();
    for value in &listing.resources {
        let Some(mut resource) = wire::resource(value, &name) else { continue };
        resource.required_scopes = upstream.config.scopes.clone();
        let uri = resource.uri.clone();
        let up = Arc::clone(upstream);
        server.register_resource(resource, move |cx, uri| read(&up, cx, uri));
        resources.push(uri);
    }
    for gone in registered.resources.iter().filter(|r| !resources.contains(r)) {
        server.remove_resource(gone);
    }
    registered.resources = resources;
    for value in &listing.templates {
        let Some(mut template) = wire::template(value, &name) else { continue };
        template.required_scopes = upstream.config.scopes.clone();
        let own = value.get("uriTemplate").and_then(Value::as_str).unwrap_or_default().to_owned();
        let uri_template = template.uri_template.clone();
        let (up, up2) = (Arc::clone(upstream), Arc::clone(upstream));
        let registered_ok = server.register_resource_template(
            template,
            move |cx, uri, _| read(&up, cx, uri),
            Some(Box::new(move |cx, request| complete(&up2, cx, json!({"type": "ref/resource", "uri": own}), request))),
        );
        match registered_ok {
            Ok(()) => registered.templates.push(uri_template),
            Err(e) => log::warn!("upstream {name}: the template {uri_template:?} is left out: {e}"),
        }
    }
    registered.templates.sort();
    registered.templates.dedup();
}

/// Takes out what `upstream` registered: its tools and prompts are refused naming it, its
/// resources are unknown; its templates (which the library cannot take out) answer that it
/// is down.
pub fn unregister(gateway: &Gateway, upstream: &Upstream) {
    let why = format!(
        "upstream {} is unavailable ({}); the gateway retries it and lists its tools again once it answers",
        upstream.name(),
        match upstream.status() {
            super::upstream::Status::Down(why) => why,
            _ => "down".into(),
        }
    );
    let server = &gateway.server;
    for name in gateway.take_entries(upstream) {
        if !gateway.discovery {
            server.remove_tool(&name);
            server.explain_absent_tool(name, why.clone());
        }
    }
    let mut registered = upstream.registered.lock().unwrap_or_else(PoisonError::into_inner);
    for prompt in registered.prompts.drain(..) {
        server.remove_prompt(&prompt);
    }
    for resource in registered.resources.drain(..) {
        server.remove_resource(&resource);
    }
}

/// A request forwarded to the upstream on behalf of `cx`.
fn forward(upstream: &Arc<Upstream>, cx: &RequestCx, method: &str, params: Value) -> Result<Value, RpcError> {
    let link = upstream.link_for(cx).map_err(|why| link::down(upstream.name(), &why))?;
    link.request(method, params, Some(cx), upstream.config.timeout)
}

/// `resources/read` of a prefixed URI, through its upstream.
fn read(upstream: &Arc<Upstream>, cx: &RequestCx, uri: &str) -> Result<Vec<ResourceContents>, RpcError> {
    let own = wire::strip_uri(upstream.name(), uri).ok_or_else(|| tinymcp::resource_not_found(cx.version(), uri))?;
    let answer = forward(upstream, cx, "resources/read", json!({"uri": own}))?;
    let contents = answer.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    Ok(contents.iter().filter_map(|c| wire::contents(c, upstream.name())).collect())
}

/// `completion/complete` of a prompt's argument or a template's variable, through its upstream;
/// nothing when it cannot say.
fn complete(upstream: &Arc<Upstream>, cx: &RequestCx, reference: Value, request: &CompletionRequest) -> Vec<String> {
    let Ok(link) = upstream.link_for(cx) else { return Vec::new() };
    let mut params = json!({"ref": reference, "argument": {"name": request.argument, "value": request.value}});
    if !request.context.is_empty() {
        params["context"] = json!({"arguments": request.context});
    }
    match link.request("completion/complete", params, Some(cx), COMPLETE_WITHIN.min(upstream.config.timeout)) {
        Ok(answer) => answer
            .pointer("/completion/values")
            .and_then(Value::as_array)
            .map(|values| values.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        Err(e) => {
            log::debug!("upstream {}: completion/complete: {}", upstream.name(), e.message);
            Vec::new()
        }
    }
}
