// Checks of the elementwise ops (op-table rows): arithmetic, unary math, comparisons, coverage.
// Part of the shared API checks: see ./index.mjs.
import { close, eq, ok, throws, tensorIs } from "./assert.mjs";

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "in-place ops whose backward needs the old values (abs_, mul_, exp_ on a clone)",
    async run(torch) {
      // Expected gradients: PyTorch 2.11, x = torch.tensor([1.5, -2., 3.], requires_grad=True),
      // y = torch.tensor([2., 3.5, 4.]); each z = <op>; z.sum().backward(); x.grad.
      const cases = [
        ["abs_", (x) => x.clone().abs_(), [1, -1, 1], "AbsBackward0"],
        [
          "mul_(y requiring grad)",
          (x, y) => x.clone().mul_(y),
          [2, 3.5, 4],
          "MulBackward0",
          [1.5, -2, 3],
        ],
        [
          "exp_",
          (x) => x.clone().exp_(),
          [4.481689, 0.135335, 20.085537],
          "ExpBackward0",
        ],
        ["relu_", (x) => x.clone().relu_(), [1, 0, 1], "ReluBackward0"],
      ];
      for (const [what, f, grad, fn, ygrad] of cases) {
        const x = torch.tensor([1.5, -2, 3], { requires_grad: true });
        const y = torch.tensor([2, 3.5, 4], { requires_grad: true });
        const z = f(x, y);
        eq(z.grad_fn?.name, fn, `${what}: grad_fn`);
        z.sum().backward();
        close(await x.grad.toArray(), grad, { what: `${what}: x.grad` });
        if (ygrad)
          close(await y.grad.toArray(), ygrad, { what: `${what}: y.grad` });
      }
    },
  },
  {
    name: "add/sub/mul/div: tensors, scalars, broadcasting, alpha, reversed scalars",
    async run(torch) {
      const a = torch.tensor(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        { dtype: "float32" },
      );
      const b = torch.tensor([10, 20, 30], { dtype: "float32" });
      await tensorIs(
        a.add(b),
        {
          shape: [2, 3],
          values: [
            [11, 22, 33],
            [14, 25, 36],
          ],
        },
        "a + b (broadcast)",
      );
      await tensorIs(
        a.sub(b),
        {
          values: [
            [-9, -18, -27],
            [-6, -15, -24],
          ],
        },
        "a - b",
      );
      await tensorIs(
        a.mul(b),
        {
          values: [
            [10, 40, 90],
            [40, 100, 180],
          ],
        },
        "a * b",
      );
      await tensorIs(
        b.div(a),
        {
          values: [
            [10, 10, 10],
            [2.5, 4, 5],
          ],
          atol: 1e-6,
        },
        "b / a",
      );
      await tensorIs(
        a.add(1),
        {
          values: [
            [2, 3, 4],
            [5, 6, 7],
          ],
        },
        "a + 1",
      );
      await tensorIs(
        a.mul(0.5),
        {
          values: [
            [0.5, 1, 1.5],
            [2, 2.5, 3],
          ],
        },
        "a * 0.5",
      );
      await tensorIs(
        a.add(b, { alpha: 2 }),
        {
          values: [
            [21, 42, 63],
            [24, 45, 66],
          ],
        },
        "add alpha",
      );
      await tensorIs(
        torch.sub(a, 1, { alpha: 3 }),
        {
          values: [
            [-2, -1, 0],
            [1, 2, 3],
          ],
        },
        "sub scalar alpha",
      );
      await tensorIs(
        torch.sub(10, a),
        {
          values: [
            [9, 8, 7],
            [6, 5, 4],
          ],
        },
        "10 - a",
      );
      await tensorIs(
        torch.div(1, b),
        { values: [[0.1, 0.05, 1 / 30]].flat(), atol: 1e-7 },
        "1 / b",
      );
      await tensorIs(
        torch.add(a, b),
        {
          values: [
            [11, 22, 33],
            [14, 25, 36],
          ],
        },
        "torch.add",
      );
      await tensorIs(
        torch.tensor([1, 2]).add(torch.tensor([3, 4])),
        { dtype: "int64", values: [4, 6] },
        "int64 + int64",
      );
      await tensorIs(
        torch.tensor([1, 2]).div(torch.tensor([2, 4])),
        { dtype: "float32", values: [0.5, 0.5] },
        "int / int is float",
      );
      await tensorIs(
        torch.tensor([1, 2]).mul(1.5),
        { dtype: "float32", values: [1.5, 3] },
        "int * float scalar",
      );
      await tensorIs(
        torch.ones([2, 1]).add(torch.ones([1, 3])),
        { shape: [2, 3] },
        "[2,1] + [1,3]",
      );
      await tensorIs(
        torch.tensor(2).mul(torch.tensor([1, 2, 3])),
        { shape: [3], values: [2, 4, 6] },
        "rank 0 * [3]",
      );
      throws(
        () => torch.ones([2, 3]).add(torch.ones([4])),
        torch.ShapeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
        "broadcast mismatch",
      );
      throws(
        () => torch.add(1, 2),
        torch.TorchError,
        "must be Tensor",
        "two scalars",
      );
    },
  },
  {
    name: "unary op-table rows on known values",
    async run(torch) {
      const x = torch.tensor([-2, -0.5, 0, 0.5, 2]);
      const xs = [-2, -0.5, 0, 0.5, 2];
      const tol = { atol: 1e-5, rtol: 1e-5 };
      await tensorIs(x.neg(), { values: xs.map((v) => -v) }, "neg");
      await tensorIs(x.exp(), { values: xs.map(Math.exp), ...tol }, "exp");
      await tensorIs(x.relu(), { values: [0, 0, 0, 0.5, 2] }, "relu");
      await tensorIs(x.abs(), { values: xs.map(Math.abs) }, "abs");
      await tensorIs(x.square(), { values: xs.map((v) => v * v) }, "square");
      await tensorIs(
        x.sigmoid(),
        { values: xs.map((v) => 1 / (1 + Math.exp(-v))), ...tol },
        "sigmoid",
      );
      await tensorIs(x.tanh(), { values: xs.map(Math.tanh), ...tol }, "tanh");
      await tensorIs(x.sin(), { values: xs.map(Math.sin), ...tol }, "sin");
      await tensorIs(x.cos(), { values: xs.map(Math.cos), ...tol }, "cos");
      await tensorIs(
        torch.tensor([0, 1, 4, 9]).sqrt(),
        { dtype: "float32", values: [0, 1, 2, 3], ...tol },
        "sqrt of int64",
      );
      await tensorIs(
        torch.tensor([1, Math.E, 0.5]).log(),
        { values: [0, 1, Math.log(0.5)], ...tol },
        "log",
      );
      await tensorIs(torch.tensor([-1]).sqrt(), { values: [NaN] }, "sqrt(-1)");
      await tensorIs(
        torch.tensor([0]).log(),
        { values: [-Infinity] },
        "log(0)",
      );
      await tensorIs(
        torch.tensor([-5, 3]).relu(),
        { dtype: "int64", values: [0, 3] },
        "relu keeps int64",
      );
      await tensorIs(
        torch.exp(torch.zeros(2)),
        { values: [1, 1] },
        "torch.exp",
      );
    },
  },
  {
    name: "maximum/minimum/pow and comparisons (bool results)",
    async run(torch) {
      const a = torch.tensor([1, 5, 3], { dtype: "float32" });
      const b = torch.tensor([4, 2, 3], { dtype: "float32" });
      await tensorIs(a.maximum(b), { values: [4, 5, 3] }, "maximum");
      await tensorIs(torch.minimum(a, b), { values: [1, 2, 3] }, "minimum");
      await tensorIs(a.pow(2), { values: [1, 25, 9], atol: 1e-4 }, "pow 2");
      await tensorIs(
        torch.pow(2, a),
        { values: [2, 32, 8], atol: 1e-4 },
        "2 ** a",
      );
      await tensorIs(
        a.eq(b),
        { dtype: "bool", values: [false, false, true] },
        "eq",
      );
      await tensorIs(
        a.ne(b),
        { dtype: "bool", values: [true, true, false] },
        "ne",
      );
      await tensorIs(
        a.lt(b),
        { dtype: "bool", values: [true, false, false] },
        "lt",
      );
      await tensorIs(
        a.le(b),
        { dtype: "bool", values: [true, false, true] },
        "le",
      );
      await tensorIs(
        a.gt(b),
        { dtype: "bool", values: [false, true, false] },
        "gt",
      );
      await tensorIs(
        a.ge(3),
        { dtype: "bool", values: [false, true, true] },
        "ge scalar",
      );
      await tensorIs(
        torch.lt(2, a),
        { dtype: "bool", values: [false, true, true] },
        "2 < a (reversed)",
      );
    },
  },
  {
    name: "op coverage: every core op-table row is a torch.* function and a Tensor method",
    async run(torch) {
      const names = torch._C.op_names();
      ok(
        Array.isArray(names) && names.length > 0,
        "op_names() lists the op table",
      );
      const missing = [];
      for (const name of names) {
        if (typeof torch[name] !== "function") missing.push(`torch.${name}`);
        if (typeof torch.Tensor.prototype[name] !== "function")
          missing.push(`Tensor.${name}`);
        const arity = torch._C.op_arity(name);
        const listed =
          arity === 1 ? torch.UNARY_OPS : arity === 2 ? torch.BINARY_OPS : [];
        if (!listed.includes(name))
          missing.push(`${name} (arity ${arity}) in UNARY_OPS/BINARY_OPS`);
      }
      ok(
        missing.length === 0,
        `core ops without a TS function or method: ${missing.join(", ")}`,
      );
      const stale = [...torch.UNARY_OPS, ...torch.BINARY_OPS].filter(
        (n) => !names.includes(n),
      );
      ok(
        stale.length === 0,
        `TS ops the core does not have: ${stale.join(", ")}`,
      );
      // Each function really dispatches its row: same result as the method, and the right shape.
      // Float operands first; rows that exist only for integers (bitwise_*) get int32 operands.
      const operands = [
        [torch.tensor([[0.25, 0.5, 1]]), torch.tensor([[2], [0.5]])],
        [
          torch.tensor([[1, 2, 3]], { dtype: "int32" }),
          torch.tensor([[2], [1]], { dtype: "int32" }),
        ],
      ];
      for (const name of names) {
        const unary = torch._C.op_arity(name) === 1;
        let done = false;
        for (const [x, y] of operands) {
          let viaFn;
          try {
            viaFn = unary ? torch[name](x) : torch[name](x, y);
          } catch (e) {
            if (e instanceof torch.DTypeError) continue; // not defined for this dtype: next operands
            throw e;
          }
          const viaMethod = unary ? x[name]() : x[name](y);
          eq(viaFn.shape, unary ? [1, 3] : [2, 3], `${name} shape`);
          eq(
            await viaFn.tolist(),
            await viaMethod.tolist(),
            `${name}: torch.${name} vs Tensor.${name}`,
          );
          done = true;
          break;
        }
        ok(done, `${name} ran on neither float32 nor int32 operands`);
      }
    },
  },
];
