/**
 * The convolution family: `conv1d`/`conv2d`/`conv3d`, `conv_transpose1d`/`2d`/`3d`, max and
 * average pooling (1d/2d/3d), adaptive average pooling, `batch_norm` and `F.pad`. Each is one
 * core call (`src/api/tensor/conv.rs`): the core checks the arguments with PyTorch's messages, computes
 * (2-D convolutions on WebGPU as an implicit GEMM or depthwise kernels; otherwise im2col + the
 * tiled matmul) and records the gradient.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { DTypeError, ShapeError, TorchError } from "../errors.js";
import { checkInts } from "../args.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import type { DType } from "../dtype.js";
import { maxWithIndices, poolWindows } from "../nn/functional/pool_indices.js";
import type {
  AdaptiveShape,
  CheckShape,
  ConvShape,
  Dims,
  Multiply,
  PoolShape,
  ShapeOf,
} from "../shapes.js";

/**
 * `F.conv1d`/`F.conv2d`'s output shape from the input's and the weight's (`[Out, C/groups,
 * ...kernel]`): the input's channels must be `C/groups · groups` (docs/types.md).
 */
export type FConvShape<
  S extends Dims,
  W extends Dims,
  k extends number,
  St,
  P,
  Dl,
  G extends number,
  Fn extends string,
> = W extends readonly [
  infer O extends number,
  infer Cg extends number,
  ...infer Ks extends number[],
]
  ? ConvShape<S, k, Multiply<Cg, G>, O, Ks, St, P, Dl, Fn>
  : ConvShape<S, k, number, number, number, St, P, Dl, Fn>;

/** A pooling function's stride: the kernel size when `null`/absent. */
export type StrideOr<St, K> = [St] extends [null | undefined] ? K : St;

/** An int or one int per spatial dim (`stride=2`, `stride=[2, 1]`). */
export type IntOrTuple = number | readonly number[];

function ints(fn: string, arg: string, v: IntOrTuple): Int32Array {
  return Int32Array.from(
    checkInts(
      fn,
      arg,
      Array.isArray(v) || ArrayBuffer.isView(v)
        ? Array.from(v as ArrayLike<number>)
        : [v],
    ),
  );
}

/** `k` ints from an int or a list (the kernel size of a k-d pool). */
function nInts(fn: string, arg: string, v: IntOrTuple, k: number): Int32Array {
  const a = ints(fn, arg, v);
  return a.length === 1 && k > 1 ? new Int32Array(k).fill(a[0]!) : a;
}

/**
 * A pooling argument as ints, with PyTorch's message when its length is neither 1 nor `k`
 * (`stride` may also be empty: the kernel size). PyTorch words these per function.
 */
function poolInts(
  fn: string,
  arg: "kernel_size" | "stride" | "padding" | "dilation",
  v: IntOrTuple,
  k: number,
): Int32Array {
  const a = ints(fn, arg, v);
  if (a.length === 1 || a.length === k || (arg === "stride" && a.length === 0))
    return a;
  if (fn === "avg_pool1d")
    throw new TorchError(
      `avg_pool1d() argument '${arg}' should contain one int (got ${a.length})`,
    );
  if (k === 1) {
    const what = {
      kernel_size: "be an int, list of ints or tuple of ints",
      stride: "be None, an int, list of ints, or tuple of ints",
      padding: "be an int, list of ints, or tuple of ints",
      dilation: "be an int, list of ints or tuple of ints",
    }[arg];
    throw new TorchError(
      `${fn}() ${arg} must ${what} of size 1 but got size ${a.length}`,
    );
  }
  const two = `a single int, or a tuple of ${k === 2 ? "two" : "three"} ints`;
  throw new TorchError(
    arg === "stride"
      ? `${fn}: stride must either be omitted, ${two}`
      : arg === "dilation"
        ? `${fn}: dilation must be either ${two}`
        : `${fn}: ${arg} must either be ${two}`,
  );
}

/** A pooling window's kernel size (broadcast to `k` dims), stride (empty: the kernel size) and padding. */
function poolWindow(
  fn: string,
  k: number,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple,
): [Int32Array, Int32Array, Int32Array] {
  return [
    nInts(
      fn,
      "kernel_size",
      [...poolInts(fn, "kernel_size", kernel_size, k)],
      k,
    ),
    stride == null ? new Int32Array() : poolInts(fn, "stride", stride, k),
    poolInts(fn, "padding", padding, k),
  ];
}

