#!/usr/bin/env python3
"""The store part of the scale test (scripts/scale-test.sh): replicas started with
`--store redis://...`, spoken to directly (each replica's own port) or through nginx, at
2026-07-28 with the tasks extension. One step per call, the script between them kills and
starts processes:

  cancel   R1 R2 R3         a 60 s task started on R1, polled on R2, cancelled on R3: the work
                            on R1 stops (R1's own task reads cancelled)
  start    R                a 60 s task started on R: prints its id
  failed   R ID SECONDS     task ID reads `failed` on R, saying its replica stopped, within SECONDS
  down     URL R            the store is down: an echo call through URL is answered, a task call
                            on R fails naming the store
  back     R SECONDS        the store is back: a task call on R succeeds within SECONDS

R is HOST:PORT of a replica, URL nginx's. Prints one line per step; exits 1 on a failure.
"""

import json
import sys
import time
import urllib.error
import urllib.request

EXT = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXT: {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "scale-store", "version": "0"},
}


def post(base, method, params, name=None):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
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
        print(start(argv[1]))
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
    else:
        raise SystemExit(f"unknown step {step}")


if __name__ == "__main__":
    main(sys.argv[1:])
