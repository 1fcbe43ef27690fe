// The long load run of docs/RELIABILITY.md: N training steps (default 10,000) of the digits MLP
// (64-128-10, Adam, batch 32, each step in a torch.scope), printing memory_stats().active_bytes
// every `--every` steps (default 500). Run after `make pkg`:
//   node scripts/reliability-load.mjs [--steps N] [--every K] [--device cpu|webgpu] [--out file.json]
// With `--out`, the samples are also written as JSON ({device, adapter, steps, seconds, samples:
// [{step, active_bytes, pooled_bytes, live_tensors, loss}]}); bench/reliability/ keeps the runs
// docs/RELIABILITY.md quotes.
import * as torch from "../pkg/dist/index.js";
import { loadDigits, mlpTrainer } from "../examples/digits.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const STEPS = Number(arg("steps", 10_000));
const EVERY = Number(arg("every", 500));
const OUT = arg("out");
if (arg("device")) await torch.init({ device: arg("device") });
const data = await loadDigits();
const { step } = mlpTrainer(torch, data);
const t0 = Date.now();
console.log(`device ${torch.get_default_device()}, ${STEPS} steps`);
console.log("step\tactive_bytes\tlive_tensors\tloss");
const samples = [];
const { writeFile } = await import("node:fs/promises");
const info = torch.webgpu.getCapabilities();
/** Writes the run so far (after every sample: a long run cut short keeps its curve). */
const save = (done) =>
  OUT
    ? writeFile(
        OUT,
        JSON.stringify(
          {
            device: torch.get_default_device(),
            adapter: info ? `${info.name} (${info.backend})` : null,
            steps: STEPS,
            every: EVERY,
            done,
            seconds: Math.round((Date.now() - t0) / 1000),
            samples,
          },
          null,
          1,
        ) + "\n",
      )
    : undefined;
for (let i = 0; i < STEPS; i++) {
  const loss = step(i);
  if (i % EVERY === EVERY - 1 || i === 0) {
    await torch.webgpu.sync_device();
    const s = torch.webgpu.runtime_stats();
    const m = torch.webgpu.memory_stats();
    const l = await loss.item();
    samples.push({
      step: i + 1,
      active_bytes: m.active_bytes,
      pooled_bytes: m.pooled_bytes,
      live_tensors: s.live_tensors,
      loss: Number(l.toFixed(6)),
    });
    console.log(
      `${i + 1}\t${m.active_bytes}\t${s.live_tensors}\t${l.toFixed(4)}`,
    );
    await save(false);
  }
  loss.dispose();
}
console.log(`${Math.round((Date.now() - t0) / 1000)} s`);
await save(true);
