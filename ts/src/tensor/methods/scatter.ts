/**
 * The `Tensor` methods of the ops in ops/scatter.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/scatter.ts.
 *
 * @module
 */

import { checkInts } from "../../args.js";
import { IndexError, ShapeError, TorchError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { arange, full } from "../../ops/creation.js";
import { Tensor, checkTensor, wrap, wrapDim } from "../tensor.js";
import { writeBack } from "../write_back.js";
import { scalarTypeName } from "../../dtype.js";
import { checkValues } from "../../ops/value_checks.js";
import { type ScatterReduce } from "../../ops/scatter.js";

declare module "../tensor.js" {
  interface Tensor {
    /**
     * `this` with `src` reduced into it at `index` along `dim` (`include_self`: the existing
     * values take part; default true).
     */
    scatter_reduce(
      dim: number,
      index: Tensor,
      src: Tensor,
      reduce: ScatterReduce,
      options?: { include_self?: boolean },
    ): Tensor;
  }
}

declare module "../tensor.js" {
  interface Tensor {
    /** {@link Tensor.scatter} in place (returns this tensor). */
    scatter_(dim: number, index: Tensor, src: Tensor | number | boolean): this;
    /** {@link Tensor.scatter_add} in place (returns this tensor). */
    scatter_add_(dim: number, index: Tensor, src: Tensor): this;
  }
}

declare module "../tensor.js" {
  interface Tensor {
    /** `index_add`: `source` slices added at `index` along `dim` (times `alpha`). */
    index_add(
      dim: number,
      index: Tensor,
      source: Tensor,
      options?: { alpha?: number },
    ): Tensor;
    /** `index_copy`: `source` slices written at `index` along `dim`. */
    index_copy(dim: number, index: Tensor, source: Tensor): Tensor;
    /** `index_fill`: `value` written into the slices at `index` along `dim`. */
    index_fill(dim: number, index: Tensor, value: number | boolean): Tensor;
    /** A copy with the slice at `index` along `dim` replaced by `src`. */
    select_scatter(src: Tensor, dim: number, index: number): Tensor;
    /** A copy with `this[start:end:step]` along `dim` replaced by `src`. */
    slice_scatter(
      src: Tensor,
      dim?: number,
      start?: number | null,
      end?: number | null,
      step?: number,
    ): Tensor;
    /** A copy with diagonal `offset` of dims `dim1`, `dim2` replaced by `src`. */
    diagonal_scatter(
      src: Tensor,
      offset?: number,
      dim1?: number,
      dim2?: number,
    ): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

proto.scatter_reduce = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
  reduce: ScatterReduce,
  options: { include_self?: boolean } = {},
) {
  const idx = checkTensor("scatter_reduce", "index", index);
  const s = checkTensor("scatter_reduce", "src", src);
  const d = checkInts("scatter_reduce", "dim", [dim])[0]!;
  return wrap(
    this._raw.scatter_reduce(
      d,
      idx._raw,
      s._raw,
      String(reduce),
      options.include_self ?? true,
    ),
  );
};

proto.scatter_ = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor | number,
) {
  return writeBack(this, this.scatter(dim, index, src));
};

proto.scatter_add_ = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
) {
  return writeBack(this, this.scatter_add(dim, index, src));
};

// ---- indexing through scatter ----

/** `index` (1-D) laid along `dim` and expanded to `shape`: the index tensor of a scatter. */
function along(index: Tensor, dim: number, shape: readonly number[]): Tensor {
  const view = shape.map((_, i) => (i === dim ? index.numel() : 1));
  return index
    .reshape(view)
    .expand(shape.map((s, i) => (i === dim ? index.numel() : s)));
}

function checkIndex(fn: string, index: Tensor): void {
  if (index.ndim > 1)
    throw new ShapeError(`${fn}(): Index is supposed to be a vector`);
  if (index.dtype !== "int64" && index.dtype !== "int32")
    throw new TorchError(`${fn}(): Expected dtype int32/int64 for index`);
}

/** PyTorch's checks of index_copy's operands, in its order and words. */
function checkIndexCopy(t: Tensor, d: number, i: Tensor, s: Tensor): void {
  const fn = "index_copy_()";
  if (i.ndim > 1)
    throw new IndexError(
      `${fn}: Index should have dimension 1 or 0 (got ${i.ndim})`,
    );
  if (i.dtype !== "int64")
    throw new TorchError(
      `${fn}: Expected a long tensor for index, but got ${scalarTypeName(i.dtype)}`,
    );
  if (t.dtype !== s.dtype)
    throw new TorchError(
      `${fn}: self and source expected to have the same dtype, but got (self) ${scalarTypeName(t.dtype)} and (source) ${scalarTypeName(s.dtype)}`,
    );
  if (s.ndim > 0 && t.ndim > 0 && s.ndim !== t.ndim)
    throw new IndexError(
      `${fn}: When source and destination are not scalars, their dimensionality must match. Source dimensionality (${s.ndim}), destination dimensionality (${t.ndim})`,
    );
  const count = s.ndim > 0 ? s.shape[d]! : 1;
  if (i.numel() !== count)
    throw new IndexError(
      `${fn}: Number of indices (${i.numel()}) should be equal to source.size(dim) (${count})`,
    );
  const size = t.ndim > 0 ? t.shape[d]! : 1;
  checkValues(i, 0, size - 1, {
    kind: "IndexError",
    low: `${fn}: index {} is out of bounds for dimension ${d} with size ${size}`,
  });
}

