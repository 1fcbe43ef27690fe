// Tensor expressions (torch.$) beyond the PyTorch fixtures (tests/parity/cases/expr.py): syntax
// errors and their positions, the parser fuzzed (a result or a TorchError, never another error, a
// hang or a stack overflow), and that an expression runs as the same ops as the hand-written
// chain (identical values, the same fusions on WebGPU).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);

describe("torch.$", () => {
  test("syntax errors name the position and what was expected", () => {
    const x = torch.ones(2);
    const cases = [
      [
        "x +",
        /expected a number, a name or '\(' at position 3 in "x \+", got the end/,
      ],
      ["x @@ x", /at position 3 .* got '@'/],
      ["(x + 1", /expected '\)' at position 6/],
      ["x x", /expected an operator at position 2/],
      ["x $ 1", /unexpected character '\$' at position 2/],
      ["x.shape", /expected 'T' or 'mT' after '.'/],
      [
        "y + 1",
        /name 'y' is not defined \(at position 0 in "y \+ 1"; given: x\)/,
      ],
      ["load(x)", /unknown function 'load'/],
      ["constructor(x)", /unknown function 'constructor'/],
      ["softmax(x, axis=0)", /unexpected keyword argument 'axis'/],
      ["sum(x, dim=0, 1)", /positional after keyword/],
      ["1 + 2", /has no tensor in it \(it is the number 3\)/],
      ["", /expected a number, a name or '\(' at position 0/],
    ];
    for (const [src, message] of cases)
      assert.throws(
        () => torch.$(src, { x }),
        { name: "ExpressionError", message },
        src,
      );
    assert.throws(() => torch.$(7, { x }), torch.TorchError);
    assert.throws(() => torch.$("x", null), torch.TorchError);
    assert.throws(() => torch.$("x + 1", { x: "a" }), torch.TorchError);
    // Deep nesting is refused, not a stack overflow.
    assert.throws(
      () => torch.$("(".repeat(5000) + "x" + ")".repeat(5000), { x }),
      {
        name: "ExpressionError",
        message: /nested more than 200 levels/,
      },
    );
    assert.throws(
      () => torch.$("-".repeat(5000) + "x", { x }),
      torch.TorchError,
    );
  });

  test("a bare name is a new handle: disposing it leaves the input alive", async () => {
    const x = torch.tensor([1, 2], { dtype: "float32" });
    const y = torch.$("x", { x });
    y.dispose();
    assert.deepEqual(await x.tolist(), [1, 2]);
  });

  test("runs as the hand-written chain: same values, same fusions", async () => {
    const device = torch.webgpu.is_available() ? "webgpu" : "cpu";
    torch.manual_seed(3);
    const x = torch.randn([64, 32], { device });
    const w = torch.randn([32, 16], { device });
    const b = torch.randn([16], { device });
    const run = (fn) => {
      if (device === "webgpu") torch.webgpu.reset_fusion_stats();
      const out = fn();
      return [
        out,
        device === "webgpu" ? torch.webgpu.get_fusion_stats().fusions : 0,
      ];
    };
    const [a, fa] = run(() => torch.$("relu(x @ w + b) * 2 - 1", { x, w, b }));
    const av = await a.toArray();
    const [h, fh] = run(() => x.matmul(w).add(b).relu().mul(2).sub(1));
    const hv = await h.toArray();
    assert.deepEqual(Array.from(av), Array.from(hv));
    assert.equal(fa, fh);
  });
});

test("fuzz: 600 mutated expressions give a result or a TorchError", async () => {
  const x = torch.ones([2, 3]);
  const y = torch.ones([3]);
  const seeds = [
    "relu(x @ y.T + 1) * 2",
    "where(x > 0, x, 0.1 * x)",
    "sum(x * y, dim=-1, keepdim=true)",
    "-x ** 2 + 2 ** -y / (1 - x)",
    "softmax(x, -1) @ y",
    "(x // 2) % 3 >= y.mT",
  ];
  const tokens = [
    "x",
    "y",
    "z",
    "2",
    "0.5",
    "1e3",
    ".5",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "@",
    "**",
    "(",
    ")",
    ",",
    "<",
    ">=",
    "==",
    "relu",
    "sum",
    "dim=",
    "=",
    ".T",
    ".",
    " ",
    "true",
    "$",
    "'",
    "\u0000",
  ];
  let seed = 777;
  const below = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const problems = [];
  let ok = 0;
  for (let i = 0; i < 600; i++) {
    let src = seeds[below(seeds.length)];
    for (let k = below(4); k > 0; k--) {
      const at = below(src.length + 1);
      const edit = below(3); // insert, replace one char, delete one char
      src =
        src.slice(0, at) +
        (edit === 2 ? "" : tokens[below(tokens.length)]) +
        src.slice(at + (edit > 0 ? 1 : 0));
    }
    try {
      const out = torch.$(src, { x, y });
      const n = (await out.toArray()).length;
      if (n !== out.numel())
        problems.push(`${JSON.stringify(src)}: ${n} values for ${out.numel()}`);
      ok++;
    } catch (e) {
      if (!(e instanceof torch.TorchError))
        problems.push(`${JSON.stringify(src)}: ${e?.name}: ${e?.message}`);
    }
  }
  assert.deepEqual(problems.slice(0, 20), []);
  // Both outcomes must be common, or the generator tests nothing.
  assert.ok(ok > 60 && ok < 540, `${ok} of 600 mutated expressions were valid`);
});
