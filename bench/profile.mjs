// Where the GPU time of webtorch's model workloads goes, and how the harness's handling of
// results moves the bandwidth rows. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/profile.mjs [--out dir] [--quick] [--pkg pkg/dist/index.js]
//
// Part 1 runs bench/run.mjs's transformer block and MLP steps under torch.profiler (each
// dispatch timed with timestamp queries where the adapter has them) and lists the kernels by
// GPU time, summed by kernel label and by the op that dispatched them.
// Part 2 times layer_norm and sum as bench/run.mjs does (results held until the batch's wait)
// and with each result freed as soon as its work is recorded (PyTorch's timed loop drops each
// result at once), with the batch size run.mjs would choose.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";
import { timeit } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outDir = args.includes("--out") ? args[args.indexOf("--out") + 1] : null;
const pkg = args.includes("--pkg") ? args[args.indexOf("--pkg") + 1] : "pkg/dist/index.js";
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href);
const log = console.log;
const results = { adapter: torch._C.adapter_info?.()?.name, profiles: [], lifetimes: [] };
const all = workloads({ quick });

// ---- part 1: GPU time per kernel of the model steps ----
for (const kind of ["block_step", "mlp_step"]) {
  const w = all.find((x) => x.kind === kind);
  const h = webtorchLib(torch, core).prepare(w);
  for (let i = 0; i < 3; i++) await h.wait([h.step()]);
  const t0 = performance.now();
  const steps = quick ? 1 : 3;
  for (let i = 0; i < steps; i++) await h.wait([h.step()]);
  const wallMs = (performance.now() - t0) / steps;
  // Recording alone (the step's host side, before its wait).
  let recMs = 0;
  for (let i = 0; i < steps; i++) {
    const t1 = performance.now();
    const hd = h.step();
    recMs += (performance.now() - t1) / steps;
    await h.wait([hd]);
  }
  const prof = await torch.profiler.profile(async () => {
    for (let i = 0; i < steps; i++) await h.wait([h.step()]);
  });
  const gpu = prof.gpu_events ?? prof.gpuEvents ?? [];
  const by = (key) => {
    const m = new Map();
    for (const e of gpu) {
      const k = key(e);
      const r = m.get(k) ?? { name: k, count: 0, us: 0 };
      r.count += 1;
      r.us += e.dur_ns / 1000 / steps;
      m.set(k, r);
    }
    return [...m.values()].sort((a, b) => b.us - a.us);
  };
  const byKernel = by((e) => e.kernel);
  const byOp = by((e) => e.op || "(flush)");
  const totalUs = byKernel.reduce((s, r) => s + r.us, 0);
  log(prof.key_averages().table({ sort_by: "cpu_time_total", row_limit: 25 }));
  log(`\n${w.name}: wall ${wallMs.toFixed(2)} ms/step unprofiled, recording ${recMs.toFixed(2)} ms; GPU ${(totalUs / 1000).toFixed(2)} ms/step in ${gpu.length / steps} dispatches`);
  for (const r of byKernel.slice(0, 25))
    log(`  ${(r.us / 1000).toFixed(3).padStart(8)} ms  ×${String(r.count / steps).padEnd(4)} ${r.name}`);
  log("  by op:");
  for (const r of byOp.slice(0, 15)) log(`  ${(r.us / 1000).toFixed(3).padStart(8)} ms  ×${String(r.count / steps).padEnd(4)} ${r.name}`);
  results.profiles.push({ workload: w.name, wall_ms: wallMs, record_ms: recMs, gpu_ms: totalUs / 1000, by_kernel: byKernel, by_op: byOp });
  h.free();
}

// ---- part 2: result lifetime in the timed loop ----
for (const kind of ["layer_norm", "sum", "softmax"]) {
  const w = all.find((x) => x.kind === kind);
  const h = webtorchLib(torch, core).prepare(w);
  const held = await timeit(h.step, h.wait, { reps: 7, minBatchMs: 25 });
  const freedStep = () => {
    h.step().dispose();
    return null;
  };
  const freed = await timeit(freedStep, h.wait, { reps: 7, minBatchMs: 25 });
  const r = { workload: w.name, held_ms: held.ms, held_inner: held.inner, freed_ms: freed.ms, freed_inner: freed.inner };
  r.held = w.figure(held.ms);
  r.freed = w.figure(freed.ms);
  log(`${w.name.padEnd(28)} held ${held.ms.toFixed(4)} ms (${r.held.toFixed(0)} ${w.unit}, ×${held.inner})   freed ${freed.ms.toFixed(4)} ms (${r.freed.toFixed(0)} ${w.unit}, ×${freed.inner})`);
  results.lifetimes.push(r);
  h.free();
}

if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "profile.json"), JSON.stringify(results, null, 1));
}
process.exit(0);
