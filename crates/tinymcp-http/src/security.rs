//! Who may talk to the HTTP server: `Host` and `Origin` checks against DNS rebinding, CORS for
//! the origins the operator allowed, and the optional bearer token. Behind a reverse proxy the
//! operator names (`trusted_proxies`), that proxy's `X-Forwarded-Host`/`X-Forwarded-Proto` stand
//! for the client's own `Host` and scheme; from any other peer they are ignored. Bound beyond
//! loopback, `Host` must still name this server (a loopback name, an address it listens on, or
//! an `allowed_hosts` name), so DNS rebinding does not rest on `Origin` alone. Tokens are
//! checked by `auth`: the static one, or OAuth access tokens.

use super::auth::{Failure, Grant, OAuth, StaticToken};
use super::http1::is_host_syntax;
use std::net::IpAddr;

/// The shortest bearer token accepted, in bytes.
pub(crate) const MIN_TOKEN_LEN: usize = 16;

/// The access policy, fixed at start-up: start from `Access::default()` and set fields.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Access {
    /// Origins allowed besides loopback ones (`--allow-origin`); they also get CORS headers.
    /// `*` allows every origin but `null`, and only with a token.
    pub allowed_origins: Vec<String>,
    /// Whether the server listens on a loopback address only: then `Host` must be loopback too.
    pub loopback_only: bool,
    /// Names a client may put in `Host` besides loopback ones and the address the server
    /// listens on (`--allow-host`), when it listens beyond loopback; a port is ignored.
    pub allowed_hosts: Vec<String>,
    /// The address the server listens on, set when it starts.
    pub(super) listening: Option<IpAddr>,
    /// The bearer token every request must carry, if any (a [`StaticToken`](super::StaticToken)).
    pub token: Option<String>,
    /// OAuth: every request carries an access token `oauth.verifier` accepts, with the scopes
    /// it needs; the protected resource metadata is served without one. Not with `token`.
    pub oauth: Option<OAuth>,
    /// Reverse proxies (`--trusted-proxy`): only when the TCP peer is one of them do its
    /// `X-Forwarded-Host` and `X-Forwarded-Proto` count for the `Host` and `Origin` checks.
    pub trusted_proxies: Vec<IpAddr>,
}

/// Where a request says it was sent, as the checks see it.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Target<'a> {
    /// `Host`, or the trusted proxy's `X-Forwarded-Host`.
    pub(super) host: Option<&'a str>,
    /// Through a trusted proxy, the origin the client addressed (`X-Forwarded-Proto` and
    /// `X-Forwarded-Host`): a browser `Origin` equal to it is the same origin, so allowed.
    pub(super) own_origin: Option<String>,
}

/// Why a request is refused.
#[derive(Debug, PartialEq)]
pub(super) enum Refusal {
    /// 403: a foreign `Host` or `Origin`.
    Forbidden(String),
    /// 401 (no or an invalid bearer token) or 403 (a token without the scopes needed).
    Unauthorized(Failure),
}

/// The last entry of a forwarded header's list: the one the nearest proxy (the trusted one) wrote.
fn last_entry(value: &str) -> &str {
    value.rsplit(',').next().unwrap_or(value).trim()
}

/// Why a bearer token cannot be used: it is empty, shorter than 16 bytes (`MIN_TOKEN_LEN`), or
/// holds whitespace or a control character (say a second line), so no header could match it.
pub fn check_token(token: &str) -> Result<(), String> {
    if token.trim().is_empty() {
        return Err(
            "the bearer token is empty or only whitespace: set a real token, or none to serve without one".into()
        );
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("the bearer token holds a line break, a space or a control character: expected one line of \
                    visible characters, e.g. from `openssl rand -hex 32`"
            .into());
    }
    if token.len() < MIN_TOKEN_LEN {
        return Err(format!(
            "the bearer token is {} bytes: expected at least {MIN_TOKEN_LEN}, e.g. from `openssl rand -hex 32`",
            token.len()
        ));
    }
    Ok(())
}

/// The credentials of an `Authorization` value of the bearer scheme: the scheme compares
/// without case and one or more spaces or tabs follow it (RFC 9110 §11.4).
fn bearer(authorization: &str) -> Option<&str> {
    let (scheme, rest) = authorization.split_once([' ', '\t'])?;
    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim_matches([' ', '\t']))
}

