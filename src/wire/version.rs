//! Protocol revisions and what each one knows, so every message can be shaped for the peer's revision.
//! Pure data: no I/O, no other crate module.

use std::fmt;
use std::str::FromStr;

/// A protocol revision this server speaks, oldest first (so `Ord` means "newer than").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// The first stable revision (HTTP+SSE transport).
    V2024_11_05,
    /// Streamable HTTP, batches, audio, tool annotations, completions.
    V2025_03_26,
    /// Structured tool output, elicitation, resource links, titles, `_meta`.
    V2025_06_18,
    /// Icons, URL elicitation, sampling with tools, tasks.
    V2025_11_25,
    /// Stateless: every request carries its version and client capabilities in `_meta`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The newest revision with the `initialize` handshake: the answer to a version we do not know.
    pub const LATEST_STATEFUL: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The revision's date string.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Reads a date string.
    pub fn parse(text: &str) -> Option<ProtocolVersion> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Whether the revision uses the stateful `initialize` lifecycle.
    pub fn is_stateful(self) -> bool {
        self < ProtocolVersion::V2026_07_28
    }

    /// Audio content blocks (2025-03-26 and later).
    pub fn has_audio_content(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// Tool annotations (`readOnlyHint` and the others; 2025-03-26 and later).
    pub fn has_tool_annotations(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// The `completions` capability and `completion/complete` (2025-03-26 and later).
    pub fn has_completions(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// The `message` of `notifications/progress` (2025-03-26 and later).
    pub fn has_progress_message(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// `title` and `_meta` on descriptors and `serverInfo` (2025-06-18 and later).
    pub fn has_titles(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `structuredContent` and `outputSchema` (2025-06-18 and later).
    pub fn has_structured_output(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// `resource_link` content blocks (2025-06-18 and later).
    pub fn has_resource_links(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// The `lastModified` annotation (2025-06-18 and later).
    pub fn has_last_modified(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Icons on descriptors and `serverInfo` (2025-11-25 and later).
    pub fn has_icons(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// Task-augmented requests and `tasks/*` (2025-11-25 only: they live in a session).
    pub fn has_tasks(self) -> bool {
        self >= ProtocolVersion::V2025_11_25 && self.is_stateful()
    }

    /// JSON-RPC batches exist only in 2025-03-26.
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The revisions a server speaks: every one from `oldest` to `newest`, both included
/// ([`Revisions::ALL`] by default). A server pinned to a narrower range behaves like one that
/// knows no other: up to 2025-11-25 only, it has no `server/discover` and reads per-request
/// `_meta` as an older server would (ignores it); from 2026-07-28 on only, it has no
/// `initialize` and every request must carry its `_meta`.
///
/// Written `FROM..TO` with either end optional (`..2025-11-25`, `2026-07-28..`), or one
/// revision alone (`2025-06-18`), and read back with `str::parse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Revisions {
    oldest: ProtocolVersion,
    newest: ProtocolVersion,
}

impl Revisions {
    /// Every revision this server knows: the default.
    pub const ALL: Revisions = Revisions { oldest: ProtocolVersion::V2024_11_05, newest: ProtocolVersion::V2026_07_28 };

    /// The revisions from `oldest` to `newest`, both included; `None` when `oldest` is newer
    /// than `newest` (an empty range).
    pub fn new(oldest: ProtocolVersion, newest: ProtocolVersion) -> Option<Revisions> {
        (oldest <= newest).then_some(Revisions { oldest, newest })
    }

    /// The oldest revision spoken.
    pub fn oldest(self) -> ProtocolVersion {
        self.oldest
    }

    /// The newest revision spoken.
    pub fn newest(self) -> ProtocolVersion {
        self.newest
    }

    /// Whether `version` is spoken.
    pub fn contains(self, version: ProtocolVersion) -> bool {
        self.oldest <= version && version <= self.newest
    }

    /// Whether a revision with the `initialize` handshake is spoken.
    pub fn has_handshake(self) -> bool {
        self.oldest.is_stateful()
    }

    /// Whether a revision served per request (2026-07-28) is spoken.
    pub fn has_per_request(self) -> bool {
        !self.newest.is_stateful()
    }

    /// The newest handshake revision spoken: what `initialize` answers a version it does not
    /// speak (spec lifecycle: "another protocol version it supports ... SHOULD be the latest").
    pub fn latest_stateful(self) -> Option<ProtocolVersion> {
        let latest = self.newest.min(ProtocolVersion::LATEST_STATEFUL);
        self.has_handshake().then_some(latest)
    }

    /// The revisions spoken, oldest first.
    pub fn iter(self) -> impl Iterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().filter(move |v| self.contains(*v))
    }

    /// A method that exists from `since` to `until` exists in at least one revision spoken.
    pub(crate) fn meets(self, since: ProtocolVersion, until: ProtocolVersion) -> bool {
        since <= self.newest && self.oldest <= until
    }
}

impl Default for Revisions {
    fn default() -> Self {
        Revisions::ALL
    }
}

impl fmt::Display for Revisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.oldest == self.newest {
            write!(f, "{}", self.oldest)
        } else {
            write!(f, "{}..{}", self.oldest, self.newest)
        }
    }
}

/// Every revision's date, for the messages that refuse one: "2024-11-05, ..., 2026-07-28".
fn known() -> String {
    ProtocolVersion::ALL.map(ProtocolVersion::as_str).join(", ")
}

impl FromStr for Revisions {
    type Err = String;

    /// `FROM..TO`, `FROM..`, `..TO`, `..` or one revision; refuses an unknown revision and an
    /// empty range, naming the known revisions.
    fn from_str(text: &str) -> Result<Revisions, String> {
        let end = |part: &str, default: ProtocolVersion| match part.trim() {
            "" => Ok(default),
            date => ProtocolVersion::parse(date)
                .ok_or_else(|| format!("unknown revision {date:?}: the known revisions are {}", known())),
        };
        let (oldest, newest) = match text.split_once("..") {
            Some((from, to)) => (end(from, Revisions::ALL.oldest)?, end(to, Revisions::ALL.newest)?),
            None if text.trim().is_empty() => {
                return Err(format!("expected FROM..TO, FROM.., ..TO or one revision among {}", known()))
            }
            None => {
                let one = end(text, Revisions::ALL.oldest)?;
                (one, one)
            }
        };
        Revisions::new(oldest, newest).ok_or_else(|| {
            format!("{text:?} is empty: {oldest} is newer than {newest} (the known revisions are {})", known())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_round_trip_and_order() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert!(ProtocolVersion::V2025_11_25 > ProtocolVersion::V2024_11_05);
        assert_eq!(ProtocolVersion::parse("2024-10-07"), None);
    }

    #[test]
    fn revisions_read_either_end_optional_and_refuse_what_is_empty_or_unknown() {
        use ProtocolVersion::*;
        let cases = [
            ("..2025-11-25", V2024_11_05, V2025_11_25),
            ("2026-07-28..", V2026_07_28, V2026_07_28),
            ("2026-07-28", V2026_07_28, V2026_07_28),
            ("2025-03-26..2025-06-18", V2025_03_26, V2025_06_18),
            ("..", V2024_11_05, V2026_07_28),
            (" 2025-06-18 .. ", V2025_06_18, V2026_07_28),
        ];
        for (text, oldest, newest) in cases {
            let revisions: Revisions = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!((revisions.oldest(), revisions.newest()), (oldest, newest), "{text}");
            assert_eq!(revisions.to_string().parse::<Revisions>(), Ok(revisions), "{text}");
        }
        for bad in ["2026-07-28..2025-11-25", "2027-01-01..", "..2024-10-07", "", "2025", "a..b..c"] {
            let why = bad.parse::<Revisions>().unwrap_err();
            assert!(why.contains("2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"), "{bad}: {why}");
        }
        assert_eq!(Revisions::new(V2025_11_25, V2024_11_05), None);
    }

    #[test]
    fn revisions_say_which_eras_they_hold() {
        use ProtocolVersion::*;
        let old: Revisions = "..2025-06-18".parse().unwrap();
        assert!(old.has_handshake() && !old.has_per_request());
        assert_eq!(old.latest_stateful(), Some(V2025_06_18));
        assert!(!old.meets(V2026_07_28, V2026_07_28) && old.meets(V2024_11_05, V2025_11_25));
        let new: Revisions = "2026-07-28..".parse().unwrap();
        assert!(!new.has_handshake() && new.has_per_request());
        assert_eq!(new.latest_stateful(), None);
        assert!(!new.meets(V2024_11_05, V2025_11_25));
        assert!(Revisions::ALL.has_handshake() && Revisions::ALL.has_per_request());
        assert_eq!(Revisions::ALL.latest_stateful(), Some(V2025_11_25));
        assert_eq!(Revisions::ALL.iter().count(), ProtocolVersion::ALL.len());
        assert_eq!(Revisions::default(), Revisions::ALL);
    }
}
