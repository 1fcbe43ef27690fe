// Checks of reads, errors, lifetimes and the torch.webgpu runtime controls.
// Part of the shared API checks: see ./index.mjs.
import { eq, ok, throws, rejects, tensorIs, show } from "./assert.mjs";

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "reads: toArray types, item, tolist, concurrent reads",
    async run(torch) {
      ok(
        (await torch.ones(2).toArray()) instanceof Float32Array,
        "float32 → Float32Array",
      );
      ok(
        (await torch.tensor([1, 2]).toArray()) instanceof Int32Array,
        "int64 → Int32Array",
      );
      ok(
        (await torch.tensor([1], { dtype: "int32" }).toArray()) instanceof
          Int32Array,
        "int32 → Int32Array",
      );
      ok(
        (await torch.tensor([true]).toArray()) instanceof Uint8Array,
        "bool → Uint8Array",
      );
      const pending = torch.tensor(new Uint8Array([1])).toArray();
      ok(pending instanceof Promise, "toArray() returns a Promise");
      eq(await pending, [1], "awaited toArray()");
      eq(await torch.tensor([[2.5]]).item(), 2.5, "item of [[2.5]]");
      eq(await torch.arange(5).sum().item(), 10, "item of a sum");
      eq(await torch.tensor(true).item(), true, "item of bool");
      await rejects(
        () => torch.zeros(2).item(),
        torch.TorchError,
        "a Tensor with 2 elements cannot be converted to Scalar",
        "item of 2",
      );
      await rejects(
        () => torch.zeros(0).item(),
        torch.TorchError,
        "a Tensor with 0 elements cannot be converted to Scalar",
        "item of 0",
      );
      eq(await torch.tensor(4).tolist(), 4, "tolist of rank 0");
      eq(
        await torch.tensor([[true], [false]]).tolist(),
        [[true], [false]],
        "tolist of bool",
      );
      eq(
        await torch.zeros([2, 0, 3]).tolist(),
        [[], []],
        "tolist with a 0 dim",
      );
      const ts = Array.from({ length: 12 }, (_, i) =>
        torch.full([3], i).mul(2),
      );
      const all = await Promise.all(ts.map((t) => t.tolist()));
      eq(
        all,
        Array.from({ length: 12 }, (_, i) => [2 * i, 2 * i, 2 * i]),
        "12 concurrent reads",
      );
    },
  },
  {
    name: "errors: typed classes with PyTorch wording, core stays usable after them",
    async run(torch) {
      const err = throws(
        () => torch.ones([2, 3]).matmul(torch.ones([4, 5])),
        torch.ShapeError,
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        "matmul shape error",
      );
      ok(
        err instanceof torch.TorchError && err instanceof Error,
        "ShapeError is a TorchError and an Error",
      );
      eq(err.name, "ShapeError", "error name");
      ok(
        String(err.stack).startsWith("ShapeError"),
        `stack starts with the class name: ${String(err.stack).split("\n")[0]}`,
      );
      for (const C of [
        torch.ShapeError,
        torch.DTypeError,
        torch.IndexError,
        torch.DeviceError,
        torch.OutOfMemoryError,
      ]) {
        const e = new C("x");
        ok(
          e instanceof torch.TorchError && e.name === C.name,
          `${C.name} extends TorchError and names itself`,
        );
      }
      throws(
        () => torch.ones([2, 3]).transpose(0, 2),
        torch.IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        "transpose(0, 2)",
      );
      throws(
        () => torch.ones([2, 3]).permute(0, 0),
        torch.TorchError,
        "permute(): duplicate dims are not allowed.",
        "permute(0, 0)",
      );
      throws(
        () => torch.ones([2, 3]).expand(3, 3),
        torch.ShapeError,
        "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 3]",
        "bad expand",
      );
      throws(
        () => torch.zeros([-1, 2]),
        torch.TorchError,
        "zeros: Dimension size must be non-negative.",
        "negative size (zeros' own check)",
      );
      throws(
        () => torch.ones([-1, 2]),
        torch.TorchError,
        "Trying to create tensor with negative dimension -1: [-1, 2]",
        "negative size",
      );
      throws(
        () => torch.tensor([1.5]).matmul(5),
        torch.TorchError,
        "must be Tensor",
        "matmul(5)",
      );
      // Nothing above broke the engine.
      await tensorIs(torch.ones(2).add(1), { values: [2, 2] }, "after errors");
    },
  },
  {
    name: "lifetimes: dispose, Symbol.dispose, clone is independent",
    async run(torch) {
      const x = torch.ones(3);
      const y = x.clone();
      x.dispose();
      x.dispose(); // idempotent
      ok(x.isDisposed, "isDisposed");
      throws(() => x.add(1), torch.TorchError, "disposed", "use after dispose");
      await tensorIs(
        y,
        { values: [1, 1, 1] },
        "clone survives dispose of its source",
      );
      ok(typeof y[Symbol.dispose] === "function", "Symbol.dispose method");
      y[Symbol.dispose]();
      ok(y.isDisposed, "Symbol.dispose disposes");
      eq(x.shape, [3], "shape stays readable after dispose");
    },
  },
  {
    name: "torch.webgpu: sync, flush, batching controls, stats; ops batch into few submits",
    async run(torch, { device }) {
      const w = torch.webgpu;
      if (device === "webgpu")
        ok(w.is_available(), "is_available() on the webgpu run");
      await w.sync_device();
      eq(w.get_pending_count(), 0, "nothing pending after sync_device()");
      w.set_batch_threshold(64);
      w.set_batch_delay(16);
      w.flush_batch();
      const stats = w.runtime_stats();
      for (const k of [
        "submits",
        "dispatches",
        "pipelines",
        "allocations",
        "reuses",
        "active_bytes",
        "pooled_bytes",
        "peak_bytes",
        "live_tensors",
      ]) {
        ok(
          typeof stats[k] === "number" && stats[k] >= 0,
          `runtime_stats().${k} is a count: ${show(stats)}`,
        );
      }
      if (device !== "webgpu") return;
      // A chain of 24 matmul+relu steps read once: recorded into one open compute pass and
      // submitted together (threshold 64), not a submit per op.
      const w0 = torch.rand(16, 16).div(8);
      let h = torch.rand(4, 16);
      await h.toArray();
      await w0.toArray();
      const before = w.runtime_stats();
      for (let i = 0; i < 24; i++) h = h.matmul(w0).relu();
      const values = await h.toArray();
      const after = w.runtime_stats();
      ok(
        values.length === 64 && values.every(Number.isFinite),
        "the chain's values are finite",
      );
      const dispatches = after.dispatches - before.dispatches;
      const submits = after.submits - before.submits;
      ok(
        dispatches >= 24,
        `24 matmuls need at least 24 dispatches, got ${dispatches}`,
      );
      ok(
        submits <= 2,
        `one read of a 24-step chain should take one or two submits, got ${submits} for ${dispatches} dispatches`,
      );
      // The pipeline cache: running the same chain again compiles nothing new.
      const chain = () =>
        torch.ones(8, 8).mul(3).add(1).relu().matmul(torch.ones(8, 2)).sum(0);
      await chain().toArray();
      const pipelines = w.runtime_stats().pipelines;
      eq(await chain().tolist(), [256, 256], "repeated chain values");
      eq(
        w.runtime_stats().pipelines,
        pipelines,
        "pipeline count after repeating a chain",
      );
      // Mixing devices is a DeviceError.
      throws(
        () => torch.ones(2).add(torch.ones(2, { device: "cpu" })),
        torch.DeviceError,
        "Expected all tensors to be on the same device",
        "webgpu + cpu",
      );
    },
  },
];