impl Access {
    /// Why this policy cannot be served: a bad token, `*` among the origins without a token
    /// (any web page could drive the server), or `null` among them (every sandboxed page and
    /// local file shares that origin).
    pub(super) fn validate(&self) -> Result<(), String> {
        if let Some(token) = &self.token {
            check_token(token)?;
        }
        if let Some(oauth) = &self.oauth {
            if self.token.is_some() {
                return Err("a static bearer token and OAuth exclude each other: choose one".into());
            }
            oauth.validate()?;
        }
        if self.allowed_origins.iter().any(|o| o == "*") && !self.authenticates() {
            return Err("--allow-origin '*' lets any web page call every tool: it needs a bearer token \
                        (--token-file or TINYMCP_TOKEN) or OAuth; or list the origins"
                .into());
        }
        if self.allowed_origins.iter().any(|o| o.eq_ignore_ascii_case("null")) {
            return Err("--allow-origin null would admit every sandboxed page and local file: list real origins".into());
        }
        if let Some(bad) = self.allowed_hosts.iter().find(|h| !is_host_syntax(h)) {
            return Err(format!("--allow-host {bad:?}: expected a host name, optionally with :port"));
        }
        Ok(())
    }

    /// What the checks compare: `host` and nothing else, unless `peer` is a trusted proxy that
    /// sent `X-Forwarded-Host` (`forwarded_host`) and maybe `X-Forwarded-Proto`.
    pub(super) fn target<'a>(
        &self,
        peer: impl FnOnce() -> Option<IpAddr>,
        host: Option<&'a str>,
        forwarded_host: Option<&'a str>,
        forwarded_proto: Option<&'a str>,
    ) -> Target<'a> {
        let plain = Target { host, own_origin: None };
        let Some(forwarded_host) = forwarded_host.map(last_entry).filter(|h| !h.is_empty()) else { return plain };
        if self.trusted_proxies.is_empty() {
            return plain;
        }
        // Both spellings of an IPv4 peer on a dual-stack socket (`::ffff:a.b.c.d`) match.
        let trusted = peer().is_some_and(|p| self.trusted_proxies.iter().any(|t| t.to_canonical() == p.to_canonical()));
        if !trusted {
            log::debug!("X-Forwarded-Host from a peer that is not a trusted proxy: ignored");
            return plain;
        }
        let scheme = match forwarded_proto.map(last_entry) {
            Some(p) if p.eq_ignore_ascii_case("https") => "https",
            _ => "http",
        };
        Target { host: Some(forwarded_host), own_origin: Some(format!("{scheme}://{forwarded_host}")) }
    }

    /// Whether every request must carry a token (static or OAuth).
    pub(super) fn authenticates(&self) -> bool {
        self.token.is_some() || self.oauth.is_some()
    }

    /// Checks `Host` (or what `target` made of it), `Origin` and `Authorization` of one request
    /// for the server at `resource` (its canonical URL, under OAuth the audience its token must
    /// name); under OAuth, what its token grants.
    pub(super) fn check(
        &self,
        target: &Target<'_>,
        origin: Option<&str>,
        authorization: Option<&str>,
        resource: &str,
    ) -> Result<Option<Grant>, Refusal> {
        self.check_place(target, origin).map_err(Refusal::Forbidden)?;
        self.authorize(authorization, resource).map_err(Refusal::Unauthorized)
    }

    /// Checks `Host` (or what `target` made of it) and `Origin`: where the request was sent,
    /// and from which page. The protected resource metadata needs this and no token.
    pub(super) fn check_place(&self, target: &Target<'_>, origin: Option<&str>) -> Result<(), String> {
        let host = target.host;
        if self.loopback_only {
            match host {
                Some(host) if is_host_syntax(host) && is_loopback_host(host) => {}
                Some(host) => return Err(format!("Host {host:?} is not this loopback server")),
                None => return Err("a Host header is required".into()),
            }
        } else {
            match host {
                Some(host) if self.host_allowed(host) => {}
                Some(host) => return Err(format!("Host {host:?} does not name this server (see --allow-host)")),
                None => return Err("a Host header is required".into()),
            }
        }
        if let Some(origin) = origin {
            let same = target.own_origin.as_deref().is_some_and(|own| own.eq_ignore_ascii_case(origin));
            if !same && !self.origin_allowed(origin) {
                return Err(format!("Origin {origin:?} is not allowed (see --allow-origin)"));
            }
        }
        Ok(())
    }

    /// Checks the request's bearer token, if this policy wants one (under OAuth, for
    /// `resource`): what an OAuth token grants (its scopes then gate tools), `None` when scopes
    /// are not checked.
    pub(super) fn authorize(&self, authorization: Option<&str>, resource: &str) -> Result<Option<Grant>, Failure> {
        let given = authorization.and_then(bearer).map(str::trim).filter(|t| !t.is_empty());
        if let Some(oauth) = &self.oauth {
            return oauth.authorize(given, resource).map(Some);
        }
        match &self.token {
            Some(token) => {
                StaticToken::check(token, given.ok_or(Failure::Missing)?).map(|_| None).map_err(Failure::Invalid)
            }
            None => Ok(None),
        }
    }

    /// The `WWW-Authenticate` value that goes with a token refused for `resource`.
    pub(super) fn challenge(&self, failure: &Failure, resource: &str) -> String {
        match &self.oauth {
            Some(oauth) => oauth.challenge(failure, resource),
            None => "Bearer".into(),
        }
    }

    /// Loopback origins are always allowed (a local client); others only when listed. The
    /// opaque origin `null` never is.
    pub(super) fn origin_allowed(&self, origin: &str) -> bool {
        self.listed(origin)
            || origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")).is_some_and(is_loopback_host)
    }

    /// Whether to answer with CORS headers for this origin (only ones the operator listed).
    pub(super) fn cors_origin<'a>(&self, origin: Option<&'a str>) -> Option<&'a str> {
        origin.filter(|o| self.listed(o))
    }

    fn listed(&self, origin: &str) -> bool {
        origin != "null" && self.allowed_origins.iter().any(|o| o == "*" || o.eq_ignore_ascii_case(origin))
    }

    /// Beyond loopback: a loopback name, an address this server listens on (any IP literal
    /// when it listens on every address: which one the client used is unknown behind NAT, and
    /// an address is no name an attacker could rebind), or an allowed name.
    fn host_allowed(&self, host: &str) -> bool {
        if !is_host_syntax(host) {
            return false;
        }
        if is_loopback_host(host) {
            return true;
        }
        let name = host_name(host);
        if let Ok(ip) = name.parse::<IpAddr>() {
            if self.listening.is_some_and(|l| l.is_unspecified() || l.to_canonical() == ip.to_canonical()) {
                return true;
            }
        }
        let name = name.strip_suffix('.').unwrap_or(name);
        self.allowed_hosts.iter().any(|allowed| {
            let allowed = host_name(allowed);
            allowed.strip_suffix('.').unwrap_or(allowed).eq_ignore_ascii_case(name)
        })
    }
}

