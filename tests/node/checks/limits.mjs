// Checks that no call kills the engine: a panic anywhere in the core (forced at each fault point,
// where the engine, a backend or a tensor holds its state borrowed) and an allocation beyond what
// the core can hold both end in a TorchError, and the engine computes correctly afterwards.
// Part of the shared API checks: see ./index.mjs.
import { close, eq, ok, show } from "./assert.mjs";

/** A small computation with a known answer: the engine still works. */
export async function engineWorks(torch, device, after) {
  const o = { device };
  const mm = torch
    .tensor(
      [
        [1, 2],
        [3, 4],
      ],
      o,
    )
    .matmul(torch.tensor([[1], [-1]], o));
  eq(await mm.tolist(), [[-1], [-1]], `matmul after ${after}`);
  eq(await torch.arange(5, o).sum().item(), 10, `sum after ${after}`);
  close(await torch.tensor([0, 1], o).float().exp().tolist(), [1, Math.E], {
    atol: 1e-6,
    what: `exp after ${after}`,
  });
}

/** Runs `fn`; it must resolve or reject with a TorchError subclass (never a raw JS error). */
async function torchErrorOrValue(torch, fn, what) {
  try {
    return { value: await fn() };
  } catch (e) {
    ok(
      e instanceof torch.TorchError,
      `${what}: threw ${e?.name}: ${e?.message} (not a TorchError)`,
    );
    return { error: e };
  }
}

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "a panic at any fault point of the core is an InternalError; nothing stays borrowed",
    async run(torch, { device }) {
      const o = { device };
      const points = torch._C
        .debug_fault_points()
        .filter((p) => !p.startsWith(device === "cpu" ? "webgpu." : "cpu."));
      ok(points.length >= 6, `fault points: ${show(points)}`);
      for (const point of points) {
        const pending = torch.arange(6, o).float().mul(2).add(1);
        const x = torch.ones(3, { ...o, requires_grad: true });
        torch._C.debug_panic_at(point);
        const r = await torchErrorOrValue(
          torch,
          async () => {
            const z = pending.exp().sum();
            x.mul(2).sum().backward();
            return [await z.item(), await torch.webgpu.sync_device()];
          },
          point,
        );
        torch._C.debug_panic_at("");
        ok(r.error !== undefined, `fault point ${point} was not reached`);
        ok(
          r.error instanceof torch.InternalError &&
            r.error.message.includes(`injected panic at ${point}`) &&
            r.error.message.includes("INTERNAL ASSERT FAILED in "),
          `${point}: ${r.error.name}: ${r.error.message}`,
        );
        await engineWorks(torch, device, `a panic at ${point}`);
        // What was in flight when it panicked still computes (or fails typed, never wedged).
        eq(
          await pending.tolist(),
          [1, 3, 5, 7, 9, 11],
          `pending after ${point}`,
        );
        // The leaf whose grad slot was borrowed at autograd.backward accumulates again.
        const before = x.grad === null ? [0, 0, 0] : await x.grad.tolist();
        x.mul(2).sum().backward();
        eq(
          await x.grad.tolist(),
          before.map((g) => g + 2),
          `backward after ${point}`,
        );
      }
      // std counts the thread as panicking for good after a trapped panic: initializing again
      // (which once set the panic hook each time) must still work.
      eq(await torch.init({ device }), device, "init after the panics");
    },
  },
];

