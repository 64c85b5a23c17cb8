//! One proxied server process: spawned with no shell and only the environment it is given, its
//! stdin fed by a bounded queue, its stdout lines handed to the relay, its stderr to our log
//! with its session named, ended when its session ends or it stops answering.

use std::io::{BufReader, Read, Write};
use std::process::{Child as Process, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};
use tinymcp::relay::{Peer, Relayed};
use tinymcp::transport::stdio::{read_line, Line};

/// Messages waiting for the child to read them, and their bytes (one message of any size may
/// wait alone); beyond, requests are refused.
const QUEUED_LINES: usize = 256;
const QUEUED_BYTES: usize = 16 * 1024 * 1024;
/// The longest line of the child's stderr logged whole; the rest is cut.
const STDERR_LINE: usize = 4096;
/// The room kept between stdout lines: a child's one huge line is not held for its lifetime.
const KEPT_LINE: usize = 64 * 1024;
/// How often the watchdog looks for a child that stopped answering.
const WATCH_EVERY: Duration = Duration::from_secs(1);

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
    process: Arc<Mutex<Process>>,
    closing: Arc<AtomicBool>,
}

impl Child {
    /// Starts `spec` for the session `name`; its messages go to `relayed`.
    pub fn spawn(spec: &Spec, name: String, relayed: Relayed) -> Result<Child, String> {
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
        let mut process = command.spawn().map_err(|e| format!("cannot run {:?}: {e}", spec.command))?;
        log::info!(target: "tinymcp::child", "{name}: started {:?} (pid {})", spec.command, process.id());
        let (stdin, stdout, stderr) = match (process.stdin.take(), process.stdout.take(), process.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => {
                let _ = process.kill();
                let _ = process.wait();
                return Err("the child's pipes were not set up".into());
            }
        };
        let process = Arc::new(Mutex::new(process));
        let closing = Arc::new(AtomicBool::new(false));
        let (input, lines) = mpsc::sync_channel(QUEUED_LINES);
        let queued = Arc::new(AtomicUsize::new(0));
        let fed = Arc::clone(&queued);
        let started = thread::Builder::new().name("proxy-stdin".into()).stack_size(64 * 1024).spawn(move || {
            feed(stdin, &lines, &fed);
        });
        let reading = (Arc::clone(&process), Arc::clone(&closing), relayed.clone(), name.clone(), spec.max_line);
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-stdout".into()).stack_size(128 * 1024).spawn(move || {
                let (process, closing, relayed, name, cap) = reading;
                read_stdout(stdout, cap, &relayed, &name);
                // Reaped here, so no zombie outlives its session.
                let status = process.lock().unwrap_or_else(PoisonError::into_inner).wait();
                let status = status.map_or_else(|e| format!("status unknown: {e}"), |s| s.to_string());
                if closing.load(Ordering::SeqCst) {
                    log::info!(target: "tinymcp::child", "{name}: ended with its session ({status})");
                } else {
                    log::warn!("{name}: the server process exited ({status})");
                    relayed.end(&format!("the server process exited ({status})"));
                }
            })
        });
        let logging = name.clone();
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-stderr".into()).stack_size(64 * 1024).spawn(move || {
                read_stderr(stderr, &logging);
            })
        });
        let watched = (Arc::clone(&process), Arc::clone(&closing), spec.answer_within);
        let started = started.and_then(|_| {
            thread::Builder::new().name("proxy-watch".into()).stack_size(64 * 1024).spawn(move || {
                let (process, closing, within) = watched;
                // An interval is the point here: the child is looked at, not waited for.
                while !closing.load(Ordering::SeqCst) {
                    thread::sleep(WATCH_EVERY);
                    if relayed.stalled(within) {
                        log::warn!("{name}: no answer within {} s; ending the server process", within.as_secs());
                        relayed.end(&format!("the server process did not answer within {} s", within.as_secs()));
                        closing.store(true, Ordering::SeqCst);
                        let _ = process.lock().unwrap_or_else(PoisonError::into_inner).kill();
                    }
                }
            })
        });
        let child = Child { input, queued, process, closing };
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
        self.closing.store(true, Ordering::SeqCst);
        // Killing an exited but not yet reaped child is harmless; its reader reaps it.
        let _ = self.process.lock().unwrap_or_else(PoisonError::into_inner).kill();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.close();
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
            Ok(Line::TooLong) => dropped.note(name, &format!("a line over {cap} bytes")),
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
