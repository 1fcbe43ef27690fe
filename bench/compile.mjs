// Host cost of torch.compile against eager: the time JS spends issuing one training step of a
// small MLP (forward, backward, SGD step) and one forward, on the CPU backend with tiny sizes so
// that the figure is dominated by host work, not arithmetic. Figures, never asserted timings.
//
//   node bench/compile.mjs [--device cpu|webgpu] [--steps 300]
//
// Run from the repository root after `make pkg`. Prints a Markdown table; the replayed trace
// still crosses the wasm boundary once per recorded core call (see docs/compile.md).

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
  const e = setup();
  const c = setup();
  const fn = kind === "train step" ? e.step : e.forward;
  const cfn = torch.compile(kind === "train step" ? c.step : c.forward);
  const eager = await host(() => fn(e.x, e.y), steps);
  const compiled = await host(() => cfn(c.x, c.y), steps);
  rows.push(
    `| ${kind} | ${eager.toFixed(3)} | ${compiled.toFixed(3)} | ${(eager / compiled).toFixed(2)}x | ${cfn.stats.replays}/${cfn.stats.replays + cfn.stats.traces + cfn.stats.eager} |`,
  );
}
console.log(
  `torch.compile host cost on ${device} (MLP 16-32-32-4, batch 8, ${steps} calls)\n`,
);
console.log(
  "| workload | eager ms/call | compiled ms/call | speed-up | replayed |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
console.log(rows.join("\n"));
