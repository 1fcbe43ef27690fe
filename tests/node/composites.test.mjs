// The TS layer's composites that PyTorch fixtures cannot pin down: random factories (shapes,
// dtypes, ranges), the answers read back from the device (allclose, equal, is_nonzero,
// masked_select_async), in-place forms and the torch-level settings. Values of the deterministic
// composites are checked against PyTorch by the parity fixtures (tests/parity/fixtures/ts/).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`composites on ${device}`, () => {
    test("random factories: shapes, dtypes, ranges", async () => {
      torch.manual_seed(7);
      const base = torch.zeros([3, 4], { device });
      const r = torch.rand_like(base);
      assert.deepEqual([r.shape, r.dtype], [[3, 4], "float32"]);
      const n = torch.randn_like(base);
      assert.deepEqual(n.shape, [3, 4]);
      const i = torch.randint(-2, 3, [200], { device });
      assert.equal(i.dtype, "int64");
      const vals = await i.toArray();
      assert.ok(vals.every((v) => v >= -2 && v < 3));
      assert.equal(new Set(vals).size, 5, "every value drawn");
      const il = torch.randint_like(
        torch.zeros([50], { dtype: "int32", device }),
        4,
      );
      assert.equal(il.dtype, "int32");
      assert.ok((await il.toArray()).every((v) => v >= 0 && v < 4));
      const b = torch.bernoulli(torch.full([100], 0.5, { device }));
      assert.ok((await b.toArray()).every((v) => v === 0 || v === 1));
      const nm = torch.normal(2, 0.5, [64], { device });
      const mean = await nm.mean().item();
      assert.ok(Math.abs(mean - 2) < 0.5, `normal mean ${mean}`);
      assert.throws(
        () => torch.rand_like(torch.zeros([2], { dtype: "int64", device })),
        torch.TorchError,
      );
      assert.throws(
        () => torch.randint(5, 3, [2]),
        /random_ expects 'from' to be less than 'to'/,
      );
      const e = torch.empty(2, 3, { device });
      assert.deepEqual(await e.tolist(), [
        [0, 0, 0],
        [0, 0, 0],
      ]);
      const tr = torch.rrelu(torch.full([20], -1, { device }), 0.1, 0.3, true);
      assert.ok(
        (await tr.toArray()).every((v) => v <= -0.1 + 1e-6 && v >= -0.3 - 1e-6),
      );
      for (const t of [base, r, n, i, il, b, nm, e, tr]) t.dispose();
    });

    test("answers read from the device", async () => {
      const a = torch.tensor([1, 2, 3], { dtype: "float32", device });
      const b = torch.tensor([1, 2, 3.000001], { dtype: "float32", device });
      assert.equal(await torch.allclose(a, b), true);
      assert.equal(await torch.allclose(a, b.add(1)), false);
      assert.equal(await torch.equal(a, a.clone()), true);
      assert.equal(await torch.equal(a, b), false);
      assert.equal(await torch.equal(a, a.reshape(3, 1)), false);
      assert.equal(
        await torch.is_nonzero(torch.tensor([0.5], { device })),
        true,
      );
      assert.equal(await torch.is_nonzero(torch.tensor(0, { device })), false);
      await assert.rejects(
        torch.is_nonzero(a),
        /more than one value is ambiguous/,
      );
      const sel = await torch.masked_select_async(
        torch.tensor(
          [
            [1, 2],
            [3, 4],
          ],
          { device },
        ),
        torch.tensor([true, false], { device }),
      );
      assert.deepEqual(await sel.tolist(), [1, 3]);
    });

    test("masked_select_async differentiates", async () => {
      const x = torch
        .tensor([1, 2, 3], { dtype: "float32", device })
        .requires_grad_();
      const y = await torch.masked_select_async(
        x,
        torch.tensor([true, false, true], { device }),
      );
      y.sum().backward();
      assert.deepEqual(await x.grad.tolist(), [1, 0, 1]);
    });

    test("in-place forms write back", async () => {
      const x = torch.tensor([-2, 0.5, 3], { dtype: "float32", device });
      assert.equal(torch.hardtanh_(x), x);
      assert.deepEqual(await x.tolist(), [-1, 0.5, 1]);
      torch.threshold_(x, 0.6, 9);
      assert.deepEqual(await x.tolist(), [9, 9, 1]);
      const y = torch.tensor([-1, 2], { dtype: "float32", device });
      torch.leaky_relu_(y, 0.5);
      assert.deepEqual(await y.tolist(), [-0.5, 2]);
      const z = torch.zeros([2, 2], { device });
      z.scatter_(1, torch.tensor([[1], [0]], { device }), 5);
      z.scatter_add_(
        0,
        torch.tensor([[0, 0]], { device }),
        torch.ones([1, 2], { device }),
      );
      assert.deepEqual(await z.tolist(), [
        [1, 6],
        [5, 0],
      ]);
    });

    test("views, splits and new_* helpers", async () => {
      const t = torch.arange(6, { device }).reshape(2, 3);
      assert.deepEqual(t.new_zeros([2]).dtype, "int64");
      assert.deepEqual(await t.new_full([2], 7).tolist(), [7, 7]);
      assert.deepEqual(await t.new_tensor([1.5]).tolist(), [1]); // t's dtype (int64)
      assert.equal(torch.as_tensor(t), t);
      assert.equal(torch.as_tensor(t, { dtype: "float32" }).dtype, "float32");
      assert.equal(t.narrow(1, 1, 2).storage_offset(), 1);
      assert.deepEqual(
        torch.meshgrid([torch.arange(2), torch.arange(3)])[0].shape,
        [2, 3],
      );
      assert.deepEqual(
        torch.meshgrid([torch.arange(2), torch.arange(3)], {
          indexing: "xy",
        })[0].shape,
        [3, 2],
      );
      assert.deepEqual(torch.broadcast_shapes([2, 1], [3]), [2, 3]);
      assert.throws(
        () => torch.broadcast_shapes([2, 3], [4]),
        torch.ShapeError,
      );
    });

    // PyTorch's CPU mode sorts with `<`, which NaN breaks: which NaN (or value) it returns is
    // arbitrary, so no fixture pins it. A NaN must still count as a value: its row gets a mode
    // found at its index.
    test("mode of rows with NaN: a value of the row, at its index", async () => {
      const x = torch.tensor(
        [
          [NaN, NaN, 1],
          [2, NaN, 2],
        ],
        { device },
      );
      const [values, indices] = x.mode(1);
      const v = await values.toArray();
      const i = await indices.toArray();
      assert.ok(Number.isNaN(v[0]));
      assert.equal(v[1], 2);
      const rows = await x.toArray();
      for (const r of [0, 1]) {
        const at = rows[r * 3 + Number(i[r])];
        assert.ok(
          Object.is(at, v[r]) || (Number.isNaN(at) && Number.isNaN(v[r])),
        );
      }
    });
  });
}

