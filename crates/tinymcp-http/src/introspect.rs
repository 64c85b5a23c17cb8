//! Opaque access tokens through the authorization server's introspection endpoint (RFC 7662):
//! `active`, `iss`, `aud`, `exp`, `nbf` and `token_type` checked as for a JWT. Bounded: a
//! deadline on every call, a cap on calls in flight, and a small cache of recent verdicts (keyed
//! by a SHA-256 of the token and the resource it was for, never the token) so a busy client
//! costs one call per token a while.
//! The client secret authenticates the calls and appears in no log and no `Debug`.

use super::auth::{Grant, TokenVerifier};
use super::issuer::{self, JwtVerifier};
use super::jwt::{self, Expect};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};
use tinymcp::transport::kit::base64;
use tinymcp::transport::kit::percent;

/// The largest introspection answer read.
const MAX_ANSWER: u64 = 64 * 1024;
/// Introspection calls in flight at once; a request past it is refused (401), not queued, so a
/// flood of made-up tokens cannot pile up threads waiting on the authorization server.
const MAX_IN_FLIGHT: usize = 16;
/// Answers kept at once; past it the expired ones go, then all.
const MAX_CACHED: usize = 1024;
/// How long an answer is reused: a revoked token is refused at most this late.
pub const CACHE_FOR: Duration = Duration::from_secs(30);

/// A verdict on a token (keyed by its SHA-256) and until when it may be reused.
type Remembered = (Instant, Result<Grant, String>);

/// A [`TokenVerifier`] asking the authorization server about each token (RFC 7662), with the
/// client credentials it gave this server (HTTP Basic, RFC 6749 §2.3.1).
pub struct Introspection {
    endpoint: String,
    client_id: String,
    client_secret: String,
    expect: Expect,
    agent: ureq::Agent,
    in_flight: AtomicUsize,
    cache: Mutex<HashMap<[u8; 32], Remembered>>,
    /// How long an answer is reused ([`CACHE_FOR`]; zero: never).
    pub cache_for: Duration,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl Introspection {
    /// Asks `endpoint` (https, or http to loopback) about tokens, authenticated as `client_id`
    /// with `client_secret`; an active token must also meet `expect` (issuer, audience).
    pub fn new(
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        expect: Expect,
    ) -> Result<Introspection, String> {
        let endpoint = endpoint.into();
        issuer::fetchable(&endpoint).map_err(|why| format!("--oauth-introspection {why}"))?;
        Ok(Introspection {
            endpoint,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            expect,
            agent: issuer::agent(),
            in_flight: AtomicUsize::new(0),
            cache: Mutex::new(HashMap::new()),
            cache_for: CACHE_FOR,
        })
    }

    fn ask(&self, token: &str) -> Result<Map<String, Value>, String> {
        let id = form(&self.client_id);
        let secret = form(&self.client_secret);
        let basic = format!("Basic {}", base64::encode(format!("{id}:{secret}").as_bytes()));
        let body = format!("token={}&token_type_hint=access_token", form(token));
        let mut answer = self
            .agent
            .post(&self.endpoint)
            .header("Authorization", &basic)
            .header("Accept", "application/json")
            .content_type("application/x-www-form-urlencoded")
            .send(body.as_bytes())
            // ureq's error names the URL and the status, never the headers sent.
            .map_err(|e| format!("the introspection endpoint failed: {e}"))?;
        let text = answer
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .map_err(|e| format!("the introspection answer cannot be read: {e}"))?;
        match serde_json::from_str(&text) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err("the introspection answer is not a JSON object".into()),
        }
    }

