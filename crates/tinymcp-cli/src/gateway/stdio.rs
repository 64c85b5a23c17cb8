//! An upstream run as a child process speaking stdio: exec'd with no shell and only the
//! environment it is given, in a process tree of its own (`platform::Tree`) ended whole; its
//! stdin fed by a bounded queue, its stdout lines delivered to the link, its stderr to our
//! log under its name. Its exit ends the link, which the supervisor notices.

use super::link::{Link, Wire};
use crate::platform::Tree;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::Duration;
use tinymcp::transport::stdio::{read_line, Line};

/// Messages waiting for the child to read them; beyond, sending fails (it is not reading).
const QUEUED_LINES: usize = 256;
/// The longest line taken from its stdout, and of its stderr logged.
const MAX_LINE: usize = 16 * 1024 * 1024;
const STDERR_LINE: usize = 4096;
/// How long its tree has after SIGTERM before SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// The running child.
pub struct StdioWire {
    input: SyncSender<String>,
    tree: Arc<(Tree, Mutex<bool>, Condvar)>,
}

/// Starts `command` for the upstream of `link`.
pub fn spawn(
    link: &Arc<Link>,
    command: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&PathBuf>,
) -> Result<Arc<StdioWire>, String> {
    let mut cmd = Command::new(command);
    cmd.args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let (mut process, tree) = Tree::spawn(&mut cmd).map_err(|e| format!("cannot run {command:?}: {e}"))?;
    let name = link.name.clone();
    log::info!(target: "tinymcp::child", "{name}: started {command:?} (pid {})", process.id());
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (process.stdin.take(), process.stdout.take(), process.stderr.take())
    else {
        let _ = process.kill();
        let _ = process.wait();
        return Err("the child's pipes were not set up".into());
    };
    let tree = Arc::new((tree, Mutex::new(false), Condvar::new()));
    let (input, lines) = mpsc::sync_channel::<String>(QUEUED_LINES);
    let spawn = |what: &str, job: Box<dyn FnOnce() + Send>| {
        thread::Builder::new().name(format!("gateway-{what}")).stack_size(128 * 1024).spawn(job).map(drop)
    };
    let started = spawn(
        "stdin",
        Box::new(move || {
            for line in lines {
                if stdin
                    .write_all(line.as_bytes())
                    .and_then(|()| stdin.write_all(b"\n"))
                    .and_then(|()| stdin.flush())
                    .is_err()
                {
                    return;
                }
            }
        }),
    );
    let reading = Arc::clone(link);
    let started = started.and_then(|()| {
        spawn(
            "stdout",
            Box::new(move || {
                let mut reader = BufReader::new(stdout);
                let mut line = Vec::new();
                loop {
                    match read_line(&mut reader, &mut line, MAX_LINE) {
                        Ok(Line::Eof) | Err(_) => return,
                        Ok(Line::TooLong) => {
                            log::warn!("{}: a line over {MAX_LINE} bytes on stdout; dropped", reading.name)
                        }
                        Ok(Line::Text) => match std::str::from_utf8(&line) {
                            Ok(text) if text.trim().is_empty() => {}
                            Ok(text) => reading.deliver(text, None),
                            Err(_) => log::warn!("{}: a line that is not UTF-8 on stdout; dropped", reading.name),
                        },
                    }
                    line.clear();
                }
            }),
        )
    });
    let logging = name.clone();
    let started = started.and_then(|()| {
        spawn(
            "stderr",
            Box::new(move || {
                let mut reader = BufReader::new(stderr);
                let mut line = Vec::new();
                while let Ok(Line::Text | Line::TooLong) = read_line(&mut reader, &mut line, STDERR_LINE) {
                    log::info!(target: "tinymcp::child", "{logging}: {}", String::from_utf8_lossy(&line).trim_end());
                    line.clear();
                }
            }),
        )
    });
    let (waiting, reaped) = (Arc::clone(link), Arc::clone(&tree));
    let started = started.and_then(|()| {
        spawn(
            "wait",
            Box::new(move || {
                let status = process.wait().map_or_else(|e| format!("status unknown: {e}"), |s| s.to_string());
                *reaped.1.lock().unwrap_or_else(PoisonError::into_inner) = true;
                reaped.2.notify_all();
                // Ended by us (its session ended, the gateway exits): expected; else a warning.
                if waiting.ended().is_some() {
                    log::info!("{}: the server process ended ({status})", waiting.name);
                } else {
                    log::warn!("{}: the server process exited ({status})", waiting.name);
                }
                waiting.end(&format!("its process exited ({status})"));
                // What it forked ends with it.
                let _ = reaped.0.end(true);
            }),
        )
    });
    let wire = Arc::new(StdioWire { input, tree });
    if let Err(e) = started {
        wire.close();
        return Err(format!("cannot start a thread: {e}"));
    }
    Ok(wire)
}

impl Wire for StdioWire {
    fn send(&self, _: &Arc<Link>, message: String, _: Option<u64>) -> Result<(), String> {
        self.input.try_send(message).map_err(|e| match e {
            TrySendError::Full(_) => format!("its input is full ({QUEUED_LINES} messages wait): it is not reading"),
            TrySendError::Disconnected(_) => "its process has ended".to_owned(),
        })
    }

    fn close(&self) {
        let _ = self.tree.0.end(false);
        let tree = Arc::clone(&self.tree);
        // SIGKILL to what is left after the grace (a child that ignores SIGTERM).
        let _ = thread::Builder::new().name("gateway-end".into()).stack_size(64 * 1024).spawn(move || {
            let reaped = tree.1.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = tree.2.wait_timeout_while(reaped, GRACE, |r| !*r);
            let _ = tree.0.end(true);
        });
    }
}
