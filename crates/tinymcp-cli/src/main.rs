//! The `tinymcp` binary: parses the command line once, sets up logging to stderr, builds the
//! server from the chosen providers and runs the chosen transport. Errors become an exit code here.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
mod cli;
#[cfg(feature = "gateway")]
mod gateway;
mod platform;
mod provide;
#[cfg(feature = "store")]
mod store;

use cli::config::{install_entry, parse_config, started_by, Config};
use cli::help::help_asked;
use cli::hosts;
use cli::options::{parse_args, Args, Parsed};
use provide::files::FilesOptions;
use provide::manifest;
use provide::watch::Watcher;
use tinymcp::{transport, Server};

/// The line a person who starts `tinymcp` in a terminal sees, so it does not look hung: what is
/// served, that it waits for a host on stdin, and how to give a host the command.
fn terminal_hint(args: &Args) -> String {
    let mut served = Vec::new();
    if args.everything {
        served.push("the everything profile".to_owned());
    }
    if let Some(file) = &args.manifest {
        served.push(format!("the manifest {}", file.display()));
    }
    for root in &args.roots {
        served.push(format!("{} read-only", root.display()));
    }
    if let Some(dir) = &args.skills {
        served.push(format!("the skills in {}", dir.display()));
    }
    if served.is_empty() {
        let here = std::env::current_dir().map_or_else(|_| ".".to_owned(), |d| d.display().to_string());
        served.push(format!("{here} read-only"));
    }
    format!(
        "tinymcp: serving {} over stdio, waiting for an MCP host to speak JSON-RPC on stdin (Ctrl-D ends); \
         to connect a host, run `tinymcp config --host NAME` (claude-desktop, claude-code, vscode, cursor, windsurf, zed, codex, gemini) with the same options",
        served.join(", ")
    )
}

fn run(args: Args) -> Result<(), tinymcp::Error> {
    let mut server = Server::with_options("tinymcp", env!("CARGO_PKG_VERSION"), server_options(&args));
    if let Some(file) = &args.state_key_file {
        cli::secret::warn_if_exposed(file, "state key file");
        server.set_state_key_file(file)?;
    }
    if let Some(id) = &args.node_id {
        server.set_node_id(id)?;
    }
    let attach = start_store(&args, &mut server)?;
    run_server(args, server, attach)
}

/// `tinymcp proxy`: the HTTP flags as for the server, every session relayed to its own child
/// (or, with `--shared`, to one child for all).
#[cfg(feature = "http")]
fn proxy(raw: impl Iterator<Item = String>) -> Result<(), String> {
    let parsed = cli::proxy::parse(raw)?;
    let args = match parse_args(parsed.rest)? {
        Parsed::Run(args) => *args,
        _ => return Err("expected the HTTP flags, `--` and a command".into()),
    };
    let Some(addr) = args.http.clone() else {
        return Err("proxy needs --http ADDR (the address to serve the child at)".into());
    };
    if args.everything || args.manifest.is_some() || !args.roots.is_empty() || args.skills.is_some() {
        return Err("proxy serves its child only: --everything, --root, --manifest and --skills do not apply".into());
    }
    if args.revisions.is_some() {
        return Err("--revisions does not apply to proxy: its child's revisions are the child's own".into());
    }
    if let Some(file) = &args.state_key_file {
        cli::secret::warn_if_exposed(file, "state key file");
    }
    // Each named server is a relaying `Server` of its own, under `/NAME/`; one command is
    // served at the root.
    let specs = match parsed.servers {
        Some(servers) => servers,
        None => vec![(String::new(), parsed.spec)],
    };
    let mut servers = Vec::with_capacity(specs.len());
    for (name, spec) in specs {
        let mut server = Server::with_options("tinymcp-proxy", env!("CARGO_PKG_VERSION"), server_options(&args));
        if let Some(file) = &args.state_key_file {
            server.set_state_key_file(file).map_err(|e| e.to_string())?;
        }
        if let Some(id) = &args.node_id {
            server.set_node_id(id).map_err(|e| e.to_string())?;
        }
        cli::proxy::relay(&mut server, &name, spec, parsed.shared);
        servers.push((name, Arc::new(server)));
    }
    start_metrics(&args).map_err(|e| e.to_string())?;
    start_otlp(&args).map_err(|e| e.to_string())?;
    let drain = Duration::from_secs(args.drain_secs as u64);
    let served = serve_http_mounted(servers, &args, &addr, drain).map_err(|e| e.to_string());
    // What a session's end did not end yet (and what the children forked) ends with the proxy.
    cli::proxy::end_all();
    served
}

