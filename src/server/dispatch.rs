//! THE method table's code, for both eras: what the table (`wire::protocol::METHODS`) says of
//! each method is applied here. `early` answers on the reader's thread (a method the revision
//! lacks, `initialize`, the before-initialize gate, `subscriptions/listen`); every other
//! request runs on the pool through `answer` and `dispatch`, one `match` over the method's `Id`
//! whose arms call one feature function each. Params become typed structs here (`parse`,
//! failures are `-32602`). What is enabled comes from `Registry::enabled`, which also decides
//! the advertised capabilities.

use crate::features::cache::CacheHint;
use crate::features::resources::Catalog;
use crate::features::{
    completion, input_required, logging, prompts, resources, tasks_extension, tasks_handshake, tools,
};
use crate::server::context::RequestCx;
use crate::server::lifecycle;
use crate::server::listen::{Filter, Grant};
use crate::server::session::Session;
use crate::server::Server;
use crate::wire::error::RpcError;
use crate::wire::frame::Hint;
use crate::wire::frame::{self, Reply};
use crate::wire::jsonrpc::RequestId;
use crate::wire::jsonrpc::{Method, Notification, Request};
use crate::wire::meta;
use crate::wire::params::Params;
use crate::wire::protocol::{Cache, Gate, Id, ProtocolVersion, Runs};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::SystemTime;

/// What the reader does with a request.
pub(crate) enum Route {
    /// Answered already (a method its row runs on the reader, a method the revision lacks, or
    /// a request the lifecycle does not allow yet).
    Answered(Result<Reply, RpcError>),
    /// Runs on the pool through `answer`.
    Pool,
    /// Opens a `subscriptions/listen` stream with this honoured filter and place under the
    /// server-wide cap (2026-07-28).
    Listen(Grant),
}

/// Where a handler is called, as its row says (`Runs`): on the reader, with the session it may
/// settle (none for a request served alone) and what the request's token granted; or on a
/// worker, with the request's context.
pub(crate) enum On<'a> {
    Reader { session: Option<&'a Session>, scopes: Option<&'a [String]> },
    Pool(&'a RequestCx),
}

/// What a handler produced: a result, or (`subscriptions/listen`) a stream to open.
pub(crate) enum Done {
    Reply(Reply),
    Listen(Grant),
}

/// The reader's part of every request, both eras: before `initialize` only `ping` and
/// `initialize` are allowed (spec lifecycle); a known method its revision lacks is `-32601`
/// (contract §2.1 for the methods 2026-07-28 removed); then the method's row decides: a
/// `Reader` row's handler is called here, through `dispatch` as every other, a `Pool` row's
/// request goes to the pool. `version` is the revision the request is served under: its own on
/// 2026-07-28, the session's in the handshake era (`None` before `initialize`); `scopes` what
/// its token granted, when scopes are checked.
pub(crate) fn early(
    server: &Server,
    session: Option<&Session>,
    req: &Request,
    version: Option<ProtocolVersion>,
    scopes: Option<&[String]>,
) -> Route {
    let spec = req.method.spec();
    if version.is_none() {
        // A method none of the served revisions has is unknown, before the lifecycle's order
        // (`server/discover` to a server pinned to the handshake revisions).
        if let Err(e) = meta::method_served(&req.method, server.options().revisions) {
            return Route::Answered(Err(e));
        }
        if !spec.is_some_and(|s| matches!(s.id, Id::Initialize | Id::Ping)) {
            let why = format!("{} before initialize: send initialize first", req.method);
            return Route::Answered(Err(RpcError::invalid_request(why)));
        }
    }
    let Some(spec) = spec else {
        // A name the table does not know: a registered extension's method, or unknown; the
        // pool's `dispatch` tells which.
        return Route::Pool;
    };
    if version.is_some_and(|v| !spec.exists_in(v)) {
        return Route::Answered(Err(RpcError::method_not_found(&req.method)));
    }
    match spec.runs {
        Runs::Pool => Route::Pool,
        Runs::Reader => match dispatch(server, On::Reader { session, scopes }, version, &req.method, &req.params) {
            Ok(Done::Listen(grant)) => Route::Listen(grant),
            Ok(Done::Reply(reply)) => Route::Answered(Ok(match version {
                Some(v) if !v.is_stateful() => decorate(server, spec.cache, reply),
                _ => reply,
            })),
            Err(e) => Route::Answered(Err(e)),
        },
        // A notification sent as a request.
        Runs::Nowhere => Route::Answered(Err(RpcError::method_not_found(&req.method))),
    }
}