/// The name of `host[:port]`, an IP literal without its brackets.
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or(rest, |(inner, _)| inner),
        None => host.split_once(':').map_or(host, |(name, _)| name),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> Access {
        Access { loopback_only: true, ..Default::default() }
    }

    fn at(host: &str) -> Target<'_> {
        Target { host: Some(host), own_origin: None }
    }

    const PROXY: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 5));
    const OTHER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 6));

    #[test]
    fn forwarded_headers_count_only_from_the_trusted_proxy() {
        let access = Access { trusted_proxies: vec![PROXY], ..local() };
        // From the proxy: the client's own host is what is checked, and its origin is allowed.
        let through = access.target(|| Some(PROXY), Some("backend"), Some("localhost:8080"), Some("https"));
        assert_eq!(through.host, Some("localhost:8080"));
        assert_eq!(access.check(&through, Some("https://localhost:8080"), None, ""), Ok(None));
        // A rebinding attack through the proxy still fails: the client's host is foreign.
        let rebound = access.target(|| Some(PROXY), Some("backend"), Some("evil.example"), None);
        assert!(matches!(access.check(&rebound, None, None, ""), Err(Refusal::Forbidden(_))));
        // From any other peer a forged X-Forwarded-Host is ignored: Host decides.
        let forged = access.target(|| Some(OTHER), Some("evil.example"), Some("localhost"), Some("https"));
        assert_eq!(forged, at("evil.example"));
        assert!(matches!(access.check(&forged, None, None, ""), Err(Refusal::Forbidden(_))));
        // With no proxy configured, the peer is not even looked up.
        let nobody = local().target(|| panic!("no peer lookup"), Some("localhost"), Some("evil.example"), None);
        assert_eq!(nobody, at("localhost"));
        // The IPv4-mapped spelling of the proxy's address is the proxy; the last list entry counts.
        let mapped = IpAddr::V6(std::net::Ipv4Addr::new(10, 0, 0, 5).to_ipv6_mapped());
        let listed = access.target(|| Some(mapped), Some("backend"), Some("evil.example, localhost"), None);
        assert_eq!(listed.host, Some("localhost"));
    }

    #[test]
    fn the_forwarded_origin_counts_on_a_public_bind_too() {
        let access =
            Access { trusted_proxies: vec![PROXY], allowed_hosts: vec!["mcp.example".into()], ..Default::default() };
        let through = access.target(|| Some(PROXY), Some("10.0.0.7:8080"), Some("mcp.example"), Some("https"));
        assert_eq!(access.check(&through, Some("https://mcp.example"), None, ""), Ok(None));
        assert!(access.check(&through, Some("http://mcp.example"), None, "").is_err(), "the scheme is part of it");
        let direct = access.target(|| Some(OTHER), Some("10.0.0.7:8080"), Some("mcp.example"), Some("https"));
        assert!(access.check(&direct, Some("https://mcp.example"), None, "").is_err());
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_forbidden() {
        for host in ["localhost", "localhost:8080", "127.0.0.1:1", "127.1.2.3", "[::1]:9", "[::1]"] {
            assert_eq!(local().check(&at(host), None, None, ""), Ok(None), "{host}");
        }
        for host in ["evil.example.com", "evil.example.com:8080", "localhost.evil.com", "[::2]:1", "10.0.0.1"] {
            assert!(matches!(local().check(&at(host), None, None, ""), Err(Refusal::Forbidden(_))), "{host}");
        }
    }

    #[test]
    fn origins_must_be_loopback_or_listed() {
        let access = Access { allowed_origins: vec!["https://app.example".into()], ..local() };
        assert_eq!(access.check(&at("localhost"), Some("http://127.0.0.1:3000"), None, ""), Ok(None));
        assert_eq!(access.check(&at("localhost"), Some("https://app.example"), None, ""), Ok(None));
        assert!(access.check(&at("localhost"), Some("http://evil.example.com"), None, "").is_err());
        assert_eq!(access.cors_origin(Some("https://app.example")), Some("https://app.example"));
        assert_eq!(access.cors_origin(Some("http://localhost")), None);
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let access = Access { token: Some("s3cret".into()), ..local() };
        assert_eq!(access.check(&at("localhost"), None, Some("Bearer s3cret"), ""), Ok(None));
        for wrong in [None, Some("Bearer s3cre"), Some("Bearer s3cretx"), Some("Basic s3cret"), Some("Bearer ")] {
            assert!(
                matches!(access.check(&at("localhost"), None, wrong, ""), Err(Refusal::Unauthorized(_))),
                "{wrong:?}"
            );
        }
        for right in ["bearer s3cret", "BEARER  s3cret", "Bearer\ts3cret", "Bearer \t s3cret"] {
            assert_eq!(access.check(&at("localhost"), None, Some(right), ""), Ok(None), "{right:?}");
        }
        assert!(matches!(
            access.check(&at("localhost"), None, Some("Bearers3cret"), ""),
            Err(Refusal::Unauthorized(_))
        ));
    }

    #[test]
    fn tokens_and_origins_that_cannot_be_served_are_refused() {
        let long = "0123456789abcdef";
        assert_eq!(check_token(long), Ok(()));
        for bad in ["", "  ", "0123456789abcde", "0123456789abcdef\n0123456789abcdef", "0123456789 abcdef"] {
            assert!(check_token(bad).is_err(), "{bad:?}");
        }
        let wildcard = Access { allowed_origins: vec!["*".into()], ..local() };
        assert!(wildcard.validate().unwrap_err().contains("token"));
        let with_token = Access { token: Some(long.into()), ..wildcard };
        assert_eq!(with_token.validate(), Ok(()));
        assert!(!with_token.origin_allowed("null") && with_token.cors_origin(Some("null")).is_none());
        assert_eq!(with_token.cors_origin(Some("https://any.example")), Some("https://any.example"));
        let null = Access { allowed_origins: vec!["null".into()], token: Some(long.into()), ..local() };
        assert!(null.validate().is_err());
    }

    #[test]
    fn beyond_loopback_the_host_must_name_this_server() {
        let on = |ip: &str| Access {
            allowed_hosts: vec!["mcp.example".into()],
            listening: Some(ip.parse().unwrap()),
            ..Default::default()
        };
        let specific = on("192.0.2.7");
        for host in ["localhost:1", "192.0.2.7:8080", "mcp.example", "MCP.EXAMPLE:443", "mcp.example."] {
            assert_eq!(specific.check(&at(host), None, None, ""), Ok(None), "{host}");
        }
        for host in ["evil.example", "192.0.2.8", "mcp.example.evil", "localhost:80@evil.com", ""] {
            assert!(matches!(specific.check(&at(host), None, None, ""), Err(Refusal::Forbidden(_))), "{host}");
        }
        assert!(specific.check(&Target::default(), None, None, "").is_err(), "no Host");
        let every = on("0.0.0.0");
        for host in ["10.1.2.3:8080", "[fe80::1]", "mcp.example"] {
            assert_eq!(every.check(&at(host), None, None, ""), Ok(None), "{host}");
        }
        assert!(every.check(&at("evil.example"), None, None, "").is_err());
    }
}
