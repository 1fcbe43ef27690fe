/**
 * Searching and sampling on the sort kernels: `searchsorted`/`bucketize` (the core's binary
 * search), `histc` (a scatter_add of bin counts), `randperm` (the argsort of uniform draws) and
 * `multinomial` (the inverted cumulative distribution, or Gumbel-top-k without replacement).
 *
 * @module
 */

import { checkInts } from "../args.js";
import { type DType, isFloatingPoint, scalarTypeName } from "../dtype.js";
import { args } from "../schema/index.js";
import { DTypeError, TorchError } from "../errors.js";
import { checkValues } from "./value_checks.js";
import { scope } from "../lifetime.js";
import { rand, tensor, zeros } from "./creation.js";
import { where } from "./conditional.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import type { SearchOptions } from "./sorting.js";
import "../tensor/methods/sorting.js"; // Tensor.argsort, cumsum, topk
import { histogramOf } from "../tensor/methods/searching.js";

function rightOf(
  fn: string,
  side: "left" | "right" | null,
  right: boolean,
): boolean {
  if (side !== null && right && side !== "right")
    throw new TorchError(
      `${fn}(): side and right can't be set to opposites, got side of ${side} while right was ${right}`,
    );
  return side === "right" || right;
}

/**
 * Insertion points of `values` into the innermost rows of `sorted_sequence` (1-D, or the same
 * leading dims as `values`) that keep them sorted: the first position whose element is `>= v`
 * (`> v` with `right`). int64 (int32 with `out_int32`).
 */
export function searchsorted(
  sorted_sequence: Tensor,
  values: Tensor | number,
  options?: SearchOptions,
): Tensor {
  const a = args("searchsorted", arguments);
  return search("searchsorted", a.sorted_sequence, a.values, a);
}

function search(
  fn: string,
  seq: Tensor,
  values: Tensor | number | boolean,
  o: {
    out_int32: boolean;
    right: boolean;
    side?: "left" | "right" | null;
    sorter?: Tensor | null;
  },
): Tensor {
  const right = rightOf(fn, o.side ?? null, o.right);
  return scope(() => {
    const v =
      values instanceof Tensor
        ? values
        : tensor(Number(values), { device: seq.device });
    const sorted = o.sorter == null ? seq : seq.gather(-1, o.sorter);
    const flat = v.ndim === 0 ? v.reshape(1) : v;
    const r = wrap(sorted._raw.searchsorted(flat._raw, right, o.out_int32));
    return v.ndim === 0 ? r.reshape([]) : r;
  });
}

/** The bucket of each element of `input` given 1-D ascending `boundaries`. */
export function bucketize(
  input: Tensor | number,
  boundaries: Tensor,
  options?: Pick<SearchOptions, "out_int32" | "right">,
): Tensor {
  const a = args("bucketize", arguments);
  const b = a.boundaries;
  if (b.ndim !== 1)
    throw new TorchError(
      `boundaries tensor must be 1 dimension, but got dim(${b.ndim})`,
    );
  return search("bucketize", b, a.input, a);
}

/**
 * A histogram of `bins` equal-width bins over `[min, max]` (the data's range when both are 0);
 * elements outside are ignored, `max` itself falls in the last bin.
 */
export function histc(
  input: Tensor,
  bins?: number,
  min?: number,
  max?: number,
): Tensor {
  ({ input, bins, min, max } = args("histc", arguments));
  const x = input;
  const nb = bins;
  if (nb! <= 0)
    throw new TorchError(
      `torch.histogram(): bins must be > 0, but got ${nb} for dimension 0`,
    );
  if (!isFloatingPoint(x.dtype))
    throw new DTypeError(
      `"histogram_cpu" not implemented for '${scalarTypeName(x.dtype)}'`,
    );
  if (min > max)
    throw new TorchError("torch.histc: max must be larger than min");
  return scope(() => {
    const v = x.reshape(-1);
    let lo: Tensor | number = min;
    let hi: Tensor | number = max;
    if (min === max && v.numel() > 0) {
      // PyTorch refuses a data range that is not finite (NaN or ±inf in the data), printing
      // both ends. With a NaN both ends are NaN (printed `-nan`): that message is PyTorch's. An
      // infinite end is printed with the other end, which is on the device here: that check
      // names the offending value instead. The range is computed from the second check's
      // tensor, itself computed from the first's, so on WebGPU a read of the result raises the
      // first failure in PyTorch's order.
      const nans = v.isnan().to("int32");
      checkValues(nans, 0, 0, {
        low: "torch.histc: range of [-nan, -nan] is not finite",
      });
      const finite = where(nans.gt(0), 0, v);
      const big =
        x.dtype === "float64" ? Number.MAX_VALUE : 3.4028234663852886e38;
      checkValues(finite, -big, big, {
        low: "torch.histc: range of the data is not finite (it holds {})",
      });
      lo = finite.amin();
      hi = finite.amax();
    }
    const loT = typeof lo === "number" ? tensor(lo, { device: x.device }) : lo;
    let hiT = typeof hi === "number" ? tensor(hi, { device: x.device }) : hi;
    // An empty range widens by 1 each side, as PyTorch does.
    const same = hiT.eq(loT);
    const loE = where(same, loT.sub(1), loT);
    hiT = where(same, hiT.add(1), hiT);
    const inside = v.ge(loE).logical_and(v.le(hiT));
    const bin = v
      .sub(loE)
      .mul(nb!)
      .div(hiT.sub(loE))
      .floor()
      .clamp(0, nb! - 1)
      .nan_to_num(0)
      .to("int64");
    const out = zeros(nb!, { device: x.device });
    return out.scatter_add(0, bin, inside.to("float32"));
  });
}

