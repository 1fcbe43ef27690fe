/**
 * The `torch.*` functions of the view and reshape methods (tensor/shape_ops.ts): `torch.narrow`,
 * `torch.select`, `torch.flatten`, …, each a call of the method on `input`; and the shape
 * functions PyTorch builds from them: `broadcast_shapes`, `broadcast_tensors`, `atleast_Nd`.
 *
 * @module
 */

import { type OpKey, args } from "../schema/index.js";
import { OPS } from "../schema/generated.js";
import { type Shape, checkInts } from "../args.js";
import { inferSize } from "./broadcast.js";
import { ShapeError, TorchError } from "../errors.js";
import {
  type DTypeT,
  type ShapeT,
  Tensor,
  checkTensor,
  wrap,
} from "../tensor/tensor.js";
import type { CheckOf, Dims, RemoveDim, ShapeOf } from "../shapes.js";
import type { NarrowDim } from "../shapes/narrow.js";

function ints(fn: string, arg: string, v: number | Shape): number[] {
  return checkInts(fn, arg, typeof v === "number" ? [v] : Array.from(v));
}

/**
 * The `torch.*` function of a view method: its arguments parsed through the op's schema entry
 * first, then the method called on `input` with them in order.
 */
function method<A extends unknown[], R>(
  name: OpKey,
): (input: Tensor, ...args: A) => R {
  return function () {
    const a = args(name, arguments) as Record<string, unknown>;
    const values: unknown[] = [];
    for (const p of OPS[name].params.slice(1)) {
      if (p.varargs) values.push(...(a[p.name] as unknown[]));
      else values.push(a[p.name]);
    }
    const input = a.input as unknown as Record<string, (...v: unknown[]) => R>;
    return input[name]!(...values);
  } as never;
}

/** `input.narrow(dim, start, length)`: a view of `length` elements from `start` along `dim`. */
export const narrow: <
  T extends Tensor<Dims>,
  Dm extends number,
  L extends number,
>(
  input: T,
  dim: Dm & CheckOf<NarrowDim<ShapeT<T>, Dm, L>>,
  start: number,
  length: L,
) => Tensor<ShapeOf<NarrowDim<ShapeT<T>, Dm, L>>, DTypeT<T>> = method("narrow");
/** `input.narrow_copy(dim, start, length)` (typed as {@link narrow}). */
export const narrow_copy: <
  T extends Tensor<Dims>,
  Dm extends number,
  L extends number,
>(
  input: T,
  dim: Dm & CheckOf<NarrowDim<ShapeT<T>, Dm, L>>,
  start: number,
  length: L,
) => Tensor<ShapeOf<NarrowDim<ShapeT<T>, Dm, L>>, DTypeT<T>> =
  method("narrow_copy");
/** `input.select(dim, index)`: the slice at `index` along `dim` (the dim removed). */
export const select: <T extends Tensor<Dims>, Dm extends number>(
  input: T,
  dim: Dm & CheckOf<RemoveDim<ShapeT<T>, Dm, "select">>,
  index: number,
) => Tensor<ShapeOf<RemoveDim<ShapeT<T>, Dm, "select">>, DTypeT<T>> =
  method("select");
/** `input.diagonal(offset, dim1, dim2)`. */
export const diagonal: (
  input: Tensor,
  offset?: number,
  dim1?: number,
  dim2?: number,
) => Tensor = method("diagonal");
/** `input.as_strided(size, stride, storage_offset)`. */
export const as_strided: (
  input: Tensor,
  size: Shape,
  stride: Shape,
  storage_offset?: number,
) => Tensor = method("as_strided");
/** `input.movedim(source, destination)`. */
export const movedim: (
  input: Tensor,
  source: number | Shape,
  destination: number | Shape,
) => Tensor = method("movedim");
/** Alias of {@link movedim}. */
export const moveaxis = movedim;
/** `input.flatten(start_dim, end_dim)`. */
export const flatten: (
  input: Tensor,
  start_dim?: number,
  end_dim?: number,
) => Tensor = method("flatten");
/** `input.unflatten(dim, sizes)`. */
export const unflatten: (input: Tensor, dim: number, sizes: Shape) => Tensor =
  method("unflatten");
/** `input.squeeze(dim)`. */
export const squeeze: (input: Tensor, dim?: number | Shape) => Tensor =
  method("squeeze");
/** `input.unsqueeze(dim)`. */
export const unsqueeze: (input: Tensor, dim: number) => Tensor =
  method("unsqueeze");
/** `input.swapaxes(axis0, axis1)`. */
export const swapaxes: (input: Tensor, axis0: number, axis1: number) => Tensor =
  method("swapaxes");
/** `input.swapdims(dim0, dim1)`. */
export const swapdims: (input: Tensor, dim0: number, dim1: number) => Tensor =
  method("swapdims");
