//! An authorization server's signing keys: its metadata found (RFC 8414, or OpenID discovery),
//! its JWKS fetched from `jwks_uri` and kept, fetched again when a token names an unknown key
//! (rotation) or the set is an hour old, at most once per interval however many tokens ask.
//! HTTPS only, or plain HTTP to a loopback address (tests, a local sidecar); `ureq` fetches.

use super::auth::{Grant, TokenVerifier};
use super::jwt::{self, Expect, KeySet, Rejection};
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime};

/// A fetch gives up after this long (connect, TLS, headers and body together).
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest metadata or key set read.
const MAX_DOCUMENT: u64 = 256 * 1024;
/// Keys this old are fetched again before use, so a key the issuer withdrew stops verifying.
const MAX_AGE: Duration = Duration::from_secs(60 * 60);
/// The shortest time between two fetches of the key set: a flood of tokens naming unknown keys
/// costs the issuer one fetch per interval, not one per token.
pub const MIN_REFETCH: Duration = Duration::from_secs(10);

/// Whether `url` may be fetched: `https://`, or `http://` to a loopback address.
pub(super) fn fetchable(url: &str) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return Ok(());
    }
    let Some(rest) = lower.strip_prefix("http://") else {
        return Err(format!("{url:?}: expected an https:// URL"));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(host, _)| host),
    };
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback && !authority.contains('@') {
        Ok(())
    } else {
        Err(format!("{url:?}: plain http:// only to a loopback address; expected https://"))
    }
}

/// The metadata URLs of `issuer`, in the order MCP clients try them too (spec, authorization
/// server metadata discovery): RFC 8414, then OpenID discovery inserted, then appended.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let split = issuer.find("://").map_or(0, |at| at + 3);
    let (origin, path) = match issuer[split..].find('/') {
        Some(at) => issuer.split_at(split + at),
        None => (issuer, ""),
    };
    let mut urls = vec![format!("{origin}/.well-known/oauth-authorization-server{path}")];
    if path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration"));
    } else {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
        urls.push(format!("{issuer}/.well-known/openid-configuration"));
    }
    urls
}

pub(super) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(FETCH_TIMEOUT))
        // A redirect could lead from https to plain http elsewhere: none is followed.
        .max_redirects(0)
        .http_status_as_error(true)
        .build()
        .into()
}

fn fetch(agent: &ureq::Agent, url: &str) -> Result<String, String> {
    fetchable(url)?;
    let mut answer = agent.get(url).header("Accept", "application/json").call().map_err(|e| format!("{url}: {e}"))?;
    answer.body_mut().with_config().limit(MAX_DOCUMENT).read_to_string().map_err(|e| format!("{url}: {e}"))
}

/// When the keys were last fetched, and the keys.
struct Fetched {
    at: Instant,
    keys: Arc<KeySet>,
}

/// An issuer's keys, found through its metadata and kept fresh.
pub struct IssuerKeys {
    jwks_uri: String,
    agent: ureq::Agent,
    /// Read on every token; replaced after a fetch.
    current: RwLock<Fetched>,
    /// Held while fetching, so one thread fetches and the others wait for its result.
    fetching: Mutex<()>,
    min_refetch: Duration,
}

impl std::fmt::Debug for IssuerKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuerKeys").field("jwks_uri", &self.jwks_uri).finish_non_exhaustive()
    }
}

impl IssuerKeys {
    /// Finds `issuer`'s metadata (its `issuer` must be exactly `issuer`), then fetches its key
    /// set; an error says which step failed.
    pub fn discover(issuer: &str) -> Result<IssuerKeys, String> {
        Self::discover_with(issuer, MIN_REFETCH)
    }

