//! The stdio load driver behind `scripts/bench.sh`; std and serde_json only, so it measures any
//! MCP server the same way (ours and the yardstick).
//!
//! ```text
//! bench_stdio startup RUNS -- CMD ARGS...          spawn to `initialize` answer: median and p90
//! bench_stdio answer                               answers one request from a second thread: the
//!                                                  floor under a Rust server's first answer
//! bench_stdio echo SECONDS IN_FLIGHT -- CMD ARGS... `echo` calls per second, idle and peak RSS
//! bench_stdio allocs CALLS -- CMD ARGS...          allocations and bytes per `echo` call, read
//!                                                  from the counting build's `allocations` tool
//! bench_stdio allocs-stateless CALLS -- CMD ARGS... the same at 2026-07-28
//! bench_stdio http-echo SECONDS CONNECTIONS -- URL [PID[,PID...]]  `echo` over keep-alive HTTP:
//!                                                  calls/s, p50, p99 (and the CPU per call of
//!                                                  the PIDs given, summed; with several, also
//!                                                  the first's alone)
//! bench_stdio echo-stateless SECONDS IN_FLIGHT -- CMD ARGS...  `echo` at 2026-07-28 (no
//!                                                  handshake, `_meta` on every request)
//! bench_stdio http-echo-stateless SECONDS CONNECTIONS -- URL [PID]   the same over HTTP, no
//!                                                  session
//! `echo` modes also print the server's CPU time (user + system) per call, in µs. The HTTP ones
//! call the tool `$BENCH_ECHO_TOOL` (default `echo`; a gateway's is `NAME__echo`).
//! bench_stdio http-tools -- URL                    the tool list a client gets (every page):
//!                                                  tools and bytes of `{"tools":[...]}`
//! bench_stdio http-sessions N PID -- URL           RSS of PID per session, N sessions opened
//! bench_stdio http-streams N PID -- URL            N sessions each holding a GET stream open:
//!                                                  time to open, RSS and threads of PID per
//!                                                  stream, one list_changed broadcast to all
//! ```
//! Figures go to stdout as `key=value` lines for the script to read.
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The `_meta` every 2026-07-28 request carries.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args == ["answer"] {
        return answer();
    }
    let split = args.iter().position(|a| a == "--").unwrap_or_else(|| usage());
    let (head, command) = (&args[..split], &args[split + 1..]);
    if command.is_empty() {
        usage();
    }
    match head.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["startup", runs] => startup(number(runs), command),
        ["echo", seconds, in_flight] => echo(number(seconds), number(in_flight), command, false),
        ["allocs", calls] => allocs(number(calls), command, false),
        ["allocs-stateless", calls] => allocs(number(calls), command, true),
        ["echo-stateless", seconds, in_flight] => echo(number(seconds), number(in_flight), command, true),
        ["http-echo", seconds, connections] => http_echo(number(seconds), number(connections), command, false),
        ["http-echo-stateless", seconds, connections] => http_echo(number(seconds), number(connections), command, true),
        ["http-sessions", n, pid] => http_sessions(number(n), number(pid) as u32, &command[0]),
        ["http-streams", n, pid] => http_streams(number(n), number(pid) as u32, &command[0]),
        ["http-tools"] => http_tools(&command[0]),
        _ => usage(),
    }
}

fn usage() -> ! {
    eprintln!("usage: bench_stdio startup RUNS -- CMD... | bench_stdio echo SECONDS IN_FLIGHT -- CMD...");
    std::process::exit(2)
}

fn number(text: &str) -> u64 {
    text.parse().unwrap_or_else(|_| usage())
}

fn spawn(command: &[String]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", command[0]));
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    (child, stdin, stdout)
}

/// Reads lines until the answer to request `id`, skipping notifications the server sends first.
fn read_answer(out: &mut impl BufRead, id: u64) {
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).expect("read stdout") == 0 {
            panic!("the server closed stdout before answering request {id}");
        }
        let message: serde_json::Value = serde_json::from_str(&line).expect("server wrote a line that is not JSON");
        if message["id"] == id && message.get("result").is_some() {
            return;
        }
    }
}

