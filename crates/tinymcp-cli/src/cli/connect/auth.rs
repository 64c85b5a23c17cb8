//! What the client sends a remote server to be let in: static headers (their values from the
//! environment, never logged) and, with the `https` feature, OAuth 2.1 client credentials
//! obtained from the server's own authorization server (`oauth.rs`: an authorization server
//! is reached over HTTPS, so the default build, which speaks plain HTTP only, leaves them out).
//!
//! These are the client's own credentials, held apart from anything a downstream client
//! sends: no constructor takes a request's header, so a gateway cannot pass its caller's token
//! upstream (the spec forbids token passthrough).

use super::http1::{Response, Url};
#[cfg(feature = "https")]
use super::oauth::OAuth;
use std::io;
use std::sync::Arc;

/// A value that must reach the server and nothing else: it has no `Debug` or `Display`, so it
/// cannot slip into a log line or an error message.
pub(crate) struct Secret(String);

impl Secret {
    /// The value of the environment variable `var`; `what` (a flag) names who wanted it when it
    /// is not set or empty.
    pub(crate) fn from_env(var: &str, what: &str) -> Result<Secret, String> {
        let value = std::env::var(var).ok().filter(|v| !v.trim().is_empty());
        let value = value.ok_or_else(|| format!("{what}: the environment variable {var} is not set"))?;
        if value.contains(['\r', '\n', '\0']) {
            return Err(format!("{what}: the environment variable {var} holds a line break"));
        }
        Ok(Secret(value.trim().to_owned()))
    }

    /// A value given otherwise (a `--header` value, where `${VAR}` was replaced).
    pub(crate) fn new(value: String) -> Secret {
        Secret(value)
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

/// The OAuth client of a remote server: its id, its secret (from the environment) and the scope
/// to ask for (else the one the server's challenge or metadata names).
#[cfg_attr(not(feature = "https"), allow(dead_code))]
pub(crate) struct ClientCredentials {
    pub(crate) client_id: String,
    pub(crate) secret: Secret,
    /// The variable the secret came from, for the message when the server refuses it.
    pub(crate) secret_var: String,
    pub(crate) scope: Option<String>,
}

/// Everything the client sends one remote server to be let in. One per upstream, shared by
/// the threads of its session(s).
pub(crate) struct Credentials {
    headers: Vec<(String, Secret)>,
    #[cfg(feature = "https")]
    oauth: Option<OAuth>,
}

impl Credentials {
    /// Static `headers`, and `oauth` client credentials when given (only with the `https`
    /// feature: without it the flags that give them are refused, saying why).
    pub(crate) fn new(headers: Vec<(String, Secret)>, oauth: Option<ClientCredentials>) -> Arc<Credentials> {
        #[cfg(feature = "https")]
        return Arc::new(Credentials { headers, oauth: oauth.map(OAuth::new) });
        #[cfg(not(feature = "https"))]
        {
            debug_assert!(oauth.is_none(), "client credentials need the https feature");
            Arc::new(Credentials { headers })
        }
    }

    /// The headers of every request: the static ones, and `Authorization: Bearer` with the
    /// current token (renewed first when it is about to expire). No token yet: none is sent,
    /// and the server's 401 starts discovery (`after`).
    pub(crate) fn headers(&self) -> Vec<(String, String)> {
        #[allow(unused_mut)]
        let mut all: Vec<_> = self.headers.iter().map(|(n, v)| (n.clone(), v.expose().to_owned())).collect();
        #[cfg(feature = "https")]
        if let Some(bearer) = self.oauth.as_ref().and_then(OAuth::authorization) {
            all.push(("Authorization".to_owned(), bearer));
        }
        all
    }

    /// What to make of `response` to a request to `url`: a 401, with client credentials, gets
    /// a new token (discovering where from, the first time) and `resend`s the request once,
    /// with the new headers; its answer is the one returned, whatever it is. `Err` says why no
    /// token could be had.
    #[cfg_attr(not(feature = "https"), allow(unused_variables))]
    pub(crate) fn after(
        &self,
        url: &Url,
        response: Response,
        resend: impl FnOnce() -> io::Result<Response>,
    ) -> Result<Response, String> {
        #[cfg(feature = "https")]
        if let Some(oauth) = self.oauth.as_ref().filter(|_| response.status == 401) {
            oauth.renew(url, &response)?;
            return resend().map_err(|e| format!("no answer from {url} after a new access token: {e}"));
        }
        Ok(response)
    }
}
