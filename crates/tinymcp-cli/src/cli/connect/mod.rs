//! `tinymcp connect URL`: a remote server spoken to over stdio, for hosts that only start
//! stdio servers. Each line read on stdin is forwarded to the server; everything the server
//! sends is written to stdout, one JSON message per line. Logs go to stderr.

pub(crate) mod auth;
pub(crate) mod http1;
pub(crate) mod legacy;
pub(crate) mod modern;
#[cfg(feature = "https")]
mod oauth;
pub(crate) mod sse;
mod streamable;
#[cfg(feature = "https")]
mod tls;

use crate::cli::flags::{Arg, Flags};
use auth::{ClientCredentials, Credentials, Secret};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The largest message taken from stdin or from the server.
pub(crate) const MESSAGE_CAP: usize = 16 * 1024 * 1024;
/// How long the answers to requests sent before the end of input are waited for.
const ANSWERS_AT_END_WITHIN: Duration = Duration::from_secs(60);
/// Requests whose answers are waited for at the end of input, at most.
const WAITING_CAP: usize = 4096;

/// Which transport the server at the URL speaks.
#[derive(Clone, Copy, PartialEq)]
enum Transport {
    /// Streamable HTTP first; on a 4xx to `initialize`, the legacy transport (as clients do).
    Auto,
    Http,
    Sse,
}

/// The session, over whichever transport.
enum Bridge {
    Http(Arc<streamable::Session>),
    Sse(Box<legacy::Session>),
}

impl Bridge {
    fn forward(&self, message: &Value, raw: &[u8]) {
        match self {
            Bridge::Http(session) => session.forward(message, raw),
            Bridge::Sse(session) => session.forward(message, raw),
        }
    }

    fn close(&self) {
        if let Bridge::Http(session) = self {
            session.close();
        }
    }
}

/// `tinymcp connect`'s usage (`--help`).
pub const USAGE: &str = "    tinymcp connect [--transport auto|http|sse] [--header-env Name=VAR]... [--token-env VAR]
                    [--header 'Name: value']... [--oauth-client-id ID --oauth-client-secret-env VAR
                    [--oauth-scope SCOPES]] [--ca-file PEM] [--connect-secs N] URL
        a remote server (http:// or https://) spoken to over stdio, for hosts that only start
        stdio servers: JSON-RPC lines on stdin are forwarded, the server's messages written to
        stdout; at end of input the session is closed. --transport: Streamable HTTP, legacy SSE,
        or auto (the first, then the second, as clients do). Credentials, from the environment
        (never written on the command line, never logged): --header-env Name=VAR sends header
        Name with the value of VAR; --token-env VAR sends `Authorization: Bearer` with the token
        in VAR; --header values may name ${VAR}. --oauth-client-id with
        --oauth-client-secret-env VAR: OAuth client credentials, the token got from the server's
        authorization server (found from its 401 and metadata), renewed before it expires;
        --oauth-scope: the scopes asked for (default: those the server names). https: the
        server's certificate is always verified (Mozilla's roots, built in); --ca-file adds a
        private CA's certificates (PEM). --connect-secs: connecting and the TLS handshake
        (default 10)";