checks.push(
  {
    name: "memory budgets: past the budget an OutOfMemoryError before allocating; the pool is emptied and the allocation retried first",
    async run(torch, { device }) {
      const o = { device };
      const mod = device === "cpu" ? torch.cpu : torch.webgpu;
      const before = mod.memory_budget();
      const MiB = 2 ** 20;
      try {
        // Budget = what lives now + 200 MiB (the CPU backend's elementwise kernels need scratch
        // beside their operands: a 40 MiB product peaks near 160 MiB there).
        await torch.webgpu.sync_device();
        torch.webgpu.empty_cache();
        // memory_stats() is the default device's: the checks run with `device` as the default.
        const live = torch.webgpu.memory_stats().active_bytes;
        mod.set_memory_budget(live + 200 * MiB);
        const a = torch.scope(() => torch.ones(10 * MiB, o).mul(2)); // 40 MiB
        eq((await a.toArray()).length, 10 * MiB, "a tensor under the budget");
        a.dispose();
        if (device === "webgpu") {
          // The 40 MiB tensor went back to the pool; a 192 MiB one (another size class) fits only
          // once the pool is emptied: the allocator empties it and tries again.
          await torch.webgpu.sync_device();
          ok(
            torch.webgpu.memory_stats().pooled_bytes >= 40 * MiB,
            "the freed tensor is pooled",
          );
          const c = torch.scope(() => torch.ones(48 * MiB, o).mul(1));
          eq((await c.toArray()).length, 48 * MiB, "after emptying the pool");
          ok(
            torch.webgpu.memory_stats().pooled_bytes < 40 * MiB,
            `the pool was emptied: ${torch.webgpu.memory_stats().pooled_bytes}`,
          );
          c.dispose();
        }
        const r = await torchErrorOrValue(
          torch,
          async () => {
            const b = torch.scope(() => torch.ones(60 * MiB, o).mul(3)); // 240 MiB
            return (await b.toArray()).length;
          },
          "a tensor past the budget",
        );
        ok(
          r.error instanceof torch.OutOfMemoryError &&
            /[Tt]ried to allocate/.test(r.error.message),
          `past the budget: ${r.error?.name}: ${r.error?.message ?? show(r.value)}`,
        );
        await engineWorks(torch, device, "an allocation past the budget");
      } finally {
        mod.set_memory_budget(device === "cpu" ? null : before);
      }
      eq(mod.memory_budget(), before, "budget restored");
      let threw = false;
      try {
        mod.set_memory_budget(-1);
      } catch (e) {
        threw = e instanceof torch.TorchError;
      }
      ok(threw, "a negative budget is a TorchError");
    },
  },
  {
    name: "a device out-of-memory report is an OutOfMemoryError on the next read, without the device's text; the engine goes on",
    async run(torch, { device }) {
      if (device !== "webgpu") return;
      const pending = torch.arange(4, { device }).float().mul(2);
      torch._C.debug_device_oom();
      const r = await torchErrorOrValue(
        torch,
        () => pending.tolist(),
        "read after a device OOM",
      );
      ok(
        r.error instanceof torch.OutOfMemoryError &&
          r.error.message.startsWith(
            "WebGPU out of memory: the device refused an allocation",
          ) &&
          !r.error.message.includes("is invalid due to a previous error"),
        `device OOM: ${r.error?.name}: ${r.error?.message ?? show(r.value)}`,
      );
      await torch.webgpu.sync_device(); // reported once
      await engineWorks(torch, device, "a device out-of-memory report");
    },
  },
  {
    name: "reductions of a broadcast 2^28-element tensor compute on the CPU backend, row by row",
    async run(torch, { device }) {
      // WebGPU reads the broadcast input in place; on a CPU emulation of WebGPU (CI) each of
      // these takes many seconds, so the CPU backend's row-by-row path is what runs here.
      if (device !== "cpu") return;
      const big = () => torch.ones(1, { device }).expand(2 ** 28);
      const want = { sum: 2 ** 28, amax: 1, any: true };
      for (const [op, value] of Object.entries(want)) {
        const r = await torchErrorOrValue(
          torch,
          () => big()[op]().item(),
          `${op} of 2^28`,
        );
        eq(r.value, value, `${op} of ones(1).expand(2**28)`);
        await engineWorks(torch, device, `${op} of 2^28`);
      }
    },
  },
);

checks.push({
  name: "a failed device-side check is raised by the reads that depend on it, not by others",
  async run(torch, { device }) {
    // On the CPU backend the values are on the host: the bad call raises at once
    // (badinput.mjs covers it).
    if (device === "cpu") return;
    const o = { device };
    const x = torch.arange(6, o).float().reshape(2, 3);
    const bad = x.index_select(1, torch.tensor([0, 3], o));
    const good = x.index_select(1, torch.tensor([2, 0], o));
    // PyTorch's message for dim 1 of a matrix (a RuntimeError there).
    const isIndexError = (e) =>
      e instanceof torch.TorchError &&
      e.message === "INDICES element is out of DATA bounds, id=3 axis_dim=3";
    // The read that fetches the failure does not depend on it.
    eq(
      await good.tolist(),
      [
        [2, 0],
        [5, 3],
      ],
      "a read beside the failure",
    );
    for (const [what, t] of [
      ["the bad result", bad],
      ["a result computed from it", bad.mul(2).add(good)],
    ]) {
      const r = await torchErrorOrValue(torch, () => t.tolist(), what);
      ok(
        isIndexError(r.error),
        `${what}: ${r.error?.name}: ${r.error?.message ?? show(r.value)}`,
      );
    }
    await torch.webgpu.sync_device(); // reported by the reads: nothing left for the sync
    eq(
      await good.mul(2).tolist(),
      [
        [4, 0],
        [10, 6],
      ],
      "the good one after",
    );
    await engineWorks(torch, device, "a failed device-side check");
  },
});

checks.push({
  name: "3,000 traps in a row, one inside an in-place op: the stack is put back, the tensor can still be disposed",
  async run(torch, { device }) {
    const o = { device };
    for (let i = 0; i < 3000; i++) {
      torch._C.debug_panic_at("engine");
      try {
        torch.ones(2, o);
        throw new Error(`trap ${i}: the fault point was not reached`);
      } catch (e) {
        ok(
          e instanceof torch.InternalError,
          `trap ${i}: ${e?.name}: ${e?.message}`,
        );
      }
    }
    await engineWorks(torch, device, "3,000 traps");
    // A trap inside an in-place op leaves its tensor's handle borrowed by the core: the tensor
    // cannot be used any more (a TorchError says why) but disposing it works.
    const t = torch.ones(3, o);
    torch._C.debug_panic_at("tensor.state");
    let trapped;
    try {
      t.add_(1);
    } catch (e) {
      trapped = e;
    } finally {
      torch._C.debug_panic_at("");
    }
    ok(
      trapped instanceof torch.InternalError,
      `the in-place op trapped: ${trapped?.name}: ${trapped?.message}`,
    );
    let reused;
    try {
      t.add_(1);
    } catch (e) {
      reused = e;
    }
    ok(
      reused === undefined || reused instanceof torch.TorchError,
      `reusing it: ${reused?.name}: ${reused?.message}`,
    );
    t.dispose();
    ok(t.isDisposed, "disposed");
    await engineWorks(torch, device, "a trap in an in-place op");
  },
});
