/**
 * Scatters beyond the core's `scatter`/`scatter_add` (ops/indexing.ts): `scatter_reduce` (sum,
 * prod, mean, amax, amin; `include_self`: the core's Scatter kernel, the reductions atomic on the
 * GPU), the in-place `scatter_`/`scatter_add_` (written back with `copy_`), and the scatter-based
 * indexing composites (`index_add`, `index_copy`, `index_fill`, `select_scatter`,
 * `slice_scatter`, `diagonal_scatter`), each a `scatter` or product of core ops, so it
 * differentiates.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { Tensor } from "../tensor/tensor.js";

/** The reductions of {@link scatter_reduce}. */
export type ScatterReduce = "sum" | "prod" | "mean" | "amax" | "amin";

/** `input` with `src` reduced in at `index`. See {@link Tensor.scatter_reduce}. */
export function scatter_reduce(
  input: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
  reduce: ScatterReduce,
  options?: { include_self?: boolean },
): Tensor {
  const a = args("scatter_reduce", arguments);
  return a.input.scatter_reduce(
    a.dim,
    a.index,
    a.src,
    a.reduce as ScatterReduce,
    a,
  );
}

/** `input.index_add(dim, index, source, { alpha })`. */
export function index_add(
  input: Tensor,
  dim: number,
  index: Tensor,
  source: Tensor,
  options?: { alpha?: number },
): Tensor {
  const a = args("index_add", arguments);
  return a.input.index_add(a.dim, a.index, a.source, {
    alpha: Number(a.alpha),
  });
}
/** `input.index_copy(dim, index, source)`. */
export function index_copy(
  input: Tensor,
  dim: number,
  index: Tensor,
  source: Tensor,
): Tensor {
  const a = args("index_copy", arguments);
  return a.input.index_copy(a.dim, a.index, a.source);
}
/** `input.index_fill(dim, index, value)`. */
export function index_fill(
  input: Tensor,
  dim: number,
  index: Tensor,
  value: number | boolean,
): Tensor {
  const a = args("index_fill", arguments);
  return a.input.index_fill(a.dim, a.index, a.value);
}
/** `input.select_scatter(src, dim, index)`. */
export function select_scatter(
  input: Tensor,
  src: Tensor,
  dim: number,
  index: number,
): Tensor {
  const a = args("select_scatter", arguments);
  return a.input.select_scatter(a.src, a.dim, a.index);
}
/** `input.slice_scatter(src, dim, start, end, step)`. */
export function slice_scatter(
  input: Tensor,
  src: Tensor,
  dim?: number,
  start?: number | null,
  end?: number | null,
  step?: number,
): Tensor {
  const a = args("slice_scatter", arguments);
  return a.input.slice_scatter(a.src, a.dim, a.start, a.end, a.step);
}
/** `input.diagonal_scatter(src, offset, dim1, dim2)`. */
export function diagonal_scatter(
  input: Tensor,
  src: Tensor,
  offset?: number,
  dim1?: number,
  dim2?: number,
): Tensor {
  const a = args("diagonal_scatter", arguments);
  return a.input.diagonal_scatter(a.src, a.offset, a.dim1, a.dim2);
}
