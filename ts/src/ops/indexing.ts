/**
 * Indexing and joining: `index_select`, `gather`, `take_along_dim`, `cat` (alias `concat`) and
 * `stack`, as `torch.*` functions and `Tensor` methods where PyTorch has them (the methods in
 * tensor/methods/indexing.ts), and `unravel_index` (flat indices to coordinates). Indices are
 * int64 (or int32) tensors; an index outside the indexed dim reads as 0 (the GPU cannot throw,
 * see the core's tensor/indexing.rs) where PyTorch raises.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { RawTensor, RawTensorList } from "../wasm/webtorch_core.js";
import { checkInts, pyTypeName } from "../args.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import { DTypeError, TorchError } from "../errors.js";
import { isFloatingPoint } from "../dtype.js";
import { scope } from "../lifetime.js";
import { binary } from "./op_rows.js";
import type { Cat, CheckOf, Dims, ShapeOf, Stack } from "../shapes.js";
import type { ShapesOf } from "../tensor/tensor.js";
import { dimArg } from "../tensor/methods/indexing.js";

/** `input.scatter(dim, index, src)`. See {@link Tensor.scatter}. */
export function scatter(
  input: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor | number | boolean,
): Tensor {
  const a = args("scatter", arguments);
  return a.input.scatter(a.dim, a.index, a.src);
}

/** `input.scatter_add(dim, index, src)`. See {@link Tensor.scatter_add}. */
export function scatter_add(
  input: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
): Tensor {
  const a = args("scatter_add", arguments);
  return a.input.scatter_add(a.dim, a.index, a.src);
}

/** The slices of `input` at `index` along `dim`. See {@link Tensor.index_select}. */
export function index_select(
  input: Tensor,
  dim: number,
  index: Tensor,
): Tensor {
  // The common call skips the parser: it could find nothing wrong with it.
  if (
    arguments.length === 3 &&
    input instanceof Tensor &&
    Number.isInteger(dim) &&
    index instanceof Tensor
  )
    return input.index_select(dim, index);
  const a = args("index_select", arguments);
  return a.input.index_select(a.dim, a.index);
}

/** Values of `input` along `dim` at `index`. See {@link Tensor.gather}. */
export function gather(input: Tensor, dim: number, index: Tensor): Tensor {
  // The common call skips the parser: it could find nothing wrong with it.
  if (
    arguments.length === 3 &&
    input instanceof Tensor &&
    Number.isInteger(dim) &&
    index instanceof Tensor
  )
    return input.gather(dim, index);
  const a = args("gather", arguments);
  return a.input.gather(a.dim, a.index);
}

/** `gather` with `input` and `indices` broadcast outside `dim` (the flattened input without `dim`). */
export function take_along_dim(
  input: Tensor,
  indices: Tensor,
  dim?: number | null,
): Tensor {
  const a = args("take_along_dim", arguments);
  return a.input.take_along_dim(a.indices, a.dim);
}

function withList(
  fn: string,
  tensors: readonly Tensor[],
  run: (list: RawTensorList) => Tensor,
): Tensor {
  if (!Array.isArray(tensors))
    throw new TorchError(
      `${fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not ${pyTypeName(tensors)}`,
    );
  tensors.forEach((t, i) => {
    if (!(t instanceof Tensor))
      throw new TorchError(
        `expected Tensor as element ${i} in argument 0, but got ${pyTypeName(t)}`,
      );
  });
  const list = new RawTensorList();
  try {
    tensors.forEach((t) => list.push(t._raw));
    return run(list);
  } finally {
    list.free();
  }
}

/** Joins `tensors` along `dim` (default 0), promoting to one dtype. */
export function cat<
  const Ts extends readonly Tensor<Dims>[],
  Dm extends number = 0,
>(
  tensors: Ts & CheckOf<Cat<ShapesOf<Ts>, Dm>>,
  dim?: Dm,
): Tensor<ShapeOf<Cat<ShapesOf<Ts>, Dm>>>;
export function cat(tensors: readonly Tensor[], dim?: number): Tensor {
  // A list and an int dim, the common call, skip the parser.
  if (!(
    Array.isArray(tensors) &&
    arguments.length <= 2 &&
    (dim === undefined || Number.isInteger(dim))
  ))
    ({ tensors, dim } = args("cat", arguments));
  return withList("cat", tensors, (l) =>
    wrap(RawTensor.cat(l, dimArg("cat", dim ?? 0))),
  );
}

/** Alias of {@link cat}. */
export const concat = cat;

/** Stacks equally shaped `tensors` along a new dim `dim` (default 0). */
export function stack<
  const Ts extends readonly Tensor<Dims>[],
  Dm extends number = 0,
>(
  tensors: Ts & CheckOf<Stack<ShapesOf<Ts>, Dm>>,
  dim?: Dm,
): Tensor<ShapeOf<Stack<ShapesOf<Ts>, Dm>>>;
export function stack(tensors: readonly Tensor[], dim?: number): Tensor {
  // A list and an int dim, the common call, skip the parser.
  if (!(
    Array.isArray(tensors) &&
    arguments.length <= 2 &&
    (dim === undefined || Number.isInteger(dim))
  ))
    ({ tensors, dim } = args("stack", arguments));
  return withList("stack", tensors, (l) =>
    wrap(RawTensor.stack(l, dimArg("stack", dim ?? 0))),
  );
}

/** The coordinates in `shape` of flat `indices`: one int64 tensor per dim. */
export function unravel_index(
  indices: Tensor,
  shape: number | readonly number[],
): Tensor[] {
  ({ indices, shape } = args("unravel_index", arguments));
  const idx = checkTensor("unravel_index", "indices", indices);
  if (isFloatingPoint(idx.dtype) || idx.dtype === "bool")
    throw new DTypeError(
      "expected 'indices' to be integer dtype, but got " + idx.dtype,
    );
  const dims = checkInts(
    "unravel_index",
    "shape",
    typeof shape === "number" ? [shape] : [...shape],
  );
  if (dims.some((d) => d < 0))
    throw new TorchError(
      "'shape' cannot have negative values, but got (" + dims.join(", ") + ")",
    );
  // Row-major strides of `shape`; coordinate k is floor(i / stride_k) mod size_k.
  const strides = dims.map((_, k) =>
    dims.slice(k + 1).reduce((a, b) => a * b, 1),
  );
  return scope(() =>
    dims.map((d, k) =>
      binary("floor_divide", idx, strides[k]!).remainder(d).to("int64"),
    ),
  );
}
