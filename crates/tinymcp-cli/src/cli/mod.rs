//! The binary's side: what only the `tinymcp` command needs (host configuration snippets and `install`, the
//! stdio-to-HTTP bridge `connect`, the health probe, the secret files, and SIGTERM/SIGINT
//! handling, the one module allowed `unsafe`).

pub mod config;
pub mod connect;
pub mod flags;
pub mod health;
pub mod help;
pub mod hosts;
pub mod install;
pub mod jsondoc;
pub mod logging;
pub mod metrics;
#[cfg(feature = "http")]
pub mod oauth;
pub mod options;
#[cfg(feature = "otlp")]
pub mod otlp;
#[cfg(feature = "http")]
pub mod proxy;
pub mod secret;
#[cfg(any(unix, windows))]
pub mod signal;

/// Whether `args` (a command's, or the server's) ask for help: `-h` or `--help` anywhere before
/// a `--` (after it they are a child command's own). The one way every command recognises it.
pub fn asks_help(args: &[String]) -> bool {
    args.iter().take_while(|arg| *arg != "--").any(|arg| arg == "-h" || arg == "--help")
}

#[cfg(test)]
mod tests {
    use super::asks_help;

    #[test]
    fn help_is_asked_before_a_double_dash_only() {
        let asks = |args: &[&str]| asks_help(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
        assert!(asks(&["--help"]) && asks(&["--host", "x", "-h"]) && asks(&["--http", "1", "--help", "--", "cmd"]));
        assert!(!asks(&[]) && !asks(&["--http", "1", "--", "server", "--help"]) && !asks(&["--helpful"]));
    }
}
