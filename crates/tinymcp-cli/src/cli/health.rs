//! `tinymcp health [URL]`: exit 0 when the server at URL answers `/healthz` with 200, else 1
//! with the reason. The container's HEALTHCHECK (an image built `FROM scratch` has no curl).

use crate::cli::flags::{Arg, Flags};

/// `tinymcp health`'s usage (`--help`).
pub const USAGE: &str = "    tinymcp health [URL]
        exit 0 when URL (default http://127.0.0.1:8080/healthz) answers 200 within 3 s, else 1
        with the reason on stderr (a container's HEALTHCHECK: the image has no curl)";

/// What the probe asks when no URL is given: the container's own server.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8080/healthz";

/// The whole probe, connecting included, must fit in this.
const WITHIN: std::time::Duration = std::time::Duration::from_secs(3);

/// Probes the URL given (or `DEFAULT_URL`); `Err` says why the server is not healthy.
pub fn run(args: impl IntoIterator<Item = String>) -> Result<(), String> {
    let mut args = Flags::new(args);
    let mut url = None;
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Flag(flag) => return Err(format!("unknown option {flag} (see tinymcp health --help)")),
            Arg::Word(word) if url.is_none() => url = Some(word),
            Arg::Word(word) => return Err(format!("health takes one URL, got also {word:?}")),
        }
    }
    probe(url.as_deref().unwrap_or(DEFAULT_URL))
}

#[cfg(feature = "http")]
fn probe(url: &str) -> Result<(), String> {
    tinymcp_http::probe(url, WITHIN)
}

#[cfg(not(feature = "http"))]
fn probe(_url: &str) -> Result<(), String> {
    let _ = WITHIN;
    Err("this build has no HTTP (built without the `http` feature)".into())
}