/// The least a Rust program does to answer: std's start, one line read, the answer written by
/// a second thread (as a server's writer thread writes it).
fn answer() {
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    let writer = std::thread::spawn(|| println!(r#"{{"jsonrpc":"2.0","id":0,"result":{{}}}}"#));
    let _ = writer.join();
}

fn startup(runs: u64, command: &[String]) {
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let (mut child, mut stdin, mut out) = spawn(command);
        // A floor measured with a program that answers without reading may have exited
        // already: the answer read next is what counts.
        let _ = writeln!(stdin, "{INITIALIZE}");
        read_answer(&mut out, 0);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        drop(stdin);
        let _ = child.kill();
        let _ = child.wait();
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!("startup_median_ms={:.3}", at(0.5));
    println!("startup_p90_ms={:.3}", at(0.9));
}

/// CPU time (user + system) a process has used, in µs: fields 14 and 15 of `/proc/PID/stat`,
/// in clock ticks of 10 ms (Linux's `USER_HZ` is 100), so a run of seconds measures to ~1%.
fn cpu_us(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = rest.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<u64>().ok()).sum();
    ticks as f64 * 10_000.0
}

/// `VmRSS` (now) or `VmHWM` (peak) of a process, in KiB.
fn rss_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.trim_start_matches(':').split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn echo(seconds: u64, in_flight: u64, command: &[String], stateless: bool) {
    let (mut child, stdin, mut out) = spawn(command);
    let mut stdin = BufWriter::new(stdin);
    if !stateless {
        writeln!(stdin, "{INITIALIZE}").expect("write initialize");
        stdin.flush().expect("flush");
        read_answer(&mut out, 0);
        writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).expect("write");
        stdin.flush().expect("flush");
    }
    let meta = if stateless { format!(",{META}") } else { String::new() };
    std::thread::sleep(Duration::from_millis(300));
    let pid = child.id();
    println!("idle_rss_kib={}", rss_kib(pid, "VmRSS"));

    // One thread counts answers; this one keeps `in_flight` requests outstanding. The writer
    // sleeps until answers arrive (woken once per batch the reader drains, not per answer), so
    // the driver's own CPU use stays small beside the server's on a two-core machine.
    let answered = Arc::new((Mutex::new(0u64), Condvar::new()));
    let counter = Arc::clone(&answered);
    let reader = std::thread::spawn(move || {
        let mut line = String::new();
        let mut n = 0;
        loop {
            line.clear();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                return n;
            }
            if line.contains("\"result\"") {
                if !line.contains("Echo: hello") {
                    panic!("unexpected answer: {line}");
                }
                n += 1;
                if out.buffer().is_empty() {
                    *counter.0.lock().expect("lock") = n;
                    counter.1.notify_one();
                }
            }
        }
    });
    let cpu_before = cpu_us(pid);
    let start = Instant::now();
    let mut sent = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        let done = {
            let (lock, cond) = &*answered;
            let guard = lock.lock().expect("lock");
            let guard =
                cond.wait_timeout_while(guard, Duration::from_millis(100), |n| sent >= *n + in_flight).expect("lock").0;
            *guard
        };
        while sent < done + in_flight {
            sent += 1;
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","id":{sent},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hello"}}{meta}}}}}"#
            )
            .expect("write request");
        }
        stdin.flush().expect("flush");
    }
    let calls = *answered.0.lock().expect("lock");
    let elapsed = start.elapsed();
    println!("peak_rss_kib={}", rss_kib(pid, "VmHWM"));
    println!("echo_per_s={:.0}", calls as f64 / elapsed.as_secs_f64());
    println!("cpu_us_per_call={:.2}", (cpu_us(pid) - cpu_before) / calls.max(1) as f64);
    // End of input asks the server to exit; a server that does not is killed after 2 s.
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(2);
    while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
}

