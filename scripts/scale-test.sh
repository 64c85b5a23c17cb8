#!/usr/bin/env bash
# The scale test: nginx in front of three replicas on loopback ports, with the config
# docs/deploy.md describes (deploy/nginx.conf.template, filled in here), and THROUGH nginx:
# the conformance requirement sets 2026-07-28 and 2025-11-25, the Python SDK clients on both wires,
# then load runs (scripts/scale-load.py: many 2026-07-28 `echo` calls and a share of 2025-11-25
# sessions) while all serve, while one replica drains (SIGTERM) and while one is killed (SIGKILL).
# Beside the stop runs, scripts/scale-probe.py reports what lived on the stopped replica (streams,
# a task, calls in flight). Fails when a 2026-07-28 request is lost or an older client initializes
# more than once in a run.
# Prints a table: requests, errors, p50/p99, each replica's share (from nginx's access log).
# Installs the Debian package nginx when missing (as root); when it cannot, says so in one line
# "scale test skipped: ..." and exits as skipped (scripts/lib.sh). Everything lives under target/scale-test/ (nginx runs with
# its own prefix, pid and logs, in the foreground as our child; no system config is read or
# touched) and everything started is stopped on exit.
# deploy/ is checked first (scripts/check-deploy.py: compose.yaml, the Dockerfile and the template
# agree with each other and with the binary), since Docker cannot run here.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
started_at=$SECONDS

# The release binary (scripts/lib.sh), with `store` for the store part.
BIN=$(release_binary)
# deploy/ (compose.yaml, Dockerfile, the template) checked without Docker, nginx or not.
python3 scripts/check-deploy.py "$BIN"

. scripts/syspkg.sh
PATH=$PATH:/usr/sbin need_command nginx nginx || skip "scale test" "nginx is missing (see the line above)"
NGINX=$(PATH=$PATH:/usr/sbin command -v nginx)

bash scripts/deps.sh
PY=.cache/venv/bin/python

work=$PWD/target/scale-test
rm -rf "$work"
mkdir -p "$work/tmp"
python3 -c 'import secrets; print(secrets.token_hex(32))' >"$work/state.key"
chmod 600 "$work/state.key"

declare -A PORT PID
REPLICAS=(r1 r2 r3)
for r in "${REPLICAS[@]}"; do PORT[$r]=$(free_port); done
LB_PORT=$(free_port)
URL="http://127.0.0.1:$LB_PORT"
nginx_pid=""
redis_pid=""

cleanup() {
  for r in "${REPLICAS[@]}"; do
    [ -n "${PID[$r]:-}" ] && kill -KILL "${PID[$r]}" 2>/dev/null
  done
  [ -n "$redis_pid" ] && kill -KILL "$redis_pid" 2>/dev/null
  [ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null
  wait 2>/dev/null
  true
}
trap cleanup EXIT

# Every replica serves the same folder (and the conformance fixture), with the same key.
mkdir -p "$work/shared"
echo "served by every replica" >"$work/shared/readme.txt"
replica_args=(--everything --skills examples/skills --root "$work/shared" --watch-interval 250
  --state-key-file "$work/state.key" --trusted-proxy 127.0.0.1 --drain-secs 5)

start_replica() { # start_replica NAME: on its port, appending to target/scale-test/NAME.log
  "$BIN" "${replica_args[@]}" --node-id "$1" --http "127.0.0.1:${PORT[$1]}" 2>>"$work/$1.log" &
  PID[$1]=$!
}
healthy() { "$BIN" health "$1" 2>/dev/null; } # the probe the container uses
wait_healthy() { # wait_healthy URL: 10 s at most
  for _ in $(seq 200); do
    healthy "$1" && return 0
    sleep 0.05
  done
  echo "scale test: $1 did not answer 200" >&2
  return 1
}

# The nginx config: the template with this run's addresses, inside a main file of our own.
sed -e "s|\${TINYMCP_LISTEN}|127.0.0.1:$LB_PORT|g" -e "s|\${TINYMCP_ACCESS_LOG}|$work/access.log|g" \
  -e "s|\${TINYMCP_R1}|127.0.0.1:${PORT[r1]}|g" -e "s|\${TINYMCP_R2}|127.0.0.1:${PORT[r2]}|g" \
  -e "s|\${TINYMCP_R3}|127.0.0.1:${PORT[r3]}|g" deploy/nginx.conf.template >"$work/tinymcp.conf"
if grep -v '^ *#' "$work/tinymcp.conf" | grep '\${TINYMCP_'; then
  echo "scale test: deploy/nginx.conf.template has a placeholder this script does not fill" >&2
  exit 1
fi
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path $work/tmp/body;
    proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi;
    scgi_temp_path $work/tmp/scgi;
    include $work/tinymcp.conf;
}
EOF
touch "$work/access.log"
nginx_cmd=("$NGINX" -p "$work" -c "$work/nginx.conf" -e "$work/error.log")
"${nginx_cmd[@]}" -t -q

