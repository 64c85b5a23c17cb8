//! The `tinymcp` binary: parses the command line once, sets up logging to stderr, builds the
//! server from the chosen providers and runs the chosen transport. Errors become an exit code here.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
mod cli;
mod provide;

use cli::hosts::{self, Host};
use provide::files::FilesOptions;
use provide::manifest;
use provide::watch::Watcher;
use tinymcp::{transport, Server};

/// The server's own usage, the start of `tinymcp --help`; each subcommand's follows, from
/// beside its parser (`help`).
const USAGE: &str = "    tinymcp [OPTIONS]
        serve folders, a manifest, skills or the conformance fixture over stdio (or HTTP)";

/// What the server serves when nothing is named, after the subcommands in `tinymcp --help`.
const DEFAULT_SERVED: &str = "\
With no --root, --manifest, --skills or --everything, the current directory is served
(read-only unless --write), or to a client that declares roots (up to 2025-11-25) its roots.";

/// The options of what is served (`parse_args`).
const OPTIONS: &str = "\
OPTIONS:
    -h, --help              print this help (`tinymcp help COMMAND`: a command's)
    -V, --version           print the version
    --manifest FILE         serve the command tools, prompts and resources a JSON manifest
                            declares (reloaded when it changes)
    --check FILE...         check manifests and skills folders (every path given): print every
                            problem (a manifest's with its JSON path) and exit non-zero, or OK
    --skills DIR            serve the agent skills in DIR (folders with a SKILL.md) through the
                            skills extension; a --root with a skills/ folder serves those too
    --root DIR              serve DIR, read-only unless --write (repeatable); nothing outside
                            it is ever read or written
    --write                 let the model change every served folder: the tools write_file,
                            edit_file, create_directory and move_file (atomic writes, never
                            outside the folder, never hidden files without --include-hidden)
    --write-root DIR        serve DIR and let the model change it (repeatable); other roots
                            stay read-only
    --include-hidden        also serve hidden files and folders such as .git and .env
    --client-roots          serve a client that declares roots (up to 2025-11-25) only what is
                            under its roots inside the served folders (asked on every call;
                            a root outside them is refused and logged)
    --no-ignore             also list and search what .gitignore and .ignore files ignore
                            (by default left out, as git and ripgrep do)
    --max-files N           files listed, searched or watched per folder (default 10000)
    --max-answer-bytes N    the most bytes of one file tool answer: a read_file window, a
                            tree, a list of paths (default 262144); each says how to get the rest
    --no-watch              poll nothing: no change notifications, no manifest reload
    --watch-interval MS     how often files are polled for changes (default 1000)
    --everything            serve the conformance-suite fixture (plus an `echo` tool)";

/// The protocol's options, over every transport (`proxy`'s too, but --revisions).
const PROTOCOL_OPTIONS: &str = "\
PROTOCOL OPTIONS:
    --revisions RANGE       speak only these protocol revisions, like a server that knows no
                            other: FROM..TO, either end optional, or one revision (known:
                            2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28);
                            `..2025-11-25`: no server/discover, per-request _meta is read as
                            an older server would; `2026-07-28..`: no initialize, every request
                            carries its _meta (default: every revision; not with proxy)
    --max-message-bytes N   refuse messages larger than N bytes (default 4194304)
    --page-size N           items per page of every list (default 100)
    --cache-ttl-ms N        the ttlMs a 2026-07-28 client is told for lists and resources/read
                            (default 60000; 0 says do not reuse)
    --task-ttl-ms N         how long a finished task stays readable, then its id is unknown
                            (default 300000; the default ttl of 2025-11-25 tasks too)
    --max-in-flight N       requests one client may have running; more wait in order for a
                            slot (4096 at most), then are refused (default 256)
    --max-listen-streams N  2026-07-28 subscriptions/listen streams open at once, across every
                            client (default 1024); more are refused (-32603, HTTP 503)
    --drain-secs N          on SIGTERM or SIGINT: refuse new requests (HTTP: 503, /healthz
                            too), let requests in flight finish for up to N seconds (then
                            cancel them), end open streams with a retry hint, exit 0 (default 10)
    --state-key-file FILE   seal 2026-07-28 requestState and HTTP session ids with the hex key
                            in FILE (at least 64 hex digits, e.g. `openssl rand -hex 32`), so
                            replicas sharing it accept each other's states and sessions
                            (default: a random key per process)
    --node-id ID            name this replica (1 to 32 letters, digits or '-'): every session
                            and task id it hands out starts with `ID.`, for a load balancer
                            to route on (see docs/deploy.md)";

/// The HTTP transport's options.
const HTTP_OPTIONS: &str =
    "    --http ADDR             serve HTTP instead of stdio: Streamable HTTP at /mcp, legacy SSE at
                            /sse; ADDR is PORT (on 127.0.0.1) or HOST:PORT
    --allow-origin ORIGIN   also accept browser requests from ORIGIN, with CORS (repeatable;
                            loopback origins are always accepted, `null` never); '*' accepts
                            every origin and needs a token
    --allow-host NAME       bound beyond loopback, also accept requests whose Host (or trusted
                            X-Forwarded-Host) is NAME (repeatable); otherwise only loopback
                            names and the address listened on (any IP address for 0.0.0.0)
                            pass, against DNS rebinding
    --trusted-proxy IP      a reverse proxy's address (repeatable): only from it do
                            X-Forwarded-Host and X-Forwarded-Proto count for the Host and
                            Origin checks; from any other peer they are ignored
    --token-file FILE       require `Authorization: Bearer <token>`, the token read from FILE
                            (or set TINYMCP_TOKEN); never given on the command line; one line
                            of at least 16 bytes (`openssl rand -hex 32`); keep FILE mode 600.
                            Bound beyond loopback without one, anyone who can reach the port
                            can call every tool (a warning says so)
    --max-sessions N        HTTP sessions at once, legacy SSE ones included (default 1000);
                            at the cap the longest-idle one ends to make room, or 503 when
                            every one is busy
    --session-idle-secs N   end an HTTP session unused this long (default 1800)
    --session-ttl-secs N    how long an HTTP session id is accepted after initialize, by this
                            replica and every other sharing --state-key-file (default 86400)
    --max-streams N         GET streams one HTTP session may hold open (default 8)
    --max-connections N     HTTP connections open at once (default 2048); more get 503
    --idle-secs N           close a kept-alive HTTP connection idle this long (default 30)
    --handshake-secs N      end an HTTP session that sent no request within N s of initialize
                            (default 30), so abandoned handshakes cannot fill --max-sessions
    --read-secs N           a request's head must arrive within N s of its first byte (a new
                            connection's first byte too), its body within N s plus 1 s per
                            64 KiB; then 408 or 400 and close (default 5)
    --write-secs N          end an HTTP connection, and a stream on it, when a write to its
                            client makes no progress for N s (a client that stopped reading;
                            default 10)";

/// OAuth's options (HTTP only).
const OAUTH_OPTIONS: &str =
    "    --oauth-issuer URL      require OAuth access tokens (JWTs) from this authorization server:
                            its metadata (RFC 8414 or OpenID discovery) names the keys that
                            sign them, fetched over HTTPS (plain HTTP only on loopback) and
                            again when it rotates them; needs --public-url; not with a token
    --public-url URL        this server's URL as clients reach it (https://host/mcp): the
                            resource its metadata announces and the audience tokens must name;
                            with proxy --config, the base URL: each server is BASE/NAME/mcp
    --oauth-scope SCOPE     a scope every request's token must carry (repeatable)
    --oauth-introspection URL
                            check opaque (non-JWT) access tokens at this RFC 7662 endpoint of
                            the issuer; answers are reused for 30 seconds
    --oauth-client-id ID    this server's client id for introspection
    --oauth-client-secret-file FILE
                            its secret (mode 600), or set TINYMCP_OAUTH_CLIENT_SECRET; never
                            on the command line";

/// The last line of `tinymcp --help`.
const LOGS: &str = "Logs go to stderr; set RUST_LOG (error, warn, info, debug, trace) to choose how much.";

/// The subcommands, as `tinymcp help` and the errors name them.
const COMMAND_NAMES: &str = "config, install, connect, proxy, health, help";

/// The usage of a subcommand, from beside its parser; `None` for a word that is none (or
/// `proxy` in a build without HTTP).
fn usage_of(command: &str) -> Option<&'static str> {
    match command {
        "config" => Some(CONFIG_USAGE),
        "install" => Some(INSTALL_USAGE),
        "connect" => Some(cli::connect::USAGE),
        #[cfg(feature = "http")]
        "proxy" => Some(cli::proxy::USAGE),
        "health" => Some(cli::health::USAGE),
        "help" => Some(HELP_USAGE),
        _ => None,
    }
}

/// `tinymcp help [COMMAND]`.
const HELP_USAGE: &str = "    tinymcp help [COMMAND]
        this help, or COMMAND's alone (as `tinymcp COMMAND --help`)";

/// `tinymcp --help`: the server's usage, every command's, and every option.
fn whole_help() -> String {
    let commands = COMMAND_NAMES.split(", ");
    let usages = commands.filter_map(usage_of).collect::<Vec<_>>().join("\n");
    let (http, oauth) = http_sections();
    format!(
        "tinymcp: a Model Context Protocol server\n\nUSAGE:\n{USAGE}\n{usages}\n\n{DEFAULT_SERVED}\n\n{OPTIONS}\n\n\
         {PROTOCOL_OPTIONS}\n\n{http}\n\n{oauth}\n\n{LOGS}"
    )
}

/// The HTTP and OAuth options, each marked when this build lacks it.
fn http_sections() -> (String, String) {
    let section = |title: &str, options: &str, feature: &str, built: bool| match built {
        true => format!("{title}:\n{options}"),
        false => format!("{title} (not in this build: it was built without the `{feature}` feature):\n{options}"),
    };
    (
        section("HTTP OPTIONS", HTTP_OPTIONS, "http", cfg!(feature = "http")),
        section("OAUTH OPTIONS", OAUTH_OPTIONS, "oauth", cfg!(feature = "oauth")),
    )
}

/// `tinymcp COMMAND --help`: the command's usage and the server's options it takes; `None`
/// for a word that is no command.
fn command_help(command: &str) -> Option<String> {
    let usage = usage_of(command)?;
    let options = match command {
        "help" => return Some(whole_help()),
        "config" | "install" => {
            "OPTIONS: the server's (tinymcp --help), checked as for a run: the host runs the binary with them"
                .to_owned()
        }
        "proxy" => {
            let (http, oauth) = http_sections();
            format!("{PROTOCOL_OPTIONS}\n\n{http}\n\n{oauth}")
        }
        _ => String::new(),
    };
    Some(format!("USAGE:\n{usage}\n\n{options}").trim_end().to_owned())
}

/// The help asked for, if any: `tinymcp help [COMMAND]`, or `-h`/`--help` among the
/// arguments of the server or of a command (`cli::asks_help`); `Err` names what `help` does
/// not know.
fn help_asked(raw: &[String]) -> Option<Result<String, String>> {
    let (first, rest) = raw.split_first()?;
    if first == "help" {
        return Some(match rest {
            [] => Ok(whole_help()),
            [topic] if cli::asks_help(std::slice::from_ref(topic)) => Ok(whole_help()),
            [topic] => command_help(topic)
                .ok_or_else(|| format!("help: unknown command {topic:?}: the commands are {COMMAND_NAMES}")),
            _ => Err("help takes one command, e.g. tinymcp help install".into()),
        });
    }
    let command = usage_of(first).map(|_| first.as_str());
    let asked = cli::asks_help(if command.is_some() { rest } else { raw });
    asked.then(|| Ok(command.and_then(command_help).unwrap_or_else(whole_help)))
}

/// What to say of an argument the server's parser does not know, so that it says what to do:
/// the command a flag belongs to, `--root` for a folder, the commands for a word.
fn unknown(arg: &str) -> String {
    let commands = COMMAND_NAMES.split(", ");
    if arg.starts_with('-') {
        let names = |usage: &str| usage.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).any(|w| w == arg);
        let owners: Vec<&str> = commands.filter(|c| usage_of(c).is_some_and(names)).collect();
        return match owners.first() {
            None => format!("unknown option {arg}: see tinymcp --help"),
            Some(first) => {
                let uses: Vec<String> = owners.iter().map(|c| format!("tinymcp {c} {arg} ...")).collect();
                format!("{arg} is an option of a command: {} (see tinymcp {first} --help)", uses.join(", or "))
            }
        };
    }
    if arg == "proxy" && !cfg!(feature = "http") {
        return "this build has no `tinymcp proxy` (built without the `http` feature)".into();
    }
    if std::path::Path::new(arg).is_dir() {
        return format!("unexpected argument {arg}: to serve that folder, give --root {arg}");
    }
    format!("unknown command {arg:?}: the commands are {COMMAND_NAMES} (see tinymcp --help)")
}