/// The filter a listen stream honours: what it asked for, among what the server offers. A
/// resource or task the token lacks a scope for is refused (`-32003`) as `resources/subscribe`
/// and `tasks/get` refuse it.
fn listen_filter(server: &Server, params: &Value, scopes: Option<&[String]>) -> Result<Filter, RpcError> {
    let asked = match params.get("notifications") {
        Some(Value::Object(asked)) => asked,
        _ => return Err(RpcError::invalid_params("subscriptions/listen: notifications must be an object (a filter)")),
    };
    let on = server.registry().enabled(ProtocolVersion::V2026_07_28);
    let flag = |key: &str| asked.get(key).and_then(Value::as_bool).unwrap_or(false);
    let uris = string_list(asked, "resourceSubscriptions", "URIs")?;
    let task_ids = string_list(asked, "taskIds", "task ids")?;
    // SEP-2663: task notifications asked for without the extension are -32021.
    if !task_ids.is_empty() && !tasks_extension::declared_in(params) {
        return Err(tasks_extension::missing());
    }
    let r = server.registry();
    let catalog = Catalog { resources: &r.resources, listers: &r.listers, templates: &r.templates };
    for uri in &uris {
        resources::check_scopes(scopes, catalog, uri)?;
    }
    for id in &task_ids {
        server.ext_tasks().check_scopes(scopes, id)?;
    }
    Ok(Filter {
        tools_list_changed: on.tools && flag("toolsListChanged"),
        prompts_list_changed: on.prompts && flag("promptsListChanged"),
        resources_list_changed: on.resources && flag("resourcesListChanged"),
        resource_subscriptions: if on.resources { uris } else { Vec::new() },
        task_ids,
    })
}

/// A listen filter's list of strings under `key` (absent or `null`: none), at most
/// `MAX_LISTEN_URIS` long.
fn string_list(asked: &serde_json::Map<String, Value>, key: &str, what: &str) -> Result<Vec<String>, RpcError> {
    match asked.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) if items.len() <= MAX_LISTEN_URIS => {
            Ok(items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        }
        Some(_) => Err(RpcError::invalid_params(format!(
            "subscriptions/listen: {key} must be an array of at most {MAX_LISTEN_URIS} {what}"
        ))),
    }
}

/// Resource URIs (and task ids) one listen stream may name.
const MAX_LISTEN_URIS: usize = 1024;

/// Runs one request on a worker. Up to 2025-11-25 that is `dispatch`. On 2026-07-28 the
/// methods the table marks `input_required` read the client's answers from the request and
/// may end in an `InputRequiredResult`, and every result is decorated (`resultType`, server
/// info, cache hints).
pub(crate) fn answer(cx: &mut RequestCx, server: &Server, method: &Method, params: &Params) -> Result<Reply, RpcError> {
    let spec = method.spec();
    if cx.version().is_stateful() {
        return on_pool(cx, server, method, params);
    }
    // Input-required rounds for a request that answers one, or that a handler could ask
    // something of (`RequestCx::may_ask`); for any other, there is nothing to keep.
    let rounds = || {
        cx.may_ask() || {
            let reserved = params.reserved();
            reserved.input_responses.is_some() || reserved.request_state.is_some()
        }
    };
    let outcome = match spec {
        Some(spec) if spec.input_required && rounds() => {
            let key = server.sealing_key();
            // Read only when a state is opened or sealed: the usual call needs no clock.
            let time = std::cell::OnceCell::new();
            let now = || *time.get_or_init(SystemTime::now);
            cx.inputs = Some(input_required::begin(key, spec, params, now)?);
            let outcome = on_pool(cx, server, method, params);
            input_required::finish(cx, key, spec, params, outcome, now)
        }
        _ => on_pool(cx, server, method, params),
    };
    let cache = match spec {
        Some(spec) => spec.cache,
        // An extension's method: the cache hint its registered row gives.
        None => server.registry().extension_method(method).map_or(Cache::None, |(_, row)| row.cache),
    };
    Ok(decorate(server, cache, outcome?))
}

