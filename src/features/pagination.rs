//! Opaque cursors and page slicing shared by every `*/list` method.
//! Spec (utilities/pagination): cursors are opaque strings and an invalid one
//! is `-32602`; callers map [`InvalidCursor`] to that. Depends only on `crate::util::base64`.

use crate::wire::error::RpcError;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;

/// The params every `*/list` takes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ListParams {
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The answer of a list method: the page of `items` that starts at `cursor` under `key`, each
/// shaped by `to_wire`, and `nextCursor` when more follow. Every `*/list` answers with it, and an
/// extension's own list method can too (with [`RequestCx::page_size`](crate::RequestCx::page_size)):
/// cursors are opaque, and one this function did not make is `-32602` (spec: utilities/pagination).
pub fn list_result<T>(
    key: &str,
    items: &[T],
    cursor: Option<&str>,
    page_size: usize,
    to_wire: impl Fn(&T) -> Value,
) -> Result<Value, RpcError> {
    let (page, next) = page(items, cursor, page_size).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    let mut result = Map::new();
    result.insert(key.into(), page.iter().map(to_wire).collect());
    if let Some(next) = next {
        result.insert("nextCursor".into(), next.into());
    }
    Ok(Value::Object(result))
}

/// Page size used when the caller passes a limit of 0.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Tag in front of the offset, so a random base64 string is not taken for a cursor.
const TAG: &str = "o:";

/// Longest decimal offset we accept (`usize::MAX` on 64-bit has 20 digits).
const MAX_DIGITS: usize = 20;

/// A cursor that we did not issue, or that no longer points into the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidCursor;

impl fmt::Display for InvalidCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid cursor")
    }
}

impl std::error::Error for InvalidCursor {}

/// Encodes a list offset as an opaque cursor string.
pub fn encode_cursor(offset: usize) -> String {
    crate::util::base64::encode(format!("{TAG}{offset}").as_bytes())
}

/// Decodes a cursor made by [`encode_cursor`] back into its offset.
pub fn decode_cursor(c: &str) -> Result<usize, InvalidCursor> {
    // A real cursor is short; refuse to decode anything large a peer sends.
    if c.len() > 4 * (TAG.len() + MAX_DIGITS) {
        return Err(InvalidCursor);
    }
    let bytes = crate::util::base64::decode(c).map_err(|_| InvalidCursor)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| InvalidCursor)?;
    let digits = text.strip_prefix(TAG).ok_or(InvalidCursor)?;
    // `parse` would also accept a leading '+'; only the canonical form is ours.
    let canonical =
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    if !canonical {
        return Err(InvalidCursor);
    }
    digits.parse().map_err(|_| InvalidCursor)
}

