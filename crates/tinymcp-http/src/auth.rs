//! Who holds a valid bearer token: the `TokenVerifier` seam (the static token is one
//! implementation, a JWT check against an issuer's keys another), the OAuth protected-resource
//! settings (RFC 9728 metadata, the scopes every request needs) and the `WWW-Authenticate`
//! challenges of RFC 6750. Knows nothing of sockets: `security` applies it to a request.

use ctutils::CtEq;
use serde_json::json;
use std::fmt;
use std::sync::Arc;

/// What a verified token grants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grant {
    /// The scopes the token carries (a JWT's `scope` claim, split on spaces).
    pub scopes: Vec<String>,
    /// Whom it was issued to (a JWT's or an introspection answer's `sub`), when it says:
    /// handlers read it as `RequestCx::subject` (an audit line's caller, say).
    pub subject: Option<String>,
}

impl Grant {
    /// A grant of these scopes, to no one named.
    pub fn new(scopes: impl IntoIterator<Item = impl Into<String>>) -> Grant {
        Grant { scopes: scopes.into_iter().map(Into::into).collect(), subject: None }
    }

    /// This grant, to `subject` (`None` or empty: no one named).
    pub fn with_subject(self, subject: Option<&str>) -> Grant {
        Grant { subject: subject.filter(|s| !s.is_empty()).map(str::to_owned), ..self }
    }
}

/// Checks a bearer token: `Ok` with what it grants, or `Err` with why it is refused (sent to
/// the client as the challenge's `error_description`, so it names no secret). A closure
/// `Fn(&str) -> Result<Grant, String>` is one. It runs on the connection's thread, once per
/// request, before the body is read.
pub trait TokenVerifier: Send + Sync {
    /// Verifies `token`, the credentials after `Bearer `.
    fn verify(&self, token: &str) -> Result<Grant, String>;

    /// Verifies `token` for the server at `resource`, the canonical URL the request was sent
    /// to: [`OAuth::resource`], or with several servers on one listener
    /// ([`HttpServer::start_mounted`](super::HttpServer::start_mounted)) each one's own
    /// ([`OAuth::resource_for`]). What the HTTP transport calls. By default `verify`, which
    /// suits a verifier for one server; one shared by mounted servers must check that the
    /// token names `resource` as its audience (RFC 8707), as `JwtVerifier` and
    /// `Introspection` (feature `oauth`) do, or a token minted for one server is accepted by all.
    fn verify_for(&self, token: &str, resource: &str) -> Result<Grant, String> {
        let _ = resource;
        self.verify(token)
    }
}

impl<F: Fn(&str) -> Result<Grant, String> + Send + Sync> TokenVerifier for F {
    fn verify(&self, token: &str) -> Result<Grant, String> {
        self(token)
    }
}

/// One shared secret every request carries (`--token-file`): compared in constant time, so
/// timing does not reveal how much of a guess was right. It grants no scopes.
pub struct StaticToken(String);

impl StaticToken {
    /// A verifier accepting exactly `token`.
    pub fn new(token: impl Into<String>) -> StaticToken {
        StaticToken(token.into())
    }
}

impl StaticToken {
    /// The check itself, for a token held as a plain string (`Access::token`).
    pub(super) fn check(expected: &str, given: &str) -> Result<Grant, String> {
        if given.as_bytes().ct_eq(expected.as_bytes()).to_bool() {
            Ok(Grant::default())
        } else {
            Err("the token is not this server's".into())
        }
    }
}

impl TokenVerifier for StaticToken {
    fn verify(&self, given: &str) -> Result<Grant, String> {
        StaticToken::check(&self.0, given)
    }
}

/// This server as an OAuth 2.1 resource server (MCP authorization): where clients find the
/// authorization server (RFC 9728 metadata, served without a token), the scopes every request
/// needs, and the verifier of the access tokens. Build it with [`OAuth::new`].
#[derive(Clone)]
#[non_exhaustive]
pub struct OAuth {
    /// This server's canonical URL, e.g. `https://mcp.example.com/mcp` (`--public-url`): the
    /// `resource` of its metadata, and the audience a token must name (the verifier checks that).
    /// With servers mounted under names (`HttpServer::start_mounted`), the base URL each one's
    /// path is appended to: `https://mcp.example.com` serves `https://mcp.example.com/NAME/mcp`
    /// ([`OAuth::resource_for`]), each its own resource and audience.
    pub resource: String,
    /// The issuers of the authorization servers clients are sent to (`--oauth-issuer`).
    pub authorization_servers: Vec<String>,
    /// Scopes every request needs (`--oauth-scope`); also announced as `scopes_supported`.
    pub scopes: Vec<String>,
    /// Checks each request's access token.
    pub verifier: Arc<dyn TokenVerifier>,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// The well-known prefix of RFC 9728 §3.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

impl OAuth {
    /// Settings for the resource `resource` whose tokens `issuer` grants and `verifier` checks.
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>, verifier: Arc<dyn TokenVerifier>) -> OAuth {
        OAuth { resource: resource.into(), authorization_servers: vec![issuer.into()], scopes: Vec::new(), verifier }
    }