/// Parses the options and forwards until the end of stdin; `Err` says why it could not.
pub fn run(args: impl IntoIterator<Item = String>) -> Result<(), String> {
    let mut args = Flags::new(args);
    let mut url = None;
    let mut transport = Transport::Auto;
    let mut headers = Vec::new();
    let (mut client_id, mut secret_var, mut scope) = (None, None, None);
    let mut ca_file = None;
    let mut connect_within = http1::CONNECT_TIMEOUT;
    while let Some(arg) = args.next()? {
        match arg {
            Arg::Flag(flag) => match flag.as_str() {
                "--transport" => {
                    transport = match args.value(&flag)?.as_str() {
                        "auto" => Transport::Auto,
                        "http" => Transport::Http,
                        "sse" => Transport::Sse,
                        other => return Err(format!("--transport: expected auto, http or sse, got {other:?}")),
                    }
                }
                "--header" => {
                    let (name, value) = header(&args.value(&flag)?, |name| std::env::var(name).ok())?;
                    headers.push((name, Secret::new(value)));
                }
                "--header-env" => headers.push(header_env(&args.value(&flag)?)?),
                "--token-env" => {
                    let var = args.value(&flag)?;
                    let token = Secret::from_env(&var, &format!("--token-env {var}"))?;
                    headers.push(("Authorization".to_owned(), Secret::new(format!("Bearer {}", token.expose()))));
                }
                "--oauth-client-id" => client_id = Some(args.value(&flag)?),
                "--oauth-client-secret-env" => secret_var = Some(args.value(&flag)?),
                "--oauth-scope" => scope = Some(args.value(&flag)?),
                "--ca-file" => ca_file = Some(args.value_named(&flag, "a PEM file")?),
                "--connect-secs" => {
                    let value = args.value(&flag)?;
                    let secs = value.parse::<u64>().ok().filter(|s| (1..=3600).contains(s));
                    let secs = secs.ok_or_else(|| format!("--connect-secs: expected 1 to 3600, got {value:?}"))?;
                    connect_within = Duration::from_secs(secs);
                }
                _ => return Err(format!("unknown option {flag} (see tinymcp connect --help)")),
            },
            Arg::Word(word) if url.is_none() => url = Some(word),
            Arg::Word(word) => return Err(format!("connect takes one URL, got also {word:?}")),
        }
    }
    let url = url.ok_or("expected a URL, e.g. tinymcp connect http://127.0.0.1:8080/mcp")?;
    let oauth = match (client_id, secret_var) {
        (Some(_), Some(_)) if cfg!(not(feature = "https")) => {
            // An authorization server is reached over HTTPS, which this build lacks.
            return Err("--oauth-client-id: OAuth client credentials need a build with HTTPS (cargo feature \
                        `https`, in the release binaries)"
                .into());
        }
        (Some(client_id), Some(secret_var)) => {
            let secret = Secret::from_env(&secret_var, &format!("--oauth-client-secret-env {secret_var}"))?;
            Some(ClientCredentials { client_id, secret, secret_var, scope })
        }
        (None, None) if scope.is_some() => return Err("--oauth-scope needs --oauth-client-id".into()),
        (None, None) => None,
        (Some(_), None) => {
            return Err("--oauth-client-id needs --oauth-client-secret-env VAR (the secret's variable)".into())
        }
        (None, Some(_)) => return Err("--oauth-client-secret-env needs --oauth-client-id".into()),
    };
    let credentials = Credentials::new(headers, oauth);
    let connector = http1::Connector::new(connect_within, ca_file.as_deref())?;
    let url = http1::Url::parse(&url, &connector)?;
    let output = Output::default();
    let mut bridge = match transport {
        Transport::Sse => Bridge::Sse(Box::new(legacy::Session::open(&url, Arc::clone(&credentials), output.clone())?)),
        _ => Bridge::Http(streamable::Session::new(url.clone(), Arc::clone(&credentials), output.clone())),
    };
    let mut probing = transport == Transport::Auto;
    let mut input = io::stdin().lock();
    loop {
        let line = match http1::read_line(&mut input, MESSAGE_CAP) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                bridge.close();
                return Err(format!("reading stdin: {e}"));
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message = match serde_json::from_slice::<Value>(&line) {
            Ok(message) => message,
            Err(e) => {
                log::warn!("stdin: a line that is not JSON ({e}), skipped");
                continue;
            }
        };
        log::debug!("host -> {}", String::from_utf8_lossy(&line));
        match (message.get("method").and_then(Value::as_str), message.get("id")) {
            // A listen stream has no answer to wait for: it lasts until it is closed.
            (Some("subscriptions/listen"), _) => {}
            (Some(_), Some(id)) => output.expect(id),
            (Some("notifications/cancelled"), None) => {
                if let Some(id) = message.pointer("/params/requestId") {
                    output.forget(id);
                }
            }
            _ => {}
        }
        if let (true, Bridge::Http(session)) = (probing, &bridge) {
            if message.get("method").and_then(Value::as_str) == Some("initialize") {
                probing = false;
                if let Err(status) = session.try_initialize(&line, message.get("id"), true) {
                    log::info!("{url} answered {status} to a Streamable HTTP initialize: trying legacy SSE there");
                    let legacy = legacy::Session::open(&url, Arc::clone(&credentials), output.clone()).inspect_err(|why| {
                        // The host waits for its initialize: it hears why before the bridge ends.
                        let error = json!({"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32603, "message": why}});
                        output.line(&error.to_string());
                    })?;
                    bridge = Bridge::Sse(Box::new(legacy));
                    bridge.forward(&message, &line);
                }
                continue;
            }
        }
        bridge.forward(&message, &line);
    }
    // A host that pipes its requests and closes stdin still gets their answers.
    let left = output.wait_for_answers(ANSWERS_AT_END_WITHIN);
    if left > 0 {
        log::warn!(
            "end of input: {left} request(s) still unanswered after {} s; closing the session",
            ANSWERS_AT_END_WITHIN.as_secs()
        );
    }
    log::debug!("end of input: closing the session");
    bridge.close();
    Ok(())
}

/// `Name: value` from `--header`; `${VAR}` in the value is replaced by that environment
/// variable, so a secret need not be written in a host's config file.
pub(crate) fn header(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<(String, String), String> {
    let expected = || format!("--header {text:?}: expected 'Name: value'");
    let (name, raw) = text.split_once(':').ok_or_else(expected)?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b)) {
        return Err(expected());
    }
    let mut value = String::new();
    let mut rest = raw.trim();
    while let Some(start) = rest.find("${") {
        value.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| format!("--header {name}: `${{` without `}}`"))?;
        let var = &after[..end];
        value.push_str(&env(var).ok_or_else(|| format!("--header {name}: the environment variable {var} is not set"))?);
        rest = &after[end + 1..];
    }
    value.push_str(rest);
    if value.contains(['\r', '\n']) {
        return Err(format!("--header {name}: a value cannot span lines"));
    }
    Ok((name.to_owned(), value))
}

