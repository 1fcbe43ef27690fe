// Gradients at kinks, ties and special points, and forms PyTorch accepts that take a second path
// in webtorch, against PyTorch's values (tests/parity/kinks_gen.py writes
// tests/parity/fixtures/kinks.json; each program below is the same call as the generator's).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;
const fixtures = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/kinks.json", import.meta.url),
    "utf8",
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

const PROGRAMS = {
  clamp_scalar_bounds: (x) => x.clamp(-1, 1),
  clamp_min_at_bound: (x) => x.clamp_min(0),
  clamp_max_at_bound: (x) => x.clamp_max(0),
  clamp_tensor_bounds: (x, lo, hi) => x.clamp(lo, hi),
  clamp_tensor_bounds_nan_and_order: (x, lo, hi) => x.clamp(lo, hi),
  clamp_min_tensor_ties_nan: (x, lo) => x.clamp({ min: lo }),
  clamp_max_tensor_ties_nan: (x, hi) => x.clamp({ max: hi }),
  clamp_min_above_max: (x) => x.clamp(1, 0),
  hardtanh_at_bounds: (x) => F.hardtanh(x),
  hardtanh_range_at_bounds: (x) => F.hardtanh(x, -2, 3),
  relu_at_0: (x) => F.relu(x),
  relu6_at_kinks: (x) => F.relu6(x),
  leaky_relu_at_0: (x) => F.leaky_relu(x, 0.1),
  elu_at_0: (x) => F.elu(x),
  elu_alpha_at_0: (x) => F.elu(x, 2),
  celu_at_0: (x) => F.celu(x),
  celu_alpha_at_0: (x) => F.celu(x, 2),
  selu_at_0: (x) => F.selu(x),
  hardswish_at_3: (x) => F.hardswish(x),
  hardsigmoid_at_3: (x) => F.hardsigmoid(x),
  softplus_at_threshold: (x) => F.softplus(x, 2, 10),
  softplus_default_threshold: (x) => F.softplus(x),
  adaptive_max_pool2d_ties: (x) => F.adaptive_max_pool2d(x, 2),
  adaptive_max_pool2d_tie_rows: (x) => F.adaptive_max_pool2d(x, 1),
  adaptive_max_pool1d_ties: (x) => F.adaptive_max_pool1d(x, 2),
  max_pool2d_ties: (x) => F.max_pool2d(x, 2, 1),
  max_pool1d_ties: (x) => F.max_pool1d(x, 2, 1),
  max_ties: (x) => x.max(),
  min_ties: (x) => x.min(),
  amax_ties: (x) => x.amax(1),
  amin_ties: (x) => x.amin(1),
  max_dim_ties: (x) => x.max(1)[0],
  maximum_ties_nan: (a, b) => torch.maximum(a, b),
  minimum_ties_nan: (a, b) => torch.minimum(a, b),
  fmax_ties_nan: (a, b) => torch.fmax(a, b),
  fmin_ties_nan: (a, b) => torch.fmin(a, b),
  std_constant: (x) => x.std(),
  std_dim_constant_row: (x) => x.std(1),
  var_constant: (x) => x.var(),
  pow_zero_zero: (a, b) => torch.pow(a, b),
  pow_zero_negative: (a, b) => torch.pow(a, b),
  pow_scalar_exponent_0: (x) => torch.pow(x, 0),
  pow_scalar_exponent_half_at_0: (x) => torch.pow(x, 0.5),
  pow_scalar_base_0: (x) => torch.pow(0, x),
  square_at_0: (x) => x.pow(2),
  sqrt_at_0: (x) => torch.sqrt(x),
  smooth_l1_beta_0: (a, b) =>
    F.smooth_l1_loss(a, b, { reduction: "none", beta: 0 }),
  smooth_l1_beta_0_mean: (a, b) => F.smooth_l1_loss(a, b, { beta: 0 }),
  smooth_l1_at_beta: (a, b) =>
    F.smooth_l1_loss(a, b, { reduction: "none", beta: 1 }),
  huber_at_delta: (a, b) => F.huber_loss(a, b, { reduction: "none", delta: 1 }),
  abs_at_0: (x) => torch.abs(x),
  sign_at_0: (x) => torch.sign(x),
  norm_at_0: (x) => x.norm(),
  norm_1_at_0: (x) => x.norm(1),
  norm_inf_ties: (x) => x.norm(Infinity),
  dist_equal: (a, b) => torch.dist(a, b),
  cdist_equal_points: (a, b) => torch.cdist(a, b),
  cosine_similarity_zero_vector: (a, b) => F.cosine_similarity(a, b),
  cosine_similarity_tiny_norms: (a, b) => F.cosine_similarity(a, b),
  cosine_similarity_broadcast_eps: (a, b) => F.cosine_similarity(a, b, -1, 0.5),
  cosine_similarity_lower_rank_first: (a, b) => F.cosine_similarity(a, b, 1),
  atan2_origin: (a, b) => torch.atan2(a, b),
  xlogy_zero_zero: (a, b) => torch.xlogy(a, b),
  log_softmax_neg_inf: (x) => F.log_softmax(x, 0),
  softmax_neg_inf: (x) => F.softmax(x, 0),
  uint8_gt_negative: (x) => x.gt(-1),
  uint8_eq_negative: (x) => x.eq(-1),
  uint8_ge_300: (x) => x.ge(300),
  int32_gt_2_pow_33: (x) => x.gt(2 ** 33),
  left_shift_number: (x) => torch.bitwise_left_shift(x, 2),
  right_shift_number: (x) => torch.bitwise_right_shift(x, 2),
  uint8_left_shift_number: (x) => x.bitwise_left_shift(2),
  masked_fill_0d_tensor: (x, m, v) => x.masked_fill(m, v),
  masked_fill_0d_int_into_float: (x, m, v) => torch.masked_fill(x, m, v),
  where_one_argument: (c) => torch.where(c),
  adaptive_avg_pool2d_none: (x) => F.adaptive_avg_pool2d(x, [null, 3]),
  adaptive_avg_pool2d_none_first: (x) => F.adaptive_avg_pool2d(x, [2, null]),
  interpolate_area: (x) => F.interpolate(x, { size: [2, 4], mode: "area" }),
  interpolate_area_1d: (x) =>
    F.interpolate(x, { scale_factor: 0.5, mode: "area" }),
  repeat_interleave_tensor: (x, r) => x.repeat_interleave(r, 0),
  repeat_interleave_tensor_flat: (x, r) => torch.repeat_interleave(x, r),
  repeat_interleave_0d_tensor_dim1: (x, r) => x.repeat_interleave(r, 1),
  repeat_interleave_one_argument: (r) => torch.repeat_interleave(r),
  one_hot_inferred: (t) => F.one_hot(t),
  mean_dtype: (x) => x.mean({ dtype: "float32" }),
};

