//! How log lines look (`--log-format text|json`, `--trace`): the flags are read before anything
//! else, since the logger starts first (main.rs), and each line is written here. A line logged
//! while a request is served names it: the library's request scope (`tinymcp::RequestScope`,
//! a thread's current request) gives its method, id, tool, session, client and trace id.
//! What is never written: a token, an `Authorization` header, a sensitive tool's arguments
//! (nothing logs them; the library redacts the latter in its frame lines).

use serde_json::{Map, Value};
use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};
use tinymcp::RequestScope;

/// The logging the command line asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Logging {
    /// `--log-format json`: one JSON object per line.
    pub json: bool,
    /// `--trace` (implied by `--log-format json`): fresh trace ids, request scopes, a line
    /// per answered request.
    pub trace: bool,
}

impl Logging {
    /// The logging flags among the arguments (before a `--`, after which a proxied command's
    /// own arguments come). A wrong value is left for the flag parser to refuse by name.
    pub fn scan(args: &[String]) -> Logging {
        let mut logging = Logging::default();
        let mut args = args.iter().take_while(|a| *a != "--");
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--trace" => logging.trace = true,
                "--log-format" => logging.json |= args.next().is_some_and(|v| v == "json"),
                "--log-format=json" => logging.json = true,
                _ => {}
            }
        }
        logging.trace |= logging.json;
        logging
    }
}

/// Reads `--log-format`'s value: `text` or `json`.
pub fn format_value(value: &str) -> Result<bool, String> {
    match value {
        "text" => Ok(false),
        "json" => Ok(true),
        other => Err(format!("--log-format: expected text or json, got {other:?}")),
    }
}

/// The time now as RFC 3339 in UTC, to the millisecond.
fn now() -> String {
    let now = SystemTime::now();
    let millis = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_millis());
    let whole = tinymcp::rfc3339(now);
    format!("{}.{millis:03}Z", whole.trim_end_matches('Z'))
}

/// One JSON object: time, level, target, message, and the request's fields when the line was
/// logged while one was served.
pub fn json_line(out: &mut dyn Write, record: &log::Record) -> io::Result<()> {
    let mut line = Map::new();
    line.insert("time".into(), now().into());
    line.insert("level".into(), record.level().as_str().to_ascii_lowercase().into());
    line.insert("target".into(), record.target().into());
    line.insert("message".into(), record.args().to_string().into());
    RequestScope::with_current(|scope| {
        let Some(scope) = scope else { return };
        line.insert("method".into(), scope.method().into());
        // The id as JSON: a number stays one, a string is its text.
        let id = serde_json::from_str::<Value>(scope.id()).unwrap_or_else(|_| scope.id().into());
        line.insert("id".into(), id);
        for (key, value) in [("tool", scope.tool()), ("session", scope.session()), ("client", scope.client())] {
            if let Some(value) = value {
                line.insert(key.into(), value.into());
            }
        }
        if let Some(trace) = scope.trace() {
            line.insert("trace_id".into(), trace.trace_id().into());
        }
        if let Some(took) = scope.took() {
            // To the microsecond.
            line.insert("duration_ms".into(), ((took.as_secs_f64() * 1e6).round() / 1e3).into());
        }
    });
    // One line: serde_json escapes every newline inside a value.
    writeln!(out, "{}", Value::Object(line))
}

/// The text line (`--trace` without JSON): the logger's own form, with the request's trace id,
/// method and id after the message.
pub fn text_line(out: &mut dyn Write, record: &log::Record) -> io::Result<()> {
    write!(out, "[{} {:<5} {}] {}", now(), record.level(), record.target(), record.args())?;
    RequestScope::with_current(|scope| match scope {
        Some(scope) => {
            write!(out, " (")?;
            if let Some(trace) = scope.trace() {
                write!(out, "trace_id={} ", trace.trace_id())?;
            }
            write!(out, "method={} id={}", scope.method(), scope.id())?;
            if let Some(tool) = scope.tool() {
                write!(out, " tool={tool}")?;
            }
            if let Some(took) = scope.took() {
                write!(out, " duration_ms={:.3}", took.as_secs_f64() * 1000.0)?;
            }
            writeln!(out, ")")
        }
        None => writeln!(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(args: &[&str]) -> Logging {
        Logging::scan(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_flags_are_found_before_a_double_dash_only() {
        assert_eq!(scan(&["--everything"]), Logging::default());
        assert_eq!(scan(&["--log-format", "json"]), Logging { json: true, trace: true });
        assert_eq!(scan(&["--log-format=json"]), Logging { json: true, trace: true });
        assert_eq!(scan(&["--log-format", "text", "--trace"]), Logging { json: false, trace: true });
        assert_eq!(scan(&["proxy", "--", "server", "--log-format", "json"]), Logging::default());
        assert!(format_value("yaml").unwrap_err().contains("text or json"));
    }

    #[test]
    fn a_json_line_is_one_object_with_the_fields() {
        let mut out = Vec::new();
        let args = format_args!("two\nlines \"quoted\"");
        let record = log::Record::builder().args(args).level(log::Level::Warn).target("tinymcp::x").build();
        json_line(&mut out, &record).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        let line: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(line["level"], "warn");
        assert_eq!(line["message"], "two\nlines \"quoted\"");
        let time = line["time"].as_str().unwrap();
        assert!(time.len() == 24 && time.ends_with('Z') && time.as_bytes()[19] == b'.', "{time}");
    }
}
