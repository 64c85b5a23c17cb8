//! `tinymcp proxy --http ADDR [--pass-env VAR]... -- CMD ARGS...` (or `--config FILE`, several
//! servers by name): stdio MCP servers served over our HTTP transport (Streamable HTTP and
//! legacy SSE), one child process per client session.
//! The flags before `--` that are not the proxy's own are the server's HTTP flags; the
//! relaying itself is the library's (`tinymcp::relay`), the process is `child`.

mod child;
pub(crate) mod config;

use crate::cli::flags::Flags;
pub use child::end_all;
use child::{Child, Spec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tinymcp::relay::Peer;

/// Variables every child gets from our environment when set: what a program needs to find
/// its interpreter and its home. Anything else only with `--pass-env`.
const BASE_ENV: [&str; 2] = ["PATH", "HOME"];

/// `tinymcp proxy`'s usage (`--help`); the server's options it takes follow it there.
pub const USAGE: &str = "    tinymcp proxy --http ADDR [--shared] [--pass-env VAR]... [--answer-within-secs N] [HTTP OPTIONS] -- CMD ARGS...
        a stdio MCP server served over HTTP (/mcp, and /sse + /messages): one CMD process per
        session (--max-sessions caps them), or one for all with --shared, exec'd with no shell;
        it gets PATH, HOME and the --pass-env variables only; one that exits, or leaves
        requests unanswered N seconds (default 60), ends its sessions with an error to each
        request in flight. Clients and CMD may speak different protocol revisions: 2026-07-28
        requests (no session) and handshake sessions are translated where they differ
    tinymcp proxy --http ADDR --config FILE [--pass-env VAR]... [HTTP OPTIONS]
        each server of a hosts' mcpServers JSON file (NAME: command, args, env, cwd) at
        /NAME/mcp and /NAME/sse on one port (--max-sessions caps them all together); each
        child gets PATH, HOME, the --pass-env variables and its own env only";

/// The proxy's own flags, the rest of the flags (HTTP ones, for the server's parser), and the
/// command.
pub struct Parsed {
    /// What each session runs; with `--config`, what every server's entry adds to.
    pub spec: Spec,
    /// `--config FILE`: the servers by name, instead of the command.
    pub servers: Option<Vec<(String, Spec)>>,
    /// The flags left for the server's own parser.
    pub rest: Vec<String>,
    /// `--shared`: one child for every session instead of one each.
    pub shared: bool,
}

/// Splits `proxy`'s arguments: its own flags, the server's, and the command after `--`.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut args = Flags::new(args);
    let mut rest = Vec::new();
    let mut pass = Vec::new();
    let mut answer_within = Duration::from_secs(60);
    let mut max_line = 4 * 1024 * 1024;
    let mut command = Vec::new();
    let mut config = None;
    let mut shared = false;
    loop {
        if let Some(after) = args.after_double_dash()? {
            command = after;
            break;
        }
        let Some(arg) = args.next()? else { break };
        match arg.as_str() {
            "--shared" => shared = true,
            "--config" => config = Some(args.value_named("--config", "a file")?),
            "--pass-env" => {
                let name = args.value_named("--pass-env", "a variable name")?;
                // The bearer token guards the proxy, not the child: no secret of ours is passed on.
                crate::cli::secret::refuse_secret_variable(&name)?;
                if name.is_empty() || name.contains('=') {
                    return Err(format!("--pass-env: expected a variable name, got {name:?}"));
                }
                pass.push(name);
            }
            "--answer-within-secs" => {
                answer_within = Duration::from_secs(args.number("--answer-within-secs")? as u64);
            }
            "--max-message-bytes" => {
                let value = args.value("--max-message-bytes")?;
                max_line = value
                    .parse()
                    .map_err(|_| format!("--max-message-bytes: expected a whole number, got {value:?}"))?;
                rest.extend(["--max-message-bytes".to_owned(), value]);
            }
            _ => args.pass(arg, &mut rest)?,
        }
    }
    let mut command = command.into_iter();
    let program = match (command.next(), &config) {
        (Some(_), Some(_)) => return Err("--config names the servers: no command after `--` with it".into()),
        (None, None) => {
            return Err(
                "proxy needs a command after `--` (tinymcp proxy --http ADDR -- CMD ARGS...) or --config FILE".into()
            )
        }
        (program, _) => program.unwrap_or_default(),
    };
    let env = BASE_ENV
        .iter()
        .map(|name| name.to_string())
        .chain(pass)
        .filter_map(|name| std::env::var(&name).ok().map(|value| (name, value)))
        .collect();
    let spec = Spec { command: program, args: command.collect(), env, cwd: None, answer_within, max_line };
    let servers = config.map(|file| config::read(&file, &spec)).transpose()?;
    Ok(Parsed { spec, servers, rest, shared })
}

/// Makes `server` relay each session to its own child running `spec` (`shared`: one child
/// for every session); `name` (empty for the one command) names its children in the log. A
/// 2026-07-28 request, which has no session, goes to one child shared by all such requests.
pub fn relay(server: &mut tinymcp::Server, name: &str, spec: Spec, shared: bool) {
    let children = Arc::new(AtomicU64::new(0));
    let at = if name.is_empty() { String::new() } else { format!("{name} ") };
    let how = if shared { "one process for every session" } else { "one process per session" };
    log::info!("proxying {at}{:?} {:?}: {how}", spec.command, spec.args);
    let metrics = server.metrics().cloned();
    let open = move |relayed| {
        let n = children.fetch_add(1, Ordering::Relaxed) + 1;
        let name = if shared { format!("{at}shared child #{n}") } else { format!("{at}session #{n}") };
        // A shared child after the first is one started again: the one before it ended.
        metrics.as_ref().filter(|_| shared && n > 1).inspect(|m| m.child_restarted());
        Child::spawn(&spec, name, relayed, metrics.clone()).map(|child| Box::new(child) as Box<dyn Peer>)
    };
    if shared {
        server.set_shared_relay(open);
    } else {
        server.set_relay(open);
    }
}
