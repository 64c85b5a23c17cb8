#!/usr/bin/env bash
# Greps that keep the layers honest (see ARCHITECTURE.md) and the runtime dependency list fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
say() { echo "check-layers: $*" >&2; fail=1; }

# The three crates: the protocol core (src/), the HTTP transport (crates/tinymcp-http/src/, HTTP
# below) and the binary (crates/tinymcp-cli/src/, CLI below).
HTTP=crates/tinymcp-http/src
CLI=crates/tinymcp-cli/src
# Only the stdio transport touches stdout (and the `connect` bridge's one writer, its stdio side, and
# the binary's main.rs's help, printed before any transport starts); only that main.rs prints.
grep -rn 'io::stdout()\|std::io::stdout' src $HTTP $CLI --include=*.rs | grep -v "^src/transport/stdio.rs:\|^$CLI/cli/connect/mod.rs:\|^$CLI/main.rs:" && say "stdout used outside src/transport/stdio.rs"
grep -rn 'println!\|print!(' src $HTTP $CLI --include=*.rs | grep -v "^$CLI/main.rs:" && say "print outside $CLI/main.rs"
# Sockets and the HTTP parser only in the HTTP crate (and the `connect` bridge's HTTP client and the
# `--metrics ADDR` listener, binary-only).
grep -rln 'httparse\|TcpListener\|TcpStream' src $HTTP $CLI --include=*.rs | grep -v "^$HTTP/\|^$CLI/cli/connect/http1.rs$\|^$CLI/cli/metrics.rs$" && say "httparse or sockets used outside $HTTP"
# No feature threads through the core: HTTP and OAuth are the HTTP crate's (the core's features
# are only `schemars` and the test support `fuzz-mutator`).
grep -rn 'feature = "\(http\|oauth\)"' src --include=*.rs && say "the core (src/) names the http or oauth feature: they belong to $HTTP"
grep -n '^\(http\|oauth\|default\) *=' Cargo.toml && say "the core's Cargo.toml has an http, oauth or default feature"
# The core's import graph: wire -> server core -> features -> transports, no circle. (The HTTP
# crate and the binary reach the core through its public API only: crates of their own, the
# compiler checks that.)
python3 scripts/layers.py || fail=1
# Feature modules never name transports, threads or channels.
for f in src/features/*.rs src/server/lifecycle.rs src/server/dispatch.rs; do
  grep -n 'transport::\|std::thread\|mpsc' "$f" && say "$f names a transport, thread or channel"
done
# jsonrpc.rs imports nothing from the crate but the table of methods (a known name is kept as its
# row); its tests, from `#[cfg(test)]` on, may (the fuzz test's mutator).
sed '/^#\[cfg(test)\]/,$d' src/wire/jsonrpc.rs | grep -n 'use crate::' | grep -v 'use crate::wire::protocol::' && say "src/wire/jsonrpc.rs imports from the crate"
# The wire holds data and calls nothing up a layer: it names nothing of the server or the features,
# and its one trait is `Typed` (a result its writer serialises), none a server type implements for it to call.
grep -rn 'crate::server\|crate::features' src/wire --include=*.rs && say "src/wire names the server or the features"
grep -rnE '^\s*pub(\([a-z]+\))? trait ' src/wire --include=*.rs | grep -v 'trait Typed\b' && say "src/wire declares a trait other than Typed (a call up a layer)"
# The library never exits the process or sets up logging.
grep -rn 'process::exit\|env_logger' src $HTTP $CLI --include=*.rs | grep -v "^$CLI/main.rs:" && say "process exit or logger setup outside $CLI/main.rs"

# Runtime dependencies of the binary (the library's and its own): exactly the allowed list (see
# docs/dependencies.md); the libraries' own trees have none of the binary's (logger, flag parser),
# and the core's none of the HTTP crate's (HTTP parser, OAuth's crypto and HTTPS client).
tree() { cargo tree -p "$1" -e normal --prefix none --format '{p}' "${@:2}" 2>/dev/null | awk '{print $1}' | sort -u | grep -v '^tinymcp\(-cli\|-http\)\?$' | tr '\n' ' '; }
actual=$(tree tinymcp-cli)
expected=$(grep -v '^#' scripts/runtime-deps.txt | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "runtime dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps.txt and docs/dependencies.md)"
# With the `oauth` feature (the release binary's): that list plus scripts/runtime-deps-oauth.txt.
actual=$(tree tinymcp-cli --features oauth)
expected=$(cat scripts/runtime-deps.txt scripts/runtime-deps-oauth.txt | grep -v '^#' | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "the oauth feature's dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps-oauth.txt and docs/dependencies.md)"
# With `oauth,store` (the release binaries' features): both lists plus scripts/runtime-deps-store.txt.
actual=$(tree tinymcp-cli --features oauth,store)
expected=$(cat scripts/runtime-deps.txt scripts/runtime-deps-oauth.txt scripts/runtime-deps-store.txt | grep -v '^#' | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "the store feature's dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps-store.txt and docs/dependencies.md)"
# A musl build (the static binary's): that list plus scripts/runtime-deps-musl.txt (empty today).
actual=$(tree tinymcp-cli --target x86_64-unknown-linux-musl)
expected=$(cat scripts/runtime-deps.txt scripts/runtime-deps-musl.txt | grep -v '^#' | sort -u | tr '\n' ' ')
[ "$actual" = "$expected" ] || say "the musl build's dependency tree changed: got [$actual] expected [$expected] (update scripts/runtime-deps-musl.txt and docs/dependencies.md)"
core=$(tree tinymcp)
http=$(tree tinymcp-http --features oauth)
[ -n "$core" ] && [ -n "$http" ] || say "cargo tree of tinymcp or tinymcp-http --features oauth failed"
for dep in env_logger env_filter lexopt; do
  case " $core $http " in *" $dep "*) say "a library depends on $dep, the binary's";; esac
done
# The store's client is the binary's alone: the libraries hold only its traits.
case " $core $http " in *" redis "*) say "a library depends on redis, the binary's (feature store)";; esac
for dep in httparse ureq rsa p256 ed25519-dalek; do
  case " $core " in *" $dep "*) say "the core depends on $dep, the HTTP crate's";; esac
done
# No symbolic link in the repository: a Windows checkout (core.symlinks off, the default) makes
# each one a text file holding its target, which then fails to build.
git ls-files -s | grep '^120000' && say "symbolic links in the repository (a Windows checkout breaks on them)"
exit $fail
