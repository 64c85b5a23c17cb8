//! Cache hints of 2026-07-28 results (SEP-2549): `ttlMs` and `cacheScope`, set server-wide in
//! `Options` and per resource or template registration. Pure data; depends on nothing.

/// `ttlMs` and `cacheScope` of a 2026-07-28 result (SEP-2549): how long a client may reuse it,
/// and whether a shared cache may (`Public`) or only the requesting user's (`Private`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// Milliseconds a client may reuse the result; 0 means do not reuse it.
    pub ttl_ms: u64,
    /// Who may share the cached result.
    pub scope: CacheScope,
}

/// Who may share a cached 2026-07-28 result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Any cache: the result holds no per-user data.
    Public,
    /// Only the requesting user's cache.
    Private,
}

impl CacheScope {
    /// The wire name: `public` or `private`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }

    /// The scope a wire name spells, if any.
    pub fn parse(name: &str) -> Option<CacheScope> {
        match name {
            "public" => Some(CacheScope::Public),
            "private" => Some(CacheScope::Private),
            _ => None,
        }
    }
}

impl CacheHint {
    /// Puts the hint on a result object as `ttlMs` and `cacheScope`, unless it has them already
    /// (a hint chosen nearer the data wins).
    pub(crate) fn apply(self, result: &mut serde_json::Map<String, serde_json::Value>) {
        result.entry("ttlMs").or_insert_with(|| self.ttl_ms.into());
        result.entry("cacheScope").or_insert_with(|| self.scope.as_str().into());
    }
}
