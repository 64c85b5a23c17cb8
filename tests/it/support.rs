//! Test support: spawn the real binary, speak the protocol over its stdio or over Streamable
//! HTTP (`http_link`), match partial JSON, and validate every message the server sends against
//! the spec's JSON schema of the negotiated revision. Every blocking read has a timeout.

use crate::http_link::HttpLink;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How long any single wait may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The revisions with the stateful handshake.
pub const STATEFUL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Path to the binary under test.
/// `TINYMCP_TEST_BINARY` runs the tests against another build (an older one, to watch a test
/// of a fixed attack fail there).
pub fn binary() -> &'static str {
    static BINARY: OnceLock<String> = OnceLock::new();
    BINARY.get_or_init(|| {
        std::env::var("TINYMCP_TEST_BINARY").unwrap_or_else(|_| env!("CARGO_BIN_EXE_tinymcp").to_owned())
    })
}

/// Checks that `actual` contains everything in `expected` (objects partially, arrays and
/// scalars exactly), so adding an optional field breaks no test.
#[track_caller]
pub fn check(actual: &Value, expected: Value) {
    if let Err(path) = matches(actual, &expected, String::new()) {
        panic!(
            "mismatch at {path}\nexpected (partial): {}\nactual: {}",
            serde_json::to_string_pretty(&expected).unwrap_or_default(),
            serde_json::to_string_pretty(actual).unwrap_or_default()
        );
    }
}

fn matches(actual: &Value, expected: &Value, path: String) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (k, ev) in e {
                let av = a.get(k).ok_or_else(|| format!("{path}/{k} (missing)"))?;
                matches(av, ev, format!("{path}/{k}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) if a.len() == e.len() => {
            for (i, (av, ev)) in a.iter().zip(e).enumerate() {
                matches(av, ev, format!("{path}/{i}"))?;
            }
            Ok(())
        }
        (a, e) if a == e => Ok(()),
        (Value::Number(a), Value::Number(e)) if a.as_f64() == e.as_f64() => Ok(()),
        _ => Err(if path.is_empty() { "(root)".into() } else { path }),
    }
}

/// Validates messages against the spec's JSON schemas, `<revision>.schema.json` in
/// `$TINYMCP_SPEC_DIR` or else the repository's `tests/spec/` (kept there, see its README.md).
/// Without them the checks are skipped, said once on stderr; with `TINYMCP_REQUIRE_SPEC=1` (set
/// by `.ci/run`) their absence fails.
pub struct SchemaBook {
    dir: Option<PathBuf>,
    roots: Mutex<HashMap<String, Arc<Value>>>,
}

/// The folder holding the schemas, or `None` when they are absent and that is allowed.
fn spec_dir() -> Option<PathBuf> {
    let explicit = std::env::var_os("TINYMCP_SPEC_DIR").filter(|d| !d.is_empty());
    let dir = match &explicit {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/spec"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    let required = std::env::var("TINYMCP_REQUIRE_SPEC").is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        explicit.is_none() && !required,
        "the spec schemas are required (TINYMCP_SPEC_DIR or TINYMCP_REQUIRE_SPEC is set) but {} is not a folder",
        dir.display()
    );
    // Written to the real stderr, past the test harness's capture, so it shows once per run.
    let _ = writeln!(
        std::io::stderr(),
        "note: spec schemas not found at {}; schema checks skipped. To enable them, set TINYMCP_SPEC_DIR \
         to a folder of <revision>.schema.json files (schema/<revision>/schema.json in \
         github.com/modelcontextprotocol/modelcontextprotocol)",
        dir.display()
    );
    None
}