/// `Name=VAR` from `--header-env`: header `Name` with the value of the environment variable
/// `VAR`, read now (a variable not set is refused before anything is sent).
fn header_env(text: &str) -> Result<(String, Secret), String> {
    let expected =
        || format!("--header-env {text:?}: expected 'Name=VAR' (the header's name, the variable holding its value)");
    let (name, var) = text.split_once('=').ok_or_else(expected)?;
    let (name, var) = (name.trim(), var.trim());
    let token =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b));
    if !token(name) || var.is_empty() {
        return Err(expected());
    }
    Ok((name.to_owned(), Secret::from_env(var, &format!("--header-env {name}"))?))
}

/// Stdout, shared by the threads that read the server: one whole line per message (the lock
/// on stdout keeps two threads' lines apart). It also knows which requests of the host still
/// wait for their answer, so that the end of input does not cut them off.
#[derive(Clone, Default)]
pub(crate) struct Output {
    waiting: Arc<Waiting>,
}

/// The ids (as JSON text) of the host's requests sent and not yet answered.
#[derive(Default)]
struct Waiting {
    ids: Mutex<HashSet<String>>,
    answered: Condvar,
}

/// What `Output` reads of a message to see whether it answers a request: the rest is skipped.
#[derive(Deserialize)]
struct Head {
    id: Option<Value>,
    method: Option<IgnoredAny>,
}

impl Output {
    fn ids(&self) -> MutexGuard<'_, HashSet<String>> {
        self.waiting.ids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The host sent request `id`: its answer is waited for at the end of input.
    fn expect(&self, id: &Value) {
        let mut ids = self.ids();
        // A server that never answers cannot make the bridge hold ids without bound.
        if ids.len() < WAITING_CAP {
            ids.insert(id.to_string());
        }
    }

    /// Request `id` will have no answer (the host cancelled it).
    fn forget(&self, id: &Value) {
        self.ids().remove(&id.to_string());
        self.waiting.answered.notify_all();
    }

    /// Waits until every request sent has its answer, at most `within`; how many are left.
    fn wait_for_answers(&self, within: Duration) -> usize {
        let ids = self.ids();
        let (ids, _) = self
            .waiting
            .answered
            .wait_timeout_while(ids, within, |ids| !ids.is_empty())
            .unwrap_or_else(PoisonError::into_inner);
        ids.len()
    }

    /// Writes one message as one line (a message the server split over lines is rejoined).
    pub(crate) fn line(&self, text: &str) {
        let text = text.trim();
        let joined;
        let text = if text.contains(['\n', '\r']) {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => {
                    joined = value.to_string();
                    joined.as_str()
                }
                Err(e) => return log::warn!("the server sent something that is not JSON ({e}), dropped"),
            }
        } else {
            text
        };
        log::debug!("host <- {text}");
        {
            let mut out = io::stdout().lock();
            if let Err(e) =
                out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush())
            {
                log::debug!("stdout: {e}");
            }
        }
        if self.ids().is_empty() {
            return;
        }
        if let Ok(Head { id: Some(id), method: None }) = serde_json::from_str::<Head>(text) {
            self.forget(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::header;

    #[test]
    fn header_values_name_environment_variables() {
        let env = |name: &str| (name == "KEY").then(|| "s3cret".to_owned());
        assert_eq!(header("X-Api-Key: ${KEY}", env).unwrap(), ("X-Api-Key".into(), "s3cret".into()));
        assert_eq!(header("A: pre-${KEY}-post", env).unwrap().1, "pre-s3cret-post");
        assert_eq!(header("A:plain", env).unwrap().1, "plain");
        assert!(header("A: ${MISSING}", env).unwrap_err().contains("MISSING is not set"));
        for bad in ["no colon", ": empty name", "bad name: x", "A: ${open"] {
            assert!(header(bad, env).is_err(), "{bad}");
        }
    }
}
