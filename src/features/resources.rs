//! `resources/*`: descriptors, templates, reading, subscriptions, and the `updated` and
//! `list_changed` notifications. Never names a transport or a thread.

use crate::features::content::{to_map, Annotations, Icon, ResourceContents};
use crate::features::pagination;
use crate::features::tools::{with_cursor, ListParams};
use crate::server::context::RequestCx;
use crate::server::Registry;
use crate::wire::jsonrpc::{RpcError, INVALID_PARAMS, RESOURCE_NOT_FOUND};
use crate::wire::version::ProtocolVersion;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A resource descriptor, as listed by `resources/list` or sent as a resource link.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// A human-readable title (2025-06-18 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Extra metadata (2025-06-18 and later).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
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
    /// Sets the size.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// The descriptor as the given revision knows it.
    pub fn to_wire(&self, version: ProtocolVersion) -> Value {
        descriptor_to_wire(to_map(self), self.annotations.as_ref(), version)
    }
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
        }
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

fn descriptor_to_wire(
    mut map: serde_json::Map<String, Value>,
    annotations: Option<&Annotations>,
    version: ProtocolVersion,
) -> Value {
    if !version.has_structured() {
        map.remove("title");
        map.remove("_meta");
    }
    if !version.has_icons() {
        map.remove("icons");
    }
    match annotations.and_then(|a| a.to_wire(version)) {
        Some(a) => map.insert("annotations".into(), a),
        None => map.remove("annotations"),
    };
    Value::Object(map)
}

#[derive(Debug, Deserialize)]
pub(crate) struct UriParams {
    pub uri: String,
}

/// The error for a URI that names nothing: `-32002` up to 2025-11-25, `-32602` from 2026-07-28.
pub fn not_found(version: ProtocolVersion, uri: &str) -> RpcError {
    let code = if version.is_stateful() { RESOURCE_NOT_FOUND } else { INVALID_PARAMS };
    RpcError::new(code, format!("resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// `resources/list`: the static resources, then those of every dynamic lister.
pub(crate) fn list(cx: &RequestCx, registry: &Registry, params: ListParams) -> Result<Value, RpcError> {
    let mut all: Vec<Resource> = registry.resources.iter().map(|r| r.resource.clone()).collect();
    for lister in &registry.listers {
        all.extend(lister(cx));
    }
    let (page, next) = pagination::page(&all, params.cursor.as_deref(), cx.page_size())
        .map_err(|e| RpcError::invalid_params(e.to_string()))?;
    let resources: Vec<Value> = page.iter().map(|r| r.to_wire(cx.version())).collect();
    Ok(with_cursor(json!({ "resources": resources }), next))
}

/// `resources/templates/list`.
pub(crate) fn list_templates(cx: &RequestCx, registry: &Registry, params: ListParams) -> Result<Value, RpcError> {
    let (page, next) = pagination::page(&registry.templates, params.cursor.as_deref(), cx.page_size())
        .map_err(|e| RpcError::invalid_params(e.to_string()))?;
    let templates: Vec<Value> = page.iter().map(|t| t.template.to_wire(cx.version())).collect();
    Ok(with_cursor(json!({ "resourceTemplates": templates }), next))
}

/// `resources/read`: an exact static resource first, then the first template that matches.
pub(crate) fn read(cx: &RequestCx, registry: &Registry, params: UriParams) -> Result<Value, RpcError> {
    let contents = read_contents(cx, registry, &params.uri)?;
    if contents.is_empty() {
        return Err(not_found(cx.version(), &params.uri));
    }
    let contents: Vec<Value> = contents.iter().map(ResourceContents::to_wire).collect();
    Ok(json!({ "contents": contents }))
}

/// Reads a URI through the registry, for `resources/read` and for handlers that embed resources.
pub(crate) fn read_contents(cx: &RequestCx, registry: &Registry, uri: &str) -> Result<Vec<ResourceContents>, RpcError> {
    if let Some(entry) = registry.resources.iter().find(|r| r.resource.uri == uri) {
        return (entry.handler)(cx, uri, &Default::default());
    }
    for entry in &registry.templates {
        if let Some(vars) = entry.parsed.matches(uri) {
            let vars = vars.into_iter().collect();
            match (entry.handler)(cx, uri, &vars) {
                // A template that matches the shape but knows no such resource lets the next one try.
                Ok(contents) if contents.is_empty() => continue,
                other => return other,
            }
        }
    }
    Err(not_found(cx.version(), uri))
}

/// `resources/subscribe`.
pub(crate) fn subscribe(cx: &RequestCx, params: UriParams) -> Result<Value, RpcError> {
    cx.server().subscribed(&params.uri);
    cx.session().subscribe(&params.uri);
    Ok(json!({}))
}

/// `resources/unsubscribe`.
pub(crate) fn unsubscribe(cx: &RequestCx, params: UriParams) -> Result<Value, RpcError> {
    cx.session().unsubscribe(&params.uri);
    Ok(json!({}))
}

/// Method of the notification that a subscribed resource changed.
pub(crate) const UPDATED: &str = "notifications/resources/updated";
/// Method of the notification that the resource list changed.
pub(crate) const LIST_CHANGED: &str = "notifications/resources/list_changed";
