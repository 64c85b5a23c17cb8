//! The server's own flags (`tinymcp [OPTIONS]`): what to serve, the protocol's limits, HTTP
//! and OAuth, read into `Args` by the one flag parser (`cli::flags`).

use crate::cli::config::Config;
use crate::cli::flags::{Arg, Flags};
use crate::cli::help::unknown;
use std::path::PathBuf;
use std::time::Duration;

pub struct Args {
    pub everything: bool,
    pub http: Option<String>,
    pub allow_origins: Vec<String>,
    pub allow_hosts: Vec<String>,
    pub token_file: Option<String>,
    pub max_sessions: Option<usize>,
    pub session_idle_secs: Option<usize>,
    pub session_ttl_secs: Option<usize>,
    pub max_streams: Option<usize>,
    pub max_connections: Option<usize>,
    pub idle_secs: Option<usize>,
    pub handshake_secs: Option<usize>,
    pub read_secs: Option<usize>,
    pub write_secs: Option<usize>,
    pub roots: Vec<PathBuf>,
    pub include_hidden: bool,
    pub no_ignore: bool,
    pub client_roots: bool,
    pub write_all: bool,
    pub write_roots: Vec<PathBuf>,
    pub max_files: Option<usize>,
    pub max_answer_bytes: Option<usize>,
    pub watch: bool,
    pub watch_interval: Duration,
    pub max_message_bytes: Option<usize>,
    pub page_size: Option<usize>,
    pub max_in_flight: Option<usize>,
    pub max_listen_streams: Option<usize>,
    pub manifest: Option<PathBuf>,
    pub state_key_file: Option<PathBuf>,
    pub node_id: Option<String>,
    pub cache_ttl_ms: Option<u64>,
    pub state_ttl_secs: Option<usize>,
    pub task_ttl_ms: Option<usize>,
    pub skills: Option<PathBuf>,
    pub revisions: Option<tinymcp::Revisions>,
    pub drain_secs: usize,
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// `--log-format json` (the logger read it already; kept for `--trace`, which it implies).
    pub log_json: bool,
    /// `--trace`, or `--log-format json`: fresh trace ids and request scopes.
    pub trace: bool,
    /// `--metrics [ADDR]`: `Some(None)` on the `--http` listener, `Some(Some(ADDR))` on one of
    /// its own.
    pub metrics: Option<Option<String>>,
    /// `--otlp URL`: spans exported there (feature `otlp`; implies `--trace`).
    pub otlp: Option<String>,
    /// `--store URL`: tasks shared with other replicas there (feature `store`).
    pub store: Option<String>,
    /// `--store-lease-ms N`: how long a task's lease lasts unless renewed (default 10 s).
    pub store_lease_ms: u64,
    #[cfg(feature = "http")]
    pub oauth: crate::cli::oauth::Flags,
}

pub enum Parsed {
    Run(Box<Args>),
    Check(Vec<PathBuf>),
    Config(Config),
    Version,
}

pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut flags = Flags::new(args);
    let mut version = false;
    let mut parsed = Args {
        everything: false,
        http: None,
        allow_origins: Vec::new(),
        allow_hosts: Vec::new(),
        token_file: None,
        max_sessions: None,
        session_idle_secs: None,
        session_ttl_secs: None,
        max_streams: None,
        max_connections: None,
        idle_secs: None,
        handshake_secs: None,
        read_secs: None,
        write_secs: None,
        roots: Vec::new(),
        include_hidden: false,
        no_ignore: false,
        client_roots: false,
        write_all: false,
        write_roots: Vec::new(),
        max_files: None,
        max_answer_bytes: None,
        watch: true,
        watch_interval: Duration::from_secs(1),
        max_message_bytes: None,
        page_size: None,
        max_in_flight: None,
        max_listen_streams: None,
        manifest: None,
        state_key_file: None,
        node_id: None,
        cache_ttl_ms: None,
        state_ttl_secs: None,
        task_ttl_ms: None,
        skills: None,
        revisions: None,
        drain_secs: 10,
        trusted_proxies: Vec::new(),
        log_json: false,
        trace: false,
        metrics: None,
        otlp: None,
        store: None,
        store_lease_ms: 10_000,
        #[cfg(feature = "http")]
        oauth: crate::cli::oauth::Flags::default(),
    };
    while let Some(arg) = flags.next()? {
        let arg = match arg {
            Arg::Flag(flag) => flag,
            Arg::Word(word) => return Err(unknown(&word)),
        };
        match arg.as_str() {
            "-V" | "--version" => version = true,
            "--everything" => parsed.everything = true,
            "--revisions" => {
                let range = flags.value(&arg)?;
                parsed.revisions = Some(range.parse().map_err(|why| format!("--revisions: {why}"))?);
            }
            "--http" => parsed.http = Some(flags.value(&arg)?),
            "--allow-origin" => parsed.allow_origins.push(flags.value(&arg)?),
            "--allow-host" => parsed.allow_hosts.push(flags.value(&arg)?),
            "--token-file" => parsed.token_file = Some(flags.value(&arg)?),
            "--max-sessions" => parsed.max_sessions = Some(flags.number(&arg)?),
            "--session-idle-secs" => parsed.session_idle_secs = Some(flags.number(&arg)?),
            "--session-ttl-secs" => parsed.session_ttl_secs = Some(flags.number(&arg)?),
            "--max-streams" => parsed.max_streams = Some(flags.number(&arg)?),
            "--max-connections" => parsed.max_connections = Some(flags.number(&arg)?),
            "--idle-secs" => parsed.idle_secs = Some(flags.number(&arg)?),
            "--handshake-secs" => parsed.handshake_secs = Some(flags.number(&arg)?),
            "--read-secs" => parsed.read_secs = Some(flags.number(&arg)?),
            "--write-secs" => parsed.write_secs = Some(flags.number(&arg)?),
            "--root" => parsed.roots.push(PathBuf::from(flags.value_named(&arg, "a folder")?)),
            "--manifest" => parsed.manifest = Some(PathBuf::from(flags.value_named(&arg, "a file")?)),
            "--check" => return check_files(flags.rest()?),
            "--skills" => parsed.skills = Some(PathBuf::from(flags.value_named(&arg, "a folder")?)),
            "--state-key-file" => {
                parsed.state_key_file = Some(PathBuf::from(flags.value_named(&arg, "a file")?));
            }
            "--node-id" => parsed.node_id = Some(flags.value(&arg)?),
            "--include-hidden" => parsed.include_hidden = true,
            "--no-ignore" => parsed.no_ignore = true,
            "--client-roots" => parsed.client_roots = true,
            "--write" => parsed.write_all = true,
            "--write-root" => {
                parsed.write_roots.push(PathBuf::from(flags.value_named(&arg, "a folder")?));
            }
            "--max-files" => parsed.max_files = Some(flags.number(&arg)?),
            "--max-answer-bytes" => parsed.max_answer_bytes = Some(flags.number(&arg)?),
            "--no-watch" => parsed.watch = false,
            "--watch-interval" => {
                parsed.watch_interval = Duration::from_millis(flags.number(&arg)? as u64);
            }
            "--max-message-bytes" => parsed.max_message_bytes = Some(flags.number(&arg)?),
            "--page-size" => parsed.page_size = Some(flags.number(&arg)?),
            "--max-in-flight" => parsed.max_in_flight = Some(flags.number(&arg)?),
            "--metrics" => parsed.metrics = Some(flags.optional_value(&arg)?),
            "--drain-secs" => parsed.drain_secs = flags.number(&arg)?,
            "--log-format" => {
                parsed.log_json = crate::cli::logging::format_value(&flags.value(&arg)?)?;
            }
            "--trace" => parsed.trace = true,
            "--otlp" => parsed.otlp = Some(flags.value_named(&arg, "a URL")?),
            "--store" => parsed.store = Some(flags.value_named(&arg, "a URL")?),
            "--store-lease-ms" => {
                let ms = flags.number(&arg)? as u64;
                if ms < 300 {
                    return Err(format!("--store-lease-ms {ms}: at least 300 (a lease is renewed every third of it)"));
                }
                parsed.store_lease_ms = ms;
            }
            "--trusted-proxy" => {
                let value = flags.value(&arg)?;
                let ip = value.trim_matches(|c| c == '[' || c == ']').parse().map_err(|_| {
                    format!("--trusted-proxy: expected an IP address (no port, no name), got {value:?}")
                })?;
                parsed.trusted_proxies.push(ip);
            }
            #[cfg(feature = "http")]
            "--oauth-issuer" => parsed.oauth.issuer = Some(flags.value(&arg)?),
            #[cfg(feature = "http")]
            "--public-url" => parsed.oauth.public_url = Some(flags.value(&arg)?),
            #[cfg(feature = "http")]
            "--oauth-scope" => parsed.oauth.scopes.push(flags.value(&arg)?),
            #[cfg(feature = "http")]
            "--oauth-introspection" => parsed.oauth.introspection = Some(flags.value(&arg)?),
            #[cfg(feature = "http")]
            "--oauth-client-id" => parsed.oauth.client_id = Some(flags.value(&arg)?),
            #[cfg(feature = "http")]
            "--oauth-client-secret-file" => parsed.oauth.client_secret_file = Some(flags.value(&arg)?),
            // Not in --help: how far token times may be off, for tests of expiry.
            #[cfg(feature = "http")]
            "--oauth-leeway-ms" => {
                parsed.oauth.leeway = Some(Duration::from_millis(flags.number(&arg)? as u64));
            }
            // Not in --help: the shortest time between two fetches of the issuer's keys, for tests.
            #[cfg(feature = "http")]
            "--oauth-refetch-ms" => {
                parsed.oauth.refetch = Some(Duration::from_millis(flags.number(&arg)? as u64));
            }
            "--max-listen-streams" => parsed.max_listen_streams = Some(flags.number(&arg)?),
            "--cache-ttl-ms" => {
                let value = flags.value(&arg)?;
                let ms =
                    value.parse().map_err(|_| format!("--cache-ttl-ms: expected a whole number, got {value:?}"))?;
                parsed.cache_ttl_ms = Some(ms);
            }
            "--task-ttl-ms" => parsed.task_ttl_ms = Some(flags.number(&arg)?),
            // Not in --help: how long a requestState lives, for tests of its expiry.
            "--state-ttl-secs" => parsed.state_ttl_secs = Some(flags.number(&arg)?),
            other => return Err(unknown(other)),
        }
    }
    parsed.trace |= parsed.log_json || parsed.otlp.is_some();
    if version {
        return Ok(Parsed::Version);
    }
    Ok(Parsed::Run(Box::new(parsed)))
}

/// `--check FILE...`: every argument after it is a manifest to check (a repeated `--check` is
/// allowed); any other flag there is a mistake rather than something silently ignored.
pub fn check_files(args: Vec<String>) -> Result<Parsed, String> {
    let mut files = Vec::new();
    for arg in args {
        match arg.as_str() {
            "--check" => {}
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("--check takes only manifest files, got {flag}"))
            }
            _ => files.push(PathBuf::from(arg)),
        }
    }
    if files.is_empty() {
        return Err("--check needs a file".into());
    }
    Ok(Parsed::Check(files))
}

/// `PORT` alone means loopback: nothing is exposed unless asked for.
pub fn listen_addr(addr: &str) -> String {
    if addr.bytes().all(|b| b.is_ascii_digit()) {
        format!("127.0.0.1:{addr}")
    } else {
        addr.to_owned()
    }
}