test("settings and dtype queries", () => {
  assert.equal(torch.get_default_dtype(), "float32");
  torch.set_default_dtype("float32");
  assert.throws(() => torch.set_default_dtype("int32"), torch.DTypeError);
  torch.set_printoptions({ precision: 2 });
  assert.equal(torch.get_printoptions().precision, 2);
  torch.set_printoptions({ profile: "default" });
  assert.equal(torch.get_printoptions().precision, 4);
  assert.equal(torch.are_deterministic_algorithms_enabled(), false);
  torch.use_deterministic_algorithms(true, { warn_only: true });
  assert.equal(torch.get_deterministic_debug_mode(), 1);
  torch.set_deterministic_debug_mode("default");
  assert.equal(torch.are_deterministic_algorithms_enabled(), false);
  assert.equal(torch.is_inference_mode_enabled(), false);
  assert.equal(torch.is_complex(torch.zeros(1)), false);
  assert.equal(torch.promote_types("uint8", "int32"), "int32");
  assert.equal(torch.promote_types("bool", "float32"), "float32");
  const i = torch.zeros([2], { dtype: "int32" });
  assert.equal(torch.result_type(i, 2), "int32");
  assert.equal(torch.result_type(i, 2.5), "float32");
  assert.equal(torch.result_type(i, torch.tensor(1)), "int32"); // a 0-D int64 does not promote
  assert.equal(
    torch.result_type(torch.zeros([2], { dtype: "uint8" }), true),
    "uint8",
  );
  assert.equal(torch.result_type(2, 2.5), "float32");
  assert.equal(torch.can_cast("float32", "int32"), false);
  assert.equal(torch.can_cast("int32", "float32"), true);
  assert.equal(torch.get_num_threads(), 1);
  torch.set_float32_matmul_precision("high");
  assert.equal(torch.get_float32_matmul_precision(), "high");
  torch.set_float32_matmul_precision("highest");
});

