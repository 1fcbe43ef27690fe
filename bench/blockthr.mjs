// The transformer block step (bench workload block_step) timed at several batch thresholds
// (dispatches per submit) and batch sizes: one step per wait (as run.mjs's row ends up) and ten.
// Figures for bench/KERNELS.md, never asserted.
// `--compiled` times the step through torch.compile instead.
//   node bench/blockthr.mjs [--pkg pkg/dist/index.js] [--kind block_step|mlp_step] [--compiled]
//                           [--thresholds 16,32,64,128 | --batched]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";
import { heldBatch } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const pkg = opt("--pkg", "pkg/dist/index.js");
const kind = opt("--kind", "block_step");
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const w = workloads({ quick: args.includes("--quick") }).find(
  (x) => x.kind === kind,
);
const compiled = args.includes("--compiled");
const h = webtorchLib(torch, core, undefined, { compiled }).prepare(w);
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const batch = (n) =>
  heldBatch(
    n,
    () => h.step(),
    (hs) => h.wait(hs),
  );
for (let i = 0; i < 3; i++) await batch(1);
// `--batched`: batched launches of tiny ops on, off, off, on (a drift over the process cancels
// out; threshold 64), with the dispatches and batched ops per step.
const configs = args.includes("--batched")
  ? [true, false, false, true].map((b) => ({ thr: 64, batched: b }))
  : opt("--thresholds", "16,32,64,128")
      .split(",")
      .map((t) => ({ thr: Number(t), batched: undefined }));
for (const { thr, batched } of configs) {
  torch.webgpu.set_batch_threshold(thr);
  core.set_batched_launches(batched);
  await batch(2);
  const s0 = torch.webgpu.runtime_stats();
  const one = [];
  const ten = [];
  for (let r = 0; r < 7; r++) {
    one.push(await batch(1));
    ten.push(await batch(10));
  }
  const s1 = torch.webgpu.runtime_stats();
  const per = (k) => ((s1[k] - s0[k]) / 77).toFixed(1);
  console.log(
    `${kind}${compiled ? " compiled" : ""} threshold ${String(thr).padStart(3)}` +
      `${batched === undefined ? "" : batched ? " batched" : " one each"}: ${median(one).toFixed(2)} ms/step (1 per wait), ${median(ten).toFixed(2)} (10 per wait); ` +
      `${per("dispatches")} dispatches, ${per("batched_ops")} batched ops a step`,
  );
}
core.set_batched_launches(undefined);
