// Matmul epilogue fusion through the public API on WebGPU (Dawn): under no_grad,
// F.gelu(F.linear(x, w, b)) + r is one dispatch, and equals the unfused GPU result and the CPU
// backend's (whose kernels the parity fixtures check against PyTorch).
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;
const w = torch.webgpu;

function close(a, b, tol, what) {
  assert.equal(a.length, b.length, what);
  for (let i = 0; i < a.length; i++)
    assert.ok(
      Math.abs(a[i] - b[i]) <= tol * (1 + Math.abs(b[i])),
      `${what}[${i}]: ${a[i]} vs ${b[i]}`,
    );
}

test("F.linear + gelu + residual under no_grad is one matmul dispatch", async () => {
  torch.manual_seed(3);
  const cpu = {
    x: torch.randn([96, 64], { device: "cpu" }),
    wt: torch.randn([128, 64], { device: "cpu" }),
    b: torch.randn([128], { device: "cpu" }),
    r: torch.randn([96, 128], { device: "cpu" }),
  };
  const gpu = {};
  for (const [k, v] of Object.entries(cpu)) gpu[k] = v.to("webgpu");
  const f = ({ x, wt, b, r }) =>
    torch.no_grad(() => F.gelu(F.linear(x, wt, b)).add(r));
  await w.sync_device();
  const s0 = w.get_fusion_stats().fusions;
  const d0 = w.runtime_stats().dispatches;
  const fused = f(gpu);
  await w.sync_device();
  assert.equal(w.runtime_stats().dispatches - d0, 1, "one dispatch");
  assert.equal(w.get_fusion_stats().fusions - s0, 1);
  w.disable_fusion();
  const d1 = w.runtime_stats().dispatches;
  let unfused;
  try {
    unfused = f(gpu);
    await w.sync_device();
    assert.ok(
      w.runtime_stats().dispatches - d1 >= 3,
      "matmul, bias, gelu, add unfused",
    );
  } finally {
    w.enable_fusion();
  }
  const want = await f(cpu).toArray();
  close(
    await fused.toArray(),
    await unfused.toArray(),
    1e-5,
    "fused vs unfused",
  );
  close(await fused.toArray(), want, 1e-4, "fused vs cpu");
});