/// `dispatch` on a worker, whose handlers all end in a result.
fn on_pool(cx: &RequestCx, server: &Server, method: &Method, params: &Params) -> Result<Reply, RpcError> {
    match dispatch(server, On::Pool(cx), Some(cx.version()), method, params)? {
        Done::Reply(reply) => Ok(reply),
        // Invariant: only a `Reader` row's handler opens a stream, and `early` calls it.
        Done::Listen(_) => Err(RpcError::internal()),
    }
}

/// `server/discover` (2026-07-28): the per-request revisions served, the capabilities the
/// method table answers (from the same `enabled`), and the instructions.
fn discover(server: &Server, version: ProtocolVersion) -> Value {
    let mut result = json!({
        "supportedVersions": meta::supported_versions(server.options().revisions),
        "capabilities": server.capabilities(version),
        "ttlMs": 0,
        "cacheScope": "private",
    });
    if let Some(instructions) = server.instructions() {
        result["instructions"] = instructions.into();
    }
    result
}

/// Every 2026-07-28 result: `resultType` (`complete` unless the handler's round needs input),
/// the server's identity in `_meta`, and the cache hint the table gives the method, computed
/// here as data (`Decoration`, one per cache hint, shared by every result of this server) and
/// written alongside the result's own members by its writer.
fn decorate(server: &Server, cache: Cache, result: Reply) -> Reply {
    frame::decorate(server.decoration(cache), result)
}

/// A 2026-07-28 result decorated with the identity `info` of the server that made it (a
/// relayed server's own) and `hint`: what `decorate` does for this server's results.
pub(crate) fn decorate_with(
    info: std::sync::Arc<Box<serde_json::value::RawValue>>,
    hint: Option<CacheHint>,
    result: Reply,
) -> Reply {
    let decoration = crate::wire::frame::Decoration::new(info, hint.map(Hint::from));
    frame::decorate(std::sync::Arc::new(decoration), result)
}

impl From<CacheHint> for Hint {
    fn from(hint: CacheHint) -> Hint {
        Hint { ttl_ms: hint.ttl_ms, scope: hint.scope.as_str() }
    }
}