/// Serves over HTTP until SIGTERM or SIGINT, then drains.
#[cfg(feature = "http")]
fn serve_http(server: Arc<Server>, args: &Args, addr: &str, drain: Duration) -> Result<(), tinymcp::Error> {
    serve_http_mounted(vec![(String::new(), server)], args, addr, drain)
}

/// Serves each server under its name (`/NAME/mcp`; an empty name: `/mcp`) over HTTP until
/// SIGTERM or SIGINT, then drains.
#[cfg(feature = "http")]
fn serve_http_mounted(
    servers: Vec<(String, Arc<Server>)>,
    args: &Args,
    addr: &str,
    drain: Duration,
) -> Result<(), tinymcp::Error> {
    serve_http_detailed(servers, args, addr, drain, None)
}

/// `tinymcp gateway` over HTTP: one server, its `/healthz` with the upstreams' lines.
#[cfg(feature = "gateway")]
fn serve_http_with(
    server: Arc<Server>,
    args: &Args,
    addr: &str,
    drain: Duration,
    health: Option<Arc<dyn Fn() -> String + Send + Sync>>,
) -> Result<(), tinymcp::Error> {
    serve_http_detailed(vec![(String::new(), server)], args, addr, drain, health)
}

#[cfg(feature = "http")]
fn serve_http_detailed(
    servers: Vec<(String, Arc<Server>)>,
    args: &Args,
    addr: &str,
    drain: Duration,
    health: Option<Arc<dyn Fn() -> String + Send + Sync>>,
) -> Result<(), tinymcp::Error> {
    let mut options = http_options(args, addr).map_err(tinymcp::Error::Config)?;
    options.health_detail = health.map(tinymcp_http::HealthDetail);
    // Handled before the server says it listens: a signal sent from then on drains.
    let signals = signals();
    let http = tinymcp_http::HttpServer::start_mounted(servers, &cli::options::listen_addr(addr), options)?;
    // This thread waits for SIGTERM; the server runs on its own threads.
    match signals {
        Some(signals) => {
            wait_for_signal(signals, drain);
            http.drain(drain);
        }
        None => http.wait(),
    }
    Ok(())
}

/// What is done once the server is shared: `--store` starts hearing other replicas' notices.
type Attach = Box<dyn FnOnce(&Arc<Server>) -> Result<(), String>>;

/// `--store URL`: tasks and notifications shared with the replicas using the same store (a
/// build without the feature `store` refuses it, saying so); an unreachable store is refused
/// here, at start.
fn start_store(args: &Args, server: &mut Server) -> Result<Option<Attach>, tinymcp::Error> {
    let Some(url) = &args.store else { return Ok(None) };
    #[cfg(feature = "store")]
    {
        let link = Arc::new(store::Link::open(url).map_err(tinymcp::Error::Config)?);
        let node = args.node_id.clone().unwrap_or_else(|| format!("pid-{}", std::process::id()));
        let lease = Duration::from_millis(args.store_lease_ms);
        let tasks = store::RedisTasks::start(Arc::clone(&link), node.clone(), lease).map_err(tinymcp::Error::Config)?;
        server.set_task_store(tasks);
        let notices = store::RedisNotices::start(Arc::clone(&link), &node).map_err(tinymcp::Error::Config)?;
        server.set_notice_bus(Arc::clone(&notices) as Arc<dyn tinymcp::NoticeBus>);
        let _ = store::EVENTS.set(store::RedisEvents::start(Arc::clone(&link)).map_err(tinymcp::Error::Config)?);
        log::info!("sharing tasks and notifications through the store {}", link.shown());
        Ok(Some(Box::new(move |server: &Arc<Server>| notices.subscribe(server))))
    }
    #[cfg(not(feature = "store"))]
    {
        let _ = server;
        Err(tinymcp::Error::Config(format!(
            "--store {}: this tinymcp was built without a store (the cargo feature `store`): use a release \
             binary or the Docker image, or build with `--features store`",
            url.split('@').next_back().unwrap_or_default()
        )))
    }
}

/// The spans still queued for `--otlp`, sent before the process ends (2 s at most).
fn flush_spans() {
    #[cfg(feature = "otlp")]
    cli::otlp::flush(Duration::from_secs(2));
}

