//! Protocol revisions and what each one knows, so every message can be shaped for the peer's revision.
//! Pure data: no I/O, no other crate module.

use std::fmt;

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
}
