//! The protocol as data: one row per method a client may send (requests and notifications; an
//! extension registers its own rows with the server) saying in which revisions it exists,
//! where it runs, what gates it, its cache hint, whether it may need the client's input, and
//! which field `Mcp-Name` mirrors. Every layer reads this table instead of matching names; the
//! routing (`server::dispatch::early`) follows `runs`, and `dispatch`'s one `match` is over
//! `Id`. Imports only the wire.

use crate::wire::version::ProtocolVersion;
use crate::wire::version::ProtocolVersion::{V2024_11_05, V2025_11_25, V2026_07_28};

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