const num = (v) =>
  v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v;

function close(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  want.forEach((w, i) => {
    const g = Number(got[i]);
    w = num(w);
    const ok = Number.isNaN(w)
      ? Number.isNaN(g)
      : !Number.isFinite(w)
        ? g === w
        : Math.abs(g - w) <= 1e-6 + 1e-5 * Math.abs(w);
    assert.ok(ok, `${what}: element ${i} got ${g} want ${w}`);
  });
}

test("every fixture case has its program", () => {
  assert.deepEqual(Object.keys(PROGRAMS).sort(), Object.keys(fixtures).sort());
});

for (const device of devices) {
  describe(`kinks and forms on ${device}`, () => {
    for (const [name, fx] of Object.entries(fixtures)) {
      test(name, async () => {
        const inputs = fx.inputs.map((s) => {
          const t = torch
            .tensor(s.data.map(num), { dtype: s.dtype, device })
            .reshape(s.shape);
          return s.dtype === "float32" ? t.requires_grad_() : t;
        });
        let out = PROGRAMS[name](...inputs);
        if (out instanceof Promise) out = await out;
        const outs = Array.isArray(out) ? out : [out];
        assert.equal(outs.length, fx.out.length, "number of results");
        for (const [i, o] of outs.entries())
          close(await o.detach().reshape(-1).toArray(), fx.out[i], `out ${i}`);
        if (fx.upstream === null) return;
        outs[0].backward(
          torch
            .tensor(fx.upstream.map(num), { dtype: "float32", device })
            .reshape(outs[0].shape),
        );
        for (const [i, t] of inputs.entries()) {
          const want = fx.grads[i];
          if (want === null) continue;
          assert.ok(t.grad, `grad of input ${i} missing`);
          close(await t.grad.reshape(-1).toArray(), want, `grad of input ${i}`);
        }
      });
    }
  });
}
