/**
 * Ops whose output size depends on the values: `unique` (flattened or along a dim),
 * `unique_consecutive`, `bincount`, `nonzero`, `argwhere`, `masked_select` and
 * `masked_select_async` (which reads the mask first). They read from the
 * device before they can size their result, so each returns a `Promise` where PyTorch returns a
 * tensor.
 *
 * `unique` and `unique_consecutive` run on the device: a stable sort of the rows (one sort per
 * column, last column first, for `dim`), a compare of neighbours, a cumulative sum numbering the
 * groups, and scatters for the first row, the count and the inverse of each group; only the
 * number of groups is read back. NaN is unequal to itself, so every NaN is its own value, as in
 * PyTorch.
 *
 * @module
 */

import { isFloatingPoint } from "../dtype.js";
import { DTypeError, TorchError } from "../errors.js";
import { checkHostAlloc } from "../args.js";
import { scope } from "../lifetime.js";
import { tensor, zeros } from "./creation.js";
import { Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
import "../tensor/methods/sorting.js"; // Tensor.sort, cumsum
import { broadcastPair } from "./broadcast.js";
import { uniqueImpl } from "../tensor/methods/unique.js";

/** Options of `unique_consecutive`. */
export interface UniqueConsecutiveOptions {
  /** Also return, for each input element (or slice along `dim`), the index of its group. */
  return_inverse?: boolean;
  /** Also return the size of each group. */
  return_counts?: boolean;
  /** Compare the slices along `dim` instead of the flattened elements. */
  dim?: number | null;
}

/** Options of `unique`. */
export interface UniqueOptions extends UniqueConsecutiveOptions {
  /** Accepted for PyTorch compatibility: results are always sorted. */
  sorted?: boolean;
}

/**
 * The sorted distinct values of `input` (flattened; with `dim`, the distinct slices along
 * `dim`), with optional inverse indices and counts: `[values, inverse?, counts?]` when either is
 * asked for. The output size depends on the values: a `Promise`.
 */
export function unique(
  input: Tensor,
  options?: UniqueOptions,
): Promise<Tensor | Tensor[]> {
  const a = args("unique", arguments);
  // Results are always sorted, which `sorted: false` (any order) also admits.
  return uniqueImpl("unique", a.input, a, true);
}

/**
 * `input` with each run of equal consecutive elements (or slices along `dim`) reduced to one,
 * with optional inverse indices and run lengths. A `Promise`, like {@link unique}.
 */
export function unique_consecutive(
  input: Tensor,
  options?: UniqueConsecutiveOptions,
): Promise<Tensor | Tensor[]> {
  const a = args("unique_consecutive", arguments);
  return uniqueImpl("unique_consecutive", a.input, a, false);
}

/**
 * How often each non-negative integer occurs in 1-D `input` (weighted by `weights`), over at
 * least `minlength` bins. Reads the tensor back (the size is its maximum + 1): a `Promise`.
 */
export function bincount(
  input: Tensor,
  weights?: Tensor | null,
  minlength?: number,
): Promise<Tensor> {
  // Parsed before the read-back, so that a wrong argument throws rather than rejects.
  const a = args("bincount", arguments);
  return bincountImpl(a.input, a.weights, a.minlength);
}

async function bincountImpl(
  x: Tensor,
  weights: Tensor | null,
  minlength: number,
): Promise<Tensor> {
  if (minlength < 0) throw new TorchError("minlength should be >= 0");
  if (x.ndim !== 1)
    throw new TorchError(
      "bincount only supports 1-d non-negative integral inputs.",
    );
  if (isFloatingPoint(x.dtype) || x.dtype === "bool")
    throw new DTypeError(
      `"bincount_cpu" not implemented for '${x.dtype === "bool" ? "Bool" : "Float"}'`,
    );
  if (weights && (weights.ndim !== 1 || weights.shape[0] !== x.shape[0]))
    throw new TorchError(
      "weights should be 1-d and have the same length as input",
    );
  const data = Array.from(await x.toArray(), Number);
  if (data.some((v) => v < 0))
    throw new TorchError(
      "bincount only supports 1-d non-negative integral inputs.",
    );
  // A loop, not Math.max(...data): spreading a long array overflows the call stack.
  let size = minlength;
  for (const v of data) if (v + 1 > size) size = v + 1;
  return scope(() => {
    const w =
      weights ?? zeros(x.shape, { dtype: "int64", device: x.device }).add(1);
    const out = zeros(size, {
      dtype: weights ? "float32" : "int64",
      device: x.device,
    });
    return out.scatter_add(0, x.to("int64"), weights ? w.to("float32") : w);
  });
}

/**
 * The indices of the nonzero elements, one row per element (`[n, ndim]`, int64); with
 * `as_tuple`, one 1-D tensor per dim. Reads the tensor back: a `Promise`.
 */
export function nonzero(
  input: Tensor,
  options?: { as_tuple?: boolean },
): Promise<Tensor | Tensor[]> {
  const a = args("nonzero", arguments);
  return nonzeroOf(a.input, a.as_tuple);
}

async function nonzeroOf(
  x: Tensor,
  as_tuple: boolean,
): Promise<Tensor | Tensor[]> {
  const data = await x.toArray();
  const shape = x.shape;
  const ndim = Math.max(x.ndim, 1);
  let count = 0;
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) count++;
  // The coordinate table (count × ndim int32, plus tensor's float64 copy) is sized by the data:
  // checked against the budget before it exists.
  checkHostAlloc("nonzero", count * ndim, 4 + 8);
  const strides = shape.map((_, d) =>
    shape.slice(d + 1).reduce((a, b) => a * b, 1),
  );
  // coords[d * count + k]: dim d's coordinate of the k-th nonzero element.
  const coords = new Int32Array(count * x.ndim);
  let k = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] === 0) continue;
    for (let d = 0; d < x.ndim; d++)
      coords[d * count + k] = Math.floor(i / strides[d]!) % shape[d]!;
    k++;
  }
  const device = x.device;
  if (as_tuple) {
    if (x.ndim === 0)
      return [tensor(data[0] !== 0 ? [0] : [], { dtype: "int64", device })];
    return shape.map((_, d) =>
      tensor(coords.subarray(d * count, (d + 1) * count), {
        dtype: "int64",
        device,
      }),
    );
  }
  return scope(() =>
    tensor(coords, { dtype: "int64", device })
      .reshape([x.ndim, count])
      .t()
      .contiguous(),
  );
}

