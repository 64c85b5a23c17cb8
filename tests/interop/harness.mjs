// What the TypeScript interop clients share (ts_client.mjs, ts_proxy.mjs): the SDK from the
// pinned install under .cache/npm (TINYMCP_NPM overrides), small assertions, and the loop that
// runs named checks, each with a deadline, and prints `LABEL (<transport>): N passed, M failed`.

import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const npmDir = process.env.TINYMCP_NPM ?? resolve(here, "../../.cache/npm");

/** `require` of the pinned npm install. */
export const sdk = createRequire(resolve(npmDir, "package.json"));

export function expect(condition, what) {
  if (!condition) throw new Error(what);
}

export const textOf = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("");

/** Runs each of `checks` (name -> async function) with a 30 s deadline, closes `client`, prints
 * the tally under `label` and exits: non-zero when anything failed. */
export async function runChecks(label, kind, client, checks) {
  let passed = 0;
  let failed = 0;
  for (const [name, check] of Object.entries(checks)) {
    try {
      await Promise.race([
        check(),
        new Promise((_, reject) => setTimeout(() => reject(new Error("timed out after 30 s")), 30000).unref()),
      ]);
      passed++;
      console.error(`ok   ${name}`);
    } catch (e) {
      failed++;
      console.error(`FAIL ${name}\n${e.stack ?? e}`);
    }
  }
  await client.close();
  console.log(`${label} (${kind}): ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