function conv(
  fn: string,
  input: Tensor,
  weight: Tensor,
  bias: Tensor | null | undefined,
  stride: IntOrTuple,
  padding: IntOrTuple | "same" | "valid",
  dilation: IntOrTuple,
  groups: number,
): Tensor {
  const x = checkTensor(fn, "input", input);
  const w = checkTensor(fn, "weight", weight);
  const b = bias ? checkTensor(fn, "bias", bias) : x;
  let mode = 0;
  let pad: Int32Array = new Int32Array([0]);
  if (padding === "same") mode = 1;
  else if (padding === "valid") mode = 2;
  else if (typeof padding === "string")
    throw new TorchError(`Invalid padding string: '${String(padding)}'`);
  else pad = ints(fn, "padding", padding);
  return wrap(
    x._raw.conv(
      w._raw,
      b._raw,
      !!bias,
      ints(fn, "stride", stride),
      pad,
      mode,
      ints(fn, "dilation", dilation),
      checkInts(fn, "groups", [groups])[0]!,
    ),
  );
}

/**
 * 2-D convolution (cross-correlation, as PyTorch) of `input` `(N, C, H, W)` or `(C, H, W)` with
 * `weight` `(O, C/groups, kH, kW)`; `padding` may be `"same"` (stride 1) or `"valid"`.
 */
export function conv2d<
  S extends Dims,
  W extends Dims,
  const St extends IntOrTuple = 1,
  const P extends IntOrTuple | "same" | "valid" = 0,
  const Dl extends IntOrTuple = 1,
  G extends number = 1,
>(
  input: Tensor<S> & CheckShape<FConvShape<S, W, 2, St, P, Dl, G, "conv2d">>,
  weight: Tensor<W>,
  bias?: Tensor | null,
  stride?: St,
  padding?: P,
  dilation?: Dl,
  groups?: G,
): Tensor<ShapeOf<FConvShape<S, W, 2, St, P, Dl, G, "conv2d">>>;
export function conv2d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple | "same" | "valid",
  dilation?: IntOrTuple,
  groups?: number,
): Tensor {
  ({ input, weight, bias, stride, padding, dilation, groups } = args(
    "nn.functional.conv2d",
    arguments,
  ));
  return conv("conv2d", input, weight, bias, stride, padding, dilation, groups);
}

/** 1-D convolution of `(N, C, L)` or `(C, L)` with `weight` `(O, C/groups, k)`. */
export function conv1d<
  S extends Dims,
  W extends Dims,
  const St extends IntOrTuple = 1,
  const P extends IntOrTuple | "same" | "valid" = 0,
  const Dl extends IntOrTuple = 1,
  G extends number = 1,
>(
  input: Tensor<S> & CheckShape<FConvShape<S, W, 1, St, P, Dl, G, "conv1d">>,
  weight: Tensor<W>,
  bias?: Tensor | null,
  stride?: St,
  padding?: P,
  dilation?: Dl,
  groups?: G,
): Tensor<ShapeOf<FConvShape<S, W, 1, St, P, Dl, G, "conv1d">>>;
export function conv1d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple | "same" | "valid",
  dilation?: IntOrTuple,
  groups?: number,
): Tensor {
  ({ input, weight, bias, stride, padding, dilation, groups } = args(
    "nn.functional.conv1d",
    arguments,
  ));
  return conv("conv1d", input, weight, bias, stride, padding, dilation, groups);
}

/** 3-D convolution of `(N, C, D, H, W)` or `(C, D, H, W)` with `weight` `(O, C/groups, kD, kH, kW)`. */
export function conv3d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple | "same" | "valid",
  dilation?: IntOrTuple,
  groups?: number,
): Tensor {
  ({ input, weight, bias, stride, padding, dilation, groups } = args(
    "nn.functional.conv3d",
    arguments,
  ));
  return conv("conv3d", input, weight, bias, stride, padding, dilation, groups);
}

function convTranspose(
  fn: string,
  input: Tensor,
  weight: Tensor,
  bias: Tensor | null | undefined,
  stride: IntOrTuple,
  padding: IntOrTuple,
  output_padding: IntOrTuple,
  groups: number,
  dilation: IntOrTuple,
): Tensor {
  const x = checkTensor(fn, "input", input);
  const w = checkTensor(fn, "weight", weight);
  const b = bias ? checkTensor(fn, "bias", bias) : x;
  return wrap(
    x._raw.conv_transpose(
      w._raw,
      b._raw,
      !!bias,
      ints(fn, "stride", stride),
      ints(fn, "padding", padding),
      ints(fn, "output_padding", output_padding),
      checkInts(fn, "groups", [groups])[0]!,
      ints(fn, "dilation", dilation),
    ),
  );
}

