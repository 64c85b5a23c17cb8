//! One proxied server process: spawned with no shell and only the environment it is given, its
//! stdin fed by a bounded queue, its stdout lines handed to the relay, its stderr to our log
//! with its session named, ended when its session ends or it stops answering.
//!
//! It runs in a process tree of its own (`platform::Tree`: a process group on Unix, a job
//! object on Windows), and ending it ends the tree (SIGTERM, then SIGKILL after `GRACE`;
//! Windows: its stdin closed, then the job terminated): a server that forks (a language
//! server, an `npx` wrapper) leaves nothing behind. Its exit is waited for by a thread of its own, never after the end of its stdout,
//! which a grandchild may hold open.

use crate::platform::Tree;
use std::io::{BufReader, Read, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};
use tinymcp::relay::{Peer, Relayed};
use tinymcp::transport::stdio::{read_line, Line};
use tinymcp::Metrics;

/// Messages waiting for the child to read them, and their bytes (one message of any size may
/// wait alone); beyond, requests are refused.
const QUEUED_LINES: usize = 256;
const QUEUED_BYTES: usize = 16 * 1024 * 1024;
/// The longest line of the child's stderr logged whole; the rest is cut.
const STDERR_LINE: usize = 4096;
/// The room kept between stdout lines: a child's one huge line is not held for its lifetime.
const KEPT_LINE: usize = 64 * 1024;
/// How often the watchdog looks for a child that stopped answering, at most: with a shorter
/// `--answer-within-secs` it looks four times per limit.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// How long a server's group has after SIGTERM before SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// Every child not yet ended for good, for `end_all` when the proxy exits.
static LIVE: Mutex<Vec<Arc<Life>>> = Mutex::new(Vec::new());

/// One child's process tree and where its end stands.
struct Life {
    tree: Tree,
    state: Mutex<LifeState>,
    changed: Condvar,
}

#[derive(Default)]
struct LifeState {
    /// Asked to end (its session ended, it hung, it exited): the group has had its SIGTERM.
    closing: bool,
    /// The child itself has exited and was reaped.
    reaped: bool,
}

impl Life {
    fn lock(&self) -> MutexGuard<'_, LifeState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Begins the end: SIGTERM to the whole group, once. The watch thread sends SIGKILL after
    /// `GRACE` (`finish`).
    fn end(&self) {
        let mut state = self.lock();
        if !state.closing {
            state.closing = true;
            // Also after the child was reaped: a group keeps its id while any member lives
            // (a grandchild), and a signal to an empty one finds nothing.
            if let Err(e) = self.tree.end(false) {
                log::debug!("cannot signal {}: {e}", self.tree.id());
            }
        }
        self.changed.notify_all();
    }