struct Args {
    everything: bool,
    http: Option<String>,
    allow_origins: Vec<String>,
    allow_hosts: Vec<String>,
    token_file: Option<String>,
    max_sessions: Option<usize>,
    session_idle_secs: Option<usize>,
    session_ttl_secs: Option<usize>,
    max_streams: Option<usize>,
    max_connections: Option<usize>,
    idle_secs: Option<usize>,
    handshake_secs: Option<usize>,
    read_secs: Option<usize>,
    write_secs: Option<usize>,
    roots: Vec<PathBuf>,
    include_hidden: bool,
    no_ignore: bool,
    client_roots: bool,
    write_all: bool,
    write_roots: Vec<PathBuf>,
    max_files: Option<usize>,
    max_answer_bytes: Option<usize>,
    watch: bool,
    watch_interval: Duration,
    max_message_bytes: Option<usize>,
    page_size: Option<usize>,
    max_in_flight: Option<usize>,
    max_listen_streams: Option<usize>,
    manifest: Option<PathBuf>,
    state_key_file: Option<PathBuf>,
    node_id: Option<String>,
    cache_ttl_ms: Option<u64>,
    state_ttl_secs: Option<usize>,
    task_ttl_ms: Option<usize>,
    skills: Option<PathBuf>,
    revisions: Option<tinymcp::Revisions>,
    drain_secs: usize,
    trusted_proxies: Vec<std::net::IpAddr>,
    #[cfg(feature = "http")]
    oauth: cli::oauth::Flags,
}

