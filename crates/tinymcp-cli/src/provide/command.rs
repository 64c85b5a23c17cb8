//! Tools backed by local commands: argv templates expanded without a shell, values that could
//! pass for options refused, path arguments kept inside the tool's folder, a minimal
//! environment, output caps, and everything the command started ended with the call (its
//! process tree, and whatever carries the call's mark in its environment). The tree is ended
//! through `platform::Tree` (one signal to its process group on Unix; its job object on
//! Windows, which nothing leaves); the marked strays that left a group, by the system's `kill`
//! program. On Windows the program gets its arguments quoted by `CreateProcess`'s rules
//! (std's), and a `.bat`/`.cmd` script, which `cmd.exe` would read by its own rules, is refused.

use crate::platform::Tree;
use crate::provide::sandbox::Sandbox;
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tinymcp::{CallToolResult, ChildSpan, Content, RequestCx, RequestScope, SpanKind};

/// How often a running command is checked for exit, timeout and cancellation.
const POLL: Duration = Duration::from_millis(10);
/// How much of stderr is kept (the tail) for an error result.
const STDERR_TAIL: usize = 4096;
/// How long output readers may take to finish once the command is gone.
const DRAIN: Duration = Duration::from_secs(2);
/// The environment variables passed through from tinymcp's own environment.
const PASSED_ENV: [&str; 3] = ["PATH", "HOME", "LANG"];
/// The variable that marks every process of one call (it is inherited), so that children that
/// leave the process group (`setsid`) are still found and ended with the call.
const MARK_VAR: &str = "TINYMCP_CALL";

/// What the command's stdout is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Text, returned as a text block.
    Text,
    /// A JSON object, returned as `structuredContent` (and as text).
    Json,
}

/// A command a tool runs.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    /// The argv template: `{{name}}` placeholders; an element that is exactly `{{name}}` expands
    /// an array into several elements and disappears when the argument is absent.
    pub argv: Vec<String>,
    /// A template written to the command's stdin (stdin is empty otherwise).
    pub stdin: Option<String>,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// Variables added to the minimal environment (PATH, HOME, LANG).
    pub env: Vec<(String, String)>,
    /// How long the command may run.
    pub timeout: Duration,
    /// How much of stdout is kept.
    pub max_output_bytes: usize,
    /// How stdout is returned.
    pub output: Output,
    /// Arguments whose values may start with `-` (the tool declares them as options).
    pub options: Vec<String>,
    /// Arguments that are paths inside the working folder: checked through the sandbox and
    /// passed as the canonical path.
    pub paths: Vec<String>,
    /// The tool's arguments are secret (`"sensitive": true`): the command line it runs is
    /// never logged, its program alone is.
    pub sensitive: bool,
}

impl CommandSpec {
    /// A command with the defaults: no stdin, 60 s, 1 MiB of text output.
    pub fn new(argv: Vec<String>) -> Self {
        CommandSpec {
            argv,
            stdin: None,
            cwd: None,
            env: Vec::new(),
            timeout: Duration::from_secs(60),
            max_output_bytes: 1 << 20,
            output: Output::Text,
            options: Vec::new(),
            paths: Vec::new(),
            sensitive: false,
        }
    }
}