    /// The verdict on `token` under `expect`, or `Err` when the server could not be asked (which
    /// says nothing of the token, so it is not remembered).
    fn introspect(&self, token: &str, expect: &Expect) -> Result<Result<Grant, String>, String> {
        if self.in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            return Err("too many tokens are being checked at once; try again".into());
        }
        let answer = self.ask(token);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        let answer = answer.inspect_err(|why| log::warn!("{why}"))?;
        Ok(judge(&answer, expect, SystemTime::now()))
    }

    fn cached(&self, key: &[u8; 32]) -> Option<Result<Grant, String>> {
        let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache.get(key).filter(|(until, _)| Instant::now() < *until).map(|(_, verdict)| verdict.clone())
    }

    fn remember(&self, key: [u8; 32], verdict: &Result<Grant, String>) {
        if self.cache_for.is_zero() {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= MAX_CACHED {
            let now = Instant::now();
            cache.retain(|_, (until, _)| now < *until);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(key, (Instant::now() + self.cache_for, verdict.clone()));
    }
}

impl TokenVerifier for Introspection {
    /// For the audience of its `Expect`.
    fn verify(&self, token: &str) -> Result<Grant, String> {
        self.verify_for(token, &self.expect.audience)
    }

    /// For the audience `resource`: each server mounted on one listener is its own, so a
    /// verdict is remembered for the token and the resource together.
    fn verify_for(&self, token: &str, resource: &str) -> Result<Grant, String> {
        if token.len() > jwt::MAX_TOKEN_LEN {
            return Err("the token is too long".into());
        }
        let key: [u8; 32] =
            Sha256::new().chain_update(resource).chain_update([0]).chain_update(token).finalize().into();
        if let Some(verdict) = self.cached(&key) {
            return verdict;
        }
        let verdict = match resource == self.expect.audience {
            true => self.introspect(token, &self.expect),
            false => self.introspect(token, &self.expect.for_audience(resource)),
        }?;
        self.remember(key, &verdict);
        verdict
    }
}

/// `text` as one value of a form (and of HTTP Basic's client credentials, RFC 6749 §2.3.1):
/// every character but the unreserved ones percent-encoded.
fn form(text: &str) -> String {
    percent::encode(text, |_, _, c| percent::is_unreserved(c))
}

/// What an introspection answer grants, or why the token is refused: it must be active, of
/// the bearer type, from the issuer, for this audience, and within its lifetime.
pub(super) fn judge(answer: &Map<String, Value>, expect: &Expect, now: SystemTime) -> Result<Grant, String> {
    if answer.get("active") != Some(&Value::Bool(true)) {
        return Err("the token is not active (expired, revoked or unknown)".into());
    }
    if let Some(kind) = answer.get("token_type") {
        if !kind.as_str().is_some_and(|k| k.eq_ignore_ascii_case("bearer")) {
            return Err(format!("a token of type {kind} is no bearer access token"));
        }
    }
    jwt::check_claims(answer, expect, now, jwt::Claims::Introspected).map_err(|rejection| match rejection {
        jwt::Rejection::Invalid(why) | jwt::Rejection::UnknownKey(Some(why)) => why,
        jwt::Rejection::UnknownKey(None) => "the token is refused".into(),
    })?;
    let scopes = answer.get("scope").and_then(Value::as_str).unwrap_or("");
    Ok(Grant::new(scopes.split_whitespace()).with_subject(answer.get("sub").and_then(Value::as_str)))
}

/// Signed JWTs checked against the issuer's keys, opaque tokens introspected: how the binary
/// verifies when both are configured.
pub struct JwtOrIntrospection {
    /// Checks the tokens that are JWTs.
    pub jwt: JwtVerifier,
    /// Asks about the others.
    pub introspection: Introspection,
}

impl TokenVerifier for JwtOrIntrospection {
    fn verify(&self, token: &str) -> Result<Grant, String> {
        match jwt::is_jwt(token) {
            true => self.jwt.verify(token),
            false => self.introspection.verify(token),
        }
    }

    fn verify_for(&self, token: &str, resource: &str) -> Result<Grant, String> {
        match jwt::is_jwt(token) {
            true => self.jwt.verify_for(token, resource),
            false => self.introspection.verify_for(token, resource),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ISSUER: &str = "https://auth.example.com";
    const AUDIENCE: &str = "https://mcp.example.com/mcp";

    fn epoch(now: SystemTime) -> u64 {
        now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    }

    fn answer(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn active(now: SystemTime) -> Value {
        let now = epoch(now);
        json!({"active": true, "iss": ISSUER, "aud": AUDIENCE, "exp": now + 300, "iat": now,
               "scope": "mcp:use profile", "token_type": "Bearer", "client_id": "c"})
    }

    #[test]
    fn an_active_token_for_this_audience_grants_its_scopes() {
        let now = SystemTime::now();
        let expect = Expect::new(ISSUER, AUDIENCE);
        assert_eq!(judge(&answer(active(now)), &expect, now), Ok(Grant::new(["mcp:use", "profile"])));
        let mut named = active(now);
        named["sub"] = json!("alice");
        let granted = Grant::new(["mcp:use", "profile"]).with_subject(Some("alice"));
        assert_eq!(judge(&answer(named), &expect, now), Ok(granted));
        let mut listed = active(now);
        listed["aud"] = json!(["https://other.example", AUDIENCE]);
        listed.as_object_mut().unwrap().remove("token_type");
        listed.as_object_mut().unwrap().remove("iss");
        assert!(judge(&answer(listed), &expect, now).is_ok(), "iss and token_type are optional");
    }

    #[test]
    fn inactive_foreign_expired_or_odd_tokens_are_refused() {
        let now = SystemTime::now();
        let expect = Expect::new(ISSUER, AUDIENCE);
        let with = |key: &str, value: Value| {
            let mut a = active(now);
            a[key] = value;
            judge(&answer(a), &expect, now).unwrap_err()
        };
        assert!(judge(&answer(json!({"active": false})), &expect, now).unwrap_err().contains("not active"));
        assert!(with("active", json!("true")).contains("not active"), "only the boolean true");
        assert!(with("aud", json!("https://other.example")).contains("audience"));
        assert!(with("iss", json!("https://evil.example")).contains("issuer"));
        assert!(with("exp", json!(epoch(now) - 600)).contains("expired"));
        assert!(with("nbf", json!(epoch(now) + 600)).contains("not valid yet"));
        assert!(with("token_type", json!("refresh_token")).contains("no bearer"));
        let mut no_aud = active(now);
        no_aud.as_object_mut().unwrap().remove("aud");
        assert!(judge(&answer(no_aud), &expect, now).unwrap_err().contains("audience"));
    }

    #[test]
    fn only_https_or_loopback_endpoints_and_no_secret_in_debug() {
        let expect = || Expect::new(ISSUER, AUDIENCE);
        assert!(Introspection::new("http://auth.example.com/introspect", "c", "s", expect()).is_err());
        let ok = Introspection::new("http://127.0.0.1:1/introspect", "c", "very-secret-value", expect()).unwrap();
        assert!(!format!("{ok:?}").contains("very-secret-value"));
    }

    /// A loopback introspection endpoint answering `answer` to every call, counting them.
    fn endpoint(answer: Value) -> (String, std::sync::Arc<AtomicUsize>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/introspect", listener.local_addr().unwrap());
        let calls = std::sync::Arc::new(AtomicUsize::new(0));
        let counted = std::sync::Arc::clone(&calls);
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let mut reader = BufReader::new(&stream);
                let (mut line, mut length) = (String::new(), 0);
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = n.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let _ = reader.read_exact(&mut vec![0; length]);
                counted.fetch_add(1, Ordering::SeqCst);
                let body = answer.to_string();
                let _ = write!(
                    &stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        (url, calls)
    }

    #[test]
    fn a_verdict_is_remembered_for_the_resource_it_was_for_only() {
        let payroll = "https://mcp.example.com/payroll/mcp";
        let mut for_payroll = active(SystemTime::now());
        for_payroll["aud"] = json!(payroll);
        let (url, calls) = endpoint(for_payroll);
        let base = Expect::new(ISSUER, "https://mcp.example.com");
        let verifier = Introspection::new(url, "c", "s", base).unwrap();
        assert!(verifier.verify_for("opaque", payroll).is_ok());
        assert!(verifier.verify_for("opaque", payroll).is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 1, "the second answer came from the cache");
        let elsewhere = verifier.verify_for("opaque", "https://mcp.example.com/wiki/mcp");
        assert!(elsewhere.unwrap_err().contains("another audience"), "the verdict for payroll was reused");
        assert!(verifier.verify("opaque").unwrap_err().contains("another audience"), "the base is no audience");
    }

    #[test]
    fn an_unreachable_server_refuses_without_remembering() {
        let expect = Expect::new(ISSUER, AUDIENCE);
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let nobody = Introspection::new("http://127.0.0.1:1/introspect", "c", "s", expect).unwrap();
        assert!(nobody.verify("opaque-token").unwrap_err().contains("introspection"));
        assert!(nobody.cache.lock().unwrap().is_empty());
        assert!(nobody.verify(&"x".repeat(jwt::MAX_TOKEN_LEN + 1)).unwrap_err().contains("too long"));
    }
}
