// Micro-benchmark: matmul and a fused elementwise chain, timed with sync_device
import * as torch from "webtorch";

/** Mean time of `fn` over `n` calls: queue them all, then wait for the GPU to finish. */
const time = async (label: string, n: number, fn: () => torch.Tensor) => {
  const run = async (k: number) => {
    const outs = Array.from({ length: k }, fn);
    await torch.webgpu.sync_device(); // computes every pending result
    outs.forEach((t) => t.dispose());
  };
  await run(1); // warm-up: compiles the kernels
  const t0 = performance.now();
  await run(n);
  const ms = (performance.now() - t0) / n;
  print(`${label.padEnd(38)} ${ms.toFixed(3)} ms`);
  return ms;
};

torch.manual_seed(0);
const size = QUICK ? 128 : 512;
const reps = QUICK ? 3 : 20;
const a = torch.randn(size, size);
const b = torch.randn(size, size);
const ms = await time(`matmul ${size}×${size}`, reps, () => a.matmul(b));
print(
  `  ≈ ${((2 * size ** 3) / (ms * 1e6)).toFixed(2)} GFLOP/s on ${torch.get_default_device()}`,
);

// Four elementwise ops: one fused kernel, or one dispatch per op with fusion off.
const chain = () => a.mul(2).add(b).relu().mul(0.5);
const kernels = async () => {
  const before = torch.webgpu.runtime_stats().dispatches;
  const out = chain();
  await torch.webgpu.sync_device();
  out.dispose();
  return torch.webgpu.runtime_stats().dispatches - before;
};
await time("relu(a·2 + b)·0.5, fused", reps, chain);
print("  kernels per chain:", await kernels());
torch.webgpu.disable_fusion();
await time("relu(a·2 + b)·0.5, one kernel per op", reps, chain);
print("  kernels per chain:", await kernels());
torch.webgpu.enable_fusion();
