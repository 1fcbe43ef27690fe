// Host cost of torch.compile against eager: the time JS spends issuing one training step of a
// small MLP (forward, backward, SGD step) and one forward, on the CPU backend with tiny sizes so
// that the figure is dominated by host work, not arithmetic. Figures, never asserted timings.
//
//   node bench/compile.mjs [--device cpu|webgpu] [--steps 300]
//
// Run from the repository root after `make pkg`. Prints a Markdown table: eager, the trace
// replayed call by call from TS (`plan: false`), and through the core plan (one wasm call).

import { performance } from "node:perf_hooks";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const torch = await import(
  new URL("../pkg/dist/index.js", import.meta.url).href
);
const device = arg("device", "cpu");
await torch.init({ device });
const steps = Number(arg("steps", 300));

function setup() {
  torch.manual_seed(0);
  const x = torch.randn(8, 16);
  const y = torch.randn(8, 4);
  const model = new torch.nn.Sequential(
    new torch.nn.Linear(16, 32),
    new torch.nn.Tanh(),
    new torch.nn.Linear(32, 32),
    new torch.nn.Tanh(),
    new torch.nn.Linear(32, 4),
  );
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.01 });
  const step = (xb, yb) => {
    opt.zero_grad();
    const loss = torch.nn.functional.mse_loss(model.call(xb), yb);
    loss.backward();
    opt.step();
    return loss;
  };
  const forward = (xb) => model.call(xb);
  return { x, y, step, forward };
}

/** Mean host milliseconds per call of `fn` over `n` calls (after 5 warm-up calls). */
async function host(fn, n) {
  for (let i = 0; i < 5; i++) fn().dispose();
  await torch.webgpu.sync_device();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn().dispose();
  const ms = (performance.now() - t0) / n;
  await torch.webgpu.sync_device();
  return ms;
}

const rows = [];
for (const kind of ["train step", "forward"]) {
  const pick = (m) => (kind === "train step" ? m.step : m.forward);
  const e = setup();
  const r = setup();
  const c = setup();
  const rfn = torch.compile(pick(r), { plan: false });
  const cfn = torch.compile(pick(c));
  const eager = await host(() => pick(e)(e.x, e.y), steps);
  const ts = await host(() => rfn(r.x, r.y), steps);
  const plan = await host(() => cfn(c.x, c.y), steps);
  const f = (ms) => `${ms.toFixed(3)} (${(eager / ms).toFixed(1)}x)`;
  rows.push(
    `| ${kind} | ${eager.toFixed(3)} | ${f(ts)} | ${f(plan)} | ${cfn.stats.planned > 0 ? "yes" : "no"} |`,
  );
}
console.log(
  `torch.compile host cost on ${device} (MLP 16-32-32-4, batch 8, ${steps} calls)\n`,
);
console.log(
  "| workload | eager ms/call | TS replay ms/call | core plan ms/call | planned |",
);
console.log("| --- | ---: | ---: | ---: | :---: |");
console.log(rows.join("\n"));