/// Returns the page of `items` that starts at `cursor` (the start when
/// `None`) with at most `limit` items ([`DEFAULT_PAGE_SIZE`] when 0), and the
/// cursor of the next page when more items follow.
///
/// A cursor at exactly the end gives an empty page with no next cursor; one
/// beyond the end, or one we did not make, is [`InvalidCursor`].
pub fn page<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
    limit: usize,
) -> Result<(&'a [T], Option<String>), InvalidCursor> {
    let limit = if limit == 0 { DEFAULT_PAGE_SIZE } else { limit };
    let start = match cursor {
        Some(c) => decode_cursor(c)?,
        None => 0,
    };
    let rest = items.get(start..).ok_or(InvalidCursor)?;
    let len = rest.len().min(limit);
    let this_page = rest.get(..len).ok_or(InvalidCursor)?;
    let next = (len < rest.len()).then(|| encode_cursor(start + len));
    Ok((this_page, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows every cursor from the first page and collects the pages.
    fn all_pages(items: &[u32], limit: usize) -> Vec<Vec<u32>> {
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let (slice, next) = page(items, cursor.as_deref(), limit).unwrap();
            pages.push(slice.to_vec());
            match next {
                Some(c) => cursor = Some(c),
                None => return pages,
            }
        }
    }

    #[test]
    fn cursor_round_trips() {
        for offset in [0, 1, 9, 10, 99, 100, 12_345, usize::MAX] {
            assert_eq!(decode_cursor(&encode_cursor(offset)), Ok(offset));
        }
    }

    #[test]
    fn cursor_is_opaque_base64() {
        let c = encode_cursor(123);
        assert!(!c.contains("123"), "{c}");
        assert_eq!(crate::util::base64::decode(&c).unwrap(), b"o:123");
    }

    #[test]
    fn garbage_cursors_are_invalid() {
        let b64 = |s: &str| crate::util::base64::encode(s.as_bytes());
        let bad = [
            String::new(),
            "not base64!".to_string(),
            "o:12".to_string(),
            b64(""),
            b64("12"),
            b64("o:"),
            b64("o:-1"),
            b64("o:+1"),
            b64("o:1a"),
            b64("o: 1"),
            b64("o:007"),
            b64("x:1"),
            b64("o:99999999999999999999999"),
            crate::util::base64::encode(&[b'o', b':', 0xFF]),
            "A".repeat(10_000),
        ];
        for c in bad {
            assert_eq!(decode_cursor(&c), Err(InvalidCursor), "{c:?}");
        }
    }

    #[test]
    fn first_page_without_cursor() {
        let items: Vec<u32> = (0..10).collect();
        let (slice, next) = page(&items, None, 3).unwrap();
        assert_eq!(slice, &[0, 1, 2]);
        assert_eq!(next, Some(encode_cursor(3)));
    }

    #[test]
    fn following_cursors_visits_every_item_once() {
        let items: Vec<u32> = (0..10).collect();
        let pages = all_pages(&items, 3);
        assert_eq!(pages, vec![vec![0, 1, 2], vec![3, 4, 5], vec![6, 7, 8], vec![9]]);
        let pages = all_pages(&items, 5);
        assert_eq!(pages, vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]);
    }

    #[test]
    fn exact_fit_has_no_next_cursor() {
        let items: Vec<u32> = (0..4).collect();
        assert_eq!(page(&items, None, 4).unwrap(), (&items[..], None));
    }

    #[test]
    fn limit_zero_means_default_page_size() {
        let items: Vec<u32> = (0..250).collect();
        let (slice, next) = page(&items, None, 0).unwrap();
        assert_eq!(slice.len(), DEFAULT_PAGE_SIZE);
        assert_eq!(next, Some(encode_cursor(DEFAULT_PAGE_SIZE)));
        let pages = all_pages(&items, 0);
        assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), vec![100, 100, 50]);
    }

    #[test]
    fn cursor_at_end_gives_empty_page() {
        let items: Vec<u32> = (0..5).collect();
        let (slice, next) = page(&items, Some(&encode_cursor(5)), 2).unwrap();
        assert!(slice.is_empty());
        assert_eq!(next, None);
    }

    #[test]
    fn cursor_beyond_end_is_invalid() {
        let items: Vec<u32> = (0..5).collect();
        assert_eq!(page(&items, Some(&encode_cursor(6)), 2), Err(InvalidCursor));
        let max = encode_cursor(usize::MAX);
        assert_eq!(page(&items, Some(&max), usize::MAX), Err(InvalidCursor));
    }

    #[test]
    fn huge_limit_does_not_overflow() {
        let items: Vec<u32> = (0..5).collect();
        let (slice, next) = page(&items, Some(&encode_cursor(2)), usize::MAX).unwrap();
        assert_eq!(slice, &[2, 3, 4]);
        assert_eq!(next, None);
    }

    #[test]
    fn empty_list() {
        let items: Vec<u32> = Vec::new();
        assert_eq!(page(&items, None, 10).unwrap(), (&items[..], None));
        assert_eq!(page(&items, Some(&encode_cursor(1)), 10), Err(InvalidCursor));
    }

    #[test]
    fn invalid_cursor_displays_lowercase() {
        assert_eq!(InvalidCursor.to_string(), "invalid cursor");
    }
}