for r in "${REPLICAS[@]}"; do start_replica "$r"; done
"${nginx_cmd[@]}" &
nginx_pid=$!
for r in "${REPLICAS[@]}"; do wait_healthy "http://127.0.0.1:${PORT[$r]}/healthz"; done
wait_healthy "$URL/healthz"
echo "scale test: nginx on $URL, replicas r1 r2 r3 on ${PORT[r1]} ${PORT[r2]} ${PORT[r3]}" >&2

status=0
fail() {
  echo "scale test FAILED: $*" >&2
  status=1
}
conformance() { # conformance REVISION: the requirement set, through nginx
  conformance_run "scale test: conformance --requirements $1 through nginx" "$work/conformance-$1.txt" "$URL/mcp" \
    --requirements "$1" || fail "conformance $1 through nginx"
}
interop() { # interop NAME ARGS...: one Python SDK client run through nginx
  local name=$1
  shift
  if "$PY" "$@" >"$work/$name.txt" 2>&1; then
    echo "scale test: $name: $(tail -1 "$work/$name.txt")"
  elif [ "$(grep -c '^FAIL ' "$work/$name.txt")" = 1 ] && grep -q '^FAIL subscriptions/listen$' "$work/$name.txt"; then
    # The fixture's test_trigger_tool_change changes the tools of the replica that ran it; a
    # listen stream held by another replica cannot hear that (state of one process). What every
    # replica shares, a served folder, it does hear: the listen check below.
    local passed
    passed=$(grep -c '^ok ' "$work/$name.txt")
    echo "scale test: $name: $passed passed; known limitation, not a failure: a subscriptions/listen stream on one replica does not hear a tool change made in another replica's process (round-robin)"
  else
    tail -30 "$work/$name.txt"
    fail "$name through nginx"
  fi
}

conformance 2026-07-28
for mode in 2026-07-28 auto; do
  interop "python-modern-$mode" tests/interop/python_modern.py --mode "$mode" --transport http "$URL/mcp"
done
conformance 2025-11-25
interop python-http tests/interop/python_client.py --transport http "$URL/mcp"
interop python-sse tests/interop/python_client.py --transport sse "$URL/sse"

# 2026-07-28 listen streams on each replica hear a change of the folder they all serve.
python3 scripts/scale-load.py --url "$URL/mcp" --listen-folder "$work/shared" --access-log "$work/access.log" \
  --replica "r1=127.0.0.1:${PORT[r1]}" --replica "r2=127.0.0.1:${PORT[r2]}" --replica "r3=127.0.0.1:${PORT[r3]}" |
  sed 's/^/scale test: /' || fail "listen streams through nginx"