    /// Waits until the child is reaped or `deadline` passes.
    fn wait_reaped(&self, deadline: Instant) {
        let mut state = self.lock();
        while !state.reaped {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            state = self.changed.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// After the grace, SIGKILL to what is left of the group (a grandchild that ignored
    /// SIGTERM): the group's id is not reused while anything of the group lives.
    fn finish(self: &Arc<Life>) {
        self.wait_reaped(Instant::now() + GRACE);
        if let Err(e) = self.tree.end(true) {
            log::debug!("cannot kill {}: {e}", self.tree.id());
        }
        LIVE.lock().unwrap_or_else(PoisonError::into_inner).retain(|l| !Arc::ptr_eq(l, self));
    }
}

/// The proxy is exiting: every child's group is ended (SIGTERM, SIGKILL after `GRACE`).
pub fn end_all() {
    let live: Vec<Arc<Life>> = LIVE.lock().unwrap_or_else(PoisonError::into_inner).clone();
    for life in &live {
        life.end();
    }
    let deadline = Instant::now() + GRACE;
    for life in &live {
        life.wait_reaped(deadline);
    }
    for life in &live {
        life.finish();
    }
}

/// What to run for each session.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The program, exec'd directly (looked up in `PATH` when it has no slash).
    pub command: String,
    /// Its arguments, each one argv element.
    pub args: Vec<String>,
    /// Its whole environment.
    pub env: Vec<(String, String)>,
    /// Its working directory, else ours.
    pub cwd: Option<std::path::PathBuf>,
    /// Requests waiting this long with nothing heard from it: it hangs and is ended.
    pub answer_within: Duration,
    /// The longest line taken from its stdout.
    pub max_line: usize,
}

/// A running child, the `Peer` of one session's relay.
pub struct Child {
    input: SyncSender<String>,
    /// Bytes in `input`, not yet written to the child.
    queued: Arc<AtomicUsize>,
    life: Arc<Life>,
}

impl Child {
    /// Starts `spec` for the session `name`; its messages go to `relayed`; counted running
    /// in `metrics` until it exits.
    pub fn spawn(spec: &Spec, name: String, relayed: Relayed, metrics: Option<Arc<Metrics>>) -> Result<Child, String> {
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.cwd {
            command.current_dir(dir);
        }
        // A tree of its own, ended whole: what it forks ends with it.
        let (mut process, tree) =
            Tree::spawn(&mut command).map_err(|e| format!("cannot run {:?}: {e}", spec.command))?;
        log::info!(target: "tinymcp::child", "{name}: started {:?} (pid {})", spec.command, process.id());
        let running = metrics.map(Running::new);
        let (stdin, stdout, stderr) = match (process.stdin.take(), process.stdout.take(), process.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => {
                let _ = process.kill();
                let _ = process.wait();
                return Err("the child's pipes were not set up".into());
            }
        };
        let life = Arc::new(Life { tree, state: Mutex::default(), changed: Condvar::new() });
        LIVE.lock().unwrap_or_else(PoisonError::into_inner).push(Arc::clone(&life));
        let (input, lines) = mpsc::sync_channel(QUEUED_LINES);
        let queued = Arc::new(AtomicUsize::new(0));
        let fed = Arc::clone(&queued);
        let started = thread::Builder::new().name("proxy-stdin".into()).stack_size(64 * 1024).spawn(move || {
            feed(stdin, &lines, &fed);
        });
        let reading = (relayed.clone(), name.clone(), spec.max_line);
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-stdout".into()).stack_size(128 * 1024).spawn(move || {
                let (relayed, name, cap) = reading;
                read_stdout(stdout, cap, &relayed, &name);
            })
        });
        let reaping = (Arc::clone(&life), relayed.clone(), name.clone());
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-wait".into()).stack_size(64 * 1024).spawn(move || {
                let (life, relayed, name) = reaping;
                let mut process = process;
                // Reaped as soon as it exits, so no zombie outlives it.
                let status = process.wait();
                drop(running);
                let status = status.map_or_else(|e| format!("status unknown: {e}"), |s| s.to_string());
                let closing = {
                    let mut state = life.lock();
                    state.reaped = true;
                    life.changed.notify_all();
                    state.closing
                };
                if closing {
                    // Ended as asked: the signal it got says nothing new.
                    log::info!(target: "tinymcp::child", "{name}: ended with its session");
                    log::debug!(target: "tinymcp::child", "{name}: {status}");
                } else {
                    log::warn!("{name}: the server process exited ({status})");
                    relayed.end(&format!("the server process exited ({status})"));
                    life.end();
                }
            })
        });
        let logging = name.clone();
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-stderr".into()).stack_size(64 * 1024).spawn(move || {
                read_stderr(stderr, &logging);
            })
        });
        let watched = (Arc::clone(&life), spec.answer_within);
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-watch".into()).stack_size(64 * 1024).spawn(move || {
                let (life, within) = watched;
                let every = WATCH_EVERY.min(within / 4).max(Duration::from_millis(10));
                // An interval is the point here: the child is looked at, not waited for.
                loop {
                    {
                        let state = life.lock();
                        if state.closing {
                            break;
                        }
                        let waited = life.changed.wait_timeout(state, every);
                        if waited.unwrap_or_else(PoisonError::into_inner).0.closing {
                            break;
                        }
                    }
                    if relayed.stalled(within) {
                        log::warn!("{name}: no answer within {} s; ending the server process", within.as_secs());
                        relayed.end(&format!("the server process did not answer within {} s", within.as_secs()));
                        life.end();
                    }
                }
                life.finish();
            })
        });
        let child = Child { input, queued, life };
        if let Err(e) = started {
            child.close();
            return Err(format!("cannot start a thread: {e}"));
        }
        Ok(child)
    }
}