/// `--otlp URL`: spans exported from here on (a build without the feature `otlp` refuses it,
/// saying what to do).
fn start_otlp(args: &Args) -> Result<(), tinymcp::Error> {
    let Some(url) = &args.otlp else { return Ok(()) };
    #[cfg(feature = "otlp")]
    return cli::otlp::start(url).map_err(tinymcp::Error::Config);
    #[cfg(not(feature = "otlp"))]
    Err(tinymcp::Error::Config(format!(
        "--otlp {url}: this tinymcp was built without span export (the cargo feature `otlp`): use a release \
         binary or the Docker image, or build with `--features otlp`"
    )))
}

/// The one registry every server of the process counts into, with `--metrics`.
static METRICS: std::sync::OnceLock<Arc<tinymcp::Metrics>> = std::sync::OnceLock::new();

/// `--metrics ADDR`: the metrics listener of its own, started before the server serves; plain
/// `--metrics` needs `--http`, whose listener serves them.
fn start_metrics(args: &Args) -> Result<(), tinymcp::Error> {
    match &args.metrics {
        Some(Some(addr)) => {
            let metrics = Arc::clone(METRICS.get_or_init(tinymcp::Metrics::new));
            #[cfg(feature = "http")]
            let token = cli::secret::token(args.token_file.as_deref()).map_err(tinymcp::Error::Config)?;
            // Without HTTP there are no bearer tokens (no `--token-file`): loopback and Host only.
            #[cfg(not(feature = "http"))]
            let token = None;
            cli::metrics::serve(addr, metrics, token).map(drop).map_err(tinymcp::Error::Config)
        }
        Some(None) if args.http.is_none() => Err(tinymcp::Error::Config(
            "--metrics with no address serves /metrics on the --http listener: give --http ADDR, or --metrics ADDR \
             (a loopback address or port) for a listener of its own"
                .into(),
        )),
        _ => Ok(()),
    }
}

/// The protocol core's limits, from the flags.
fn server_options(args: &Args) -> tinymcp::Options {
    let mut options = tinymcp::Options::default();
    if args.metrics.is_some() {
        options = options.with_metrics(Arc::clone(METRICS.get_or_init(tinymcp::Metrics::new)));
    }
    if let Some(n) = args.max_message_bytes {
        options.max_message_bytes = n;
    }
    if let Some(n) = args.page_size {
        options.page_size = n;
    }
    if let Some(n) = args.max_in_flight {
        options.max_in_flight = n;
    }
    if let Some(n) = args.max_listen_streams {
        options.max_listen_streams = n;
    }
    if let Some(ms) = args.cache_ttl_ms {
        options.list_cache.ttl_ms = ms;
        options.read_cache.ttl_ms = ms;
    }
    if let Some(ms) = args.task_ttl_ms {
        options.task_ttl = Duration::from_millis(ms as u64);
    }
    if let Some(secs) = args.state_ttl_secs {
        options.state_ttl = Duration::from_secs(secs as u64);
    }
    if let Some(revisions) = args.revisions {
        log::info!("speaking protocol revisions {revisions} only");
        options = options.with_revisions(revisions);
    }
    options.with_trace(args.trace)
}

