//! The metrics registry: counters, gauges and latency histograms kept in atomics, their label
//! sets fixed when they are registered (the method table's rows, the registered tools), and
//! rendered in the Prometheus text exposition format (version 0.0.4). A request costs a few
//! relaxed atomic adds and no lock; a scrape reads them all. A name a client makes up (an
//! unknown method, a tool beyond the cap) is counted under the one label `other`, so no client
//! can grow the label set.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// Method labels at most: the method table's rows (indexed by their id), then `other`.
const METHOD_SLOTS: usize = 32;
/// Tools with a label of their own; the ones registered after them share `other`.
pub const MAX_TOOL_LABELS: usize = 256;

/// Histogram bucket bounds, in nanoseconds, and as written in `le` (seconds).
const BOUNDS_NS: [u64; 17] = [
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    10_000_000_000,
    60_000_000_000,
];
const BOUNDS_LE: [&str; 17] = [
    "5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5",
    "1", "2.5", "10", "60",
];

/// The JSON-RPC error codes with an `outcome` label of their own; any other is `error`.
const CODES: [(i64, &str); 10] = [
    (-32700, "-32700"),
    (-32600, "-32600"),
    (-32601, "-32601"),
    (-32602, "-32602"),
    (-32603, "-32603"),
    (-32002, "-32002"),
    (-32003, "-32003"),
    (-32020, "-32020"),
    (-32021, "-32021"),
    (-32022, "-32022"),
];
/// `result`, each code of `CODES`, `error` (another code), `cancelled` (no answer).
const OUTCOMES: usize = CODES.len() + 3;
const ERROR_OTHER: usize = CODES.len() + 1;
const CANCELLED: usize = CODES.len() + 2;

/// The HTTP statuses with a label of their own; any other is `other`.
const STATUSES: [u16; 20] =
    [200, 202, 204, 400, 401, 403, 404, 405, 406, 408, 409, 413, 414, 415, 422, 431, 500, 501, 503, 505];

/// Why a message or connection was refused before any handler saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// No or an invalid bearer token, or one without the scope needed (401, 403).
    Auth,
    /// The `Host` or `Origin` check (403).
    HostOrigin,
    /// A message (a body, a stdio line) over `max_message_bytes` (413), or a request head over
    /// its caps (414, 431).
    Size,
    /// Every session busy at the session cap (503).
    SessionCap,
    /// The connection cap (503).
    ConnectionCap,
    /// A session's queue of waiting requests full.
    Queue,
}

const REFUSALS: [(Refusal, &str); 6] = [
    (Refusal::Auth, "auth"),
    (Refusal::HostOrigin, "host_origin"),
    (Refusal::Size, "size"),
    (Refusal::SessionCap, "session_cap"),
    (Refusal::ConnectionCap, "connection_cap"),
    (Refusal::Queue, "queue"),
];

/// A gauge read when scraped, from whoever registered it (`Metrics::watch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Watched {
    /// Jobs waiting in the worker pool's queue.
    QueueDepth,
    /// Worker threads of the pool.
    Workers,
    /// HTTP sessions open.
    Sessions,
    /// HTTP connections open.
    Connections,
}

const WATCHED: [(Watched, &str, &str); 4] = [
    (Watched::QueueDepth, "tinymcp_pool_queue_depth", "Jobs waiting in the worker pool's queue."),
    (Watched::Workers, "tinymcp_pool_workers", "Worker threads of the pool."),
    (Watched::Sessions, "tinymcp_sessions_open", "HTTP sessions open (legacy SSE ones included)."),
    (Watched::Connections, "tinymcp_http_connections_open", "HTTP connections open."),
];

/// A source of a watched gauge.
type Source = Box<dyn Fn() -> i64 + Send + Sync>;

/// A value alone on its cache line, so that threads adding to their neighbours do not slow it.
#[derive(Default)]
#[repr(align(64))]
struct Line<T>(T);

/// A latency histogram with fixed buckets.
pub struct Histogram {
    /// Per bucket (not cumulative); the last is above every bound.
    buckets: [AtomicU64; BOUNDS_NS.len() + 1],
    sum_ns: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { buckets: std::array::from_fn(|_| AtomicU64::new(0)), sum_ns: AtomicU64::new(0) }
    }
}