impl Peer for Child {
    fn send(&self, line: String) -> Result<(), String> {
        let len = line.len();
        let before = self.queued.fetch_add(len, Ordering::SeqCst);
        let sent = if before > 0 && before + len > QUEUED_BYTES {
            Err(format!("its input is full ({before} bytes wait): it is not reading"))
        } else {
            self.input.try_send(line).map_err(|e| match e {
                TrySendError::Full(_) => format!("its input is full ({QUEUED_LINES} messages wait): it is not reading"),
                TrySendError::Disconnected(_) => "it has ended".to_owned(),
            })
        };
        if sent.is_err() {
            self.queued.fetch_sub(len, Ordering::SeqCst);
        }
        sent
    }

    fn close(&self) {
        self.life.end();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.close();
    }
}

/// A child counted among those running while it lives (until it is reaped).
struct Running(Arc<Metrics>);

impl Running {
    fn new(metrics: Arc<Metrics>) -> Running {
        metrics.child_started();
        Running(metrics)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.child_ended();
    }
}

fn feed(mut stdin: ChildStdin, lines: &Receiver<String>, queued: &AtomicUsize) {
    for line in lines {
        let written =
            stdin.write_all(line.as_bytes()).and_then(|()| stdin.write_all(b"\n")).and_then(|()| stdin.flush());
        queued.fetch_sub(line.len(), Ordering::SeqCst);
        if let Err(e) = written {
            log::debug!("the server process's input closed: {e}");
            return;
        }
    }
}

fn read_stdout(stdout: impl Read, cap: usize, relayed: &Relayed, name: &str) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let mut dropped = Dropped::default();
    loop {
        match read_line(&mut reader, &mut line, cap) {
            Ok(Line::Eof) => return,
            Ok(Line::TooLong) => {
                // Its beginning says which request it answers: that one fails now, not at the
                // watchdog, and the child, which did nothing wrong, goes on.
                let why = format!(
                    "it is over {cap} bytes, the longest message this proxy takes from the server (raise it with --max-message-bytes)"
                );
                if relayed.too_long(&line, &why) {
                    log::warn!("{name}: a message over {cap} bytes on stdout; its request failed (--max-message-bytes raises the limit)");
                } else {
                    dropped.note(name, &format!("a line over {cap} bytes"));
                }
            }
            Ok(Line::Text) => match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => {}
                // Not a JSON object: no JSON-RPC message (the relay refuses batches too).
                Ok(text) if !text.trim_start().starts_with('{') => dropped.note(name, "a line that is not JSON-RPC"),
                Ok(text) => relayed.deliver(text.trim_end_matches('\r')),
                Err(_) => dropped.note(name, "a line that is not UTF-8"),
            },
            Err(e) => return log::debug!("{name}: stdout: {e}"),
        }
        line.clear();
        line.shrink_to(KEPT_LINE);
    }
}

/// Lines of stdout dropped, told in one warning a second at most: a child printing garbage
/// without end does not flood our log.
#[derive(Default)]
struct Dropped {
    /// Dropped since the last warning, and when it was.
    since_told: u64,
    told: Option<Instant>,
}

impl Dropped {
    fn note(&mut self, name: &str, what: &str) {
        self.since_told += 1;
        if self.told.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return;
        }
        let more = self.since_told - 1;
        if more > 0 {
            log::warn!("{name}: {what} on stdout; dropped (and {more} more dropped lines in the last second)");
        } else {
            log::warn!("{name}: {what} on stdout; dropped");
        }
        self.since_told = 0;
        self.told = Some(Instant::now());
    }
}

fn read_stderr(stderr: impl Read, name: &str) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        match read_line(&mut reader, &mut line, STDERR_LINE) {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => log::info!(target: "tinymcp::child", "{name}: (a line over {STDERR_LINE} bytes)"),
            Ok(Line::Text) => {
                log::info!(target: "tinymcp::child", "{name}: {}", String::from_utf8_lossy(&line).trim_end());
            }
        }
    }
}