impl SchemaBook {
    /// The process-wide book.
    pub fn get() -> &'static SchemaBook {
        static BOOK: OnceLock<SchemaBook> = OnceLock::new();
        BOOK.get_or_init(|| SchemaBook { dir: spec_dir(), roots: Mutex::new(HashMap::new()) })
    }

    /// Whether the schemas were found, so `validate` checks anything.
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    fn root(&self, dir: &Path, revision: &str) -> Arc<Value> {
        let mut roots = self.roots.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(root) = roots.get(revision) {
            return Arc::clone(root);
        }
        let path = dir.join(format!("{revision}.schema.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read the spec schema {}: {e}", path.display()));
        let root = Arc::new(serde_json::from_str(&text).expect("spec schema is JSON"));
        roots.insert(revision.to_owned(), Arc::clone(&root));
        root
    }

    /// Panics unless `instance` is valid against definition `name` of `revision`.
    #[track_caller]
    pub fn validate(&self, revision: &str, name: &str, instance: &Value) {
        let Some(dir) = &self.dir else { return };
        let mut schema = (*self.root(dir, revision)).clone();
        let defs_key = if schema.get("$defs").is_some() { "$defs" } else { "definitions" };
        assert!(schema[defs_key].get(name).is_some(), "no definition {name} in the {revision} schema");
        schema["$ref"] = json!(format!("#/{defs_key}/{name}"));
        let validator = jsonschema::validator_for(&schema).expect("spec schema compiles");
        let errors: Vec<String> =
            validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{revision} {name} invalid: {errors:?}\nmessage: {instance}");
    }

    /// The definition a server message must satisfy; `answered` is the method of the request a response answers.
    pub fn definition_for(message: &Value, answered: Option<&str>) -> Option<&'static str> {
        if let Some(error) = message.get("error") {
            // 2026-07-28 types its errors by code (contract §2.2); older schemas lack these names.
            return Some(match error["code"].as_i64() {
                Some(-32020) => "HeaderMismatchError",
                Some(-32021) => "MissingRequiredClientCapabilityError",
                Some(-32022) => "UnsupportedProtocolVersionError",
                _ => "JSONRPCError",
            });
        }
        if message.pointer("/result/resultType") == Some(&json!("input_required")) {
            return Some("InputRequiredResult");
        }
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            return Some(match method {
                "notifications/message" => "LoggingMessageNotification",
                "notifications/progress" => "ProgressNotification",
                "notifications/cancelled" => "CancelledNotification",
                "notifications/resources/updated" => "ResourceUpdatedNotification",
                "notifications/resources/list_changed" => "ResourceListChangedNotification",
                "notifications/tools/list_changed" => "ToolListChangedNotification",
                "notifications/prompts/list_changed" => "PromptListChangedNotification",
                "notifications/elicitation/complete" => "ElicitationCompleteNotification",
                "notifications/tasks/status" => "TaskStatusNotification",
                "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
                "sampling/createMessage" => "CreateMessageRequest",
                "elicitation/create" => "ElicitRequest",
                "roots/list" => "ListRootsRequest",
                "ping" => "PingRequest",
                _ => return None,
            });
        }
        Some(match answered? {
            "initialize" => "InitializeResult",
            "tools/list" => "ListToolsResult",
            "tools/call" if message["result"].get("task").is_some() => "CreateTaskResult",
            "tools/call" => "CallToolResult",
            "tasks/get" => "GetTaskResult",
            "tasks/result" => "GetTaskPayloadResult",
            "tasks/list" => "ListTasksResult",
            "tasks/cancel" => "CancelTaskResult",
            "resources/list" => "ListResourcesResult",
            "resources/templates/list" => "ListResourceTemplatesResult",
            "resources/read" => "ReadResourceResult",
            "prompts/list" => "ListPromptsResult",
            "prompts/get" => "GetPromptResult",
            "completion/complete" => "CompleteResult",
            "server/discover" => "DiscoverResult",
            "subscriptions/listen" => "SubscriptionsListenResult",
            _ => "Result",
        })
    }
}

/// How a test talks to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Lines on the child's stdin and stdout.
    Stdio,
    /// Streamable HTTP on a free loopback port (`--http`).
    Http,
}

enum Link {
    Stdio(Option<ChildStdin>),
    Http(HttpLink),
}

/// A running `tinymcp` and one session with it.
pub struct Client {
    child: Child,
    link: Link,
    lines: Receiver<String>,
    /// Messages read while waiting for something else.
    pub backlog: VecDeque<Value>,
    next_id: i64,
    methods: HashMap<String, String>,
    /// The negotiated revision, once known; every message is then schema-checked.
    pub revision: Option<String>,
    /// What the server wrote on stderr so far, when spawned with [`Client::spawn_keeping_stderr`].
    stderr: Option<Arc<Mutex<String>>>,
}

impl Client {
    /// Spawns `tinymcp` with these arguments (stderr inherited, RUST_LOG=trace so any stray print would show on stdout).
    pub fn spawn(args: &[&str]) -> Client {
        Self::spawn_in(args, None)
    }

    /// Spawns `tinymcp --http 127.0.0.1:0` with these arguments, or over stdio.
    pub fn spawn_over(transport: Transport, args: &[&str]) -> Client {
        Self::spawn_over_in(transport, args, None)
    }

