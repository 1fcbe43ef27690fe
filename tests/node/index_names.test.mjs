// The function-index names composed from existing ops — gcd, lcm, frexp, cumulative_trapezoid,
// index_reduce, and torch.js's var_/std_/get_real_dtype — against PyTorch
// (tests/parity/inplace_gen.py): values, dtypes, gradients and PyTorch's errors.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { build, expectTensor, readFixture } from "./inplace_fixture.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = readFixture("index_names.json");

// torch.js's names for the fixture's PyTorch functions.
const NAME = { var: "var_", std: "std_" };
const call = (c, args) =>
  torch[NAME[c.fn] ?? c.fn](
    ...args,
    ...(Object.keys(c.kw).length > 0 ? [c.kw] : []),
  );

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`[${device}] function-index names`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const [i, c] of FIX.cases.entries())
      test(`${NAME[c.fn] ?? c.fn} #${i}`, async () => {
        const args = c.args.map((a) => {
          const t = build(torch, a);
          return c.arg_grads &&
            t instanceof torch.Tensor &&
            t.dtype === "float32"
            ? t.requires_grad_()
            : t;
        });
        let r = call(c, args);
        if (Array.isArray(c.out)) {
          for (const [k, want] of c.out.entries())
            await expectTensor(r[k], want, `${c.fn}[${k}]`);
          return;
        }
        if (Array.isArray(r)) r = r[0];
        await expectTensor(r, c.out, c.fn);
        if (!c.arg_grads) return;
        const w = torch
          .arange(1, r.numel() + 1)
          .to("float32")
          .div(4)
          .reshape(r.shape);
        r.mul(w).sum().backward();
        for (const [k, g] of c.arg_grads.entries())
          if (g) await expectTensor(args[k].grad, g, `args[${k}].grad`);
      });

    for (const c of FIX.errors)
      test(`${c.fn} refuses: ${c.error}`, () => {
        assert.throws(
          () =>
            call(
              c,
              c.args.map((a) => build(torch, a)),
            ),
          (e) => e instanceof torch.TorchError && e.message === c.error,
        );
      });

    test("Tensor methods gcd, lcm, frexp, index_reduce", async () => {
      const a = torch.tensor([12, -18]);
      const b = torch.tensor([8, 12]);
      assert.deepEqual(await a.gcd(b).tolist(), await torch.gcd(a, b).tolist());
      assert.deepEqual(await a.lcm(b).tolist(), await torch.lcm(a, b).tolist());
      const x = torch.tensor([3.5, -0.25]);
      const [m, e] = x.frexp();
      assert.deepEqual(await m.tolist(), [0.875, -0.5]);
      assert.deepEqual(await e.tolist(), [2, -1]);
      const r = torch
        .ones(2)
        .index_reduce(0, torch.tensor([1, 1]), torch.tensor([2.5, 4]), "amax");
      assert.deepEqual(await r.tolist(), [1, 4]);
    });

    test("get_real_dtype: the real dtypes map to themselves", () => {
      for (const d of [
        "float32",
        "float16",
        "bfloat16",
        "int32",
        "int64",
        "uint8",
        "bool",
      ])
        assert.equal(torch.get_real_dtype(d), d);
      assert.throws(() => torch.get_real_dtype("float31"), torch.TorchError);
    });
  });
}
