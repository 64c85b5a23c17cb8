#!/usr/bin/env node
// The `tinymcp` npm package's command: finds this platform's binary in its optional dependency
// (@tinymcp/OS-CPU, which npm installs only where its `os` and `cpu` match, as esbuild and biome
// ship theirs) and runs it with stdio inherited, so a host's `npx -y tinymcp` speaks MCP with
// the binary itself. Signals are passed on and the binary's exit is this process's exit.
"use strict";
const { spawn } = require("child_process");
const path = require("path");

// process.platform and process.arch -> the package carrying that binary (scripts/packages.sh).
const PACKAGES = {
  "linux x64": "@tinymcp/linux-x64",
  "linux arm64": "@tinymcp/linux-arm64",
  "darwin x64": "@tinymcp/darwin-x64",
  "darwin arm64": "@tinymcp/darwin-arm64",
  "win32 x64": "@tinymcp/win32-x64",
  "win32 arm64": "@tinymcp/win32-arm64",
};
const VERSION = require("../package.json").version;

function fail(message) {
  process.stderr.write(`tinymcp: ${message}\n`);
  process.exit(1);
}

const name = PACKAGES[`${process.platform} ${process.arch}`];
if (!name) {
  fail(
    `no binary is published for ${process.platform} ${process.arch} (there are: ${Object.keys(PACKAGES).join(", ")}); ` +
      "build it with `cargo install tinymcp-cli` (https://github.com/tinymcp/tinymcp)",
  );
}
let binary;
try {
  const folder = path.dirname(require.resolve(`${name}/package.json`));
  binary = path.join(folder, "bin", process.platform === "win32" ? "tinymcp.exe" : "tinymcp");
} catch {
  fail(
    `the package ${name}, which carries this platform's binary, is not installed: npm leaves optional ` +
      `dependencies out with --omit=optional (or --no-optional), or a lockfile made on another platform; ` +
      `install it with \`npm install ${name}@${VERSION}\``,
  );
}

// TINYMCP_LAUNCHER tells the binary it was started through npm, so `tinymcp config` and
// `tinymcp install` write `npx -y tinymcp` into a host's file rather than this cache's path.
const child = spawn(binary, process.argv.slice(2), {
  stdio: "inherit",
  env: { ...process.env, TINYMCP_LAUNCHER: "npx" },
  windowsHide: true,
});
child.on("error", (error) => fail(`cannot start ${binary}: ${error.message}`));

// Ctrl-C reaches the whole foreground group by itself; a signal sent to this process alone
// (a host stopping its server) is passed on, and the binary decides when to exit.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"];
for (const signal of forwarded) {
  try {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  } catch {
    // A signal this platform lacks.
  }
}
child.on("exit", (code, signal) => {
  if (signal) {
    // Ended by a signal: end the same way, so the parent sees what the binary saw.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
