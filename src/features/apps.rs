//! MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`): a tool's link to its HTML view,
//! the view's `_meta.ui` (CSP, permissions, border), and the negotiation that decides whether a
//! client sees the links. Never names a transport or a thread.

use crate::server::context::RequestCx;
use crate::wire::content::{Resource, ResourceContents};
use crate::wire::error::RpcError;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an HTML view.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The deprecated flat key of a tool's view, which older hosts still read.
const LEGACY_URI_KEY: &str = "ui/resourceUri";

/// Who may call a tool (`_meta.ui.visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model sees and calls it.
    Model,
    /// The view calls it through the host.
    App,
}

/// A tool's link to its view (`_meta.ui` of the tool).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` URI of the view that renders the tool's results.
    pub resource_uri: String,
    /// Who may call the tool; `None` is the spec's default (model and app).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// A link to the view at `resource_uri`, callable by the model and the app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        ToolUi { resource_uri: resource_uri.into(), visibility: None }
    }
    /// Only the view may call the tool: it is not offered to the model.
    pub fn app_only(mut self) -> Self {
        self.visibility = Some(vec![Visibility::App]);
        self
    }
    /// Whether the model may not see the tool.
    pub fn is_app_only(&self) -> bool {
        self.visibility.as_ref().is_some_and(|v| !v.contains(&Visibility::Model))
    }
}

/// The origins a view may reach (`_meta.ui.csp`); empty lists are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Origins for nested frames (`frame-src`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Allowed base URIs (`base-uri`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

/// Browser permissions a view asks for (`_meta.ui.permissions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Permissions {
    /// The camera.
    pub camera: bool,
    /// The microphone.
    pub microphone: bool,
    /// The location.
    pub geolocation: bool,
    /// Writing to the clipboard.
    pub clipboard_write: bool,
}

/// What a view tells the host about itself (`_meta.ui` of the resource and its contents).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewMeta {
    /// The origins it may reach; `None` leaves the host's restrictive default.
    pub csp: Option<Csp>,
    /// The permissions it asks for.
    pub permissions: Permissions,
    /// A dedicated origin for the view (the format is the host's).
    pub domain: Option<String>,
    /// Whether the host should draw a border and background; `None` lets it decide.
    pub prefers_border: Option<bool>,
}

impl ViewMeta {
    /// The `_meta` object: `{"ui": {...}}`.
    pub fn to_meta(&self) -> Value {
        let mut ui = Map::new();
        if let Some(csp) = &self.csp {
            ui.insert("csp".into(), json!(csp));
        }
        let p = self.permissions;
        let asked = [
            ("camera", p.camera),
            ("microphone", p.microphone),
            ("geolocation", p.geolocation),
            ("clipboardWrite", p.clipboard_write),
        ];
        // Inserted one by one: `collect` into a map instantiates a sort and a bulk build (~5 KB).
        let mut permissions = Map::new();
        for (name, _) in asked.iter().filter(|(_, on)| *on) {
            permissions.insert((*name).to_owned(), Value::Object(Map::new()));
        }
        if !permissions.is_empty() {
            ui.insert("permissions".into(), Value::Object(permissions));
        }
        if let Some(domain) = &self.domain {
            ui.insert("domain".into(), domain.clone().into());
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".into(), border.into());
        }
        json!({ "ui": ui })
    }
}

/// Gives a view's HTML at each read (a file read again, so edits show).
pub type ViewSource = dyn Fn(&RequestCx) -> Result<String, RpcError> + Send + Sync;

/// An HTML view: a `ui://` resource of type `text/html;profile=mcp-app` that hosts render in a sandboxed
/// frame and feed with the results of the tools linked to it.
#[derive(Clone)]
pub struct AppView {
    /// The `ui://` URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// What it shows.
    pub description: Option<String>,
    /// CSP, permissions, domain and border, sent on the listing and on every read.
    pub meta: ViewMeta,
    /// Scopes an access token must grant to list and read the view (under OAuth), as for a
    /// resource's `required_scopes`; a view of one scoped tool takes the tool's.
    pub required_scopes: Vec<String>,
    pub(crate) source: Arc<ViewSource>,
}

