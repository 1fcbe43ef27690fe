/**
 * Row-wise NN kernels — `softmax`, `log_softmax`, `layer_norm`, `rms_norm` — as `torch.*`
 * functions (PyTorch has all four at top level and in `torch.nn.functional`) and `Tensor`
 * methods where PyTorch has them (tensor/methods/nn_kernels.ts). Each is one core call; the core
 * runs one GPU workgroup per row with the max subtracted first (softmax) and two-pass statistics
 * (norms). Also the
 * `torch.*` forms of max pooling, which PyTorch binds natively without `return_indices`.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { type Shape, checkInts } from "../args.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import type { DType } from "../dtype.js";
import type { CheckShape, Dims, PoolShape, ShapeOf } from "../shapes.js";
import type { IntOrTuple, StrideOr } from "./conv.js";
import {
  max_pool1d as fMaxPool1d,
  max_pool2d as fMaxPool2d,
  max_pool3d as fMaxPool3d,
} from "../nn/functional/pooling.js";

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

/**
 * 1-D max pooling over `(N, C, L)` or `(C, L)`: `torch.max_pool1d`, which has no
 * `return_indices` (`nn.functional.max_pool1d` has).
 */
export function max_pool1d<
  S extends Dims,
  D extends DType,
  const K extends IntOrTuple,
  const St extends IntOrTuple | null = null,
  const P extends IntOrTuple = 0,
  const Dl extends IntOrTuple = 1,
  C extends boolean = false,
>(
  input: Tensor<S, D> &
    CheckShape<PoolShape<S, 1, K, StrideOr<St, K>, P, Dl, C>>,
  kernel_size: K,
  stride?: St,
  padding?: P,
  dilation?: Dl,
  ceil_mode?: C,
): Tensor<ShapeOf<PoolShape<S, 1, K, StrideOr<St, K>, P, Dl, C>>, D>;
export function max_pool1d(): Tensor {
  const a = args("max_pool1d", arguments);
  return fMaxPool1d(
    a.input,
    a.kernel_size,
    a.stride,
    a.padding,
    a.dilation,
    a.ceil_mode,
  );
}

/**
 * 2-D max pooling over `(N, C, H, W)` or `(C, H, W)`; `stride` defaults to `kernel_size`:
 * `torch.max_pool2d`, which has no `return_indices` (`nn.functional.max_pool2d` has).
 */
export function max_pool2d<
  S extends Dims,
  D extends DType,
  const K extends IntOrTuple,
  const St extends IntOrTuple | null = null,
  const P extends IntOrTuple = 0,
  const Dl extends IntOrTuple = 1,
  C extends boolean = false,
>(
  input: Tensor<S, D> &
    CheckShape<PoolShape<S, 2, K, StrideOr<St, K>, P, Dl, C>>,
  kernel_size: K,
  stride?: St,
  padding?: P,
  dilation?: Dl,
  ceil_mode?: C,
): Tensor<ShapeOf<PoolShape<S, 2, K, StrideOr<St, K>, P, Dl, C>>, D>;
export function max_pool2d(): Tensor {
  const a = args("max_pool2d", arguments);
  return fMaxPool2d(
    a.input,
    a.kernel_size,
    a.stride,
    a.padding,
    a.dilation,
    a.ceil_mode,
  );
}

/**
 * 3-D max pooling over `(N, C, D, H, W)` or `(C, D, H, W)`; `stride` defaults to `kernel_size`:
 * `torch.max_pool3d`, which has no `return_indices` (`nn.functional.max_pool3d` has).
 */
export function max_pool3d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  dilation?: IntOrTuple,
  ceil_mode?: boolean,
): Tensor {
  const a = args("max_pool3d", arguments);
  return fMaxPool3d(
    a.input,
    a.kernel_size,
    a.stride,
    a.padding,
    a.dilation,
    a.ceil_mode,
  );
}
