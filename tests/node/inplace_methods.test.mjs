// The in-place Tensor methods computed from their out-of-place ops (index_add_, lerp_, addcmul_,
// cumsum_, gcd_, …) and the random fills (uniform_, normal_, bernoulli_, exponential_, cauchy_,
// log_normal_, geometric_, random_), against PyTorch (tests/parity/inplace_gen.py): the values
// written, the same object returned, the version counter, the gradient through the write, and
// PyTorch's errors. Random fills: seeded equality, range and moments (not PyTorch's streams),
// and with a torch.Generator PyTorch's CPU values for uniform_.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { build, expectTensor, readFixture } from "./inplace_fixture.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = readFixture("inplace_methods.json");

const call = (self, c) =>
  self[c.method](
    ...c.args.map((a) => build(torch, a)),
    ...(Object.keys(c.kw).length > 0 ? [c.kw] : []),
  );

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`[${device}] in-place methods`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const [i, c] of FIX.cases.entries()) {
      test(`${c.method} #${i}: value, same object, version`, async () => {
        const self = build(torch, c.self);
        const v0 = self._version;
        const r = call(self, c);
        assert.equal(r, self, "returns self");
        assert.ok(self._version > v0, "version counter moved");
        await expectTensor(self, c.out, c.method);
      });
      if (c.grad || c.grad_error) {
        test(`${c.method} #${i}: gradient through the write`, async () => {
          const x = build(torch, c.self).requires_grad_();
          const args = c.args.map((a) => {
            const t = build(torch, a);
            return t instanceof torch.Tensor && t.dtype === "float32"
              ? t.requires_grad_()
              : t;
          });
          const y = x.mul(1);
          const run = () => {
            y[c.method](
              ...args,
              ...(Object.keys(c.kw).length > 0 ? [c.kw] : []),
            );
            const w = torch
              .arange(1, y.numel() + 1)
              .to("float32")
              .div(4)
              .reshape(y.shape);
            y.mul(w).sum().backward();
          };
          if (c.grad_error) {
            // PyTorch refuses at backward; webtorch may refuse at the call already.
            assert.throws(
              run,
              (e) =>
                e instanceof torch.TorchError && e.message === c.grad_error,
            );
            return;
          }
          run();
          await expectTensor(x.grad, c.grad, "self.grad");
          for (const [k, g] of c.arg_grads.entries())
            if (g) await expectTensor(args[k].grad, g, `args[${k}].grad`);
        });
      }
    }

    for (const c of FIX.errors)
      test(`${c.method} refuses: ${c.error}`, () => {
        assert.throws(
          () => call(build(torch, c.self), c),
          (e) => e instanceof torch.TorchError && e.message === c.error,
        );
      });

    test("a leaf that requires grad refuses the write", () => {
      const x = torch.tensor([1.5, 2]).requires_grad_();
      assert.throws(
        () => x.lerp_(torch.tensor([3.5, 3]), 0.5),
        /a leaf Variable that requires grad is being used in an in-place operation\./,
      );
      assert.throws(
        () => x.uniform_(),
        /a leaf Variable that requires grad is being used in an in-place operation\./,
      );
    });

    test("a saved tensor written in place fails backward", () => {
      const a = torch.tensor([1.5, 2]).requires_grad_();
      const b = a.mul(2);
      const c = b.exp();
      b.addcmul_(torch.ones(2), torch.ones(2));
      assert.throws(
        () => c.sum().backward(),
        /one of the variables needed for gradient computation has been modified by an inplace operation/,
      );
    });

    test("a write into a view reaches its base", async () => {
      const a = torch.zeros(2, 3);
      a.select(0, 1).index_fill_(0, torch.tensor([0, 2]), 7);
      assert.deepEqual(await a.tolist(), [
        [0, 0, 0],
        [7, 0, 7],
      ]);
    });

    test("uniform_ with a Generator draws PyTorch's CPU values", async () => {
      const u = FIX.uniform_generator;
      const g = new torch.Generator().manual_seed(u.seed);
      const x = torch.empty(u.n).uniform_(u.from, u.to, { generator: g });
      await expectTensor(x, { t: u.out, dtype: "float32" }, "uniform_");
    });

    const N = 20000;
    const stats = async (t) => {
      const v = await t.tolist();
      const mean = v.reduce((s, x) => s + x, 0) / v.length;
      const varr = v.reduce((s, x) => s + (x - mean) ** 2, 0) / v.length;
      return { v, mean, var: varr };
    };
    // [method, args, mean, variance, support check]
    const DISTS = [
      ["uniform_", [-1, 3], 1, 16 / 12, (x) => x >= -1 && x < 3],
      ["normal_", [2, 0.5], 2, 0.25, Number.isFinite],
      ["bernoulli_", [0.3], 0.3, 0.21, (x) => x === 0 || x === 1],
      ["exponential_", [2], 0.5, 0.25, (x) => x >= 0],
      [
        "log_normal_",
        [0, 0.25],
        Math.exp(0.03125),
        (Math.exp(0.0625) - 1) * Math.exp(0.0625),
        (x) => x > 0,
      ],
      ["geometric_", [0.25], 4, 12, (x) => Number.isInteger(x) && x >= 1],
      [
        "random_",
        [3, 9],
        5.5,
        35 / 12,
        (x) => Number.isInteger(x) && x >= 3 && x < 9,
      ],
    ];
    for (const [m, a, mean, variance, inSupport] of DISTS)
      for (const gen of [false, true])
        test(`${m} ${gen ? "(Generator)" : "(global seed)"}: seeded, in distribution`, async () => {
          const draw = () => {
            let options = [];
            if (gen)
              options = [{ generator: new torch.Generator().manual_seed(7) }];
            else torch.manual_seed(7);
            return torch.empty(N)[m](...a, ...options);
          };
          const s = await stats(draw());
          assert.deepEqual(
            await draw().tolist(),
            s.v,
            "same seed, same values",
          );
          assert.ok(s.v.every(inSupport), "every value in the support");
          const se = Math.sqrt(variance / N);
          assert.ok(
            Math.abs(s.mean - mean) < 5 * se,
            `mean ${s.mean} vs ${mean}`,
          );
          assert.ok(
            Math.abs(s.var - variance) < 0.1 * variance,
            `variance ${s.var} vs ${variance}`,
          );
        });

    test("cauchy_: median and quartiles", async () => {
      torch.manual_seed(3);
      const v = (await torch.empty(N).cauchy_(1, 2).tolist()).sort(
        (x, y) => x - y,
      );
      assert.ok(Math.abs(v[N / 2] - 1) < 0.1);
      assert.ok(
        Math.abs(v[N / 4] - -1) < 0.15 && Math.abs(v[(3 * N) / 4] - 3) < 0.15,
      );
    });

    test("bernoulli_ with a tensor of probabilities", async () => {
      torch.manual_seed(1);
      const v = await torch
        .empty(4)
        .bernoulli_(torch.tensor([0.0, 1.0, 0.0, 1.0]))
        .tolist();
      assert.deepEqual(v, [0, 1, 0, 1]);
    });

    test("type_as, nonzero and masked_select as methods", async () => {
      const x = torch.tensor([0, 1.5, 0, -2]);
      const y = x.type_as(torch.tensor([1], { dtype: "int32" }));
      assert.equal(y.dtype, "int32");
      assert.deepEqual(await y.tolist(), [0, 1, 0, -2]);
      assert.deepEqual(await (await x.nonzero()).tolist(), [[1], [3]]);
      const m = await x.masked_select(torch.tensor([true, true, false, true]));
      assert.deepEqual(await m.tolist(), [0, 1.5, -2]);
    });
  });
}
