// Checks that no call kills the engine: a panic anywhere in the core (forced at each fault point,
// where the engine, a backend or a tensor holds its state borrowed) and an allocation beyond what
// the core can hold both end in a TorchError, and the engine computes correctly afterwards.
// Part of the shared API checks: see ./index.mjs.
import { close, eq, ok, show } from "./assert.mjs";

/** A small computation with a known answer: the engine still works. */
async function engineWorks(torch, device, after) {
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
    },
  },
];
