// Host time of one optimizer step for the digits MLP (64-128-10, ReLU, Adam, batch 32): the time
// JS spends issuing `opt.step()` (no wait for the GPU) and a whole training step (zero_grad,
// forward, cross_entropy, backward, step), averaged over 200 steps after 20 warm-up steps, with a
// sync every 10 steps. Figures for docs/nn.md, never asserted.
//
//   node bench/optim_step.mjs [--pkg pkg/dist/index.js] [--device webgpu|cpu] [--optim Adam]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { batch, loadDigits } from "../examples/digits.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const torch = await import(
  pathToFileURL(path.resolve(arg("pkg", "pkg/dist/index.js"))).href
);
await torch.init({ device: arg("device", "auto") });
const { nn, optim } = torch;
const data = await loadDigits();
torch.manual_seed(0);
const model = new nn.Sequential(
  new nn.Linear(64, 128),
  new nn.ReLU(),
  new nn.Linear(128, 10),
);
const name = arg("optim", "Adam");
const opt = new optim[name](model.parameters(), { lr: 5e-3 });
const idx = Array.from({ length: 32 }, (_, i) => i);
const { x, y } = batch(torch, data.train, idx);

let stepMs = 0;
let totalMs = 0;
const WARMUP = 20;
const STEPS = 200;
for (let s = 0; s < WARMUP + STEPS; s++) {
  const t0 = performance.now();
  torch.scope(() => {
    opt.zero_grad();
    nn.functional.cross_entropy(model.call(x), y).backward();
  });
  const t1 = performance.now();
  opt.step();
  const t2 = performance.now();
  if (s >= WARMUP) {
    stepMs += t2 - t1;
    totalMs += t2 - t0;
  }
  if (s % 10 === 9) await torch.webgpu.sync_device();
}
await torch.webgpu.sync_device();
console.log(
  JSON.stringify({
    device: torch.get_default_device(),
    optimizer: name,
    step_ms: +(stepMs / STEPS).toFixed(3),
    train_step_ms: +(totalMs / STEPS).toFixed(3),
  }),
);