/// A piece of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Literal text.
    Text(&'a str),
    /// A `{{name}}` placeholder.
    Placeholder(&'a str),
}

/// Splits a template into text and `{{name}}` placeholders (names of `A-Za-z0-9_-.`).
/// Braces that do not form a placeholder are text.
pub fn segments(template: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    let mut pending = 0;
    while let Some(open) = rest.get(pending..).and_then(|r| r.find("{{")).map(|i| i + pending) {
        let after = rest.get(open + 2..).unwrap_or_default();
        let len = after.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')).count();
        let name = after.get(..len).unwrap_or_default();
        if len > 0 && after.get(len..).is_some_and(|t| t.starts_with("}}")) {
            if open > 0 {
                out.push(Segment::Text(rest.get(..open).unwrap_or_default()));
            }
            out.push(Segment::Placeholder(name));
            rest = after.get(len + 2..).unwrap_or_default();
            pending = 0;
        } else {
            pending = open + 1;
        }
    }
    if !rest.is_empty() {
        out.push(Segment::Text(rest));
    }
    out
}

/// The placeholder names of a template, in order.
pub fn placeholders(template: &str) -> Vec<&str> {
    segments(template)
        .into_iter()
        .filter_map(|s| match s {
            Segment::Placeholder(name) => Some(name),
            Segment::Text(_) => None,
        })
        .collect()
}

/// An argument as text: strings as they are, numbers and booleans spelled, arrays and objects
/// as JSON; `null` counts as absent.
fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Fills a template; an absent placeholder becomes empty text.
pub fn expand_text(template: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    segments(template)
        .into_iter()
        .map(|s| match s {
            Segment::Text(t) => t.to_owned(),
            Segment::Placeholder(name) => lookup(name).unwrap_or_default(),
        })
        .collect()
}

/// Expands an argv template. An element that is exactly `{{name}}` becomes one element per
/// item of an array argument and disappears when the argument is absent; any other element
/// with a placeholder whose argument is absent disappears whole (so `--limit={{n}}` goes away).
pub fn expand_argv(argv: &[String], args: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for element in argv {
        let parts = segments(element);
        if let [Segment::Placeholder(name)] = parts.as_slice() {
            match args.get(*name) {
                Some(Value::Array(items)) => out.extend(items.iter().filter_map(as_text)),
                Some(value) => out.extend(as_text(value)),
                None => {}
            }
            continue;
        }
        let mut text = String::new();
        let mut complete = true;
        for part in parts {
            match part {
                Segment::Text(t) => text.push_str(t),
                Segment::Placeholder(name) => match args.get(name).and_then(as_text) {
                    Some(value) => text.push_str(&value),
                    None => complete = false,
                },
            }
        }
        if complete {
            out.push(text);
        }
    }
    out
}

/// Expands the argv template like [`expand_argv`], refusing any value that would start an
/// element with `-` (where the program would read it as an option) unless its argument is
/// declared in `options` or the element comes after a literal `--`.
pub fn checked_argv(argv: &[String], args: &Map<String, Value>, options: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut after_separator = false;
    for element in argv {
        let expanded = expand_argv(std::slice::from_ref(element), args);
        // The placeholders before the first literal text decide how the element starts.
        let leading: Vec<&str> = segments(element)
            .into_iter()
            .map_while(|s| match s {
                Segment::Placeholder(name) => Some(name),
                Segment::Text(_) => None,
            })
            .collect();
        let declared = leading.iter().all(|name| options.iter().any(|o| o == name));
        if !after_separator && !leading.is_empty() && !declared {
            if let Some(bad) = expanded.iter().find(|e| e.starts_with('-')) {
                let name = leading.join(", ");
                return Err(format!(
                    "argument {name}: the value {bad:?} starts with '-', so the program would take it for an option \
                     (give a value that does not start with '-')"
                ));
            }
        }
        after_separator |= element == "--";
        out.extend(expanded);
    }
    Ok(out)
}

/// Replaces the values of path arguments (strings, or arrays of strings) by the canonical path
/// they name inside `dir`, refusing any that leaves it (the same rules as served folders).
fn checked_paths(paths: &[String], dir: &Path, args: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut args = args.clone();
    if paths.is_empty() {
        return Ok(args);
    }
    let sandbox = Sandbox::new(dir, false).map_err(|e| format!("the tool's folder: {e}"))?;
    let resolve = |name: &str, spelled: &str| -> Result<Value, String> {
        let path =
            sandbox.resolve(spelled).map_err(|why| format!("argument {name}: path {spelled:?} refused: {why}"))?;
        path.to_str().map(Value::from).ok_or_else(|| format!("argument {name}: the path is not UTF-8"))
    };
    for name in paths {
        let resolved = match args.get(name) {
            Some(Value::String(spelled)) => resolve(name, spelled)?,
            Some(Value::Array(items)) => Value::Array(
                items.iter().map(|item| resolve(name, item.as_str().unwrap_or_default())).collect::<Result<_, _>>()?,
            ),
            _ => continue,
        };
        args.insert(name.clone(), resolved);
    }
    Ok(args)
}

/// What a reader thread kept of a stream.
struct Captured {
    bytes: Vec<u8>,
    total: u64,
}

/// The lines of stdout so far, for progress reports: how many ended, and the latest one (its
/// first `LINE_CAP` bytes).
#[derive(Default)]
struct Lines {
    count: u64,
    latest: String,
    partial: Vec<u8>,
}

/// How much of one output line a progress report carries.
const LINE_CAP: usize = 256;

impl Lines {
    fn feed(&mut self, chunk: &[u8]) {
        for piece in chunk.split_inclusive(|b| *b == b'\n') {
            let room = LINE_CAP.saturating_sub(self.partial.len());
            let text = piece.strip_suffix(b"\n").unwrap_or(piece);
            self.partial.extend_from_slice(text.get(..room.min(text.len())).unwrap_or_default());
            if piece.ends_with(b"\n") {
                self.count += 1;
                self.latest = String::from_utf8_lossy(&self.partial).trim_end().to_owned();
                self.partial.clear();
            }
        }
    }
}

/// Keeps the first `cap` bytes and counts the rest (draining it, so the command never blocks).
/// What is read so far stays readable in `shared`, for when a process the call could not end
/// keeps the pipe open. Lines are tallied in `lines` when progress is wanted.
fn capture_head(mut stream: impl Read, cap: usize, shared: &Mutex<Captured>, lines: Option<&Mutex<Lines>>) {
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf) {
        let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else { break };
        if let Some(lines) = lines {
            lines.lock().unwrap_or_else(PoisonError::into_inner).feed(chunk);
        }
        let mut captured = shared.lock().unwrap_or_else(PoisonError::into_inner);
        captured.total += n as u64;
        let room = cap.saturating_sub(captured.bytes.len());
        captured.bytes.extend_from_slice(chunk.get(..room.min(n)).unwrap_or_default());
    }
}

