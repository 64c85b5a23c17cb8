#!/usr/bin/env bash
# Greps that keep the layers honest (see ARCHITECTURE.md) and the runtime dependency list fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
say() { echo "check-layers: $*" >&2; fail=1; }

# Only the stdio transport touches stdout (and the `connect` bridge's one writer, its stdio side, and
# main.rs's help, printed before any transport starts); only main.rs prints.
grep -rn 'io::stdout()\|std::io::stdout' src --include=*.rs | grep -v '^src/transport/stdio.rs:\|^src/cli/connect/mod.rs:\|^src/main.rs:' && say "stdout used outside src/transport/stdio.rs"
grep -rn 'println!\|print!(' src --include=*.rs | grep -v '^src/main.rs:' && say "print outside src/main.rs"
# Sockets and the HTTP parser only under transport/ (and the `connect` bridge's HTTP client, binary-only).
grep -rln 'httparse\|TcpListener\|TcpStream' src --include=*.rs | grep -v '^src/transport/\|^src/cli/connect/http1.rs$' && say "httparse or sockets used outside src/transport/"
# The import graph: wire -> server core -> features -> transports, no circle; the providers (the binary's)
# name nothing of the library through `crate::`.
python3 scripts/layers.py || fail=1
# Feature modules never name transports, threads or channels.
for f in src/features/*.rs src/server/lifecycle.rs src/server/dispatch.rs; do
  grep -n 'transport::\|std::thread\|mpsc' "$f" && say "$f names a transport, thread or channel"
done
# jsonrpc.rs imports nothing from the crate but the table of methods (a known name is kept as its
# row); its tests, from `#[cfg(test)]` on, may (the fuzz test's mutator).
sed '/^#\[cfg(test)\]/,$d' src/wire/jsonrpc.rs | grep -n 'use crate::' | grep -v 'use crate::wire::method::' && say "src/wire/jsonrpc.rs imports from the crate"
# The wire holds data and calls nothing up a layer: it names nothing of the server or the features,
# and its one trait is `Typed` (a result its writer serialises), none a server type implements for it to call.
grep -rn 'crate::server\|crate::features' src/wire --include=*.rs && say "src/wire names the server or the features"
grep -rnE '^\s*pub(\([a-z]+\))? trait ' src/wire --include=*.rs | grep -v 'trait Typed\b' && say "src/wire declares a trait other than Typed (a call up a layer)"
# The library never exits the process or sets up logging.
grep -rn 'process::exit\|env_logger' src --include=*.rs | grep -v '^src/main.rs:' && say "process exit or logger setup outside main.rs"

# Runtime dependencies: exactly the allowed list (see docs/dependencies.md).
actual=$(cargo tree -e normal --prefix none --format '{p}' 2>/dev/null | awk '{print $1}' | sort -u | grep -v '^tinymcp$' | tr '\n' ' ')
expected=$(grep -v '^#' scripts/runtime-deps.txt | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "runtime dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps.txt and docs/dependencies.md)"
# With the `oauth` feature (the release binary's): that list plus scripts/runtime-deps-oauth.txt.
actual=$(cargo tree -e normal --features oauth --prefix none --format '{p}' 2>/dev/null | awk '{print $1}' | sort -u | grep -v '^tinymcp$' | tr '\n' ' ')
expected=$(cat scripts/runtime-deps.txt scripts/runtime-deps-oauth.txt | grep -v '^#' | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "the oauth feature's dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps-oauth.txt and docs/dependencies.md)"
# A musl build (the static binary's): that list plus scripts/runtime-deps-musl.txt (empty today).
actual=$(cargo tree -e normal --target x86_64-unknown-linux-musl --prefix none --format '{p}' 2>/dev/null | awk '{print $1}' | sort -u | grep -v '^tinymcp$' | tr '\n' ' ')
expected=$(cat scripts/runtime-deps.txt scripts/runtime-deps-musl.txt | grep -v '^#' | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "the musl build's dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps-musl.txt and docs/dependencies.md)"
exit $fail
