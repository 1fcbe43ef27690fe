// What the batch threshold does to chained tiny ops: each submit costs Dawn ~100 µs on the H100
// host (bench/hostprobe.mjs: `slots` against `submit64`), so a chain of 1-workgroup dispatches
// pays it every 64 ops, while a longer batch leaves more GPU work after the last record.
// Thresholds alternate round by round in one process (the host's speed drifts between
// processes, bench/KERNELS.md "Host path v2"). Figures for bench/KERNELS.md, never asserted.
//
//   node bench/batchprobe.mjs [--pkg pkg/dist/index.js] [--quick] [--out dir]

import { writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chainCost } from "./lib/timing.mjs";
import { flag, option, loadPkg } from "./lib/cli.mjs";

const quick = flag("quick");
const outDir = option("out");
const thresholds = (option("thresholds") ?? "64,128,256,512")
  .split(",")
  .map(Number);
const { torch } = await loadPkg();
const N = quick ? 200 : 1000;
const reps = quick ? 3 : 15;
const rounds = quick ? 1 : 5;
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

const v = torch.randn([64]);
const m = torch.randn([8, 8]);
const eye = torch.eye(8);
const chains = {
  views: [v, (x) => x.view([64])],
  adds: [v, (x) => x.add(0.001)],
  matmuls: [m, (x) => x.matmul(eye)],
};
const got = {};
for (let r = 0; r < rounds; r++) {
  for (const t of thresholds) {
    torch.webgpu.set_batch_threshold(t);
    for (const [name, [x0, f]] of Object.entries(chains)) {
      const c = await chainCost(torch, x0, f, { n: N, reps });
      (got[`${name}@${t}`] ??= []).push(c);
    }
  }
  console.log(`round ${r + 1}/${rounds}`);
}
torch.webgpu.set_batch_threshold(64);
const rows = Object.entries(got).map(([k, cs]) => ({
  chain: k,
  record_us: median(cs.map((c) => c.record_us)),
  wait_us: median(cs.map((c) => c.wait_us)),
  rounds: cs.map((c) => +c.wait_us.toFixed(2)),
}));
for (const row of rows)
  console.log(
    `${row.chain.padEnd(14)} record ${row.record_us.toFixed(2).padStart(6)} µs/op  +wait ${row.wait_us.toFixed(2).padStart(6)}  (rounds ${row.rounds.join(" ")})`,
  );
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(outDir, "batchprobe.json"),
    JSON.stringify({ thresholds, rows }, null, 2),
  );
}