/// A `tools/call` of `echo` or of the counting build's `allocations` after its id, its params
/// ending with `meta` (`,"_meta":{...}` at 2026-07-28, else empty).
fn call_line(id: u64, tool: &str, meta: &str) -> String {
    let arguments = if tool == "echo" { r#"{"message":"hello"}"# } else { "{}" };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}{meta}}}}}"#
    )
}

/// `calls` echo calls with at most 64 in flight, each answer awaited; ids from `next_id` on.
fn echo_calls(stdin: &mut impl Write, out: &mut impl BufRead, next_id: &mut u64, calls: u64, meta: &str) {
    let (mut sent, mut answered) = (0, 0);
    let mut line = String::new();
    while answered < calls {
        while sent < calls && sent - answered < 64 {
            writeln!(stdin, "{}", call_line(*next_id, "echo", meta)).expect("write request");
            *next_id += 1;
            sent += 1;
        }
        stdin.flush().expect("flush");
        line.clear();
        if out.read_line(&mut line).expect("read stdout") == 0 {
            panic!("the server closed stdout");
        }
        if line.contains("\"result\"") {
            assert!(line.contains("Echo: hello"), "unexpected answer: {line}");
            answered += 1;
        }
    }
}

/// The counting build's (allocations, bytes) so far.
fn counted(stdin: &mut impl Write, out: &mut impl BufRead, next_id: &mut u64, meta: &str) -> (u64, u64) {
    let id = *next_id;
    *next_id += 1;
    writeln!(stdin, "{}", call_line(id, "allocations", meta)).expect("write");
    stdin.flush().expect("flush");
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).expect("read stdout") == 0 {
            panic!("the server closed stdout");
        }
        let message: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        if message["id"] == id {
            let text = message["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("no allocation count (run the counting build, examples/counting): {line}"));
            let field = |name: &str| -> u64 {
                text.split_whitespace().find_map(|w| w.strip_prefix(name)?.parse().ok()).expect("a count")
            };
            return (field("allocations="), field("bytes="));
        }
    }
}

/// Allocations per `echo` call, from three readings of the counter: the difference between the
/// last two, less what one reading itself costs (the first two, back to back), over `calls`.
fn allocs(calls: u64, command: &[String], stateless: bool) {
    let (mut child, stdin, mut out) = spawn(command);
    let mut stdin = BufWriter::new(stdin);
    let meta = if stateless { format!(",{META}") } else { String::new() };
    if !stateless {
        writeln!(stdin, "{INITIALIZE}").expect("write initialize");
        writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).expect("write");
        stdin.flush().expect("flush");
        read_answer(&mut out, 0);
    }
    let mut id = 1;
    echo_calls(&mut stdin, &mut out, &mut id, calls.min(10_000), &meta); // warm-up: threads, buffers
    let first = counted(&mut stdin, &mut out, &mut id, &meta);
    let second = counted(&mut stdin, &mut out, &mut id, &meta);
    echo_calls(&mut stdin, &mut out, &mut id, calls, &meta);
    let third = counted(&mut stdin, &mut out, &mut id, &meta);
    let per_call = |i: fn((u64, u64)) -> u64| {
        let reading = i(second).saturating_sub(i(first));
        i(third).saturating_sub(i(second)).saturating_sub(reading) as f64 / calls.max(1) as f64
    };
    println!("allocs_per_call={:.1}", per_call(|c| c.0));
    println!("alloc_bytes_per_call={:.0}", per_call(|c| c.1));
    // End of input asks the server to exit (a profiler around it writes its report then).
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `http://HOST:PORT/PATH` split into the address and the path.
fn split_url(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").unwrap_or_else(|| usage());
    let (addr, path) = rest.split_once('/').unwrap_or((rest, ""));
    (addr.to_owned(), format!("/{path}"))
}