    /// `discover` with another shortest time between two fetches of the key set.
    pub fn discover_with(issuer: &str, min_refetch: Duration) -> Result<IssuerKeys, String> {
        fetchable(issuer).map_err(|why| format!("--oauth-issuer {why}"))?;
        let agent = agent();
        let mut failures = Vec::new();
        let mut metadata = None;
        for url in metadata_urls(issuer) {
            match fetch(&agent, &url) {
                Ok(text) => {
                    metadata = Some(text);
                    break;
                }
                Err(why) => failures.push(why),
            }
        }
        let Some(text) = metadata else {
            return Err(format!("no metadata for the issuer {issuer}: {}", failures.join("; ")));
        };
        let metadata: Value =
            serde_json::from_str(&text).map_err(|e| format!("the metadata of {issuer} is not JSON: {e}"))?;
        // RFC 8414 §3.3: the metadata must name the very issuer it was fetched for.
        if metadata.get("issuer").and_then(Value::as_str) != Some(issuer) {
            return Err(format!("the metadata found for {issuer} names another issuer: {:?}", metadata.get("issuer")));
        }
        let jwks_uri = metadata
            .get("jwks_uri")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("the metadata of {issuer} has no jwks_uri"))?
            .to_owned();
        fetchable(&jwks_uri).map_err(|why| format!("jwks_uri {why}"))?;
        let keys = KeySet::from_json(&fetch(&agent, &jwks_uri)?)?;
        log::info!("{issuer}: {} signing keys from {jwks_uri}", keys.len());
        let current = RwLock::new(Fetched { at: Instant::now(), keys: Arc::new(keys) });
        Ok(IssuerKeys { jwks_uri, agent, current, fetching: Mutex::new(()), min_refetch })
    }

    /// The keys to check a token with: fetched again first when an hour old.
    pub fn keys(&self) -> Arc<KeySet> {
        let (at, keys) = {
            let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
            (current.at, Arc::clone(&current.keys))
        };
        if at.elapsed() < MAX_AGE {
            return keys;
        }
        self.refresh(at).unwrap_or(keys)
    }

    /// Fetches the key set again, because the one fetched at `seen` lacked a token's key;
    /// `None` when it is too soon since the last fetch (or the fetch failed: logged).
    pub fn refresh(&self, seen: Instant) -> Option<Arc<KeySet>> {
        let _turn = self.fetching.lock().unwrap_or_else(PoisonError::into_inner);
        {
            let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
            // Another thread fetched while this one waited: its keys are the news.
            if current.at > seen {
                return Some(Arc::clone(&current.keys));
            }
            if current.at.elapsed() < self.min_refetch {
                return None;
            }
        }
        let fetched = fetch(&self.agent, &self.jwks_uri).and_then(|text| KeySet::from_json(&text));
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        // A failed fetch counts too: an unreachable issuer is not asked again at once.
        current.at = Instant::now();
        match fetched {
            Ok(keys) => {
                log::info!("{}: {} signing keys", self.jwks_uri, keys.len());
                current.keys = Arc::new(keys);
                Some(Arc::clone(&current.keys))
            }
            Err(why) => {
                log::warn!("cannot fetch the issuer's keys again: {why}");
                None
            }
        }
    }

    /// When the keys in use were fetched.
    pub fn fetched_at(&self) -> Instant {
        self.current.read().unwrap_or_else(PoisonError::into_inner).at
    }
}

enum Source {
    Fixed(KeySet),
    Issuer(IssuerKeys),
}

/// A [`TokenVerifier`] of JWT access tokens: signed by a fixed key set, or by an issuer's
/// current keys (fetched again, within the rate limit, when a token names one it lacks).
pub struct JwtVerifier {
    source: Source,
    expect: Expect,
}

impl JwtVerifier {
    /// Accepts tokens signed by one of `keys` that meet `expect`.
    pub fn new(keys: KeySet, expect: Expect) -> JwtVerifier {
        JwtVerifier { source: Source::Fixed(keys), expect }
    }

    /// Accepts tokens signed by one of the issuer's keys that meet `expect`.
    pub fn from_issuer(keys: IssuerKeys, expect: Expect) -> JwtVerifier {
        JwtVerifier { source: Source::Issuer(keys), expect }
    }

    /// Checks `token` against `expect` (this verifier's, or with another audience).
    fn check(&self, token: &str, expect: &Expect) -> Result<Grant, Rejection> {
        let now = SystemTime::now();
        match &self.source {
            Source::Fixed(keys) => jwt::verify(token, keys, expect, now),
            Source::Issuer(issuer) => {
                let seen = issuer.fetched_at();
                match jwt::verify(token, &issuer.keys(), expect, now) {
                    Err(Rejection::UnknownKey(_)) => match issuer.refresh(seen) {
                        Some(fresh) => jwt::verify(token, &fresh, expect, now),
                        None => Err(Rejection::UnknownKey(None)),
                    },
                    checked => checked,
                }
            }
        }
    }
}

impl TokenVerifier for JwtVerifier {
    /// For the audience of its `Expect`.
    fn verify(&self, token: &str) -> Result<Grant, String> {
        self.verify_for(token, &self.expect.audience)
    }

    /// For the audience `resource`: each server mounted on one listener is its own.
    fn verify_for(&self, token: &str, resource: &str) -> Result<Grant, String> {
        let checked = match resource == self.expect.audience {
            true => self.check(token, &self.expect),
            false => self.check(token, &self.expect.for_audience(resource)),
        };
        checked.map_err(|rejection| match rejection {
            Rejection::UnknownKey(_) => "the token is signed with a key the issuer does not list".to_owned(),
            Rejection::Invalid(why) => why,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http_is_fetched() {
        for good in ["https://auth.example.com", "http://127.0.0.1:9000/x", "http://localhost/", "http://[::1]:80"] {
            assert!(fetchable(good).is_ok(), "{good}");
        }
        for bad in ["http://auth.example.com", "http://127.0.0.1.evil.com/", "ftp://x", "http://u@evil.com@127.0.0.1/"]
        {
            assert!(fetchable(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn metadata_urls_follow_the_discovery_order() {
        assert_eq!(
            metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }
}