impl AppView {
    /// A view whose HTML `source` gives at each read.
    pub fn new(
        uri: impl Into<String>,
        name: impl Into<String>,
        source: impl Fn(&RequestCx) -> Result<String, RpcError> + Send + Sync + 'static,
    ) -> Self {
        AppView {
            uri: uri.into(),
            name: name.into(),
            description: None,
            meta: ViewMeta::default(),
            required_scopes: Vec::new(),
            source: Arc::new(source),
        }
    }
    /// A view of fixed HTML.
    pub fn html(uri: impl Into<String>, name: impl Into<String>, html: impl Into<String>) -> Self {
        let html: String = html.into();
        Self::new(uri, name, move |_| Ok(html.clone()))
    }
    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// Sets the scopes a token must grant to list and read the view.
    pub fn with_required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Sets CSP, permissions, domain and border.
    pub fn with_meta(mut self, meta: ViewMeta) -> Self {
        self.meta = meta;
        self
    }

    /// The resource as `resources/list` shows it, `_meta.ui` included (a host may review it
    /// before reading).
    pub(crate) fn resource(&self) -> Resource {
        let mut resource = Resource::new(self.uri.clone(), self.name.clone()).with_mime_type(MIME_TYPE);
        resource.description = self.description.clone();
        resource.meta = Some(self.meta.to_meta());
        resource.required_scopes = self.required_scopes.clone();
        resource
    }

    /// The contents of one read.
    pub(crate) fn read(&self, cx: &RequestCx) -> Result<Vec<ResourceContents>, RpcError> {
        Ok(vec![ResourceContents::text(self.uri.clone(), MIME_TYPE, (self.source)(cx)?)])
    }
}

/// Whether this request's client declared the extension with the HTML view type, on a revision
/// whose descriptors carry `_meta` (2025-06-18 and later): only then are views linked and
/// app-only tools listed (spec, Server Behavior: check the client's `mimeTypes` first).
pub fn client_supports(cx: &RequestCx) -> bool {
    cx.version().has_titles()
        && cx
            .client_capabilities()
            .get("extensions")
            .and_then(|e| e.get(EXTENSION))
            .and_then(|ui| ui.get("mimeTypes"))
            .and_then(Value::as_array)
            .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// Puts the tool's link into its wire descriptor (`_meta.ui`, and the deprecated flat key that
/// older hosts read, as the official server helper does).
pub(crate) fn link(descriptor: &mut Value, ui: &ToolUi) {
    let Value::Object(map) = descriptor else { return };
    let meta = map.entry("_meta").or_insert_with(|| json!({}));
    if let Value::Object(meta) = meta {
        meta.insert("ui".into(), json!(ui));
        meta.insert(LEGACY_URI_KEY.into(), ui.resource_uri.clone().into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_meta_names_only_what_is_set_in_the_spec_spelling() {
        assert_eq!(ViewMeta::default().to_meta(), json!({"ui": {}}));
        let meta = ViewMeta {
            csp: Some(Csp { connect_domains: vec!["https://api.example.com".into()], ..Default::default() }),
            permissions: Permissions { clipboard_write: true, ..Default::default() },
            domain: None,
            prefers_border: Some(false),
        };
        assert_eq!(
            meta.to_meta(),
            json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                          "permissions": {"clipboardWrite": {}}, "prefersBorder": false}})
        );
    }

    #[test]
    fn a_link_keeps_other_meta_and_adds_the_flat_key() {
        let mut tool = json!({"name": "t", "_meta": {"k": 1}});
        link(&mut tool, &ToolUi::new("ui://s/t").app_only());
        assert_eq!(
            tool["_meta"],
            json!({"k": 1, "ui": {"resourceUri": "ui://s/t", "visibility": ["app"]}, "ui/resourceUri": "ui://s/t"})
        );
        assert!(!ToolUi::new("x").is_app_only(), "the default visibility includes the model");
    }
}
