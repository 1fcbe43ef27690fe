// The last function-index names against PyTorch (tests/parity/surface_gen.py): nextafter
// (bit-exact in float32 on both devices and float64 on the CPU, its gradients and dtype errors),
// histogram, the in-place view methods (layout, version, autograd) and grid_sample's bicubic mode
// (values, input and grid gradients).
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { readFixture } from "./inplace_fixture.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = readFixture("surface.json");

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

const f32 = (bits) => new Float32Array(Uint32Array.from(bits).buffer);
const f64 = (bits) =>
  new Float64Array(BigUint64Array.from(bits.map(BigInt)).buffer);

/** `got` equals `want` bit for bit, any NaN matching any NaN. */
function sameBits(got, want, what) {
  const u = (a) =>
    a instanceof Float64Array
      ? new BigUint64Array(a.buffer, a.byteOffset, a.length)
      : new Uint32Array(a.buffer, a.byteOffset, a.length);
  const [g, w] = [u(got), u(want)];
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i])) assert.ok(Number.isNaN(got[i]), `${what}[${i}]`);
    else
      assert.equal(
        g[i],
        w[i],
        `${what}[${i}]: ${got[i]} vs ${want[i]} (operands #${i})`,
      );
  }
}

function close(got, want, what, tol = 1e-5) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i]))
      assert.ok(Number.isNaN(got[i]), `${what}[${i}]: ${got[i]}`);
    else
      assert.ok(
        Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])),
        `${what}[${i}]: ${got[i]} vs ${want[i]}`,
      );
  }
}

const flat = async (t) => Array.from(await t.reshape(-1).toArray());

function throwsWith(call, message) {
  assert.throws(call, (e) => {
    assert.ok(e instanceof torch.TorchError, `${e}`);
    assert.equal(e.message, message);
    return true;
  });
}