/** `input.ravel()`. */
export const ravel: (input: Tensor) => Tensor = method("ravel");
/** `input.broadcast_to(size)`. */
export const broadcast_to: (input: Tensor, size: Shape) => Tensor =
  method("broadcast_to");
/** `input.split(split_size_or_sections, dim)`. */
export const split: (
  input: Tensor,
  split_size_or_sections: number | Shape,
  dim?: number,
) => Tensor[] = method("split");
/** `input.chunk(chunks, dim)`. */
export const chunk: (input: Tensor, chunks: number, dim?: number) => Tensor[] =
  method("chunk");
/** `input.tensor_split(indices_or_sections, dim)`. */
export const tensor_split: (
  input: Tensor,
  indices_or_sections: number | Shape,
  dim?: number,
) => Tensor[] = method("tensor_split");
/** `input.unbind(dim)`. */
export const unbind: (input: Tensor, dim?: number) => Tensor[] =
  method("unbind");
/** `input.hsplit(indices_or_sections)`. */
export const hsplit: (
  input: Tensor,
  indices_or_sections: number | Shape,
) => Tensor[] = method("hsplit");
/** `input.vsplit(indices_or_sections)`. */
export const vsplit: (
  input: Tensor,
  indices_or_sections: number | Shape,
) => Tensor[] = method("vsplit");
/** `input.dsplit(indices_or_sections)`. */
export const dsplit: (
  input: Tensor,
  indices_or_sections: number | Shape,
) => Tensor[] = method("dsplit");

/** The shape `shapes` broadcast to (PyTorch's rules: align right, size 1 stretches). */
export function broadcast_shapes(...shapes: (number | Shape)[]): number[] {
  ({ shapes } = args("broadcast_shapes", arguments));
  const lists = shapes.map((s) => ints("broadcast_shapes", "shape", s));
  const rank = Math.max(0, ...lists.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  lists.forEach((s, k) => {
    for (let i = 0; i < s.length; i++) {
      const j = rank - s.length + i;
      const size = s[i]!;
      if (size === out[j] || size === 1) continue;
      if (out[j] !== 1) {
        throw new ShapeError(
          `Attempting to broadcast a dimension of length ${size} at ${i - s.length}! Mismatching argument at index ${k} had (${s.join(", ")}${s.length === 1 ? "," : ""}); but expected shape should be broadcastable to [${out.slice(rank - s.length).join(", ")}]`,
        );
      }
      out[j] = size;
    }
  });
  return out;
}

/** Each tensor expanded to the shape they broadcast to (views). */
export function broadcast_tensors(
  ...tensors: (Tensor | readonly Tensor[])[]
): Tensor[] {
  tensors = args("broadcast_tensors", arguments).tensors;
  const list = (
    tensors.length === 1 && Array.isArray(tensors[0]) ? tensors[0] : tensors
  ) as Tensor[];
  const shape = list.reduce<number[]>((s, t) => inferSize(s, t.shape), []);
  return list.map((t) => t.expand(shape));
}

function atleast(fn: string, nd: number, t: Tensor): Tensor {
  checkTensor(fn, "input", t);
  if (t.ndim >= nd) return wrap(t._raw.handle());
  const shape = t.shape;
  const target =
    nd === 3
      ? shape.length === 0
        ? [1, 1, 1]
        : shape.length === 1
          ? [1, shape[0]!, 1]
          : [...shape, 1]
      : [...new Array<number>(nd - shape.length).fill(1), ...shape];
  return t.view(target);
}

function atleastFn(fn: "atleast_1d" | "atleast_2d" | "atleast_3d", nd: number) {
  function f(input: Tensor): Tensor;
  function f(...tensors: Tensor[]): Tensor[];
  function f(tensors: readonly Tensor[]): Tensor[];
  function f(): Tensor | Tensor[] {
    const list0 = args(fn, arguments).tensors;
    if (list0.length === 1 && list0[0] instanceof Tensor)
      return atleast(fn, nd, list0[0]);
    const list = (list0.length === 1 ? list0[0] : list0) as Tensor[];
    if (!Array.isArray(list))
      throw new TorchError(
        `${fn}(): argument 'input' must be Tensor, not ${typeof list}`,
      );
    return list.map((t) => atleast(fn, nd, t));
  }
  return f;
}

/** `input` viewed with at least 1 dim (rank 0 becomes `[1]`); several tensors give a list. */
export const atleast_1d = atleastFn("atleast_1d", 1);
/** At least 2 dims (new dims in front: `[n]` becomes `[1, n]`). */
export const atleast_2d = atleastFn("atleast_2d", 2);
/** At least 3 dims: `[]` → `[1, 1, 1]`, `[n]` → `[1, n, 1]`, `[m, n]` → `[m, n, 1]`. */
export const atleast_3d = atleastFn("atleast_3d", 3);
