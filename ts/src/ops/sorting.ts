/**
 * Scans and sorting: `cumsum`, `cumprod`, `logcumsumexp`, `cummax`, `cummin` (one GPU kernel
 * each: a workgroup scans a row in chunks), `sort`/`argsort`/`msort` (a stable bitonic sort; ties
 * keep their order, NaN sorts above +∞), and what is built on them — `topk`, `kthvalue`,
 * `median`/`nanmedian`, `quantile`/`nanquantile`. Values of sorts and cumulative extremes are
 * gathers of the input at the kernels' indices, so they carry gradients. Searching and sampling
 * are in searching.ts; ops whose output size depends on the values (`unique`, …) in unique.ts.
 * The `Tensor` methods are in tensor/methods/sorting.ts.
 *
 * @module
 */

import { args } from "../schema/index.js";
import type { DType } from "../dtype.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import type { ValuesIndices } from "./reductions.js";
import { pair } from "../tensor/tuples.js";
import {
  argsortImpl,
  cumulative,
  kthvalueImpl,
  medianImpl,
  quantileImpl,
  sortImpl,
  topkImpl,
} from "../tensor/methods/sorting.js";

/** PyTorch's `(values, indices)` named tuple (the type `max(dim)` returns). */
export type SortResult = ValuesIndices;

const pairOf = pair;

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

/** Cumulative sum along `dim`. See {@link Tensor.cumsum}. */
export function cumsum(
  input: Tensor,
  dim: number,
  options?: CumulativeOptions,
): Tensor {
  return cumulative("cumsum", args("cumsum", arguments));
}

/** Cumulative product along `dim`. See {@link Tensor.cumprod}. */
export function cumprod(
  input: Tensor,
  dim: number,
  options?: CumulativeOptions,
): Tensor {
  return cumulative("cumprod", args("cumprod", arguments));
}

/** `log(cumsum(exp(x)))` along `dim`. See {@link Tensor.logcumsumexp}. */
export function logcumsumexp(input: Tensor, dim: number): Tensor {
  ({ input, dim } = args("logcumsumexp", arguments));
  return wrap(input._raw.logcumsumexp(dim));
}

/** Running maximum and its index. See {@link Tensor.cummax}. */
export function cummax(input: Tensor, dim: number): SortResult {
  ({ input, dim } = args("cummax", arguments));
  return pairOf(input._raw.cummax(dim));
}

/** Running minimum and its index. See {@link Tensor.cummin}. */
export function cummin(input: Tensor, dim: number): SortResult {
  ({ input, dim } = args("cummin", arguments));
  return pairOf(input._raw.cummin(dim));
}

/** Sorted values and permutation. See {@link Tensor.sort}. */
export function sort(
  input: Tensor,
  dim?: number,
  descending?: boolean,
  options?: { stable?: boolean },
): SortResult;
export function sort(input: Tensor, options: SortOptions): SortResult;
export function sort(): SortResult {
  return sortImpl(args("sort", arguments));
}

/** The sorting permutation. See {@link Tensor.argsort}. */
export function argsort(
  input: Tensor,
  dim?: number,
  descending?: boolean,
  options?: { stable?: boolean },
): Tensor;
export function argsort(input: Tensor, options: SortOptions): Tensor;
export function argsort(): Tensor {
  return argsortImpl(args("argsort", arguments));
}

/** Sorted along dim 0. */
export function msort(input: Tensor): Tensor {
  ({ input } = args("msort", arguments));
  return input.msort();
}

/** The `k` largest (or smallest) elements. See {@link Tensor.topk}. */
export function topk(
  input: Tensor,
  k: number,
  dim?: number,
  largest?: boolean,
  sorted?: boolean,
): SortResult;
export function topk(
  input: Tensor,
  k: number,
  options: TopkOptions,
): SortResult;
export function topk(): SortResult {
  return topkImpl(args("topk", arguments));
}

/** The `k`-th smallest element. See {@link Tensor.kthvalue}. */
export function kthvalue(
  input: Tensor,
  k: number,
  dim?: number,
  keepdim?: boolean,
): SortResult {
  return kthvalueImpl(args("kthvalue", arguments));
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
  return medianImpl(args("median", arguments), false, "median");
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
  return medianImpl(args("nanmedian", arguments), true, "nanmedian");
}

/** Quantiles. See {@link Tensor.quantile}. */
export function quantile(
  input: Tensor,
  q: number | Tensor,
  options?: QuantileOptions,
): Tensor;
export function quantile(
  input: Tensor,
  q: number | Tensor,
  dim?: number | null,
  keepdim?: boolean,
  options?: QuantileOptions,
): Tensor;
export function quantile(): Tensor {
  return quantileImpl(args("quantile", arguments), false);
}

/** Quantiles ignoring NaN. See {@link Tensor.nanquantile}. */
export function nanquantile(
  input: Tensor,
  q: number | Tensor,
  options?: QuantileOptions,
): Tensor;
export function nanquantile(
  input: Tensor,
  q: number | Tensor,
  dim?: number | null,
  keepdim?: boolean,
  options?: QuantileOptions,
): Tensor;
export function nanquantile(): Tensor {
  return quantileImpl(args("nanquantile", arguments), true);
}
