//! Typed resource templates: `Server::resource_template` (the variables read into a struct
//! whose fields the template must all name, checked at registration, feature `schemars`) and
//! `Server::typed_resource_template` (the same handler, unchecked).

use super::error::ToolError;
use super::output::ResourceOutput;
use super::prompt::read_strings;
use crate::features::resources::ResourceTemplate;
use crate::server::context::RequestCx;
use crate::server::Server;
use serde::de::DeserializeOwned;

impl Server {
    /// Registers a resource template whose variables are read into `A` (feature `schemars`):
    /// each field a `String` (or an `Option<String>`), every required one a variable of the
    /// template, which is checked here (an `Err` says which is missing, as for a template that
    /// does not parse). The handler gets the URI and the variables and returns a `String` (text
    /// of the template's MIME type, else `text/plain`), contents, or `None` for "no such
    /// resource"; an error is answered as a protocol error (see [`ToolError`]).
    #[cfg(feature = "schemars")]
    pub fn resource_template<A, C, E, F>(&self, template: ResourceTemplate, handler: F) -> Result<(), String>
    where
        A: DeserializeOwned + schemars::JsonSchema + 'static,
        C: ResourceOutput + 'static,
        E: Into<ToolError> + 'static,
        F: Fn(&RequestCx, &str, A) -> Result<C, E> + Send + Sync + 'static,
    {
        let what = format!("the variables of template {}", template.uri_template);
        let schema = super::derive::object_schema::<A>(&what)?;
        let fields = super::derive::string_fields(&schema, &what)?;
        let parsed = crate::util::uri_template::UriTemplate::parse(&template.uri_template)?;
        let variables = parsed.variables();
        if let Some(missing) = fields.iter().find(|f| f.required && !variables.contains(&f.name)) {
            return Err(format!(
                "{what}: field {} of {} is not a variable of the template (it has {})",
                missing.name,
                std::any::type_name::<A>(),
                variables.join(", ")
            ));
        }
        self.typed_resource_template(template, handler)
    }

    /// Registers a resource template with a typed handler: the path without the feature
    /// `schemars`. Variables serde cannot read into `A` make the URI "no such resource" here
    /// (the next template that matches may answer). `Err` for a template that does not parse.
    pub fn typed_resource_template<A, C, E, F>(&self, template: ResourceTemplate, handler: F) -> Result<(), String>
    where
        A: DeserializeOwned + 'static,
        C: ResourceOutput + 'static,
        E: Into<ToolError> + 'static,
        F: Fn(&RequestCx, &str, A) -> Result<C, E> + Send + Sync + 'static,
    {
        let mime_type = template.mime_type.clone().unwrap_or_else(|| "text/plain".to_owned());
        let name = template.uri_template.clone();
        self.register_resource_template(
            template,
            move |cx, uri, variables| {
                let variables: A = match read_strings(variables) {
                    Ok(variables) => variables,
                    Err(e) => {
                        log::debug!("template {name}: {uri} matched, but its variables do not read: {e}");
                        return Ok(Vec::new());
                    }
                };
                match handler(cx, uri, variables) {
                    Ok(found) => Ok(found.into_contents(uri, &mime_type)),
                    Err(e) => Err(e.into().into_rpc()),
                }
            },
            None,
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::transport::memory::MemoryClient;
    use crate::{ResourceTemplate, Server, ToolError};
    use serde::Deserialize;
    use serde_json::json;
    use std::sync::Arc;
    use std::time::Duration;

    #[derive(Deserialize)]
    struct Note {
        name: String,
    }

    #[test]
    fn a_typed_template_reads_its_variables_and_none_is_not_found() {
        let server = Server::new("t", "0");
        let template = ResourceTemplate::new("note:///{name}", "note");
        server
            .typed_resource_template(template, |_cx, _uri, n: Note| {
                Ok::<_, ToolError>((n.name != "nope").then(|| format!("note {}", n.name)))
            })
            .expect("a valid template");
        let client = MemoryClient::connect(Arc::new(server));
        let wait = Duration::from_secs(5);
        client.initialize("2025-11-25", json!({}), wait).expect("initialized");
        let read = client.call("resources/read", json!({"uri": "note:///a"}), wait).expect("an answer");
        assert_eq!(
            read["result"]["contents"][0],
            json!({"uri": "note:///a", "mimeType": "text/plain", "text": "note a"})
        );
        let missing = client.call("resources/read", json!({"uri": "note:///nope"}), wait).expect("an answer");
        assert_eq!(missing["error"]["code"], crate::error_codes::RESOURCE_NOT_FOUND, "{missing}");
    }
}
