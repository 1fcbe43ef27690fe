// `await t.format()` against the exact text PyTorch's repr() prints (fixtures/printing.json, made
// by tests/parity/printing_gen.py), character for character, on every device; plus the device
// suffix and set_printoptions' bookkeeping, which have no PyTorch counterpart to compare with.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const { cases } = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/printing.json", import.meta.url),
    "utf8",
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const NONFINITE = { nan: NaN, inf: Infinity, "-inf": -Infinity };
const GRAD_OPS = {
  leaf: (x) => x,
  add: (x) => x.add(1),
  mul: (x) => x.mul(2),
  sum: (x) => x.sum(),
  exp: (x) => x.exp(),
};

/** The tensor a fixture case describes, on the default device. */
function build(c) {
  const n = c.shape.reduce((a, b) => a * b, 1);
  const values = Array.isArray(c.values)
    ? c.values.map((v) => NONFINITE[v] ?? v)
    : Array.from({ length: n }, (_, i) => i);
  // Float16/bfloat16 values are exact in float32, so the cast back is exact too.
  const make = ["float16", "bfloat16"].includes(c.dtype) ? "float32" : c.dtype;
  const flat =
    c.dtype === "bool"
      ? torch.tensor(values.map(Boolean))
      : torch.tensor(values, { dtype: make });
  let t = flat.reshape(c.shape).to(c.dtype);
  if (c.parameter) return new torch.nn.Parameter(t);
  if (c.grad) t = GRAD_OPS[c.grad](t.requires_grad_(true));
  return t;
}

for (const device of devices) {
  describe(`printing on ${device}`, () => {
    test(`${cases.length} tensors print as PyTorch's repr()`, async () => {
      await torch.init({ device }); // the default device prints no device suffix
      const failures = [];
      for (const c of cases) {
        torch.set_printoptions({ profile: "default" });
        const t = build(c);
        if (c.options) torch.set_printoptions(c.options);
        const text = await t.format();
        torch.set_printoptions({ profile: "default" });
        if (text !== c.repr)
          failures.push(`${c.name}:\n${text}\n--- PyTorch:\n${c.repr}`);
      }
      await torch.init();
      assert.deepEqual(failures, []);
    });
  });
}

describe("printing: webtorch's own rules", () => {
  test("a tensor off the default device names it; Python's rounding, not JS's", async () => {
    const other = torch.get_default_device() === "cpu" ? null : "cpu";
    if (other) {
      const t = torch.tensor([1.5, 2], { device: other });
      assert.equal(await t.format(), "tensor([1.5000, 2.0000], device='cpu')");
    }
    // 0.125 and 0.375 are exact binary ties: Python rounds them to even, toFixed would not.
    torch.set_printoptions({ precision: 2 });
    try {
      assert.equal(
        await torch.tensor([0.125, 0.375]).format(),
        "tensor([0.12, 0.38])",
      );
    } finally {
      torch.set_printoptions({ profile: "default" });
    }
  });

  test("set_printoptions keeps what is left out, except sci_mode (as PyTorch)", () => {
    torch.set_printoptions({ precision: 6, sci_mode: true });
    torch.set_printoptions({ linewidth: 120 });
    const o = torch.get_printoptions();
    assert.deepEqual(
      [o.precision, o.linewidth, o.sci_mode, o.threshold],
      [6, 120, null, 1000],
    );
    torch.set_printoptions({ profile: "short" });
    const s = torch.get_printoptions();
    assert.deepEqual(
      [s.precision, s.edgeitems, s.linewidth, s.threshold],
      [2, 2, 80, 1000],
    );
    torch.set_printoptions({ profile: "full" });
    assert.equal(torch.get_printoptions().threshold, Infinity);
    assert.throws(
      () => torch.set_printoptions({ profile: "long" }),
      torch.TorchError,
    );
    torch.set_printoptions({ profile: "default" });
    assert.deepEqual(torch.get_printoptions(), {
      precision: 4,
      threshold: 1000,
      edgeitems: 3,
      linewidth: 80,
      sci_mode: null,
    });
  });

  test("print() writes format()'s text to the console", async () => {
    const logged = [];
    const log = console.log;
    console.log = (s) => logged.push(s);
    try {
      await torch
        .tensor([
          [1, 2],
          [3, 4],
        ])
        .print();
    } finally {
      console.log = log;
    }
    assert.deepEqual(logged, ["tensor([[1, 2],\n        [3, 4]])"]);
  });
});
