#!/usr/bin/env bash
# The road of one `tools/call`: which library files (the core's, src/, and tinymcp-http's,
# crates/tinymcp-http/src/) run code for it, from the byte read to the
# byte written, on stdio and on Streamable HTTP, with the handshake (2025-11-25) and at
# 2026-07-28. Counted, not read: a debug build (no inlining, so code is where its file is) runs
# under callgrind twice, with none and with N calls after the same start; a file counts when its
# own instructions grow by at least one per call. The binary's own files (the `--everything`
# fixture's echo tool, in the tinymcp-cli crate) are listed apart. Needs valgrind.
#
# `scripts/walk.sh [N]` prints, per road, the files with their instructions per call, and the
# instructions per call of the whole process (std, dependencies and the kernel's entry code
# included). `WALK_FUNCTIONS=1` lists each file's functions under it.
# `scripts/walk.sh --release [N]`: the release build instead, totals only (its inlining moves
# code across files, so only the total means anything): the CPU figure of one call, counted,
# not timed, so two trees compare on a busy machine. `WALK_BIN=path` counts that binary (built
# elsewhere, e.g. another tree's) instead of building this tree's. `WALK_CAPABILITIES=JSON`: the
# client capabilities each 2026-07-28 call carries (`{}` unless set).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
PROFILE=debug
if [ "${1:-}" = --release ]; then
  PROFILE=release
  shift
fi
N=${1:-200}
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
  skip "valgrind (callgrind) is not installed: apt install valgrind"
fi
if [ -n "${WALK_BIN:-}" ]; then
  BIN=$WALK_BIN
elif [ "$PROFILE" = release ]; then
  cargo build --quiet --release --bin tinymcp
  BIN=${CARGO_TARGET_DIR:-target}/release/tinymcp
else
  cargo build --quiet --bin tinymcp
  BIN=${CARGO_TARGET_DIR:-target}/debug/tinymcp
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$BIN" "$N" "$work" "$PWD" "$PROFILE" "${WALK_FUNCTIONS:-0}" "${WALK_CAPABILITIES:-{\}}" <<'PY'
import collections, json, os, re, signal, socket, subprocess, sys, time

binary, n, work, root, profile, functions = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] == "1"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": json.loads(sys.argv[7])}
INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "walk", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(i, meta):
    params = {"name": "echo", "arguments": {"message": "hello"}}
    if meta:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def callgrind(out, args, stdin=None):
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "--everything", *args]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def stdio(out, calls, meta):
    lines = [] if meta else [INIT, INITIALIZED]
    lines += [call(i, meta) for i in range(calls)]
    if meta and not calls:
        lines = [{"jsonrpc": "2.0", "id": "p", "method": "ping", "params": {"_meta": META}}]
    proc = callgrind(out, [], stdin=True)
    answers = proc.communicate("".join(json.dumps(m) + "\n" for m in lines).encode(), timeout=600)[0]
    assert answers.count(b'"Echo: hello"') == calls, "every call answered"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(conn, body, headers):
    conn.request("POST", "/mcp", json.dumps(body), {"Content-Type": "application/json",
                                                     "Accept": "application/json, text/event-stream", **headers})
    response = conn.getresponse()
    return response, response.read()


def http(out, calls, meta):
    import http.client
    port = free_port()
    proc = callgrind(out, ["--http", f"127.0.0.1:{port}"])
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    if meta:
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
        if not calls:
            post(conn, {"jsonrpc": "2.0", "id": "p", "method": "ping", "params": {"_meta": META}},
                 {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "ping"})
    else:
        response, _ = post(conn, INIT, {})
        headers = {"Mcp-Session-Id": response.getheader("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
        post(conn, INITIALIZED, headers)
    for i in range(calls):
        _, body = post(conn, call(i, meta), headers)
        assert b"Echo: hello" in body, body
    conn.close()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def own_instructions(out):
    """The instructions of each of our files, of each of its functions, and of the whole run."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True).stdout
    files, funcs, total = collections.Counter(), collections.Counter(), 0
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
        # Our files are named from the repository's root, or relative to it; std's and the
        # dependencies' are elsewhere.
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(?:" + re.escape(root) + r"/)?((?:src|crates/[^/]+/src)/[^:]+):(.*?)(?: \[[^]]*\])?$", line)
        if m:
            files[m.group(2)] += int(m.group(1).replace(",", ""))
            funcs[(m.group(2), m.group(3))] += int(m.group(1).replace(",", ""))
    return files, funcs, total


for name, run, meta in [("stdio, 2025-11-25 session", stdio, False), ("stdio, 2026-07-28", stdio, True),
                        ("Streamable HTTP, 2025-11-25 session", http, False), ("Streamable HTTP, 2026-07-28", http, True)]:
    base, full = f"{work}/base", f"{work}/full"
    run(base, 0, meta)
    run(full, n, meta)
    (before, before_funcs, before_total), (after, after_funcs, after_total) = own_instructions(base), own_instructions(full)
    per_call = (after_total - before_total) / n
    if profile == "release":
        print(f"{name}: {per_call:.0f} instructions per tools/call (release build, whole process)")
        continue
    grown = {f: (after[f] - before.get(f, 0)) / n for f in after if after[f] - before.get(f, 0) >= n}
    # src/lib.rs holds no code (re-exports): what debug info names there is inlined std code.
    # (tinymcp-http's lib.rs is code, the HTTP routing: counted.)
    library = {f: v for f, v in grown.items() if f != "src/lib.rs" and not f.startswith("crates/tinymcp-cli/")}
    print(f"{name}: a tools/call runs code in {len(library)} library files (instructions per call;"
          f" {per_call:.0f} in all, debug build)")
    for f, v in sorted(library.items(), key=lambda kv: -kv[1]):
        print(f"  {v:8.0f}  {f}")
        if functions:
            grown_funcs = {fn: (c - before_funcs.get((g, fn), 0)) / n for (g, fn), c in after_funcs.items() if g == f}
            for fn, c in sorted(grown_funcs.items(), key=lambda kv: -kv[1]):
                if c >= 1:
                    print(f"            {c:8.0f}  {fn}")
    others = sorted(f for f in grown if f.startswith("crates/tinymcp-cli/"))
    if others:
        print(f"  and the binary's: {', '.join(others)}")
PY