/// Calls a request's handler where its row says (`on`): the gate its row names (closed:
/// `-32601`, as the capabilities leave it out), then one `match` over the method's `Id` whose
/// arms call one function each. A name the table does not know goes to the extension
/// registered for it (its own row: revisions, cache hint). `version` is `None` only for
/// `initialize` and `ping` before the handshake.
pub(crate) fn dispatch(
    server: &Server,
    on: On<'_>,
    version: Option<ProtocolVersion>,
    method: &Method,
    params: &Params,
) -> Result<Done, RpcError> {
    let r = server.registry();
    let Some(spec) = method.spec() else {
        // Invariant: a name the table does not know reaches here only on the pool, with a version.
        let (On::Pool(cx), Some(version)) = (on, version) else { return Err(RpcError::method_not_found(method)) };
        return match r.extension_method(method) {
            Some((extension, row)) if row.revisions.contains(version) => {
                (extension.handler)(cx, method, params.to_value()).map(|v| Done::Reply(Reply::Value(v)))
            }
            _ => Err(RpcError::method_not_found(method)),
        };
    };
    if version.is_some_and(|v| !spec.exists_in(v)) {
        return Err(RpcError::method_not_found(method));
    }
    let per_request = version.is_some_and(|v| !v.is_stateful());
    // Decided when the registry last changed (`Registry::settle`), read here as data.
    let on_ = version.map(|v| r.enabled[v as usize]);
    let open = match (spec.gate, on_) {
        (Gate::None, _) => true,
        (_, None) => false,
        (Gate::Tools, Some(on)) => on.tools,
        (Gate::Resources, Some(on)) => on.resources,
        (Gate::Prompts, Some(on)) => on.prompts,
        (Gate::Completions, Some(on)) => on.completions,
        // The tasks extension (2026-07-28): only for a request that declared it.
        (Gate::Tasks, Some(_)) if per_request => match on {
            On::Pool(cx) if tasks_extension::opted_in(cx) => true,
            _ => return Err(tasks_extension::missing()),
        },
        (Gate::Tasks, Some(on)) => on.tasks,
    };
    if !open {
        return Err(RpcError::method_not_found(method));
    }
    let reply = |value: Result<Value, RpcError>| value.map(|v| Done::Reply(Reply::Value(v)));
    let (cx, version) = match (on, version) {
        // The handlers a `Reader` row names.
        (On::Reader { session, scopes }, _) => {
            return match spec.id {
                Id::Initialize => reply(initialize(server, session, params)),
                Id::Ping => reply(Ok(json!({}))),
                Id::SubscriptionsListen => listen(server, params, scopes).map(Done::Listen),
                // Invariant: the table runs no other method on the reader.
                _ => Err(RpcError::internal()),
            };
        }
        (On::Pool(cx), Some(version)) => (cx, version),
        // Invariant: the pool runs requests under a settled revision only.
        (On::Pool(_), None) => return Err(RpcError::internal()),
    };
    let on = r.enabled[version as usize];
    let catalog = Catalog { resources: &r.resources, listers: &r.listers, templates: &r.templates };
    let value = match spec.id {
        Id::ToolsList => tools::list(cx, &r.tools, parse(params)?),
        // Its result may come typed (`Reply::Typed`); its arguments move as they are.
        Id::ToolsCall => {
            let reply = tools::call(cx, &r.tools, &r.absent_tools, on.tasks, server.ext_tasks(), params.parse()?);
            return reply.map(Done::Reply);
        }
        Id::ResourcesList => resources::list(cx, catalog, parse(params)?),
        Id::ResourcesTemplatesList => resources::list_templates(cx, catalog, parse(params)?),
        Id::ResourcesRead => resources::read(cx, catalog, parse(params)?),
        Id::ResourcesSubscribe => resources::subscribe(cx, catalog, parse(params)?),
        Id::ResourcesUnsubscribe => resources::unsubscribe(cx, parse(params)?),
        Id::PromptsList => prompts::list(cx, &r.prompts, parse(params)?),
        Id::PromptsGet => prompts::get(cx, &r.prompts, parse(params)?),
        Id::CompletionComplete => completion::complete(cx, &r.prompts, &r.templates, parse(params)?),
        Id::LoggingSetLevel => logging::set_level(cx, parse(params)?),
        Id::TasksGet if per_request => tasks_extension::get(cx, server.ext_tasks(), parse(params)?),
        Id::TasksGet => tasks_handshake::get(cx, parse(params)?),
        Id::TasksUpdate => tasks_extension::update(cx, server.ext_tasks(), parse(params)?),
        Id::TasksCancel if per_request => tasks_extension::cancel(cx, server.ext_tasks(), parse(params)?),
        Id::TasksCancel => tasks_handshake::cancel(cx, parse(params)?),
        Id::TasksResult => tasks_handshake::result(cx, parse(params)?),
        Id::TasksList => tasks_handshake::list(cx, parse(params)?),
        Id::ServerDiscover => Ok(discover(server, version)),
        // Run on the reader (their rows say so), or notifications sent as requests.
        Id::Initialize
        | Id::Ping
        | Id::SubscriptionsListen
        | Id::Initialized
        | Id::Cancelled
        | Id::Progress
        | Id::RootsListChanged => Err(RpcError::method_not_found(method)),
    };
    reply(value)
}

/// `initialize` (on the reader): settles the session. A request served alone is always a
/// 2026-07-28 one, which has no `initialize`.
fn initialize(server: &Server, session: Option<&Session>, params: &Params) -> Result<Value, RpcError> {
    match session {
        Some(session) => lifecycle::initialize(server, session, params.to_value()),
        None => Err(RpcError::method_not_found("initialize")),
    }
}

/// `subscriptions/listen` (on the reader: the stream holds no worker): the filter it honours,
/// and its place under the server-wide cap.
fn listen(server: &Server, params: &Params, scopes: Option<&[String]>) -> Result<Grant, RpcError> {
    let filter = listen_filter(server, &params.to_value(), scopes)?;
    let slot = server.listen_slots().take(server.options().max_listen_streams)?;
    // Its resources are subscribed to as `resources/subscribe` subscribes (the hooks run
    // before the stream is acknowledged), so a gateway or a watcher sees them too.
    for uri in &filter.resource_subscriptions {
        server.subscribed(uri, None);
    }
    Ok(Grant::new(filter, slot))
}

