// float64 on the CPU backend against PyTorch (tests/parity/float64_gen.py writes
// tests/parity/fixtures/float64.json; each program below is the same call as the generator's):
// values that need f64 precision, math to ~1e-15 relative, reductions, matmul, softmax, indexing,
// casts, promotion with every dtype, float64 gradients, the special functions (lgamma, digamma,
// trigamma, erfinv, the Bessel functions), the sort family, searchsorted and nll_loss; the ops
// without a float64 kernel raise PyTorch's "not implemented for 'Double'"; WebGPU refuses
// float64 as PyTorch's MPS backend does; torch.optim steps float64 parameters.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/float64.json", import.meta.url),
    "utf8",
  ),
);
const SPECIAL = { nan: NaN, inf: Infinity, "-inf": -Infinity };
const dec = (xs) => xs.map((v) => (typeof v === "string" ? SPECIAL[v] : v));

const PROGRAMS = {
  roundtrip: (x) => x.clone(),
  add_tiny: torch.add,
  sub: torch.sub,
  mul: torch.mul,
  div: torch.div,
  pow: torch.pow,
  pow_scalar: (x) => x.pow(1.5),
  add_scalar: (x) => x.add(1e-13),
  mul_scalar: (x) => x.mul(0.1),
  rsub_scalar: (x) => torch.sub(1, x),
  maximum: torch.maximum,
  atan2: torch.atan2,
  hypot: torch.hypot,
  fmod: torch.fmod,
  remainder: torch.remainder,
  floor_divide: (x, y) => torch.floor_divide(x.detach(), y.detach()),
  logaddexp: torch.logaddexp,
  logaddexp2: torch.logaddexp2,
  gelu: F.gelu,
  softplus: F.softplus,
  mish: F.mish,
  elu: F.elu,
  selu: F.selu,
  celu: F.celu,
  relu6: F.relu6,
  hardsigmoid: F.hardsigmoid,
  hardswish: F.hardswish,
  logit: torch.logit,
  sinc: torch.sinc,
  exp: torch.exp,
  log: torch.log,
  log2: torch.log2,
  log10: torch.log10,
  log1p: torch.log1p,
  expm1: torch.expm1,
  sqrt: torch.sqrt,
  rsqrt: torch.rsqrt,
  sin: torch.sin,
  cos: torch.cos,
  tan: torch.tan,
  tanh: torch.tanh,
  sinh: torch.sinh,
  asin: torch.asin,
  atan: torch.atan,
  atanh: torch.atanh,
  sigmoid: torch.sigmoid,
  silu: F.silu,
  logsigmoid: F.logsigmoid,
  erf: torch.erf,
  abs_neg_square: (x) => x.neg().abs().add(x.square()),
  reciprocal: torch.reciprocal,
  floor_round: (x) => x.floor().add(x.round().mul(10)),
  eq_tiny: torch.eq,
  gt_scalar: (x) => x.gt(1),
  where: (x, y) => torch.where(x.gt(1), x, y),
  sum: (x) => x.sum(),
  sum_dim: (x) => x.sum(1),
  mean_dim: (x) => x.mean(0),
  prod: (x) => x.prod(),
  max: (x) => x.max(),
  min_dim: (x) => x.min(1)[0],
  argmax: (x) => x.argmax(),
  amax: (x) => x.amax(0),
  var: (x) => x.var(1),
  std: (x) => x.std(),
  logsumexp: (x) => x.logsumexp(1),
  norm: (x) => x.norm(),
  cumsum: (x) => x.cumsum(1),
  cumprod: (x) => x.cumprod(0),
  logcumsumexp: (x) => x.logcumsumexp(0),
  cummax: (x) => x.cummax(0)[0],
  cummin_indices: (x) => x.cummin(0)[1],
  argmin_dim: (x) => x.argmin(1),
  any_all: (x) => torch.stack([x.any(), x.all()]),
  rms_norm: (x) => F.rms_norm(x, [4]),
  scatter_add: (x) =>
    torch
      .zeros(3, { dtype: "float64" })
      .scatter_add(0, torch.tensor([0, 2, 0, 1, 2, 0, 1]), x),
  conv2d: (x, w) => F.conv2d(x, w),
  max_pool2d: (x) => F.max_pool2d(x, 2, 1),
  matmul: torch.matmul,
  mv: torch.mv,
  bmm: torch.bmm,
  softmax: (x) => torch.softmax(x, 1),
  log_softmax: (x) => torch.log_softmax(x, 0),
  layer_norm: (x) => F.layer_norm(x, [4]),
  transpose_contiguous: (x) => x.t().contiguous().mul(1),
  slice_step: (x) => x.index(":, 1::2").mul(1),
  index_select: (x) => x.index_select(1, torch.tensor([3, 0])),
  gather: (x) => x.gather(1, torch.tensor([[1], [0], [3]])),
  cat_stack: (x, y) =>
    torch.cat([x, y.mul(2)]).add(torch.stack([x, y]).sum(0).repeat(2)),
  expand_reshape: (x) => x.reshape(2, 1).expand(2, 3).reshape(6).mul(1),
  to_float32: (x) => x.float(),
  to_int64: (x) => x.long(),
  to_bool: (x) => x.bool(),
  from_int32: (x) => x.double().div(3),
  from_float32: (x) => x.double(),
  float32_plus_float64: torch.add,
  int_plus_float64: torch.add,
  grad_exp_sin: (x) => x.exp().mul(x.sin()),
  grad_div_log: (x, y) => y.div(x).add(x.log()),
  grad_matmul: (a, b) => a.matmul(b).tanh(),
  grad_softmax: (x) => torch.softmax(x.mul(2), 1),
  grad_log_softmax: (x) => torch.log_softmax(x, 1),
  grad_mean_std: (x) => x.mean(1).add(x.std(1)),
  grad_max_sum: (x) => x.amax(1).add(x.sum(1)),
  grad_sigmoid_pow: (x) => torch.sigmoid(x).pow(3),
  lgamma: torch.lgamma,
  digamma: torch.digamma,
  trigamma: (x) => torch.trigamma(x.detach()),
  trigamma_poles: (x) => torch.trigamma(x.detach()),
  erfinv: torch.erfinv,
  i0: torch.i0,
  i0e: torch.special.i0e,
  i1: torch.special.i1,
  i1e: torch.special.i1e,
  sort: (x) => torch.sort(x)[0],
  sort_indices: (x) => torch.sort(x, { descending: true })[1],
  argsort_2d: (x) => torch.argsort(x, { dim: 1 }),
  topk: (x) => x.topk(3)[0],
  kthvalue: (x) => x.kthvalue(3)[0],
  kthvalue_ties: (x) => x.kthvalue(5)[1],
  median: (x) => x.median(),
  quantile: (x) =>
    torch.quantile(x, torch.tensor([0.3, 0.5, 0.95], { dtype: "float64" })),
  quantile_scalar: (x) => torch.quantile(x, 0.3),
  nanquantile_scalar: (x) => torch.nanquantile(x, 0.7),
  unique: (x) => torch.unique(x.detach()),
  searchsorted: (s, v) => torch.searchsorted(s.detach(), v.detach()),
  nll_loss: (x, t, w) => F.nll_loss(x, t, { weight: w.detach() }),
  nll_loss_none: (x, t) => F.nll_loss(x, t, { reduction: "none" }),
  cross_entropy: F.cross_entropy,
  interpolate_aa_bilinear: (x) =>
    F.interpolate(x, { size: [3, 2], mode: "bilinear", antialias: true }),
  interpolate_aa_bicubic: (x) =>
    F.interpolate(x, {
      scale_factor: [1.5, 0.4],
      mode: "bicubic",
      antialias: true,
      align_corners: true,
    }),
};