    /// [`Client::spawn_over`] in a working directory.
    pub fn spawn_over_in(transport: Transport, args: &[&str], cwd: Option<&std::path::Path>) -> Client {
        if transport == Transport::Stdio {
            return Self::spawn_in(args, cwd);
        }
        let mut all = args.to_vec();
        all.extend(["--http", "127.0.0.1:0"]);
        let mut client = Self::launch(&all, cwd, Stdio::piped());
        let port = announced_port(&mut client.child);
        let (tx, lines) = mpsc::channel();
        client.lines = lines;
        client.link = Link::Http(HttpLink::connect(port, tx));
        client
    }

    /// Spawns `tinymcp ARGS` where `ARGS` name `--http 127.0.0.1:0` themselves (`proxy`'s flags
    /// come before its command), and talks to it over Streamable HTTP.
    pub fn spawn_http(args: &[&str]) -> Client {
        let mut client = Self::launch(args, None, Stdio::piped());
        let port = announced_port(&mut client.child);
        let (tx, lines) = mpsc::channel();
        client.lines = lines;
        client.link = Link::Http(HttpLink::connect(port, tx));
        client
    }

    /// Another session with the HTTP server this client talks to (its process stays this
    /// client's: the new one holds a stand-in that ends with it).
    pub fn another_session(&self) -> Client {
        Self::spawn_http_at(self.http_port().expect("a client over HTTP"))
    }

    /// A session with an HTTP server on `port` that the test started itself (the client holds
    /// a stand-in process).
    pub fn spawn_http_at(port: u16) -> Client {
        let child = Command::new("sleep").arg("600").stdin(Stdio::null()).spawn().expect("spawn sleep");
        let (tx, lines) = mpsc::channel();
        Client {
            child,
            link: Link::Http(HttpLink::connect(port, tx)),
            lines,
            backlog: VecDeque::new(),
            next_id: 0,
            methods: HashMap::new(),
            revision: None,
            stderr: None,
        }
    }

    /// Spawns over stdio and keeps what the server logs on stderr, for [`Client::stderr_text`].
    pub fn spawn_keeping_stderr(args: &[&str]) -> Client {
        Self::spawn_keeping_stderr_with_env(args, &[])
    }