proto.index_add = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  source: Tensor,
  options: { alpha?: number } = {},
) {
  const i = checkTensor("index_add", "index", index);
  const s = checkTensor("index_add", "source", source);
  checkIndex("index_add_", i);
  const d = wrapDim(dim, Math.max(this.ndim, 1));
  const count = s.ndim === 0 ? 1 : s.shape[d]!;
  if (i.numel() !== count)
    throw new ShapeError(
      `index_add_(): Number of indices (${i.numel()}) should be equal to source.size(dim): (${count}), for dim: ${d}`,
    );
  if (
    s.ndim === this.ndim &&
    s.shape.some((n, k) => k !== d && n !== this.shape[k])
  )
    throw new ShapeError(
      `source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [${this.shape.join(", ")}] source.shape = [${s.shape.join(", ")}]`,
    );
  const alpha = options.alpha ?? 1;
  return scope(() =>
    this.scatter_add(d, along(i, d, s.shape), alpha === 1 ? s : s.mul(alpha)),
  );
};

proto.index_copy = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  source: Tensor,
) {
  const i = checkTensor("index_copy", "index", index);
  const s = checkTensor("index_copy", "source", source);
  const d = wrapDim(dim, Math.max(this.ndim, 1));
  checkIndexCopy(this, d, i, s);
  return scope(() => this.scatter(d, along(i, d, s.shape), s));
};

proto.index_fill = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  value: number | boolean,
) {
  const i = checkTensor("index_fill", "index", index);
  checkIndex("index_fill_", i);
  const d = wrapDim(dim, Math.max(this.ndim, 1));
  if (i.numel() === 0) return this.clone();
  return scope(() => this.scatter(d, along(i, d, this.shape), value));
};

proto.select_scatter = function (
  this: Tensor,
  src: Tensor,
  dim: number,
  index: number,
) {
  const s = checkTensor("select_scatter", "src", src);
  // An int first: wrapDim's messages print the dim.
  const d = wrapDim(checkInts("select_scatter", "dim", [dim])[0]!, this.ndim);
  const n = this.shape[d]!;
  const k = checkInts("select_scatter", "index", [index])[0]!;
  if (k < -n || k >= n)
    throw new IndexError(
      `select(): index ${k} out of range for tensor of size [${this.shape.join(", ")}] at dimension ${d}`,
    );
  const slice = this.shape.filter((_, i) => i !== d);
  if (s.ndim !== slice.length || s.shape.some((v, i) => v !== slice[i]))
    throw new ShapeError(
      `expected src to have a size equal to the slice of self. src size = [${s.shape.join(", ")}], slice size = [${slice.join(", ")}]`,
    );
  return scope(() => {
    const at = full(s.unsqueeze(d).shape, k < 0 ? k + n : k, {
      dtype: "int64",
      device: this.device,
    });
    return this.scatter(d, at, s.unsqueeze(d));
  });
};

proto.slice_scatter = function (
  this: Tensor,
  src: Tensor,
  dim = 0,
  start: number | null = null,
  end: number | null = null,
  step = 1,
) {
  const s = checkTensor("slice_scatter", "src", src);
  const d = wrapDim(dim, this.ndim);
  const n = this.shape[d]!;
  if (step <= 0) throw new TorchError("slice step must be positive");
  // Python's slice bounds: negative from the end, then clamped to [0, n].
  const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
  const lo = clamp(start ?? 0);
  const hi = Math.max(clamp(end ?? n), lo);
  const count = Math.ceil((hi - lo) / step);
  const slice = this.shape.map((v, i) => (i === d ? count : v));
  if (s.ndim !== slice.length || s.shape.some((v, i) => v !== slice[i]))
    throw new ShapeError(
      `expected src to have a size equal to the slice of self. src size = [${s.shape.join(", ")}], slice size = [${slice.join(", ")}]`,
    );
  if (count === 0) return this.clone();
  return scope(() =>
    this.scatter(
      d,
      along(arange(lo, hi, step, { device: this.device }), d, s.shape),
      s,
    ),
  );
};

proto.diagonal_scatter = function (
  this: Tensor,
  src: Tensor,
  offset = 0,
  dim1 = 0,
  dim2 = 1,
) {
  const s = checkTensor("diagonal_scatter", "src", src);
  return scope(() => {
    const diag = this.diagonal(offset, dim1, dim2);
    if (s.ndim !== diag.ndim || s.shape.some((v, i) => v !== diag.shape[i]))
      throw new ShapeError(
        `expected src to have a size equal to the slice of self. src size = [${s.shape.join(", ")}], slice size = [${diag.shape.join(", ")}]`,
      );
    // Move the two dims last: [..., R, C]; the diagonal entry i sits at (i, i + k) for k >= 0
    // (scattered along the columns of the first L rows) or (i - k, i) for k < 0 (along the rows
    // of the first L columns).
    const d1 = wrapDim(dim1, this.ndim);
    const d2 = wrapDim(dim2, this.ndim);
    const x = this.movedim([d1, d2], [-2, -1]);
    const L = s.shape[s.ndim - 1]!;
    const batch = x.shape.slice(0, -2);
    const pos = arange(L, { device: this.device }).add(Math.abs(offset));
    let out: Tensor;
    if (offset >= 0) {
      const idx = pos.reshape(L, 1).expand([...batch, L, 1]);
      out = x.scatter(-1, idx, s.unsqueeze(-1));
    } else {
      const idx = pos.reshape(1, L).expand([...batch, 1, L]);
      out = x.scatter(-2, idx, s.unsqueeze(-2));
    }
    return out.movedim([-2, -1], [d1, d2]).contiguous();
  });
};