/// Registers what the flags ask for and serves it, over HTTP or stdio.
fn run_server(args: Args, mut server: Server, attach: Option<Attach>) -> Result<(), tinymcp::Error> {
    let mut watcher = Watcher::new(args.watch_interval);
    if args.everything {
        provide::everything::register(&server);
    }
    if let Some(file) = &args.manifest {
        let manifest = manifest::load(file).map_err(|e| tinymcp::Error::Config(format!("\n{e}")))?;
        log::info!("{}: {}", manifest.file().display(), manifest.summary());
        for warning in manifest.warnings() {
            log::warn!("{}: {warning}", manifest.file().display());
        }
        if let Some(instructions) = manifest.instructions() {
            server.set_instructions(instructions);
        }
        manifest.register(&server);
        watcher.add(manifest.watch_job(&server));
    }
    let mut roots = args.roots.clone();
    // A writable root is served too, once.
    roots.extend(args.write_roots.iter().filter(|w| !args.roots.contains(w)).cloned());
    // With nothing else asked for, the job is the current directory, or a client's roots.
    let from_client = roots.is_empty() && !args.everything && args.manifest.is_none() && args.skills.is_none();
    if from_client {
        roots.push(std::env::current_dir()?);
    }
    if !roots.is_empty() {
        let mut options = FilesOptions {
            include_hidden: args.include_hidden,
            ignore_files: !args.no_ignore,
            client_roots: args.client_roots,
            roots_from_client: from_client,
            write_all: args.write_all,
            write_roots: args.write_roots.clone(),
            ..FilesOptions::default()
        };
        options.max_files = args.max_files.unwrap_or(options.max_files).max(1);
        // Below a few KiB no answer could hold a heading and a note.
        options.max_read_bytes = args.max_answer_bytes.unwrap_or(options.max_read_bytes).max(4096);
        let files = provide::serve_folders(&server, &roots, options)?;
        for (root, writable) in files.writable_roots() {
            log::info!("serving {} {}", root.display(), if writable { "writable" } else { "read-only" });
        }
        if from_client {
            log::info!(
                "no folder given: a client that declares roots (up to 2025-11-25) is served its roots \
                 instead, and nothing bounds them"
            );
        }
        // Without a watcher, the listing is walked again for every page: nothing would tell it changed.
        if args.watch {
            watcher.add(files.watch_job());
        }
    }
    // Skills: the folder given, else a root's `skills/` folder.
    let skills_dir = args.skills.clone().or_else(|| roots.iter().map(|r| r.join("skills")).find(|d| d.is_dir()));
    if let Some(dir) = skills_dir {
        let skills = provide::skills::register(&server, &dir)?;
        log::info!("serving the skills in {}", dir.display());
        watcher.add(skills.watch_job());
    }
    start_metrics(&args)?;
    start_otlp(&args)?;
    let server = Arc::new(server);
    if let Some(attach) = attach {
        attach(&server).map_err(tinymcp::Error::Config)?;
    }
    // Keep the handle: the watcher thread ends with the process.
    let _watching = if args.watch { watcher.spawn(&server)? } else { None };
    let drain = Duration::from_secs(args.drain_secs as u64);
    match &args.http {
        #[cfg(feature = "http")]
        Some(addr) => serve_http(server, &args, addr, drain),
        #[cfg(not(feature = "http"))]
        Some(_) => {
            Err(tinymcp::Error::Io(std::io::Error::other("this build has no HTTP (built without the `http` feature)")))
        }
        None => serve_stdio(server, drain),
    }
}

/// Serves over stdio until the end of input, or SIGTERM (then drains).
fn serve_stdio(server: Arc<Server>, drain: Duration) -> Result<(), tinymcp::Error> {
    // The reader blocks on stdin, so a thread of its own waits for SIGTERM, drains (the
    // answers of requests in flight are written out) and ends the process.
    if let Some(signals) = signals() {
        let draining = Arc::clone(&server);
        std::thread::Builder::new().name("tinymcp-signal".into()).stack_size(64 * 1024).spawn(move || {
            wait_for_signal(signals, drain);
            draining.drain(drain);
            std::process::exit(0);
        })?;
    }
    let served = transport::stdio::serve(Arc::clone(&server));
    // Tasks outlive their requests but not the process: their commands end with it.
    server.shutdown();
    served
}

/// SIGTERM and SIGINT (Windows: Ctrl-C, Ctrl-Break, console close) handled from now on;
/// without (another platform, or it failed) they end the process at once, as by default.
#[cfg(any(unix, windows))]
fn signals() -> Option<cli::signal::Signals> {
    cli::signal::install().map_err(|e| log::warn!("SIGTERM or Ctrl-C ends the process at once: {e}")).ok()
}

#[cfg(not(any(unix, windows)))]
fn signals() -> Option<std::convert::Infallible> {
    None
}

/// Blocks until SIGTERM or SIGINT (or a console event); from then on a second one ends the
/// process at once.
#[cfg(any(unix, windows))]
fn wait_for_signal(mut signals: cli::signal::Signals, drain: Duration) {
    let Ok(first) = signals.wait() else { return };
    log::info!("{first}: draining for at most {} s (a second signal ends the process now)", drain.as_secs());
    let _ = std::thread::Builder::new().name("tinymcp-signal-2".into()).stack_size(64 * 1024).spawn(move || {
        if let Ok(second) = signals.wait() {
            log::warn!("{second} while draining: exiting now");
            std::process::exit(1);
        }
    });
}