/// Every incoming notification. Spec (JSON-RPC): a notification is never answered.
pub(crate) fn on_notification(session: &Session, n: Notification) {
    match n.method.spec().map(|s| s.id) {
        Some(Id::Initialized) => log::debug!("client initialized"),
        Some(Id::Cancelled) => match cancelled_request(&n.params) {
            Some(id) => {
                if !session.cancel(&id) {
                    log::debug!("cancellation of unknown or finished request {id} ignored");
                }
            }
            None => log::warn!("notifications/cancelled without a valid requestId"),
        },
        Some(Id::RootsListChanged) => log::debug!("client roots changed"),
        _ => log::debug!("notification {} ignored", n.method),
    }
}

/// The one place params become a typed struct.
fn parse<T: DeserializeOwned>(params: &Params) -> Result<T, RpcError> {
    params.parse()
}

/// The id a `notifications/cancelled` names, if it is a valid one.
pub(crate) fn cancelled_request(params: &Params) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct Cancelled {
        #[serde(rename = "requestId")]
        request_id: Value,
    }
    RequestId::from_value(&params.parse::<Cancelled>().ok()?.request_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::cache::CacheScope;
    use crate::server::registry::ExtensionMethod;
    use crate::wire::frame::text_of;
    use crate::wire::frame::{Decoration, SERVER_INFO};
    use crate::wire::jsonrpc::{self, Incoming, Message};
    use crate::wire::protocol::METHODS;
    use crate::wire::{content::CallToolResult, frame::ToolReply};
    use std::sync::Arc;
    use std::time::Duration;

    fn request(method: &str) -> Request {
        let params = json!({"notifications": {}, "protocolVersion": "2025-11-25", "capabilities": {}});
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
        match jsonrpc::parse(&text) {
            Ok(Incoming::Single(Message::Request(req))) => req,
            other => panic!("{other:?}"),
        }
    }

    /// A 2026-07-28 listen stream's `resourceSubscriptions` subscribe as `resources/subscribe`
    /// does: the subscribe hooks run for each URI (a gateway passes it upstream there, a
    /// watcher notes the state to compare with), before the stream opens.
    #[test]
    fn a_listen_streams_resource_subscriptions_run_the_subscribe_hooks() {
        let server = Server::new("t", "1.0");
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let noted = Arc::clone(&seen);
        server.on_subscribe(move |uri| noted.lock().unwrap().push(uri.to_owned()));
        for uri in ["test://a", "test://b"] {
            let resource = crate::Resource::new(uri, uri);
            server.register_resource(resource, |_, uri| Ok(vec![crate::ResourceContents::text(uri, "text/plain", "")]));
        }
        let text = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params":
            {"notifications": {"resourceSubscriptions": ["test://a", "test://b"]}}})
        .to_string();
        let req = match jsonrpc::parse(&text) {
            Ok(Incoming::Single(Message::Request(req))) => req,
            other => panic!("{other:?}"),
        };
        listen(&server, &req.params, None).expect("the stream is granted");
        assert_eq!(*seen.lock().unwrap(), ["test://a", "test://b"]);
    }

    /// What a row says of where its method runs is what happens: a `Pool` row's request goes
    /// to the pool, a `Reader` row's is answered (or its stream opened) on the reader, a
    /// notification sent as a request is refused there.
    #[test]
    fn the_row_decides_where_a_request_runs() {
        let server = Server::new("t", "1.0");
        for spec in METHODS {
            let session = Session::new(crate::server::sink::Sink::channel().0);
            let version = ProtocolVersion::ALL
                .into_iter()
                .rev()
                .find(|v| spec.exists_in(*v))
                .unwrap_or(ProtocolVersion::V2026_07_28);
            let route = early(&server, Some(&session), &request(spec.name), Some(version), None);
            let runs = match route {
                Route::Pool => Runs::Pool,
                Route::Answered(Err(e)) if e.code == crate::wire::error::METHOD_NOT_FOUND => Runs::Nowhere,
                Route::Answered(_) | Route::Listen(_) => Runs::Reader,
            };
            assert_eq!(runs, spec.runs, "{} at {version}", spec.name);
        }
    }

    /// An extension's method is what its registered row says: served in its revisions only,
    /// its 2026-07-28 results carrying its cache hint; the library's table has no row of it.
    #[test]
    fn an_extension_registers_its_own_rows() {
        let server = Arc::new(Server::new("t", "1.0"));
        let newest = "2026-07-28..".parse().unwrap_or(crate::wire::protocol::Revisions::ALL);
        let row = ExtensionMethod::new("notes/list").with_revisions(newest).with_list_cache();
        server.register_extension("example.com/notes", json!({}), &[row], |_, method, _| Ok(json!({ "m": method })));
        assert!(
            crate::wire::protocol::spec("notes/list").is_none() && crate::wire::protocol::spec("skills/list").is_none()
        );
        let wait = Duration::from_secs(5);
        let old = crate::MemoryClient::connect(Arc::clone(&server));
        old.initialize("2025-11-25", json!({}), wait);
        let refused = old.call("notes/list", json!({}), wait).unwrap_or_default();
        assert_eq!(refused["error"]["code"], crate::wire::error::METHOD_NOT_FOUND, "{refused}");
        let new = crate::MemoryClient::connect(Arc::clone(&server));
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
        let answer = new.call("notes/list", json!({ "_meta": meta }), wait).unwrap_or_default();
        assert_eq!(answer["result"]["m"], "notes/list", "{answer}");
        assert_eq!(answer["result"]["ttlMs"], 60_000, "{answer}");
        assert_eq!(answer["result"]["cacheScope"], "public", "{answer}");
    }

    fn written(reply: &Reply) -> Value {
        serde_json::from_str(&text_of(|out| reply.write_to(out))).unwrap_or_default()
    }

    #[test]
    fn a_decorated_result_keeps_its_members_and_meta_and_gains_the_decoration() {
        let mut server = Server::new("t", "1.0");
        server.set_title("T \"quoted\"");
        let info = server.info(ProtocolVersion::V2026_07_28);
        let hint = CacheHint { ttl_ms: 5, scope: CacheScope::Public };
        let cases = [
            (json!({"a": 1}), json!({"_meta": {SERVER_INFO: info}, "a": 1, "resultType": "complete"})),
            (
                json!({"_meta": {"k": 1}, "ttlMs": 9}),
                json!({"_meta": {"k": 1, SERVER_INFO: info}, "resultType": "complete", "ttlMs": 9, "cacheScope": "public"}),
            ),
            (
                json!({"resultType": "input_required"}),
                json!({"_meta": {SERVER_INFO: info}, "resultType": "input_required"}),
            ),
        ];
        for (result, expected) in cases {
            let decoration = Arc::new(Decoration::new(server.latest_info(), Some(hint.into())));
            let decorated = frame::decorate(decoration, Reply::Value(result));
            let mut expected = expected;
            if expected["resultType"] == "complete" {
                expected["ttlMs"] = expected.get("ttlMs").cloned().unwrap_or(5.into());
                expected["cacheScope"] = "public".into();
            }
            assert_eq!(written(&decorated), expected);
        }
        let mut with_meta = CallToolResult::text("m");
        with_meta.meta = Some(json!({"k": 1}));
        let v = ProtocolVersion::V2026_07_28;
        // A tool's result, its decoration written as serialised once (no `_meta` of its own)
        // or merged, is written as its value decorated is, to the byte.
        for result in [CallToolResult::text("Echo: \"_meta\""), CallToolResult::default(), with_meta] {
            for cache in [Cache::None, Cache::List, Cache::Read] {
                let typed = decorate(&server, cache, Reply::Tool(ToolReply(result.clone(), v, None)));
                let value = decorate(&server, cache, Reply::Value(result.to_wire(v)));
                let text = |reply: &Reply| text_of(|out| reply.write_to(out));
                assert_eq!(text(&typed), text(&value));
            }
        }
        let empty = decorate(&server, Cache::None, Reply::Value(json!({})));
        assert_eq!(written(&empty), json!({"_meta": {SERVER_INFO: info}, "resultType": "complete"}));
    }
}