/** {@link nonzero} as a `[n, ndim]` tensor. */
export function argwhere(input: Tensor): Promise<Tensor> {
  return nonzeroOf(args("argwhere", arguments).input, false) as Promise<Tensor>;
}

/**
 * The elements of `input` where `mask` (broadcast together) is true, as a 1-D tensor; it
 * carries gradients to `input`. Reads the mask back: a `Promise`.
 */
export function masked_select(input: Tensor, mask: Tensor): Promise<Tensor> {
  const a = args("masked_select", arguments);
  return maskedSelect(a.input, a.mask);
}

async function maskedSelect(x: Tensor, m: Tensor): Promise<Tensor> {
  if (m.dtype !== "bool")
    throw new TorchError(`masked_select: expected BoolTensor for mask`);
  // PyTorch broadcasts the mask against the input: its message names them in that order.
  const [mb, xb] = broadcastPair(m, x);
  const idx = (await nonzeroOf(mb.reshape(-1), true)) as Tensor[];
  return scope(() => xb.reshape(-1).index_select(0, idx[0]!));
}

/**
 * The elements of `input` where `mask` (broadcast together) is true, as a 1-D tensor. The result's
 * length depends on the mask's values, so the mask is read back first (hence async; PyTorch's
 * `masked_select` blocks on the device the same way).
 */
export function masked_select_async(
  input: Tensor,
  mask: Tensor,
): Promise<Tensor> {
  // Parsed before the Promise: a wrong argument throws at the call, as PyTorch's would.
  const { input: t, mask: m } = args("masked_select_async", arguments);
  return maskedSelect(t, m);
}
