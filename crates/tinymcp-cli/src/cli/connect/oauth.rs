//! OAuth 2.1 client credentials for a remote server (feature `https`). On a 401 the server's
//! protected-resource metadata (RFC 9728, named by its `WWW-Authenticate` challenge or at its
//! well-known path) names the authorization server, whose metadata (RFC 8414, or OpenID
//! discovery) names the token endpoint; the client posts `grant_type=client_credentials` with
//! the `resource` (RFC 8707) and keeps the token until shortly before it expires, then gets
//! another; a request refused with 401 is sent once more with a new one (`auth::Credentials`).

use super::auth::{ClientCredentials, Secret};
use super::http1::{self, Response, Sent, Url};
use serde_json::Value;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long one read of a metadata document or of the token endpoint's answer may take.
const EXCHANGE_WITHIN: Duration = Duration::from_secs(30);
/// The largest metadata document or token answer read.
const DOCUMENT_CAP: usize = 64 * 1024;
/// A token is renewed this long before it expires at most (a quarter of its life for short ones).
const RENEW_AHEAD: Duration = Duration::from_secs(60);

pub(super) struct OAuth {
    client: ClientCredentials,
    state: Mutex<TokenState>,
}

#[derive(Default)]
struct TokenState {
    found: Option<Found>,
    token: Option<Token>,
}

/// What discovery found: where and how to ask for a token, and for what.
struct Found {
    issuer: String,
    token_endpoint: Url,
    /// `client_secret_basic` (else `client_secret_post`).
    basic: bool,
    resource: String,
    scope: Option<String>,
}

struct Token {
    value: Secret,
    /// When to get another before using it; `None`: the server said no lifetime.
    renew_at: Option<Instant>,
}

impl OAuth {
    pub(super) fn new(client: ClientCredentials) -> OAuth {
        OAuth { client, state: Mutex::new(TokenState::default()) }
    }

    /// The `Authorization` value with the current token, renewed first when it is about to
    /// expire; `None` before the first 401 (discovery starts there).
    pub(super) fn authorization(&self) -> Option<String> {
        let mut state = self.state();
        let due = state.token.as_ref().is_some_and(|t| t.renew_at.is_some_and(|at| Instant::now() >= at));
        if due {
            log::debug!("the access token is about to expire: getting another");
            state.token = None;
            if let Err(why) = self.obtain(&mut state) {
                log::warn!("{why}");
            }
        }
        state.token.as_ref().map(|token| format!("Bearer {}", token.value.expose()))
    }

    /// After a 401 from `url`: a new token (discovering where from, the first time).
    pub(super) fn renew(&self, url: &Url, refused: &Response) -> Result<(), String> {
        let mut state = self.state();
        if state.found.is_none() {
            state.found = Some(discover(url, refused, &self.client)?);
        }
        state.token = None;
        self.obtain(&mut state)
    }
    fn state(&self) -> std::sync::MutexGuard<'_, TokenState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gets a token from the token endpoint found (the lock on the state is held: the threads
    /// that need one meanwhile wait for it rather than each asking).
    fn obtain(&self, state: &mut TokenState) -> Result<(), String> {
        let Some(found) = &state.found else { return Ok(()) };
        let client = &self.client;
        let mut form = vec![("grant_type", "client_credentials"), ("resource", found.resource.as_str())];
        if let Some(scope) = &found.scope {
            form.push(("scope", scope));
        }
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        if found.basic {
            // RFC 6749 §2.3.1: each part form-encoded, then Basic.
            let pair = format!("{}:{}", form_encode(&client.client_id), form_encode(client.secret.expose()));
            headers.push(("Authorization".to_owned(), format!("Basic {}", tinymcp::base64::encode(pair.as_bytes()))));
        } else {
            form.push(("client_id", &client.client_id));
            form.push(("client_secret", client.secret.expose()));
        }
        let body = form.iter().map(|(k, v)| format!("{k}={}", form_encode(v))).collect::<Vec<_>>().join("&");
        let endpoint = &found.token_endpoint;
        let failed = |why: &dyn std::fmt::Display| format!("getting an access token from {endpoint}: {why}");
        let mut answer = http1::send(endpoint, "POST", &headers, body.as_bytes())
            .and_then(|sent| sent.response(Some(EXCHANGE_WITHIN)))
            .map_err(|e| failed(&e))?;
        let text = answer.text(DOCUMENT_CAP).map_err(|e| failed(&e))?;
        let json = serde_json::from_str::<Value>(&text).unwrap_or_default();
        if answer.status != 200 {
            // RFC 6749 §5.2: `error` and its description; the body is not logged otherwise.
            let error = json.get("error").and_then(Value::as_str).unwrap_or("no error code");
            let described = json.get("error_description").and_then(Value::as_str).map(|d| format!(": {d}"));
            return Err(format!(
                "the authorization server {} refused the client credentials ({} {error}{}): check the client id {:?} \
                 and the secret in the environment variable {}",
                found.issuer,
                answer.status,
                described.unwrap_or_default(),
                client.client_id,
                client.secret_var
            ));
        }
        let value = json.get("access_token").and_then(Value::as_str).filter(|t| !t.is_empty());
        let value = value.ok_or_else(|| failed(&"the answer has no access_token"))?;
        let kind = json.get("token_type").and_then(Value::as_str).unwrap_or_default();
        if !kind.eq_ignore_ascii_case("bearer") {
            return Err(failed(&format!("a token of type {kind:?}, not Bearer")));
        }
        if value.contains(['\r', '\n', '\0']) {
            return Err(failed(&"a token with a line break"));
        }
        let lifetime = json.get("expires_in").and_then(Value::as_u64).map(Duration::from_secs);
        let renew_at = lifetime.map(|life| Instant::now() + life - RENEW_AHEAD.min(life / 4));
        match lifetime {
            Some(life) => log::info!(
                "access token obtained from {} for {} (expires in {} s)",
                found.issuer,
                found.resource,
                life.as_secs()
            ),
            None => log::info!("access token obtained from {} for {}", found.issuer, found.resource),
        }
        state.token = Some(Token { value: Secret::new(value.to_owned()), renew_at });
        Ok(())
    }
}

