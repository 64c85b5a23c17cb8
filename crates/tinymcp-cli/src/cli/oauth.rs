//! `--oauth-issuer`, `--public-url`, `--oauth-scope` and `--oauth-introspection`: the binary as
//! an OAuth resource server (feature `oauth`), its access tokens JWTs checked against the
//! issuer's published keys, or opaque ones introspected with this server's client credentials.

use std::time::Duration;
use tinymcp_http::OAuth;

#[cfg(feature = "oauth")]
use super::secret::CLIENT_SECRET_VARIABLE as SECRET_VARIABLE;

/// What the command line says about OAuth.
#[derive(Default)]
pub struct Flags {
    pub issuer: Option<String>,
    pub public_url: Option<String>,
    pub scopes: Vec<String>,
    /// The introspection endpoint (RFC 7662) opaque tokens are checked at.
    pub introspection: Option<String>,
    /// This server's client id at the authorization server, for introspection.
    pub client_id: Option<String>,
    /// The file holding the client secret (else `TINYMCP_OAUTH_CLIENT_SECRET`).
    pub client_secret_file: Option<String>,
    /// The shortest time between two fetches of the issuer's keys (a hidden flag, for tests).
    pub refetch: Option<Duration>,
    /// How far `exp` and `nbf` may be off (a hidden flag, for tests; a minute by default).
    pub leeway: Option<Duration>,
}

impl Flags {
    fn any(&self) -> bool {
        self.issuer.is_some()
            || self.public_url.is_some()
            || !self.scopes.is_empty()
            || self.introspection.is_some()
            || self.client_id.is_some()
            || self.client_secret_file.is_some()
    }
}

/// The introspection client secret: from `file` (warned about when others may read it), else
/// from `TINYMCP_OAUTH_CLIENT_SECRET`; one line, never logged.
#[cfg(feature = "oauth")]
fn client_secret(file: Option<&str>) -> Result<String, String> {
    let (text, source) = match file {
        Some(path) => {
            super::secret::warn_if_exposed(std::path::Path::new(path), "client secret file");
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--oauth-client-secret-file {path}: cannot read it: {e}"))?;
            (text, format!("--oauth-client-secret-file {path}"))
        }
        None => match std::env::var(SECRET_VARIABLE) {
            Ok(text) => (text, SECRET_VARIABLE.to_owned()),
            Err(_) => {
                return Err(format!(
                    "--oauth-introspection needs this server's client secret: --oauth-client-secret-file FILE \
                     or {SECRET_VARIABLE}"
                ))
            }
        },
    };
    let secret = text.trim();
    if secret.is_empty() || secret.chars().any(char::is_control) {
        return Err(format!("{source}: expected the client secret on one line"));
    }
    Ok(secret.to_owned())
}

/// The OAuth settings, the issuer's keys fetched now (so a wrong issuer fails at start), or
/// `None` without `--oauth-issuer`.
#[cfg(feature = "oauth")]
pub fn settings(flags: &Flags) -> Result<Option<OAuth>, String> {
    use std::sync::Arc;
    use tinymcp_http::{Expect, Introspection, IssuerKeys, JwtOrIntrospection, JwtVerifier};
    let Some(issuer) = &flags.issuer else {
        return match flags.any() {
            true => Err("--public-url, --oauth-scope and --oauth-introspection need --oauth-issuer".into()),
            false => Ok(None),
        };
    };
    let public_url = flags.public_url.as_deref().ok_or(
        "--oauth-issuer needs --public-url, this server's URL as clients reach it (the audience its tokens name)",
    )?;
    let mut expect = Expect::new(issuer.as_str(), public_url);
    if let Some(leeway) = flags.leeway {
        expect.leeway = leeway;
    }
    let keys = match flags.refetch {
        Some(interval) => IssuerKeys::discover_with(issuer, interval),
        None => IssuerKeys::discover(issuer),
    }?;
    let jwt = JwtVerifier::from_issuer(keys, expect.clone());
    let verifier: Arc<dyn tinymcp_http::TokenVerifier> = match &flags.introspection {
        None if flags.client_id.is_some() || flags.client_secret_file.is_some() => {
            return Err("--oauth-client-id and --oauth-client-secret-file go with --oauth-introspection".into())
        }
        None => Arc::new(jwt),
        Some(endpoint) => {
            let client_id = flags.client_id.as_deref().ok_or("--oauth-introspection needs --oauth-client-id")?;
            let secret = client_secret(flags.client_secret_file.as_deref())?;
            let introspection = Introspection::new(endpoint.as_str(), client_id, secret, expect)?;
            Arc::new(JwtOrIntrospection { jwt, introspection })
        }
    };
    let mut oauth = OAuth::new(public_url, issuer.as_str(), verifier);
    oauth.scopes = flags.scopes.clone();
    Ok(Some(oauth))
}

#[cfg(not(feature = "oauth"))]
pub fn settings(flags: &Flags) -> Result<Option<OAuth>, String> {
    match flags.any() {
        true => Err("this build has no OAuth (built without the `oauth` feature)".into()),
        false => Ok(None),
    }
}
