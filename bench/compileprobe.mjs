// Where a compiled call's time goes against the eager call, for the single-op rows of run.mjs:
// host time to issue N calls (results freed as they come) and the time with the wait, eager and
// compiled alternated round by round. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/compileprobe.mjs [--pkg pkg/dist/index.js] [--quick]

import { flag, loadPkg } from "./lib/cli.mjs";
import { median } from "./lib/timing.mjs";

const quick = flag("quick");
const { torch } = await loadPkg();
const F = torch.nn.functional;
const s = quick ? 1 / 16 : 1;
const rows = [
  [
    "layer_norm 8192×768",
    [8192 * s, 768],
    (x, w, b) => F.layer_norm(x, [768], w, b),
  ],
  ["sum 16M", [(1 << 24) * s], (x) => x.sum()],
  ["softmax 4096×4096", [4096 * s, 4096], (x) => torch.softmax(x, -1)],
];
const N = quick ? 20 : 200;
for (const [name, shape, fn] of rows) {
  const x = torch.randn(shape);
  const w = torch.randn([768]);
  const b = torch.randn([768]);
  const f = torch.compile(fn);
  for (let i = 0; i < 6; i++) f(x, w, b).dispose();
  const res = { eager: { rec: [], tot: [] }, compiled: { rec: [], tot: [] } };
  for (let round = 0; round < (quick ? 2 : 7); round++) {
    for (const [k, g] of [
      ["eager", fn],
      ["compiled", f],
    ]) {
      await torch.webgpu.sync_device();
      const t0 = performance.now();
      for (let i = 0; i < N; i++) g(x, w, b).dispose();
      const t1 = performance.now();
      await torch.webgpu.sync_device();
      const t2 = performance.now();
      res[k].rec.push(((t1 - t0) * 1e3) / N);
      res[k].tot.push(((t2 - t0) * 1e3) / N);
    }
  }
  const fmt = (k) =>
    `${k} host ${median(res[k].rec).toFixed(1)} µs/call, +wait ${median(res[k].tot).toFixed(1)}`;
  console.log(
    `${name.padEnd(22)} ${fmt("eager")} | ${fmt("compiled")} (graphs ${f.stats.graphs})`,
  );
  x.dispose();
}
