/**
 * Activations with arguments (`hardshrink`, `softshrink`, `threshold`, `glu`, `prelu`, `rrelu`,
 * `leaky_relu`, `hardtanh`) as `torch.*` functions (also re-exported by `torch.nn.functional`
 * callers through these names) and their in-place `*_` forms. Each is a `where` or product of
 * core ops, so it differentiates; an in-place form writes the out-of-place result back with
 * `copy_`.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { isFloatingPoint } from "../dtype.js";
import { floatOnly } from "./float_only.js";
import { DTypeError, ShapeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { where } from "./conditional.js";
import { rand } from "./creation.js";
import { Tensor, checkTensor, wrapDim } from "../tensor/tensor.js";

/** `x` where `|x| > lambd`, else 0. */
export function hardshrink(input: Tensor, lambd?: number): Tensor {
  ({ input, lambd } = args("nn.functional.hardshrink", arguments));
  return checkTensor("hardshrink", "input", input).hardshrink(lambd);
}

/** `x - lambd` above `lambd`, `x + lambd` below `-lambd`, else 0 (NaN stays NaN). */
export function softshrink(input: Tensor, lambd?: number): Tensor {
  ({ input, lambd } = args("nn.functional.softshrink", arguments));
  const x = floatOnly(
    "softshrink_check",
    checkTensor("softshrink", "input", input),
  );
  if (lambd < 0)
    throw new TorchError(
      `lambda must be greater or equal to 0, but found to be ${lambd}.`,
    );
  return scope(() =>
    where(
      x.gt(lambd),
      x.sub(lambd),
      where(x.lt(-lambd), x.add(lambd), x.mul(0)),
    ),
  );
}

/** `x` where `x > threshold`, else `value`. */
export function threshold(
  input: Tensor,
  threshold: number,
  value: number,
): Tensor {
  ({ input, threshold, value } = args("nn.functional.threshold", arguments));
  const x = checkTensor("threshold", "input", input);
  if (x.dtype === "bool")
    throw new DTypeError(`"threshold_cpu" not implemented for 'Bool'`);
  return scope(() => where(x.le(threshold), value, x));
}

/** `a * sigmoid(b)` for the halves `a`, `b` of `dim` (default -1). */
export function glu(input: Tensor, dim?: number): Tensor {
  ({ input, dim } = args("nn.functional.glu", arguments));
  const x = checkTensor("glu", "input", input);
  if (x.ndim === 0)
    throw new ShapeError(
      "glu does not support scalars because halving size must be even",
    );
  const d = wrapDim(dim, x.ndim);
  const n = x.shape[d]!;
  if (n % 2 !== 0)
    throw new ShapeError(
      `Halving dimension must be even, but dimension ${d} is size ${n}`,
    );
  return scope(() =>
    x.narrow(d, 0, n / 2).mul(x.narrow(d, n / 2, n / 2).sigmoid()),
  );
}

/** `x` above 0, `weight * x` below; `weight` has 1 or `channels` (dim 1) elements. */
export function prelu(input: Tensor, weight: Tensor): Tensor {
  ({ input, weight } = args("nn.functional.prelu", arguments));
  const x = floatOnly("prelu_cpu", checkTensor("prelu", "input", input));
  const w = checkTensor("prelu", "weight", weight);
  const n = w.numel();
  const channels = x.ndim >= 2 ? x.shape[1]! : 1;
  if (n !== 1 && n !== channels)
    throw new ShapeError(
      `Mismatch of parameter numbers and input channel size. Found parameter numbers = ${n} and channel size = ${channels}.`,
    );
  return scope(() => {
    const ws =
      n === 1 || x.ndim < 2
        ? w.reshape([])
        : w.reshape([n, ...new Array<number>(x.ndim - 2).fill(1)]);
    return where(x.gt(0), x, x.mul(ws));
  });
}

/** `max(0, x) + negative_slope * min(0, x)`. */
export function leaky_relu(input: Tensor, negative_slope?: number): Tensor {
  if (!(
    arguments.length === 2 &&
    input instanceof Tensor &&
    typeof negative_slope === "number"
  )) {
    const a = args("leaky_relu", arguments);
    input = a.input;
    negative_slope = Number(a.negative_slope);
  }
  const x = floatOnly("leaky_relu_cpu", input);
  const slope = negative_slope;
  return scope(() => where(x.gt(0), x, x.mul(slope)));
}

/**
 * `x` clamped to `[min_val, max_val]`. The gradient passes strictly inside and at NaN, and is 0 at
 * the bounds and beyond (PyTorch's `hardtanh_backward`).
 */
export function hardtanh(
  input: Tensor,
  min_val?: number,
  max_val?: number,
): Tensor {
  const a = args("hardtanh", arguments);
  const x = a.input;
  if (x.dtype === "bool")
    throw new DTypeError("Bool inputs not supported for hardtanh");
  // An integer input keeps its dtype: the bounds are cast to it (truncated), as PyTorch does.
  const cast = isFloatingPoint(x.dtype) ? Number : Math.trunc;
  const [lo, hi] = [cast(Number(a.min_val)), cast(Number(a.max_val))];
  return scope(() => where(x.le(lo), lo, where(x.ge(hi), hi, x)));
}

/**
 * Randomized leaky ReLU: in training, each negative element is scaled by a slope drawn uniformly
 * from `[lower, upper]`; in evaluation (the default) by their mean.
 */
export function rrelu(
  input: Tensor,
  lower?: number,
  upper?: number,
  training?: boolean,
): Tensor {
  ({ input, lower, upper, training } = args("nn.functional.rrelu", arguments));
  const x = checkTensor("rrelu", "input", input);
  if (!training) return leaky_relu(x, (lower + upper) / 2);
  return scope(() => {
    const slope = rand(x.shape, { device: x.device })
      .mul(upper - lower)
      .add(lower);
    return where(x.ge(0), x, x.mul(slope));
  });
}

/** {@link threshold} under a name that `threshold_`'s `threshold` argument does not shadow. */
const thresholdOf = threshold;

function inPlace(input: Tensor, fn: (x: Tensor) => Tensor): Tensor {
  const y = fn(input);
  try {
    input.copy_(y);
  } finally {
    y.dispose();
  }
  return input;
}

/** `threshold` in place (its argument `threshold` names the cut-off, as in PyTorch). */
export function threshold_(
  input: Tensor,
  threshold: number,
  value: number,
): Tensor {
  const a = args("threshold_", arguments);
  return inPlace(a.input, (x) =>
    thresholdOf(x, Number(a.threshold), Number(a.value)),
  );
}
/** {@link leaky_relu} in place. */
export function leaky_relu_(input: Tensor, negative_slope?: number): Tensor {
  const a = args("leaky_relu_", arguments);
  return inPlace(a.input, (x) => leaky_relu(x, Number(a.negative_slope)));
}
/** {@link hardtanh} in place. */
export function hardtanh_(
  input: Tensor,
  min_val?: number,
  max_val?: number,
): Tensor {
  const a = args("hardtanh_", arguments);
  return inPlace(a.input, (x) =>
    hardtanh(x, Number(a.min_val), Number(a.max_val)),
  );
}
/** {@link rrelu} in place. */
export function rrelu_(
  input: Tensor,
  lower?: number,
  upper?: number,
  training?: boolean,
): Tensor {
  const a = args("rrelu_", arguments);
  return inPlace(a.input, (x) =>
    rrelu(x, Number(a.lower), Number(a.upper), a.training),
  );
}
