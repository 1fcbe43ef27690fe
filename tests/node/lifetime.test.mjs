// Lifetimes, leaks, the profiler and device loss, on WebGPU in Node (Dawn): scopes return memory
// to its baseline, a training-like loop keeps active bytes flat, the leak report lists what is
// alive, the profiler times ops, and a lost device surfaces as a DeviceError that
// initialize_device() recovers from.
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const w = torch.webgpu;

test("scope: everything made inside is freed except what it returns", async () => {
  await w.sync_device();
  const base = w.memory_stats();
  const kept = torch.scope(() => {
    const a = torch.randn(256, 256);
    const b = a.matmul(a).relu().add(1);
    return { out: b.sum(), list: [b.mean()] };
  });
  assert.equal(kept.out.isDisposed, false);
  assert.equal(kept.list[0].isDisposed, false);
  const s = await kept.out.item();
  assert.ok(Number.isFinite(s));
  kept.out.dispose();
  kept.list[0].dispose();
  await w.sync_device();
  const after = w.memory_stats();
  assert.equal(
    after.active_bytes,
    base.active_bytes,
    "active bytes back to the baseline",
  );
  assert.equal(after.live_tensors, base.live_tensors, "no live handles left");
  // Async scopes close when their promise settles; a throw still frees.
  const v = await torch.scope(async () => {
    const t = torch.ones(1000).mul(3);
    return await t.sum().item();
  });
  assert.equal(v, 3000);
  assert.throws(() =>
    torch.scope(() => {
      torch.zeros(1000);
      throw new Error("boom");
    }),
  );
  await w.sync_device();
  assert.equal(w.memory_stats().active_bytes, base.active_bytes);
});

test("a 1,000-step training-like loop keeps active bytes flat", async () => {
  torch.manual_seed(0);
  const W = torch.randn(16, 16).mul(0.01).requires_grad_();
  const x = torch.randn(8, 16);
  const step = () =>
    torch.scope(() => {
      const loss = x.matmul(W).tanh().square().mean();
      loss.backward();
      torch.no_grad(() => {
        W.sub_(W.grad.mul(0.1));
      });
      W.grad = null;
    });
  for (let i = 0; i < 20; i++) step();
  await w.sync_device();
  const start = w.memory_stats().active_bytes;
  let peak = start;
  for (let i = 0; i < 1000; i++) {
    step();
    if (i % 100 === 99) {
      await w.sync_device();
      peak = Math.max(peak, w.memory_stats().active_bytes);
    }
  }
  await w.sync_device();
  // Flat: never above where it started (it may drop when the GC backstop frees older handles).
  const end = w.memory_stats().active_bytes;
  assert.ok(
    end <= start && peak <= start,
    `flat: ${start} → ${end} (peak ${peak})`,
  );
});

test("leak_report lists live tensors with where they were made", () => {
  w.set_leak_tracking(true);
  const t = torch.zeros([3, 5], { dtype: "int32" });
  w.set_leak_tracking(false);
  const mine = w
    .leak_report()
    .find((e) => e.shape.join() === "3,5" && e.dtype === "int32");
  assert.ok(mine, "the tensor is listed");
  assert.equal(mine.bytes, 60);
  assert.match(mine.stack ?? "", /lifetime\.test\.mjs/);
  t.dispose();
  assert.equal(
    w.leak_report().find((e) => e.id === mine.id),
    undefined,
    "disposed: gone",
  );
});

