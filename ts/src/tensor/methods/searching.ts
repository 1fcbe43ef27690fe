/**
 * The `Tensor` methods of the ops in ops/searching.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/searching.ts.
 *
 * @module
 */

import { scalarTypeName } from "../../dtype.js";
import { methodArgs } from "../../schema/index.js";
import {
  ArgumentError,
  DTypeError,
  ShapeError,
  TorchError,
} from "../../errors.js";
import { checkValues } from "../../ops/value_checks.js";
import { scope } from "../../lifetime.js";
import { arange, tensor, zeros } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { Tensor } from "../tensor.js";
import { stack } from "../../ops/indexing.js";
import "./sorting.js";
import {
  searchsorted,
  type HistogramOptions,
  type HistogramResult,
  histogram,
} from "../../ops/searching.js";

declare module "../tensor.js" {
  interface Tensor {
    /** {@link histogram} of this tensor. */
    histogram(
      bins?: number | Tensor,
      options?: HistogramOptions,
    ): HistogramResult;
  }
}

export function histogramOf(
  x: Tensor,
  bins: number | Tensor,
  o: {
    range: readonly number[] | null;
    weight: Tensor | null;
    density: boolean;
  },
): HistogramResult {
  const fn = "torch.histogramdd";
  if (!(x.dtype === "float32" || x.dtype === "float64"))
    throw new DTypeError(
      `"histogramdd" not implemented for '${scalarTypeName(x.dtype)}'`,
    );
  const w = o.weight;
  if (w !== null && w.shape.join() !== x.shape.join())
    throw new ShapeError(
      `${fn}: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got input with shape [${x.numel()}, 1] and weight with shape [${w.shape.join(", ")}]`,
    );
  if (w !== null && w.dtype !== x.dtype)
    throw new DTypeError(
      `${fn}: if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got input(${scalarTypeName(x.dtype).toLowerCase()}), and weight(${scalarTypeName(w.dtype).toLowerCase()})`,
    );
  let count = 0;
  if (bins instanceof Tensor) {
    if (bins.ndim !== 1)
      throw new TorchError(
        `${fn}: bins tensor should have one dimension, but got ${bins.ndim} dimensions in the bins tensor for dimension 0`,
      );
    count = bins.numel() - 1;
    if (count <= 0)
      throw new TorchError(
        `torch.histogram(): bins must be > 0, but got ${count} for dimension 0`,
      );
    if (bins.dtype !== x.dtype)
      throw new TorchError(
        `${fn}: input tensor and bins tensors should have the same dtype, but got input with dtype ${scalarTypeName(x.dtype).toLowerCase()} and bins for dimension 0 with dtype ${scalarTypeName(bins.dtype).toLowerCase()}`,
      );
  } else {
    count = bins;
    if (count <= 0)
      throw new TorchError(
        `torch.histogram(): bins must be > 0, but got ${count} for dimension 0`,
      );
  }
  const range = o.range;
  if (range !== null && range.length !== 2)
    throw new TorchError(
      `${fn}: for a 1-dimensional histogram range should have 2 elements, but got ${range.length}`,
    );
  // PyTorch's overload with bin edges has no range.
  if (range !== null && bins instanceof Tensor)
    throw new ArgumentError(
      "histogram() received an invalid combination of arguments - got (Tensor, Tensor, range=tuple), but expected one of: (Tensor input, Tensor bins, *, Tensor weight, bool density) or (Tensor input, int bins, *, tuple of floats range, Tensor weight, bool density)",
    );
  if (range !== null && !(bins instanceof Tensor)) {
    const [lo, hi] = range as [number, number];
    if (!Number.isFinite(lo) || !Number.isFinite(hi))
      throw new TorchError(
        `${fn}: dimension 0's range [${pyNumber(lo)}, ${pyNumber(hi)}] is not finite`,
      );
    if (lo > hi)
      throw new TorchError(
        `${fn}: min should not exceed max, but got min ${pyNumber(lo)} max ${pyNumber(hi)} for dimension 0`,
      );
  }
  const device = x.device;
  const out = scope(() => {
    const v = x.reshape(-1);
    let edges: Tensor;
    if (bins instanceof Tensor) edges = bins.clone();
    else {
      // The outer edges, as tensors of the input's dtype: the range given, the data's (an empty
      // input's is [0, 1]), an empty range widened by 0.5 each side (NumPy's rule).
      let lo: Tensor, hi: Tensor;
      if (range !== null) {
        let [l, h] = range as [number, number];
        if (l === h) [l, h] = [l - 0.5, h + 0.5];
        lo = tensor(l, { dtype: x.dtype, device });
        hi = tensor(h, { dtype: x.dtype, device });
      } else if (v.numel() === 0) {
        lo = tensor(0, { dtype: x.dtype, device });
        hi = tensor(1, { dtype: x.dtype, device });
      } else {
        // The data's ends, checked finite: NaN data makes both NaN (PyTorch's message); an
        // infinite end is reported without the other (it is on the device). On WebGPU the check
        // is raised by the first read of what the edges make.
        const found = stack([v.amin(), v.amax()]);
        const ends = where(found.isinf(), Infinity, found);
        checkValues(ends, -MAX, MAX, {
          low: `${fn}: dimension 0's range [nan, nan] is not finite`,
          high: `${fn}: dimension 0's range is not finite (an end is infinite)`,
        });
        const same = ends.select(0, 0).eq(ends.select(0, 1));
        lo = where(same, ends.select(0, 0).sub(0.5), ends.select(0, 0));
        hi = where(same, ends.select(0, 1).add(0.5), ends.select(0, 1));
      }
      // PyTorch's linspace: the first half counted up from `lo`, the rest down from `hi`.
      const i = arange(count + 1, { dtype: x.dtype, device });
      const step = hi.sub(lo).div(count);
      edges = where(
        i.lt(Math.floor((count + 1) / 2)),
        lo.add(i.mul(step)),
        hi.sub(i.neg().add(count).mul(step)),
      );
    }
    const first = edges.select(0, 0);
    const last = edges.select(0, count);
    const inside = v.ge(first).logical_and(v.le(last));
    // The bin: the last edge <= the value (the last bin also holds its right edge).
    const upper =
      x.dtype === "float64"
        ? v.unsqueeze(1).ge(edges).sum(1)
        : searchsorted(edges, v, { right: true });
    const bin = upper.sub(1).clamp(0, count - 1);
    const ones = w === null ? inside.to(x.dtype) : w.reshape(-1).mul(inside);
    let hist = zeros(count, { dtype: x.dtype, device }).scatter_add(
      0,
      bin,
      ones,
    );
    if (o.density) hist = hist.div(hist.sum()).div(edges.diff());
    return [hist, edges] as [Tensor, Tensor];
  });
  const [hist, bin_edges] = out;
  return Object.assign(out, { hist, bin_edges });
}

const MAX = Number.MAX_VALUE;

/** A JS number as Python prints a float in PyTorch's messages (`2`, `inf`, `nan`). */
function pyNumber(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}

const histogramProto = Tensor.prototype as unknown as {
  histogram: (this: Tensor, ...a: unknown[]) => HistogramResult;
};

histogramProto.histogram = function (this: Tensor) {
  const a = methodArgs("histogram", this, arguments);
  return histogramOf(this, a.bins, a);
};
