/**
 * `torch.nn.functional`'s pooling. Max pooling (`max_pool1d`/`2d`/`3d`, with `return_indices`),
 * average pooling (`avg_pool1d`/`2d`/`3d`) and adaptive average pooling are core calls, whose
 * arguments are checked here with PyTorch's messages; adaptive max pooling
 * (`adaptive_max_pool1d`/`2d`/`3d`) is composed from a window mask and `amax`; `max_unpool*`
 * scatters back through the indices.
 *
 * @module
 */

import { args } from "../../schema/index.js";
import { DTypeError, TorchError } from "../../errors.js";
import { type DType, scalarTypeName } from "../../dtype.js";
import {
  adaptiveWindow,
  adaptiveWindows as windowLists,
  maxUnpool,
  maxWithIndices,
  poolWindows,
  unpoolSize,
} from "./pool_indices.js";
import { checkHostAlloc, checkInts, pyTypeName } from "../../args.js";
import { Tensor, checkTensor, wrap } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { tensor } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { shapeStr } from "./composition.js";
import type {
  AdaptiveShape,
  CheckShape,
  Dims,
  PoolShape,
  ShapeOf,
} from "../../shapes.js";
import { type StrideOr, type IntOrTuple, ints } from "../../ops/conv.js";

/** `mask[i][j]`: input position `j` lies in adaptive window `i` of `n` → `out` outputs. */
function adaptiveWindows(
  n: number,
  out: number,
  device: "webgpu" | "cpu",
): Tensor {
  // An out × n table, both sizes the caller's: checked against the budget (a byte each, plus
  // tensor's float64 copy) before it exists.
  checkHostAlloc("adaptive_max_pool", out * n, 1 + 8);
  const m = new Uint8Array(out * n);
  for (let i = 0; i < out; i++) {
    const [start, end] = adaptiveWindow(i, n, out);
    for (let j = start; j < end; j++) m[i * n + j] = 1;
  }
  return tensor(m, { dtype: "bool", device }).reshape([out, n]);
}

/** Max over adaptive windows of the last dim: `(…, n)` → `(…, out)`. */
function adaptiveMaxLast(x: Tensor, out: number): Tensor {
  const n = x.shape.at(-1)!;
  const mask = adaptiveWindows(n, out, x.device); // (out, n)
  // max(dim), not amax: PyTorch passes a tie's gradient to the window's first maximum.
  return where(mask, x.unsqueeze(-2), -Infinity).max(-1)[0];
}

/**
 * `[values, indices]` of adaptive max pooling to `outs` over the last `outs.length` dims
 * (nn/functional/pool_indices.ts); PyTorch has no integer kernel for it.
 */
function adaptiveWithIndices(x: Tensor, outs: number[]): [Tensor, Tensor] {
  const sizes = x.shape.slice(x.ndim - outs.length);
  return maxWithIndices(
    x,
    outs.map((o, d) => windowLists(sizes[d]!, o)),
  );
}

/**
 * PyTorch's `_list_with_default`: a list `output_size` needs more input dims than it has entries
 * (checked before the rank).
 */
function listRank(input: Tensor, output_size: unknown): void {
  if (Array.isArray(output_size) && input.ndim <= output_size.length)
    throw new TorchError(
      `Input dimension should be at least ${output_size.length + 1}`,
    );
}

/**
 * The output sizes (PyTorch's message at allocating a negative size: the 1-D pooling runs as a
 * 2-D one of height 1) and the dtype (PyTorch's kernels are floating-point only, named as its
 * messages name them).
 */
function checkAdaptiveMax(x: Tensor, outs: number[]): void {
  const k = outs.length;
  checkInts(`adaptive_max_pool${k}d`, "output_size", outs);
  const bad = outs.find((o) => o < 0);
  if (bad !== undefined) {
    const shape = [
      ...x.shape.slice(0, x.ndim - k),
      ...(k === 1 ? [1] : []),
      ...outs,
    ];
    throw new TorchError(
      `Trying to create tensor with negative dimension ${bad}: [${shape.join(", ")}]`,
    );
  }
  if (!x.is_floating_point())
    throw new DTypeError(
      `"${k === 3 ? "adaptive_max_pool3d_cpu" : "adaptive_max_pool2d"}" not implemented for '${scalarTypeName(x.dtype)}'`,
    );
}