/// Keeps the last `cap` bytes.
fn capture_tail(mut stream: impl Read, cap: usize) -> Captured {
    let mut captured = Captured { bytes: Vec::new(), total: 0 };
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf) {
        let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else { break };
        captured.total += n as u64;
        captured.bytes.extend_from_slice(chunk);
        if captured.bytes.len() > 2 * cap {
            captured.bytes.drain(..captured.bytes.len() - cap);
        }
    }
    if captured.bytes.len() > cap {
        captured.bytes.drain(..captured.bytes.len() - cap);
    }
    captured
}

/// Kills every process of the tree (the command and all it started).
fn kill_tree(tree: &Tree) {
    if let Err(e) = tree.end(true) {
        log::error!("cannot stop {}: {e}", tree.id());
    }
}

/// A token no other call's processes carry: this process's id and start time (ids are reused)
/// and a count of its calls. Unique is all it must be, not secret: a process that copies another
/// call's mark only gets itself ended with that call.
fn call_token() -> String {
    static STARTED: OnceLock<u128> = OnceLock::new();
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let started = STARTED.get_or_init(|| SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    format!("{}-{started:x}-{}", std::process::id(), CALLS.fetch_add(1, Ordering::Relaxed))
}

/// The processes whose environment carries `mark` (`TINYMCP_CALL=<token>`), from `/proc`.
fn marked_processes(mark: &str) -> Vec<u32> {
    let Ok(procs) = std::fs::read_dir("/proc") else { return Vec::new() };
    procs
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok().map(|pid| (pid, entry.path())))
        .filter(|(_, path)| {
            std::fs::read(path.join("environ")).is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == mark.as_bytes()))
        })
        .map(|(pid, _)| pid)
        .collect()
}

/// Ends everything the call started: its process tree, then every process that still carries
/// the call's mark (children that left the group with `setsid`), a few rounds in case they fork.
fn end_everything(tree: &Tree, mark: &str) {
    if tree.has_members() {
        kill_tree(tree);
    }
    for _ in 0..5 {
        let marked = marked_processes(mark);
        if marked.is_empty() {
            return;
        }
        let pids: Vec<String> = marked.iter().map(u32::to_string).collect();
        let _ = Command::new("kill")
            .arg("-KILL")
            .args(&pids)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        thread::sleep(POLL);
    }
}