/** Elementwise closeness: equal (NaN with NaN), or within `rel` of the larger magnitude of the
 * two, with an absolute floor of `rel` times the largest expected magnitude (cancellation). */
function assertClose(got, want, rel, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  const scale = Math.max(0, ...want.filter(Number.isFinite).map(Math.abs));
  for (let i = 0; i < want.length; i++) {
    const [a, b] = [got[i], want[i]];
    if (Object.is(a, b) || a === b) continue;
    const tol = rel * Math.max(Math.abs(a), Math.abs(b), scale);
    assert.ok(
      Math.abs(a - b) <= tol,
      `${what}[${i}]: got ${a}, PyTorch ${b} (difference ${Math.abs(a - b)} > ${tol})`,
    );
  }
}

const input = (i) =>
  torch.tensor(dec(i.data), { dtype: i.dtype }).reshape(i.shape);
const values = async (t) => Array.from(await t.toArray()).map(Number);
// Ulp-level differences of libm and summation order; float32 is 1e-7 off on these inputs.
const REL = 4e-15;
// layer_norm's input gradient is a difference of terms of size ~10 (1/σ of the rows) that cancel
// to ~1e-4: its error is f64's on those terms, a few 1e-14 (float32's would be ~1e-6).
const GRAD_ABS = { layer_norm: 1e-13 };

