// Why a tiny eager op costs more late in a long process: bench/run.mjs times its tiny-op rows
// after every large workload, and there they cost 1.5–2× what a fresh process pays
// (bench/KERNELS.md, "Host path"). This times the chain of 1,000 tiny adds (record, and +wait)
// fresh, after run.mjs's large workloads, after `empty_cache()`, and after a forced GC (run with
// `node --expose-gc`), printing the runtime counters beside each. Figures, never asserted.
//
//   node --expose-gc bench/historyprobe.mjs [--pkg pkg/dist/index.js] [--quick] [--out dir]

import { writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";
import { chainCost } from "./lib/timing.mjs";
import { flag, option, loadPkg } from "./lib/cli.mjs";

const quick = flag("quick");
const outDir = option("out");
const { torch, core } = await loadPkg();
const N = quick ? 200 : 1000;
const reps = quick ? 3 : 15;
const rows = [];

async function chain(label) {
  const v = torch.randn([64]);
  const cost = await chainCost(torch, v, (x) => x.add(0.001), { n: N, reps });
  v.dispose();
  const s = torch.webgpu.runtime_stats();
  const mem = process.memoryUsage();
  const row = {
    label,
    ...cost,
    pipelines: s.pipelines,
    bind_groups: s.bind_groups,
    allocations: s.allocations,
    pooled_mb: s.pooled_bytes / 2 ** 20,
    live_tensors: s.live_tensors,
    heap_mb: mem.heapUsed / 2 ** 20,
  };
  rows.push(row);
  console.log(
    `${label.padEnd(26)} record ${row.record_us.toFixed(2).padStart(6)} µs/op  +wait ${row.wait_us.toFixed(2).padStart(6)}  ` +
      `pipelines ${s.pipelines} bind groups ${s.bind_groups} allocations ${s.allocations} pooled ${row.pooled_mb.toFixed(0)} MB ` +
      `live ${s.live_tensors} JS heap ${row.heap_mb.toFixed(0)} MB`,
  );
}

await chain("fresh");
await chain("fresh, again");
// run.mjs's large workloads, each prepared, run ten times with a wait, and freed.
const lib = webtorchLib(torch, core);
const skip = new Set(["tiny_chain", "tiny_matmul_chain", "readback"]);
for (const w of workloads({ quick }).filter((w) => !skip.has(w.kind))) {
  const h = lib.prepare(w);
  if (!h) continue;
  for (let i = 0; i < (quick ? 2 : 10); i++) await h.wait([h.step()]);
  h.free?.();
}
await torch.webgpu.sync_device();
await chain("after the large workloads");
await chain("after them, again");
torch.webgpu.empty_cache();
await chain("after empty_cache()");
if (globalThis.gc) {
  globalThis.gc();
  await chain("after a forced GC");
}
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(outDir, "historyprobe.json"),
    JSON.stringify(rows, null, 1),
  );
}