/**
 * Max pooling to a fixed output length: window `i` of `L` inputs covers
 * `[⌊i·L/out⌋, ⌈(i+1)·L/out⌉)`, as in PyTorch. `(N, C, L)` or `(C, L)`.
 */
export function adaptive_max_pool1d(
  input: Tensor,
  output_size: number,
  return_indices: true,
): [Tensor, Tensor];
export function adaptive_max_pool1d(
  input: Tensor,
  output_size: number,
  return_indices?: boolean,
): Tensor;
export function adaptive_max_pool1d(
  input: Tensor,
  output_size: number,
  return_indices?: boolean,
): Tensor | [Tensor, Tensor] {
  ({ input, output_size, return_indices } = args(
    "nn.functional.adaptive_max_pool1d",
    arguments,
  ));
  if (input.ndim !== 2 && input.ndim !== 3)
    throw new TorchError(
      `Expected 2 to 3 dimensions, but got ${input.ndim}-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)`,
    );
  checkAdaptiveMax(input, [output_size]);
  if (return_indices) return adaptiveWithIndices(input, [output_size]);
  return scope(() => adaptiveMaxLast(input, output_size));
}

/**
 * Max pooling to a fixed `(out_h, out_w)` (a number for both; `null` keeps that input size),
 * over `(N, C, H, W)` or `(C, H, W)`. Max is separable: columns first, then rows.
 */
export function adaptive_max_pool2d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
  return_indices: true,
): [Tensor, Tensor];
export function adaptive_max_pool2d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
  return_indices?: boolean,
): Tensor;
export function adaptive_max_pool2d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
  return_indices?: boolean,
): Tensor | [Tensor, Tensor] {
  ({ input, output_size, return_indices } = args(
    "nn.functional.adaptive_max_pool2d",
    arguments,
  ));
  listRank(input, output_size);
  if (input.ndim !== 3 && input.ndim !== 4)
    throw new TorchError(
      `adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: ${shapeStr(input)}`,
    );
  if (typeof output_size !== "number" && !Array.isArray(output_size))
    throw new TorchError(
      `adaptive_max_pool2d(): argument 'output_size' must be tuple of ints, not ${pyTypeName(output_size)}`,
    );
  const [h, w] = input.shape.slice(-2) as [number, number];
  const [oh, ow] =
    typeof output_size === "number"
      ? [output_size, output_size]
      : [output_size[0] ?? h, output_size[1] ?? w];
  checkAdaptiveMax(input, [oh, ow]);
  if (return_indices) return adaptiveWithIndices(input, [oh, ow]);
  return scope(() => {
    const cols = adaptiveMaxLast(input, ow); // (…, H, ow)
    return adaptiveMaxLast(cols.transpose(-1, -2), oh).transpose(-1, -2);
  });
}

/**
 * Max pooling to a fixed `(out_d, out_h, out_w)` (a number for all three; `null` keeps that
 * input size), over `(N, C, D, H, W)` or `(C, D, H, W)`: the last dim, then the two before it.
 */
export function adaptive_max_pool3d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
  return_indices: true,
): [Tensor, Tensor];
export function adaptive_max_pool3d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
  return_indices?: boolean,
): Tensor;
export function adaptive_max_pool3d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
  return_indices?: boolean,
): Tensor | [Tensor, Tensor] {
  ({ input, output_size, return_indices } = args(
    "nn.functional.adaptive_max_pool3d",
    arguments,
  ));
  listRank(input, output_size);
  if (input.ndim !== 4 && input.ndim !== 5)
    throw new TorchError(
      `adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: ${shapeStr(input)}`,
    );
  if (typeof output_size !== "number" && !Array.isArray(output_size))
    throw new TorchError(
      `adaptive_max_pool3d(): argument 'output_size' must be tuple of ints, not ${pyTypeName(output_size)}`,
    );
  const sizes = input.shape.slice(-3) as [number, number, number];
  const outs =
    typeof output_size === "number"
      ? [output_size, output_size, output_size]
      : sizes.map((s, i) => (output_size as (number | null)[])[i] ?? s);
  checkAdaptiveMax(input, outs);
  if (return_indices) return adaptiveWithIndices(input, outs);
  return scope(() => {
    let y = input;
    for (let d = 2; d >= 0; d--) {
      const dim = input.ndim - 3 + d;
      y = adaptiveMaxLast(y.transpose(dim, -1), outs[d]!).transpose(dim, -1);
    }
    return y;
  });
}

