// The public API in Node on WebGPU: Dawn from the `webgpu` npm package (the Makefile sets
// VK_ICD_FILENAMES so that Dawn finds SwiftShader here). The default device must be "webgpu".
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY, registerChecks } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);

test("[webgpu] import picks WebGPU: a real adapter through the webgpu package", async () => {
  assert.equal(
    torch.get_default_device(),
    "webgpu",
    "default device (is VK_ICD_FILENAMES set?)",
  );
  assert.equal(torch.webgpu.is_available(), true);
  const adapter = await globalThis.navigator.gpu.requestAdapter();
  assert.ok(adapter, "navigator.gpu.requestAdapter() gives an adapter");
  const info = torch._C.adapter_info();
  assert.equal(typeof info, "object");
  assert.ok(info.features.length >= 0 && typeof info.limits === "object");
});

test("[webgpu] tiny ops share launches: a few dispatches for a chain, the CPU's values, nothing left", async () => {
  const w = torch.webgpu;
  const core = await import(new URL("wasm/webtorch_core.js", PKG_ENTRY).href);
  // Forced on: SwiftShader emulates a GPU on the CPU, where the default is one dispatch per op.
  core.set_batched_launches(true);
  try {
    torch.manual_seed(5);
    const live0 = w.runtime_stats().live_tensors;
    const x0 = torch.randn([8, 8]);
    const m = torch.scope(() => torch.randn([8, 8]).mul(0.3));
    const b = torch.randn([8]);
    // Intermediates freed by the scope as it closes (the result is kept).
    const chain = (x, m, b) =>
      torch.scope(() => {
        for (let i = 0; i < 12; i++)
          x = x.matmul(m).add(b).tanh().mul(1.5).sub(x.relu());
        return x;
      });
    await w.sync_device();
    const s0 = w.runtime_stats();
    const got = chain(x0, m, b);
    const vals = await got.toArray();
    const s1 = w.runtime_stats();
    const ops = 12 * 6;
    assert.equal(s1.batched_ops - s0.batched_ops, ops, "every op batched");
    // The chain's intermediates stay alive until collected, each in a buffer of its own, and a
    // batch binds at most 7 buffers: 4–5 ops a batch here (24 where buffers come back).
    assert.ok(
      s1.dispatches - s0.dispatches <= ops / 3,
      `${s1.dispatches - s0.dispatches} dispatches for ${ops} ops`,
    );
    const [xc, mc, bc] = await Promise.all(
      [x0, m, b].map((t) => t.to_async("cpu")),
    );
    const gotCpu = chain(xc, mc, bc);
    const want = await gotCpu.toArray();
    for (let i = 0; i < want.length; i++)
      assert.ok(
        Math.abs(vals[i] - want[i]) <= 1e-5 * (1 + Math.abs(want[i])),
        `[${i}]: ${vals[i]} vs ${want[i]}`,
      );
    for (const t of [x0, m, b, got, xc, mc, bc, gotCpu]) t.dispose();
    assert.equal(w.runtime_stats().live_tensors, live0, "live tensors");
    // A compiled step's replay reads what waiting tiny ops write: they run first.
    const f = torch.compile((v) => v.mul(2).add(1));
    const a = torch.randn([64]);
    for (let i = 0; i < 3; i++) f(a).dispose(); // traced, then replayed as a kernel graph
    const replays = w.runtime_stats().graph_replays;
    await w.sync_device();
    const big = torch.randn([4096]);
    const total = big.sum(); // a kernel of its own: the batch's compute pass is open
    const b2 = torch.scope(() => a.add(3).mul(0.5)); // two tiny ops: one batch, waiting
    const y = f(b2);
    assert.ok(w.runtime_stats().graph_replays > replays, "a graph replay");
    const [av, yv] = [await a.toArray(), await y.toArray()];
    for (let i = 0; i < av.length; i++)
      assert.ok(
        Math.abs(yv[i] - ((av[i] + 3) * 0.5 * 2 + 1)) <= 1e-5,
        `replay [${i}]: ${yv[i]}`,
      );
    for (const t of [a, b2, y, big, total]) t.dispose();
    torch.compiler.reset();
    // The default on this adapter: one dispatch per op.
    core.set_batched_launches(undefined);
    if (torch._C.adapter_info().name.includes("SwiftShader")) {
      const y = torch.randn([64]);
      const before = w.runtime_stats().batched_ops;
      const z = y.add(1).exp();
      await z.toArray();
      assert.equal(
        w.runtime_stats().batched_ops,
        before,
        "not batched by default on SwiftShader",
      );
      y.dispose();
      z.dispose();
    }
  } finally {
    core.set_batched_launches(undefined);
  }
});

registerChecks(torch, "webgpu");