    /// [`Client::spawn_keeping_stderr`] with these environment variables set.
    pub fn spawn_keeping_stderr_with_env(args: &[&str], env: &[(&str, &str)]) -> Client {
        let mut client = Self::launch_with_env(args, None, Stdio::piped(), env);
        let stderr = client.child.stderr.take().expect("stderr piped");
        let kept = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&kept);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        client.stderr = Some(kept);
        client
    }

    /// What the server wrote on stderr so far (spawned with [`Client::spawn_keeping_stderr`]).
    #[cfg_attr(not(feature = "otlp"), allow(dead_code))]
    pub fn stderr_text(&self) -> String {
        self.stderr.as_ref().expect("spawned with spawn_keeping_stderr").lock().unwrap().clone()
    }

    /// Ends the session like [`Client::close`] and returns all the server wrote on stderr
    /// (spawned with [`Client::spawn_keeping_stderr`]).
    pub fn close_keeping_stderr(mut self) -> String {
        let kept = self.stderr.take().expect("spawned with spawn_keeping_stderr");
        self.close();
        // The reader holds the other reference until it reads the end of stderr.
        eventually("the end of stderr", || Arc::strong_count(&kept) == 1);
        let text = kept.lock().unwrap().clone();
        text
    }

    /// Spawns in a working directory.
    pub fn spawn_in(args: &[&str], cwd: Option<&std::path::Path>) -> Client {
        Self::launch(args, cwd, Stdio::null())
    }

    /// Spawns over stdio with these environment variables set.
    pub fn spawn_with_env(args: &[&str], env: &[(&str, &str)]) -> Client {
        Self::launch_with_env(args, None, Stdio::null(), env)
    }

    fn launch(args: &[&str], cwd: Option<&std::path::Path>, stderr: Stdio) -> Client {
        Self::launch_with_env(args, cwd, stderr, &[])
    }

    fn launch_with_env(args: &[&str], cwd: Option<&std::path::Path>, stderr: Stdio, env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(binary());
        cmd.args(args)
            .envs(env.iter().copied())
            .env("RUST_LOG", "trace")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().expect("spawn tinymcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            link: Link::Stdio(stdin),
            lines,
            backlog: VecDeque::new(),
            next_id: 0,
            methods: HashMap::new(),
            revision: None,
            stderr: None,
        }
    }

    /// Spawns `--everything` and completes the handshake at `revision` with sampling, elicitation and roots declared.
    pub fn everything(revision: &str) -> Client {
        let mut client = Self::spawn(&["--everything"]);
        client.initialize(revision, json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}}));
        client
    }

    /// Performs `initialize` + `notifications/initialized`; returns the initialize result.
    pub fn initialize(&mut self, revision: &str, capabilities: Value) -> Value {
        let res = self.request(
            "initialize",
            json!({"protocolVersion": revision, "capabilities": capabilities, "clientInfo": {"name": "it", "version": "0"}}),
        );
        let negotiated = res["result"]["protocolVersion"].as_str().expect("initialize answered").to_owned();
        self.revision = Some(negotiated);
        self.validate(&res, Some("initialize"));
        self.notify("notifications/initialized", json!({}));
        res["result"].clone()
    }

    /// Writes one raw line.
    pub fn send_line(&mut self, line: &str) {
        let stdin = match &mut self.link {
            Link::Stdio(stdin) => stdin.as_mut().expect("stdin open"),
            Link::Http(http) => return http.send(line),
        };
        stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush())
            .expect("write");
    }

    /// Writes raw bytes followed by a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = match &mut self.link {
            Link::Stdio(stdin) => stdin.as_mut().expect("stdin open"),
            Link::Http(http) => return http.send(&String::from_utf8_lossy(bytes)),
        };
        stdin.write_all(bytes).and_then(|_| stdin.write_all(b"\n")).and_then(|_| stdin.flush()).expect("write");
    }

    /// Sends a message value.
    pub fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Sends a request and returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.methods.insert(id.to_string(), method.to_owned());
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a request and waits for its response (other messages go to the backlog).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(&id)
    }

    /// Sends a request and waits for its response, answering every `roots/list` the server asks
    /// meanwhile with these root URIs.
    pub fn request_with_roots(&mut self, method: &str, params: Value, roots: &[String]) -> Value {
        let id = self.send_request(method, params);
        loop {
            let message =
                self.wait(|m| m["method"] == "roots/list" || (m.get("id") == Some(&id) && m.get("method").is_none()));
            if message["method"] != "roots/list" {
                return message;
            }
            let listed: Vec<Value> = roots.iter().map(|uri| json!({"uri": uri, "name": "r"})).collect();
            self.answer(&message["id"], json!({"roots": listed}));
        }
    }

    /// The port of the server, when spawned over HTTP.
    pub fn http_port(&self) -> Option<u16> {
        match &self.link {
            Link::Http(link) => Some(link.port()),
            Link::Stdio(_) => None,
        }
    }

    /// `tools/call` with these arguments; the whole answer.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Waits for the response with `id`.
    pub fn response(&mut self, id: &Value) -> Value {
        let id = id.clone();
        self.wait(move |m| m.get("id") == Some(&id) && m.get("method").is_none())
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Answers a server request.
    pub fn answer(&mut self, id: &Value, result: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// Reads the next message from the process, parsing and schema-checking it.
    pub fn next_message(&mut self, timeout: Duration) -> Option<Value> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                let value: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                let frames = value.as_array().cloned().unwrap_or_else(|| vec![value.clone()]);
                assert!(frames.iter().all(|f| f["jsonrpc"] == "2.0"), "not JSON-RPC: {line}");
                if value.is_array() {
                    return Some(value);
                }
                let answered = value.get("id").and_then(|id| self.methods.get(&id.to_string())).cloned();
                self.validate(&value, answered.as_deref());
                Some(value)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Waits for a message matching `pred`, from the backlog first.
    pub fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).expect("index valid");
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.next_message(left).unwrap_or_else(|| panic!("timed out; backlog: {:?}", self.backlog));
            if pred(&message) {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Sends a `ping` and returns every message read before its answer, the backlog's first:
    /// what a test checks did NOT arrive, without waiting out a window. See [`Client::barrier`].
    pub fn settle(&mut self) -> Vec<Value> {
        self.barrier("ping", json!({}))
    }

    /// Sends `method` and returns every message read before its answer, the backlog's first.
    /// Over stdio the server has one writer: whatever it queued before it answered this request
    /// has been written before the answer, and a request's own messages travel before its
    /// response. So once a test has the answer of the request that could have caused a message
    /// (or the message of a later tick of a single-threaded watcher), this proves its absence.
    /// Over HTTP only this request's own answer stream is ordered, not the GET stream.
    pub fn barrier(&mut self, method: &str, params: Value) -> Vec<Value> {
        let id = self.send_request(method, params);
        let answer = self.response(&id);
        assert!(answer.get("result").is_some(), "the barrier {method} failed: {answer}");
        self.backlog.drain(..).collect()
    }

    /// Collects messages for `window` (for checking that something does NOT arrive, where no
    /// event proves it: prefer [`Client::settle`]).
    pub fn drain(&mut self, window: Duration) -> Vec<Value> {
        let deadline = Instant::now() + window;
        let mut seen: Vec<Value> = self.backlog.drain(..).collect();
        while let Some(m) = self.next_message(deadline.saturating_duration_since(Instant::now())) {
            seen.push(m);
        }
        seen
    }

    fn validate(&self, message: &Value, answered: Option<&str>) {
        let Some(revision) = &self.revision else { return };
        // JSON-RPC answers an unreadable message with `id: null`, which MCP's schemas do not describe.
        if message.get("id") == Some(&Value::Null) {
            return;
        }
        if let Some(def) = SchemaBook::definition_for(message, answered) {
            let def = if def.ends_with("Error")
                && revision.as_str() >= "2025-11-25"
                && (def == "JSONRPCError" || revision.as_str() < "2026-07-28")
            {
                "JSONRPCErrorResponse"
            } else if def.ends_with("Error") && revision.as_str() < "2025-11-25" {
                "JSONRPCError"
            } else {
                def
            };
            if def.ends_with("Result") || def == "Result" {
                SchemaBook::get().validate(revision, def, &message["result"]);
            } else {
                SchemaBook::get().validate(revision, def, message);
            }
        }
    }

    /// The server's process id (to send it a signal).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the server to exit by itself, stdin still open (bounded by `within`).
    pub fn exit_within(&mut self, within: Duration) -> std::process::ExitStatus {
        let child = &mut self.child;
        wait_for("the server to exit", within, || child.try_wait().expect("wait"))
    }

    /// Closes stdin and waits for the exit status (bounded).
    pub fn close(mut self) -> std::process::ExitStatus {
        match &mut self.link {
            Link::Stdio(stdin) => drop(stdin.take()),
            Link::Http(_) => panic!("close is for stdio: an HTTP server outlives its sessions"),
        }
        let child = &mut self.child;
        wait_for("the server to exit after end of input", TIMEOUT, || child.try_wait().expect("wait"))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh folder under the system temp dir, removed on drop. Canonical, so `file://` URIs
/// built from it match the server's.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `tinymcp-it-<label>-<pid>-<n>`.
    pub fn new(label: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("tinymcp-it-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir { path: std::fs::canonicalize(&path).expect("canonical temp dir") }
    }

    /// The folder.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The folder as a string argument.
    pub fn arg(&self) -> &str {
        self.path.to_str().expect("UTF-8 temp path")
    }

    /// Writes a file (creating its folders) and returns its path.
    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create folders");
        }
        std::fs::write(&path, contents).expect("write file");
        path
    }

    /// The `file://` URI of a file in it, percent-encoded the way the server spells it.
    pub fn uri(&self, relative: &str) -> String {
        let mut out = String::from("file://");
        for b in self.path.join(relative).to_str().expect("UTF-8").bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Reads an SSE answer from `stream` (a request just written) until its first
/// `notifications/progress` event, then hangs up: the id of the last event read, to resume
/// after with `Last-Event-ID`.
pub fn last_id_at_first_progress(stream: std::net::TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut seen = String::new();
    while !seen.contains("notifications/progress") {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).expect("read the stream") > 0, "the stream ended first: {seen}");
        seen.push_str(&line);
    }
    seen.lines().rev().find_map(|l| l.strip_prefix("id: ")).expect("an event id").to_owned()
}

/// The text blocks of a tool result, joined by newlines (empty for an error answer).
pub fn tool_text(answer: &Value) -> String {
    answer["result"]["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

/// Runs the binary to completion (for one-shot commands such as `--check` and `config`), bounded.
pub fn run_binary(args: &[&str]) -> std::process::Output {
    run_binary_in(args, None, &[])
}

/// Runs the binary as `run_binary` does, in the folder `cwd` when given, with `env` set (a
/// `None` value removes the variable).
pub fn run_binary_in(
    args: &[&str],
    cwd: Option<&std::path::Path>,
    env: &[(&str, Option<&str>)],
) -> std::process::Output {
    let mut command = Command::new(binary());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let child = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tinymcp");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    rx.recv_timeout(TIMEOUT).expect("tinymcp finished in time").expect("output")
}

/// Whether a process is gone (absent, or a zombie nobody reaped yet).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command name in parentheses: `pid (comm) S ...`.
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

/// Waits until `ready` holds, looking again and again (every few milliseconds, backing off to
/// 50 ms), for at most `within`; else fails naming `what`. The one way a test waits for an
/// effect outside the protocol (a process gone, a file written, threads come back, a session
/// expired): never a fixed sleep, which is too short on a loaded machine and too long elsewhere.
#[track_caller]
pub fn wait_until(what: &str, within: Duration, mut ready: impl FnMut() -> bool) {
    wait_for(what, within, || ready().then_some(()))
}

/// `wait_until` for a value: waits until `found` gives one, and returns it.
#[track_caller]
pub fn wait_for<T>(what: &str, within: Duration, mut found: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + within;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {within:?} waiting for {what}");
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// `wait_until` bounded by `TIMEOUT`.
#[track_caller]
pub fn eventually(what: &str, ready: impl FnMut() -> bool) {
    wait_until(what, TIMEOUT, ready)
}

/// Runs each named `fn(Transport)` as two tests, `<name>::stdio` and `<name>::http`.
macro_rules! over_both_transports {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn stdio() {
                super::$name($crate::support::Transport::Stdio)
            }

            #[test]
            fn http() {
                super::$name($crate::support::Transport::Http)
            }
        }
    )*};
}
pub(crate) use over_both_transports;

/// Reads the stderr of a server started with `--http 127.0.0.1:0` (logging at info or finer) up
/// to the line naming the port the OS gave it, then drains the rest in a thread. A port picked by
/// the test and freed before the server binds it can be taken in between, by another test's
/// server or by any socket's source port.
pub fn announced_port(child: &mut Child) -> u16 {
    announced_port_keeping_log(child).0
}

/// What a server wrote to stderr so far, kept for a test to wait on (`wait_until` a line).
pub type Log = Arc<Mutex<String>>;

/// `announced_port`, keeping the rest of stderr in a `Log`: the events a test waits for that
/// the protocol does not show (a frame read at `RUST_LOG=tinymcp=debug`, a session expired).
pub fn announced_port_keeping_log(child: &mut Child) -> (u16, Log) {
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    let port = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| line.split_once("listening on http://127.0.0.1:")?.1.split('/').next()?.parse().ok())
        .expect("the HTTP server did not start");
    let log = Log::default();
    let kept = Arc::clone(&log);
    thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
            // Bounded: a chatty server must not fill the test's memory.
            if kept.len() < 16 << 20 {
                kept.push_str(&line);
                kept.push('\n');
            }
        }
    });
    (port, log)
}