/**
 * Transposed 2-D convolution (the gradient of `conv2d` w.r.t. its input) with `weight`
 * `(C_in, C_out/groups, kH, kW)`; PyTorch's argument order (groups before dilation).
 */
export function conv_transpose2d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple,
  output_padding?: IntOrTuple,
  groups?: number,
  dilation?: IntOrTuple,
): Tensor {
  ({ input, weight, bias, stride, padding, output_padding, groups, dilation } =
    args("nn.functional.conv_transpose2d", arguments));
  return convTranspose(
    "conv_transpose2d",
    input,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    groups,
    dilation,
  );
}

/** Transposed 1-D convolution with `weight` `(C_in, C_out/groups, k)`. */
export function conv_transpose1d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple,
  output_padding?: IntOrTuple,
  groups?: number,
  dilation?: IntOrTuple,
): Tensor {
  ({ input, weight, bias, stride, padding, output_padding, groups, dilation } =
    args("nn.functional.conv_transpose1d", arguments));
  return convTranspose(
    "conv_transpose1d",
    input,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    groups,
    dilation,
  );
}

/** Transposed 3-D convolution with `weight` `(C_in, C_out/groups, kD, kH, kW)`. */
export function conv_transpose3d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple,
  output_padding?: IntOrTuple,
  groups?: number,
  dilation?: IntOrTuple,
): Tensor {
  ({ input, weight, bias, stride, padding, output_padding, groups, dilation } =
    args("nn.functional.conv_transpose3d", arguments));
  return convTranspose(
    "conv_transpose3d",
    input,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    groups,
    dilation,
  );
}

function maxPool(
  k: number,
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple,
  dilation: IntOrTuple,
  ceil_mode: boolean,
  return_indices = false,
): Tensor | [Tensor, Tensor] {
  const fn = `max_pool${k}d`;
  const x = checkTensor(fn, "input", input);
  const [ks, st, pad] = poolWindow(fn, k, kernel_size, stride, padding);
  const dil = poolInts(fn, "dilation", dilation, k);
  if (!return_indices)
    return wrap(x._raw.max_pool(ks, st, pad, dil, ceil_mode));
  // PyTorch's max_pool{k}d_with_indices: integers at every k, bool nowhere, and the 1-D pooling
  // as a 2-D one of height 1 (with that one's checks and messages) once the rank is right.
  if (x.dtype === "bool")
    throw new DTypeError(
      `"max_pool${k === 1 ? 2 : k}d" not implemented for 'Bool'`,
    );
  if (k === 1 && x.ndim < 2)
    throw new TorchError(
      `Expected 2 to 3 dimensions, but got ${x.ndim}-dimensional tensor for argument #1 'self' (while checking arguments for max_pool1d)`,
    );
  const at = (a: Int32Array, d: number) => a[a.length === 1 ? 0 : d]!;
  let y: Tensor;
  if (k === 1 && (x.ndim === 2 || x.ndim === 3)) {
    const two = (a: Int32Array, fill: number) =>
      a.length === 0 ? a : Int32Array.of(fill, a[0]!);
    const y2 = wrap(
      x
        .unsqueeze(-2)
        ._raw.max_pool(
          two(ks, 1),
          two(st, 1),
          two(pad, 0),
          two(dil, 1),
          ceil_mode,
        ),
    );
    y = y2.squeeze(-2);
    y2.dispose();
  } else y = wrap(x._raw.max_pool(ks, st, pad, dil, ceil_mode));
  // The core call checked the arguments and gives the output size; the indices (and the values
  // with the gradient at them) come from the windows (nn/functional/pool_indices.ts).
  const windows = y.shape
    .slice(y.ndim - k)
    .map((out, d) =>
      poolWindows(
        x.shape[x.ndim - k + d]!,
        out,
        at(ks, d),
        st.length === 0 ? at(ks, d) : at(st, d),
        at(pad, d),
        at(dil, d),
      ),
    );
  y.dispose();
  return maxWithIndices(x, windows);
}

