// The long load run of docs/RELIABILITY.md: N training steps (default 10,000) of the digits MLP
// (64-128-10, Adam, batch 32, each step in a torch.scope), printing memory_stats().active_bytes
// every 500 steps. Run after `make pkg`:
//   node scripts/reliability-load.mjs [--steps N] [--device cpu|webgpu]
import * as torch from "../pkg/dist/index.js";
import { batch, loadDigits } from "../examples/digits.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const STEPS = Number(arg("steps", 10_000));
if (arg("device")) await torch.init({ device: arg("device") });
const data = await loadDigits();
torch.manual_seed(0);
const model = new torch.nn.Sequential(
  new torch.nn.Linear(64, 128),
  new torch.nn.ReLU(),
  new torch.nn.Linear(128, 10),
);
const opt = new torch.optim.Adam(model.parameters(), { lr: 5e-3 });
const t0 = Date.now();
console.log(`device ${torch.get_default_device()}, ${STEPS} steps`);
console.log("step\tactive_bytes\tlive_tensors\tloss");
for (let i = 0; i < STEPS; i++) {
  const loss = torch.scope(() => {
    const idx = Array.from(
      { length: 32 },
      (_, k) => (i * 32 + k) % data.train.n,
    );
    const { x, y } = batch(torch, data.train, idx);
    opt.zero_grad();
    const l = torch.nn.functional.cross_entropy(model.forward(x), y);
    l.backward();
    opt.step();
    return l.detach();
  });
  if (i % 500 === 499 || i === 0) {
    await torch.webgpu.sync_device();
    const s = torch.webgpu.runtime_stats();
    console.log(
      `${i + 1}\t${s.active_bytes}\t${s.live_tensors}\t${(await loss.item()).toFixed(4)}`,
    );
  }
  loss.dispose();
}
console.log(`${((Date.now() - t0) / 1000).toFixed(0)} s`);
