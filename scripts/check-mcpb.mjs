// Resolves an unpacked MCP bundle's server command for each platform its manifest lists, with
// the MCPB library's own getMcpConfigForManifest (what a host that implements MCPB runs, with
// process.platform set to each platform in turn), and prints one line per platform:
//   PLATFORM<TAB>COMMAND<TAB>ARGS (JSON)
// It fails when a resolved command is not a file inside the bundle. What each file is (its
// format and architecture) scripts/release.sh checks with `file`.
// Usage: MCPB_MODULE=path/to/@anthropic-ai/mcpb/dist/index.js node check-mcpb.mjs DIR ROOT
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dir, root] = process.argv.slice(2);
if (!dir || !root || !process.env.MCPB_MODULE) {
  console.error("usage: MCPB_MODULE=... node check-mcpb.mjs UNPACKED_BUNDLE_DIR ROOT_FOLDER");
  process.exit(2);
}
const { getMcpConfigForManifest } = await import(pathToFileURL(process.env.MCPB_MODULE).href);
const bundle = path.resolve(dir);
const manifest = JSON.parse(readFileSync(path.join(bundle, "manifest.json"), "utf8"));
const platforms = manifest.compatibility?.platforms ?? [];
if (platforms.length === 0) {
  console.error("check-mcpb: the manifest lists no compatibility.platforms");
  process.exit(1);
}
const real = process.platform;
let failed = false;
for (const platform of platforms) {
  Object.defineProperty(process, "platform", { value: platform });
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: bundle,
    systemDirs: { HOME: "/home/user", DESKTOP: "/home/user/Desktop", DOCUMENTS: "/home/user/Documents", DOWNLOADS: "/home/user/Downloads" },
    userConfig: { root },
    pathSeparator: "/",
  });
  Object.defineProperty(process, "platform", { value: real });
  const command = config?.command ?? "";
  const inside = command.startsWith(bundle + "/") && existsSync(command);
  if (!inside) {
    console.error(`check-mcpb: on ${platform} the host would start ${JSON.stringify(command)}, not a file in the bundle`);
    failed = true;
    continue;
  }
  console.log(`${platform}\t${command}\t${JSON.stringify(config.args ?? [])}`);
}
process.exit(failed ? 1 : 0);