test("index_put: indices out of range raise PyTorch's IndexError (at the call on the CPU backend, at every read of the result on WebGPU, where they are written nowhere)", async () => {
  const x = torch.zeros([4, 3], { device: "cpu" });
  const idx = torch.tensor([0, 5], { dtype: "int64", device: "cpu" });
  assert.throws(
    () => x.index_put([idx], torch.ones([3], { device: "cpu" })),
    (e) =>
      e instanceof torch.IndexError &&
      e.message === "index 5 is out of bounds for dimension 0 with size 4",
  );
  const neg = torch.tensor([-5], { dtype: "int64", device: "cpu" });
  assert.throws(
    () =>
      x.index_put_(
        [torch.tensor([0], { dtype: "int64", device: "cpu" }), neg],
        torch.ones([1], { device: "cpu" }),
      ),
    /index -5 is out of bounds for dimension 1 with size 3/,
  );
  if (torch.webgpu.is_available()) {
    const g = torch.zeros([4], { device: "webgpu" });
    const y = g.index_put(
      [torch.tensor([1, 9, -9], { dtype: "int64", device: "webgpu" })],
      torch.tensor([1, 2, 3], { dtype: "float32", device: "webgpu" }),
    );
    await assert.rejects(
      y.toArray(),
      (e) =>
        e instanceof torch.IndexError &&
        e.message === "index 9 is out of bounds for dimension 0 with size 4",
    );
    // The result depends on the failed check: every read of it raises; the input is untouched.
    await assert.rejects(y.toArray(), torch.IndexError);
    assert.deepEqual(Array.from(await g.toArray()), [0, 0, 0, 0]);
  }
});

test("index_put: a mask beside one-element indices, and a 0-dim mask beside others, need no read back", async () => {
  for (const device of torch.webgpu.is_available()
    ? ["cpu", "webgpu"]
    : ["cpu"]) {
    const x = torch.zeros([3, 4], { device });
    const mask = torch.tensor([true, false, true], { device });
    const y = x.index_put(
      [mask, torch.tensor(2, { dtype: "int64", device })],
      torch.tensor([5, 6], { dtype: "float32", device }),
    );
    assert.deepEqual(await y.tolist(), [
      [0, 0, 5, 0],
      [0, 0, 0, 0],
      [0, 0, 6, 0],
    ]);
    const none = x.index_put(
      [torch.tensor(false, { device }), torch.tensor([1], { device })],
      1,
    );
    assert.equal(
      await none.sum().item(),
      0,
      `${device}: a false 0-dim mask puts nothing`,
    );
    assert.throws(
      () => x.index_put([mask, torch.ones([4], { dtype: "bool", device })], 1),
      /several boolean masks/,
    );
    // Integer indices of shape [3, 1] beside the mask: the result is [3, nnz], one put per row.
    const cols = x.index_put(
      [mask, torch.tensor([[1], [2], [3]], { dtype: "int64", device })],
      torch.tensor([[1], [2], [3]], { dtype: "float32", device }),
    );
    assert.deepEqual(await cols.tolist(), [
      [0, 1, 2, 3],
      [0, 0, 0, 0],
      [0, 1, 2, 3],
    ]);
  }
});