# Load runs, each one table row; a replica stopped mid-run is started again after it.
table=$work/table.txt
python3 scripts/scale-load.py --header >"$table"
older=6
load() { # load LABEL SECONDS [--strict]: fails when a 2026-07-28 request was lost or a client
  # re-initialized twice (--strict: or an older client's call failed)
  python3 scripts/scale-load.py --url "$URL/mcp" --seconds "$2" --modern 12 --older "$older" ${3:-} \
    --access-log "$work/access.log" --label "$1" --summary "$work/summary.jsonl" \
    --replica "r1=127.0.0.1:${PORT[r1]}" --replica "r2=127.0.0.1:${PORT[r2]}" \
    --replica "r3=127.0.0.1:${PORT[r3]}" | tee -a "$table"
}
probe() { # probe REPLICA: scripts/scale-probe.py in the background (streams, a task and calls
  # placed on REPLICA before it is stopped; what became of them in target/scale-test/probe-REPLICA.txt)
  rm -f "$work/ready-$1"
  python3 scripts/scale-probe.py --url "$URL" --victim "$1" --victim-health "http://127.0.0.1:${PORT[$1]}/healthz" \
    --ready "$work/ready-$1" --seconds 8 >"$work/probe-$1.txt" 2>&1 &
  prober=$!
}
stop_during() { # stop_during SIGNAL REPLICA: (in the background) the signal 1 s after the probe is
  # ready, then how long until the process ended (its parent, this shell, collects the status)
  local pid=${PID[$2]}
  for _ in $(seq 100); do [ -e "$work/ready-$2" ] && break; sleep 0.1; done
  sleep 1
  kill -"$1" "$pid"
  date +%s.%N >"$work/ready-$2.signalled"
  local t0
  t0=$(date +%s%N)
  while [ -e "/proc/$pid" ] && ! awk '{exit !($3 == "Z")}' "/proc/$pid/stat" 2>/dev/null; do sleep 0.05; done
  awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f\n", (b - a) / 1e9 }' >"$work/stop-$2.secs"
}
stopped() { # stopped SIGNAL REPLICA: collect the exit status after stop_during, start it again
  if [ "$1" = KILL ]; then
    rc=137 # disowned before (so bash does not print "Killed"): 128 + 9 by definition
  elif wait "${PID[$2]}"; then rc=0; else rc=$?; fi
  notes+=("$2: SIG$1 during the run; exited with status $rc, $(cat "$work/stop-$2.secs") s later")
  echo "$rc" >"$work/stop-$2.status"
  start_replica "$2"
  wait_healthy "http://127.0.0.1:${PORT[$2]}/healthz"
}
notes=()
load "all three serving" 6 --strict || fail "load run with all three serving"
probe r2
stop_during TERM r2 &
stopper=$!
load "r2 drained (SIGTERM)" 8 --strict || fail "load run while r2 drained"
wait "$stopper" "$prober"
stopped TERM r2
disown "${PID[r3]}"
probe r3
stop_during KILL r3 &
stopper=$!
load "r3 killed (SIGKILL)" 8 || fail "load run while r3 was killed"
wait "$stopper" "$prober"
stopped KILL r3

