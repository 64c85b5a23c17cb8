//! The one file-change tracker of the providers (served folders and manifest file resources):
//! what each subscribed or read file looked like when a client last saw it, so the watcher
//! tells `resources/updated` exactly when it changed since. Std only.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// Modification time, size and inode of a file (following links; no inode on Windows, where
/// stable std tells none: 0), or `None` when it is gone.
pub type Stamp = Option<(SystemTime, u64, u64)>;

/// The stamp of the file at `path` now.
pub fn stamp(path: &Path) -> Stamp {
    let meta = fs::metadata(path).ok()?;
    let inode = crate::platform::identity(&meta).map_or(0, |(_, inode)| inode);
    Some((meta.modified().ok()?, meta.len(), inode))
}

/// URI -> the file's stamp when a client last read it, subscribed to it, or the watcher looked.
#[derive(Debug, Default)]
pub struct ChangeTracker {
    seen: Mutex<HashMap<String, Stamp>>,
}

impl ChangeTracker {
    /// A client read `uri`; `before` is the file's stamp from just before the read, so a change
    /// during the read is reported later rather than missed.
    pub fn read(&self, uri: &str, before: Stamp) {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).insert(uri.to_owned(), before);
    }

    /// A new subscription: unless a client read it already, the file as it is now is what a
    /// change is compared with (the watcher's next look may come after the change).
    pub fn subscribed(&self, uri: &str, path: &Path) {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).entry(uri.to_owned()).or_insert_with(|| stamp(path));
    }

    /// The watcher looked at `uri` and saw `now`: records it and says whether the file changed
    /// since it was last seen (a first look is no change).
    pub fn changed(&self, uri: &str, now: Stamp) -> bool {
        let previous = self.seen.lock().unwrap_or_else(PoisonError::into_inner).insert(uri.to_owned(), now);
        previous.is_some_and(|before| before != now)
    }

    /// Keeps the stamps within `max` entries: past it, only those `keep` names stay.
    pub fn bound(&self, max: usize, keep: impl Fn(&str) -> bool) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() > max {
            seen.retain(|uri, _| keep(uri));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_relative_to_what_was_last_seen() {
        let tracker = ChangeTracker::default();
        let t = SystemTime::UNIX_EPOCH;
        assert!(!tracker.changed("a", Some((t, 1, 1))), "a first look is no change");
        assert!(!tracker.changed("a", Some((t, 1, 1))));
        assert!(tracker.changed("a", Some((t, 2, 1))));
        tracker.read("b", Some((t, 1, 1)));
        assert!(tracker.changed("b", None), "a file gone since it was read changed");
        tracker.bound(0, |uri| uri == "b");
        assert!(!tracker.changed("a", Some((t, 3, 1))), "a forgotten entry starts afresh");
    }
}