test("profiler: key_averages table and a Chrome trace, with GPU times", async () => {
  await w.sync_device();
  const before = w.runtime_stats().dispatches;
  const prof = await torch.profiler.profile(async () => {
    torch.profiler.record_function("block", () => {
      const a = torch.randn(64, 64);
      a.matmul(a).relu().sum();
    });
  });
  const dispatched = w.runtime_stats().dispatches - before;
  const names = prof.events.map((e) => e.name);
  for (const n of ["randn", "matmul", "relu", "sum", "block"])
    assert.ok(names.includes(n), `${n} in ${names}`);
  // Dawn's SwiftShader adapter has timestamp-query: every dispatch of the profile has a GPU time.
  assert.ok(w.getCapabilities().features.includes("timestamp-query"));
  assert.equal(prof.gpu_timing, true);
  assert.equal(prof.gpu_events.length, dispatched);
  assert.ok(dispatched >= 2, `matmul+relu, sum: ${dispatched}`);
  for (const k of prof.gpu_events) {
    assert.ok(k.dur_ns >= 0 && Number.isFinite(k.dur_ns), `${k.kernel}`);
    assert.ok(k.start_ns >= 0);
  }
  const kernels = prof.gpu_events.map((k) => k.kernel);
  // The product and its relu are one kernel (the epilogue); the sum forced it, so it is its op.
  const mm = prof.gpu_events.find((k) =>
    k.kernel.startsWith("webtorch:matmul+relu"),
  );
  assert.ok(mm, `${kernels}`);
  assert.equal(mm.op, "sum");
  const rows = prof.key_averages();
  const gpuTotal = prof.gpu_events.reduce((s, k) => s + k.dur_ns / 1000, 0);
  const selfGpu = rows.reduce((s, r) => s + r.self_gpu_time_total, 0);
  assert.ok(Math.abs(selfGpu - gpuTotal) <= 1e-6 * Math.max(1, gpuTotal));
  const block = rows.find((r) => r.key === "block");
  assert.ok(
    Math.abs(block.gpu_time_total - gpuTotal) <= 1e-6 * Math.max(1, gpuTotal),
  );
  const table = rows.table({ sort_by: "cpu_time_total", row_limit: 10 });
  assert.match(
    table,
    /Name\s+Self CPU %\s+Self CPU\s+CPU total %\s+CPU total\s+CPU time avg\s+Self GPU\s+Self GPU %\s+GPU total\s+GPU time avg\s+# of Calls/,
  );
  assert.match(table, /Self CPU time total: /);
  assert.match(table, /Self GPU time total: /);
  const trace = JSON.parse(prof.export_chrome_trace());
  const spans = trace.traceEvents.filter((e) => e.ph === "X");
  assert.ok(spans.every((e) => e.dur >= 0 && Number.isFinite(e.ts)));
  const gpuTrack = spans.filter((e) => e.pid === 1);
  assert.equal(gpuTrack.length, dispatched);
  assert.equal(spans.length - gpuTrack.length, prof.events.length);
  // A synchronous profile reads its GPU times when asked; before that the table says so.
  const sync = torch.profiler.profile(() => {
    torch.randn(32, 32).exp().sum();
  });
  assert.match(sync.key_averages().table(), /GPU time: not read yet/);
  await sync.synchronize();
  assert.ok(sync.gpu_events.length >= 1);
  assert.match(sync.key_averages().table(), /Self GPU time total/);
});

test("device loss: a DeviceError, never a hang; initialize_device() recovers", async () => {
  const x = torch.ones(4).add(1);
  torch._C.debug_destroy_device();
  await assert.rejects(
    () => x.toArray(),
    (e) => e instanceof torch.DeviceError && /device was lost/.test(e.message),
  );
  assert.throws(
    () => torch.ones(4, { device: "webgpu" }).exp(),
    torch.DeviceError,
  );
  assert.equal(await w.initialize_device(), "webgpu");
  assert.deepEqual(await torch.ones(3).mul(2).tolist(), [2, 2, 2]);
});

test("a panic inside the core throws and leaves the engine working", async () => {
  const a = torch.ones(3).mul(2);
  assert.throws(() => torch._C.debug_panic());
  assert.deepEqual(await a.add(1).tolist(), [3, 3, 3]);
  assert.deepEqual(await torch.arange(4).sum().item(), 6);
});

test("an optimizer step inside a scope keeps the optimizer's state", async () => {
  torch.manual_seed(1);
  const w = torch.randn(4, 4).requires_grad_();
  const opt = new torch.optim.Adam([w], { lr: 0.1 });
  for (let i = 0; i < 3; i++) {
    torch.scope(() => {
      opt.zero_grad();
      w.square().sum().backward();
      opt.step();
    });
  }
  const state = opt.state.get(w);
  assert.equal(state.exp_avg.isDisposed, false, "exp_avg survives the scopes");
  assert.ok(Number.isFinite(await w.sum().item()));
});

test("a Tensor reads dtype, device and shape in one core call, up to 16 dims through the scratch and beyond through shape()", () => {
  const ones = (n) =>
    Array.from({ length: n }, (_, i) => (i === n - 1 ? 3 : 1));
  for (const n of [0, 1, 16, 17, 24]) {
    const t = torch.zeros(ones(n), { dtype: "int32" });
    assert.deepEqual(t.shape, ones(n), `${n} dims`);
    assert.ok(Object.isFrozen(t.shape));
    assert.equal(t.dtype, "int32");
    t.dispose();
  }
  // The module's memory grows (a large CPU tensor lives in it): the scratch's view is made again.
  const before = torch.zeros([2, 5]);
  const big = torch.zeros([64, 1024, 1024], { device: "cpu" });
  const after = before.view([5, 2]);
  assert.deepEqual(after.shape, [5, 2]);
  assert.deepEqual(big.shape, [64, 1024, 1024]);
  assert.equal(big.device, "cpu");
  for (const t of [before, big, after]) t.dispose();
});