/** 2-D max pooling over `(N, C, H, W)` or `(C, H, W)`; `stride` defaults to `kernel_size`. */
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
/** With `return_indices`: `[values, indices]`, each index the flat position in the input's plane. */
export function max_pool2d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple | undefined,
  dilation: IntOrTuple | undefined,
  ceil_mode: boolean | undefined,
  return_indices: true,
): [Tensor, Tensor];
export function max_pool2d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple | undefined,
  dilation: IntOrTuple | undefined,
  ceil_mode: boolean | undefined,
  /** Whether the result is `[values, indices]` (a flag known only at run time). */
  return_indices: boolean,
): Tensor | [Tensor, Tensor];
export function max_pool2d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  dilation?: IntOrTuple,
  ceil_mode?: boolean,
  return_indices?: boolean,
): Tensor | [Tensor, Tensor] {
  ({
    input,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    return_indices,
  } = args("nn.functional.max_pool2d", arguments));
  return maxPool(
    2,
    input,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    return_indices,
  );
}

/** 1-D max pooling over `(N, C, L)` or `(C, L)`. */
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
/** With `return_indices`: `[values, indices]`, each index the flat position in the input's plane. */
export function max_pool1d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple | undefined,
  dilation: IntOrTuple | undefined,
  ceil_mode: boolean | undefined,
  return_indices: true,
): [Tensor, Tensor];
export function max_pool1d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple | undefined,
  dilation: IntOrTuple | undefined,
  ceil_mode: boolean | undefined,
  /** Whether the result is `[values, indices]` (a flag known only at run time). */
  return_indices: boolean,
): Tensor | [Tensor, Tensor];
export function max_pool1d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  dilation?: IntOrTuple,
  ceil_mode?: boolean,
  return_indices?: boolean,
): Tensor | [Tensor, Tensor] {
  ({
    input,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    return_indices,
  } = args("nn.functional.max_pool1d", arguments));
  return maxPool(
    1,
    input,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    return_indices,
  );
}

/** 3-D max pooling over `(N, C, D, H, W)` or `(C, D, H, W)`; `stride` defaults to `kernel_size`. */
export function max_pool3d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  dilation?: IntOrTuple,
  ceil_mode?: boolean,
  return_indices?: false,
): Tensor;
/** With `return_indices`: `[values, indices]`, each index the flat position in the input's plane. */
export function max_pool3d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple | undefined,
  dilation: IntOrTuple | undefined,
  ceil_mode: boolean | undefined,
  return_indices: true,
): [Tensor, Tensor];
export function max_pool3d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple | undefined,
  dilation: IntOrTuple | undefined,
  ceil_mode: boolean | undefined,
  /** Whether the result is `[values, indices]` (a flag known only at run time). */
  return_indices: boolean,
): Tensor | [Tensor, Tensor];
export function max_pool3d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  dilation?: IntOrTuple,
  ceil_mode?: boolean,
  return_indices?: boolean,
): Tensor | [Tensor, Tensor] {
  ({
    input,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    return_indices,
  } = args("nn.functional.max_pool3d", arguments));
  return maxPool(
    3,
    input,
    kernel_size,
    stride,
    padding,
    dilation,
    ceil_mode,
    return_indices,
  );
}

function avgPool(
  k: number,
  input: Tensor,
  kernel_size: IntOrTuple,
  stride: IntOrTuple | null | undefined,
  padding: IntOrTuple,
  ceil_mode: boolean,
  count_include_pad: boolean,
  divisor_override: number | null | undefined,
): Tensor {
  const fn = `avg_pool${k}d`;
  const x = checkTensor(fn, "input", input);
  const [ks, st, pad] = poolWindow(fn, k, kernel_size, stride, padding);
  return wrap(
    x._raw.avg_pool(
      ks,
      st,
      pad,
      ceil_mode,
      count_include_pad,
      divisor_override ?? undefined,
    ),
  );
}

/**
 * 2-D average pooling; `count_include_pad` counts the zero padding in each divisor,
 * `divisor_override` replaces the divisor.
 */
export function avg_pool2d<
  S extends Dims,
  D extends DType,
  const K extends IntOrTuple,
  const St extends IntOrTuple | null = null,
  const P extends IntOrTuple = 0,
  C extends boolean = false,
>(
  input: Tensor<S, D> &
    CheckShape<PoolShape<S, 2, K, StrideOr<St, K>, P, 1, C>>,
  kernel_size: K,
  stride?: St,
  padding?: P,
  ceil_mode?: C,
  count_include_pad?: boolean,
  divisor_override?: number | null,
): Tensor<ShapeOf<PoolShape<S, 2, K, StrideOr<St, K>, P, 1, C>>, D>;
export function avg_pool2d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  ceil_mode?: boolean,
  count_include_pad?: boolean,
  divisor_override?: number | null,
): Tensor {
  ({
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
  } = args("nn.functional.avg_pool2d", arguments));
  return avgPool(
    2,
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
  );
}

