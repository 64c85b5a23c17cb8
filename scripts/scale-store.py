#!/usr/bin/env python3
"""The store part of the scale test (scripts/scale-test.sh): replicas started with
`--store redis://...`, spoken to directly (each replica's own port) or through nginx, at
2026-07-28 with the tasks extension. One step per call, the script between them kills and
starts processes:

  cancel   R1 R2 R3         a 60 s task started on R1, polled on R2, cancelled on R3: the work
                            on R1 stops (R1's own task reads cancelled)
  start    R [SECONDS]      a task of SECONDS (60) started on R: prints its id
  drained  R SHORT LONG     after the replica running them drained (SIGTERM): task SHORT reads
                            completed with its result on R, task LONG failed saying its replica
                            shut down, at once
  failed   R ID SECONDS     task ID reads `failed` on R, saying its replica stopped, within SECONDS
  down     URL R            the store is down: an echo call through URL is answered, a task call
                            on R fails naming the store
  back     R SECONDS        the store is back: a task call on R succeeds within SECONDS
  update   URL R1 R2 R3     a task started on R1 asks for input (read on R2), answered with
                            tasks/update on R2, another on R3 (not through nginx, which routes
                            a task's methods to its replica): each completes on R1 with its
                            answer, read through URL
  notify   R1 R2 R3         a 2026-07-28 listen stream on R1 and a 2025-11-25 GET stream on R2
                            (both subscribed to readme.txt) each hear once a change of readme.txt
                            and a new file, both written through R3 (`write_file`), and a tool
                            list change on R3 (`test_trigger_tool_change`, called again after to
                            put R3's tools back)
  resume   R1 R2            a 2025-11-25 POST stream on R1 cut after its first event, resumed with
                            Last-Event-ID on R2: exactly the events it missed, with R1's ids

R is HOST:PORT of a replica, URL nginx's. Prints one line per step; exits 1 on a failure.
"""

import http.client
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request

EXT = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXT: {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "scale-store", "version": "0"},
}


def post(base, method, params, name=None, meta=META):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name:
        headers["Mcp-Name"] = name
    url = base if base.startswith("http") else f"http://{base}/mcp"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read().decode()
    except urllib.error.HTTPError as e:
        text = e.read().decode()
    # An SSE answer: the last data line is the response.
    if text.startswith("event:") or text.startswith("data:") or "\ndata: " in text:
        text = [l[6:] for l in text.splitlines() if l.startswith("data: ")][-1]
    return json.loads(text)


OLD = "2025-11-25"


def old_session(replica):
    """A 2025-11-25 session on `replica` (HOST:PORT), initialized: its id."""
    host, port = replica.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": OLD,
            "capabilities": {}, "clientInfo": {"name": "scale-store", "version": "0"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", "/mcp", json.dumps(init), headers)
    answer = conn.getresponse()
    session = answer.getheader("Mcp-Session-Id")
    answer.read()
    if answer.status != 200 or not session:
        raise SystemExit(f"FAILED: initialize on {replica}: HTTP {answer.status}")
    headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": OLD})
    conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers)
    conn.getresponse().read()
    conn.close()
    return session


def old_post(replica, session, message):
    """One 2025-11-25 request in `session`: its response (the last data line of an SSE answer)."""
    host, port = replica.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Mcp-Session-Id": session, "MCP-Protocol-Version": OLD}
    conn.request("POST", "/mcp", json.dumps(message), headers)
    text = conn.getresponse().read().decode()
    conn.close()
    if "data: " in text:
        text = [l[6:] for l in text.splitlines() if l.startswith("data: ")][-1]
    return json.loads(text)


def events(response):
    """(id, message) of each SSE event of `response`, as they come (ends with the stream)."""
    event_id, data = None, []
    while True:
        line = response.readline().decode("utf-8", "replace")
        if not line:
            return
        line = line.rstrip("\r\n")
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line:
            if "".join(data):  # not the empty priming event a stream may begin with
                yield event_id, json.loads("\n".join(data))
            event_id, data = None, []


