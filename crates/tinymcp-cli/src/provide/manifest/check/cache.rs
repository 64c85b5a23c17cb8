//! A manifest resource's optional `cache`: `{"ttlMs": N, "scope": "public"|"private"}`, the hint
//! 2026-07-28 clients get with its `resources/read` instead of the server-wide one.

use super::{key, Checker};
use serde_json::Value;
use tinymcp::{CacheHint, CacheScope};

const CACHE_KEYS: &[&str] = &["ttlMs", "scope"];

/// The longest `ttlMs` accepted: a year (a larger number would only be rounded by clients whose
/// numbers are doubles).
const MAX_TTL_MS: u64 = 365 * 86_400_000;

impl Checker<'_> {
    /// `cache` of the resource at `path`, if given and valid (both keys required).
    pub(super) fn cache(&mut self, value: Option<&Value>, path: &str) -> Option<CacheHint> {
        let path = key(path, "cache");
        let map = self.object(value?, &path, CACHE_KEYS)?;
        let ttl_ms = match self.required(map, &path, "ttlMs", "a whole number of milliseconds")?.as_u64() {
            Some(ms) if ms <= MAX_TTL_MS => Some(ms),
            _ => {
                self.fail(
                    &key(&path, "ttlMs"),
                    format!("expected a whole number of milliseconds from 0 to {MAX_TTL_MS}"),
                );
                None
            }
        };
        let what = "\"public\" or \"private\"";
        let scope = self.required(map, &path, "scope", what)?;
        let scope = scope.as_str().and_then(CacheScope::parse).or_else(|| {
            self.fail(&key(&path, "scope"), format!("expected {what}, got {scope}"));
            None
        });
        Some(CacheHint { ttl_ms: ttl_ms?, scope: scope? })
    }
}

#[cfg(test)]
mod tests {
    use super::super::manifest;
    use serde_json::json;
    use std::path::Path;

    fn resource_with(cache: serde_json::Value) -> Result<Option<tinymcp::CacheHint>, Vec<String>> {
        let raw = json!({"resources": [{"uri": "note://n", "text": "x", "cache": cache}]});
        match manifest(&raw, Path::new("/")) {
            Ok(checked) => Ok(checked.resources[0].cache),
            Err(problems) => Err(problems.iter().map(ToString::to_string).collect()),
        }
    }

    #[test]
    fn a_resource_cache_hint_is_checked_and_kept() {
        use tinymcp::{CacheHint, CacheScope};
        let hint = resource_with(json!({"ttlMs": 5000, "scope": "public"}));
        assert_eq!(hint, Ok(Some(CacheHint { ttl_ms: 5000, scope: CacheScope::Public })));
        assert_eq!(resource_with(json!({"ttlMs": 0, "scope": "private"})).map(|h| h.map(|h| h.ttl_ms)), Ok(Some(0)));
        for (bad, expected) in [
            (json!(5), "resources[0].cache: expected an object"),
            (json!({"ttlMs": -1, "scope": "public"}), "resources[0].cache.ttlMs: expected a whole number"),
            (json!({"ttlMs": 1, "scope": "shared"}), "resources[0].cache.scope: expected \"public\" or \"private\""),
            (json!({"scope": "public"}), "resources[0].cache: missing \"ttlMs\""),
            (json!({"ttlMs": 1, "scope": "public", "etag": 1}), "resources[0].cache.etag: unknown key"),
        ] {
            let problems = resource_with(bad.clone()).expect_err("refused");
            assert!(problems.iter().any(|p| p.starts_with(expected)), "{bad}: no {expected:?} in {problems:#?}");
        }
    }
}