/** 3-D average pooling over `(N, C, D, H, W)` or `(C, D, H, W)` (options as {@link avg_pool2d}). */
export function avg_pool3d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  ceil_mode?: boolean,
  count_include_pad?: boolean,
  divisor_override?: number | null,
): Tensor {
  ({
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
  } = args("nn.functional.avg_pool3d", arguments));
  return avgPool(
    3,
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
  );
}

/** 1-D average pooling. */
export function avg_pool1d<
  S extends Dims,
  D extends DType,
  const K extends IntOrTuple,
  const St extends IntOrTuple | null = null,
  const P extends IntOrTuple = 0,
  C extends boolean = false,
>(
  input: Tensor<S, D> &
    CheckShape<PoolShape<S, 1, K, StrideOr<St, K>, P, 1, C>>,
  kernel_size: K,
  stride?: St,
  padding?: P,
  ceil_mode?: C,
  count_include_pad?: boolean,
): Tensor<ShapeOf<PoolShape<S, 1, K, StrideOr<St, K>, P, 1, C>>, D>;
export function avg_pool1d(
  input: Tensor,
  kernel_size: IntOrTuple,
  stride?: IntOrTuple | null,
  padding?: IntOrTuple,
  ceil_mode?: boolean,
  count_include_pad?: boolean,
): Tensor {
  ({ input, kernel_size, stride, padding, ceil_mode, count_include_pad } = args(
    "nn.functional.avg_pool1d",
    arguments,
  ));
  return avgPool(
    1,
    input,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    null,
  );
}

/** Average pooling to `output_size` `(oH, oW)` (an int: square) with PyTorch's adaptive windows. */
export function adaptive_avg_pool2d<
  S extends Dims,
  D extends DType,
  const Os extends IntOrTuple,
>(
  input: Tensor<S, D> & CheckShape<AdaptiveShape<S, 2, Os>>,
  output_size: Os,
): Tensor<ShapeOf<AdaptiveShape<S, 2, Os>>, D>;
export function adaptive_avg_pool2d(
  input: Tensor,
  output_size: IntOrTuple,
): Tensor {
  ({ input, output_size } = args(
    "nn.functional.adaptive_avg_pool2d",
    arguments,
  ));
  const x = checkTensor("adaptive_avg_pool2d", "input", input);
  // A null entry keeps that input size (PyTorch's None).
  const sizes = Array.isArray(output_size)
    ? (output_size as readonly (number | null)[]).map(
        (s, i, all) => s ?? x.shape[x.ndim - all.length + i]!,
      )
    : output_size;
  return wrap(
    x._raw.adaptive_avg_pool(
      nInts("adaptive_avg_pool2d", "output_size", sizes, 2),
    ),
  );
}

/** Average pooling to `output_size` `(oD, oH, oW)` (an int: a cube; a null entry keeps that size). */
export function adaptive_avg_pool3d(
  input: Tensor,
  output_size: IntOrTuple | readonly (number | null)[],
): Tensor {
  ({ input, output_size } = args(
    "nn.functional.adaptive_avg_pool3d",
    arguments,
  ));
  const x = checkTensor("adaptive_avg_pool3d", "input", input);
  const sizes = Array.isArray(output_size)
    ? (output_size as readonly (number | null)[]).map(
        (s, i, all) => s ?? x.shape[x.ndim - all.length + i]!,
      )
    : (output_size as number);
  return wrap(
    x._raw.adaptive_avg_pool(
      nInts("adaptive_avg_pool3d", "output_size", sizes, 3),
    ),
  );
}

/** Average pooling of the last dim to `output_size`. */
export function adaptive_avg_pool1d<
  S extends Dims,
  D extends DType,
  const Os extends IntOrTuple,
>(
  input: Tensor<S, D> & CheckShape<AdaptiveShape<S, 1, Os>>,
  output_size: Os,
): Tensor<ShapeOf<AdaptiveShape<S, 1, Os>>, D>;
export function adaptive_avg_pool1d(
  input: Tensor,
  output_size: IntOrTuple,
): Tensor {
  ({ input, output_size } = args(
    "nn.functional.adaptive_avg_pool1d",
    arguments,
  ));
  const x = checkTensor("adaptive_avg_pool1d", "input", input);
  return wrap(
    x._raw.adaptive_avg_pool(
      nInts("adaptive_avg_pool1d", "output_size", output_size, 1),
    ),
  );
}

