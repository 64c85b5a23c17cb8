//! The audit log: one JSON line per tool call (time, caller, upstream, tool, duration,
//! outcome, bytes in and out), to a file (appended) or stderr; arguments and results only for
//! an upstream whose config says `audit_payloads`.

use serde_json::{json, Value};
use std::fs::OpenOptions;
use std::io::Write;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

pub struct Audit {
    out: Mutex<Box<dyn Write + Send>>,
}

/// One call, as the log tells it.
pub struct Record<'a> {
    pub caller: &'a str,
    pub upstream: &'a str,
    /// Its name upstream, and as the gateway offers it.
    pub tool: &'a str,
    pub exposed: &'a str,
    pub took: Duration,
    /// `ok`, `tool_error` (`isError`), `error` (a protocol error, the upstream down, late),
    /// `cancelled`, `input_required` (2026-07-28: answered with an input-required round).
    pub outcome: &'a str,
    pub bytes_in: usize,
    pub bytes_out: usize,
    /// With `audit_payloads`: the arguments and the result (or error).
    pub payloads: Option<(&'a Value, Value)>,
}

impl Audit {
    /// `stderr`, or a file opened for appending (created owner-only readable where that exists).
    pub fn open(to: &str) -> Result<Audit, String> {
        let out: Box<dyn Write + Send> = if to == "stderr" {
            Box::new(std::io::stderr())
        } else {
            let mut options = OpenOptions::new();
            options.create(true).append(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            Box::new(options.open(to).map_err(|e| format!("audit: cannot open {to}: {e}"))?)
        };
        Ok(Audit { out: Mutex::new(out) })
    }

    pub fn record(&self, record: &Record) {
        let mut line = json!({
            "time": tinymcp::rfc3339(SystemTime::now()),
            "caller": record.caller,
            "upstream": record.upstream,
            "tool": record.tool,
            "as": record.exposed,
            "duration_ms": record.took.as_millis() as u64,
            "outcome": record.outcome,
            "bytes_in": record.bytes_in,
            "bytes_out": record.bytes_out,
        });
        if let Some((arguments, result)) = &record.payloads {
            line["arguments"] = (*arguments).clone();
            line["result"] = result.clone();
        }
        let mut text = line.to_string();
        text.push('\n');
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        // One write per line: lines of concurrent calls never interleave.
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            log::warn!("audit: a line not written: {e}");
        }
    }
}
