/**
 * Scans, sorting and searching: `cumsum`, `cumprod`, `logcumsumexp`, `cummax`, `cummin`
 * (one GPU kernel each: a workgroup scans a row in chunks), `sort`/`argsort`/`msort` (a stable
 * bitonic sort; ties keep their order, NaN sorts above +∞), and what is built on them — `topk`,
 * `kthvalue`, `median`/`nanmedian`, `quantile`/`nanquantile`, `searchsorted`/`bucketize`,
 * `histc`, `randperm` and `multinomial`. Values of sorts and cumulative extremes are gathers of the
 * input at the kernels' indices, so they carry gradients.
 *
 * Ops whose output size depends on the values (`unique`, `bincount`, `nonzero`, `argwhere`,
 * `masked_select`) read the tensor back first and so return a `Promise` where PyTorch returns a
 * tensor.
 *
 * @module
 */

import { checkInts } from "./args.js";
import {
  type DType,
  dtypeCode,
  isFloatingPoint,
  scalarTypeName,
} from "./dtype.js";
import { TorchError } from "./errors.js";
import { scope } from "./lifetime.js";
import { rand, tensor, zeros } from "./creation.js";
import { broadcast_tensors } from "./shape_ops.js";
import { where } from "./conditional.js";
import { Tensor, checkTensor, wrap, wrapDim } from "./tensor.js";
import type { ValuesIndices } from "./reductions.js";
import { pair, valuesIndices } from "./tuples.js";

/** PyTorch's `(values, indices)` named tuple (the type `max(dim)` returns). */
export type SortResult = ValuesIndices;

const named = valuesIndices;
const pairOf = pair;

function dimArg(fn: string, dim: unknown): number {
  return checkInts(fn, "dim", [dim])[0]!;
}

/** Options of `cumsum`/`cumprod`. */
export interface CumulativeOptions {
  /** The dtype to accumulate in and return (default: the input's, integers widen to int64). */
  dtype?: DType;
}

/** Options of `sort`/`argsort`. */
export interface SortOptions {
  /** The dim to sort along. Default -1. */
  dim?: number;
  /** Largest first. Default false. */
  descending?: boolean;
  /** Accepted for PyTorch compatibility: webtorch's sort is always stable. */
  stable?: boolean;
}

/** Options of `topk`. */
export interface TopkOptions {
  /** The dim to select along. Default -1. */
  dim?: number;
  /** The largest (default) or the smallest `k`. */
  largest?: boolean;
  /** Accepted for PyTorch compatibility: results are always sorted. */
  sorted?: boolean;
}

/** Options of `searchsorted`/`bucketize`. */
export interface SearchOptions {
  /** Return int32 indices instead of int64. */
  out_int32?: boolean;
  /** The upper insertion point (first element `> v`) instead of the lower. */
  right?: boolean;
  /** `"left"` or `"right"`; must agree with `right` when both are given. */
  side?: "left" | "right";
  /** Indices that sort `sorted_sequence` along its last dim, when it is not sorted itself. */
  sorter?: Tensor;
}

/** Options of `quantile`/`nanquantile`. */
export interface QuantileOptions {
  /** The dim to reduce; all elements (flattened) when absent. */
  dim?: number | null;
  keepdim?: boolean;
  /** How to pick between the two nearest ranks. Default `"linear"`. */
  interpolation?: "linear" | "lower" | "higher" | "nearest" | "midpoint";
}

