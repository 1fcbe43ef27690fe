/**
 * Views and reshapes: the core's slicing views (`narrow`, `select`, `slice`, `diagonal`,
 * `unfold`, `as_strided`, `movedim`, `flatten`, `unflatten`, `squeeze`, `unsqueeze`) as `torch.*`
 * functions and `Tensor` methods, and the shape functions PyTorch builds from them: broadcasting
 * (`broadcast_to`, `broadcast_tensors`, `broadcast_shapes`, `expand_as`), `atleast_Nd`, `ravel`,
 * `swapaxes`, and splitting (`split`, `chunk`, `tensor_split`, `unbind`, `hsplit`/`vsplit`/
 * `dsplit`). Every result is a view (no copy) and differentiable where the core view is.
 * Joining and repeating (`hstack`, `repeat`, `tile`, …) live in ops/joins.ts. Also
 * `Tensor.resize_`, which gives a tensor a new shape in place.
 *
 * @module
 */

import { type Shape, checkHostAlloc, checkInts } from "../args.js";
import { ShapeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { zeros } from "../ops/creation.js";
import { cat } from "../ops/indexing.js";
import { methodArgs } from "../schema/index.js";
import { type DTypeT, type ShapeT, Tensor, wrap, wrapDim } from "./tensor.js";
import type { DType } from "../dtype.js";
import type {
  CheckOf,
  Dims,
  Expand,
  Flatten,
  Mutable,
  Numel,
  RemoveDim,
  Reshape,
  ShapeOf,
  Squeeze,
  Transpose,
  Unflatten,
  Unsqueeze,
  NarrowDim,
} from "../shapes.js";

declare module "./tensor.js" {
  interface Tensor<S extends Dims = number[], D extends DType = DType> {
    /** The view `[start, start + length)` along `dim` (typed: that dim becomes `length`). */
    narrow<Self extends Tensor<Dims>, Dm extends number, L extends number>(
      this: Self,
      dim: Dm & CheckOf<NarrowDim<ShapeT<Self>, Dm, L>>,
      start: number,
      length: L,
    ): Tensor<ShapeOf<NarrowDim<ShapeT<Self>, Dm, L>>, DTypeT<Self>>;
    /** `narrow` as a copy (its own storage); typed as `narrow`. */
    narrow_copy<Self extends Tensor<Dims>, Dm extends number, L extends number>(
      this: Self,
      dim: Dm & CheckOf<NarrowDim<ShapeT<Self>, Dm, L>>,
      start: number,
      length: L,
    ): Tensor<ShapeOf<NarrowDim<ShapeT<Self>, Dm, L>>, DTypeT<Self>>;
    /** The slice at `index` along `dim` (the dim is removed): `t.select(0, 1)` is `t[1]`. */
    select<Self extends Tensor<Dims>, Dm extends number>(
      this: Self,
      dim: Dm & CheckOf<RemoveDim<ShapeT<Self>, Dm, "select">>,
      index: number,
    ): Tensor<ShapeOf<RemoveDim<ShapeT<Self>, Dm, "select">>, DTypeT<Self>>;
    /** Python's `t[start:end:step]` along `dim` (bounds clamp; negative bounds count from the end). */
    slice(
      dim: number,
      start?: number | null,
      end?: number | null,
      step?: number,
    ): Tensor;
    /** The view of the diagonal `offset` of the dims `dim1`, `dim2` (moved to the last dim). */
    diagonal(offset?: number, dim1?: number, dim2?: number): Tensor;
    /** Every window of `size` elements `step` apart along `dim`, as a new last dim (forward only). */
    unfold(dimension: number, size: number, step: number): Tensor;
    /** A view with explicit sizes, strides (in elements) and storage offset (forward only). */
    as_strided(size: Shape, stride: Shape, storage_offset?: number): Tensor;
    /** Moves dims `source` to positions `destination` (the others keep their order). */
    movedim(source: number | Shape, destination: number | Shape): Tensor;
    /** Alias of {@link Tensor.movedim}. */
    moveaxis(source: number | Shape, destination: number | Shape): Tensor;
    /** Merges dims `start_dim..end_dim` (default all) into one. */
    flatten<
      Self extends Tensor<Dims>,
      A extends number = 0,
      B extends number = -1,
    >(
      this: Self,
      start_dim?: A & CheckOf<Flatten<ShapeT<Self>, A, B>>,
      end_dim?: B,
    ): Tensor<ShapeOf<Flatten<ShapeT<Self>, A, B>>, DTypeT<Self>>;
    /** Splits dim `dim` into `sizes` (one may be -1). */
    unflatten<
      Self extends Tensor<Dims>,
      Dm extends number,
      const Z extends Shape,
    >(
      this: Self,
      dim: Dm,
      sizes: Z & CheckOf<Unflatten<ShapeT<Self>, Dm, Z>>,
    ): Tensor<ShapeOf<Unflatten<ShapeT<Self>, Dm, Z>>, DTypeT<Self>>;
    /** Removes size-1 dims: all of them, or those of `dim` (a dim or a list). */
    squeeze<
      Self extends Tensor<Dims>,
      const Dm extends number | Shape | undefined = undefined,
    >(
      this: Self,
      dim?: Dm & CheckOf<Squeeze<ShapeT<Self>, Dm>>,
    ): Tensor<ShapeOf<Squeeze<ShapeT<Self>, Dm>>, DTypeT<Self>>;
    /** Inserts a size-1 dim at `dim` (`-1` appends). */
    unsqueeze<Self extends Tensor<Dims>, Dm extends number>(
      this: Self,
      dim: Dm & CheckOf<Unsqueeze<ShapeT<Self>, Dm>>,
    ): Tensor<ShapeOf<Unsqueeze<ShapeT<Self>, Dm>>, DTypeT<Self>>;
    /** The elements' offset into the storage. */
    storage_offset(): number;
    /** Alias of {@link Tensor.transpose} (NumPy's name). */
    swapaxes<Self extends Tensor<Dims>, A extends number, B extends number>(
      this: Self,
      axis0: A & CheckOf<Transpose<ShapeT<Self>, A, B>>,
      axis1: B,
    ): Tensor<ShapeOf<Transpose<ShapeT<Self>, A, B>>, DTypeT<Self>>;
    /** Alias of {@link Tensor.transpose}. */
    swapdims<Self extends Tensor<Dims>, A extends number, B extends number>(
      this: Self,
      dim0: A & CheckOf<Transpose<ShapeT<Self>, A, B>>,
      dim1: B,
    ): Tensor<ShapeOf<Transpose<ShapeT<Self>, A, B>>, DTypeT<Self>>;
    /** The 1-D view of the elements (a copy when the layout needs one). */
    ravel(): Tensor<[Numel<S>], D>;
    /** `expand` to `shape` (PyTorch's broadcasting rules). */
    broadcast_to(size: Shape): Tensor;
    /** `expand` to `other`'s shape. */
    expand_as<Self extends Tensor<Dims>, O extends Dims>(
      this: Self,
      other: Tensor<O> & CheckOf<Expand<ShapeT<Self>, O>>,
    ): Tensor<Mutable<O>, DTypeT<Self>>;
    /** `view` with `other`'s shape. */
    view_as<Self extends Tensor<Dims>, O extends Dims>(
      this: Self,
      other: Tensor<O> & CheckOf<Reshape<ShapeT<Self>, O, "view">>,
    ): Tensor<Mutable<O>, DTypeT<Self>>;
    /** `reshape` to `other`'s shape. */
    reshape_as<Self extends Tensor<Dims>, O extends Dims>(
      this: Self,
      other: Tensor<O> & CheckOf<Reshape<ShapeT<Self>, O>>,
    ): Tensor<Mutable<O>, DTypeT<Self>>;
    /** Views of `split_size`-long pieces along `dim` (the last may be shorter), or of the given sizes. */
    split(split_size_or_sections: number | Shape, dim?: number): Tensor[];
    /** `chunks` pieces along `dim` (each `ceil(size / chunks)` long; fewer when they run out). */
    chunk(chunks: number, dim?: number): Tensor[];
    /** NumPy's `array_split`: `sections` near-equal pieces, or pieces cut at `indices`. */
    tensor_split(indices_or_sections: number | Shape, dim?: number): Tensor[];
    /** The slices along `dim`, each without that dim. */
    unbind(dim?: number): Tensor[];
    /** `tensor_split` along dim 1 (dim 0 for 1-D), requiring equal pieces for a number. */
    hsplit(indices_or_sections: number | Shape): Tensor[];
    /** `tensor_split` along dim 0 (at least 2-D). */
    vsplit(indices_or_sections: number | Shape): Tensor[];
    /** `tensor_split` along dim 2 (at least 3-D). */
    dsplit(indices_or_sections: number | Shape): Tensor[];
  }
}

function int(fn: string, arg: string, v: unknown): number {
  return checkInts(fn, arg, [v])[0]!;
}

function ints(fn: string, arg: string, v: number | Shape): number[] {
  return checkInts(
    fn,
    arg,
    Array.isArray(v) || ArrayBuffer.isView(v)
      ? Array.from(v as ArrayLike<number>)
      : [v],
  );
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

/**
 * Whether a call gives exactly `count` arguments, all integers: the common call of a view taking
 * dims and sizes, which cannot be of a wrong kind, so that it skips the schema parser (the core
 * checks the values).
 */
function plainInts(values: IArguments, count: number): boolean {
  if (values.length !== count) return false;
  for (let i = 0; i < count; i++)
    if (!Number.isInteger(values[i])) return false;
  return true;
}

proto.narrow = function (
  this: Tensor,
  dim: number,
  start: number,
  length: number,
) {
  if (!plainInts(arguments, 3))
    ({ dim, start, length } = methodArgs("narrow", this, arguments));
  const [d, s, l] = checkInts("narrow", "dim", [dim, start, length]);
  return wrap(this._raw.narrow(d!, s!, l!));
};
proto.narrow_copy = function (
  this: Tensor,
  dim: number,
  start: number,
  length: number,
) {
  ({ dim, start, length } = methodArgs("narrow_copy", this, arguments));
  const v = this.narrow(dim, start, length);
  try {
    return v.clone();
  } finally {
    v.dispose();
  }
};
proto.select = function (this: Tensor, dim: number, index: number) {
  if (!plainInts(arguments, 2))
    ({ dim, index } = methodArgs("select", this, arguments));
  return wrap(
    this._raw.select(int("select", "dim", dim), int("select", "index", index)),
  );
};
proto.slice = function (
  this: Tensor,
  dim: number,
  start?: number | null,
  end?: number | null,
  step = 1,
) {
  return wrap(
    this._raw.slice(
      int("slice", "dim", dim),
      start ?? undefined,
      end ?? undefined,
      step,
    ),
  );
};
proto.diagonal = function (
  this: Tensor,
  offset?: number,
  dim1?: number,
  dim2?: number,
) {
  ({ offset, dim1, dim2 } = methodArgs("diagonal", this, arguments));
  const [o, a, b] = checkInts("diagonal", "offset", [offset, dim1, dim2]);
  return wrap(this._raw.diagonal(o!, a!, b!));
};
proto.unfold = function (
  this: Tensor,
  dimension: number,
  size: number,
  step: number,
) {
  const [d, s, st] = checkInts("unfold", "dimension", [dimension, size, step]);
  return wrap(this._raw.unfold(d!, s!, st!));
};
proto.as_strided = function (
  this: Tensor,
  size: Shape,
  stride: Shape,
  storage_offset?: number | null,
) {
  ({ size, stride, storage_offset } = methodArgs(
    "as_strided",
    this,
    arguments,
  ));
  const strides = ints("as_strided", "stride", stride);
  if (strides.some((s) => s < 0))
    throw new TorchError(
      `as_strided: Negative strides are not supported at the moment, got strides: [${strides.join(", ")}]`,
    );
  return wrap(
    this._raw.as_strided(
      Int32Array.from(ints("as_strided", "size", size)),
      Int32Array.from(strides),
      storage_offset ?? undefined,
    ),
  );
};
proto.movedim = function (
  this: Tensor,
  source: number | Shape,
  destination: number | Shape,
) {
  ({ source, destination } = methodArgs("movedim", this, arguments));
  return wrap(
    this._raw.movedim(
      Int32Array.from(ints("movedim", "source", source)),
      Int32Array.from(ints("movedim", "destination", destination)),
    ),
  );
};
proto.moveaxis = proto.movedim;
proto.flatten = function (this: Tensor, start_dim?: number, end_dim?: number) {
  if (!plainInts(arguments, 2))
    ({ start_dim, end_dim } = methodArgs("flatten", this, arguments));
  const [s, e] = checkInts("flatten", "start_dim", [start_dim, end_dim]);
  return wrap(this._raw.flatten(s!, e!));
};
proto.unflatten = function (this: Tensor, dim: number, sizes: Shape) {
  ({ dim, sizes } = methodArgs("unflatten", this, arguments));
  return wrap(
    this._raw.unflatten(
      int("unflatten", "dim", dim),
      Int32Array.from(ints("unflatten", "sizes", sizes)),
    ),
  );
};
proto.squeeze = function (this: Tensor, dim?: number | Shape | null) {
  if (!plainInts(arguments, 1) && arguments.length > 0)
    ({ dim } = methodArgs("squeeze", this, arguments));
  if (dim === undefined || dim === null)
    return wrap(this._raw.squeeze(undefined));
  if (typeof dim === "number")
    return wrap(this._raw.squeeze(int("squeeze", "dim", dim)));
  // A list of dims: squeeze each (highest first, so the others keep their positions).
  const ds = [
    ...new Set(ints("squeeze", "dim", dim).map((d) => wrapDim(d, this.ndim))),
  ];
  ds.sort((a, b) => b - a);
  let t = wrap(this._raw.handle());
  for (const d of ds) {
    const next = wrap(t._raw.squeeze(d));
    t.dispose();
    t = next;
  }
  return t;
};
proto.unsqueeze = function (this: Tensor, dim: number) {
  if (!plainInts(arguments, 1))
    ({ dim } = methodArgs("unsqueeze", this, arguments));
  return wrap(this._raw.unsqueeze(int("unsqueeze", "dim", dim)));
};
proto.storage_offset = function (this: Tensor) {
  return this._raw.storage_offset();
};
proto.swapaxes = function (this: Tensor, axis0: number, axis1: number) {
  ({ axis0, axis1 } = methodArgs("swapaxes", this, arguments));
  return this.transpose(axis0, axis1);
};
proto.swapdims = function (this: Tensor, dim0: number, dim1: number) {
  ({ dim0, dim1 } = methodArgs("swapdims", this, arguments));
  return this.transpose(dim0, dim1);
};
proto.ravel = function (this: Tensor) {
  methodArgs("ravel", this, arguments);
  return this.reshape(-1);
};
proto.broadcast_to = function (this: Tensor, size: Shape) {
  ({ size } = methodArgs("broadcast_to", this, arguments));
  return this.expand(size);
};
proto.expand_as = function (this: Tensor, other: Tensor) {
  ({ other } = methodArgs("expand_as", this, arguments));
  return this.expand(other.shape);
};
proto.view_as = function (this: Tensor, other: Tensor) {
  ({ other } = methodArgs("view_as", this, arguments));
  return this.view(other.shape);
};
proto.reshape_as = function (this: Tensor, other: Tensor) {
  ({ other } = methodArgs("reshape_as", this, arguments));
  return this.reshape(other.shape);
};

// What one view returned by split/chunk/unbind costs on the host (its Tensor object and its
// core handle), for checking a count of pieces the caller chose against the CPU budget.
const VIEW_BYTES = 256;

/**
 * Views of consecutive pieces of the given lengths along `d`; `of` names the multi-output
 * function (PyTorch's `Split`/`SplitWithSizes`) whose pieces refuse in-place writes autograd
 * would see. `tensor_split` passes none: PyTorch makes its pieces as separate slices.
 */
function pieces(
  t: Tensor,
  d: number,
  lengths: number[],
  of?: "Split" | "SplitWithSizes",
): Tensor[] {
  const out: Tensor[] = [];
  let start = 0;
  for (const len of lengths) {
    const raw = t._raw.narrow(d, start, len);
    if (of) raw.mark_output_of(of, out.length);
    out.push(wrap(raw));
    start += len;
  }
  return out;
}

proto.split = function (this: Tensor, split: number | Shape, dim?: number) {
  if (!plainInts(arguments, 2))
    ({ split_size_or_sections: split, dim } = methodArgs(
      "split",
      this,
      arguments,
    ));
  const d = wrapDim(int("split", "dim", dim), this.ndim);
  const n = this.shape[d]!;
  if (typeof split !== "number") {
    const sizes = ints("split", "split_size", split);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total !== n || sizes.some((s) => s < 0))
      throw new TorchError(
        `split_with_sizes expects split_sizes to sum exactly to ${n} (input tensor's size at dimension ${d}), but got split_sizes=[${sizes.join(", ")}]`,
      );
    return pieces(this, d, sizes, "SplitWithSizes");
  }
  const size = int("split", "split_size", split);
  if (size < 0)
    throw new TorchError(
      `split expects split_size be non-negative, but got split_size=${size}`,
    );
  if (size === 0) {
    if (n !== 0)
      throw new TorchError(
        `split_size can only be 0 if dimension size is 0, but got dimension size of ${n}`,
      );
    return pieces(this, d, [0], "Split");
  }
  const count = Math.max(1, Math.ceil(n / size));
  checkHostAlloc("split", count, VIEW_BYTES);
  return pieces(
    this,
    d,
    Array.from({ length: count }, (_, i) => Math.min(size, n - i * size)),
    "Split",
  );
};
proto.chunk = function (this: Tensor, chunks: number, dim?: number) {
  if (!plainInts(arguments, 2))
    ({ chunks, dim } = methodArgs("chunk", this, arguments));
  const c = int("chunk", "chunks", chunks);
  if (c <= 0)
    throw new TorchError(
      `chunk expects \`chunks\` to be greater than 0, got: ${c}`,
    );
  const d = wrapDim(int("chunk", "dim", dim), this.ndim);
  const n = this.shape[d]!;
  // PyTorch: pieces of ceil(n / chunks), so there may be fewer than `chunks`.
  return this.split(Math.max(1, Math.ceil(n / c)), d);
};
proto.tensor_split = function (
  this: Tensor,
  spec: number | Shape,
  dim?: number,
) {
  ({ indices_or_sections: spec, dim } = methodArgs(
    "tensor_split",
    this,
    arguments,
  ));
  const d = wrapDim(int("tensor_split", "dim", dim), this.ndim);
  const n = this.shape[d]!;
  if (typeof spec === "number") {
    const s = int("tensor_split", "sections", spec);
    if (s <= 0)
      throw new TorchError(
        `number of sections must be larger than 0, got ${s}`,
      );
    checkHostAlloc("tensor_split", s, VIEW_BYTES);
    const base = Math.floor(n / s);
    const extra = n % s;
    return pieces(
      this,
      d,
      Array.from({ length: s }, (_, i) => base + (i < extra ? 1 : 0)),
    );
  }
  // Cut points, clamped to [0, n] as Python slices are (a cut before the previous one: empty).
  const cuts = ints("tensor_split", "indices", spec);
  const out: Tensor[] = [];
  let prev = 0;
  for (const cut of [...cuts, n]) {
    const at = Math.min(Math.max(cut < 0 ? cut + n : cut, 0), n);
    const start = Math.min(prev, n);
    out.push(wrap(this._raw.narrow(d, start, Math.max(at - start, 0))));
    prev = Math.max(at, prev);
  }
  return out;
};
proto.unbind = function (this: Tensor, dim?: number) {
  if (!plainInts(arguments, 1))
    ({ dim } = methodArgs("unbind", this, arguments));
  const d = wrapDim(int("unbind", "dim", dim), this.ndim);
  checkHostAlloc("unbind", this.shape[d]!, VIEW_BYTES);
  return Array.from({ length: this.shape[d]! }, (_, i) => {
    const raw = this._raw.select(d, i);
    raw.mark_output_of("Unbind", i);
    return wrap(raw);
  });
};

function splitAlong(
  fn: "hsplit" | "vsplit" | "dsplit",
  t: Tensor,
  spec: number | Shape,
  minDims: number,
  dim: number,
): Tensor[] {
  if (t.ndim < minDims)
    throw new TorchError(
      `torch.${fn} requires a tensor with at least ${minDims} dimension, but got a tensor with ${t.ndim} dimensions!`,
    );
  if (typeof spec === "number") {
    const n = t.shape[dim]!;
    if (spec === 0 || n % spec !== 0)
      throw new ShapeError(
        `torch.${fn} attempted to split along dimension ${dim}, but the size of the dimension ${n} is not divisible by the split_size ${spec}!`,
      );
  }
  return t.tensor_split(spec, dim);
}

proto.hsplit = function (this: Tensor, spec: number | Shape) {
  ({ indices_or_sections: spec } = methodArgs("hsplit", this, arguments));
  return splitAlong("hsplit", this, spec, 1, this.ndim === 1 ? 0 : 1);
};
proto.vsplit = function (this: Tensor, spec: number | Shape) {
  ({ indices_or_sections: spec } = methodArgs("vsplit", this, arguments));
  return splitAlong("vsplit", this, spec, 2, 0);
};
proto.dsplit = function (this: Tensor, spec: number | Shape) {
  ({ indices_or_sections: spec } = methodArgs("dsplit", this, arguments));
  return splitAlong("dsplit", this, spec, 3, 2);
};

// The torch.* functions (`torch.narrow`, `torch.broadcast_shapes`, `atleast_Nd`, …) live in
// shape_fns.ts; re-exported here so their importers keep one module to import from.
export * from "../ops/shape_fns.js";

declare module "./tensor.js" {
  interface Tensor {
    /**
     * Gives this tensor the shape `sizes` in place (PyTorch's `resize_`): a contiguous tensor that
     * does not grow keeps its storage (a view of its first elements); otherwise the values are
     * copied in row-major order into new storage, the added elements zero (PyTorch leaves them
     * uninitialized). Refused for tensors that require grad, as in PyTorch.
     */
    resize_(...sizes: (number | readonly number[])[]): this;
  }
}

proto.resize_ = function (
  this: Tensor,
  ...args: (number | readonly number[])[]
) {
  const sizes = checkInts(
    "resize_",
    "size",
    args.length === 1 && Array.isArray(args[0])
      ? (args[0] as readonly number[])
      : (args as number[]),
  );
  // PyTorch's wording for a negative size in resize_.
  if (sizes.some((n) => n < 0))
    throw new TorchError("numel: integer multiplication overflow");
  if (this.requires_grad)
    throw new TorchError("cannot resize variables that require grad");
  const numel = sizes.reduce((a, b) => a * b, 1);
  const next = scope(() => {
    if (this.is_contiguous() && numel <= this.numel()) {
      const strides = sizes.map((_, i) =>
        sizes.slice(i + 1).reduce((a, b) => a * b, 1),
      );
      return this.as_strided(sizes, strides, this.storage_offset());
    }
    const flat = this.reshape(-1);
    const grown =
      numel > flat.numel()
        ? cat([
            flat,
            zeros(numel - flat.numel(), {
              dtype: this.dtype,
              device: this.device,
            }),
          ])
        : flat;
    return grown.narrow(0, 0, numel).contiguous().reshape(sizes);
  });
  this._setRaw(next._raw.handle());
  next.dispose();
  return this;
};