def notify(r1, r2, r3):
    readme = next(r["uri"] for r in post(r1, "resources/list", {})["result"]["resources"] if r["uri"].endswith("/readme.txt"))
    post(r2, "resources/list", {})  # each watcher has looked at the folder once a listing was walked
    heard = {"r1 listen": [], "r2 GET": []}
    # The listen stream on r1 (2026-07-28).
    host, port = r1.rsplit(":", 1)
    listen_conn = http.client.HTTPConnection(host, int(port), timeout=15)
    listen = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourcesListChanged": True, "toolsListChanged": True, "resourceSubscriptions": [readme]},
        "_meta": META}}
    listen_conn.request("POST", "/mcp", json.dumps(listen), {
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
    listening = listen_conn.getresponse()
    first = next(events(listening))[1].get("method")
    if first != "notifications/subscriptions/acknowledged":
        raise SystemExit(f"FAILED: the listen stream on r1 began with {first}")
    # The GET stream of a 2025-11-25 session on r2, subscribed to readme.txt.
    session = old_session(r2)
    subscribed = old_post(r2, session, {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": readme}})
    if "result" not in subscribed:
        raise SystemExit(f"FAILED: resources/subscribe on r2: {subscribed}")
    host, port = r2.rsplit(":", 1)
    get_conn = http.client.HTTPConnection(host, int(port), timeout=15)
    get_conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session, "MCP-Protocol-Version": OLD})
    getting = get_conn.getresponse()
    if getting.status != 200:
        raise SystemExit(f"FAILED: the GET stream on r2: HTTP {getting.status}")

    def collect(name, response):
        try:
            for _, message in events(response):
                if "method" in message:
                    heard[name].append((message["method"], message.get("params", {}).get("uri")))
        except Exception:  # the socket closed below, or timed out: the count is what was heard
            pass

    threads = [threading.Thread(target=collect, args=a, daemon=True) for a in (("r1 listen", listening), ("r2 GET", getting))]
    for t in threads:
        t.start()
    # Two watcher ticks (--watch-interval 250): a listen stream's resourceSubscriptions are
    # stamped by its replica's watcher at its next tick (not at once, as resources/subscribe is),
    # so a change before that tick is not one it can tell.
    time.sleep(0.6)
    added = f"added-{os.getpid()}.txt"
    for path, content in ((os.path.basename(readme), "changed through r3\n"), (added, "new through r3\n")):
        wrote = post(r3, "tools/call", {"name": "write_file", "arguments": {"path": path, "content": content}}, "write_file")
        if wrote.get("result", {}).get("isError") or "error" in wrote:
            raise SystemExit(f"FAILED: write_file {path} on r3: {wrote}")

    def toggle_tool():
        changed = post(r3, "tools/call", {"name": "test_trigger_tool_change", "arguments": {}}, "test_trigger_tool_change")
        if "error" in changed:
            raise SystemExit(f"FAILED: test_trigger_tool_change on r3: {changed}")

    toggle_tool()
    want = [("notifications/resources/updated", readme), ("notifications/resources/list_changed", None),
            ("notifications/tools/list_changed", None)]
    t0 = time.monotonic()
    try:
        wait("both streams to hear both changes", 10, lambda: all(all(w in got for w in want) for got in heard.values()))
    except SystemExit as e:
        raise SystemExit(f"{e}: heard {heard}")
    took = time.monotonic() - t0
    time.sleep(1.0)  # four watcher intervals more: a second copy of either would be here by now
    for conn in (listen_conn, get_conn):
        conn.sock.shutdown(2)
        conn.close()
    toggle_tool()  # r3's tools as they were (the dynamic tool removed again), heard by nobody here
    for name, got in heard.items():
        counts = {w: got.count(w) for w in want}
        if any(n != 1 for n in counts.values()):
            raise SystemExit(f"FAILED: the {name} stream heard {got}, want each of {want} once")
    print(f"a listen stream on r1 and a GET stream on r2 each heard once readme.txt updated and a new file, both written through r3, and r3's tool list change (within {took:.2f} s)")


def resume(r1, r2):
    session = old_session(r1)
    host, port = r1.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    call = {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
            "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "r"}}}
    conn.request("POST", "/mcp", json.dumps(call), {"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", "Mcp-Session-Id": session, "MCP-Protocol-Version": OLD})
    answer = conn.getresponse()
    last_id, first = next(events(answer))
    if first.get("method") != "notifications/progress" or not last_id:
        raise SystemExit(f"FAILED: the POST stream on r1 began with {last_id} {first}")
    conn.sock.shutdown(2)  # cut mid-way: two progress events and the response are still to come
    conn.close()
    host, port = r2.rsplit(":", 1)

    def resumed():
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session,
                  "MCP-Protocol-Version": OLD, "Last-Event-ID": last_id})
        r = c.getresponse()
        if r.status != 200:  # the store a few milliseconds behind: asked again
            r.read()
            return None
        return list(events(r))

    got = wait("the stream to resume on r2", 10, resumed)
    stream, seq = last_id.rsplit("-", 1)
    ids = [i for i, _ in got]
    want_ids = [f"{stream}-{int(seq) + n}" for n in (1, 2, 3)]
    progress = [m.get("params", {}).get("progress") for _, m in got[:-1]]
    if ids != want_ids or progress != [50.0, 100.0] or got[-1][1].get("id") != 8 or "result" not in got[-1][1]:
        raise SystemExit(f"FAILED: resumed on r2 after {last_id}: {got}")
    print(f"a 2025-11-25 POST stream cut on r1 after event {last_id}, resumed on r2 with Last-Event-ID: exactly the 3 events it missed ({', '.join(ids)}: progress 50, 100, the response)")


def update(url, r1, r2, r3):
    # The client answers elicitations: the tool asks through the task's inputRequests.
    meta = {**META, "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXT: {}}, "elicitation": {}}}
    took = []
    for answered_on in (r2, r3):
        name = f"u{len(took)}-{os.getpid()}.txt"
        created = post(r1, "tools/call", {"name": "confirm_delete", "arguments": {"filename": name}}, "confirm_delete", meta)
        task = created.get("result", {}).get("taskId")
        if not task:
            raise SystemExit(f"FAILED: no task from r1: {created}")
        asked = wait("the task to ask for input, read on r2", 10,
                     lambda: (lambda g: g if g.get("result", {}).get("status") == "input_required" else None)(get(r2, task)))
        key = next(iter(asked["result"].get("inputRequests", {})), None)
        if not key:
            raise SystemExit(f"FAILED: no input request: {asked}")
        t0 = time.monotonic()
        ack = post(answered_on, "tasks/update", {"taskId": task, "inputResponses": {
            key: {"action": "accept", "content": {"confirm": True}}}}, task)
        if "error" in ack:
            raise SystemExit(f"FAILED: tasks/update on {answered_on}: {ack}")
        done = wait("the task to complete with the answer, read through nginx", 10,
                    lambda: (lambda g: g if g.get("result", {}).get("status") in ("completed", "failed") else None)(get(url, task)))
        text = done["result"].get("result", {}).get("content", [{}])[0].get("text")
        if text != f"Deleted {name}":
            raise SystemExit(f"FAILED: the task answered on {answered_on}: {done}")
        took.append(f"{time.monotonic() - t0:.2f}")
    print(f"tasks started on r1 asking for input, answered with tasks/update on r2 and on r3: each completed on r1 with its answer, read through nginx ({took[0]} s, {took[1]} s after the update)")


def start(replica, seconds=60):
    created = post(replica, "tools/call", {"name": "slow_compute", "arguments": {"seconds": seconds}}, "slow_compute")
    task = created.get("result", {}).get("taskId")
    if not task:
        raise SystemExit(f"no task from {replica}: {created}")
    return task


def get(replica, task):
    return post(replica, "tasks/get", {"taskId": task}, task)


def wait(what, seconds, check):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"FAILED: {what} not within {seconds} s")
        time.sleep(0.05)


def main(argv):
    step = argv[0]
    if step == "cancel":
        r1, r2, r3 = argv[1:4]
        task = start(r1)
        polled = get(r2, task)["result"]["status"]
        if polled != "working":
            raise SystemExit(f"FAILED: polled on r2: {polled}")
        cancelled = post(r3, "tasks/cancel", {"taskId": task}, task)
        if "error" in cancelled:
            raise SystemExit(f"FAILED: cancel on r3: {cancelled}")
        t0 = time.monotonic()
        wait("the work on r1 to hear the cancel", 10, lambda: get(r1, task)["result"]["status"] == "cancelled")
        print(f"a 60 s task started on r1, polled on r2 (working), cancelled on r3: r1's work stopped {time.monotonic() - t0:.2f} s later")
    elif step == "start":
        print(start(argv[1], float(argv[2]) if len(argv) > 2 else 60))
    elif step == "drained":
        replica, short, long = argv[1:4]
        done, failed = get(replica, short).get("result", {}), get(replica, long).get("result", {})
        text = done.get("result", {}).get("content", [{}])[0].get("text", "")
        if done.get("status") != "completed" or not text.startswith("job finished"):
            raise SystemExit(f"FAILED: the short task of the drained replica: {done}")
        message = failed.get("error", {}).get("message", "")
        if failed.get("status") != "failed" or "shut down" not in message:
            raise SystemExit(f"FAILED: the long task of the drained replica: {failed}")
        print(f"r1 drained (SIGTERM) with two tasks running: read on r2 at once, the 2 s one completed ({text}), the 60 s one failed: {message}")
    elif step == "failed":
        replica, task, seconds = argv[1], argv[2], float(argv[3])
        t0 = time.monotonic()
        got = wait("the task to fail", seconds, lambda: (lambda g: g if g.get("result", {}).get("status") != "working" else None)(get(replica, task)))
        result = got.get("result", {})
        message = result.get("error", {}).get("message", "")
        if result.get("status") != "failed" or "replica running it stopped" not in message:
            raise SystemExit(f"FAILED: the killed replica's task: {got}")
        print(f"the task of the SIGKILLed replica read failed {time.monotonic() - t0:.2f} s after the kill: {message}")
    elif step == "down":
        url, replica = argv[1], argv[2]
        echo = post(url, "tools/call", {"name": "echo", "arguments": {"message": "hi"}}, "echo")
        if echo.get("result", {}).get("content", [{}])[0].get("text") != "Echo: hi":
            raise SystemExit(f"FAILED: echo with the store down: {echo}")
        refused = post(replica, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}}, "slow_compute")
        message = refused.get("error", {}).get("message", "")
        if "redis://" not in message:
            raise SystemExit(f"FAILED: a task with the store down: {refused}")
        print(f"store down: echo through nginx answered; a task call refused: {message}")
    elif step == "back":
        replica, seconds = argv[1], float(argv[2])
        t0 = time.monotonic()

        def created():
            answer = post(replica, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}}, "slow_compute")
            return answer.get("result", {}).get("taskId")

        task = wait("a task once the store is back", seconds, created)
        wait("the task to complete", 10, lambda: get(replica, task)["result"]["status"] == "completed")
        print(f"store back: a task made and completed {time.monotonic() - t0:.2f} s after the restart")
    elif step == "update":
        update(*argv[1:5])
    elif step == "notify":
        notify(*argv[1:4])
    elif step == "resume":
        resume(*argv[1:3])
    else:
        raise SystemExit(f"unknown step {step}")


if __name__ == "__main__":
    main(sys.argv[1:])
