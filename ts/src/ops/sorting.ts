/**
 * Scans and sorting: `cumsum`, `cumprod`, `logcumsumexp`, `cummax`, `cummin` (one GPU kernel
 * each: a workgroup scans a row in chunks), `sort`/`argsort`/`msort` (a stable bitonic sort; ties
 * keep their order, NaN sorts above +∞), and what is built on them — `topk`, `kthvalue`,
 * `median`/`nanmedian`, `quantile`/`nanquantile`. Values of sorts and cumulative extremes are
 * gathers of the input at the kernels' indices, so they carry gradients. Searching and sampling
 * are in searching.ts; ops whose output size depends on the values (`unique`, …) in unique.ts.
 *
 * @module
 */

import { checkInts } from "../args.js";
import { type DType, dtypeCode, isFloatingPoint } from "../dtype.js";
import { TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { tensor, zeros } from "./creation.js";
import { where } from "./conditional.js";
import { Tensor, checkTensor, wrap, wrapDim } from "../tensor/tensor.js";
import type { ValuesIndices } from "./reductions.js";
import { pair, valuesIndices } from "../tensor/tuples.js";

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
  /** Keep the reduced dim with size 1 (default false). */
  keepdim?: boolean;
  /** How to pick between the two nearest ranks. Default `"linear"`. */
  interpolation?: "linear" | "lower" | "higher" | "nearest" | "midpoint";
}

declare module "../tensor/tensor.js" {
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
