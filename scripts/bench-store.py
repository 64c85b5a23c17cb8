#!/usr/bin/env python3
"""`scripts/bench.sh store`: the cost of the store (--store) measured by one client, the same way
against servers without and with it. Prints `name=value` lines:

  task   URL SECONDS          task round-trips of a 2025-11-25 session (tools/call as a task,
                              tasks/get until completed, tasks/result) on one keep-alive
                              connection for SECONDS: task_ms (mean per round-trip), tasks
  fanout URL-A URL-B N ROUNDS N 2026-07-28 listen streams, half on A and half on B (the same
                              server twice without a store), a tool list change made on A
                              ROUNDS times: fanout_ms (median until every stream heard it)
"""

import http.client
import json
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit

OLD = "2025-11-25"
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}


class Client:
    def __init__(self, url):
        self.parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(self.parts.hostname, self.parts.port, timeout=10)
        self.headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        self.next_id = 0

    def send(self, method, params=None, notification=False):
        body = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notification:
            self.next_id += 1
            body["id"] = self.next_id
        self.conn.request("POST", self.parts.path, json.dumps(body), self.headers)
        answer = self.conn.getresponse()
        text = answer.read().decode()
        if answer.getheader("Mcp-Session-Id"):
            self.headers.update({"Mcp-Session-Id": answer.getheader("Mcp-Session-Id"), "MCP-Protocol-Version": OLD})
        if notification:
            return None
        if "data: " in text:
            text = [l[6:] for l in text.splitlines() if l.startswith("data: ")][-1]
        message = json.loads(text)
        if "error" in message:
            raise SystemExit(f"{method}: {message['error']}")
        return message["result"]


def task(url, seconds):
    client = Client(url)
    client.send("initialize", {"protocolVersion": OLD, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    client.send("notifications/initialized", notification=True)
    done, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        created = client.send("tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}, "task": {"ttl": 60000}})
        task_id = created["task"]["taskId"]
        while client.send("tasks/get", {"taskId": task_id})["status"] != "completed":
            pass
        client.send("tasks/result", {"taskId": task_id})
        done += 1
    print(f"task_ms={(time.monotonic() - started) * 1000 / done:.3f}")
    print(f"tasks={done}")


def listen(url):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    body = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": True},
        "_meta": MODERN}}
    conn.request("POST", parts.path, json.dumps(body), {
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
    response = conn.getresponse()
    while b"acknowledged" not in (line := response.readline()):
        if not line or b'"error"' in line:
            raise SystemExit(f"listen: {line!r}")
    return conn, response


def fanout(url_a, url_b, streams, rounds):
    opened = [listen(url_a if i % 2 == 0 else url_b) for i in range(streams)]
    heard = [0] * streams
    lock = threading.Condition()

    def read(i, response):
        try:
            while True:
                line = response.readline()
                if not line:
                    return
                if b"notifications/tools/list_changed" in line:
                    with lock:
                        heard[i] += 1
                        lock.notify_all()
        except OSError:
            return

    for i, (_, response) in enumerate(opened):
        threading.Thread(target=read, args=(i, response), daemon=True).start()
    trigger = Client(url_a)
    trigger.headers.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "test_trigger_tool_change"})
    meta = MODERN
    times = []
    for n in range(1, rounds + 1):
        t0 = time.monotonic()
        trigger.send("tools/call", {"name": "test_trigger_tool_change", "arguments": {}, "_meta": meta})
        with lock:
            if not lock.wait_for(lambda: min(heard) >= n, timeout=10):
                raise SystemExit(f"round {n}: {sum(1 for h in heard if h >= n)} of {streams} streams heard it")
        times.append((time.monotonic() - t0) * 1000)
    print(f"fanout_ms={statistics.median(times):.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "task":
        task(sys.argv[2], float(sys.argv[3]))
    elif sys.argv[1] == "fanout":
        fanout(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