/// Finds where tokens for the server at `url` come from: its protected-resource metadata
/// (named by the 401's challenge, else at the well-known path), then its first authorization
/// server's metadata.
fn discover(url: &Url, refused: &Response, client: &ClientCredentials) -> Result<Found, String> {
    let challenge = refused.header("www-authenticate").map(challenge_params).unwrap_or_default();
    let param = |name: &str| challenge.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    let origin = url.origin();
    let path = url.path.split('?').next().unwrap_or("/");
    let candidates = match param("resource_metadata") {
        Some(named) => vec![named],
        None => {
            let mut well_known = vec![format!("{origin}/.well-known/oauth-protected-resource{path}")];
            if path != "/" {
                well_known.push(format!("{origin}/.well-known/oauth-protected-resource"));
            }
            well_known
        }
    };
    let (where_, metadata) = first_document(url, &candidates)
        .map_err(|why| format!("{url} answered 401 and its protected-resource metadata could not be read: {why}"))?;
    let resource = metadata.get("resource").and_then(Value::as_str).unwrap_or_default();
    // RFC 9728 §3.3: metadata for another resource is not used (a token for it would be
    // handed to this server).
    let same = Url::parse(resource, url.connector()).is_ok_and(|r| r.origin() == origin);
    if !same {
        return Err(format!(
            "the protected-resource metadata at {where_} is for {resource:?}, not for a resource on {origin}: refused"
        ));
    }
    let issuer = metadata
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|all| all.first())
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the protected-resource metadata at {where_} names no authorization server"))?;
    let issuer_url = trusted(issuer, url, "the authorization server")?;
    let base = issuer_url.origin();
    let issuer_path = issuer_url.path.trim_end_matches('/');
    let candidates = if issuer_path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{issuer_path}"),
            format!("{base}/.well-known/openid-configuration{issuer_path}"),
            format!("{base}{issuer_path}/.well-known/openid-configuration"),
        ]
    };
    let metadata_at = where_;
    let (where_, server) = first_document(url, &candidates)
        .map_err(|why| format!("the metadata of the authorization server {issuer} could not be read: {why}"))?;
    let said = server.get("issuer").and_then(Value::as_str).unwrap_or_default();
    if said.trim_end_matches('/') != issuer.trim_end_matches('/') {
        return Err(format!(
            "the authorization server metadata at {where_} is for issuer {said:?}, not {issuer:?}: refused"
        ));
    }
    let strings = |name: &str| -> Option<Vec<String>> {
        let all = server.get(name)?.as_array()?;
        Some(all.iter().filter_map(Value::as_str).map(str::to_owned).collect())
    };
    if strings("grant_types_supported").is_some_and(|g| !g.iter().any(|g| g == "client_credentials")) {
        return Err(format!("the authorization server {issuer} does not offer the client_credentials grant"));
    }
    // RFC 8414 §2: without the list, client_secret_basic is the default.
    let methods =
        strings("token_endpoint_auth_methods_supported").unwrap_or_else(|| vec!["client_secret_basic".into()]);
    let basic = if methods.iter().any(|m| m == "client_secret_basic") {
        true
    } else if methods.iter().any(|m| m == "client_secret_post") {
        false
    } else {
        return Err(format!(
            "the authorization server {issuer} takes neither client_secret_basic nor client_secret_post (it takes {})",
            methods.join(", ")
        ));
    };
    let endpoint = server.get("token_endpoint").and_then(Value::as_str);
    let endpoint =
        endpoint.ok_or_else(|| format!("the authorization server metadata at {where_} has no token_endpoint"))?;
    let token_endpoint = trusted(endpoint, url, "the token endpoint")?;
    let scopes_supported = || {
        let all = metadata.get("scopes_supported")?.as_array()?;
        let all: Vec<_> = all.iter().filter_map(Value::as_str).collect();
        (!all.is_empty()).then(|| all.join(" "))
    };
    let scope = client.scope.clone().or_else(|| param("scope")).or_else(scopes_supported);
    log::info!("{url}: tokens from {issuer} (protected-resource metadata at {metadata_at}, its metadata at {where_})");
    Ok(Found { issuer: issuer.to_owned(), token_endpoint, basic, resource: resource.to_owned(), scope })
}

