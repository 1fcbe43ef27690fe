/**
 * `torch.nn.functional`'s adaptive max pooling (`adaptive_max_pool1d`/`2d`/`3d`), composed from a
 * window mask and `amax`. The other poolings are core calls (ops/conv.ts).
 *
 * @module
 */

import { args } from "../../schema/index.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scalarTypeName } from "../../dtype.js";
import {
  adaptiveWindow,
  adaptiveWindows as windowLists,
  maxUnpool,
  maxWithIndices,
  unpoolSize,
} from "./pool_indices.js";
import { checkHostAlloc, checkInts, pyTypeName } from "../../args.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { tensor } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { shapeStr } from "./composition.js";

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
