//! `--otlp URL` (cargo feature `otlp`): the spans the library records (`tinymcp::record_spans`:
//! one per request, a child for a command tool's run and a proxied server's call) exported over
//! OTLP/HTTP as JSON (`ExportTraceServiceRequest`'s JSON mapping, ids in hex) from a thread of
//! its own, through the binary's own HTTP/1.1 client. A request never waits for it: a span goes
//! into a bounded queue (dropped and counted when full); the thread sends them in batches (by
//! count or after a short wait), each POST within a timeout; what fails or is dropped is logged
//! once a minute at most, with counts, never once per span. At exit, what is queued is sent
//! first (`flush`, bounded).

use super::connect::http1;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tinymcp::{Span, SpanKind};

/// Spans waiting to be sent; more are dropped (and counted).
const QUEUE_CAP: usize = 4096;
/// The most spans in one POST.
const BATCH: usize = 512;
/// How long a batch waits for more spans after its first.
const LINGER: Duration = Duration::from_millis(200);
/// Connecting, and reading the answer, each within this.
const POST_TIMEOUT: Duration = Duration::from_secs(5);
/// At most one warning in this time (failed POSTs, dropped spans: counted meanwhile).
const WARN_EVERY: Duration = Duration::from_secs(60);
/// The most of a collector's error answer a warning quotes.
const ANSWER_CAP: usize = 64 * 1024;

/// What the export thread is given: a span, or a request to send what it holds now.
enum Item {
    Span(Span),
    Flush(mpsc::Sender<()>),
}

/// The export thread's queue, once started: `flush` uses it at exit.
static QUEUE: OnceLock<SyncSender<Item>> = OnceLock::new();

/// Sends the spans still queued, waiting `within` at most: the process's last step, so the
/// requests of a short session are not lost. Does nothing when not exporting.
pub fn flush(within: Duration) {
    let Some(queue) = QUEUE.get() else { return };
    let (done, sent) = mpsc::channel();
    if queue.try_send(Item::Flush(done)).is_ok() {
        let _ = sent.recv_timeout(within);
    }
}

/// Starts exporting to `url` (`http://HOST[:PORT]/v1/traces`, or `https://` in a build with
/// TLS): the export thread, then the library's recorder. Nothing is sent before a span ends.
pub fn start(url: &str) -> Result<(), String> {
    let connector = http1::Connector::new(POST_TIMEOUT, None).map_err(|e| format!("--otlp: {e}"))?;
    let url = http1::Url::parse(url, &connector).map_err(|e| format!("--otlp: {e}"))?;
    let (queue, spans) = mpsc::sync_channel::<Item>(QUEUE_CAP);
    let dropped = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&dropped);
    thread::Builder::new()
        .name("otlp".into())
        .spawn(move || export(&url, &spans, &counted))
        .map_err(|e| format!("--otlp: cannot start the export thread: {e}"))?;
    let _ = QUEUE.set(queue.clone());
    tinymcp::record_spans(move |span| {
        // Never blocks the request: a full queue drops the span.
        if queue.try_send(Item::Span(span)).is_err() {
            dropped.fetch_add(1, Ordering::Relaxed);
        }
    });
    Ok(())
}

/// The export thread: a batch at a time, until the process ends.
fn export(url: &http1::Url, items: &Receiver<Item>, dropped: &AtomicU64) {
    let mut warned: Option<Instant> = None;
    let (mut failed_posts, mut lost) = (0u64, 0u64);
    let mut last_error = String::new();
    // A query may carry a collector's key: the warning names the URL without it.
    let shown = url.to_string();
    let shown = shown.split('?').next().unwrap_or_default();
    while let Ok(first) = items.recv() {
        let (mut batch, mut flushed) = (Vec::new(), None);
        match first {
            Item::Span(span) => batch.push(span),
            Item::Flush(done) => flushed = Some(done),
        }
        let until = Instant::now() + LINGER;
        while flushed.is_none() && batch.len() < BATCH {
            match items.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(Item::Span(span)) => batch.push(span),
                Ok(Item::Flush(done)) => flushed = Some(done),
                Err(_) => break,
            }
        }
        if batch.is_empty() {
            // A flush with nothing to send.
        } else if let Err(why) = post(url, &encode(&batch)) {
            failed_posts += 1;
            lost += batch.len() as u64;
            last_error = why;
        }
        let full = dropped.swap(0, Ordering::Relaxed);
        if (failed_posts > 0 || full > 0) && warned.is_none_or(|at| at.elapsed() >= WARN_EVERY) {
            if failed_posts > 0 {
                log::warn!(
                    "--otlp: {failed_posts} export(s) to {shown} failed ({lost} spans lost), the last: {last_error} \
                     (requests are served all the same; next warning in a minute at most)"
                );
            }
            if full > 0 {
                log::warn!("--otlp: the export queue was full: {full} spans dropped");
            }
            warned = Some(Instant::now());
            (failed_posts, lost) = (0, 0);
        } else {
            dropped.fetch_add(full, Ordering::Relaxed);
        }
        if let Some(done) = flushed {
            let _ = done.send(());
        }
    }
}

