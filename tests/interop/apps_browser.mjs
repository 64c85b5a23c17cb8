// MCP Apps in a real browser: tinymcp --http serves a manifest tool with a view; headless
// Chromium loads a small host page (the pinned SDK client and the official app bridge, bundled by
// scripts/apps-browser.sh), which calls the tool, renders its view in a sandboxed iframe and
// feeds it the result; the view calls a tool back through the bridge. Asserts on the DOM and
// keeps a screenshot. Usage: node apps_browser.mjs MODULES OUT_DIR -- TINYMCP [ARGS...]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [modules, out, dashes, binary, ...serverArgs] = process.argv.slice(2);
if (dashes !== "--" || !binary) throw new Error("usage: apps_browser.mjs MODULES OUT_DIR -- TINYMCP [ARGS...]");
const { chromium } = createRequire(path.resolve(modules, "x.js"))("playwright-core");
const here = path.dirname(fileURLToPath(import.meta.url));
let stage = "starting the page server";
const deadline = setTimeout(() => fail(`timed out after 60 s while ${stage}`), 60_000);
const cleanup = [];

function fail(why) {
  console.error("apps browser test FAILED: " + why);
  for (const undo of cleanup.reverse()) undo();
  process.exit(1);
}

/** Starts tinymcp and resolves with the port it announces on stderr. */
function startServer(origin) {
  const child = spawn(binary, [...serverArgs, "--http", "127.0.0.1:0", "--allow-origin", origin], {
    env: { ...process.env, RUST_LOG: "info" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  cleanup.push(() => child.kill());
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr.on("data", (chunk) => {
      seen += chunk;
      const m = /listening on http:\/\/[^\s/]+:(\d+)\//.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`tinymcp exited (${code}): ${seen}`)));
  });
}

/** The host page and its bundle, from a loopback server of our own (no network beyond it). */
function startStatic() {
  const files = { "/": [path.join(here, "apps_browser/host.html"), "text/html"], "/host.js": [path.join(out, "host.js"), "text/javascript"] };
  const server = http.createServer((req, res) => {
    const file = files[new URL(req.url, "http://x").pathname];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": file[1] }).end(fs.readFileSync(file[0]));
  });
  cleanup.push(() => server.close());
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
}

const pagePort = await startStatic();
// The page's origin gets CORS answers (loopback origins pass the Origin check, but only the
// origins named get the headers a browser needs).
stage = "starting tinymcp";
const mcpPort = await startServer(`http://127.0.0.1:${pagePort}`).catch((e) => fail(e.message));
const userData = fs.mkdtempSync(path.join(out, "chromium-"));
cleanup.push(() => fs.rmSync(userData, { recursive: true, force: true }));
stage = "launching chromium";
const context = await chromium
  .launchPersistentContext(userData, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 640, height: 520 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  })
  .catch((e) => fail("chromium did not start: " + e.message));
cleanup.push(() => context.close());
stage = "loading the host page";
const page = context.pages()[0] || (await context.newPage());
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
try {
  await page.goto(`http://127.0.0.1:${pagePort}/?mcp=${encodeURIComponent(`http://127.0.0.1:${mcpPort}/mcp`)}`);
  await page.locator("#status", { hasText: "result sent" }).waitFor({ timeout: 20_000 });
  const view = page.frameLocator("iframe");
  await view.locator("#title", { hasText: "Fruit for ann" }).waitFor({ timeout: 10_000 });
  const cells = await view.locator("#rows td").allTextContents();
  if (cells.join(",") !== "apples,3,pears,5") fail("the view's table shows " + JSON.stringify(cells));
  // The view calls the tool back through the bridge; the host shows what it forwarded.
  await view.locator("#again").click();
  await view.locator("#called", { hasText: "called back: view" }).waitFor({ timeout: 10_000 });
  await page.locator("#log", { hasText: /view called report: .*"who":"view"/ }).waitFor({ timeout: 10_000 });
  const sandbox = await page.locator("iframe").getAttribute("sandbox");
  if (sandbox !== "allow-scripts") fail("the view's iframe is not sandboxed: " + sandbox);
  const shot = path.join(out, "view.png");
  await page.screenshot({ path: shot });
  console.log(`apps browser test passed: the view rendered the result and called back; screenshot ${shot}`);
} catch (e) {
  await page.screenshot({ path: path.join(out, "failed.png") }).catch(() => {});
  const log = await page.locator("#log").textContent().catch(() => "");
  fail(`${e.message}\nhost log:\n${log}\npage errors: ${errors.join("\n")}`);
}
clearTimeout(deadline);
for (const undo of cleanup.reverse()) await undo();