    /// Why these settings cannot be served: the resource must be an absolute `http(s)` URL
    /// without a fragment (RFC 8707 §2), a scope one token of visible characters without quotes.
    pub(super) fn validate(&self) -> Result<(), String> {
        let Some((_, rest)) = split_url(&self.resource) else {
            return Err(format!("--public-url {:?}: expected an absolute http:// or https:// URL", self.resource));
        };
        if rest.is_empty() || self.resource.contains(['#', '?']) {
            return Err(format!("--public-url {:?}: expected a host, no ?query and no #fragment", self.resource));
        }
        if self.authorization_servers.is_empty() {
            return Err("OAuth needs at least one authorization server (--oauth-issuer)".into());
        }
        if let Some(bad) = self
            .scopes
            .iter()
            .find(|s| s.is_empty() || s.bytes().any(|b| !(0x21..0x7f).contains(&b) || b == b'"' || b == b'\\'))
        {
            return Err(format!("--oauth-scope {bad:?}: expected one scope of visible characters, no quotes"));
        }
        Ok(())
    }

    /// The canonical URL of the server mounted at `prefix` (`/NAME`, or `""` at the root):
    /// `resource` itself at the root, else `resource` + `/NAME/mcp`.
    pub fn resource_for(&self, prefix: &str) -> String {
        match prefix {
            "" => self.resource.clone(),
            _ => format!("{}{prefix}/mcp", self.resource.trim_end_matches('/')),
        }
    }

    /// The protected resource metadata document (RFC 9728 §2) of `resource`.
    pub(super) fn metadata(&self, resource: &str) -> String {
        json!({
            "resource": resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.scopes,
            "bearer_methods_supported": ["header"],
        })
        .to_string()
    }

    /// The `WWW-Authenticate` value of a refusal at `resource` (RFC 6750 §3): where its
    /// metadata is, the scopes needed, and for a token that was given, why it failed.
    pub(super) fn challenge(&self, failure: &Failure, resource: &str) -> String {
        let mut value = format!("Bearer resource_metadata=\"{}\"", metadata_url(resource));
        if !self.scopes.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", self.scopes.join(" ")));
        }
        let (error, why) = match failure {
            Failure::Missing => return value,
            Failure::Invalid(why) => ("invalid_token", why),
            Failure::Scope(why) => ("insufficient_scope", why),
        };
        value.push_str(&format!(", error=\"{error}\", error_description=\"{}\"", quoted(why)));
        value
    }

    /// The `WWW-Authenticate` value of a `403` at `resource` for an operation that needs the
    /// scopes `needed` besides the ones every request needs: all of them named in one challenge
    /// (spec, authorization: "include all scopes required for the current operation").
    pub(super) fn scope_challenge(&self, needed: &[&str], why: &str, resource: &str) -> String {
        let mut all: Vec<&str> = self.scopes.iter().map(String::as_str).collect();
        all.extend(needed.iter().filter(|s| !self.scopes.iter().any(|t| t == *s)));
        format!(
            "Bearer resource_metadata=\"{}\", scope=\"{}\", error=\"insufficient_scope\", error_description=\"{}\"",
            metadata_url(resource),
            quoted(&all.join(" ")),
            quoted(why)
        )
    }

    /// Checks a request's credentials (`None` when it sent no bearer token) for `resource`.
    pub(super) fn authorize(&self, given: Option<&str>, resource: &str) -> Result<Grant, Failure> {
        let token = given.filter(|t| !t.is_empty()).ok_or(Failure::Missing)?;
        let grant = self.verifier.verify_for(token, resource).map_err(Failure::Invalid)?;
        let missing: Vec<&str> = self.scopes.iter().filter(|s| !grant.scopes.contains(s)).map(String::as_str).collect();
        if !missing.is_empty() {
            return Err(Failure::Scope(format!("the token lacks the scope {}", missing.join(" "))));
        }
        Ok(grant)
    }
}

/// Why a request's token was refused.
#[derive(Debug, PartialEq)]
pub(super) enum Failure {
    /// No bearer token at all: 401, and the challenge carries no error (RFC 6750 §3.1).
    Missing,
    /// A token the verifier refused (bad signature, expired, another audience): 401.
    Invalid(String),
    /// A valid token without every scope needed: 403 `insufficient_scope`.
    Scope(String),
}