/// What `tinymcp config` prints: the host, the server's options, and the URL the host connects
/// to (from `--url`, or `--http`), or none for a host that starts the server over stdio.
struct Config {
    host: Host,
    flags: Vec<String>,
    url: Option<String>,
    /// `install` rather than `config`: where, and whether to write.
    install: Option<Install>,
}

struct Install {
    scope: cli::install::Scope,
    config_file: Option<PathBuf>,
    dry_run: bool,
}

enum Parsed {
    Run(Box<Args>),
    Check(Vec<PathBuf>),
    Config(Config),
    Version,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Parsed, String> {
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
        #[cfg(feature = "http")]
        oauth: cli::oauth::Flags::default(),
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-V" | "--version" => return Ok(Parsed::Version),
            "--everything" => parsed.everything = true,
            "--revisions" => {
                let range = value(&arg, args.next())?;
                parsed.revisions = Some(range.parse().map_err(|why| format!("--revisions: {why}"))?);
            }
            "--http" => parsed.http = Some(value(&arg, args.next())?),
            "--allow-origin" => parsed.allow_origins.push(value(&arg, args.next())?),
            "--allow-host" => parsed.allow_hosts.push(value(&arg, args.next())?),
            "--token-file" => parsed.token_file = Some(value(&arg, args.next())?),
            "--max-sessions" => parsed.max_sessions = Some(number(&arg, args.next())?),
            "--session-idle-secs" => parsed.session_idle_secs = Some(number(&arg, args.next())?),
            "--session-ttl-secs" => parsed.session_ttl_secs = Some(number(&arg, args.next())?),
            "--max-streams" => parsed.max_streams = Some(number(&arg, args.next())?),
            "--max-connections" => parsed.max_connections = Some(number(&arg, args.next())?),
            "--idle-secs" => parsed.idle_secs = Some(number(&arg, args.next())?),
            "--handshake-secs" => parsed.handshake_secs = Some(number(&arg, args.next())?),
            "--read-secs" => parsed.read_secs = Some(number(&arg, args.next())?),
            "--write-secs" => parsed.write_secs = Some(number(&arg, args.next())?),
            "--root" => parsed.roots.push(PathBuf::from(args.next().ok_or("--root needs a folder")?)),
            "--manifest" => parsed.manifest = Some(PathBuf::from(args.next().ok_or("--manifest needs a file")?)),
            "--check" => return check_files(args),
            "--skills" => parsed.skills = Some(PathBuf::from(args.next().ok_or("--skills needs a folder")?)),
            "--state-key-file" => {
                parsed.state_key_file = Some(PathBuf::from(args.next().ok_or("--state-key-file needs a file")?));
            }
            "--node-id" => parsed.node_id = Some(value(&arg, args.next())?),
            "--include-hidden" => parsed.include_hidden = true,
            "--no-ignore" => parsed.no_ignore = true,
            "--client-roots" => parsed.client_roots = true,
            "--write" => parsed.write_all = true,
            "--write-root" => {
                parsed.write_roots.push(PathBuf::from(args.next().ok_or("--write-root needs a folder")?));
            }
            "--max-files" => parsed.max_files = Some(number(&arg, args.next())?),
            "--max-answer-bytes" => parsed.max_answer_bytes = Some(number(&arg, args.next())?),
            "--no-watch" => parsed.watch = false,
            "--watch-interval" => {
                parsed.watch_interval = Duration::from_millis(number(&arg, args.next())? as u64);
            }
            "--max-message-bytes" => parsed.max_message_bytes = Some(number(&arg, args.next())?),
            "--page-size" => parsed.page_size = Some(number(&arg, args.next())?),
            "--max-in-flight" => parsed.max_in_flight = Some(number(&arg, args.next())?),
            "--drain-secs" => parsed.drain_secs = number(&arg, args.next())?,
            "--trusted-proxy" => {
                let value = value(&arg, args.next())?;
                let ip = value.trim_matches(|c| c == '[' || c == ']').parse().map_err(|_| {
                    format!("--trusted-proxy: expected an IP address (no port, no name), got {value:?}")
                })?;
                parsed.trusted_proxies.push(ip);
            }
            #[cfg(feature = "http")]
            "--oauth-issuer" => parsed.oauth.issuer = Some(value(&arg, args.next())?),
            #[cfg(feature = "http")]
            "--public-url" => parsed.oauth.public_url = Some(value(&arg, args.next())?),
            #[cfg(feature = "http")]
            "--oauth-scope" => parsed.oauth.scopes.push(value(&arg, args.next())?),
            #[cfg(feature = "http")]
            "--oauth-introspection" => parsed.oauth.introspection = Some(value(&arg, args.next())?),
            #[cfg(feature = "http")]
            "--oauth-client-id" => parsed.oauth.client_id = Some(value(&arg, args.next())?),
            #[cfg(feature = "http")]
            "--oauth-client-secret-file" => parsed.oauth.client_secret_file = Some(value(&arg, args.next())?),
            // Not in --help: how far token times may be off, for tests of expiry.
            #[cfg(feature = "http")]
            "--oauth-leeway-ms" => {
                parsed.oauth.leeway = Some(Duration::from_millis(number(&arg, args.next())? as u64));
            }
            // Not in --help: the shortest time between two fetches of the issuer's keys, for tests.
            #[cfg(feature = "http")]
            "--oauth-refetch-ms" => {
                parsed.oauth.refetch = Some(Duration::from_millis(number(&arg, args.next())? as u64));
            }
            "--max-listen-streams" => parsed.max_listen_streams = Some(number(&arg, args.next())?),
            "--cache-ttl-ms" => {
                let value = value(&arg, args.next())?;
                let ms =
                    value.parse().map_err(|_| format!("--cache-ttl-ms: expected a whole number, got {value:?}"))?;
                parsed.cache_ttl_ms = Some(ms);
            }
            "--task-ttl-ms" => parsed.task_ttl_ms = Some(number(&arg, args.next())?),
            // Not in --help: how long a requestState lives, for tests of its expiry.
            "--state-ttl-secs" => parsed.state_ttl_secs = Some(number(&arg, args.next())?),
            other => return Err(unknown(other)),
        }
    }
    Ok(Parsed::Run(Box::new(parsed)))
}