describe("[cpu] float64", () => {
  before(async () => {
    await torch.init({ device: "cpu" });
  });

  test("every fixture case has its program", () => {
    const cases = Object.keys(FIX.cases).filter((n) => FIX.cases[n].inputs);
    assert.deepEqual(cases.sort(), Object.keys(PROGRAMS).sort());
  });

  for (const [name, c] of Object.entries(FIX.cases)) {
    if (!c.inputs) continue;
    test(name, async () => {
      const leaves = c.inputs.map((i) => {
        const t = input(i);
        return i.dtype.startsWith("float") ? t.requires_grad_() : t;
      });
      // Awaited: `unique`'s result size depends on its values (a Promise, as its wrapper's).
      const out = await PROGRAMS[name](...leaves);
      assert.equal(out.dtype, c.dtype, "result dtype");
      assert.deepEqual([...out.shape], c.shape, "result shape");
      // A case's own tolerance (the special functions', 0 for exact results), else REL.
      const rel = c.tol ?? REL;
      assertClose(await values(out), dec(c.out), rel, name);
      if (c.upstream) {
        out.backward(
          torch.tensor(dec(c.upstream), { dtype: out.dtype }).reshape(c.shape),
        );
        for (let i = 0; i < leaves.length; i++) {
          if (c.grads[i] === null) continue;
          assert.equal(
            leaves[i].grad.dtype,
            c.inputs[i].dtype,
            "gradient dtype",
          );
          const want = dec(c.grads[i]);
          const got = await values(leaves[i].grad);
          if (GRAD_ABS[name] === undefined)
            assertClose(got, want, Math.max(rel, REL), `${name} grad ${i}`);
          else
            for (let j = 0; j < want.length; j++)
              assert.ok(
                Math.abs(got[j] - want[j]) <= GRAD_ABS[name],
                `${name} grad ${i}[${j}]: ${got[j]} vs ${want[j]}`,
              );
        }
      }
    });
  }

  test("values round-trip bit-exactly through tensor(), data() and tolist()", async () => {
    const xs = [
      1 + 1e-12,
      Math.PI,
      1e300,
      -0.1,
      5e-324,
      2 ** -1074 * 3,
      -0,
      0.1 + 0.2,
    ];
    const t = torch.tensor(xs, { dtype: torch.float64 });
    const read = await t.toArray();
    assert.ok(read instanceof Float64Array);
    assert.deepEqual(Array.from(read), xs);
    assert.deepEqual(await t.tolist(), xs);
    assert.equal(torch.double, "float64");
    assert.equal(t.float().double().dtype, "float64");
    assert.deepEqual(await t.index("2:4").tolist(), xs.slice(2, 4));
  });

  test("sums and means of 10^6 values float32 cannot hold", async () => {
    const big = (n) => torch.arange(n, { dtype: "float64" }).mul(0.1).add(1e-7);
    for (const [name, f] of [
      ["sum_big", (x) => x.sum()],
      ["mean_big", (x) => x.mean()],
    ]) {
      const c = FIX.cases[name];
      const got = f(big(c.n));
      assert.equal(got.dtype, "float64");
      assertClose([await got.item()], dec(c.out), 1e-15, name);
    }
  });

  test("safetensors F64 loads exactly from PyTorch's file and saves back as F64", async () => {
    const file = readFileSync(
      new URL("../parity/fixtures/float64.safetensors", import.meta.url),
    );
    const loaded = await torch.load(new Uint8Array(file));
    const want = dec(FIX.cases.roundtrip.inputs[0].data);
    assert.equal(loaded.x.dtype, "float64");
    assert.deepEqual(Array.from(await loaded.x.toArray()), want);
    assert.deepEqual([...loaded.m.shape], [3, 4]);
    assert.deepEqual(
      Array.from(await loaded.m.toArray()),
      dec(FIX.cases.matmul.inputs[0].data),
    );
    const bytes = await torch.save({ x: loaded.x });
    const header = JSON.parse(
      new TextDecoder().decode(
        bytes.subarray(
          8,
          8 + Number(new DataView(bytes.buffer).getBigUint64(0, true)),
        ),
      ),
    );
    assert.equal(header.x.dtype, "F64");
    const back = await torch.load(bytes);
    assert.deepEqual(Array.from(await back.x.toArray()), want);
  });

  test("promotion of float64 with every dtype is PyTorch's", () => {
    const P = FIX.promotion;
    const d64 = torch.ones(2, { dtype: "float64" });
    const z64 = torch.ones([], { dtype: "float64" });
    for (const name of [
      "float32",
      "int32",
      "int64",
      "uint8",
      "bool",
      "float16",
      "bfloat16",
      "float64",
    ]) {
      const t = torch.ones(2, { dtype: name });
      const z = torch.ones([], { dtype: name });
      assert.equal(torch.result_type(d64, t), P[`tensor_${name}`], name);
      assert.equal(torch.result_type(d64, z), P[`zerodim_${name}`], name);
      assert.equal(torch.result_type(t, z64), P[`${name}_with_zerodim`], name);
      assert.equal(d64.add(t).dtype, P[`tensor_${name}`], name);
    }
    assert.equal(torch.result_type(d64, 2), P.scalar_int);
    assert.equal(torch.result_type(d64, 0.5), P.scalar_float);
    assert.equal(torch.result_type(d64, true), P.scalar_bool);
    assert.equal(torch.ones(2).mul(0.1).dtype, P.float32_with_scalar_float);
  });

  test("poisson of float64 rates draws the float32 rates' numbers, as float64", async () => {
    const rates = [0.5, 3, 12.5, 40, 0, 1e3];
    torch.manual_seed(7);
    const d = torch.poisson(torch.tensor(rates, { dtype: "float64" }));
    torch.manual_seed(7);
    const f = torch.poisson(torch.tensor(rates));
    assert.equal(d.dtype, "float64");
    assert.deepEqual(await values(d), await values(f));
  });

  test("multinomial of float64 weights never draws a zero-weight category", async () => {
    const w = torch.tensor([0, 1e-12, 0, 3, 0], { dtype: "float64" });
    const drawn = await values(torch.multinomial(w, 2));
    assert.deepEqual(drawn.sort(), [1, 3]);
  });

  test("torch.optim steps float64 parameters in f64 as PyTorch does", async () => {
    const O = FIX.optim;
    const c = torch.tensor(dec(O.c), { dtype: "float64" });
    for (const [name, { options, out }] of Object.entries(O.cases)) {
      const w = torch.tensor(dec(O.w), { dtype: "float64" }).requires_grad_();
      const opt = new torch.optim[name]([w], options);
      for (let i = 0; i < O.steps; i++) {
        opt.zero_grad();
        w.mul(w).mul(c).sum().add(w.sin().sum()).backward();
        await opt.step();
      }
      assert.equal(w.dtype, "float64");
      assertClose(await values(w.detach()), dec(out), 1e-13, name);
    }
  });

  test("a parameter group mixing float64 with float32 is refused, not rounded", async () => {
    const a = torch.ones(2, { dtype: "float64" }).requires_grad_();
    const b = torch.ones(2).requires_grad_();
    const opt = new torch.optim.SGD([a, b], { lr: 0.1 });
    a.sum().add(b.sum()).backward();
    await assert.rejects(
      async () => opt.step(),
      (e) => e instanceof torch.TorchError && /float64/.test(e.message),
    );
  });

  test("lerp refuses an end or weight of another dtype, as PyTorch (no silent float64)", () => {
    const d = torch.tensor([1, 2], { dtype: "float64" });
    const f = torch.tensor([3.5, 4]);
    for (const [call, message] of [
      [
        () => f.lerp(d, 0.5),
        "expected dtype float for `end` but got dtype double",
      ],
      [
        () => d.lerp(d, f),
        "expected dtype double for `weight` but got dtype float",
      ],
      [
        () => d.lerp(torch.tensor([1, 2]), 0.5),
        "expected dtype double for `end` but got dtype long int",
      ],
    ])
      assert.throws(
        call,
        (e) => e instanceof torch.TorchError && e.message === message,
      );
  });

  test("the integer-only ops raise PyTorch's missing-kernel error", async () => {
    const x = torch.tensor([3, 1, 2], { dtype: "float64" });
    for (const [op, f] of [
      ["bitwise_and", () => torch.bitwise_and(x, x)],
      ["bitwise_not", () => torch.bitwise_not(x)],
      ["gcd", () => torch.gcd(x, x)],
    ]) {
      await assert.rejects(
        async () => values(await f()),
        (e) =>
          e instanceof torch.TorchError &&
          /not implemented for 'Double'/.test(e.message),
        op,
      );
    }
  });
});

describe("[webgpu] float64", { skip: !torch.webgpu.is_available() }, () => {
  before(async () => {
    await torch.init({ device: "webgpu" });
  });

  test("refuses float64 with PyTorch's MPS wording, naming WebGPU", async () => {
    const message =
      "Cannot convert a WebGPU Tensor to float64 dtype as the WebGPU device doesn't support float64. Please use float32 instead.";
    const refused = (e) =>
      e instanceof torch.TorchError && e.message === message;
    assert.throws(() => torch.tensor([1, 2], { dtype: "float64" }), refused);
    assert.throws(() => torch.zeros(2, { dtype: "float64" }), refused);
    assert.throws(() => torch.tensor([1.5]).double(), refused);
    assert.throws(() => torch.ones(3).to("float64"), refused);
    assert.throws(() => torch.rand(3, { dtype: "float64" }), refused);
    const cpu = torch.tensor([1.5], { dtype: "float64", device: "cpu" });
    assert.throws(() => cpu.to("webgpu"), refused);
  });
});
