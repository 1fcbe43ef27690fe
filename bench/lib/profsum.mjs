// Summarises V8 CPU profiles (`node --cpu-prof`): self time by function, top rows.
//   node bench/lib/profsum.mjs <dir-or-file.cpuprofile> [rows]
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const [target, rowsArg] = process.argv.slice(2);
const files = statSync(target).isDirectory()
  ? readdirSync(target).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(target, f))
  : [target];
const self = new Map();
let total = 0;
for (const f of files) {
  const prof = JSON.parse(readFileSync(f, "utf8"));
  for (const n of prof.nodes) {
    const cf = n.callFrame;
    const where = cf.url ? `${path.basename(cf.url)}:${cf.lineNumber + 1}` : "(native)";
    const key = `${cf.functionName || "(anonymous)"} ${where}`;
    self.set(key, (self.get(key) ?? 0) + (n.hitCount ?? 0));
    total += n.hitCount ?? 0;
  }
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(rowsArg ?? 40));
console.log(`${total} samples in ${files.length} profile(s)`);
for (const [k, v] of rows) console.log(`${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
