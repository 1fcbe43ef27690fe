// The transformer block step of run.mjs eager and compiled in one process: dispatches, bind
// groups and submits per step, ms per step at one and four steps per wait, then one profiled
// step of each (GPU time per kernel label, summed; the kernels whose totals differ most).
// Figures for bench/KERNELS.md, never asserted.
//
// `alternating` takes two compiled copies in turn; `unfused` captures with eager's `min_size`.
//
//   node bench/blockcompile.mjs [--pkg pkg/dist/index.js] [--quick]

import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";
import { median } from "./lib/timing.mjs";
import { flag, loadPkg } from "./lib/cli.mjs";

const quick = flag("quick");
const { torch, core } = await loadPkg();
const w = workloads({ quick }).find((x) => x.kind === "block_step");
const handles = {
  eager: webtorchLib(torch, core).prepare(w),
  compiled: webtorchLib(torch, core, undefined, { compiled: true }).prepare(w),
};
// Two compiled copies of the step taken in turn: each graph has its own intermediates, so
// consecutive replays share no buffer but the inputs (the test of KERNELS.md's prediction that
// one graph's reused intermediates keep its replays from overlapping on the GPU).
const pair = [0, 1].map(() =>
  webtorchLib(torch, core, undefined, { compiled: true }).prepare(w),
);
// A compiled step captured with eager's fusion `min_size`: the eager step's own kernels, replayed.
core.set_capture_fusion_min_size(1024);
handles.unfused = webtorchLib(torch, core, undefined, {
  compiled: true,
}).prepare(w);
for (let i = 0; i < 4; i++)
  await handles.unfused.wait([handles.unfused.step()]);
core.set_capture_fusion_min_size(0);
let turn = 0;
handles.alternating = {
  step: () => pair[turn++ & 1].step(),
  wait: (outs) => pair[0].wait(outs),
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
      `${name.padEnd(13)} dispatches ${s1.dispatches - s0.dispatches} bind groups ${s1.bind_groups - s0.bind_groups} ` +
        `submits ${s1.submits - s0.submits} graph copies ${s1.graph_copy_bytes - s0.graph_copy_bytes} B; ` +
        `${per[1].toFixed(2)} ms/step at 1 per wait, ${per[4].toFixed(2)} at 4`,
    );
  }
}

// One profiled step each: total GPU time per kernel label (every dispatch in its own timed pass,
// so the totals are above the untimed step's; compare the two columns, not with the rows above).
const totals = {};
for (const [name, h] of Object.entries(handles)) {
  await torch.webgpu.sync_device();
  let out;
  const prof = await torch.profiler.profile(async () => {
    out = h.step();
    await torch.webgpu.sync_device();
  });
  await h.wait([out]);
  const t = {};
  for (const e of prof.gpu_events)
    t[e.kernel] = (t[e.kernel] ?? 0) + e.dur_ns / 1e6;
  totals[name] = t;
  const sum = Object.values(t).reduce((a, b) => a + b, 0);
  console.log(
    `${name}: ${prof.gpu_events.length} timed kernels, ${sum.toFixed(2)} ms of GPU time`,
  );
}
const labels = [
  ...new Set([...Object.keys(totals.eager), ...Object.keys(totals.compiled)]),
];
const diff = labels
  .map((k) => [
    k,
    (totals.compiled[k] ?? 0) - (totals.eager[k] ?? 0),
    totals.eager[k] ?? 0,
    totals.compiled[k] ?? 0,
  ])
  .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
for (const [k, d, e, c] of diff.slice(0, 12))
  console.log(
    `  ${k.padEnd(60)} eager ${e.toFixed(3)} ms  compiled ${c.toFixed(3)} ms  (${d >= 0 ? "+" : ""}${d.toFixed(3)})`,
  );