impl Histogram {
    /// Counts one observation.
    pub fn observe(&self, took: Duration) {
        let ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        let at = BOUNDS_NS.partition_point(|&bound| bound < ns);
        self.buckets[at].fetch_add(1, Relaxed);
        self.sum_ns.fetch_add(ns, Relaxed);
    }

    fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Relaxed)).sum()
    }

    /// `NAME_bucket`, `NAME_sum` and `NAME_count` lines; `labels` is `a="b",` or empty.
    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let mut cumulative = 0;
        for (bucket, le) in self.buckets.iter().zip(BOUNDS_LE.iter().chain(std::iter::once(&"+Inf"))) {
            cumulative += bucket.load(Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}le=\"{le}\"}} {cumulative}");
        }
        let labels = labels.trim_end_matches(',');
        let braces = if labels.is_empty() { String::new() } else { format!("{{{labels}}}") };
        let sum = self.sum_ns.load(Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {cumulative}");
    }
}

/// One tool's calls: by outcome, and their latency. Found at registration, held by the tool's
/// entry, so a call counts with no lookup.
pub struct ToolStats {
    name: String,
    /// A result that is not an error, a result with `isError`, a JSON-RPC error.
    outcomes: [AtomicU64; 3],
    latency: Histogram,
    /// Calls begun, for `sampled`.
    seen: AtomicU64,
}

impl ToolStats {
    fn new(name: &str) -> Self {
        ToolStats {
            name: name.to_owned(),
            outcomes: Default::default(),
            latency: Histogram::default(),
            seen: AtomicU64::new(0),
        }
    }

    /// Runs `call`, counting its outcome (`is_error`: `Ok(isError)`, or `Err` for a JSON-RPC
    /// error) and its latency.
    pub(crate) fn time<T>(&self, call: impl FnOnce() -> T, is_error: impl Fn(&T) -> Result<bool, ()>) -> T {
        let stats = self;
        let started = sampled(&stats.seen).then(Instant::now);
        let outcome = call();
        if let Some(started) = started {
            stats.latency.observe(started.elapsed());
        }
        let at = match is_error(&outcome) {
            Ok(false) => 0,
            Ok(true) => 1,
            Err(()) => 2,
        };
        stats.outcomes[at].fetch_add(1, Relaxed);
        outcome
    }
}

/// The metrics of one process's servers and transports; share it (`Arc`) between the servers
/// a listener serves (`Options::with_metrics`). See `docs/operations.md` for every metric.
pub struct Metrics {
    /// The label of each method slot, set by the first server given these metrics.
    methods: OnceLock<Vec<Option<&'static str>>>,
    requests: [[AtomicU64; OUTCOMES]; METHOD_SLOTS + 1],
    latency: [Histogram; METHOD_SLOTS + 1],
    /// Requests begun, by method slot, for `sampled` (counted on the reader, apart from what the
    /// workers count).
    seen: Line<[AtomicU64; METHOD_SLOTS + 1]>,
    /// Registration only (`tool`): never taken by a call.
    tools: Mutex<Vec<Arc<ToolStats>>>,
    other_tool: Arc<ToolStats>,
    in_flight: Line<AtomicI64>,
    streams: AtomicI64,
    http: [AtomicU64; STATUSES.len() + 1],
    refusals: [AtomicU64; REFUSALS.len()],
    /// The reader's and the writer's, each on a cache line of its own: threads on other cores
    /// add to them at once.
    bytes_in: Line<AtomicU64>,
    bytes_out: Line<AtomicU64>,
    children: AtomicI64,
    restarts: AtomicU64,
    upstream: Histogram,
    /// Registration and scrapes only.
    watched: Mutex<Vec<(Watched, Source)>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics { .. }")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            methods: OnceLock::new(),
            requests: std::array::from_fn(|_| std::array::from_fn(|_| AtomicU64::new(0))),
            latency: std::array::from_fn(|_| Histogram::default()),
            seen: Line(std::array::from_fn(|_| AtomicU64::new(0))),
            tools: Mutex::new(Vec::new()),
            other_tool: Arc::new(ToolStats::new("other")),
            in_flight: Line::default(),
            streams: AtomicI64::new(0),
            http: std::array::from_fn(|_| AtomicU64::new(0)),
            refusals: std::array::from_fn(|_| AtomicU64::new(0)),
            bytes_in: Line::default(),
            bytes_out: Line::default(),
            children: AtomicI64::new(0),
            restarts: AtomicU64::new(0),
            upstream: Histogram::default(),
            watched: Mutex::new(Vec::new()),
        }
    }
}