/// Whether `log` holds `text` yet.
pub fn logged(log: &Log, text: &str) -> bool {
    log.lock().unwrap_or_else(PoisonError::into_inner).contains(text)
}

/// Runs `tinymcp --everything --http 127.0.0.1:0 ARGS` and expects it to exit non-zero
/// within 5 s, without serving: its stderr.
pub fn refuses_to_start(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::new(binary());
    command.args(["--everything", "--http", "127.0.0.1:0"]).args(args).env_remove("TINYMCP_TOKEN");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = wait_for("the server to refuse to start", Duration::from_secs(10), || {
        let status = child.try_wait().unwrap();
        if status.is_none() && Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} {env:?}: started and served");
        }
        status
    });
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(!status.success(), "{args:?}: {stderr}");
    stderr
}

/// A server on raw stdio, initialized, for tests that pace their own requests (the symlink race
/// tests): the child, its stdin, and its stdout's lines as they come.
pub fn raw_stdio(args: &[&str]) -> (Child, ChildStdin, Receiver<String>) {
    let mut server = Command::new(binary())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tinymcp");
    let mut input = server.stdin.take().expect("piped stdin");
    let (tx, lines) = mpsc::channel();
    let stdout = server.stdout.take().expect("piped stdout");
    thread::spawn(move || BufReader::new(stdout).lines().map_while(Result::ok).try_for_each(|l| tx.send(l)));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "race", "version": "0"}}});
    writeln!(input, "{init}\n{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).expect("write");
    lines.recv_timeout(TIMEOUT).expect("an answer to initialize");
    (server, input, lines)
}