struct HttpConn {
    reader: BufReader<std::net::TcpStream>,
    writer: std::net::TcpStream,
    addr: String,
    path: String,
    session: Option<String>,
    /// 2026-07-28: no session; the version and routing headers on every POST.
    stateless: bool,
}

impl HttpConn {
    fn open(url: &str) -> HttpConn {
        let (addr, path) = split_url(url);
        let stream = std::net::TcpStream::connect(&addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        HttpConn {
            reader: BufReader::new(stream.try_clone().expect("clone")),
            writer: stream,
            addr,
            path,
            session: None,
            stateless: false,
        }
    }

    /// One POST and its whole answer (JSON or SSE); returns the body.
    fn post(&mut self, body: &str) -> String {
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.path, self.addr, body.len()
        );
        if let Some(id) = &self.session {
            head.push_str(&format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-06-18\r\n"));
        }
        if self.stateless {
            head.push_str(&format!(
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {}\r\n",
                echo_tool()
            ));
        }
        head.push_str("\r\n");
        head.push_str(body);
        self.writer.write_all(head.as_bytes()).expect("write");
        let mut line = String::new();
        let mut length = 0;
        let mut chunked = false;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("read");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let lower = l.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            } else if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            } else if lower.starts_with("mcp-session-id:") {
                self.session = Some(l[15..].trim().to_owned());
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader.read_line(&mut line).expect("read");
                let size = usize::from_str_radix(line.trim(), 16).unwrap_or(0);
                let mut chunk = vec![0; size + 2];
                std::io::Read::read_exact(&mut self.reader, &mut chunk).expect("read");
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length, 0);
            std::io::Read::read_exact(&mut self.reader, &mut body).expect("read");
        }
        String::from_utf8_lossy(&body).into_owned()
    }

    fn initialize(&mut self) {
        self.post(INITIALIZE);
        self.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

/// The tool the HTTP `echo` modes call: `$BENCH_ECHO_TOOL`, or `echo`.
fn echo_tool() -> String {
    std::env::var("BENCH_ECHO_TOOL").unwrap_or_else(|_| "echo".to_owned())
}

fn http_echo(seconds: u64, connections: u64, command: &[String], stateless: bool) {
    let url = command[0].as_str();
    let pids: Vec<u32> = command.get(1).map_or(Vec::new(), |p| p.split(',').map(|p| number(p) as u32).collect());
    let cpu = |pids: &[u32]| pids.iter().map(|&p| cpu_us(p)).sum::<f64>();
    let cpu_before = (cpu(&pids), cpu(&pids[..pids.len().min(1)]));
    let tool = echo_tool();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..connections.max(1))
        .map(|_| {
            let (url, tool) = (url.to_owned(), tool.clone());
            std::thread::spawn(move || {
                let mut conn = HttpConn::open(&url);
                conn.stateless = stateless;
                if !stateless {
                    conn.initialize();
                }
                let meta = if stateless { format!(",{META}") } else { String::new() };
                let mut latencies = Vec::new();
                let mut id = 1;
                while Instant::now() < deadline {
                    id += 1;
                    let start = Instant::now();
                    let body = conn.post(&format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"message":"hello"}}{meta}}}}}"#
                    ));
                    latencies.push(start.elapsed());
                    assert!(body.contains("Echo: hello"), "unexpected answer: {body}");
                }
                latencies
            })
        })
        .collect();
    let started = Instant::now();
    let mut all: Vec<Duration> = workers.into_iter().flat_map(|w| w.join().expect("worker")).collect();
    let elapsed = started.elapsed().min(Duration::from_secs(seconds)).max(Duration::from_millis(1));
    all.sort();
    let at = |q: f64| all.get(((all.len().max(1) - 1) as f64 * q) as usize).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    println!("http_echo_per_s={:.0}", all.len() as f64 / elapsed.as_secs_f64());
    println!("http_p50_ms={:.3}", at(0.5));
    println!("http_p99_ms={:.3}", at(0.99));
    let calls = all.len().max(1) as f64;
    if !pids.is_empty() {
        println!("http_cpu_us_per_call={:.2}", (cpu(&pids) - cpu_before.0) / calls);
    }
    if pids.len() > 1 {
        println!("http_cpu_us_per_call_first={:.2}", (cpu(&pids[..1]) - cpu_before.1) / calls);
    }
}