/** `max_unpool{k}d`'s window arguments as `k` ints each (PyTorch's `_single`/`_pair`/`_triple`). */
function unpoolArgs(
  k: number,
  fn: string,
  kernel_size: number | readonly number[],
  stride: number | readonly number[] | null | undefined,
  padding: number | readonly number[],
): [number[], number[], number[]] {
  const n = (arg: string, v: number | readonly number[]) => {
    const a = checkInts(fn, arg, typeof v === "number" ? [v] : [...v]);
    return a.length === 1 ? new Array<number>(k).fill(a[0]!) : a;
  };
  const ks = n("kernel_size", kernel_size);
  return [ks, stride == null ? ks : n("stride", stride), n("padding", padding)];
}

/**
 * The partial inverse of {@link max_pool1d}: `input`'s values at `indices` (from `max_pool1d(…,
 * return_indices=true)`) of a zero `(N, C, L_out)` or `(C, L_out)` tensor, `L_out` =
 * `(L - 1)·stride - 2·padding + kernel_size` unless `output_size` gives it.
 */
export function max_unpool1d(
  input: Tensor,
  indices: Tensor,
  kernel_size: number | readonly number[],
  stride?: number | readonly number[] | null,
  padding?: number | readonly number[],
  output_size?: readonly number[] | null,
): Tensor {
  ({ input, indices, kernel_size, stride, padding, output_size } = args(
    "nn.functional.max_unpool1d",
    arguments,
  ));
  const [ks, st, pad] = unpoolArgs(
    1,
    "max_unpool1d",
    kernel_size,
    stride,
    padding ?? 0,
  );
  // As PyTorch: the 1-D output size, then a 2-D unpooling of width 1 (its messages name
  // max_unpooling2d).
  const size = [...unpoolSize(input, ks, st, pad, output_size), 1];
  return maxUnpool(
    "max_unpool2d",
    input.unsqueeze(-1),
    indices.unsqueeze(-1),
    [ks[0]!, 1],
    [st[0]!, 1],
    [pad[0]!, 0],
    size,
  ).squeeze(-1);
}

/**
 * The partial inverse of {@link max_pool2d}: `input`'s values at `indices` (flat positions in
 * each `H_out × W_out` plane) of a zero `(N, C, H_out, W_out)` or `(C, H_out, W_out)` tensor.
 */
export function max_unpool2d(
  input: Tensor,
  indices: Tensor,
  kernel_size: number | readonly number[],
  stride?: number | readonly number[] | null,
  padding?: number | readonly number[],
  output_size?: readonly number[] | null,
): Tensor {
  ({ input, indices, kernel_size, stride, padding, output_size } = args(
    "nn.functional.max_unpool2d",
    arguments,
  ));
  const [ks, st, pad] = unpoolArgs(
    2,
    "max_unpool2d",
    kernel_size,
    stride,
    padding ?? 0,
  );
  return maxUnpool("max_unpool2d", input, indices, ks, st, pad, output_size);
}

/** The partial inverse of {@link max_pool3d} (see {@link max_unpool2d}), over `(N, C, D, H, W)` or `(C, D, H, W)`. */
export function max_unpool3d(
  input: Tensor,
  indices: Tensor,
  kernel_size: number | readonly number[],
  stride?: number | readonly number[] | null,
  padding?: number | readonly number[],
  output_size?: readonly number[] | null,
): Tensor {
  ({ input, indices, kernel_size, stride, padding, output_size } = args(
    "nn.functional.max_unpool3d",
    arguments,
  ));
  const [ks, st, pad] = unpoolArgs(
    3,
    "max_unpool3d",
    kernel_size,
    stride,
    padding ?? 0,
  );
  return maxUnpool("max_unpool3d", input, indices, ks, st, pad, output_size);
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