#[cfg(not(any(unix, windows)))]
fn wait_for_signal(never: std::convert::Infallible, _: Duration) {
    match never {}
}

#[cfg(feature = "http")]
fn http_options(args: &Args, addr: &str) -> Result<tinymcp_http::HttpOptions, String> {
    let mut options = tinymcp_http::HttpOptions::default();
    let host = cli::options::listen_addr(addr);
    let host = host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h).trim_matches(|c| c == '[' || c == ']');
    options.access.loopback_only =
        host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    options.access.allowed_origins = args.allow_origins.clone();
    options.access.trusted_proxies = args.trusted_proxies.clone();
    options.access.allowed_hosts = args.allow_hosts.clone();
    // Set but blank refuses to start rather than serve without one.
    options.access.token = cli::secret::token(args.token_file.as_deref())?;
    options.access.oauth = cli::oauth::settings(&args.oauth)?;
    options.serve_metrics = matches!(args.metrics, Some(None));
    #[cfg(feature = "store")]
    if let Some(events) = store::EVENTS.get() {
        options.event_log = Some(Arc::clone(events) as Arc<dyn tinymcp_http::EventLog>);
    }
    if let Some(n) = args.max_sessions {
        options.max_sessions = n;
    }
    if let Some(n) = args.session_idle_secs {
        options.session_idle = std::time::Duration::from_secs(n as u64);
    }
    if let Some(n) = args.session_ttl_secs {
        options.session_ttl = std::time::Duration::from_secs(n as u64);
    }
    if let Some(n) = args.max_streams {
        options.max_streams_per_session = n;
    }
    if let Some(n) = args.max_connections {
        options.max_connections = n;
    }
    if let Some(n) = args.idle_secs {
        options.idle = std::time::Duration::from_secs(n as u64);
    }
    if let Some(n) = args.handshake_secs {
        options.handshake = std::time::Duration::from_secs(n as u64);
    }
    if let Some(n) = args.read_secs {
        options.read_within = std::time::Duration::from_secs(n as u64);
    }
    if let Some(n) = args.write_secs {
        options.write_within = std::time::Duration::from_secs(n as u64);
    }
    Ok(options)
}

