//! `--oauth-issuer`, `--public-url` and `--oauth-scope`: the binary as an OAuth resource server,
//! its access tokens JWTs checked against the issuer's published keys (feature `oauth`).

use std::time::Duration;
use tinymcp::transport::http::OAuth;

/// What the command line says about OAuth.
#[derive(Default)]
pub struct Flags {
    pub issuer: Option<String>,
    pub public_url: Option<String>,
    pub scopes: Vec<String>,
    /// The shortest time between two fetches of the issuer's keys (a hidden flag, for tests).
    pub refetch: Option<Duration>,
}

/// The OAuth settings, the issuer's keys fetched now (so a wrong issuer fails at start), or
/// `None` without `--oauth-issuer`.
#[cfg(feature = "oauth")]
pub fn settings(flags: &Flags) -> Result<Option<OAuth>, String> {
    use std::sync::Arc;
    use tinymcp::transport::http::{Expect, IssuerKeys, JwtVerifier};
    let Some(issuer) = &flags.issuer else {
        return match flags.public_url.is_some() || !flags.scopes.is_empty() {
            true => Err("--public-url and --oauth-scope need --oauth-issuer".into()),
            false => Ok(None),
        };
    };
    let public_url = flags.public_url.as_deref().ok_or(
        "--oauth-issuer needs --public-url, this server's URL as clients reach it (the audience its tokens name)",
    )?;
    let keys = match flags.refetch {
        Some(interval) => IssuerKeys::discover_with(issuer, interval),
        None => IssuerKeys::discover(issuer),
    }?;
    let verifier = JwtVerifier::from_issuer(keys, Expect::new(issuer.as_str(), public_url));
    let mut oauth = OAuth::new(public_url, issuer.as_str(), Arc::new(verifier));
    oauth.scopes = flags.scopes.clone();
    Ok(Some(oauth))
}

#[cfg(not(feature = "oauth"))]
pub fn settings(flags: &Flags) -> Result<Option<OAuth>, String> {
    match flags.issuer.is_some() || flags.public_url.is_some() || !flags.scopes.is_empty() {
        true => Err("this build has no OAuth (built without the `oauth` feature)".into()),
        false => Ok(None),
    }
}