test("poisson: the same draws on WebGPU and the CPU for a seed (rates < 10 exactly); moments of each rate", async () => {
  const rates = [0, 0.3, 2.5, 9.99, 10, 42, 1500];
  const n = 4000;
  const draws = {};
  for (const device of torch.webgpu.is_available()
    ? ["cpu", "webgpu"]
    : ["cpu"]) {
    const lam = torch
      .tensor(rates, { dtype: "float32", device })
      .reshape(rates.length, 1)
      .expand(rates.length, n);
    torch.manual_seed(1234);
    const x = torch.poisson(lam);
    assert.deepEqual([x.shape, x.dtype], [[rates.length, n], "float32"]);
    draws[device] = Array.from(await x.toArray());
    // Another call draws other numbers.
    const y = torch.poisson(lam);
    assert.notDeepEqual(Array.from(await y.toArray()), draws[device]);
  }
  if (draws.webgpu) {
    // Below rate 10 (Knuth's products) the draws are identical; above, a draw can move when a
    // uniform lands within the last-place rounding of sqrt/log/lgamma of a boundary (docs/dtypes.md
    // "Random numbers"): at most 1 in 1,000 here.
    const small = rates.filter((r) => r < 10).length * n;
    assert.deepEqual(draws.webgpu.slice(0, small), draws.cpu.slice(0, small));
    const moved = draws.cpu.filter((v, i) => v !== draws.webgpu[i]).length;
    assert.ok(moved <= draws.cpu.length / 1000, `${moved} draws differ`);
  }
  rates.forEach((r, i) => {
    const row = draws.cpu.slice(i * n, (i + 1) * n);
    assert.ok(row.every((v) => v >= 0 && Number.isInteger(v)));
    const mean = row.reduce((a, b) => a + b, 0) / n;
    const v = row.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
    // Mean and variance are both the rate: within 5 standard errors.
    assert.ok(
      Math.abs(mean - r) <= 5 * Math.sqrt(r / n),
      `rate ${r}: mean ${mean}`,
    );
    assert.ok(
      Math.abs(v - r) <= 5 * r * Math.sqrt(2 / n) + 0.05,
      `rate ${r}: variance ${v}`,
    );
  });
  assert.throws(
    () =>
      torch.poisson(torch.tensor([1, -1], { dtype: "float32", device: "cpu" })),
    /invalid Poisson rate, expected rate to be non-negative/,
  );
  const rate = torch.full([3], 4.5, { requires_grad: true });
  const drawn = torch.poisson(rate);
  assert.equal(drawn.grad_fn?.name, "PoissonBackward0");
  drawn.sum().backward();
  assert.deepEqual(Array.from(await rate.grad.toArray()), [0, 0, 0]);
  assert.throws(
    () => torch.poisson(torch.tensor([1, 2])),
    /"poisson_cpu" not implemented for 'Long'/,
  );
});

test("empty_strided and resize_ keep PyTorch's metadata", async () => {
  const e = torch.empty_strided([2, 3], [1, 2]);
  assert.deepEqual(
    [e.shape, e.stride()],
    [
      [2, 3],
      [1, 2],
    ],
  );
  const t = torch.arange(6, { dtype: "float32" });
  const v = t.view(2, 3);
  assert.equal(v.resize_(4), v);
  assert.deepEqual(v.shape, [4]);
  assert.deepEqual(Array.from(await v.toArray()), [0, 1, 2, 3]);
  v.resize_([2, 5]);
  assert.deepEqual(await v.tolist(), [
    [0, 1, 2, 3, 0],
    [0, 0, 0, 0, 0],
  ]);
  const g = torch.ones([2], { requires_grad: true });
  assert.throws(
    () => g.resize_(3),
    /cannot resize variables that require grad/,
  );
});

test("flip gathers by host-made positions: one dispatch a dim, no device-side index check", async () => {
  if (!torch.webgpu.is_available()) return;
  await torch.init({ device: "webgpu" });
  const w = torch.webgpu;
  const x = torch.arange(24).reshape(2, 3, 4).float();
  await w.sync_device();
  const s0 = w.runtime_stats();
  const y = x.flip(0, -1);
  await w.sync_device();
  const s1 = w.runtime_stats();
  assert.equal(s1.value_checks - s0.value_checks, 0, "no index checks");
  assert.equal(s1.dispatches - s0.dispatches, 2, "one gather a dim");
  const want = Array.from({ length: 24 }, (_, i) => {
    const [a, b, c] = [Math.floor(i / 12), Math.floor(i / 4) % 3, i % 4];
    return (1 - a) * 12 + b * 4 + (3 - c);
  });
  assert.deepEqual(Array.from(await y.toArray()), want);
  assert.throws(() => x.flip(3), /Dimension out of range/);
});