#[allow(clippy::print_stdout, clippy::print_stderr)]
fn main() -> ExitCode {
    // Arguments are text (paths included): one that is not UTF-8 is refused, by name.
    let raw: Vec<String> = match std::env::args_os().skip(1).map(std::ffi::OsString::into_string).collect() {
        Ok(raw) => raw,
        Err(arg) => {
            eprintln!("tinymcp: the argument {arg:?} is not valid UTF-8");
            return ExitCode::from(2);
        }
    };
    // The logger starts first: its flags are read ahead of the rest (`--log-format`, `--trace`).
    let logging = cli::logging::Logging::scan(&raw);
    let mut logger = env_logger::Builder::new();
    logger
        .filter_level(log::LevelFilter::Warn)
        // The HTTP transport's one "listening on URL" line shows by default.
        .filter_module("tinymcp::listening", log::LevelFilter::Info)
        // A proxied server's stderr and lifecycle (`tinymcp proxy`) show by default too.
        .filter_module("tinymcp::child", log::LevelFilter::Info);
    if logging.trace {
        // Tracing on: a line per answered (or relayed) request, with its trace id.
        logger.filter_module("tinymcp::request", log::LevelFilter::Info);
    }
    logger.parse_env("RUST_LOG").target(env_logger::Target::Stderr);
    if logging.json {
        logger.format(|out, record| cli::logging::json_line(out, record));
    } else if logging.trace {
        logger.format(|out, record| cli::logging::text_line(out, record));
    }
    logger.init();
    // Help is the one thing printed before a transport starts (stdout, exit 0).
    match help_asked(&raw) {
        Some(Ok(text)) => {
            // A reader that stops early (`| head`) is no error.
            let _ = writeln!(std::io::stdout(), "{text}");
            return ExitCode::SUCCESS;
        }
        Some(Err(why)) => {
            eprintln!("tinymcp: {why}");
            return ExitCode::from(2);
        }
        None => {}
    }
    let mut raw = raw.into_iter().peekable();
    if raw.peek().map(String::as_str) == Some("connect") {
        return match cli::connect::run(raw.skip(1)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("tinymcp connect: {why}");
                ExitCode::FAILURE
            }
        };
    }
    #[cfg(feature = "http")]
    if raw.peek().map(String::as_str) == Some("proxy") {
        let outcome = proxy(raw.skip(1));
        flush_spans();
        return match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("tinymcp proxy: {why}");
                ExitCode::FAILURE
            }
        };
    }
    if raw.peek().map(String::as_str) == Some("gateway") {
        #[cfg(feature = "gateway")]
        let outcome = gateway::run(raw.skip(1));
        #[cfg(not(feature = "gateway"))]
        let outcome: Result<(), String> = Err(cli::help::NO_GATEWAY.into());
        flush_spans();
        return match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("tinymcp gateway: {why}");
                ExitCode::FAILURE
            }
        };
    }
    if raw.peek().map(String::as_str) == Some("health") {
        return match cli::health::run(raw.skip(1)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("tinymcp health: {why}");
                ExitCode::FAILURE
            }
        };
    }
    let parsed = match raw.peek().map(String::as_str) {
        Some("config") => parse_config(raw.skip(1), false),
        Some("install") => parse_config(raw.skip(1), true),
        _ => parse_args(raw),
    };
    let args = match parsed {
        Ok(Parsed::Run(args)) => *args,
        Ok(Parsed::Config(Config { host, flags, url, launcher, install })) => {
            let exe = match std::env::current_exe() {
                Ok(exe) => exe,
                Err(e) => {
                    eprintln!("tinymcp: cannot find this binary's path: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let launcher =
                launcher.unwrap_or_else(|| started_by(std::env::var("TINYMCP_LAUNCHER").ok().as_deref(), &exe));
            let exe = exe.display().to_string();
            if let Some(install) = install {
                return match install_entry(host, &exe, launcher, &flags, url.as_deref(), &install) {
                    Ok((stdout, message)) => {
                        if let Some(text) = stdout {
                            print!("{text}");
                        }
                        eprintln!("{message}");
                        ExitCode::SUCCESS
                    }
                    Err(why) => {
                        eprintln!("tinymcp: {why}");
                        ExitCode::FAILURE
                    }
                };
            }
            let (command, args) = launcher.command(&exe, &flags);
            let launch = match &url {
                Some(url) => hosts::Launch::Url(url),
                None => hosts::Launch::Stdio { command: &command, args: &args },
            };
            match hosts::snippet(host, "tinymcp", launch) {
                Ok(snippet) => {
                    eprintln!("# for {host}: paste into {}", host.destination());
                    if let Some(link) = hosts::install_link(host, "tinymcp", launch) {
                        eprintln!("# or open this link to install it: {link}");
                    }
                    if let (Some(url), true) = (&url, flags.iter().any(|f| f == "--http")) {
                        let words: Vec<String> =
                            std::iter::once(&command).chain(&args).map(|w| hosts::shell_quote(w)).collect();
                        eprintln!(
                            "# the host connects to {url}; start the server yourself first:\n#   {}",
                            words.join(" ")
                        );
                    }
                    println!("{}", snippet.trim_end());
                    return ExitCode::SUCCESS;
                }
                Err(why) => {
                    eprintln!("tinymcp: {why}");
                    return ExitCode::from(2);
                }
            }
        }
        Ok(Parsed::Check(files)) => {
            let mut status = ExitCode::SUCCESS;
            for file in files {
                if file.is_dir() {
                    let problems = provide::skills::check(&file);
                    for problem in &problems {
                        eprintln!("{}: {problem}", file.display());
                    }
                    if problems.is_empty() {
                        println!("{}: OK (skills)", file.display());
                    } else {
                        status = ExitCode::FAILURE;
                    }
                    continue;
                }
                match manifest::load(&file) {
                    Ok(manifest) => {
                        for warning in manifest.warnings() {
                            eprintln!("{}: {warning}", file.display());
                        }
                        println!("{}: OK ({})", file.display(), manifest.summary());
                    }
                    Err(e) => {
                        eprintln!("{e}");
                        status = ExitCode::FAILURE;
                    }
                }
            }
            return status;
        }
        Ok(Parsed::Version) => {
            println!("tinymcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("tinymcp: {why}");
            return ExitCode::from(2);
        }
    };
    if args.http.is_none() && std::io::stdin().is_terminal() {
        eprintln!("{}", terminal_hint(&args));
    }
    let outcome = run(args);
    flush_spans();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(tinymcp::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
