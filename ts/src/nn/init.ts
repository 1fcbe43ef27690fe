/**
 * `torch.nn.init`: fills a tensor in place from a distribution, with PyTorch's fan computations,
 * gains and defaults. Values are drawn with `torch.rand`/`torch.randn` (seeded by
 * `torch.manual_seed`; the same on every device, but not PyTorch's numbers) and written with
 * `copy_` under `no_grad`, so parameters that require grad can be filled.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Tensor } from "../tensor/tensor.js";
import { no_grad } from "../autograd/grad_mode.js";
import { rand, randn } from "../ops/creation.js";
import { cat } from "../ops/indexing.js";
import { scope } from "../lifetime.js";

/** The nonlinearities {@link calculate_gain} knows. */
export type Nonlinearity =
  | "linear"
  | "conv1d"
  | "conv2d"
  | "conv3d"
  | "conv_transpose1d"
  | "conv_transpose2d"
  | "conv_transpose3d"
  | "sigmoid"
  | "tanh"
  | "relu"
  | "leaky_relu"
  | "selu";

/** Which fan kaiming_* scales by. */
export type FanMode = "fan_in" | "fan_out";

/** The recommended gain for a nonlinearity (`param`: leaky_relu's negative slope, default 0.01). */
export function calculate_gain(
  nonlinearity: Nonlinearity,
  param?: number | null,
): number {
  switch (nonlinearity) {
    case "linear":
    case "conv1d":
    case "conv2d":
    case "conv3d":
    case "conv_transpose1d":
    case "conv_transpose2d":
    case "conv_transpose3d":
    case "sigmoid":
      return 1;
    case "tanh":
      return 5 / 3;
    case "relu":
      return Math.SQRT2;
    case "leaky_relu": {
      const slope = param ?? 0.01;
      if (typeof slope !== "number")
        throw new TorchError(
          `negative_slope ${String(slope)} not a valid number`,
        );
      return Math.sqrt(2 / (1 + slope * slope));
    }
    case "selu":
      return 3 / 4;
    default:
      throw new TorchError(`Unsupported nonlinearity ${String(nonlinearity)}`);
  }
}

