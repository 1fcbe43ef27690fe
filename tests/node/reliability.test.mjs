// Faults and load on WebGPU (Dawn in Node): device loss in the middle of training and of pending
// reads (the mapAsync of a lost device fails), allocation failures, many concurrent sync_device()
// and toArray() calls, 100,000 queued ops through the batcher, and a digits-MLP training run whose
// active bytes stay flat. docs/RELIABILITY.md records the figures of the long runs.
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { loadDigits, mlpTrainer } from "../../examples/digits.mjs";

const torch = await import(PKG_ENTRY.href);
const w = torch.webgpu;
const gpu = { device: "webgpu" };

test("1,000 concurrent toArray() reads all resolve with their own values", async () => {
  const ts = Array.from({ length: 1000 }, (_, i) =>
    torch.arange(8, gpu).float().mul(i).add(1),
  );
  const values = await Promise.all(ts.map((t) => t.toArray()));
  values.forEach((v, i) =>
    assert.deepEqual(
      Array.from(v),
      [0, 1, 2, 3, 4, 5, 6, 7].map((k) => k * i + 1),
    ),
  );
  for (const t of ts) t.dispose();
});

test("sync_device() from 200 async tasks at once: every task sees its own results", async () => {
  const x = torch.arange(16, gpu).float();
  const task = async (k) => {
    const y = x.mul(k).add(k);
    await w.sync_device();
    await Promise.resolve();
    await w.sync_device();
    const got = Array.from(await y.toArray());
    y.dispose();
    return got.every((v, i) => v === i * k + k);
  };
  const oks = await Promise.all(Array.from({ length: 200 }, (_, k) => task(k)));
  assert.equal(oks.filter(Boolean).length, 200);
  x.dispose();
});

test("100,000 queued ops are batched into few submits, the result is exact and memory flat", async () => {
  await w.sync_device();
  const before = w.runtime_stats();
  const base = w.memory_stats().active_bytes;
  const one = torch.ones(64, gpu);
  let acc = torch.zeros(64, gpu);
  for (let i = 0; i < 100_000; i++) {
    const next = acc.add(one);
    acc.dispose();
    acc = next;
  }
  assert.deepEqual(Array.from(await acc.toArray()), Array(64).fill(100_000));
  const after = w.runtime_stats();
  const submits = after.submits - before.submits;
  const dispatches = after.dispatches - before.dispatches;
  assert.ok(dispatches >= 1000, `${dispatches} dispatches`);
  assert.ok(
    submits * 16 <= dispatches,
    `${submits} submits for ${dispatches} dispatches`,
  );
  acc.dispose();
  one.dispose();
  await w.sync_device();
  assert.ok(
    w.memory_stats().active_bytes <= base,
    "active bytes back to where they were",
  );
});

test("allocation failures: an OutOfMemoryError, then the engine works", async () => {
  assert.throws(() => torch.zeros(2 ** 40, gpu), torch.OutOfMemoryError);
  // Over the adapter's binding limit: refused when the tensor is computed (at the read).
  const big = torch.zeros([1 << 30], gpu);
  await assert.rejects(() => big.toArray(), torch.OutOfMemoryError);
  big.dispose();
  assert.deepEqual(await torch.ones(3, gpu).mul(2).tolist(), [2, 2, 2]);
});

