// The transformer block step of run.mjs eager and compiled in one process: dispatches, bind
// groups and submits per step, and ms per step at one and four steps per wait. Figures for
// bench/KERNELS.md, never asserted.
//
//   node bench/blockcompile.mjs [--pkg pkg/dist/index.js] [--quick]

import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const pkg = args.includes("--pkg")
  ? args[args.indexOf("--pkg") + 1]
  : "pkg/dist/index.js";
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const w = workloads({ quick }).find((x) => x.kind === "block_step");
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const handles = {
  eager: webtorchLib(torch, core).prepare(w),
  compiled: webtorchLib(torch, core, undefined, { compiled: true }).prepare(w),
};
for (const h of Object.values(handles))
  for (let i = 0; i < 4; i++) await h.wait([h.step()]);
for (let round = 0; round < (quick ? 1 : 3); round++) {
  for (const [name, h] of Object.entries(handles)) {
    await torch.webgpu.sync_device();
    const s0 = torch.webgpu.runtime_stats();
    await h.wait([h.step()]);
    const s1 = torch.webgpu.runtime_stats();
    const per = {};
    for (const k of [1, 4]) {
      const ts = [];
      for (let r = 0; r < (quick ? 2 : 5); r++) {
        const t0 = performance.now();
        const outs = [];
        for (let i = 0; i < k; i++) outs.push(h.step());
        await h.wait(outs);
        ts.push((performance.now() - t0) / k);
      }
      per[k] = median(ts);
    }
    console.log(
      `${name.padEnd(9)} dispatches ${s1.dispatches - s0.dispatches} bind groups ${s1.bind_groups - s0.bind_groups} ` +
        `submits ${s1.submits - s0.submits} graph copies ${s1.graph_copy_bytes - s0.graph_copy_bytes} B; ` +
        `${per[1].toFixed(2)} ms/step at 1 per wait, ${per[4].toFixed(2)} at 4`,
    );
  }
}
