//! Stdio back-pressure. A client that writes many requests and stops reading must not
//! make the server buffer every answer: once a bounded output queue is full the server stops
//! reading, and resumes when the client reads again; nothing is lost. Before: every answer was
//! queued (405 MiB after 2 M requests).

use crate::support::{binary, wait_until, TIMEOUT};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Bytes the process read so far (`rchar` of `/proc/PID/io`).
fn read_bytes(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines().find_map(|l| l.strip_prefix("rchar:")?.trim().parse().ok()).unwrap_or(0)
}

#[test]
fn a_client_that_stops_reading_holds_the_server_reading_not_its_memory() {
    const REQUESTS: usize = 40_000;
    let mut child = Command::new(binary())
        .args(["--everything", "--no-watch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&sent);
    let writer = thread::spawn(move || {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        writeln!(stdin, "{init}").unwrap();
        writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
        let message = "x".repeat(1000);
        for id in 1..=REQUESTS {
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{message}"}}}}}}"#
            );
            if writeln!(stdin, "{call}").is_err() {
                return;
            }
            counted.store(id, Ordering::SeqCst);
        }
        drop(stdin);
    });
    // Nobody reads: 40 000 answers of about 1.1 KiB (44 MiB) would be queued without
    // back-pressure, and every request read at once. With it, the server stops reading once its
    // output queue and the pipes are full: the client's writes block far before the end (what
    // the server's memory does meanwhile is a figure for `scripts/bench.sh`).
    let mut last = u64::MAX;
    wait_until("the server to stop reading", TIMEOUT, || {
        // Unchanged across two looks 50 ms apart, once the client is well under way.
        thread::sleep(Duration::from_millis(50));
        let now = read_bytes(pid);
        let stalled = now == last && sent.load(Ordering::SeqCst) > 100;
        last = now;
        stalled
    });
    let written = sent.load(Ordering::SeqCst);
    assert!(written < REQUESTS / 2, "the server read {written} of {REQUESTS} requests while nobody read its answers");
    // Now read everything: every answer arrives, in full.
    let started = Instant::now();
    let mut answered = 0;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        if value["id"].as_u64().is_some_and(|id| id >= 1) {
            assert_eq!(
                value["result"]["content"][0]["text"].as_str().map(str::len),
                Some(1000 + "Echo: ".len()),
                "{line}"
            );
            answered += 1;
        }
        if answered == REQUESTS {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "only {answered} answers");
    }
    assert_eq!(answered, REQUESTS);
    writer.join().unwrap();
    let _ = child.kill();
    let _ = child.wait();
}