test("a failed pending computation fails once: typed errors, not retried, others compute, no leak", async () => {
  await w.sync_device();
  const base = w.memory_stats().active_bytes;
  const big = torch.zeros([1 << 30], gpu); // pending; computing it fails (4 GiB)
  const a = torch.arange(1024, gpu);
  const x = a.float();
  const y = x.mul(2); // pending, computed by the same flush
  await assert.rejects(() => w.sync_device(), torch.OutOfMemoryError);
  await w.sync_device(); // not retried, not reported again
  await w.sync_device();
  const err = await big.toArray().then(
    () => assert.fail("the read should reject"),
    (e) => e,
  );
  assert.ok(err instanceof torch.OutOfMemoryError, String(err));
  assert.match(err.message, /maxStorageBufferBindingSize/);
  const same = (e) =>
    e instanceof torch.OutOfMemoryError && e.message === err.message;
  assert.throws(() => big.add(1), same);
  const [ones, part] = [torch.ones(4, gpu), big.narrow(0, 0, 4)];
  assert.throws(() => ones.add(part), same);
  assert.deepEqual(
    Array.from(await y.toArray()),
    Array.from({ length: 1024 }, (_, i) => 2 * i),
  );
  for (const t of [big, a, x, y, ones, part]) t.dispose();
  await w.sync_device();
  assert.ok(
    w.memory_stats().active_bytes <= base,
    "active bytes back to where they were",
  );
});

test("device loss mid-training and mid-read: DeviceErrors, no hang; initialize_device() recovers", async () => {
  torch.manual_seed(0);
  const model = new torch.nn.Linear(8, 2);
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.1 });
  const x = torch.randn(4, 8);
  const step = () =>
    torch.scope(() => {
      opt.zero_grad();
      model.forward(x).square().mean().backward();
      opt.step();
    });
  for (let i = 0; i < 5; i++) step();
  const pending = [x.sum(), model.weight.mul(2)].map((t) => t.toArray());
  torch._C.debug_destroy_device(); // the reads' mapAsync now fails
  const results = await Promise.allSettled(pending);
  assert.ok(
    results.some((r) => r.status === "rejected"),
    "a read in flight fails",
  );
  for (const r of results)
    if (r.status === "rejected")
      assert.ok(r.reason instanceof torch.DeviceError, String(r.reason));
  assert.throws(() => step(), torch.DeviceError);
  await assert.rejects(() => x.toArray(), torch.DeviceError);
  assert.equal(await w.initialize_device(), "webgpu");
  const fresh = new torch.nn.Linear(8, 2);
  const y = fresh.forward(torch.ones(1, 8));
  const want = (await fresh.weight.sum(1).add(fresh.bias).tolist()).map(
    (v) => +v.toFixed(4),
  );
  assert.deepEqual(
    (await y.tolist())[0].map((v) => +v.toFixed(4)),
    want,
  );
});

test("1,000 training steps of the digits MLP on the CPU: active bytes do not grow", async () => {
  const data = await loadDigits();
  await torch.init({ device: "cpu" });
  const { step } = mlpTrainer(torch, data);
  try {
    for (let i = 0; i < 20; i++) step(i).dispose();
    const start = w.memory_stats().active_bytes;
    let peak = start;
    for (let i = 20; i < 1000; i++) {
      step(i).dispose();
      if (i % 100 === 99) peak = Math.max(peak, w.memory_stats().active_bytes);
    }
    const end = w.memory_stats().active_bytes;
    assert.ok(
      end <= start && peak <= start,
      `flat: ${start} → ${end} (peak ${peak})`,
    );
  } finally {
    await torch.init();
  }
});

test("digits-MLP training on WebGPU: active bytes flat from step 10 to step 40", async () => {
  // Short, because a step costs about a second on SwiftShader; the 10,000-step curve is
  // scripts/reliability-load.mjs (docs/RELIABILITY.md).
  const data = await loadDigits();
  const { model, step } = mlpTrainer(torch, data);
  assert.equal(model.parameters()[0].device, "webgpu");
  for (let i = 0; i < 10; i++) step(i).dispose();
  await w.sync_device();
  const start = w.memory_stats().active_bytes;
  let peak = start;
  for (let i = 10; i < 40; i++) {
    step(i).dispose();
    if (i % 10 === 9) {
      await w.sync_device();
      peak = Math.max(peak, w.memory_stats().active_bytes);
    }
  }
  assert.ok(start > 0 && peak <= start, `flat: ${start} (peak ${peak})`);
  for (const p of model.parameters()) p.dispose();
});