/// Why a `.bat` or `.cmd` program is not run (Windows).
pub fn batch_refusal(program: &str) -> String {
    format!(
        "{program} is a batch script, which Windows runs through cmd.exe with cmd's own reading of the \
         arguments (where an argument can run commands): name a program (.exe) instead"
    )
}

/// How a run ended.
enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    Lost(std::io::Error),
}

/// Runs the command with these (already validated) arguments and turns the outcome into a
/// tool result: a non-zero exit, a timeout or a failure to start is `isError` with the reason.
pub fn run(cx: &RequestCx, spec: &CommandSpec, args: &Value) -> CallToolResult {
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    let here = spec.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let checked = checked_paths(&spec.paths, &here, args).and_then(|args| {
        let argv = checked_argv(&spec.argv, &args, &spec.options)?;
        Ok((args, argv))
    });
    let (args, argv) = match checked {
        Ok(checked) => checked,
        Err(why) => return CallToolResult::error(why),
    };
    let args = &args;
    let Some((program, rest)) = argv.split_first() else {
        return CallToolResult::error("the command is empty");
    };
    if cfg!(windows) && crate::platform::is_batch_script(program) {
        return CallToolResult::error(batch_refusal(program));
    }
    let mut command = Command::new(program);
    command
        .args(rest)
        .env_clear()
        .stdin(if spec.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for key in PASSED_ENV.iter().chain(crate::platform::PLATFORM_ENV) {
        if let Some(value) = std::env::var_os(key) {
            command.env(key, value);
        }
    }
    if std::env::var_os("PATH").is_none() {
        command.env("PATH", "/usr/local/bin:/usr/bin:/bin");
    }
    for (key, value) in &spec.env {
        command.env(key, value);
    }
    let token = call_token();
    let mark = format!("{MARK_VAR}={token}");
    command.env(MARK_VAR, &token);
    // Recording spans (`--otlp`): the run is a child span of the request's, whose id is the
    // parent the command sees. Else the request's context as it came.
    let name = Path::new(program).file_name().map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
    let mut span = RequestScope::with_current(|scope| scope?.child(format!("run {name}"), SpanKind::Internal));
    if let Some(span) = &mut span {
        span.set("process.executable.name", name);
    }
    // The request's trace context, as OpenTelemetry's environment carrier names it: the
    // command's own spans join the caller's trace. Set last, so a manifest's `env` cannot
    // pass a stale one.
    if let Some(trace) = span.as_ref().map(ChildSpan::context).or(cx.trace()) {
        command.env("TRACEPARENT", trace.traceparent());
        if let Some(state) = trace.tracestate() {
            command.env("TRACESTATE", state);
        }
    }
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    if spec.sensitive {
        log::debug!("running {program:?} (its arguments are sensitive: not logged)");
    } else {
        log::debug!("running {argv:?}");
    }
    // A tree of its own, so a timeout or a cancellation can kill all it started.
    let (mut child, tree) = match Tree::spawn(&mut command) {
        Ok(spawned) => spawned,
        Err(e) => {
            if let Some(span) = &mut span {
                span.fail("the command did not start".to_owned());
            }
            return CallToolResult::error(format!("cannot run {program}: {e}"));
        }
    };
    let lines = cx.wants_progress().then(|| Arc::new(Mutex::new(Lines::default())));
    let (stdout, stderr) = start_readers(&mut child, spec, args, lines.clone());
    let ended = wait(cx, &mut child, &tree, spec.timeout, lines.as_deref());
    // Whatever the command left running goes too: its tree and whatever carries the call's
    // mark. The leader is reaped by now; while any member lives, no new process can take its
    // id, so the group is still ours exactly when it has members.
    end_everything(&tree, &mark);
    // A process that escaped (it cleared its environment and left the group) may hold the
    // pipes open: after the drain time, what was read so far is the output.
    let deadline = Instant::now() + DRAIN;
    let stdout = stdout.finish(deadline);
    let stderr = stderr.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok();
    let result = outcome(program, spec, ended, stdout, stderr);
    if let (Some(span), true) = (&mut span, result.is_error) {
        span.fail("the command failed".to_owned());
    }
    result
}

/// The stdout reader: what it read so far, and a signal when it reached the end.
struct HeadReader {
    shared: Arc<Mutex<Captured>>,
    done: mpsc::Receiver<()>,
}

impl HeadReader {
    /// Waits for the end of the stream until `deadline`, then takes what was read.
    fn finish(self, deadline: Instant) -> Option<Captured> {
        let ended = self.done.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_ok();
        if !ended {
            log::warn!("a process the call could not end holds its stdout; returning what was read");
        }
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        Some(std::mem::replace(&mut *shared, Captured { bytes: Vec::new(), total: 0 }))
    }
}

/// Starts the stdin writer and the two output readers.
fn start_readers(
    child: &mut Child,
    spec: &CommandSpec,
    args: &Map<String, Value>,
    lines: Option<Arc<Mutex<Lines>>>,
) -> (HeadReader, mpsc::Receiver<Captured>) {
    if let (Some(template), Some(mut pipe)) = (&spec.stdin, child.stdin.take()) {
        let text = expand_text(template, &|name| args.get(name).and_then(as_text));
        let spawned = thread::Builder::new().name("tinymcp-cmd-stdin".into()).spawn(move || {
            // A command that does not read its stdin closes the pipe; that is its business.
            let _ = pipe.write_all(text.as_bytes());
        });
        if let Err(e) = spawned {
            log::warn!("cannot start the stdin writer: {e}");
        }
    }
    let (out_tx, out_rx) = mpsc::sync_channel(1);
    let (err_tx, err_rx) = mpsc::sync_channel(1);
    let shared = Arc::new(Mutex::new(Captured { bytes: Vec::new(), total: 0 }));
    if let Some(pipe) = child.stdout.take() {
        let cap = spec.max_output_bytes;
        let shared = Arc::clone(&shared);
        let _ = thread::Builder::new().name("tinymcp-cmd-out".into()).spawn(move || {
            capture_head(pipe, cap, &shared, lines.as_deref());
            let _ = out_tx.send(());
        });
    }
    if let Some(pipe) = child.stderr.take() {
        let _ = thread::Builder::new()
            .name("tinymcp-cmd-err".into())
            .spawn(move || drop(err_tx.send(capture_tail(pipe, STDERR_TAIL))));
    }
    (HeadReader { shared, done: out_rx }, err_rx)
}

/// Waits for exit, the timeout or cancellation. When progress is wanted, each check with new
/// stdout lines reports the number of lines so far with the latest line as the message (lines
/// printed faster than the checks are summed up by the latest).
fn wait(cx: &RequestCx, child: &mut Child, tree: &Tree, timeout: Duration, lines: Option<&Mutex<Lines>>) -> Ended {
    let started = Instant::now();
    let mut reported = 0;
    loop {
        if let Some(lines) = lines {
            let (count, latest) = {
                let lines = lines.lock().unwrap_or_else(PoisonError::into_inner);
                (lines.count, (lines.count > reported).then(|| lines.latest.clone()))
            };
            if let Some(latest) = latest {
                reported = count;
                cx.progress(count as f64, None, Some(&latest));
            }
        }
        match child.try_wait() {
            Ok(Some(status)) => return Ended::Exited(status),
            Ok(None) => {}
            Err(e) => return Ended::Lost(e),
        }
        let stop = if cx.is_cancelled() {
            Some(Ended::Cancelled)
        } else if started.elapsed() >= timeout {
            Some(Ended::TimedOut)
        } else {
            None
        };
        if let Some(ended) = stop {
            kill_tree(tree);
            let _ = child.wait();
            return ended;
        }
        thread::sleep(POLL);
    }
}

/// Turns what happened into a tool result.
fn outcome(
    program: &str,
    spec: &CommandSpec,
    ended: Ended,
    stdout: Option<Captured>,
    stderr: Option<Captured>,
) -> CallToolResult {
    let (out, truncated) = match stdout {
        Some(c) => {
            let truncated = c.total > c.bytes.len() as u64;
            let mut text = String::from_utf8_lossy(&c.bytes).into_owned();
            if truncated {
                text.push_str(&format!(
                    "\n[output truncated: showing the first {} of {} bytes]",
                    c.bytes.len(),
                    c.total
                ));
            }
            (text, truncated)
        }
        None => (String::new(), false),
    };
    let err = stderr.map(|c| String::from_utf8_lossy(&c.bytes).trim_end().to_owned()).unwrap_or_default();
    let with_output = |mut message: String| {
        if !err.is_empty() {
            message.push_str(&format!("\nstderr (the end):\n{err}"));
        }
        if !out.is_empty() {
            message.push_str(&format!("\nstdout:\n{out}"));
        }
        CallToolResult::error(message)
    };
    let status = match ended {
        Ended::Exited(status) => status,
        Ended::TimedOut => {
            return with_output(format!(
                "{program} timed out after {} ms; it and everything it started were killed",
                spec.timeout.as_millis()
            ))
        }
        Ended::Cancelled => {
            return CallToolResult::error("cancelled; the command and everything it started were killed")
        }
        Ended::Lost(e) => return CallToolResult::error(format!("lost track of {program}: {e}")),
    };
    if !status.success() {
        return with_output(format!("{program} {}", crate::platform::how_it_failed(&status)));
    }
    match spec.output {
        Output::Text => CallToolResult::success(vec![Content::text(out)]),
        Output::Json if truncated => {
            CallToolResult::error(format!("{program} printed more than {} bytes of JSON", spec.max_output_bytes))
        }
        Output::Json => match serde_json::from_str::<Value>(&out) {
            Ok(value @ Value::Object(_)) => {
                CallToolResult { structured_content: Some(value), ..CallToolResult::text(out.trim_end()) }
            }
            Ok(_) => CallToolResult::error(format!("{program} printed JSON that is not an object:\n{out}")),
            Err(e) => CallToolResult::error(format!("{program} printed something that is not JSON ({e}):\n{out}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn segments_find_placeholders_and_leave_other_braces() {
        assert_eq!(
            segments("a{{x}}b{{ y }}{{}}{{z.1}}"),
            vec![
                Segment::Text("a"),
                Segment::Placeholder("x"),
                Segment::Text("b{{ y }}{{}}"),
                Segment::Placeholder("z.1")
            ]
        );
        assert_eq!(placeholders("{{{a}}}"), vec!["a"]);
    }

    #[test]
    fn whole_elements_expand_arrays_and_vanish_when_absent() {
        let args = json!({"files": ["a b", "-c"], "n": 3, "flag": true}).as_object().cloned().unwrap();
        assert_eq!(
            expand_argv(&argv(&["wc", "{{files}}", "--n={{n}}", "{{missing}}", "--m={{missing}}", "{{flag}}"]), &args),
            argv(&["wc", "a b", "-c", "--n=3", "true"])
        );
    }

    #[test]
    fn values_are_never_interpreted() {
        let evil = "; rm -rf / $(id) `id` \"'\n--x";
        let args = json!({"v": evil}).as_object().cloned().unwrap();
        assert_eq!(
            expand_argv(&argv(&["echo", "{{v}}", "pre{{v}}"]), &args),
            argv(&["echo", evil, &format!("pre{evil}")])
        );
    }

    #[test]
    fn captures_keep_head_and_tail() {
        let data = vec![b'x'; 20_000];
        let head = Mutex::new(Captured { bytes: Vec::new(), total: 0 });
        capture_head(&data[..], 100, &head, None);
        let head = head.into_inner().unwrap();
        assert_eq!((head.bytes.len(), head.total), (100, 20_000));
        let tail = capture_tail(&b"0123456789"[..], 4);
        assert_eq!(tail.bytes, b"6789");
    }

    #[test]
    fn lines_are_counted_across_chunks_and_capped() {
        let mut lines = Lines::default();
        lines.feed(b"compiling a\ncompil");
        assert_eq!((lines.count, lines.latest.as_str()), (1, "compiling a"));
        lines.feed(b"ing b\n");
        assert_eq!((lines.count, lines.latest.as_str()), (2, "compiling b"));
        lines.feed(&[b'x'; 1000]);
        lines.feed(b"\n");
        assert_eq!((lines.count, lines.latest.len()), (3, LINE_CAP));
    }
}
