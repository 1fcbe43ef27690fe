/**
 * The scan and sorting `Tensor` methods (`cumsum`, `cumprod`, `logcumsumexp`, `cummax`, `cummin`,
 * `sort`/`argsort`/`msort`, `topk`, `kthvalue`, `median`/`nanmedian`, `quantile`/`nanquantile`):
 * declared on `Tensor` and installed on its prototype; the `torch.*` functions are in
 * ops/sorting.ts.
 *
 * @module
 */

import { type Args, methodArgs } from "../../schema/index.js";
import { dtypeCode, isFloatingPoint } from "../../dtype.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { tensor, zeros } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { Tensor, wrap, wrapDim } from "../tensor.js";
import type {
  CumulativeOptions,
  QuantileOptions,
  SortOptions,
  SortResult,
  TopkOptions,
} from "../../ops/sorting.js";
import { pair, valuesIndices } from "../tuples.js";

const named = valuesIndices;
const pairOf = pair;

declare module "../tensor.js" {
  interface Tensor {
    /** Cumulative sum along `dim` (integers and bool accumulate in int64). */
    cumsum(dim: number, options?: CumulativeOptions): Tensor;
    cumsum(options: CumulativeOptions & { dim: number }): Tensor;
    /** Cumulative product along `dim` (integers and bool accumulate in int64). */
    cumprod(dim: number, options?: CumulativeOptions): Tensor;
    cumprod(options: CumulativeOptions & { dim: number }): Tensor;
    /** `log(cumsum(exp(x)))` along `dim`, computed stably. Floating point only. */
    logcumsumexp(dim: number): Tensor;
    /** Running maximum along `dim` and the index where it was reached. */
    cummax(dim: number): SortResult;
    /** Running minimum along `dim` and the index where it was reached. */
    cummin(dim: number): SortResult;
    /** Sorted values and the permutation, along `dim` (default -1). Stable. */
    sort(
      dim?: number,
      descending?: boolean,
      options?: { stable?: boolean },
    ): SortResult;
    sort(options: SortOptions): SortResult;
    /** The permutation that sorts along `dim` (default -1). Stable. */
    argsort(
      dim?: number,
      descending?: boolean,
      options?: { stable?: boolean },
    ): Tensor;
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
    kthvalue(
      k: number,
      options: { dim?: number; keepdim?: boolean },
    ): SortResult;
    /** The lower median of all elements; NaN when any is NaN. */
    median(): Tensor;
    /** The lower median along `dim` and its index; NaN (at a NaN's index) when the row has one. */
    median(dim: number, keepdim?: boolean): SortResult;
    median(options: { dim: number; keepdim?: boolean }): SortResult;
    /** {@link Tensor.median} ignoring NaN. */
    nanmedian(): Tensor;
    nanmedian(dim: number, keepdim?: boolean): SortResult;
    nanmedian(options: { dim: number; keepdim?: boolean }): SortResult;
    /** The `q`-th quantiles (q in [0, 1], a number or a 1-D tensor). */
    quantile(q: number | Tensor, options?: QuantileOptions): Tensor;
    quantile(
      q: number | Tensor,
      dim?: number | null,
      keepdim?: boolean,
      options?: QuantileOptions,
    ): Tensor;
    /** {@link Tensor.quantile} ignoring NaN. */
    nanquantile(q: number | Tensor, options?: QuantileOptions): Tensor;
    nanquantile(
      q: number | Tensor,
      dim?: number | null,
      keepdim?: boolean,
      options?: QuantileOptions,
    ): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

export function cumulative(
  fn: "cumsum" | "cumprod",
  a: Args["cumsum"],
): Tensor {
  const code = a.dtype === null ? -1 : dtypeCode(a.dtype);
  return wrap(a.input._raw[fn](a.dim, code));
}

proto.cumsum = function (this: Tensor) {
  return cumulative("cumsum", methodArgs("cumsum", this, arguments));
};
proto.cumprod = function (this: Tensor) {
  return cumulative("cumprod", methodArgs("cumprod", this, arguments));
};
proto.logcumsumexp = function (this: Tensor) {
  const { dim } = methodArgs("logcumsumexp", this, arguments);
  return wrap(this._raw.logcumsumexp(dim));
};
proto.cummax = function (this: Tensor) {
  const { dim } = methodArgs("cummax", this, arguments);
  return pairOf(this._raw.cummax(dim));
};
proto.cummin = function (this: Tensor) {
  const { dim } = methodArgs("cummin", this, arguments);
  return pairOf(this._raw.cummin(dim));
};

// webtorch's sort is always stable, which `stable: false` (any order of ties) also admits.
export function sortImpl(a: Args["sort"]): SortResult {
  return pairOf(a.input._raw.sort(a.dim, a.descending));
}
export function argsortImpl(a: Args["argsort"]): Tensor {
  const [values, indices] = sortImpl(a);
  values.dispose();
  return indices;
}

proto.sort = function (this: Tensor) {
  return sortImpl(methodArgs("sort", this, arguments));
};
proto.argsort = function (this: Tensor) {
  return argsortImpl(methodArgs("argsort", this, arguments));
};
proto.msort = function (this: Tensor) {
  methodArgs("msort", this, arguments);
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

// Results are always sorted, which `sorted: false` (any order) also admits.
export function topkImpl(a: Args["topk"]): SortResult {
  const { input, k } = a;
  if (input.dtype === "bool")
    throw new DTypeError("topk does not support bool dtypes on CPU");
  const [d, n] = sizeAlong(input, a.dim);
  if (k < 0 || k > n) throw new TorchError("selected index k out of range");
  return scope(() => {
    const [values, indices] = input.sort(d, a.largest);
    if (input.ndim === 0) return named(values, indices);
    return named(values.narrow(d, 0, k), indices.narrow(d, 0, k));
  });
}
proto.topk = function (this: Tensor) {
  return topkImpl(methodArgs("topk", this, arguments));
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

export function kthvalueImpl(a: Args["kthvalue"]): SortResult {
  const { input, k, keepdim } = a;
  if (input.dtype === "bool")
    throw new DTypeError(`"kthvalue_cpu" not implemented for 'Bool'`);
  const [d, n] = sizeAlong(input, a.dim);
  if (k < 1 || k > n)
    throw new TorchError(
      `kthvalue(): selected number k out of range for dimension ${d}`,
    );
  if (input.ndim === 0)
    return named(
      input.clone(),
      zeros([], { dtype: "int64", device: input.device }),
    );
  // PyTorch's CPU quickselect, so that among equal values the index is the one it returns.
  return pairOf(input._raw.kthvalue(k, d, keepdim));
}
proto.kthvalue = function (this: Tensor) {
  return kthvalueImpl(methodArgs("kthvalue", this, arguments));
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

export function medianImpl(
  a: Args["median"],
  ignoreNan: boolean,
  fn: string,
): Tensor | SortResult {
  const { input, dim, keepdim } = a;
  if (input.dtype === "bool")
    throw new DTypeError(
      `"${dim === null ? "median_cpu" : "median_out"}" not implemented for 'Bool'`,
    );
  if (dim === null) {
    if (input.numel() === 0) {
      return zeros([], { device: input.device }).add(NaN).to(input.dtype);
    }
    return scope(() => medianAlong(input.reshape(-1), 0, false, ignoreNan)[0]);
  }
  const [d, n] = sizeAlong(input, dim);
  if (n === 0)
    throw new TorchError(`${fn}() cannot compute ${fn} for empty dimension`);
  if (input.ndim === 0)
    return named(
      input.clone(),
      zeros([], { dtype: "int64", device: input.device }),
    );
  return medianAlong(input, d, keepdim, ignoreNan);
}

proto.median = function (this: Tensor) {
  return medianImpl(methodArgs("median", this, arguments), false, "median");
};
proto.nanmedian = function (this: Tensor) {
  return medianImpl(
    methodArgs("nanmedian", this, arguments),
    true,
    "nanmedian",
  );
};

export function quantileImpl(a: Args["quantile"], ignoreNan: boolean): Tensor {
  const { input: t, q, interpolation } = a;
  // PyTorch's nanquantile shares quantile's checks and their wording.
  if (!isFloatingPoint(t.dtype))
    throw new DTypeError(
      "quantile() input tensor must be either float or double dtype",
    );
  const scalarQ = typeof q === "number";
  if (scalarQ && (q < 0 || q > 1 || Number.isNaN(q)))
    // PyTorch names `quantile()` in this message for both functions.
    throw new TorchError(
      `quantile() q must be in the range [0, 1] but got ${q}`,
    );
  return scope(() => {
    const { keepdim, dim } = a;
    let x = dim === null ? t.reshape(-1) : t;
    const d = dim === null ? 0 : wrapDim(dim, Math.max(t.ndim, 1));
    if (x.ndim === 0) x = x.reshape(1);
    const n = x.shape[d]!;
    if (n === 0)
      throw new TorchError("quantile() input tensor must be non-empty");
    // Ranks in float64 for float64 input (a float32 rank is 1e-8 off), else in float32.
    const wide = t.dtype === "float64" ? "float64" : "float32";
    const qs =
      typeof q === "number"
        ? tensor([q], { dtype: wide, device: t.device })
        : q.reshape(-1);
    // Rows move last; sorted ascending, NaN last.
    const rows = x.movedim(d, -1);
    const sorted = rows.sort(-1)[0];
    const nans = rows.isnan().sum(-1, true);
    const valid = nans.neg().add(n).to(wide);
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
        // lerp takes a weight of the values' dtype.
        r = at(lo).lerp(at(hi), rank.sub(lo).to(sorted.dtype));
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

proto.quantile = function (this: Tensor) {
  return quantileImpl(methodArgs("quantile", this, arguments), false);
};
proto.nanquantile = function (this: Tensor) {
  return quantileImpl(methodArgs("nanquantile", this, arguments), true);
};