declare module "./tensor.js" {
  interface Tensor {
    /** Cumulative sum along `dim` (integers and bool accumulate in int64). */
    cumsum(dim: number, options?: CumulativeOptions): Tensor;
    /** Cumulative product along `dim` (integers and bool accumulate in int64). */
    cumprod(dim: number, options?: CumulativeOptions): Tensor;
    /** `log(cumsum(exp(x)))` along `dim`, computed stably. Floating point only. */
    logcumsumexp(dim: number): Tensor;
    /** Running maximum along `dim` and the index where it was reached. */
    cummax(dim: number): SortResult;
    /** Running minimum along `dim` and the index where it was reached. */
    cummin(dim: number): SortResult;
    /** Sorted values and the permutation, along `dim` (default -1). Stable. */
    sort(dim?: number, descending?: boolean): SortResult;
    sort(options: SortOptions): SortResult;
    /** The permutation that sorts along `dim` (default -1). Stable. */
    argsort(dim?: number, descending?: boolean): Tensor;
    argsort(options: SortOptions): Tensor;
    /** Sorted along dim 0. */
    msort(): Tensor;
    /** The `k` largest (or smallest) elements along `dim` and their indices, sorted. */
    topk(
      k: number,
      dim?: number,
      largest?: boolean,
      sorted?: boolean,
    ): SortResult;
    topk(k: number, options: TopkOptions): SortResult;
    /** The `k`-th smallest element (1-based) along `dim` (default -1) and its index. */
    kthvalue(k: number, dim?: number, keepdim?: boolean): SortResult;
    /** The lower median of all elements; NaN when any is NaN. */
    median(): Tensor;
    /** The lower median along `dim` and its index; NaN (at a NaN's index) when the row has one. */
    median(dim: number, keepdim?: boolean): SortResult;
    /** {@link Tensor.median} ignoring NaN. */
    nanmedian(): Tensor;
    nanmedian(dim: number, keepdim?: boolean): SortResult;
    /** The `q`-th quantiles (q in [0, 1], a number or a 1-D tensor). */
    quantile(q: number | Tensor, options?: QuantileOptions): Tensor;
    /** {@link Tensor.quantile} ignoring NaN. */
    nanquantile(q: number | Tensor, options?: QuantileOptions): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

function cumulative(
  fn: "cumsum" | "cumprod",
  t: Tensor,
  dim: number,
  options: CumulativeOptions = {},
): Tensor {
  const code = options.dtype === undefined ? -1 : dtypeCode(options.dtype);
  return wrap(t._raw[fn](dimArg(fn, dim), code));
}

proto.cumsum = function (this: Tensor, dim: number, o?: CumulativeOptions) {
  return cumulative("cumsum", this, dim, o);
};
proto.cumprod = function (this: Tensor, dim: number, o?: CumulativeOptions) {
  return cumulative("cumprod", this, dim, o);
};
proto.logcumsumexp = function (this: Tensor, dim: number) {
  return wrap(this._raw.logcumsumexp(dimArg("logcumsumexp", dim)));
};
proto.cummax = function (this: Tensor, dim: number) {
  return pairOf(this._raw.cummax(dimArg("cummax", dim)));
};
proto.cummin = function (this: Tensor, dim: number) {
  return pairOf(this._raw.cummin(dimArg("cummin", dim)));
};

function sortArgs(
  fn: string,
  a: number | SortOptions | undefined,
  descending: boolean | undefined,
): [number, boolean] {
  const o: SortOptions =
    typeof a === "object" && a !== null ? a : { dim: a, descending };
  return [dimArg(fn, o.dim ?? -1), Boolean(o.descending)];
}

proto.sort = function (
  this: Tensor,
  a?: number | SortOptions,
  descending?: boolean,
) {
  const [dim, desc] = sortArgs("sort", a, descending);
  return pairOf(this._raw.sort(dim, desc));
};
proto.argsort = function (
  this: Tensor,
  a?: number | SortOptions,
  descending?: boolean,
) {
  const [dim, desc] = sortArgs("argsort", a, descending);
  const [values, indices] = pairOf(this._raw.sort(dim, desc));
  values.dispose();
  return indices;
};
proto.msort = function (this: Tensor) {
  const [values, indices] = this.sort(0);
  indices.dispose();
  return values;
};

/** The size of `t` along `dim` (1 for a rank-0 tensor, as PyTorch's sort-based ops treat it). */
function sizeAlong(t: Tensor, dim: number): [number, number] {
  if (t.ndim === 0) {
    wrapDim(dim, 1);
    return [0, 1];
  }
  const d = wrapDim(dim, t.ndim);
  return [d, t.shape[d]!];
}

proto.topk = function (
  this: Tensor,
  k: number,
  a?: number | TopkOptions,
  largest?: boolean,
) {
  const o: TopkOptions =
    typeof a === "object" && a !== null ? a : { dim: a, largest };
  const [kk] = checkInts("topk", "k", [k]);
  const [d, n] = sizeAlong(this, o.dim ?? -1);
  if (kk! < 0 || kk! > n) throw new TorchError("selected index k out of range");
  return scope(() => {
    const [values, indices] = this.sort(d, o.largest ?? true);
    if (this.ndim === 0) return named(values, indices);
    return named(values.narrow(d, 0, kk!), indices.narrow(d, 0, kk!));
  });
};

/** Picks position `pos` (an int64 tensor broadcastable over the kept dims) of each sorted row. */
function pick(
  t: Tensor,
  d: number,
  pos: Tensor,
  descending: boolean,
  keepdim: boolean,
): SortResult {
  return scope(() => {
    const [, indices] = t.sort(d, descending);
    const at = indices.gather(d, pos);
    const values = t.gather(d, at);
    return keepdim
      ? named(values, at)
      : named(values.squeeze(d), at.squeeze(d));
  });
}

/** A position tensor of the kept shape (size 1 along `d`) filled with `p`. */
function positionsLike(t: Tensor, d: number, p: number): Tensor {
  const shape = [...t.shape];
  shape[d] = 1;
  return zeros(shape, { dtype: "int64", device: t.device }).add(p);
}

proto.kthvalue = function (this: Tensor, k: number, dim = -1, keepdim = false) {
  const [kk] = checkInts("kthvalue", "k", [k]);
  const [d, n] = sizeAlong(this, dim);
  if (kk! < 1 || kk! > n)
    throw new TorchError(
      `kthvalue(): selected number k out of range for dimension ${d}`,
    );
  if (this.ndim === 0)
    return named(
      this.clone(),
      zeros([], { dtype: "int64", device: this.device }),
    );
  return scope(() => {
    const pos = positionsLike(this, d, kk! - 1);
    return pick(this, d, pos, false, keepdim);
  });
};

/**
 * Median positions in each ascending-sorted row: NaNs sort last, so `nan` mode ignores them
 * (the lower median of the rest) and the propagating mode points at the first NaN.
 */
function medianAlong(
  t: Tensor,
  d: number,
  keepdim: boolean,
  ignoreNan: boolean,
): SortResult {
  return scope(() => {
    const n = t.shape[d]!;
    const nans = t.isnan().sum(d, true);
    const valid = nans.neg().add(n);
    const pos = ignoreNan
      ? valid.sub(1).clamp(0, null).div(2).floor()
      : where(nans.gt(0), valid, Math.floor((n - 1) / 2));
    return pick(t, d, pos.to("int64"), false, keepdim);
  });
}

function medianImpl(
  this: Tensor,
  ignoreNan: boolean,
  fn: string,
  dim?: number,
  keepdim = false,
): Tensor | SortResult {
  if (dim === undefined) {
    if (this.numel() === 0) {
      return zeros([], { device: this.device }).add(NaN).to(this.dtype);
    }
    return scope(() => medianAlong(this.reshape(-1), 0, false, ignoreNan)[0]);
  }
  const [d, n] = sizeAlong(this, dim);
  if (n === 0)
    throw new TorchError(`${fn}() cannot compute ${fn} for empty dimension`);
  if (this.ndim === 0)
    return named(
      this.clone(),
      zeros([], { dtype: "int64", device: this.device }),
    );
  return medianAlong(this, d, keepdim, ignoreNan);
}

proto.median = function (this: Tensor, dim?: number, keepdim?: boolean) {
  return medianImpl.call(this, false, "median", dim, keepdim);
};
proto.nanmedian = function (this: Tensor, dim?: number, keepdim?: boolean) {
  return medianImpl.call(this, true, "nanmedian", dim, keepdim);
};

function quantileImpl(
  t: Tensor,
  q: number | Tensor,
  options: QuantileOptions,
  ignoreNan: boolean,
): Tensor {
  const fn = ignoreNan ? "nanquantile" : "quantile";
  if (!isFloatingPoint(t.dtype))
    throw new TorchError(
      `${fn}() input tensor must be either float or double dtype`,
    );
  const scalarQ = typeof q === "number";
  if (scalarQ && (q < 0 || q > 1 || Number.isNaN(q)))
    // PyTorch names `quantile()` in this message for both functions.
    throw new TorchError(
      `quantile() q must be in the range [0, 1] but got ${q}`,
    );
  const interpolation = options.interpolation ?? "linear";
  if (
    !["linear", "lower", "higher", "nearest", "midpoint"].includes(
      interpolation,
    )
  )
    throw new TorchError(
      `${fn}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ${interpolation}`,
    );
  return scope(() => {
    const keepdim = options.keepdim ?? false;
    const dim = options.dim ?? null;
    let x = dim === null ? t.reshape(-1) : t;
    const d = dim === null ? 0 : wrapDim(dim, Math.max(t.ndim, 1));
    if (x.ndim === 0) x = x.reshape(1);
    const n = x.shape[d]!;
    if (n === 0) throw new TorchError(`${fn}() input tensor must be non-empty`);
    const qs = scalarQ
      ? tensor([q], { device: t.device })
      : checkTensor(fn, "q", q).reshape(-1);
    // Rows move last; sorted ascending, NaN last.
    const rows = x.movedim(d, -1);
    const sorted = rows.sort(-1)[0];
    const nans = rows.isnan().sum(-1, true);
    const valid = nans.neg().add(n).to("float32");
    const last = ignoreNan
      ? valid.sub(1).clamp(0, null)
      : valid.mul(0).add(n - 1);
    // rank = q * (last index); shapes [.., 1] x [Q] -> [.., Q].
    const rank = last.mul(qs);
    const lo = rank.floor();
    const hi = rank.ceil();
    const at = (r: Tensor) => sorted.gather(-1, r.to("int64"));
    let r: Tensor;
    switch (interpolation) {
      case "lower":
        r = at(lo);
        break;
      case "higher":
        r = at(hi);
        break;
      case "nearest":
        // Round half to even, as PyTorch's `round`.
        r = at(rank.round());
        break;
      case "midpoint":
        r = at(lo).add(at(hi)).div(2);
        break;
      default:
        r = at(lo).lerp(at(hi), rank.sub(lo));
    }
    // A row with a NaN gives NaN (quantile), or one of only NaNs (nanquantile).
    const bad = ignoreNan ? valid.eq(0) : nans.gt(0);
    r = where(bad, NaN, r);
    // [.., Q] -> [Q, ..] (q's dim first, as PyTorch), with the reduced dim kept or not.
    r = r.movedim(-1, 0);
    if (keepdim) {
      r =
        dim === null
          ? r.reshape([r.shape[0]!, ...t.shape.map(() => 1)])
          : r.unsqueeze(d + 1);
    }
    if (scalarQ) r = r.squeeze(0);
    return r;
  });
}

proto.quantile = function (this: Tensor, q: number | Tensor, o = {}) {
  return quantileImpl(this, q, o, false);
};
proto.nanquantile = function (this: Tensor, q: number | Tensor, o = {}) {
  return quantileImpl(this, q, o, true);
};

/** Cumulative sum along `dim`. See {@link Tensor.cumsum}. */
export function cumsum(
  input: Tensor,
  dim: number,
  options?: CumulativeOptions,
): Tensor {
  return checkTensor("cumsum", "input", input).cumsum(dim, options);
}

/** Cumulative product along `dim`. See {@link Tensor.cumprod}. */
export function cumprod(
  input: Tensor,
  dim: number,
  options?: CumulativeOptions,
): Tensor {
  return checkTensor("cumprod", "input", input).cumprod(dim, options);
}

/** `log(cumsum(exp(x)))` along `dim`. See {@link Tensor.logcumsumexp}. */
export function logcumsumexp(input: Tensor, dim: number): Tensor {
  return checkTensor("logcumsumexp", "input", input).logcumsumexp(dim);
}

/** Running maximum and its index. See {@link Tensor.cummax}. */
export function cummax(input: Tensor, dim: number): SortResult {
  return checkTensor("cummax", "input", input).cummax(dim);
}

/** Running minimum and its index. See {@link Tensor.cummin}. */
export function cummin(input: Tensor, dim: number): SortResult {
  return checkTensor("cummin", "input", input).cummin(dim);
}

/** Sorted values and permutation. See {@link Tensor.sort}. */
export function sort(
  input: Tensor,
  dim?: number | SortOptions,
  descending?: boolean,
): SortResult {
  const t = checkTensor("sort", "input", input);
  return typeof dim === "object" ? t.sort(dim) : t.sort(dim, descending);
}

/** The sorting permutation. See {@link Tensor.argsort}. */
export function argsort(
  input: Tensor,
  dim?: number | SortOptions,
  descending?: boolean,
): Tensor {
  const t = checkTensor("argsort", "input", input);
  return typeof dim === "object" ? t.argsort(dim) : t.argsort(dim, descending);
}

/** Sorted along dim 0. */
export function msort(input: Tensor): Tensor {
  return checkTensor("msort", "input", input).msort();
}

/** The `k` largest (or smallest) elements. See {@link Tensor.topk}. */
export function topk(
  input: Tensor,
  k: number,
  dim?: number | TopkOptions,
  largest?: boolean,
  sorted?: boolean,
): SortResult {
  const t = checkTensor("topk", "input", input);
  return typeof dim === "object"
    ? t.topk(k, dim)
    : t.topk(k, dim, largest, sorted);
}

/** The `k`-th smallest element. See {@link Tensor.kthvalue}. */
export function kthvalue(
  input: Tensor,
  k: number,
  dim?: number,
  keepdim?: boolean,
): SortResult {
  return checkTensor("kthvalue", "input", input).kthvalue(k, dim, keepdim);
}

/** The lower median. See {@link Tensor.median}. */
export function median(input: Tensor): Tensor;
export function median(
  input: Tensor,
  dim: number,
  keepdim?: boolean,
): SortResult;
export function median(
  input: Tensor,
  dim?: number,
  keepdim?: boolean,
): Tensor | SortResult {
  const t = checkTensor("median", "input", input);
  return dim === undefined ? t.median() : t.median(dim, keepdim);
}

/** The lower median ignoring NaN. See {@link Tensor.nanmedian}. */
export function nanmedian(input: Tensor): Tensor;
export function nanmedian(
  input: Tensor,
  dim: number,
  keepdim?: boolean,
): SortResult;
export function nanmedian(
  input: Tensor,
  dim?: number,
  keepdim?: boolean,
): Tensor | SortResult {
  const t = checkTensor("nanmedian", "input", input);
  return dim === undefined ? t.nanmedian() : t.nanmedian(dim, keepdim);
}

/** Quantiles. See {@link Tensor.quantile}. */
export function quantile(
  input: Tensor,
  q: number | Tensor,
  options?: QuantileOptions,
): Tensor {
  return checkTensor("quantile", "input", input).quantile(q, options);
}

/** Quantiles ignoring NaN. See {@link Tensor.nanquantile}. */
export function nanquantile(
  input: Tensor,
  q: number | Tensor,
  options?: QuantileOptions,
): Tensor {
  return checkTensor("nanquantile", "input", input).nanquantile(q, options);
}

function rightOf(fn: string, o: SearchOptions): boolean {
  if (o.side !== undefined && o.side !== "left" && o.side !== "right")
    throw new TorchError(
      `${fn}(): side can only be 'left' or 'right' but got ${String(o.side)}`,
    );
  if (
    o.side !== undefined &&
    o.right !== undefined &&
    (o.side === "right") !== o.right
  )
    throw new TorchError(
      `${fn}(): side and right can't be set to opposites, got side of ${o.side} while right was ${o.right}`,
    );
  return o.side === "right" || Boolean(o.right);
}

/**
 * Insertion points of `values` into the innermost rows of `sorted_sequence` (1-D, or the same
 * leading dims as `values`) that keep them sorted: the first position whose element is `>= v`
 * (`> v` with `right`). int64 (int32 with `out_int32`).
 */
export function searchsorted(
  sorted_sequence: Tensor,
  values: Tensor | number,
  options: SearchOptions = {},
): Tensor {
  const seq = checkTensor("searchsorted", "sorted_sequence", sorted_sequence);
  const right = rightOf("searchsorted", options);
  return scope(() => {
    const v =
      typeof values === "number"
        ? tensor(values, { device: seq.device })
        : checkTensor("searchsorted", "input", values);
    const sorted =
      options.sorter === undefined ? seq : seq.gather(-1, options.sorter);
    const flat = v.ndim === 0 ? v.reshape(1) : v;
    const r = wrap(
      sorted._raw.searchsorted(flat._raw, right, Boolean(options.out_int32)),
    );
    return v.ndim === 0 ? r.reshape([]) : r;
  });
}

/** The bucket of each element of `input` given 1-D ascending `boundaries`. */
export function bucketize(
  input: Tensor | number,
  boundaries: Tensor,
  options: Pick<SearchOptions, "out_int32" | "right"> = {},
): Tensor {
  const b = checkTensor("bucketize", "boundaries", boundaries);
  if (b.ndim !== 1)
    throw new TorchError(
      `boundaries tensor must be 1 dimension, but got dim(${b.ndim})`,
    );
  return searchsorted(b, input, options);
}

/**
 * A histogram of `bins` equal-width bins over `[min, max]` (the data's range when both are 0);
 * elements outside are ignored, `max` itself falls in the last bin.
 */
export function histc(input: Tensor, bins = 100, min = 0, max = 0): Tensor {
  const x = checkTensor("histc", "input", input);
  const [nb] = checkInts("histc", "bins", [bins]);
  if (nb! <= 0)
    throw new TorchError(
      `torch.histogram(): bins must be > 0, but got ${nb} for dimension 0`,
    );
  if (!isFloatingPoint(x.dtype))
    throw new TorchError(`"histogram_cpu" not implemented for '${x.dtype}'`);
  if (min > max) throw new TorchError("max must be larger than min");
  return scope(() => {
    const v = x.reshape(-1);
    let lo: Tensor | number = min;
    let hi: Tensor | number = max;
    if (min === max && v.numel() > 0) {
      lo = v.amin();
      hi = v.amax();
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

/** A random permutation of `0..n-1` (int64): the argsort of `n` uniform draws. */
export function randperm(
  n: number,
  options: { dtype?: DType; device?: Tensor["device"] } = {},
): Tensor {
  const [nn] = checkInts("randperm", "n", [n]);
  if (nn! < 0) throw new TorchError(`n must be non-negative, got${nn}`);
  return scope(() => {
    const r = rand(nn!, { device: options.device }).argsort();
    return options.dtype === undefined ? r : r.to(options.dtype);
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
  replacement = false,
): Tensor {
  const p = checkTensor("multinomial", "input", input);
  if (p.ndim < 1 || p.ndim > 2)
    throw new TorchError("prob_dist must be 1 or 2 dim");
  if (!isFloatingPoint(p.dtype))
    throw new TorchError(
      "multinomial only supports floating-point dtypes for input, got: " +
        scalarTypeName(p.dtype),
    );
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

/** Options of `unique`. */
export interface UniqueOptions {
  /** Accepted for PyTorch compatibility: results are always sorted. */
  sorted?: boolean;
  /** Also return, for each input element, the index of its value in the output. */
  return_inverse?: boolean;
  /** Also return how often each value occurs. */
  return_counts?: boolean;
  /** Unique slices along `dim` instead of elements (not supported yet: throws). */
  dim?: number;
}

/**
 * The sorted distinct values of `input` (flattened), with optional inverse indices and counts.
 * The output size depends on the values, so this reads the tensor back: a `Promise`.
 */
export async function unique(
  input: Tensor,
  options: UniqueOptions = {},
): Promise<Tensor | Tensor[]> {
  const x = checkTensor("unique", "input", input);
  if (options.dim !== undefined)
    throw new TorchError("unique(dim=...) is not supported by webtorch yet");
  const data = Array.from(await x.toArray(), Number);
  const order = data
    .map((_, i) => i)
    .sort((a, b) => cmpNan(data[a]!, data[b]!));
  const values: number[] = [];
  const counts: number[] = [];
  const inverse = new Array<number>(data.length);
  for (const i of order) {
    const v = data[i]!;
    const last = values[values.length - 1];
    // NaN !== NaN: every NaN is its own value, as in PyTorch.
    if (values.length === 0 || last !== v) {
      values.push(v);
      counts.push(0);
    }
    counts[counts.length - 1]! += 1;
    inverse[i] = values.length - 1;
  }
  const device = x.device;
  const out: Tensor[] = [tensor(values, { dtype: x.dtype, device })];
  if (options.return_inverse)
    out.push(tensor(inverse, { dtype: "int64", device }).reshape(x.shape));
  if (options.return_counts)
    out.push(tensor(counts, { dtype: "int64", device }));
  return out.length === 1 ? out[0]! : out;
}

/** Ascending with NaN last (each NaN distinct, as PyTorch's unique keeps every NaN). */
function cmpNan(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a - b;
}

/**
 * How often each non-negative integer occurs in 1-D `input` (weighted by `weights`), over at
 * least `minlength` bins. Reads the tensor back (the size is its maximum + 1): a `Promise`.
 */
export async function bincount(
  input: Tensor,
  weights: Tensor | null = null,
  minlength = 0,
): Promise<Tensor> {
  const x = checkTensor("bincount", "input", input);
  if (x.ndim !== 1)
    throw new TorchError(
      "bincount only supports 1-d non-negative integral inputs.",
    );
  if (isFloatingPoint(x.dtype) || x.dtype === "bool")
    throw new TorchError(
      `"bincount_cpu" not implemented for '${x.dtype === "bool" ? "Bool" : "Float"}'`,
    );
  const data = Array.from(await x.toArray(), Number);
  if (data.some((v) => v < 0))
    throw new TorchError(
      "bincount only supports 1-d non-negative integral inputs.",
    );
  const size = Math.max(
    minlength,
    data.length === 0 ? 0 : Math.max(...data) + 1,
  );
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
export async function nonzero(
  input: Tensor,
  options: { as_tuple?: boolean } = {},
): Promise<Tensor | Tensor[]> {
  const x = checkTensor("nonzero", "input", input);
  const data = await x.toArray();
  const shape = x.shape;
  const coords: number[][] = shape.map(() => []);
  const strides = shape.map((_, d) =>
    shape.slice(d + 1).reduce((a, b) => a * b, 1),
  );
  for (let i = 0; i < data.length; i++) {
    if (data[i] === 0) continue;
    strides.forEach((s, d) => coords[d]!.push(Math.floor(i / s) % shape[d]!));
  }
  let count = 0;
  for (const v of data) if (v !== 0) count++;
  const device = x.device;
  if (options.as_tuple) {
    if (x.ndim === 0)
      return [tensor(data[0] !== 0 ? [0] : [], { dtype: "int64", device })];
    return coords.map((c) => tensor(c, { dtype: "int64", device }));
  }
  const flat: number[] = [];
  for (let r = 0; r < count; r++) coords.forEach((c) => flat.push(c[r]!));
  return tensor(flat, { dtype: "int64", device }).reshape([count, x.ndim]);
}

/** {@link nonzero} as a `[n, ndim]` tensor. */
export async function argwhere(input: Tensor): Promise<Tensor> {
  return (await nonzero(input)) as Tensor;
}

/**
 * The elements of `input` where `mask` (broadcast together) is true, as a 1-D tensor; it
 * carries gradients to `input`. Reads the mask back: a `Promise`.
 */
export async function masked_select(
  input: Tensor,
  mask: Tensor,
): Promise<Tensor> {
  const x = checkTensor("masked_select", "input", input);
  const m = checkTensor("masked_select", "mask", mask);
  if (m.dtype !== "bool")
    throw new TorchError(`masked_select: expected BoolTensor for mask`);
  const [xb, mb] = broadcast_tensors(x, m) as [Tensor, Tensor];
  const idx = (await nonzero(mb.reshape(-1), { as_tuple: true })) as Tensor[];
  return scope(() => xb.reshape(-1).index_select(0, idx[0]!));
}