/// `--check FILE...`: every argument after it is a manifest to check (a repeated `--check` is
/// allowed); any other flag there is a mistake rather than something silently ignored.
fn check_files(args: impl Iterator<Item = String>) -> Result<Parsed, String> {
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

fn value(flag: &str, value: Option<String>) -> Result<String, String> {
    value.filter(|v| !v.starts_with("--")).ok_or_else(|| format!("{flag} needs a value"))
}

/// `tinymcp config`'s usage (`--help`).
const CONFIG_USAGE: &str = "    tinymcp config --host HOST [--url URL] [OPTIONS]
        print the configuration that makes that host run this binary with these options
        (relative paths made absolute; the current directory as --root when none is given);
        with --http ADDR, or --url URL of a server running elsewhere, the host connects to the URL.
        HOST: claude-desktop (or claude), claude-code, vscode, cursor, windsurf, zed, codex, gemini";

/// `tinymcp install`'s usage (`--help`).
const INSTALL_USAGE: &str =
    "    tinymcp install --host HOST [--scope user|project] [--config-file FILE] [--dry-run] [OPTIONS]
        write that configuration into the host's own file (found from $HOME, or FILE): merged
        with the servers already there, the previous file kept as FILE.bak, nothing written
        when it is there already; --dry-run prints the file it would write";

/// `tinymcp config --host HOST [OPTIONS]`: the options are checked as if to run, and the paths
/// in them made absolute, since a host starts the server in a folder of its choosing.
fn parse_config(mut args: impl Iterator<Item = String>, installing: bool) -> Result<Parsed, String> {
    let mut host = None;
    let mut flags = Vec::new();
    let mut url = None;
    let mut install = Install { scope: cli::install::Scope::User, config_file: None, dry_run: false };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scope" if installing => {
                install.scope = match value(&arg, args.next())?.as_str() {
                    "user" => cli::install::Scope::User,
                    "project" => cli::install::Scope::Project,
                    other => return Err(format!("--scope: expected user or project, got {other:?}")),
                }
            }
            "--config-file" if installing => install.config_file = Some(PathBuf::from(value(&arg, args.next())?)),
            "--dry-run" if installing => install.dry_run = true,
            "--url" => {
                let value = value(&arg, args.next())?;
                if !value.starts_with("http://") && !value.starts_with("https://") {
                    return Err(format!("--url: expected an http:// or https:// URL, got {value:?}"));
                }
                url = Some(value);
            }
            "--host" => {
                let name = args.next().ok_or_else(|| format!("--host needs one of: {}", hosts::HOST_NAMES))?;
                let found = Host::from_name(&name)
                    .ok_or_else(|| format!("--host: expected one of {}, got {name:?}", hosts::HOST_NAMES))?;
                host = Some(found);
            }
            flag if cli::install::PATH_FLAGS.contains(&flag) => {
                let value = args.next().ok_or_else(|| format!("{arg} needs a path"))?;
                let absolute =
                    std::fs::canonicalize(&value).map_err(|e| format!("{arg} {value}: {e}"))?.display().to_string();
                flags.push(arg);
                flags.push(absolute);
            }
            _ => flags.push(arg),
        }
    }
    let host = host.ok_or_else(|| format!("config needs --host (one of: {})", hosts::HOST_NAMES))?;
    match parse_args(flags.clone().into_iter())? {
        Parsed::Run(run) => {
            let nothing = run.roots.is_empty() && run.write_roots.is_empty() && run.manifest.is_none();
            if nothing && !run.everything && run.skills.is_none() {
                let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
                flags.extend(["--root".to_owned(), here.display().to_string()]);
            }
            // A server started with --http does not answer on stdin: the host connects to its URL.
            let url = url.or_else(|| run.http.as_deref().map(|addr| hosts::url_of_listen_addr(&listen_addr(addr))));
            Ok(Parsed::Config(Config { host, flags, url, install: installing.then_some(install) }))
        }
        _ => Err("config: give the options the server should run with (not --check or --version)".into()),
    }
}