/// The path of `resource`'s metadata (RFC 9728 §3.1: the well-known prefix inserted before the
/// resource's path), e.g. `/.well-known/oauth-protected-resource/mcp`.
pub(super) fn metadata_path(resource: &str) -> String {
    let path = split_url(resource).map_or("", |(_, rest)| rest.find('/').map_or("", |at| &rest[at..]));
    let path = path.split('?').next().unwrap_or("");
    format!("{WELL_KNOWN}{}", path.trim_end_matches('/'))
}

/// Whether `path` is the bare well-known path, without a resource's path after it (clients
/// try it when the derived one is not found).
pub(super) fn is_bare_metadata_path(path: &str) -> bool {
    path == WELL_KNOWN
}

/// The URL clients fetch `resource`'s metadata from, named in every challenge.
fn metadata_url(resource: &str) -> String {
    let origin = split_url(resource).map_or("", |(scheme, rest)| {
        let host = rest.find(['/', '?']).map_or(rest, |at| &rest[..at]);
        &resource[..scheme.len() + 3 + host.len()]
    });
    format!("{origin}{}", metadata_path(resource))
}

/// `scheme` and what follows `scheme://`, for `http` and `https` only.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    (scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http")).then_some((scheme, rest))
}

/// `text` fit for a quoted-string: no quote, backslash or control character survives.
fn quoted(text: &str) -> String {
    text.chars().map(|c| if c == '"' || c == '\\' || c.is_control() { '\'' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oauth(resource: &str) -> OAuth {
        let verifier = |token: &str| match token {
            "good" => Ok(Grant::new(["mcp:read", "other"])),
            "narrow" => Ok(Grant::new(["other"])),
            _ => Err("bad \"signature\"".to_owned()),
        };
        OAuth { scopes: vec!["mcp:read".into()], ..OAuth::new(resource, "https://auth.example", Arc::new(verifier)) }
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_prefix_before_the_path() {
        let at_path = "https://mcp.example.com/public/mcp";
        assert_eq!(metadata_url(at_path), "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp");
        assert_eq!(metadata_path(at_path), "/.well-known/oauth-protected-resource/public/mcp");
        assert!(is_bare_metadata_path("/.well-known/oauth-protected-resource"));
        assert_eq!(metadata_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080/.well-known/oauth-protected-resource");
        assert_eq!(metadata_path("https://h/"), WELL_KNOWN);
    }

    #[test]
    fn each_mounted_server_is_a_resource_of_its_own_under_the_base() {
        let base = oauth("https://mcp.example.com/tools/");
        assert_eq!(base.resource_for(""), "https://mcp.example.com/tools/");
        assert_eq!(base.resource_for("/payroll"), "https://mcp.example.com/tools/payroll/mcp");
        assert_eq!(
            metadata_url(&base.resource_for("/payroll")),
            "https://mcp.example.com/.well-known/oauth-protected-resource/tools/payroll/mcp"
        );
    }

    #[test]
    fn challenges_name_the_metadata_and_the_scope_and_say_why() {
        let (o, resource) = (oauth("https://mcp.example.com/mcp"), "https://mcp.example.com/mcp");
        let meta = "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"";
        assert_eq!(o.authorize(None, resource), Err(Failure::Missing));
        assert_eq!(o.challenge(&Failure::Missing, resource), format!("Bearer {meta}, scope=\"mcp:read\""));
        let invalid = o.authorize(Some("forged"), resource).unwrap_err();
        assert_eq!(
            o.challenge(&invalid, resource),
            format!(
                "Bearer {meta}, scope=\"mcp:read\", error=\"invalid_token\", error_description=\"bad 'signature'\""
            )
        );
        let narrow = o.authorize(Some("narrow"), resource).unwrap_err();
        assert!(matches!(narrow, Failure::Scope(_)));
        assert!(o.challenge(&narrow, resource).contains("error=\"insufficient_scope\""));
        assert_eq!(o.authorize(Some("good"), resource), Ok(Grant::new(["mcp:read", "other"])));
    }

    #[test]
    fn settings_are_checked() {
        assert!(oauth("https://mcp.example.com/mcp").validate().is_ok());
        for bad in ["mcp.example.com", "ftp://h/x", "https://", "https://h/mcp#frag", "https://h/mcp?x=1"] {
            assert!(oauth(bad).validate().is_err(), "{bad}");
        }
        let quote = OAuth { scopes: vec!["a\"b".into()], ..oauth("https://h") };
        assert!(quote.validate().is_err());
    }

    #[test]
    fn the_static_token_matches_exactly() {
        let token = StaticToken::new("s3cret-s3cret-s3cret");
        assert!(token.verify("s3cret-s3cret-s3cret").is_ok());
        assert!(token.verify("s3cret-s3cret-s3cre").is_err());
        assert!(token.verify("").is_err());
    }
}