/// `text` as a URL the client secret may be sent to: `https`, or `http` on a loopback host.
fn trusted(text: &str, base: &Url, what: &str) -> Result<Url, String> {
    let url = Url::parse(text, base.connector()).map_err(|why| format!("{what}: {why}"))?;
    let origin = url.origin();
    let loopback = ["http://127.0.0.1:", "http://[::1]:", "http://localhost:"].iter().any(|p| origin.starts_with(p));
    if !origin.starts_with("https://") && !loopback {
        return Err(format!("{what} {text} is plain http beyond loopback: the client secret is not sent there"));
    }
    Ok(url)
}

/// The first of `candidates` answered 200 with a JSON object: where, and what.
fn first_document(base: &Url, candidates: &[String]) -> Result<(String, Value), String> {
    let mut why = String::new();
    for candidate in candidates {
        let url = Url::parse(candidate, base.connector())?;
        let headers = [("Accept".to_owned(), "application/json".to_owned())];
        let got = http1::send(&url, "GET", &headers, &[]).and_then(|sent: Sent| sent.response(Some(EXCHANGE_WITHIN)));
        match got {
            Ok(mut response) if response.status == 200 => match response.text(DOCUMENT_CAP) {
                Ok(text) => match serde_json::from_str::<Value>(&text) {
                    Ok(value) if value.is_object() => return Ok((candidate.clone(), value)),
                    _ => why = format!("{candidate}: not a JSON object"),
                },
                Err(e) => why = format!("{candidate}: {e}"),
            },
            Ok(response) => why = format!("{candidate} answered {}", response.status),
            Err(e) => why = format!("{candidate}: {e}"),
        }
        log::debug!("{why}");
    }
    Err(why)
}

/// The parameters of a `Bearer` challenge (RFC 6750 §3): `name=value` or `name="quoted"`.
fn challenge_params(header: &str) -> Vec<(String, String)> {
    let mut rest = header.trim();
    if rest.len() >= 6 && rest[..6].eq_ignore_ascii_case("bearer") {
        rest = &rest[6..];
    }
    let mut params = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', ',', '\t']);
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim().to_owned();
        rest = rest[eq + 1..].trim_start();
        let mut value = String::new();
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, c)| c)),
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            rest = &quoted[end.min(quoted.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_owned();
            rest = &rest[end..];
        }
        params.push((name, value));
    }
    params
}

/// `application/x-www-form-urlencoded` of one value.
fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(b as char),
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{challenge_params, form_encode};

    #[test]
    fn bearer_challenges_are_read_quoted_or_not() {
        let params = challenge_params(
            r#"Bearer resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="a b", error=invalid_token, error_description="say \"no\"""#,
        );
        let get = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("resource_metadata"), Some("http://h/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(get("scope"), Some("a b"));
        assert_eq!(get("error"), Some("invalid_token"));
        assert_eq!(get("error_description"), Some(r#"say "no""#));
        assert!(challenge_params("Bearer").is_empty());
    }

    #[test]
    fn basic_credentials_are_encoded_as_rfc_6749_says() {
        assert_eq!(form_encode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }
}
