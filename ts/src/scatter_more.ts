/**
 * `scatter_reduce` (sum, prod, mean, amax, amin; `include_self`), `mode`, and `torch.detach`.
 *
 * `sum`/`mean` are `scatter_add`s (atomic on the GPU). `prod`/`amax`/`amin` have no atomic form in
 * WGSL, so they compare every source element with every output slot along `dim` (a `[.., K, n]`
 * mask: O(K·n) memory per row — fine for the graph-sized inputs these ops see, stated here because
 * it is not PyTorch's cost). `mode` counts equal pairs the same way (O(n²) per row).
 *
 * @module
 */

import { TorchError } from "./errors.js";
import { scope } from "./lifetime.js";
import { arange } from "./creation.js";
import { where } from "./conditional.js";
import "./activations_more.js"; // Tensor.slice_scatter
import { Tensor, checkTensor, wrapDim } from "./tensor.js";
import { valuesIndices } from "./tuples.js";
import type { SortResult } from "./sorting.js";

/** The reductions of {@link scatter_reduce}. */
export type ScatterReduce = "sum" | "prod" | "mean" | "amax" | "amin";

declare module "./tensor.js" {
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
    /** The most frequent value along `dim` (the smallest on ties) and the last index where it occurs. */
    mode(dim?: number, keepdim?: boolean): SortResult;
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
  if (!["sum", "prod", "mean", "amax", "amin"].includes(reduce))
    throw new TorchError(
      `reduce argument must be either sum, prod, mean, amax or amin, got ${String(reduce)}`,
    );
  const includeSelf = options.include_self ?? true;
  const d = wrapDim(dim, Math.max(this.ndim, 1));
  return scope(() => {
    // Which output slots receive at least one source element.
    const ones = idx.mul(0).add(1).to(this.dtype);
    const hits = this.mul(0).scatter_add(d, idx, ones);
    const touched = hits.gt(0);
    if (reduce === "sum" || reduce === "mean") {
      const base = includeSelf ? this : where(touched, 0, this);
      const sum = base.scatter_add(d, idx, s.narrow(d, 0, idx.shape[d] ?? 1));
      if (reduce === "sum") return sum;
      const count = includeSelf ? hits.add(1) : where(touched, hits, 1);
      const mean = sum.div(count);
      return isFloat(this) ? mean : mean.floor().to(this.dtype);
    }
    // prod / amax / amin: every (slot k, source j) pair along d.
    const K = this.shape[d]!;
    const slots = arange(K, { dtype: "int64", device: this.device }).reshape(
      idx.shape.map((_, i) => (i === d ? K : 1)).concat([1]),
    );
    // [.., K, n] after moving d last: index and src as [..., 1, n].
    const idxL = idx.movedim(d, -1).unsqueeze(-2);
    const srcL = narrowTo(s.narrow(d, 0, idx.shape[d] ?? 1), idx.shape, d)
      .movedim(d, -1)
      .unsqueeze(-2);
    const match = idxL.eq(slots.movedim(d, -2));
    const fill =
      reduce === "prod" ? 1 : reduce === "amax" ? -Infinity : Infinity;
    const cand = where(
      match,
      srcL.to(isFloat(this) ? this.dtype : "float32"),
      fill,
    );
    let red =
      reduce === "prod"
        ? cand.prod(-1)
        : reduce === "amax"
          ? cand.amax(-1)
          : cand.amin(-1);
    // Back to the output's layout (slot axis at d), over the index's other extents.
    red = red.movedim(-1, d);
    const region = narrowTo(this, idx.shape, d);
    const self = region.to(red.dtype);
    let merged: Tensor;
    if (includeSelf)
      merged =
        reduce === "prod"
          ? red.mul(self)
          : reduce === "amax"
            ? red.maximum(self)
            : red.minimum(self);
    else merged = red;
    const regionTouched = narrowTo(touched, idx.shape, d);
    const out = where(regionTouched, merged, self).to(this.dtype);
    return writeRegion(this, out, idx.shape, d);
  });
};

function isFloat(t: Tensor): boolean {
  return t.is_floating_point();
}

/** `t` narrowed to `shape` in every dim but `d` (the index's extent). */
function narrowTo(t: Tensor, shape: readonly number[], d: number): Tensor {
  shape.forEach((n, i) => {
    if (i !== d && n !== t.shape[i]) t = t.narrow(i, 0, n);
  });
  return t;
}

/** `base` with its leading region (the index's extent, all of dim `d`) replaced by `v`. */
function writeRegion(
  base: Tensor,
  v: Tensor,
  shape: readonly number[],
  d: number,
): Tensor {
  if (shape.every((n, i) => i === d || n === base.shape[i])) return v;
  let out = v;
  // Widen one dim at a time with the base's values around the region.
  for (let i = 0; i < shape.length; i++) {
    if (i === d || shape[i] === base.shape[i]) continue;
    const around = narrowTo(
      base,
      out.shape.map((n, j) => (j === i ? base.shape[i]! : n)),
      d,
    );
    out = around.slice_scatter(out, i, 0, shape[i]!);
  }
  return out;
}

proto.mode = function (this: Tensor, dim = -1, keepdim = false) {
  if (this.ndim === 0) {
    wrapDim(dim, 1);
    return valuesIndices(this.clone(), this.mul(0).to("int64"));
  }
  const d = wrapDim(dim, this.ndim);
  const n = this.shape[d]!;
  if (n === 0)
    throw new TorchError(
      "mode(): Expected reduction dim 0 to have non-zero size.",
    );
  return scope(() => {
    const x = this.movedim(d, -1);
    const counts = x.unsqueeze(-1).eq(x.unsqueeze(-2)).sum(-1);
    const best = counts.amax(-1, true);
    const big = x.amax(-1, true);
    const value = where(counts.eq(best), x, big).amin(-1, true);
    const pos = arange(n, { dtype: "int64", device: this.device });
    const index = where(x.eq(value), pos, -1).amax(-1, true);
    // The value read at its index, so the gradient goes there (as PyTorch's mode backward).
    const v = x.gather(-1, index).movedim(-1, d);
    const i = index.movedim(-1, d);
    return keepdim
      ? valuesIndices(v, i)
      : valuesIndices(v.squeeze(d), i.squeeze(d));
  });
};

/** `input` with `src` reduced in at `index`. See {@link Tensor.scatter_reduce}. */
export function scatter_reduce(
  input: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
  reduce: ScatterReduce,
  options?: { include_self?: boolean },
): Tensor {
  return checkTensor("scatter_reduce", "input", input).scatter_reduce(
    dim,
    index,
    src,
    reduce,
    options,
  );
}

/** The most frequent value along `dim`. See {@link Tensor.mode}. */
export function mode(
  input: Tensor,
  dim?: number,
  keepdim?: boolean,
): SortResult {
  return checkTensor("mode", "input", input).mode(dim, keepdim);
}

/** `input.detach()`: the same values, cut from the autograd graph. */
export function detach(input: Tensor): Tensor {
  return checkTensor("detach", "input", input).detach();
}