/** Options of {@link histogram}. */
export interface HistogramOptions {
  /** `[min, max]` of the bins when `bins` is a count (default: the data's range). */
  range?: readonly number[] | null;
  /** Each element's weight (same shape as `input`; default 1). */
  weight?: Tensor | null;
  /** Whether to scale the counts into a probability density over the bins. */
  density?: boolean;
}

/** PyTorch's `(hist, bin_edges)` named tuple of {@link histogram}. */
export type HistogramResult = [Tensor, Tensor] & {
  hist: Tensor;
  bin_edges: Tensor;
};

/**
 * PyTorch's `torch.histogram`: the counts (or summed `weight`s) of `input`'s elements in `bins`
 * equal bins over `range` (default: the data's min and max, widened by 0.5 each side when they
 * are equal), or in the bins between the ascending edges of a 1-D tensor `bins`. Each bin holds
 * its left edge; the last also its right one; elements outside the edges (and NaN) are not
 * counted. Returns `[hist, bin_edges]` (also `.hist`, `.bin_edges`), in `input`'s float dtype.
 */
export function histogram(
  input: Tensor,
  bins?: number | Tensor,
  options?: HistogramOptions,
): HistogramResult;
export function histogram(): HistogramResult {
  const a = args("histogram", arguments);
  return histogramOf(a.input, a.bins, a);
}

/** A random permutation of `0..n-1` (int64): the argsort of `n` uniform draws. */
export function randperm(
  n: number,
  options?: { dtype?: DType; device?: Tensor["device"] },
): Tensor {
  const a = args("randperm", arguments);
  const nn = a.n;
  if (nn < 0) throw new TorchError(`n must be non-negative, got${nn}`);
  return scope(() => {
    const device = (a.device ?? undefined) as Tensor["device"] | undefined;
    const r = rand(nn, { device }).argsort();
    return a.dtype === null ? r : r.to(a.dtype as DType);
  });
}

/**
 * `num_samples` draws of category indices from each row of non-negative weights `input` (1-D or
 * 2-D): with replacement by inverting the cumulative distribution, without by the Gumbel-top-k
 * trick. Draws come from the Philox stream (`manual_seed`), so they differ from PyTorch's.
 */
export function multinomial(
  input: Tensor,
  num_samples: number,
  replacement?: boolean,
): Tensor {
  ({ input, num_samples, replacement } = args("multinomial", arguments));
  const p = input;
  if (p.ndim < 1 || p.ndim > 2)
    throw new TorchError("prob_dist must be 1 or 2 dim");
  if (!isFloatingPoint(p.dtype))
    throw new TorchError(
      "multinomial only supports floating-point dtypes for input, got: " +
        scalarTypeName(p.dtype),
    );
  checkValues(p, 0, Number.MAX_VALUE, {
    low: "probability tensor contains either `inf`, `nan` or element < 0",
  });
  const [k] = checkInts("multinomial", "num_samples", [num_samples]);
  if (k! <= 0) throw new TorchError("cannot sample n_sample <= 0 samples");
  const n = p.shape[p.ndim - 1]!;
  if (!replacement && k! > n)
    throw new TorchError(
      "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
    );
  return scope(() => {
    const rows = p.ndim === 1 ? p.unsqueeze(0) : p;
    let r: Tensor;
    if (replacement) {
      const cdf = rows.cumsum(-1);
      const total = cdf.narrow(-1, n - 1, 1);
      const u = rand([rows.shape[0]!, k!], { device: p.device }).mul(total);
      r = searchsorted(cdf, u, { right: true }).clamp(null, n - 1);
    } else {
      // Gumbel-top-k: the k largest of log(p) - log(-log(u)) are a draw without replacement.
      const u = rand(rows.shape, { device: p.device }).clamp(1e-20, null);
      const g = rows.log().sub(u.log().neg().log());
      r = g.topk(k!, -1)[1];
    }
    return p.ndim === 1 ? r.squeeze(0) : r;
  });
}

/**
 * {@link multinomial} after reading the weights (torch.js's `multinomial_async`): PyTorch's value
 * errors are raised by the call itself — a weight that is inf, NaN or negative, or a row whose
 * weights sum to 0 ("invalid multinomial distribution (sum of probabilities <= 0)") — where
 * `multinomial`, which does not wait for the data, reports a bad weight at the next read. Resolves
 * the same draws as `multinomial` from the same generator state.
 */
export function multinomial_async(
  input: Tensor,
  num_samples: number,
  replacement?: boolean,
): Promise<Tensor> {
  return multinomialChecked(args("multinomial_async", arguments));
}

async function multinomialChecked(a: {
  input: Tensor;
  num_samples: number;
  replacement: boolean;
}): Promise<Tensor> {
  const p = a.input;
  // Bad shapes and dtypes, and an empty category dim, are multinomial's own errors.
  const n = p.shape[p.ndim - 1] ?? 0;
  if (p.ndim >= 1 && p.ndim <= 2 && isFloatingPoint(p.dtype) && n > 0) {
    const values = await p.toArray();
    for (let start = 0; start < values.length; start += n) {
      let sum = 0;
      for (let i = start; i < start + n; i++) {
        const v = Number(values[i]);
        if (!(v >= 0 && v < Infinity))
          throw new TorchError(
            "probability tensor contains either `inf`, `nan` or element < 0",
          );
        sum += v;
      }
      if (!(sum > 0))
        throw new TorchError(
          "invalid multinomial distribution (sum of probabilities <= 0)",
        );
    }
  }
  return multinomial(p, a.num_samples, a.replacement);
}