/// The tool list a client gets, every page, measured as the gateway measures its own: the bytes
/// of `{"tools":[...]}` in compact JSON.
fn http_tools(url: &str) {
    let mut conn = HttpConn::open(url);
    conn.initialize();
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 1.. {
        let params =
            cursor.as_ref().map_or(String::new(), |c| format!(r#","params":{{"cursor":{}}}"#, serde_json::json!(c)));
        let body = conn.post(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"{params}}}"#));
        // JSON, or one SSE event whose data is the answer.
        let json = body.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or(&body);
        let answer: serde_json::Value =
            serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("tools/list: {e}: {body}"));
        let result = &answer["result"];
        tools.extend(result["tools"].as_array().unwrap_or_else(|| panic!("tools/list: {body}")).iter().cloned());
        cursor = result["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    println!("tools={}", tools.len());
    println!("tools_bytes={}", serde_json::json!({ "tools": tools }).to_string().len());
}

fn http_sessions(n: u64, pid: u32, url: &str) {
    let before = rss_kib(pid, "VmRSS");
    let mut conn = HttpConn::open(url);
    for _ in 0..n {
        conn.session = None;
        conn.initialize();
    }
    std::thread::sleep(Duration::from_millis(200));
    let after = rss_kib(pid, "VmRSS");
    println!("session_rss_kib_each={:.2}", (after.saturating_sub(before)) as f64 / n.max(1) as f64);
}

fn http_streams(n: u64, pid: u32, url: &str) {
    let (rss_before, threads_before) = (rss_kib(pid, "VmRSS"), rss_kib(pid, "Threads"));
    let started = Instant::now();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let mut streams = Vec::new();
    for _ in 0..n {
        let mut conn = HttpConn::open(url);
        conn.initialize();
        let head = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n",
            conn.path,
            conn.addr,
            conn.session.as_deref().unwrap_or_default()
        );
        conn.writer.write_all(head.as_bytes()).expect("write");
        let mut status = String::new();
        conn.reader.read_line(&mut status).expect("read");
        assert!(status.starts_with("HTTP/1.1 200"), "GET stream refused: {status}");
        let seen_tx = seen_tx.clone();
        let reader = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                let mut line = String::new();
                while conn.reader.read_line(&mut line).unwrap_or(0) > 0 {
                    if line.contains("list_changed") {
                        let _ = seen_tx.send(Instant::now());
                    }
                    line.clear();
                }
            })
            .expect("reader thread");
        streams.push(reader);
    }
    let opened = started.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    let (rss_after, threads_after) = (rss_kib(pid, "VmRSS"), rss_kib(pid, "Threads"));
    // One tool-list change reaches every session's stream.
    let mut trigger = HttpConn::open(url);
    trigger.initialize();
    let sent = Instant::now();
    trigger.post(
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"test_trigger_tool_change","arguments":{}}}"#,
    );
    let mut last = sent;
    let mut reached = 0;
    while reached < n {
        match seen_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(at) => {
                last = last.max(at);
                reached += 1;
            }
            Err(_) => break,
        }
    }
    println!("streams_open_s={:.2}", opened.as_secs_f64());
    println!("stream_rss_kib_each={:.1}", rss_after.saturating_sub(rss_before) as f64 / n.max(1) as f64);
    println!("stream_threads_each={:.2}", threads_after.saturating_sub(threads_before) as f64 / n.max(1) as f64);
    println!("broadcast_reached={reached}");
    println!("broadcast_ms={:.1}", last.duration_since(sent).as_secs_f64() * 1000.0);
    std::process::exit(0);
}
