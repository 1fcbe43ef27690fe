// `await t.format()` against the exact text PyTorch's repr() prints (fixtures/printing.json, made
// by tests/parity/printing_gen.py), character for character, on every device; plus the device
// suffix and set_printoptions' bookkeeping, which have no PyTorch counterpart to compare with.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { inspect } from "node:util";
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

// Printing without a read (toString, `${t}`, util.inspect as console.log uses it): PyTorch's text
// when the values are on the host, the size/dtype/device and how to see them otherwise.
const NOT_READ =
  /^(Parameter containing:\n)?tensor\(size=\(.*\), dtype=torch\.\w+, device='webgpu'(, grad_fn=<\w+>|, requires_grad=True)?\) \[values on the GPU, not read yet: await t\.print\(\) or await t\.tolist\(\)\]$/;

for (const device of devices) {
  describe(`printing without a read on ${device}`, () => {
    test("String(t), `${t}` and util.inspect(t) are PyTorch's repr() once the values are on the host", async () => {
      await torch.init({ device });
      const failures = [];
      for (const c of cases) {
        torch.set_printoptions({ profile: "default" });
        const t = build(c);
        if (c.options) torch.set_printoptions(c.options);
        const before = [String(t), `${t}`, inspect(t)];
        if (device === "cpu" || t.numel() === 0) {
          for (const text of before)
            if (text !== c.repr)
              failures.push(`${c.name}:\n${text}\n--- PyTorch:\n${c.repr}`);
        } else {
          for (const text of before)
            if (!NOT_READ.test(text))
              failures.push(`${c.name} before a read:\n${text}`);
          await t.toArray();
          for (const text of [String(t), `${t}`, inspect(t)])
            if (text !== c.repr)
              failures.push(
                `${c.name} read:\n${text}\n--- PyTorch:\n${c.repr}`,
              );
        }
        torch.set_printoptions({ profile: "default" });
      }
      await torch.init();
      assert.deepEqual(failures, []);
    });
  });
}

describe("printing without a read: what is known on the host", () => {
  test("a write after the read, or a disposed tensor, is not printed from the old values", async () => {
    const t = torch.tensor([1, 2, 3], { dtype: "int32" });
    const gpu = t.device !== "cpu";
    const suffix = gpu ? "" : ", device='cpu'";
    if (gpu) assert.match(String(t), /not read yet/);
    await t.tolist();
    assert.equal(String(t), `tensor([1, 2, 3], dtype=torch.int32${suffix})`);
    t.add_(1);
    if (gpu) assert.match(String(t), /not read yet/);
    await t.tolist();
    assert.equal(String(t), `tensor([2, 3, 4], dtype=torch.int32${suffix})`);
    // A write through a view moves the storage's version too.
    t.narrow(0, 0, 1).fill_(7);
    if (gpu) assert.match(String(t), /not read yet/);
    await t.tolist();
    assert.equal(String(t), `tensor([7, 3, 4], dtype=torch.int32${suffix})`);
    t.dispose();
    assert.equal(String(t), "tensor(<disposed>)");
  });

  test("a view read on its own prints; its base not yet", async () => {
    const base = torch.arange(6).reshape(2, 3);
    const row = base.select(0, 1);
    await row.tolist();
    assert.equal(
      String(row).replace(", device='cpu'", ""),
      "tensor([3, 4, 5])",
    );
    if (base.device !== "cpu") assert.match(String(base), /not read yet/);
  });

  test("int32 values beyond float32's exact integers print exactly from a kept read", async () => {
    torch.set_printoptions({ threshold: 4, edgeitems: 1 });
    try {
      const t = torch.tensor([16777217, 0, 0, 0, 0, -16777219], {
        dtype: "int32",
      });
      await t.toArray();
      const suffix = t.device === "cpu" ? ", device='cpu'" : "";
      const expected = `tensor([ 16777217,  ..., -16777219], dtype=torch.int32${suffix})`;
      assert.equal(String(t), expected);
      assert.equal(await t.format(), expected);
    } finally {
      torch.set_printoptions({ profile: "default" });
    }
  });
});

describe("JS operators and conversions on tensors", () => {
  const t = torch.tensor([1, 2]);
  const one = torch.tensor([5]);
  test("t + 1, t == 1 throw a TorchError naming the methods", () => {
    for (const f of [() => t + 1, () => t == 1, () => 1 + one, () => one + 1])
      assert.throws(f, (e) => {
        assert.ok(e instanceof torch.TorchError, String(e));
        assert.match(e.message, /use t\.add\(1\), t\.eq\(1\) or torch\.\$/);
        return true;
      });
  });
  test("+t, Number(t), t * 2, t < 0 throw PyTorch's scalar-conversion error, naming item()", () => {
    // PyTorch: float(torch.ones(2)) → "only one element tensors can be converted to Python scalars"
    for (const f of [() => +t, () => Number(t), () => t * 2, () => t < 0])
      assert.throws(f, {
        name: "TorchError",
        message: /^only one element tensors can be converted to Python scalars/,
      });
    for (const f of [() => +one, () => one * 2, () => Math.max(one, 1)])
      assert.throws(f, { message: /use await t\.item\(\)/ });
  });
  test("valueOf() is bool(t)'s error in PyTorch's words, or names item()/is_nonzero()", () => {
    assert.throws(() => t.valueOf(), {
      message: "Boolean value of Tensor with more than one value is ambiguous",
    });
    assert.throws(() => torch.zeros(0).valueOf(), {
      message: "Boolean value of Tensor with no values is ambiguous",
    });
    assert.throws(() => one.valueOf(), { message: /await t\.is_nonzero\(\)/ });
  });
  test("`${t}` and String(t) are toString()", () => {
    assert.equal(`${t}`, t.toString());
    assert.equal(String(t), t.toString());
    assert.equal(`${[t]}`, t.toString());
  });
});

describe("printing without a read after a captured graph's replay", () => {
  test("parameters an optimizer step updated in a replayed graph are not printed from an old read", async (t) => {
    if (!torch.webgpu.is_available())
      return t.skip("kernel graphs are WebGPU's");
    await torch.init({ device: "webgpu" });
    torch.manual_seed(0);
    const w = torch.randn(4, 2).requires_grad_();
    const x = torch.randn(8, 4);
    const opt = new torch.optim.SGD([w], { lr: 0.1 });
    const step = torch.compile((xb) => {
      opt.zero_grad();
      const loss = xb.matmul(w).square().mean();
      loss.backward();
      opt.step();
      return loss;
    });
    const stale = [];
    for (let s = 0; s < 8; s++) {
      step(x).dispose();
      const before = await w.format(); // reads w (kept for printing)
      assert.equal(String(w), before);
      step(x).dispose();
      const shown = String(w);
      const now = await w.format();
      if (shown !== now && !/not read yet/.test(shown))
        stale.push(`step ${s}:\n${shown}\n--- now:\n${now}`);
    }
    assert.ok(step.stats.graph_replays > 0, "a graph was replayed");
    assert.deepEqual(stale, []);
  });
});
