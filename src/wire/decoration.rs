//! The decoration of every 2026-07-28 result (`resultType`, the server's identity in `_meta`,
//! the method's cache hint) as plain data the server computes before the result leaves for its
//! writer, and how the writer writes it around the result's own members. Calls nothing of the
//! server: the wire holds data.

use super::typed::Members;
use serde::ser::{Serialize, SerializeMap};
use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::Arc;

/// A cache hint (SEP-2549) as the wire writes it: `ttlMs` and `cacheScope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hint {
    pub ttl_ms: u64,
    /// `public` or `private`.
    pub scope: &'static str,
}

/// `_meta` key of the server's identity on every 2026-07-28 result.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What `decorate` adds to a 2026-07-28 result, as data the server computed before the result
/// left for its writer: the identity of the server that made it and the method's cache hint.
/// Members the result has already win (an `input_required` round's `resultType`, a
/// registration's own cache hint), and the server's identity joins the result's own `_meta`.
#[derive(Debug)]
pub(crate) struct Decoration {
    /// The server's identity, serialised once (`Server::latest_info`).
    info: Arc<Box<RawValue>>,
    hint: Option<Hint>,
    /// `_meta` for a result with none of its own, serialised once.
    meta_alone: Box<RawValue>,
    /// Every member it adds to a result that has none of them and no `_meta` (the usual
    /// result), serialised once: `"_meta":{..},"resultType":"complete",..`.
    alone: Box<str>,
}

impl Decoration {
    /// The decoration of results made by the server `info` names, with `hint`.
    pub(crate) fn new(info: Arc<Box<RawValue>>, hint: Option<Hint>) -> Decoration {
        // Invariant: `info` is JSON, so this is too.
        let meta_alone = RawValue::from_string(format!("{{\"{SERVER_INFO}\":{}}}", info.get())).unwrap_or_default();
        let mut decoration = Decoration { info, hint, meta_alone, alone: Box::default() };
        let mut alone = Vec::with_capacity(256);
        // Writing into memory never fails, and these members always serialize.
        let _ = decoration.write(None, None, &mut Members::new(&mut alone));
        // serde_json writes UTF-8 only.
        decoration.alone = String::from_utf8(alone).unwrap_or_default().into();
        decoration
    }

    /// Writes `_meta` and the members a result whose own members are `object` (`None`: a typed
    /// result, which has none of these) lacks.
    pub(crate) fn write(
        &self,
        object: Option<&serde_json::Map<String, Value>>,
        own_meta: Option<&Value>,
        members: &mut Members<'_>,
    ) -> serde_json::Result<()> {
        let has = |key: &str| object.is_some_and(|map| map.contains_key(key));
        match own_meta {
            None => members.entry("_meta", &*self.meta_alone)?,
            own => members.entry("_meta", &WithInfo { own, info: &self.info })?,
        }
        let result_type = object.and_then(|map| map.get("resultType"));
        if result_type.is_none() {
            members.entry("resultType", "complete")?;
        }
        if let (Some(hint), true) = (self.hint, result_type.is_none_or(|t| t == "complete")) {
            if !has("ttlMs") {
                members.entry("ttlMs", &hint.ttl_ms)?;
            }
            if !has("cacheScope") {
                members.entry("cacheScope", hint.scope)?;
            }
        }
        Ok(())
    }
}

impl Decoration {
    /// Writes `_meta` (a tool's result's own, `own`, with the server's identity added) and the
    /// members it adds, none of which a tool's result has.
    pub(crate) fn write_around(&self, own: Option<&Value>, members: &mut Members<'_>) -> serde_json::Result<()> {
        match own {
            None => members.raw(&self.alone),
            own => self.write(None, own, members),
        }
    }

    /// About how many bytes it adds: its server identity and about 100 bytes of members.
    pub(crate) fn size_hint(&self) -> usize {
        self.meta_alone.get().len() + 100
    }
}

/// A result's own `_meta` with the server's identity added (a `_meta` that is not an object
/// is left as it is).
struct WithInfo<'a> {
    own: Option<&'a Value>,
    info: &'a RawValue,
}

impl Serialize for WithInfo<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let own = match self.own {
            Some(Value::Object(own)) => Some(own),
            Some(other) => return other.serialize(serializer),
            None => None,
        };
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in own.into_iter().flatten().filter(|(key, _)| *key != SERVER_INFO) {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry(SERVER_INFO, self.info)?;
        map.end()
    }
}
