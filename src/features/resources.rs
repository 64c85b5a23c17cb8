//! `resources/*`: descriptors, templates, reading, subscriptions, and the `updated` and
//! `list_changed` notifications. Never names a transport or a thread.

use crate::features::cache::CacheHint;
use crate::features::completer::Completer;
use crate::features::pagination::{self, ListParams};
use crate::server::context::{grants, RequestCx};
use crate::util::uri_template::UriTemplate;
use crate::wire::content::{descriptor_to_wire, to_map, Annotations, Icon, Resource, ResourceContents};
use crate::wire::error::{RpcError, INVALID_PARAMS, RESOURCE_NOT_FOUND};
use crate::wire::protocol::ProtocolVersion;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Reads a resource: the URI and, for templates, the matched variables.
/// An empty list from a template handler means "no such resource".
pub type ReadHandler =
    dyn Fn(&RequestCx, &str, &HashMap<String, String>) -> Result<Vec<ResourceContents>, RpcError> + Send + Sync;
/// Lists resources computed at call time (a directory, say).
pub type ResourceLister = dyn Fn(&RequestCx) -> Vec<Resource> + Send + Sync;

/// A registered resource with a fixed URI. Cloned (sharing the handler) to change its hint.
#[derive(Clone)]
pub(crate) struct ResourceEntry {
    pub resource: Resource,
    pub handler: Arc<ReadHandler>,
    /// The 2026-07-28 cache hint of its reads, over the server-wide one.
    pub cache: Option<CacheHint>,
    /// The `_meta` every contents item it reads carries (an MCP Apps view's `_meta.ui`).
    pub contents_meta: Option<Value>,
}

/// A registered resource template. Cloned (sharing the handlers) to change its hint.
#[derive(Clone)]
pub(crate) struct TemplateEntry {
    pub template: ResourceTemplate,
    pub parsed: UriTemplate,
    pub handler: Arc<ReadHandler>,
    pub completer: Option<Arc<Completer>>,
    /// The 2026-07-28 cache hint of the reads it answers, over the server-wide one.
    pub cache: Option<CacheHint>,
}

/// What `resources/*` read: the registry's resources, listers and templates.
#[derive(Clone, Copy)]
pub(crate) struct Catalog<'a> {
    pub resources: &'a [Arc<ResourceEntry>],
    pub listers: &'a [Arc<ResourceLister>],
    pub templates: &'a [Arc<TemplateEntry>],
}

/// A resource template (RFC 6570), as listed by `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template, e.g. `file:///{+path}`.
    pub uri_template: String,
    /// A short name.
    pub name: String,
    /// A human-readable title (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every match, when they share one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Scopes an access token must grant for the template to be listed, and for the URIs it
    /// matches to be read, subscribed to and completed, when the transport checks scopes (HTTP
    /// under OAuth), as for a tool's `required_scopes`.
    #[serde(skip)]
    pub required_scopes: Vec<String>,
}

impl ResourceTemplate {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            required_scopes: Vec::new(),
        }
    }
    /// Sets the scopes a token must grant to list the template and read what it matches.
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The descriptor as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        descriptor_to_wire(to_map(self), self.annotations.as_ref(), version)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct UriParams {
    #[serde(deserialize_with = "crate::wire::params::uri")]
    pub uri: String,
}

