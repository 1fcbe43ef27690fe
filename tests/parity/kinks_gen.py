"""PyTorch's gradients at kinks, ties and special points (a clamp bound, 0 for the piecewise
activations, ±3 for hardswish, equal maxima in pooling, a constant's std, 0 ** 0, atan2(0, 0),
…) and the values of forms PyTorch accepts that take a second path in webtorch (a uint8 tensor
compared with an out-of-range integer, shifts by a number, masked_fill with a 0-d tensor,
one-argument `where`, `None` in an adaptive pooling size, interpolate's "area" mode), for
tests/node/kinks.test.mjs, which runs the same programs by name.

Writes tests/parity/fixtures/kinks.json: {case: {"inputs": [{data, shape, dtype}], "out": [flat
values, one list per result], "grads": [flat gradient or null, one per input], "upstream": flat
values or null}}, one case a line; non-finite values as "nan", "inf", "-inf".

Run: .venv-torch/bin/python tests/parity/kinks_gen.py
"""

import json
import math
from pathlib import Path

import torch
import torch.nn.functional as F

OUT = Path(__file__).parent / "fixtures" / "kinks.json"
INF, NAN = math.inf, math.nan


def f32(*data):
    return torch.tensor(data, dtype=torch.float32)


# name: (inputs, program). Float inputs get gradients; the upstream is 0.5 … 1.5 over the output.
CASES = {
    "clamp_scalar_bounds": ([f32(-1, 1, 0, 2, -2, NAN)], lambda x: x.clamp(-1, 1)),
    "clamp_min_at_bound": ([f32(0, 1, -1, NAN)], lambda x: x.clamp_min(0)),
    "clamp_max_at_bound": ([f32(0, 1, -1)], lambda x: x.clamp_max(0)),
    "clamp_tensor_bounds": (
        [f32(-1, 1, 0, 2, -3), f32(-1, -1, -1, -1, -1), f32(1, 1, 1, 1, 1)],
        lambda x, lo, hi: x.clamp(lo, hi),
    ),
    "clamp_tensor_bounds_nan_and_order": (
        [
            f32(0, 0, 1, 1, 1, 2, 2, 2, NAN, NAN, 0, 1, 1, 2, 2, 3),
            f32(1, NAN, 1, 1, NAN, NAN, 1, 1, 1, NAN, 1, 1, 1, 1, 1, 1),
            f32(1, 1, 1, 0, 0, 1, NAN, 2, 0, 1, NAN, NAN, 2, 2, 1, 0),
        ],
        lambda x, lo, hi: x.clamp(lo, hi),
    ),
    "clamp_min_tensor_ties_nan": ([f32(0, NAN, 1, -1), f32(NAN, 0, 1, 0)], lambda x, lo: x.clamp(min=lo)),
    "clamp_max_tensor_ties_nan": ([f32(0, NAN, 1, 2), f32(NAN, 0, 1, 0)], lambda x, hi: x.clamp(max=hi)),
    "clamp_min_above_max": ([f32(0, 1, 2)], lambda x: x.clamp(1, 0)),
    "hardtanh_at_bounds": ([f32(-1, 1, 0, 2, NAN)], lambda x: F.hardtanh(x)),
    "hardtanh_range_at_bounds": ([f32(-2, 3, 0, 4)], lambda x: F.hardtanh(x, -2.0, 3.0)),
    "relu_at_0": ([f32(0, 1, -1)], F.relu),
    "relu6_at_kinks": ([f32(0, 6, 3, 7)], F.relu6),
    "leaky_relu_at_0": ([f32(0, 1, -1)], lambda x: F.leaky_relu(x, 0.1)),
    "elu_at_0": ([f32(0, 1, -1)], F.elu),
    "elu_alpha_at_0": ([f32(0, 1, -1, 100)], lambda x: F.elu(x, 2.0)),
    "celu_at_0": ([f32(0, 1, -1)], F.celu),
    "celu_alpha_at_0": ([f32(0, 1, -1, 200)], lambda x: F.celu(x, 2.0)),
    "selu_at_0": ([f32(0, 1, -1)], F.selu),
    "hardswish_at_3": ([f32(-3, 3, 0, -4, 4, NAN)], F.hardswish),
    "hardsigmoid_at_3": ([f32(-3, 3, 0)], F.hardsigmoid),
    "softplus_at_threshold": ([f32(20, 10, 5)], lambda x: F.softplus(x, 2.0, 10.0)),
    "softplus_default_threshold": ([f32(20, 21, 19)], F.softplus),
    "adaptive_max_pool2d_ties": (
        [f32(1, 1, 1, 1, 1, 1, 1, 1, 1).reshape(1, 3, 3)], lambda x: F.adaptive_max_pool2d(x, 2)
    ),
    "adaptive_max_pool2d_tie_rows": (
        [f32(1, 2, 2, 2).reshape(1, 2, 2)], lambda x: F.adaptive_max_pool2d(x, 1)
    ),
    "adaptive_max_pool1d_ties": ([f32(1, 1, 1, 2, 2).reshape(1, 1, 5)], lambda x: F.adaptive_max_pool1d(x, 2)),
    "max_pool2d_ties": ([f32(1, 1, 1, 1, 1, 1, 1, 1, 1).reshape(1, 1, 3, 3)], lambda x: F.max_pool2d(x, 2, 1)),
    "max_pool1d_ties": ([f32(1, 1, 1, 2, 2).reshape(1, 1, 5)], lambda x: F.max_pool1d(x, 2, 1)),
    "max_ties": ([f32(1, 3, 3, 2)], lambda x: x.max()),
    "min_ties": ([f32(1, 0, 0, 2)], lambda x: x.min()),
    "amax_ties": ([f32(1, 3, 3, 2, 2, 1).reshape(2, 3)], lambda x: x.amax(1)),
    "amin_ties": ([f32(1, 3, 1, 2, 2, 2).reshape(2, 3)], lambda x: x.amin(1)),
    "max_dim_ties": ([f32(1, 3, 3, 2, 2, 1).reshape(2, 3)], lambda x: x.max(1)[0]),
    "maximum_ties_nan": ([f32(1, 2, NAN, 1), f32(1, 3, 1, NAN)], torch.maximum),
    "minimum_ties_nan": ([f32(1, 2, NAN, 1), f32(1, 3, 1, NAN)], torch.minimum),
    "fmax_ties_nan": ([f32(NAN, 1, NAN, 2, 1), f32(1, NAN, NAN, 2, 3)], torch.fmax),
    "fmin_ties_nan": ([f32(NAN, 1, NAN, 2, 1), f32(1, NAN, NAN, 2, 3)], torch.fmin),
    "std_constant": ([f32(2, 2, 2)], lambda x: x.std()),
    "std_dim_constant_row": ([f32(2, 2, 1, 3).reshape(2, 2)], lambda x: x.std(1)),
    "var_constant": ([f32(2, 2, 2)], lambda x: x.var()),
    "pow_zero_zero": ([f32(0, 1, 0), f32(0, 0, 2)], torch.pow),
    "pow_zero_negative": ([f32(0, 0, 0), f32(2, 0.5, -1)], torch.pow),
    "pow_scalar_exponent_0": ([f32(0, 1)], lambda x: torch.pow(x, 0)),
    "pow_scalar_exponent_half_at_0": ([f32(0, 4)], lambda x: torch.pow(x, 0.5)),
    "pow_scalar_base_0": ([f32(0, 1, -1)], lambda x: torch.pow(0.0, x)),
    "square_at_0": ([f32(0, 1)], lambda x: x**2),
    "sqrt_at_0": ([f32(0, 1)], torch.sqrt),
    "smooth_l1_beta_0": ([f32(0, 1, -2), f32(0, 0, 0)], lambda a, b: F.smooth_l1_loss(a, b, reduction="none", beta=0.0)),
    "smooth_l1_beta_0_mean": ([f32(0, 1, -2), f32(0, 0, 0)], lambda a, b: F.smooth_l1_loss(a, b, beta=0.0)),
    "smooth_l1_at_beta": ([f32(0, 1, -1), f32(0, 0, 0)], lambda a, b: F.smooth_l1_loss(a, b, reduction="none", beta=1.0)),
    "huber_at_delta": ([f32(0, 1, -1, 2), f32(0, 0, 0, 0)], lambda a, b: F.huber_loss(a, b, reduction="none", delta=1.0)),
    "abs_at_0": ([f32(0, 1, -1)], torch.abs),
    "sign_at_0": ([f32(0, 1, -1)], torch.sign),
    "norm_at_0": ([f32(0, 0, 0)], lambda x: x.norm()),
    "norm_1_at_0": ([f32(0, 0, 1)], lambda x: x.norm(1)),
    "norm_inf_ties": ([f32(0, 2, -2)], lambda x: x.norm(INF)),
    "dist_equal": ([f32(1, 2), f32(1, 2)], torch.dist),
    "cdist_equal_points": ([f32(1, 2, 0, 0).reshape(2, 2), f32(1, 2).reshape(1, 2)], torch.cdist),
    "cosine_similarity_zero_vector": ([f32(0, 0, 1, 2).reshape(2, 2), f32(1, 1, 0, 0).reshape(2, 2)], F.cosine_similarity),
    "cosine_similarity_tiny_norms": (
        [f32(1e-5, 3e-6, 1e-9, 0).reshape(2, 2), f32(2e-6, 1e-5, 1, 1).reshape(2, 2)],
        F.cosine_similarity,
    ),
    "cosine_similarity_broadcast_eps": (
        [f32(0.1, 0.2, 3, 4, 0, 0).reshape(3, 1, 2), f32(1, 2, 0.01, 0.02).reshape(2, 2)],
        lambda a, b: F.cosine_similarity(a, b, -1, 0.5),
    ),
    "cosine_similarity_lower_rank_first": ([f32(1, 2), f32(1, 0, 3, 4, 0, 0).reshape(3, 2)], lambda a, b: F.cosine_similarity(a, b, 1)),
    "atan2_origin": ([f32(0, 1, 0), f32(0, 0, 1)], torch.atan2),
    "xlogy_zero_zero": ([f32(0, 1), f32(0, 2)], torch.xlogy),
    "log_softmax_neg_inf": ([f32(-INF, 0, 1)], lambda x: F.log_softmax(x, 0)),
    "softmax_neg_inf": ([f32(-INF, 0, 1)], lambda x: F.softmax(x, 0)),
    # Forms.
    "uint8_gt_negative": ([torch.tensor([1, 2, 255], dtype=torch.uint8)], lambda x: x.gt(-1)),
    "uint8_eq_negative": ([torch.tensor([1, 2, 255], dtype=torch.uint8)], lambda x: x.eq(-1)),
    "uint8_ge_300": ([torch.tensor([1, 44, 255], dtype=torch.uint8)], lambda x: x.ge(300)),
    "int32_gt_2_pow_33": ([torch.tensor([1, -2], dtype=torch.int32)], lambda x: x.gt(2**33)),
    "left_shift_number": ([torch.tensor([1, 2, -3])], lambda x: torch.bitwise_left_shift(x, 2)),
    "right_shift_number": ([torch.tensor([8, 17, -3])], lambda x: torch.bitwise_right_shift(x, 2)),
    "uint8_left_shift_number": ([torch.tensor([1, 64, 200], dtype=torch.uint8)], lambda x: x.bitwise_left_shift(2)),
    "masked_fill_0d_tensor": (
        [f32(1, 2, 3, 4).reshape(2, 2), torch.tensor([[True, False], [True, True]]), f32(5).reshape(())],
        lambda x, m, v: x.masked_fill(m, v),
    ),
    "masked_fill_0d_int_into_float": (
        [f32(1, 2), torch.tensor([True, False]), torch.tensor(7)],
        lambda x, m, v: torch.masked_fill(x, m, v),
    ),
    "where_one_argument": (
        [torch.tensor([[True, False, True], [False, False, True]])], lambda c: torch.where(c)
    ),
    "adaptive_avg_pool2d_none": ([torch.arange(24, dtype=torch.float32).reshape(1, 4, 6)], lambda x: F.adaptive_avg_pool2d(x, [None, 3])),
    "adaptive_avg_pool2d_none_first": ([torch.arange(24, dtype=torch.float32).reshape(1, 4, 6)], lambda x: F.adaptive_avg_pool2d(x, [2, None])),
    "interpolate_area": ([torch.arange(24, dtype=torch.float32).reshape(1, 1, 4, 6)], lambda x: F.interpolate(x, size=(2, 4), mode="area")),
    "interpolate_area_1d": ([torch.arange(6, dtype=torch.float32).reshape(1, 1, 6)], lambda x: F.interpolate(x, scale_factor=0.5, mode="area")),
    "repeat_interleave_tensor": (
        [f32(1, 2, 3, 4).reshape(2, 2), torch.tensor([1, 2])], lambda x, r: x.repeat_interleave(r, 0)
    ),
    "repeat_interleave_tensor_flat": ([f32(1, 2, 3), torch.tensor([2, 0, 1])], lambda x, r: torch.repeat_interleave(x, r)),
    "repeat_interleave_0d_tensor_dim1": (
        [f32(1, 2, 3, 4).reshape(2, 2), torch.tensor(2)], lambda x, r: x.repeat_interleave(r, 1)
    ),
    "repeat_interleave_one_argument": ([torch.tensor([1, 0, 3])], lambda r: torch.repeat_interleave(r)),
    "one_hot_inferred": ([torch.tensor([0, 3, 1])], lambda t: F.one_hot(t)),
    "mean_dtype": ([torch.tensor([1, 2])], lambda x: x.mean(dtype=torch.float32)),
}


def enc(t):
    return [v if math.isfinite(v) else str(v) for v in t.detach().reshape(-1).double().tolist()]


def run(inputs, program):
    leaves = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    out = program(*leaves)
    outs = list(out) if isinstance(out, tuple) else [out]
    first = outs[0]
    upstream = None
    if first.requires_grad:
        n = first.numel()
        upstream = torch.linspace(0.5, 1.5, n) if n > 1 else torch.ones(n)
        first.backward(upstream.reshape(first.shape))
    return {
        "inputs": [{"data": enc(t), "shape": list(t.shape), "dtype": str(t.dtype)[6:]} for t in inputs],
        "out": [enc(o) for o in outs],
        "grads": [enc(t.grad) if t.grad is not None else None for t in leaves],
        "upstream": enc(upstream) if upstream is not None else None,
    }


def main():
    torch.set_num_threads(1)
    cases = {name: run(*spec) for name, spec in CASES.items()}
    lines = [f"{json.dumps(name)}: {json.dumps(case)}" for name, case in cases.items()]
    OUT.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"{len(cases)} cases → {OUT}")


if __name__ == "__main__":
    main()