# The store (--store, docs/deploy.md "The store"): the replicas started again sharing a
# redis-server on loopback (skipped, saying so, when it cannot be installed), with a 1 s lease.
store_notes=()
if need_command redis-server redis-server; then
  REDIS_PORT=$(free_port)
  start_redis() {
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >>"$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 200); do
      redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0
      sleep 0.05
    done
    echo "scale test: redis-server did not start" >&2
    return 1
  }
  start_redis
  # --write: the notify step writes files through r3 (`write_file`).
  replica_args+=(--store "redis://127.0.0.1:$REDIS_PORT" --store-lease-ms 1000 --write)
  for r in "${REPLICAS[@]}"; do
    kill -KILL "${PID[$r]}" 2>/dev/null
    wait "${PID[$r]}" 2>/dev/null || true
    start_replica "$r"
  done
  for r in "${REPLICAS[@]}"; do wait_healthy "http://127.0.0.1:${PORT[$r]}/healthz"; done
  store_step() { # store_step ARGS...: one step of scripts/scale-store.py, its line kept
    local line
    if line=$(python3 scripts/scale-store.py "$@" 2>&1); then
      store_notes+=("$line")
    else
      fail "store: $line"
      return 1
    fi
  }
  R1=127.0.0.1:${PORT[r1]} R2=127.0.0.1:${PORT[r2]} R3=127.0.0.1:${PORT[r3]}
  # Streams on r1 and r2 hear files written through r3, once each; a stream cut on r1 resumes on r2.
  store_step notify "$R1" "$R2" "$R3" || true
  store_step resume "$R1" "$R2" || true
  # The conformance sets and the Python SDK clients (tasks, listen) through nginx, with the store.
  for revision in 2026-07-28 2025-11-25; do
    conformance_run "scale test: conformance --requirements $revision through nginx with the store" \
      "$work/store-conformance-$revision.txt" "$URL/mcp" --requirements "$revision" ||
      fail "conformance $revision through nginx with the store"
  done
  for mode in 2026-07-28 auto; do
    interop "store-python-modern-$mode" tests/interop/python_modern.py --mode "$mode" --transport http "$URL/mcp"
  done
  interop store-python-http tests/interop/python_client.py --transport http "$URL/mcp"
  store_step cancel "$R1" "$R2" "$R3" || true
  # A task's input answered on a replica that does not run it.
  store_step update "$URL/mcp" "$R1" "$R2" "$R3" || true
  # A replica SIGKILLed while its task runs: the task reads failed within the lease (1 s).
  if task=$(python3 scripts/scale-store.py start "$R1"); then
    kill -KILL "${PID[r1]}"
    wait "${PID[r1]}" 2>/dev/null || true
    store_step failed "$R2" "$task" 3 || true
    start_replica r1
    wait_healthy "http://127.0.0.1:${PORT[r1]}/healthz"
  else
    fail "store: no task from r1: $task"
  fi
  # A replica drained (SIGTERM, --drain-secs 5) while two tasks run: the 2 s one finishes
  # within the drain, the 60 s one is failed when it ends; both read on another replica.
  if short=$(python3 scripts/scale-store.py start "$R1" 2) && long=$(python3 scripts/scale-store.py start "$R1" 60); then
    kill -TERM "${PID[r1]}"
    wait "${PID[r1]}" 2>/dev/null || true
    store_step drained "$R2" "$short" "$long" || true
    start_replica r1
    wait_healthy "http://127.0.0.1:${PORT[r1]}/healthz"
  else
    fail "store: no task from r1: $short $long"
  fi
  # The store killed and started again mid-run.
  kill -KILL "$redis_pid"
  wait "$redis_pid" 2>/dev/null || true
  store_step down "$URL/mcp" "$R3" || true
  start_redis
  store_step back "$R3" 15 || true
  for r in "${REPLICAS[@]}"; do
    healthy "http://127.0.0.1:${PORT[$r]}/healthz" || fail "store: $r stopped answering /healthz after the store came back"
  done
else
  store_notes+=("store part skipped: redis-server is missing (see the line above)")
fi

echo
echo "scale test: nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///'), 3 replicas, $(nproc) cores; load: 12 threads at 2026-07-28 + $older 2025-11-25 sessions, one keep-alive connection each"
cat "$table"
printf '%s\n' "${notes[@]}"
for victim in r2 r3; do
  echo "what became of what lived on $victim:"
  sed 's/^/  /' "$work/probe-$victim.txt"
done
if [ "$(cat "$work/stop-r2.status")" != 0 ]; then
  fail "r2 did not exit 0 after draining"
fi
echo "with the store:"
printf '  %s\n' "${store_notes[@]}"
echo "scale test: $((SECONDS - started_at)) s in all; logs in $work"
exit $status