/// `tinymcp install`: the entry merged into the host's file. Answers what to print: with
/// `--dry-run` the diff it would make (stdout), and what was done (stderr). A project's file
/// gets the portable launch (`cli::install::portable`).
fn install_entry(
    host: Host,
    exe: &str,
    flags: &[String],
    url: Option<&str>,
    install: &Install,
) -> Result<(Option<String>, String), String> {
    use cli::install::{Change, Scope};
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")).map(PathBuf::from);
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let mut notes = cli::install::wide_roots(flags, home.as_deref());
    let portable;
    let launch = match url {
        Some(url) => hosts::Launch::Url(url),
        None if install.scope == Scope::Project => {
            let project = std::fs::canonicalize(&cwd).unwrap_or(cwd.clone());
            let said;
            (portable, said) = cli::install::portable(host, exe, flags, &project);
            notes.extend(said);
            hosts::Launch::Stdio { command: "tinymcp", args: &portable }
        }
        None => hosts::Launch::Stdio { command: exe, args: flags },
    };
    let entry = hosts::entry(host, launch)?;
    let path = match &install.config_file {
        Some(path) => path.clone(),
        None => {
            let home = home.ok_or("cannot find the home folder: HOME is not set (give --config-file FILE)")?;
            cli::install::config_path(host, install.scope, &home, &cwd)?
        }
    };
    let outcome = cli::install::install(host, &path, "tinymcp", &entry, install.dry_run)?;
    let shown = outcome.path.display();
    let what = match outcome.change {
        Change::Added => "adds the server \"tinymcp\" to",
        Change::Replaced => "replaces the server \"tinymcp\" in",
        Change::Unchanged => "finds the server \"tinymcp\" as it should be already in",
    };
    let mut message: String = notes.iter().map(|note| format!("tinymcp: {note}\n")).collect();
    if install.dry_run {
        let diff = cli::install::diff(&outcome.path, &outcome.old, &outcome.text);
        message.push_str(&format!("tinymcp: --dry-run: this {what} {shown}; nothing written"));
        return Ok((Some(diff), message));
    }
    match (outcome.change, &outcome.backup) {
        (Change::Unchanged, _) => {
            message.push_str(&format!(
                "tinymcp: {host}: nothing to do: the server \"tinymcp\" is already as it should be in {shown}"
            ));
            return Ok((None, message));
        }
        (_, Some(backup)) => message.push_str(&format!(
            "tinymcp: {host}: {shown} changed: {what} it (the previous file is {})",
            backup.display()
        )),
        (_, None) => message.push_str(&format!("tinymcp: {host}: {shown} written: {what} it (a new file)")),
    }
    Ok((None, format!("{message}\ntinymcp: restart {host} (or reload its MCP servers) to use it")))
}

