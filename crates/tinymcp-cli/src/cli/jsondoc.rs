//! A JSON document that keeps its keys in the order they were written: a host's configuration
//! file read, one server entry changed, and written back with everything else where it was.
//! (`serde_json::Value` sorts keys, which would reorder the whole of a user's file.)

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq)]
pub enum Doc {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json read it.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Doc>),
    /// An object, its members in order.
    Object(Vec<(String, Doc)>),
}

impl Doc {
    /// An object of the given members, in this order.
    pub fn object<const N: usize>(members: [(&str, Doc); N]) -> Doc {
        Doc::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    /// An array of strings.
    pub fn strings(items: &[String]) -> Doc {
        Doc::Array(items.iter().map(|s| Doc::String(s.clone())).collect())
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Doc> {
        match self {
            Doc::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets the member `key` of an object: replaced where it stands, or added at the end.
    /// Does nothing to a value that is not an object.
    pub fn set(&mut self, key: &str, value: Doc) {
        if let Doc::Object(members) = self {
            match members.iter_mut().find(|(k, _)| k == key) {
                Some((_, old)) => *old = value,
                None => members.push((key.to_owned(), value)),
            }
        }
    }

    /// The member `key` of an object, added as an empty object when missing; `None` when this
    /// is not an object, or the member is there but is not an object.
    pub fn object_at(&mut self, key: &str) -> Option<&mut Doc> {
        let Doc::Object(members) = self else { return None };
        let at = match members.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                members.push((key.to_owned(), Doc::Object(Vec::new())));
                members.len() - 1
            }
        };
        match &mut members[at].1 {
            found @ Doc::Object(_) => Some(found),
            _ => None,
        }
    }

    /// Pretty JSON with two-space indents, as hosts write their files.
    pub fn pretty(&self) -> String {
        // Invariant: a Doc holds only strings, finite numbers and containers of them, which
        // always serialise.
        serde_json::to_string_pretty(self).expect("a Doc always serialises")
    }

    /// Compact JSON on one line.
    pub fn compact(&self) -> String {
        // Invariant: as for `pretty`.
        serde_json::to_string(self).expect("a Doc always serialises")
    }
}

impl Serialize for Doc {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Doc::Null => serializer.serialize_unit(),
            Doc::Bool(b) => serializer.serialize_bool(*b),
            Doc::Number(n) => n.serialize(serializer),
            Doc::String(s) => serializer.serialize_str(s),
            Doc::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Doc::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Doc, D::Error> {
        deserializer.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Doc, E> {
        Ok(Doc::Null)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Doc, E> {
        Ok(Doc::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Doc, E> {
        Ok(Doc::Number(n.into()))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Doc, E> {
        Ok(Doc::Number(n.into()))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Doc, E> {
        serde_json::Number::from_f64(n).map(Doc::Number).ok_or_else(|| E::custom("expected a finite number"))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Doc, E> {
        Ok(Doc::String(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Doc, E> {
        Ok(Doc::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Doc::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Doc>()? {
            members.push((k, v));
        }
        Ok(Doc::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_through_a_round_trip() {
        let text = r#"{"z": 1, "a": {"y": [true, null, "s"], "b": 2.5}, "m": -3}"#;
        let doc: Doc = serde_json::from_str(text).unwrap();
        assert_eq!(doc.compact(), r#"{"z":1,"a":{"y":[true,null,"s"],"b":2.5},"m":-3}"#);
    }

    #[test]
    fn set_replaces_in_place_or_appends() {
        let mut doc: Doc = serde_json::from_str(r#"{"b": 1, "a": 2}"#).unwrap();
        doc.set("b", Doc::Bool(false));
        doc.set("c", Doc::Null);
        assert_eq!(doc.compact(), r#"{"b":false,"a":2,"c":null}"#);
    }

    #[test]
    fn object_at_adds_a_missing_object_and_refuses_another_kind() {
        let mut doc: Doc = serde_json::from_str(r#"{"s": "x"}"#).unwrap();
        assert!(doc.object_at("s").is_none());
        doc.object_at("new").unwrap().set("k", Doc::Bool(true));
        assert_eq!(doc.compact(), r#"{"s":"x","new":{"k":true}}"#);
    }
}
