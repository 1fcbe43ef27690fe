/**
 * Row-wise NN kernels — `softmax`, `log_softmax`, `layer_norm`, `rms_norm` — as `torch.*`
 * functions (PyTorch has all four at top level and in `torch.nn.functional`) and `Tensor`
 * methods where PyTorch has them. Each is one core call; the core runs one GPU workgroup per
 * row with the max subtracted first (softmax) and two-pass statistics (norms).
 *
 * @module
 */

import { args } from "../schema/index.js";
import { type Shape, checkDim, checkInts } from "../args.js";
import { type FloatOf, Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import type { DType } from "../dtype.js";
import type { Dims } from "../shapes.js";

declare module "../tensor/tensor.js" {
  interface Tensor<S extends Dims = number[], D extends DType = DType> {
    /** `exp(x) / sum(exp(x))` along `dim`, computed stably. Floating point only. */
    softmax(dim: number): Tensor<S, FloatOf<D>>;
    /** `x - log(sum(exp(x)))` along `dim`, computed stably. Floating point only. */
    log_softmax(dim: number): Tensor<S, FloatOf<D>>;
  }
}

function dimArg(fn: string, dim: unknown): number {
  return checkDim(fn, dim);
}

const proto = Tensor.prototype as unknown as Record<
  string,
  (this: Tensor, dim: number) => Tensor
>;
proto.softmax = function (this: Tensor, dim: number): Tensor {
  return wrap(this._raw.softmax(dimArg("softmax", dim)));
};
proto.log_softmax = function (this: Tensor, dim: number): Tensor {
  return wrap(this._raw.log_softmax(dimArg("log_softmax", dim)));
};

/** Softmax along `dim`. See {@link Tensor.softmax}. */
export function softmax(input: Tensor, dim: number): Tensor {
  // The common call (also nn.functional's, its arguments parsed) skips the parser.
  if (
    arguments.length === 2 &&
    input instanceof Tensor &&
    Number.isInteger(dim)
  )
    return input.softmax(dim);
  const a = args("softmax", arguments);
  return a.input.softmax(a.dim);
}

/** Log-softmax along `dim`. See {@link Tensor.log_softmax}. */
export function log_softmax(input: Tensor, dim: number): Tensor {
  // The common call (also nn.functional's, its arguments parsed) skips the parser.
  if (
    arguments.length === 2 &&
    input instanceof Tensor &&
    Number.isInteger(dim)
  )
    return input.log_softmax(dim);
  const a = args("log_softmax", arguments);
  return a.input.log_softmax(a.dim);
}

function shapeArg(fn: string, shape: number | Shape): Int32Array {
  return Int32Array.from(
    checkInts(
      fn,
      "normalized_shape",
      typeof shape === "number" ? [shape] : Array.from(shape),
    ),
  );
}

/**
 * `F.layer_norm(input, normalized_shape, weight?, bias?, eps = 1e-5)`: normalizes over the
 * trailing `normalized_shape` dims with the biased variance, then scales and shifts.
 */
export function layer_norm(
  input: Tensor,
  normalized_shape: number | Shape,
  weight?: Tensor | null,
  bias?: Tensor | null,
  eps?: number,
): Tensor {
  // nn.functional's call (its arguments parsed: five, the shape a list) skips the parser.
  if (!(
    arguments.length === 5 &&
    input instanceof Tensor &&
    Array.isArray(normalized_shape) &&
    (weight === null || weight instanceof Tensor) &&
    (bias === null || bias instanceof Tensor) &&
    typeof eps === "number"
  ))
    ({ input, normalized_shape, weight, bias, eps } = args(
      "layer_norm",
      arguments,
    ));
  const x = input;
  const w = weight ? checkTensor("layer_norm", "weight", weight) : x;
  const b = bias ? checkTensor("layer_norm", "bias", bias) : x;
  return wrap(
    x._raw.layer_norm(
      shapeArg("layer_norm", normalized_shape),
      w._raw,
      !!weight,
      b._raw,
      !!bias,
      eps,
    ),
  );
}

/**
 * `F.rms_norm(input, normalized_shape, weight?, eps?)`: `x / sqrt(mean(x²) + eps) * weight` over
 * the trailing dims; `eps` defaults to float32's machine epsilon, as in PyTorch.
 */
export function rms_norm(
  input: Tensor,
  normalized_shape: number | Shape,
  weight?: Tensor | null,
  eps?: number | null,
): Tensor {
  // nn.functional's call (its arguments parsed: four, the shape a list) skips the parser.
  if (!(
    arguments.length === 4 &&
    input instanceof Tensor &&
    Array.isArray(normalized_shape) &&
    (weight === null || weight instanceof Tensor) &&
    (eps === null || typeof eps === "number")
  ))
    ({ input, normalized_shape, weight, eps } = args("rms_norm", arguments));
  const x = input;
  const w = weight ? checkTensor("rms_norm", "weight", weight) : x;
  return wrap(
    x._raw.rms_norm(
      shapeArg("rms_norm", normalized_shape),
      w._raw,
      !!weight,
      eps ?? undefined,
    ),
  );
}
