// torch.compile: a training step (forward, backward, SGD step) compiled and replayed gives
// PyTorch's per-step losses and weights (the MLP of tests/parity/extend_gen.py, its swish written
// with built-in ops); compiled forwards equal eager ones across signatures; guards recompile on a
// new shape or guard value; untraceable calls run eagerly (or throw with fullgraph).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/extend/swish_train.json", import.meta.url),
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const f32 = (v, shape, device) =>
  torch.tensor(v, { device, dtype: "float32" }).reshape(shape);

for (const device of devices) {
  describe(`[${device}] torch.compile`, () => {
    for (const plan of [true, false])
      test(`a compiled training step trains to PyTorch's losses and weights (${plan ? "core plan" : "TS replay"})`, async () => {
        const x = f32(FIX.x, [16, 4], device);
        const y = f32(FIX.y, [16, 2], device);
        const p = {
          w1: f32(FIX.init.w1, [4, 8], device).requires_grad_(),
          b1: f32(FIX.init.b1, [8], device).requires_grad_(),
          w2: f32(FIX.init.w2, [8, 2], device).requires_grad_(),
          b2: f32(FIX.init.b2, [2], device).requires_grad_(),
        };
        const opt = new torch.optim.SGD(Object.values(p), { lr: FIX.lr });
        const step = torch.compile(
          (xb, yb) => {
            opt.zero_grad();
            const z = xb.matmul(p.w1).add(p.b1);
            const h = z.mul(z.mul(FIX.beta).sigmoid());
            const loss = h.matmul(p.w2).add(p.b2).sub(yb).square().mean();
            loss.backward();
            opt.step();
            return loss;
          },
          { plan },
        );
        const losses = [];
        for (let s = 0; s < FIX.steps; s++) {
          const loss = step(x, y);
          losses.push(await loss.item());
          loss.dispose();
        }
        assertClose(losses, FIX.losses, 1e-4, "losses");
        for (const k of Object.keys(p))
          assertClose(await p[k].toArray(), FIX.final[k], 1e-4, k);
        assert.equal(step.stats.eager, 0, step.stats.reasons.join("; "));
        assert.ok(
          step.stats.replays >= FIX.steps - 3,
          `replays ${step.stats.replays}`,
        );
        assert.equal(step.stats.replays + step.stats.traces, FIX.steps);
        assert.equal(step.stats.planned, plan ? 1 : 0);
      });

    test("compiled forwards equal eager ones; a new shape or reset traces again", async () => {
      const w = f32(FIX.init.w1, [4, 8], device);
      const b = f32(FIX.init.b1, [8], device);
      const fn = (x) => ({ h: x.matmul(w).add(b).relu(), s: x.sum(1), k: 3 });
      const cfn = torch.compile(fn);
      for (const rows of [16, 16, 16, 5, 5, 5, 16]) {
        const x = f32(FIX.x.slice(0, rows * 4), [rows, 4], device);
        const want = fn(x);
        const got = cfn(x);
        assert.equal(got.k, 3);
        assert.deepEqual(got.h.shape, [rows, 8]);
        assertClose(await got.h.toArray(), await want.h.toArray(), 1e-6, "h");
        assertClose(await got.s.toArray(), await want.s.toArray(), 1e-6, "s");
      }
      assert.deepEqual(
        {
          replays: cfn.stats.replays,
          traces: cfn.stats.traces,
          planned: cfn.stats.planned,
        },
        { replays: 3, traces: 4, planned: 2 },
      );
      torch.compiler.reset();
      cfn(f32(FIX.x.slice(0, 20), [5, 4], device));
      assert.equal(cfn.stats.traces, 5);
    });

    test("guards: a guard value change recompiles instead of replaying a stale constant", async () => {
      let scale = 2;
      const x = f32([1, 2, 3], [3], device);
      const unguarded = torch.compile((t) => t.mul(scale));
      const guarded = torch.compile((t) => t.mul(scale), {
        guard: () => [scale],
      });
      for (let i = 0; i < 3; i++) {
        unguarded(x);
        guarded(x);
      }
      scale = 10;
      assert.deepEqual(Array.from(await guarded(x).toArray()), [10, 20, 30]);
      // Documented limit: JS values the trace read are constants unless guarded.
      assert.deepEqual(Array.from(await unguarded(x).toArray()), [2, 4, 6]);
    });
  });
}

describe("torch.compile: what does not trace runs eagerly", () => {
  test("async functions, reads and non-tensor arguments fall back; fullgraph throws", async () => {
    const x = torch.tensor([1, 2, 3], { dtype: "float32" });
    const reads = torch.compile(async (t) =>
      (await t.sum().item()) > 0 ? t.neg() : t,
    );
    for (let i = 0; i < 3; i++)
      assert.deepEqual(
        Array.from(await (await reads(x)).toArray()),
        [-1, -2, -3],
      );
    assert.equal(reads.stats.replays, 0);
    assert.ok(
      reads.stats.reasons.some((r) => /async|reads tensor data/.test(r)),
    );
    const objArg = torch.compile((o) => o.t.neg());
    assert.deepEqual(
      Array.from(await objArg({ t: x }).toArray()),
      [-1, -2, -3],
    );
    assert.match(objArg.stats.reasons[0], /neither a tensor nor a plain value/);
    const strict = torch.compile(async (t) => t.toArray(), { fullgraph: true });
    assert.throws(() => strict(x), /torch.compile: /);
    const eager = torch.compile((t) => t.neg(), { backend: "eager" });
    eager(x);
    eager(x);
    assert.deepEqual(eager.stats, {
      replays: 0,
      traces: 0,
      eager: 2,
      reasons: [],
      planned: 0,
    });
  });

  test("registered kernel ops run eagerly inside a compiled function", async () => {
    const triple = await torch.register_kernel({
      name: "triple_for_compile",
      inputs: 1,
      cpu: ([x], out) => {
        for (let i = 0; i < out.length; i++) out[i] = 3 * x[i];
      },
    });
    const f = torch.compile((x) => triple(x).add(1));
    const x = torch.tensor([1, 2], { dtype: "float32", device: "cpu" });
    for (let i = 0; i < 3; i++)
      assert.deepEqual(Array.from(await f(x).toArray()), [4, 7]);
    assert.equal(f.stats.replays, 0);
    assert.deepEqual(f.stats.reasons, ["a JS kernel reads tensor data"]);
  });

  test("a module compiles (its training flag is guarded)", async () => {
    torch.manual_seed(0);
    const model = new torch.nn.Sequential(
      new torch.nn.Linear(4, 3),
      new torch.nn.ReLU(),
      new torch.nn.Linear(3, 2),
    );
    const cm = torch.compile(model);
    const x = torch
      .tensor(FIX.x.slice(0, 8), { dtype: "float32" })
      .reshape([2, 4]);
    for (let i = 0; i < 4; i++)
      assertClose(
        await cm(x).toArray(),
        await model.call(x).toArray(),
        1e-6,
        "module",
      );
    assert.equal(cm.stats.replays, 2);
    model.eval();
    cm(x);
    assert.equal(cm.stats.traces, 3);
  });
});
