//! The protocol as data: the revisions this server speaks and what each one knows (so every
//! message can be shaped for the peer's revision), and the table of methods, one row per
//! method a client may send (requests and notifications; an extension registers its own rows
//! with the server) saying in which revisions it exists, where it runs, what gates it, its
//! cache hint, whether it may need the client's input, and which field `Mcp-Name` mirrors.
//! Every layer reads this table instead of matching names; the routing
//! (`server::dispatch::early`) follows `runs`, and `dispatch`'s one `match` is over `Id`.
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

// The table of methods.

use ProtocolVersion::{V2024_11_05, V2025_11_25, V2026_07_28};

/// A method the server knows, for the one `match` that calls its handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Id {
    Initialize,
    Ping,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesRead,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    PromptsList,
    PromptsGet,
    CompletionComplete,
    LoggingSetLevel,
    TasksGet,
    TasksResult,
    TasksList,
    TasksCancel,
    TasksUpdate,
    ServerDiscover,
    SubscriptionsListen,
    Initialized,
    Cancelled,
    Progress,
    RootsListChanged,
}

/// Where a request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runs {
    /// On the reader's thread: it settles the session (`initialize`), opens a stream that
    /// holds no worker (`subscriptions/listen`), or costs nothing (`ping`).
    Reader,
    /// On the worker pool.
    Pool,
    /// Never answered: a notification.
    Nowhere,
}

/// What must be on for a method to be served: registered features, as `Registry::enabled`
/// decides them (so the method table refuses exactly what the capabilities leave out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Always served in the revisions it exists in.
    None,
    Tools,
    Resources,
    Prompts,
    Completions,
    /// Up to 2025-11-25 the `tasks` capability; on 2026-07-28 the tasks extension, declared by
    /// the request itself.
    Tasks,
}

/// Which cache hint (SEP-2549) a 2026-07-28 result of the method carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cache {
    None,
    /// A list: `Options::list_cache`.
    List,
    /// What a resource holds: `Options::read_cache`.
    Read,
}

/// One method's facts.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    pub id: Id,
    pub name: &'static str,
    /// The oldest and newest revision the method exists in (both included).
    pub since: ProtocolVersion,
    pub until: ProtocolVersion,
    pub runs: Runs,
    pub gate: Gate,
    pub cache: Cache,
    /// On 2026-07-28 its handler may need the client's input, and the answer may be an
    /// `InputRequiredResult` (multi-round-trip requests).
    pub input_required: bool,
    /// The params field the `Mcp-Name` header mirrors (SEP-2243).
    pub mcp_name: Option<&'static str>,
}

impl Spec {
    /// Whether the method exists in `version`.
    pub fn exists_in(&self, version: ProtocolVersion) -> bool {
        self.since <= version && version <= self.until
    }
}

const fn row(id: Id, name: &'static str, since: ProtocolVersion, until: ProtocolVersion, runs: Runs) -> Spec {
    Spec { id, name, since, until, runs, gate: Gate::None, cache: Cache::None, input_required: false, mcp_name: None }
}

const fn gated(mut spec: Spec, gate: Gate) -> Spec {
    spec.gate = gate;
    spec
}

const fn cached(mut spec: Spec, cache: Cache) -> Spec {
    spec.cache = cache;
    spec
}

const fn named(mut spec: Spec, field: &'static str, input_required: bool) -> Spec {
    spec.mcp_name = Some(field);
    spec.input_required = input_required;
    spec
}

/// The last revision of the `initialize` handshake.
const HANDSHAKE: ProtocolVersion = V2025_11_25;
/// The newest revision.
const NEWEST: ProtocolVersion = V2026_07_28;

use Runs::{Nowhere, Pool, Reader};