/// Counts one while it lives (requests in flight, streams open).
pub struct Open<'a>(&'a AtomicI64);

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

impl Metrics {
    /// An empty registry, to give to `Options::with_metrics`.
    pub fn new() -> Arc<Metrics> {
        Arc::new(Metrics::default())
    }

    /// Names the method slots (slot `i` is `names[i]`, `None`: a slot never counted); only
    /// the first call counts. Slots beyond are `other`.
    pub(crate) fn name_methods(&self, names: Vec<Option<&'static str>>) {
        let _ = self.methods.set(names.into_iter().take(METHOD_SLOTS).collect());
    }

    /// Counts one answered request (`slot`: the method's, `None` for a method the table lacks;
    /// `outcome`: `Ok` for a result, `Err(code)` for an error, `None` when it was cancelled
    /// and never answered) and its latency since `started`.
    pub(crate) fn request(&self, slot: Option<usize>, started: Option<Instant>, outcome: Option<Result<(), i64>>) {
        let slot = slot_of(slot);
        let at = match outcome {
            Some(Ok(())) => 0,
            Some(Err(code)) => CODES.iter().position(|&(c, _)| c == code).map_or(ERROR_OTHER, |i| i + 1),
            None => CANCELLED,
        };
        self.requests[slot][at].fetch_add(1, Relaxed);
        if let Some(started) = started {
            self.latency[slot].observe(started.elapsed());
        }
    }

    /// When a request of the method in `slot` begins: the time, when its latency is sampled.
    pub(crate) fn start(&self, slot: Option<usize>) -> Option<Instant> {
        sampled(&self.seen.0[slot_of(slot)]).then(Instant::now)
    }

    /// The stats of the tool `name`, made on its first registration; past `MAX_TOOL_LABELS`
    /// tools, the shared `other`.
    pub(crate) fn tool(&self, name: &str) -> Arc<ToolStats> {
        let mut tools = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = tools.iter().find(|t| t.name == name) {
            return Arc::clone(found);
        }
        if tools.len() >= MAX_TOOL_LABELS || name == "other" {
            return Arc::clone(&self.other_tool);
        }
        let stats = Arc::new(ToolStats::new(name));
        tools.push(Arc::clone(&stats));
        stats
    }