/**
 * Batch normalization over dim 1 of `(N, C, *)`. In training, the batch statistics (biased
 * variance) normalize, and `running_mean`/`running_var` (when given) are updated in place:
 * `r = (1 - momentum)·r + momentum·stat`, with the unbiased variance. In eval, the running
 * statistics normalize.
 */
export function batch_norm(
  input: Tensor,
  running_mean: Tensor | null,
  running_var: Tensor | null,
  weight?: Tensor | null,
  bias?: Tensor | null,
  training?: boolean,
  momentum?: number,
  eps?: number,
): Tensor {
  ({ input, running_mean, running_var, weight, bias, training, momentum, eps } =
    args("nn.functional.batch_norm", arguments));
  const x = checkTensor("batch_norm", "input", input);
  const h = (t: Tensor | null | undefined, arg: string) =>
    (t ? checkTensor("batch_norm", arg, t) : x)._raw;
  return wrap(
    x._raw.batch_norm(
      h(running_mean, "running_mean"),
      !!running_mean,
      h(running_var, "running_var"),
      !!running_var,
      h(weight, "weight"),
      !!weight,
      h(bias, "bias"),
      !!bias,
      training,
      momentum,
      eps,
    ),
  );
}

/**
 * `F.pad(input, pad, mode, value)`: `pad` lists `(left, right)` pairs from the last dim
 * backwards; negative sizes crop. `mode`: `"constant"` (with `value`), `"reflect"`,
 * `"replicate"` or `"circular"`.
 */
export function pad(
  input: Tensor,
  pad: readonly number[],
  mode?: "constant" | "reflect" | "replicate" | "circular",
  value?: number | null,
): Tensor {
  // `mode` is checked below, with PyTorch's message for a mode it does not know.
  let m: string;
  ({ input, pad, mode: m, value } = args("nn.functional.pad", arguments));
  mode = m as typeof mode & string;
  const x = checkTensor("pad", "input", input);
  const p = Int32Array.from(checkInts("pad", "pad", Array.from(pad)));
  if (p.length % 2 !== 0)
    throw new TorchError("Padding length must be divisible by 2");
  if (p.length / 2 > x.dim())
    throw new TorchError(
      "Padding length should be less than or equal to two times the input dimension but got padding length " +
        `${p.length} and input of dimension ${x.dim()}`,
    );
  if (mode === "constant") return wrap(x._raw.pad_constant(p, value ?? 0));
  const modes = { reflect: 1, replicate: 2, circular: 3 } as const;
  if (!(mode in modes))
    throw new TorchError(`Unrecognised padding mode ${String(mode)}`);
  if (value !== null && value !== 0)
    throw new TorchError(
      `Padding mode "${mode}" doesn't take in value argument.`,
    );
  if (mode === "reflect")
    // PyTorch's reflection_pad{1,2,3}d check, the last dim's pair first.
    for (let i = 0; i < p.length / 2; i++) {
      const d = x.ndim - 1 - i;
      const [l, r] = [p[2 * i]!, p[2 * i + 1]!];
      if (l >= x.shape[d]! || r >= x.shape[d]!)
        throw new ShapeError(
          `Argument #${4 + 2 * i}: Padding size should be less than the corresponding input dimension, but got: padding (${l}, ${r}) at dimension ${d} of input [${x.shape.join(", ")}]`,
        );
    }
  return wrap(x._raw.pad_mode(p, modes[mode]));
}

/** `torch.constant_pad_nd(input, pad, value)`. */
export function constant_pad_nd(
  input: Tensor,
  pad: readonly number[],
  value?: number,
): Tensor {
  ({ input, pad, value } = args("constant_pad_nd", arguments));
  const x = checkTensor("constant_pad_nd", "input", input);
  const p = Int32Array.from(
    checkInts("constant_pad_nd", "pad", Array.from(pad)),
  );
  // PyTorch's checks of the list (F.pad words them differently, above).
  if (p.length % 2 !== 0)
    throw new TorchError(
      `Length of pad must be even but instead it equals ${p.length}`,
    );
  if (p.length / 2 > x.ndim)
    throw new TorchError(
      `Length of pad should be no more than twice the number of dimensions of the input. Pad length is ${p.length}while the input has ${x.ndim}dimensions.`,
    );
  return wrap(x._raw.pad_constant(p, value));
}