/// The error for a URI that names nothing: `-32002` up to 2025-11-25, `-32602` from 2026-07-28
/// (the revision is [`RequestCx::version`](crate::RequestCx::version)); what a template's read
/// handler answers for a URI it matches but cannot serve.
pub fn resource_not_found(version: ProtocolVersion, uri: &str) -> RpcError {
    let code = if version.is_stateful() { RESOURCE_NOT_FOUND } else { INVALID_PARAMS };
    RpcError::new(code, format!("resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// `resources/list`: the static resources, then those of every dynamic lister. A resource the
/// request's token lacks a scope for is left out.
pub(crate) fn list(cx: &RequestCx, catalog: Catalog, params: ListParams) -> Result<Value, RpcError> {
    let mut all: Vec<Resource> = catalog
        .resources
        .iter()
        .filter(|r| cx.grants(&r.resource.required_scopes))
        .map(|r| r.resource.clone())
        .collect();
    for lister in catalog.listers {
        all.extend(lister(cx).into_iter().filter(|r| cx.grants(&r.required_scopes)));
    }
    pagination::list_result("resources", &all, params.cursor.as_deref(), cx.page_size(), |r| r.to_wire(cx.version()))
}

/// `resources/templates/list`, without the templates the request's token lacks a scope for.
pub(crate) fn list_templates(cx: &RequestCx, catalog: Catalog, params: ListParams) -> Result<Value, RpcError> {
    let to_wire = |t: &Arc<TemplateEntry>| t.template.to_wire(cx.version());
    let cursor = params.cursor.as_deref();
    if catalog.templates.iter().all(|t| cx.grants(&t.template.required_scopes)) {
        return pagination::list_result("resourceTemplates", catalog.templates, cursor, cx.page_size(), to_wire);
    }
    let visible: Vec<Arc<TemplateEntry>> =
        catalog.templates.iter().filter(|t| cx.grants(&t.template.required_scopes)).cloned().collect();
    pagination::list_result("resourceTemplates", &visible, cursor, cx.page_size(), to_wire)
}

/// `resources/read`: an exact static resource first, then the first template that matches.
/// On 2026-07-28 the registration's own cache hint, if it has one, goes on the result (the
/// method table adds the server-wide one otherwise).
pub(crate) fn read(cx: &RequestCx, catalog: Catalog, params: UriParams) -> Result<Value, RpcError> {
    let Read { contents, cache, meta } = read_contents(cx, catalog, &params.uri)?;
    if contents.is_empty() {
        return Err(resource_not_found(cx.version(), &params.uri));
    }
    let contents: Vec<Value> = contents
        .iter()
        .map(|c| {
            let mut wire = c.to_wire();
            if let (Some(meta), true, Value::Object(map)) = (meta, cx.version().has_titles(), &mut wire) {
                map.insert("_meta".into(), meta.clone());
            }
            wire
        })
        .collect();
    let mut result = json!({ "contents": contents });
    if let (Some(hint), false, Value::Object(map)) = (cache, cx.version().is_stateful(), &mut result) {
        hint.apply(map);
    }
    Ok(result)
}

/// What one read through the catalog gave.
struct Read<'c> {
    contents: Vec<ResourceContents>,
    /// The cache hint of the registration that answered.
    cache: Option<CacheHint>,
    /// The `_meta` that registration gives every contents item.
    meta: Option<&'c Value>,
}

/// The scopes a token needs for `uri`: those of its resource, else of the first template
/// matching it (none for a URI nothing registered names).
pub(crate) fn scopes_of<'c>(catalog: Catalog<'c>, uri: &str) -> &'c [String] {
    if let Some(entry) = catalog.resources.iter().find(|r| r.resource.uri == uri) {
        return &entry.resource.required_scopes;
    }
    let template = catalog.templates.iter().find(|t| t.parsed.matches(uri).is_some());
    template.map_or(&[], |t| &t.template.required_scopes)
}

/// Refuses (`-32003`) a URI that needs a scope the request's token lacks (`scopes_of`).
pub(crate) fn check_scopes(granted: Option<&[String]>, catalog: Catalog, uri: &str) -> Result<(), RpcError> {
    let needed = scopes_of(catalog, uri);
    if grants(granted, needed) {
        return Ok(());
    }
    Err(RpcError::insufficient_scope(&format!("the resource {uri}"), needed))
}

/// Reads a URI through the catalog, refused before any handler runs when the token lacks a
/// scope it needs.
fn read_contents<'c>(cx: &RequestCx, catalog: Catalog<'c>, uri: &str) -> Result<Read<'c>, RpcError> {
    check_scopes(cx.granted_scopes(), catalog, uri)?;
    if let Some(entry) = catalog.resources.iter().find(|r| r.resource.uri == uri) {
        let contents = (entry.handler)(cx, uri, &Default::default())?;
        return Ok(Read { contents, cache: entry.cache, meta: entry.contents_meta.as_ref() });
    }
    for entry in catalog.templates {
        if let Some(vars) = entry.parsed.matches(uri) {
            let vars = vars.into_iter().collect();
            match (entry.handler)(cx, uri, &vars) {
                // A template that matches the shape but knows no such resource lets the next one try.
                Ok(contents) if contents.is_empty() => continue,
                other => return Ok(Read { contents: other?, cache: entry.cache, meta: None }),
            }
        }
    }
    Err(resource_not_found(cx.version(), uri))
}

/// `resources/subscribe`: only a URI that resolves to a resource (read once through the
/// catalog, else not found), and at most 1000 per client (the session's cap; beyond, `-32602`).
pub(crate) fn subscribe(cx: &RequestCx, catalog: Catalog, params: UriParams) -> Result<Value, RpcError> {
    if read_contents(cx, catalog, &params.uri)?.contents.is_empty() {
        return Err(resource_not_found(cx.version(), &params.uri));
    }
    cx.session()?.subscribe(&params.uri)?;
    cx.subscribed(&params.uri);
    Ok(json!({}))
}

/// `resources/unsubscribe`.
pub(crate) fn unsubscribe(cx: &RequestCx, params: UriParams) -> Result<Value, RpcError> {
    if cx.session()?.unsubscribe(&params.uri) {
        cx.unsubscribed(&params.uri);
    }
    Ok(json!({}))
}

/// Method of the notification that a subscribed resource changed.
pub(crate) const UPDATED: &str = "notifications/resources/updated";
/// Method of the notification that the resource list changed.
pub(crate) const LIST_CHANGED: &str = "notifications/resources/list_changed";