    /// A request running on a worker, counted while the guard lives.
    pub(crate) fn in_flight(&self) -> Open<'_> {
        self.in_flight.0.fetch_add(1, Relaxed);
        Open(&self.in_flight.0)
    }

    /// A streamed (SSE) answer open, counted while the guard lives.
    #[doc(hidden)]
    pub fn stream(&self) -> Open<'_> {
        self.streams.fetch_add(1, Relaxed);
        Open(&self.streams)
    }

    /// An HTTP answer's status.
    #[doc(hidden)]
    pub fn http_status(&self, status: u16) {
        let at = STATUSES.iter().position(|&s| s == status).unwrap_or(STATUSES.len());
        self.http[at].fetch_add(1, Relaxed);
    }

    /// A refusal before any handler ran.
    #[doc(hidden)]
    pub fn refused(&self, why: Refusal) {
        if let Some(at) = REFUSALS.iter().position(|&(r, _)| r == why) {
            self.refusals[at].fetch_add(1, Relaxed);
        }
    }

    /// Bytes read from clients.
    #[doc(hidden)]
    pub fn bytes_in(&self, n: usize) {
        self.bytes_in.0.fetch_add(n as u64, Relaxed);
    }

    /// Bytes written to clients.
    #[doc(hidden)]
    pub fn bytes_out(&self, n: usize) {
        self.bytes_out.0.fetch_add(n as u64, Relaxed);
    }

    /// A proxied child started.
    #[doc(hidden)]
    pub fn child_started(&self) {
        self.children.fetch_add(1, Relaxed);
    }

    /// A proxied shared child started again, after the one before it ended.
    #[doc(hidden)]
    pub fn child_restarted(&self) {
        self.restarts.fetch_add(1, Relaxed);
    }

    /// A proxied child ended.
    #[doc(hidden)]
    pub fn child_ended(&self) {
        self.children.fetch_sub(1, Relaxed);
    }

    /// One request to a proxied (upstream) server answered, after `took`.
    #[doc(hidden)]
    pub fn upstream(&self, took: Duration) {
        self.upstream.observe(took);
    }

    /// Registers a gauge read at each scrape (summed over its sources).
    #[doc(hidden)]
    pub fn watch(&self, what: Watched, source: Box<dyn Fn() -> i64 + Send + Sync>) {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner).push((what, source));
    }

    /// Every metric in the Prometheus text exposition format, version 0.0.4 (served as
    /// `text/plain; version=0.0.4`).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(8 * 1024);
        let names = self.methods.get().map(Vec::as_slice).unwrap_or_default();
        let method = |slot: usize| match names.get(slot) {
            Some(Some(name)) if slot < METHOD_SLOTS => *name,
            _ => "other",
        };
        let outcome = |at: usize| match at {
            0 => "result",
            ERROR_OTHER => "error",
            CANCELLED => "cancelled",
            _ => CODES[at - 1].1,
        };
        // Rows a client never used are left out: the table's every method times every code
        // would be hundreds of zeros.
        header(&mut out, "tinymcp_requests_total", "counter", "Requests answered, by method and outcome (result, a JSON-RPC error code, error for another code, cancelled).");
        for (slot, row) in self.requests.iter().enumerate() {
            for (at, count) in row.iter().enumerate() {
                let count = count.load(Relaxed);
                if count > 0 {
                    let (m, o) = (escape(method(slot)), outcome(at));
                    let _ = writeln!(out, "tinymcp_requests_total{{method=\"{m}\",outcome=\"{o}\"}} {count}");
                }
            }
        }
        header(
            &mut out,
            "tinymcp_request_duration_seconds",
            "histogram",
            "Time from a request's arrival to its answer (its wait for a worker included), by method; the first 256 of each timed, then one in 16.",
        );
        for (slot, histogram) in self.latency.iter().enumerate() {
            if histogram.count() > 0 {
                histogram.render(
                    &mut out,
                    "tinymcp_request_duration_seconds",
                    &format!("method=\"{}\",", escape(method(slot))),
                );
            }
        }
        let tools: Vec<Arc<ToolStats>> = {
            let mut tools = self.tools.lock().unwrap_or_else(PoisonError::into_inner).clone();
            tools.push(Arc::clone(&self.other_tool));
            tools
        };
        header(
            &mut out,
            "tinymcp_tool_calls_total",
            "counter",
            "Tool calls, by tool and outcome (ok, is_error: a result with isError, error: a JSON-RPC error).",
        );
        for tool in &tools {
            for (at, o) in ["ok", "is_error", "error"].iter().enumerate() {
                let count = tool.outcomes[at].load(Relaxed);
                let _ = writeln!(
                    out,
                    "tinymcp_tool_calls_total{{tool=\"{}\",outcome=\"{o}\"}} {count}",
                    escape(&tool.name)
                );
            }
        }
        header(
            &mut out,
            "tinymcp_tool_duration_seconds",
            "histogram",
            "Time a tool's call took (its arguments checked, its handler run), by tool; the first 256 of each timed, then one in 16.",
        );
        // A tool never called has no histogram yet (its counters say 0): a server with many
        // tools would otherwise send twenty lines of zeros for each.
        for tool in tools.iter().filter(|t| t.latency.count() > 0) {
            tool.latency.render(
                &mut out,
                "tinymcp_tool_duration_seconds",
                &format!("tool=\"{}\",", escape(&tool.name)),
            );
        }
        gauge(&mut out, "tinymcp_requests_in_flight", "Requests running on a worker.", self.in_flight.0.load(Relaxed));
        gauge(&mut out, "tinymcp_streams_open", "Streamed (SSE) HTTP answers open.", self.streams.load(Relaxed));
        {
            let watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
            for (what, name, help) in WATCHED {
                let value: i64 = watched.iter().filter(|(w, _)| *w == what).map(|(_, source)| source()).sum();
                gauge(&mut out, name, help, value);
            }
        }
        header(
            &mut out,
            "tinymcp_http_responses_total",
            "counter",
            "HTTP answers, by status (other: a status without a label of its own).",
        );
        for (at, count) in self.http.iter().enumerate() {
            let count = count.load(Relaxed);
            if count > 0 {
                let status = STATUSES.get(at).map_or_else(|| "other".to_owned(), u16::to_string);
                let _ = writeln!(out, "tinymcp_http_responses_total{{status=\"{status}\"}} {count}");
            }
        }
        header(
            &mut out,
            "tinymcp_refusals_total",
            "counter",
            "Messages and connections refused before any handler saw them, by reason.",
        );
        for ((_, reason), count) in REFUSALS.iter().zip(&self.refusals) {
            let _ = writeln!(out, "tinymcp_refusals_total{{reason=\"{reason}\"}} {}", count.load(Relaxed));
        }
        counter(
            &mut out,
            "tinymcp_received_bytes_total",
            "Bytes read from clients (HTTP: heads and bodies; stdio: lines).",
            self.bytes_in.0.load(Relaxed),
        );
        counter(&mut out, "tinymcp_sent_bytes_total", "Bytes written to clients.", self.bytes_out.0.load(Relaxed));
        gauge(
            &mut out,
            "tinymcp_proxy_children_running",
            "Proxied child processes running.",
            self.children.load(Relaxed),
        );
        counter(
            &mut out,
            "tinymcp_proxy_child_restarts_total",
            "Proxied children started again after one of the same server ended.",
            self.restarts.load(Relaxed),
        );
        header(
            &mut out,
            "tinymcp_upstream_duration_seconds",
            "histogram",
            "Time a proxied server took to answer a relayed request.",
        );
        self.upstream.render(&mut out, "tinymcp_upstream_duration_seconds", "");
        out
    }
}