/** `[fan_in, fan_out]`: `size(1) * receptive field` and `size(0) * receptive field`. */
export function _calculate_fan_in_and_fan_out(
  tensor: Tensor,
): [number, number] {
  if (tensor.ndim < 2)
    throw new TorchError(
      "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    );
  const receptive = tensor.shape.slice(2).reduce((a, b) => a * b, 1);
  return [tensor.shape[1]! * receptive, tensor.shape[0]! * receptive];
}

function fan(tensor: Tensor, mode: FanMode): number {
  if (mode !== "fan_in" && mode !== "fan_out")
    throw new TorchError(
      `Mode ${String(mode)} not supported, please use one of fan_in, fan_out`,
    );
  const [fanIn, fanOut] = _calculate_fan_in_and_fan_out(tensor);
  return mode === "fan_in" ? fanIn : fanOut;
}

/** Writes `values` (disposed afterwards) into `tensor` without recording a gradient. */
function write(tensor: Tensor, values: Tensor): Tensor {
  try {
    no_grad(() => tensor.copy_(values));
  } finally {
    values.dispose();
  }
  return tensor;
}

function scaled(u: Tensor, mul: number, add: number): Tensor {
  const a = u.mul(mul);
  u.dispose();
  const b = a.add(add);
  a.dispose();
  return b;
}

function shapeOf(t: Tensor): number[] {
  return [...t.shape];
}

/** Fills `tensor` with values drawn uniformly from `[a, b)`. */
export function uniform_(tensor: Tensor, a = 0, b = 1): Tensor {
  if (a > b)
    throw new TorchError(
      `uniform_ expects to return a [from, to) range, but found from=${a} > to=${b}`,
    );
  return write(
    tensor,
    scaled(rand(shapeOf(tensor), { device: tensor.device }), b - a, a),
  );
}

/** Fills `tensor` with values drawn from N(mean, std²). */
export function normal_(tensor: Tensor, mean = 0, std = 1): Tensor {
  if (std < 0)
    throw new TorchError(`normal expects std >= 0.0, but found std ${std}`);
  return write(
    tensor,
    scaled(randn(shapeOf(tensor), { device: tensor.device }), std, mean),
  );
}

/**
 * Fills `tensor` from N(mean, std²) truncated to `[a, b]` (PyTorch's inverse-CDF method:
 * uniform in CDF space, `erfinv`, scale, clamp).
 */
export function trunc_normal_(
  tensor: Tensor,
  mean = 0,
  std = 1,
  a = -2,
  b = 2,
): Tensor {
  const cdf = (x: number) => (1 + erf(x / Math.SQRT2)) / 2;
  const l = cdf((a - mean) / std);
  const u = cdf((b - mean) / std);
  const v = scaled(
    rand(shapeOf(tensor), { device: tensor.device }),
    2 * u - 2 * l,
    2 * l - 1,
  );
  v.erfinv_();
  const w = scaled(v, std * Math.SQRT2, mean);
  w.clamp_(a, b);
  return write(tensor, w);
}

/** Fills `tensor` with `val`. */
export function constant_(tensor: Tensor, val: number): Tensor {
  no_grad(() => tensor.fill_(val));
  return tensor;
}

/** Fills `tensor` with 1. */
export function ones_(tensor: Tensor): Tensor {
  return constant_(tensor, 1);
}

/** Fills `tensor` with 0. */
export function zeros_(tensor: Tensor): Tensor {
  return constant_(tensor, 0);
}

/** Glorot uniform: U(-a, a) with `a = gain · √(6 / (fan_in + fan_out))`. */
export function xavier_uniform_(tensor: Tensor, gain = 1): Tensor {
  const [fanIn, fanOut] = _calculate_fan_in_and_fan_out(tensor);
  const std = gain * Math.sqrt(2 / (fanIn + fanOut));
  const a = Math.sqrt(3) * std;
  return uniform_(tensor, -a, a);
}

/** Glorot normal: N(0, std²) with `std = gain · √(2 / (fan_in + fan_out))`. */
export function xavier_normal_(tensor: Tensor, gain = 1): Tensor {
  const [fanIn, fanOut] = _calculate_fan_in_and_fan_out(tensor);
  return normal_(tensor, 0, gain * Math.sqrt(2 / (fanIn + fanOut)));
}

/** Options of the kaiming initialisers (PyTorch's defaults: `a` 0, fan_in, leaky_relu). */
export interface KaimingOptions {
  /** leaky_relu's negative slope. Default 0. */
  a?: number;
  /** `"fan_in"` (default) keeps the forward variance, `"fan_out"` the backward one. */
  mode?: FanMode;
  /** Default `"leaky_relu"`. */
  nonlinearity?: Nonlinearity;
}

/** He uniform: U(-bound, bound) with `bound = gain · √(3 / fan)`. */
export function kaiming_uniform_(
  tensor: Tensor,
  options: KaimingOptions = {},
): Tensor {
  const gain = calculate_gain(
    options.nonlinearity ?? "leaky_relu",
    options.a ?? 0,
  );
  const std = gain / Math.sqrt(fan(tensor, options.mode ?? "fan_in"));
  const bound = Math.sqrt(3) * std;
  return uniform_(tensor, -bound, bound);
}

/** He normal: N(0, std²) with `std = gain / √fan`. */
export function kaiming_normal_(
  tensor: Tensor,
  options: KaimingOptions = {},
): Tensor {
  const gain = calculate_gain(
    options.nonlinearity ?? "leaky_relu",
    options.a ?? 0,
  );
  return normal_(
    tensor,
    0,
    gain / Math.sqrt(fan(tensor, options.mode ?? "fan_in")),
  );
}

/** The error function in double precision (Abramowitz–Stegun 7.1.26 is too coarse here). */
function erf(x: number): number {
  // Series for |x| < 3, continued fraction beyond; ~1e-15 relative.
  const ax = Math.abs(x);
  if (ax < 3) {
    let term = ax;
    let sum = ax;
    for (let n = 1; n < 200; n++) {
      term *= (-ax * ax) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return Math.sign(x) * ((2 / Math.sqrt(Math.PI)) * sum);
  }
  // erfc(x) = exp(-x²)/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + …))))
  let f = 0;
  for (let n = 60; n >= 1; n--) f = n / 2 / (ax + f);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f);
  return Math.sign(x) * (1 - erfc);
}

/**
 * Fills `tensor` (2-D or more, flattened to `(size(0), rest)`) with a (semi-)orthogonal matrix
 * drawn from the Haar distribution, times `gain`: PyTorch's recipe — the Q of a QR factorisation
 * of a standard normal matrix, with R's diagonal made positive. That Q is the one Gram–Schmidt
 * gives, so it is computed here with Gram–Schmidt (two passes, for float32 accuracy) in tensor
 * ops on the device.
 */
export function orthogonal_(tensor: Tensor, gain = 1): Tensor {
  if (tensor.ndim < 2)
    throw new TorchError(
      "Only tensors with 2 or more dimensions are supported",
    );
  if (tensor.numel() === 0) return tensor;
  const rows = tensor.shape[0]!;
  const cols = tensor.numel() / rows;
  const q = scope(() => {
    let a = randn([rows, cols], { device: tensor.device });
    if (rows < cols) a = a.t();
    const n = a.shape[1]!;
    // Classical Gram–Schmidt against the columns so far, twice ("twice is enough").
    let m: Tensor | null = null;
    for (let j = 0; j < n; j++) {
      let v: Tensor = a.narrow(1, j, 1);
      if (m)
        for (let pass = 0; pass < 2; pass++)
          v = v.sub(m.matmul(m.t().matmul(v)));
      const u = v.div(v.square().sum().sqrt());
      m = m ? cat([m, u], 1) : u;
    }
    if (rows < cols) m = m!.t();
    return m!.mul(gain).reshape([...tensor.shape]);
  });
  return write(tensor, q);
}