/// Every method, the most common first (the parser looks names up here).
pub(crate) const METHODS: &[Spec] = &[
    named(gated(row(Id::ToolsCall, "tools/call", V2024_11_05, NEWEST, Pool), Gate::Tools), "name", true),
    // Answered on the reader: it is allowed before `initialize`, when no worker's context can
    // be made, and it takes no slot of the session's.
    row(Id::Ping, "ping", V2024_11_05, HANDSHAKE, Reader),
    cached(gated(row(Id::ToolsList, "tools/list", V2024_11_05, NEWEST, Pool), Gate::Tools), Cache::List),
    named(
        cached(
            gated(row(Id::ResourcesRead, "resources/read", V2024_11_05, NEWEST, Pool), Gate::Resources),
            Cache::Read,
        ),
        "uri",
        true,
    ),
    cached(gated(row(Id::ResourcesList, "resources/list", V2024_11_05, NEWEST, Pool), Gate::Resources), Cache::List),
    cached(
        gated(row(Id::ResourcesTemplatesList, "resources/templates/list", V2024_11_05, NEWEST, Pool), Gate::Resources),
        Cache::List,
    ),
    named(gated(row(Id::PromptsGet, "prompts/get", V2024_11_05, NEWEST, Pool), Gate::Prompts), "name", true),
    cached(gated(row(Id::PromptsList, "prompts/list", V2024_11_05, NEWEST, Pool), Gate::Prompts), Cache::List),
    // The method answers from 2024-11-05 on; the capability that announces it from 2025-03-26.
    gated(row(Id::CompletionComplete, "completion/complete", V2024_11_05, NEWEST, Pool), Gate::Completions),
    row(Id::Cancelled, "notifications/cancelled", V2024_11_05, NEWEST, Nowhere),
    row(Id::Progress, "notifications/progress", V2024_11_05, NEWEST, Nowhere),
    row(Id::Initialized, "notifications/initialized", V2024_11_05, HANDSHAKE, Nowhere),
    row(Id::RootsListChanged, "notifications/roots/list_changed", V2024_11_05, HANDSHAKE, Nowhere),
    row(Id::Initialize, "initialize", V2024_11_05, HANDSHAKE, Reader),
    row(Id::LoggingSetLevel, "logging/setLevel", V2024_11_05, HANDSHAKE, Pool),
    gated(row(Id::ResourcesSubscribe, "resources/subscribe", V2024_11_05, HANDSHAKE, Pool), Gate::Resources),
    gated(row(Id::ResourcesUnsubscribe, "resources/unsubscribe", V2024_11_05, HANDSHAKE, Pool), Gate::Resources),
    row(Id::ServerDiscover, "server/discover", V2026_07_28, NEWEST, Pool),
    row(Id::SubscriptionsListen, "subscriptions/listen", V2026_07_28, NEWEST, Reader),
    named(gated(row(Id::TasksGet, "tasks/get", V2025_11_25, NEWEST, Pool), Gate::Tasks), "taskId", false),
    gated(row(Id::TasksResult, "tasks/result", V2025_11_25, HANDSHAKE, Pool), Gate::Tasks),
    gated(row(Id::TasksList, "tasks/list", V2025_11_25, HANDSHAKE, Pool), Gate::Tasks),
    named(gated(row(Id::TasksCancel, "tasks/cancel", V2025_11_25, NEWEST, Pool), Gate::Tasks), "taskId", false),
    named(gated(row(Id::TasksUpdate, "tasks/update", V2026_07_28, NEWEST, Pool), Gate::Tasks), "taskId", false),
];

/// The row of a method name, if the server knows it.
pub(crate) fn spec(name: &str) -> Option<&'static Spec> {
    METHODS.iter().find(|spec| spec.name == name)
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

    #[test]
    fn every_name_has_one_row() {
        for (i, a) in METHODS.iter().enumerate() {
            assert!(METHODS[i + 1..].iter().all(|b| b.name != a.name), "{} twice", a.name);
            assert!(a.since <= a.until, "{}: empty range", a.name);
            assert_eq!(spec(a.name), Some(a));
        }
        assert_eq!(spec("x/y"), None);
    }

    #[test]
    fn the_per_request_revision_removed_the_session_methods() {
        let removed = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "tasks/result", "tasks/list"];
        for name in removed {
            let spec = spec(name).unwrap();
            assert!(spec.exists_in(V2025_11_25) && !spec.exists_in(V2026_07_28), "{name}");
        }
        for name in ["server/discover", "subscriptions/listen", "tasks/update"] {
            let spec = spec(name).unwrap();
            assert!(!spec.exists_in(V2025_11_25) && spec.exists_in(V2026_07_28), "{name}");
        }
    }

    #[test]
    fn notifications_are_never_answered_and_only_requests_name_things() {
        for spec in METHODS {
            assert_eq!(spec.runs == Runs::Nowhere, spec.name.starts_with("notifications/"), "{}", spec.name);
            assert!(!(spec.input_required && spec.mcp_name.is_none()), "{}", spec.name);
        }
    }
}
