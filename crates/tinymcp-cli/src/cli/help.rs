//! What the binary says of itself: `tinymcp --help`, each command's `--help`, `tinymcp help
//! [COMMAND]`, and what to do about an argument nobody takes.

use crate::cli;
use crate::cli::config::{CONFIG_USAGE, INSTALL_USAGE};

/// The server's own usage, the start of `tinymcp --help`; each subcommand's follows, from
/// beside its parser (`help`).
pub const USAGE: &str = "    tinymcp [OPTIONS]
        serve folders, a manifest, skills or the conformance fixture over stdio (or HTTP)";

/// What the server serves when nothing is named, after the subcommands in `tinymcp --help`.
pub const DEFAULT_SERVED: &str = "\
With no --root, --manifest, --skills or --everything, the current directory is served
(read-only unless --write), or to a client that declares roots (up to 2025-11-25) its roots.";

/// The options of what is served (`parse_args`).
pub const OPTIONS: &str = "\
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
pub const PROTOCOL_OPTIONS: &str = "\
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
                            to route on (see docs/deploy.md)
    --store URL             redis://HOST:PORT[/DB] (Redis 7 or Valkey): share tasks and
                            notifications with the replicas using it, so any replica answers
                            tasks/get, tasks/result and tasks/cancel (cargo feature `store`;
                            see docs/deploy.md)
    --store-lease-ms N      with --store: a running task's lease; a task whose replica stopped
                            reads failed once it lapses (default 10000)
    --log-format FORMAT     text (default) or json: one JSON object per log line, with the
                            request's method, id, tool and trace id in its lines (implies
                            --trace; see docs/operations.md)
    --trace                 give a request without a W3C trace context a fresh one (passed to
                            command tools and proxied servers), and log each answered request
                            with its trace id and duration
    --otlp URL              export a span per request (and per command run or proxied call)
                            over OTLP/HTTP JSON to URL, e.g. http://127.0.0.1:4318/v1/traces
                            (implies --trace; cargo feature `otlp`; see docs/operations.md)
    --metrics [ADDR]        count requests, tool calls, sessions, refusals and more, served in
                            the Prometheus text format: alone, at /metrics on the --http
                            listener behind its checks; with ADDR (a loopback PORT or
                            HOST:PORT), on a listener of its own, over stdio too
                            (see docs/operations.md; default off)";

/// The HTTP transport's options.
pub const HTTP_OPTIONS: &str =
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
pub const OAUTH_OPTIONS: &str =
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
pub const LOGS: &str = "Logs go to stderr; set RUST_LOG (error, warn, info, debug, trace) to choose how much.";

/// The subcommands, as `tinymcp help` and the errors name them.
pub const COMMAND_NAMES: &str = "config, install, connect, proxy, health, gateway, help";

/// `tinymcp gateway`'s usage (`--help`); the server's options it takes follow it there.
pub const GATEWAY_USAGE: &str =
    "    tinymcp gateway --config FILE [--ca-file PEM] [--pass-env VAR]... [--http ADDR] [OPTIONS]
        one MCP endpoint in front of many servers (docs/gateway.md): the upstreams of FILE
        (stdio commands, one process per client session unless \"shared\": true, and http:// or
        https:// URLs; speaking any revision, 2026-07-28 included), their tools and prompts as NAME__tool,
        their resources as NAME+URI; filtered, renamed, searched (discovery), audited; an
        upstream that is down is left out and retried. Served over HTTP with --http (the
        server's HTTP options; /healthz reports each upstream), else over stdio. --ca-file:
        a private CA for https upstreams; --pass-env: a variable every command upstream gets";

/// Why `tinymcp gateway` is refused by a build without it, and what to do.
#[cfg(not(feature = "gateway"))]
pub const NO_GATEWAY: &str = "this tinymcp was built without the gateway (the cargo feature `gateway`): use a release \
     binary or the Docker image, or build with `--features gateway`";

/// The usage of a subcommand, from beside its parser; `None` for a word that is none (or
/// `proxy` in a build without HTTP).
pub fn usage_of(command: &str) -> Option<&'static str> {
    match command {
        "config" => Some(CONFIG_USAGE),
        "install" => Some(INSTALL_USAGE),
        "connect" => Some(cli::connect::USAGE),
        #[cfg(feature = "http")]
        "proxy" => Some(cli::proxy::USAGE),
        "gateway" => Some(GATEWAY_USAGE),
        "health" => Some(cli::health::USAGE),
        "help" => Some(HELP_USAGE),
        _ => None,
    }
}

/// `tinymcp help [COMMAND]`.
pub const HELP_USAGE: &str = "    tinymcp help [COMMAND]
        this help, or COMMAND's alone (as `tinymcp COMMAND --help`)";

/// `tinymcp --help`: the server's usage, every command's, and every option.
pub fn whole_help() -> String {
    let commands = COMMAND_NAMES.split(", ");
    let usages = commands.filter_map(usage_of).collect::<Vec<_>>().join("\n");
    let (http, oauth) = http_sections();
    format!(
        "tinymcp: a Model Context Protocol server\n\nUSAGE:\n{USAGE}\n{usages}\n\n{DEFAULT_SERVED}\n\n{OPTIONS}\n\n\
         {PROTOCOL_OPTIONS}\n\n{http}\n\n{oauth}\n\n{LOGS}"
    )
}

/// The HTTP and OAuth options, each marked when this build lacks it.
pub fn http_sections() -> (String, String) {
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
pub fn command_help(command: &str) -> Option<String> {
    let usage = usage_of(command)?;
    let options = match command {
        "help" => return Some(whole_help()),
        "config" | "install" => {
            "OPTIONS: the server's (tinymcp --help), checked as for a run: the host runs the binary with them"
                .to_owned()
        }
        "proxy" | "gateway" => {
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
pub fn help_asked(raw: &[String]) -> Option<Result<String, String>> {
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
pub fn unknown(arg: &str) -> String {
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