/// A method's slot; beyond the table's, `other`.
fn slot_of(slot: Option<usize>) -> usize {
    slot.filter(|&s| s < METHOD_SLOTS).unwrap_or(METHOD_SLOTS)
}

/// Latency is measured for every one of the first `EXACT` requests (or calls) of a method (or
/// tool), then for one in `EVERY`: reading the clock twice costs more than every counter
/// together (275 ns a pair where it was measured, 7% of a 4 µs echo call over stdio).
const EXACT: u64 = 256;
const EVERY: u64 = 16;

/// Whether the next one of `seen` is timed; a plain load and store (no locked add): a count
/// lost to a race only moves which one is sampled.
fn sampled(seen: &AtomicU64) -> bool {
    let n = seen.load(Relaxed);
    seen.store(n.wrapping_add(1), Relaxed);
    n < EXACT || n.is_multiple_of(EVERY)
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let help = help.replace('\\', "\\\\").replace('\n', "\\n");
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn gauge(out: &mut String, name: &str, help: &str, value: i64) {
    header(out, name, "gauge", help);
    let _ = writeln!(out, "{name} {value}");
}

fn counter(out: &mut String, name: &str, help: &str, value: u64) {
    header(out, name, "counter", help);
    let _ = writeln!(out, "{name} {value}");
}

/// A label value as the format writes it: `\`, `"` and newlines escaped.
pub(crate) fn escape(value: &str) -> std::borrow::Cow<'_, str> {
    if !value.contains(['\\', '"', '\n']) {
        return value.into();
    }
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line<'a>(text: &'a str, start: &str) -> Option<&'a str> {
        text.lines().find(|l| l.starts_with(start)).and_then(|l| l.rsplit(' ').next())
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("plain"), "plain");
        assert_eq!(escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
        let metrics = Metrics::new();
        let stats = metrics.tool("say \"hi\"\\\n");
        stats.time(|| (), |()| Ok(false));
        let text = metrics.render();
        assert!(text.contains("tinymcp_tool_calls_total{tool=\"say \\\"hi\\\"\\\\\\n\",outcome=\"ok\"} 1"), "{text}");
    }

    #[test]
    fn requests_count_by_method_and_outcome_with_cumulative_buckets() {
        let metrics = Metrics::new();
        metrics.name_methods(vec![Some("tools/call"), None, Some("ping")]);
        let long_ago = Instant::now() - Duration::from_millis(30);
        metrics.request(Some(0), Some(Instant::now()), Some(Ok(())));
        metrics.request(Some(0), Some(long_ago), Some(Err(-32602)));
        metrics.request(Some(0), Some(Instant::now()), Some(Err(-1)));
        metrics.request(None, Some(Instant::now()), None);
        metrics.request(Some(1), Some(Instant::now()), Some(Ok(())));
        let text = metrics.render();
        assert_eq!(line(&text, "tinymcp_requests_total{method=\"tools/call\",outcome=\"result\"}"), Some("1"));
        assert_eq!(line(&text, "tinymcp_requests_total{method=\"tools/call\",outcome=\"-32602\"}"), Some("1"));
        assert_eq!(line(&text, "tinymcp_requests_total{method=\"tools/call\",outcome=\"error\"}"), Some("1"));
        assert_eq!(line(&text, "tinymcp_requests_total{method=\"other\",outcome=\"cancelled\"}"), Some("1"));
        // An unnamed slot is `other` too, and unused rows are left out.
        assert_eq!(line(&text, "tinymcp_requests_total{method=\"other\",outcome=\"result\"}"), Some("1"));
        assert!(!text.contains("method=\"ping\""), "{text}");
        let bucket = |le: &str| {
            line(&text, &format!("tinymcp_request_duration_seconds_bucket{{method=\"tools/call\",le=\"{le}\"}}"))
        };
        assert_eq!(bucket("0.025"), Some("2"), "{text}");
        assert_eq!(bucket("0.05"), Some("3"));
        assert_eq!(bucket("+Inf"), Some("3"));
        assert_eq!(line(&text, "tinymcp_request_duration_seconds_count{method=\"tools/call\"}"), Some("3"));
        let sum: f64 =
            line(&text, "tinymcp_request_duration_seconds_sum{method=\"tools/call\"}").unwrap().parse().unwrap();
        assert!(sum >= 0.03, "{sum}");
    }

    #[test]
    fn tools_past_the_cap_share_other_and_every_family_has_help_and_type() {
        let metrics = Metrics::new();
        for i in 0..MAX_TOOL_LABELS + 5 {
            metrics.tool(&format!("t{i}"));
        }
        let late = metrics.tool("late");
        assert_eq!(late.name, "other");
        assert_eq!(metrics.tool("t1").name, "t1", "a tool registered again keeps its stats");
        late.time(|| (), |()| Err(()));
        let text = metrics.render();
        assert_eq!(line(&text, "tinymcp_tool_calls_total{tool=\"other\",outcome=\"error\"}"), Some("1"));
        assert!(!text.contains("tool=\"late\""));
        metrics.refused(Refusal::Auth);
        metrics.http_status(401);
        metrics.http_status(299);
        metrics.watch(Watched::Sessions, Box::new(|| 2));
        metrics.watch(Watched::Sessions, Box::new(|| 1));
        let open = metrics.stream();
        let text = metrics.render();
        assert_eq!(line(&text, "tinymcp_refusals_total{reason=\"auth\"}"), Some("1"));
        assert_eq!(line(&text, "tinymcp_http_responses_total{status=\"401\"}"), Some("1"));
        assert_eq!(line(&text, "tinymcp_http_responses_total{status=\"other\"}"), Some("1"));
        assert_eq!(line(&text, "tinymcp_sessions_open "), Some("3"));
        assert_eq!(line(&text, "tinymcp_streams_open "), Some("1"));
        drop(open);
        assert_eq!(line(&metrics.render(), "tinymcp_streams_open "), Some("0"));
        // Every sample belongs to a family declared just before it, with HELP then TYPE.
        let mut family = String::new();
        for l in text.lines() {
            if let Some(rest) = l.strip_prefix("# HELP ") {
                family = rest.split(' ').next().unwrap().to_owned();
            } else if let Some(rest) = l.strip_prefix("# TYPE ") {
                assert!(rest.starts_with(&format!("{family} ")), "{l}");
            } else {
                assert!(l.starts_with(&family), "{l} outside {family}");
            }
        }
    }
}