fn number(flag: &str, value: Option<String>) -> Result<usize, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a number"))?;
    match value.parse() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag}: expected a positive whole number, got {value:?}")),
    }
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
    run_server(args, server)
}

/// `tinymcp proxy`: the HTTP flags as for the server, every session relayed to its own child
/// (or, with `--shared`, to one child for all).
#[cfg(feature = "http")]
fn proxy(raw: impl Iterator<Item = String>) -> Result<(), String> {
    let parsed = cli::proxy::parse(raw)?;
    let args = match parse_args(parsed.rest.into_iter())? {
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
    let options = http_options(args, addr).map_err(tinymcp::Error::Config)?;
    // Handled before the server says it listens: a signal sent from then on drains.
    let signals = signals();
    let http = transport::http::HttpServer::start_mounted(servers, &listen_addr(addr), options)?;
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

/// The protocol core's limits, from the flags.
fn server_options(args: &Args) -> tinymcp::Options {
    let mut options = tinymcp::Options::default();
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
    options
}

/// Registers what the flags ask for and serves it, over HTTP or stdio.
fn run_server(args: Args, mut server: Server) -> Result<(), tinymcp::Error> {
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
    let server = Arc::new(server);
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
        None => {
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
    }
}

/// SIGTERM and SIGINT handled from now on; without (not Unix, or it failed) they end the
/// process at once, as by default.
#[cfg(unix)]
fn signals() -> Option<cli::signal::Signals> {
    cli::signal::install().map_err(|e| log::warn!("SIGTERM ends the process at once: {e}")).ok()
}

#[cfg(not(unix))]
fn signals() -> Option<std::convert::Infallible> {
    None
}

/// Blocks until SIGTERM or SIGINT; from then on a second one ends the process at once.
#[cfg(unix)]
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

#[cfg(not(unix))]
fn wait_for_signal(never: std::convert::Infallible, _: Duration) {
    match never {}
}

/// `PORT` alone means loopback: nothing is exposed unless asked for.
fn listen_addr(addr: &str) -> String {
    if addr.bytes().all(|b| b.is_ascii_digit()) {
        format!("127.0.0.1:{addr}")
    } else {
        addr.to_owned()
    }
}

#[cfg(feature = "http")]
fn http_options(args: &Args, addr: &str) -> Result<transport::http::HttpOptions, String> {
    let mut options = transport::http::HttpOptions::default();
    let host = listen_addr(addr);
    let host = host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h).trim_matches(|c| c == '[' || c == ']');
    options.access.loopback_only =
        host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    options.access.allowed_origins = args.allow_origins.clone();
    options.access.trusted_proxies = args.trusted_proxies.clone();
    options.access.allowed_hosts = args.allow_hosts.clone();
    // Set but blank refuses to start rather than serve without one.
    options.access.token = cli::secret::token(args.token_file.as_deref())?;
    options.access.oauth = cli::oauth::settings(&args.oauth)?;
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
    env_logger::Builder::new()
        .filter_level(log::LevelFilter::Warn)
        // The HTTP transport's one "listening on URL" line shows by default.
        .filter_module("tinymcp::listening", log::LevelFilter::Info)
        // A proxied server's stderr and lifecycle (`tinymcp proxy`) show by default too.
        .filter_module("tinymcp::child", log::LevelFilter::Info)
        .parse_env("RUST_LOG")
        .target(env_logger::Target::Stderr)
        .init();
    let raw: Vec<String> = std::env::args().skip(1).collect();
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
        return match proxy(raw.skip(1)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("tinymcp proxy: {why}");
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
        Ok(Parsed::Config(Config { host, flags, url, install })) => {
            let exe = match std::env::current_exe() {
                Ok(exe) => exe.display().to_string(),
                Err(e) => {
                    eprintln!("tinymcp: cannot find this binary's path: {e}");
                    return ExitCode::FAILURE;
                }
            };
            if let Some(install) = install {
                return match install_entry(host, &exe, &flags, url.as_deref(), &install) {
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
            let launch = match &url {
                Some(url) => hosts::Launch::Url(url),
                None => hosts::Launch::Stdio { command: &exe, args: &flags },
            };
            match hosts::snippet(host, "tinymcp", launch) {
                Ok(snippet) => {
                    eprintln!("# for {host}: paste into {}", host.destination());
                    if let Some(link) = hosts::install_link(host, "tinymcp", launch) {
                        eprintln!("# or open this link to install it: {link}");
                    }
                    if let (Some(url), true) = (&url, flags.iter().any(|f| f == "--http")) {
                        let words: Vec<String> =
                            std::iter::once(&exe).chain(&flags).map(|w| hosts::shell_quote(w)).collect();
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
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(tinymcp::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
