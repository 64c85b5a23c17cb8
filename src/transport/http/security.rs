//! Who may talk to the HTTP server: `Host` and `Origin` checks against DNS rebinding, CORS for
//! the origins the operator allowed, and the optional bearer token.

/// The access policy, fixed at start-up: start from `Access::default()` and set fields.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Access {
    /// Origins allowed besides loopback ones (`--allow-origin`); they also get CORS headers.
    pub allowed_origins: Vec<String>,
    /// Whether the server listens on a loopback address only: then `Host` must be loopback too.
    pub loopback_only: bool,
    /// The bearer token every request must carry, if any.
    pub token: Option<String>,
}

/// Why a request is refused.
#[derive(Debug, PartialEq)]
pub(super) enum Refusal {
    /// 403: a foreign `Host` or `Origin`.
    Forbidden(String),
    /// 401: no or the wrong bearer token.
    Unauthorized,
}

impl Access {
    /// Checks `Host`, `Origin` and `Authorization` of one request.
    pub(super) fn check(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<(), Refusal> {
        if self.loopback_only {
            match host {
                Some(host) if is_loopback_host(host) => {}
                Some(host) => return Err(Refusal::Forbidden(format!("Host {host:?} is not this loopback server"))),
                None => return Err(Refusal::Forbidden("a Host header is required".into())),
            }
        }
        if let Some(origin) = origin {
            if !self.origin_allowed(origin) {
                return Err(Refusal::Forbidden(format!("Origin {origin:?} is not allowed (see --allow-origin)")));
            }
        }
        if let Some(token) = &self.token {
            let given = authorization.and_then(|a| a.strip_prefix("Bearer ")).unwrap_or("");
            if !constant_time_eq(given.trim().as_bytes(), token.as_bytes()) {
                return Err(Refusal::Unauthorized);
            }
        }
        Ok(())
    }

    /// Loopback origins are always allowed (a local client); others only when listed.
    pub(super) fn origin_allowed(&self, origin: &str) -> bool {
        self.allowed_origins.iter().any(|o| o == "*" || o.eq_ignore_ascii_case(origin))
            || origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")).is_some_and(is_loopback_host)
    }

    /// Whether to answer with CORS headers for this origin (only ones the operator listed).
    pub(super) fn cors_origin<'a>(&self, origin: Option<&'a str>) -> Option<&'a str> {
        origin.filter(|o| self.allowed_origins.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(o)))
    }
}

/// `localhost`, `127.0.0.1` (any 127/8), `[::1]`, each with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((inner, port)) if port.is_empty() || port.starts_with(':') => inner,
            _ => return false,
        }
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name == "::1"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// Compares without stopping at the first difference, so timing does not reveal the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, &x) in b.iter().enumerate() {
        diff |= usize::from(x ^ a.get(i).copied().unwrap_or(!x));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> Access {
        Access { loopback_only: true, ..Default::default() }
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_forbidden() {
        for host in ["localhost", "localhost:8080", "127.0.0.1:1", "127.1.2.3", "[::1]:9", "[::1]"] {
            assert_eq!(local().check(Some(host), None, None), Ok(()), "{host}");
        }
        for host in ["evil.example.com", "evil.example.com:8080", "localhost.evil.com", "[::2]:1", "10.0.0.1"] {
            assert!(matches!(local().check(Some(host), None, None), Err(Refusal::Forbidden(_))), "{host}");
        }
    }

    #[test]
    fn origins_must_be_loopback_or_listed() {
        let access = Access { allowed_origins: vec!["https://app.example".into()], ..local() };
        assert_eq!(access.check(Some("localhost"), Some("http://127.0.0.1:3000"), None), Ok(()));
        assert_eq!(access.check(Some("localhost"), Some("https://app.example"), None), Ok(()));
        assert!(access.check(Some("localhost"), Some("http://evil.example.com"), None).is_err());
        assert_eq!(access.cors_origin(Some("https://app.example")), Some("https://app.example"));
        assert_eq!(access.cors_origin(Some("http://localhost")), None);
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let access = Access { token: Some("s3cret".into()), ..Default::default() };
        assert_eq!(access.check(None, None, Some("Bearer s3cret")), Ok(()));
        for wrong in [None, Some("Bearer s3cre"), Some("Bearer s3cretx"), Some("Basic s3cret"), Some("Bearer ")] {
            assert_eq!(access.check(None, None, wrong), Err(Refusal::Unauthorized), "{wrong:?}");
        }
    }
}