/// One POST of a batch; an answer other than 2xx is an error, quoting the collector.
fn post(url: &http1::Url, body: &[u8]) -> Result<(), String> {
    let headers = [("Content-Type".to_owned(), "application/json".to_owned())];
    let mut answer = http1::send(url, "POST", &headers, body)
        .and_then(|sent| sent.response(Some(POST_TIMEOUT)))
        .map_err(|e| e.to_string())?;
    if (200..300).contains(&answer.status) {
        return Ok(());
    }
    let text = answer.text(ANSWER_CAP).unwrap_or_default();
    let text: String = text.chars().take(200).collect();
    Err(format!("HTTP {}: {}", answer.status, text.trim()))
}

/// `ExportTraceServiceRequest` in OTLP's JSON mapping: one resource (`service.name` tinymcp),
/// one scope, the batch's spans; ids as hex, times as decimal nanoseconds in strings.
fn encode(batch: &[Span]) -> Vec<u8> {
    let spans: Vec<Value> = batch.iter().map(span).collect();
    let request = json!({
        "resourceSpans": [{
            "resource": {"attributes": [
                attribute("service.name", "tinymcp"),
                attribute("service.version", env!("CARGO_PKG_VERSION")),
            ]},
            "scopeSpans": [{
                "scope": {"name": "tinymcp", "version": env!("CARGO_PKG_VERSION")},
                "spans": spans,
            }],
        }],
    });
    serde_json::to_vec(&request).unwrap_or_default()
}

fn span(span: &Span) -> Value {
    let kind = match span.kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
    };
    let mut out = json!({
        "traceId": span.trace_id,
        "spanId": span.span_id,
        "name": span.name,
        "kind": kind,
        "startTimeUnixNano": nanos(span.start),
        "endTimeUnixNano": nanos(span.end),
        "attributes": span.attributes.iter().map(|(k, v)| attribute(k, v)).collect::<Vec<_>>(),
        // STATUS_CODE_ERROR (2) with why; else unset (OpenTelemetry: a server leaves it so).
        "status": match &span.error {
            Some(why) => json!({"code": 2, "message": why}),
            None => json!({}),
        },
    });
    if !span.parent_id.is_empty() {
        out["parentSpanId"] = Value::String(span.parent_id.clone());
    }
    out
}

fn attribute(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

fn nanos(at: SystemTime) -> String {
    at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_written_in_otlp_json() {
        let at = UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789);
        let batch = [Span {
            name: "tools/call echo".into(),
            kind: SpanKind::Server,
            trace_id: "0af7651916cd43dd8448eb211c80319c".into(),
            span_id: "b7ad6b7169203331".into(),
            parent_id: "00f067aa0ba902b7".into(),
            start: at,
            end: at,
            attributes: vec![("mcp.method.name", "tools/call".into())],
            error: Some("-32602".into()),
        }];
        let json: Value = serde_json::from_slice(&encode(&batch)).unwrap();
        let resource = &json["resourceSpans"][0];
        assert_eq!(resource["resource"]["attributes"][0]["value"]["stringValue"], "tinymcp");
        let span = &resource["scopeSpans"][0]["spans"][0];
        assert_eq!(span["traceId"], "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(span["parentSpanId"], "00f067aa0ba902b7");
        assert_eq!(span["startTimeUnixNano"], "1700000000123456789");
        assert_eq!(span["kind"], 2);
        assert_eq!(span["status"]["code"], 2);
        assert_eq!(span["attributes"][0]["key"], "mcp.method.name");
    }
}