for (const device of devices) {
  describe(`[${device}] last surface names`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("nextafter float32: bit-exact, ±0, subnormals, inf, NaN, equal operands", async () => {
      const N = FIX.nextafter;
      const a = torch.tensor(f32(N.a));
      const b = torch.tensor(f32(N.b));
      sameBits(await torch.nextafter(a, b).toArray(), f32(N.f32), "nextafter");
      const m = a.clone();
      assert.equal(m.nextafter_(b), m);
      sameBits(await m.toArray(), f32(N.f32), "nextafter_");
      sameBits(await a.nextafter(b).toArray(), f32(N.f32), "Tensor.nextafter");
    });

    test("nextafter float64 (CPU) or its refusal (WebGPU)", async () => {
      const N = FIX.nextafter;
      if (device === "webgpu") {
        assert.throws(
          () => torch.tensor(f64(N.a), { dtype: "float64" }),
          torch.DTypeError,
        );
        return;
      }
      const a = torch.tensor(f64(N.a64), { dtype: "float64" });
      const b = torch.tensor(f64(N.b64), { dtype: "float64" });
      sameBits(
        await torch.nextafter(a, b).toArray(),
        f64(N.f64),
        "nextafter64",
      );
    });

    test("nextafter: gradients as PyTorch's, dtype errors", async () => {
      const N = FIX.nextafter;
      const x = torch.tensor([1, -2, 3, 0, NaN, 1], {
        dtype: "float32",
        requires_grad: true,
      });
      const y = torch.tensor([0, 5, 3, -0, 2, NaN], {
        dtype: "float32",
        requires_grad: true,
      });
      torch
        .nextafter(x, y)
        .mul(torch.tensor([1, 2, 3, 4, 5, 6]))
        .sum()
        .backward();
      assert.deepEqual(await x.grad.tolist(), N.grad.x);
      assert.deepEqual(await y.grad.tolist(), N.grad.y);
      throwsWith(
        () => torch.nextafter(torch.tensor([1]), torch.tensor([2])),
        N.errors.int64,
      );
      throwsWith(
        () => torch.nextafter(torch.tensor([true]), torch.tensor([false])),
        N.errors.bool,
      );
      // webtorch's float16 computes in float32, whose neighbour is not float16's: refused.
      assert.throws(
        () =>
          torch.nextafter(
            torch.tensor([1], { dtype: "float16" }),
            torch.tensor([2], { dtype: "float16" }),
          ),
        torch.DTypeError,
      );
    });

    test("histogram: counts, weights, density, edges", async () => {
      for (const [i, c] of FIX.histogram.cases.entries()) {
        const x = torch.tensor(c.x, { dtype: "float32" });
        const bins =
          c.bins.edges !== undefined
            ? torch.tensor(c.bins.edges, { dtype: "float32" })
            : c.bins.count;
        const options = { density: c.density };
        if (c.range !== null) options.range = c.range;
        if (c.weight !== null)
          options.weight = torch.tensor(c.weight, { dtype: "float32" });
        const r = torch.histogram(x, bins, options);
        close(await r.hist.tolist(), c.hist, `case ${i} hist`);
        close(await r.bin_edges.tolist(), c.edges, `case ${i} edges`);
        assert.equal(r[0], r.hist);
        assert.equal(r[1], r.bin_edges);
        const m = x.histogram(bins, options);
        close(await m.hist.tolist(), c.hist, `case ${i} method`);
      }
    });

    test("histogram of float64 data (CPU)", async (t) => {
      if (device !== "cpu") return t.skip("float64 lives on the CPU device");
      for (const c of FIX.histogram.cases.slice(0, 5)) {
        const x = torch.tensor(c.x, { dtype: "float64" });
        const bins =
          c.bins.edges !== undefined
            ? torch.tensor(c.bins.edges, { dtype: "float64" })
            : c.bins.count;
        const options = { density: c.density };
        if (c.range !== null) options.range = c.range;
        if (c.weight !== null)
          options.weight = torch.tensor(c.weight, { dtype: "float64" });
        const r = torch.histogram(x, bins, options);
        assert.equal(r.hist.dtype, "float64");
        close(await r.hist.tolist(), c.hist, "float64 hist");
        close(await r.bin_edges.tolist(), c.edges, "float64 edges");
      }
    });

    test("histogram: PyTorch's errors", async () => {
      const E = Object.fromEntries(
        FIX.histogram.errors.map((e) => [e.call, e.message]),
      );
      const y = torch.ones(2);
      throwsWith(() => torch.histogram(y, 0), E.bins0);
      throwsWith(() => torch.histogram(y, 3, { range: [2, 1] }), E.range_order);
      throwsWith(
        () => torch.histogram(y, 3, { range: [0, Infinity] }),
        E.range_inf,
      );
      throwsWith(() => torch.histogram(torch.tensor([1, 2]), 3), E.int);
      throwsWith(() => torch.histogram(y, torch.tensor([[2, 1]])), E.bins2d);
      throwsWith(
        () => torch.histogram(y, 3, { weight: torch.ones(3) }),
        E.weight_shape,
      );
      // The data's range is checked on the device: raised at the call on the CPU, at the read
      // on WebGPU.
      await assert.rejects(
        async () => {
          const r = torch.histogram(torch.tensor([1, NaN]), 3);
          await r.hist.tolist();
        },
        new RegExp(E.nan_data.replace(/[[\]]/g, "\\$&")),
      );
    });

    test("in-place views: layout, version and gradients as PyTorch's", async () => {
      for (const c of FIX.views.cases) {
        const x = torch.tensor(c.x).reshape(c.shape).requires_grad_();
        const y = c.narrow === null ? x.mul(1) : x.mul(1).narrow(...c.narrow);
        const v0 = y._version;
        for (const s of c.steps) {
          const r = y[s.name](...s.args);
          assert.equal(r, y, s.name);
          const what = `${s.name}(${JSON.stringify(s.args)})`;
          assert.deepEqual(y.shape, s.shape, `${what} shape`);
          assert.deepEqual(y.stride(), s.stride, `${what} stride`);
          assert.equal(y.storage_offset(), s.offset, `${what} offset`);
          assert.equal(y.is_contiguous(), s.contiguous, `${what} contiguous`);
          assert.equal(y._version - v0, s.version, `${what} version`);
          assert.ok(y.grad_fn !== null && !y.is_leaf, `${what} recorded`);
        }
        const name = c.steps.map((s) => s.name).join(", ");
        close(await flat(y), c.values, `${name} values`);
        y.mul(torch.tensor(c.up).reshape(y.shape)).sum().backward();
        close(await flat(x.grad), c.grad, `${name} grad`);
      }
    });

    test("in-place views: PyTorch's errors; a leaf under no_grad stays a leaf", async () => {
      const E = FIX.views.errors;
      const leaf = torch.randn([2, 3], { requires_grad: true });
      throwsWith(() => leaf.t_(), E.leaf);
      throwsWith(() => leaf.select(0, 0).unsqueeze_(0), E.view_of_leaf);
      throwsWith(() => torch.randn([2, 3, 4]).t_(), E.t_3d);
      throwsWith(() => torch.randn([2]).unsqueeze_(3), E.unsqueeze_range);
      torch.no_grad(() => leaf.t_());
      assert.deepEqual(leaf.shape, [3, 2]);
      assert.ok(leaf.is_leaf && leaf.requires_grad);
      leaf.mul(torch.arange(6).reshape(3, 2)).sum().backward();
      assert.deepEqual(await leaf.grad.tolist(), [
        [0, 1],
        [2, 3],
        [4, 5],
      ]);
      // A saved input re-laid in place fails backward's version check, as in PyTorch.
      const a = torch.randn([2, 3], { requires_grad: true }).mul(1);
      const s = a.sin();
      a.unsqueeze_(0);
      assert.throws(() => s.sum().backward(), torch.TorchError);
    });

    const G = FIX.grid_sample;
    const gridCases = [
      ...G.cases.map((c) => [c, [2, 2, 4, 5], [2, 3, 4, 2], G.x, G.grid, G.up]),
      ...G.cases3.map((c) => [
        c,
        [1, 2, 3, 3, 4],
        [1, 2, 2, 3, 3],
        G.x3,
        G.grid3,
        G.up3,
      ]),
    ];
    for (const [c, xs, gs, xv, gv, up] of gridCases)
      test(`grid_sample bicubic ${xs.length}-D ${c.padding} align_corners=${c.align}`, async () => {
        const x = torch.tensor(xv).reshape(xs).requires_grad_();
        const grid = torch.tensor(gv).reshape(gs).requires_grad_();
        const y = torch.nn.functional.grid_sample(x, grid, {
          mode: "bicubic",
          padding_mode: c.padding,
          align_corners: c.align,
        });
        close(await flat(y), c.y, "output", 1e-4);
        y.mul(torch.tensor(up).reshape(y.shape)).sum().backward();
        close(await flat(x.grad), c.gx, "input grad", 1e-4);
        close(await flat(grid.grad), c.ggrid, "grid grad", 1e-4);
      });
  });
}
