/**
 * Reductions beyond `sum`/`mean`: `prod`, `amax`/`amin`, `max`/`min` (all elements, or values +
 * indices along a dim), `argmax`/`argmin`, `all`/`any`, `count_nonzero`, `var`/`std`,
 * `logsumexp` and `norm` — as `torch.*` functions and `Tensor` methods (declared here, merged
 * into the `Tensor` interface and installed on its prototype). Each is one core call except `mode`
 * (the most frequent value), which counts equal pairs along the dim (O(n²) memory per row: fine
 * for the sizes it sees, stated here because it is not PyTorch's cost).
 *
 * @module
 */

import { pair, valuesIndices } from "../tensor/tuples.js";
import {
  type ReduceOptions,
  type Shape,
  checkDim,
  parseReduceArgs,
} from "../args.js";
import {
  type DTypeT,
  type FloatOf,
  type Promote,
  type ShapeT,
  Tensor,
  checkTensor,
  wrap,
  wrapDim,
} from "../tensor/tensor.js";
import { TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { arange } from "./creation.js";
import { where } from "./conditional.js";
import type { SortResult } from "./sorting.js";
import { binary } from "./op_rows.js";
import type { DType } from "../dtype.js";
import type {
  BroadcastShape,
  CheckBroadcast,
  CheckOf,
  Dims,
  KeepOf,
  Reduce,
  ReduceOf,
  ShapeOf,
} from "../shapes.js";
import type { DimArg } from "../shapes/reduce.js";

/**
 * `t.max(dim)` / `t.min(dim)`: PyTorch's named tuple, as a `[values, indices]` pair with names.
 * `S` is the shape of both (the reduced shape), `D` the values' dtype.
 */
export type ValuesIndices<
  S extends Dims = number[],
  D extends DType = DType,
> = [Tensor<S, D>, Tensor<S, "int64">] & {
  /** The extreme values along the dim. */
  readonly values: Tensor<S, D>;
  /** Their indices along the dim (int64; the first occurrence, NaN counting as the extreme). */
  readonly indices: Tensor<S, "int64">;
};

/** Options of `argmax`/`argmin`: one dim (the flattened tensor when absent). */
export interface ArgReduceOptions {
  /** The dim to reduce; absent: the index into the flattened tensor. */
  dim?: number;
  /** Keep the reduced dim (every dim, without `dim`) with size 1. Default `false`. */
  keepdim?: boolean;
}

/** Options of `var`/`std`. */
export interface VarOptions extends ReduceOptions {
  /** Divide by `N - correction` (default 1, Bessel's correction). */
  correction?: number;
  /** Legacy spelling: `true` is correction 1, `false` correction 0. */
  unbiased?: boolean;
}

/** Options of `norm`. */
export interface NormOptions extends ReduceOptions {
  /** The order: 2 (default), 1, `Infinity`, `-Infinity`, 0 (count of nonzeros) or any p. */
  p?: number | "fro";
}

/** The dtype of a reduction's result, by rule: `"keep"`, `"int64"`, `"float"`, `"prod"`, `"bool"`. */
export type ReducedDType<R extends string, D extends DType> = R extends "keep"
  ? D
  : R extends "int64"
    ? "int64"
    : R extends "float"
      ? FloatOf<D>
      : DType extends D
        ? DType
        : R extends "prod"
          ? D extends "float32"
            ? "float32"
            : "int64"
          : D extends "uint8"
            ? "uint8"
            : "bool";

/**
 * The overloads of a reduction over `dim` (all dims when absent), typed as `sum`'s are:
 * `t.fn()`, `t.fn(dim)`, `t.fn([d0, d1], keepdim)`, `t.fn({ dim, keepdim })`. A literal dim out
 * of range is a compile error naming `Fn`; `R` is the result's dtype rule ({@link ReducedDType}).
 */
export interface ReduceMethod<Fn extends string, R extends string> {
  <Self extends Tensor<Dims>, const O extends ReduceOptions = object>(
    this: Self,
    options?: O & CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, Fn>>,
  ): Tensor<
    ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>,
    ReducedDType<R, DTypeT<Self>>
  >;
  <
    Self extends Tensor<Dims>,
    const Dm extends number | Shape,
    K extends boolean = false,
  >(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, Fn>>,
    keepdim?: K,
  ): Tensor<
    ShapeOf<Reduce<ShapeT<Self>, Dm, K>>,
    ReducedDType<R, DTypeT<Self>>
  >;
}

/** `argmax`/`argmin`: one dim or none (the flattened index), as int64. */
export interface ArgReduceMethod<Fn extends string> {
  <Self extends Tensor<Dims>, const O extends ArgReduceOptions = object>(
    this: Self,
    options?: O & CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, Fn>>,
  ): Tensor<ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>, "int64">;
  <
    Self extends Tensor<Dims>,
    Dm extends number | undefined = undefined,
    K extends boolean = false,
  >(
    this: Self,
    dim?: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, Fn>>,
    keepdim?: K,
  ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, "int64">;
}

/**
 * `max`/`min`: the extreme element (`t.max()`), `[values, indices]` along a dim
 * (`t.max(dim, keepdim)`, `t.max({ dim, keepdim })`), or the elementwise extreme with a tensor.
 */
export interface ExtremeMethod<Fn extends string> {
  <Self extends Tensor<Dims>>(this: Self): Tensor<[], DTypeT<Self>>;
  <Self extends Tensor<Dims>, Dm extends number, K extends boolean = false>(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, Fn>>,
    keepdim?: K,
  ): ValuesIndices<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, DTypeT<Self>>;
  <
    Self extends Tensor<Dims>,
    const O extends { dim: number; keepdim?: boolean },
  >(
    this: Self,
    options: O & CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, Fn>>,
  ): ValuesIndices<
    ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>,
    DTypeT<Self>
  >;
  <Self extends Tensor<Dims>, O extends Dims, E extends DType>(
    this: Self,
    other: Tensor<O, E> & CheckBroadcast<ShapeT<Self>, O>,
  ): Tensor<BroadcastShape<ShapeT<Self>, O>, Promote<DTypeT<Self>, E>>;
}

/** `var`/`std`: `t.var()`, `t.var(dim, { correction, keepdim })`, `t.var({ dim, keepdim })`. */
export interface VarMethod<Fn extends string> {
  <Self extends Tensor<Dims>, const O extends VarOptions = object>(
    this: Self,
    options?: O & CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, Fn>>,
  ): Tensor<
    ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>,
    FloatOf<DTypeT<Self>>
  >;
  <
    Self extends Tensor<Dims>,
    const Dm extends number | Shape | null,
    const O extends VarOptions = object,
  >(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, DimArg<Dm>, KeepOf<O>, Fn>>,
    options?: O,
  ): Tensor<
    ShapeOf<Reduce<ShapeT<Self>, DimArg<Dm>, KeepOf<O>>>,
    FloatOf<DTypeT<Self>>
  >;
}

declare module "../tensor/tensor.js" {
  interface Tensor {
    /** Product over `dim` (all dims when absent); integers and bools multiply in int64. */
    prod: ReduceMethod<"prod", "prod">;
    /** Largest value over `dim` (all dims when absent); NaN propagates. */
    amax: ReduceMethod<"amax", "keep">;
    /** Smallest value over `dim` (all dims when absent); NaN propagates. */
    amin: ReduceMethod<"amin", "keep">;
    /**
     * `t.max()`: the largest element; `t.max(dim, keepdim)`: `[values, indices]` along `dim`;
     * `t.max(other)`: `torch.maximum(t, other)`.
     */
    max: ExtremeMethod<"max">;
    /** The smallest element, `[values, indices]` along `dim`, or `torch.minimum(t, other)`. */
    min: ExtremeMethod<"min">;
    /** Index of the largest element (first occurrence; NaN counts as largest), as int64. */
    argmax: ArgReduceMethod<"argmax">;
    /** Index of the smallest element (first occurrence; NaN counts as smallest), as int64. */
    argmin: ArgReduceMethod<"argmin">;
    /** Whether every element over `dim` is nonzero (bool; uint8 for uint8 inputs). */
    all: ReduceMethod<"all", "bool">;
    /** Whether any element over `dim` is nonzero (bool; uint8 for uint8 inputs). */
    any: ReduceMethod<"any", "bool">;
    /** The number of nonzero elements over `dim` (all dims when absent), as int64. */
    count_nonzero<
      Self extends Tensor<Dims>,
      const Dm extends number | Shape | undefined = undefined,
    >(
      this: Self,
      dim?: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, false, "count_nonzero">>,
    ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, false>>, "int64">;
    /** Variance over `dim`, divided by `N - correction` (default 1). Floating point only. */
    var: VarMethod<"var">;
    /** Standard deviation over `dim` (`sqrt(var)`). Floating point only. */
    std: VarMethod<"std">;
    /** `log(sum(exp(t), dim))`, computed stably (the max is subtracted first). */
    logsumexp<
      Self extends Tensor<Dims>,
      const Dm extends number | Shape,
      K extends boolean = false,
    >(
      this: Self,
      dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, "logsumexp">>,
      keepdim?: K,
    ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, FloatOf<DTypeT<Self>>>;
    /** The vector p-norm over `dim` (all dims when absent); floating point only. */
    norm<Self extends Tensor<Dims>, const O extends NormOptions = object>(
      this: Self,
      options?: O &
        CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, "norm">>,
    ): Tensor<
      ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>,
      FloatOf<DTypeT<Self>>
    >;
    norm<
      Self extends Tensor<Dims>,
      const Dm extends number | Shape | null | undefined = undefined,
      K extends boolean = false,
    >(
      this: Self,
      p: number | "fro",
      dim?: Dm & CheckOf<Reduce<ShapeT<Self>, DimArg<Dm>, K, "norm">>,
      keepdim?: K,
    ): Tensor<
      ShapeOf<Reduce<ShapeT<Self>, DimArg<Dm>, K>>,
      FloatOf<DTypeT<Self>>
    >;
  }
}

type ReduceArg = number | Shape | ReduceOptions | undefined;

function extreme(
  fn: "max" | "min",
  t: Tensor,
  dim: number | Tensor | { dim: number; keepdim?: boolean } | undefined,
  keepdim: boolean | undefined,
): Tensor | ValuesIndices {
  if (dim === undefined)
    return wrap(fn === "max" ? t._raw.max_all() : t._raw.min_all());
  if (dim instanceof Tensor)
    return binary(fn === "max" ? "maximum" : "minimum", t, dim);
  if (typeof dim === "object") {
    keepdim ??= dim.keepdim;
    dim = dim.dim;
  }
  const d = checkDim(fn, dim);
  const keep = keepdim ?? false;
  return pair(fn === "max" ? t._raw.max_dim(d, keep) : t._raw.min_dim(d, keep));
}

function argExtreme(
  fn: "argmax" | "argmin",
  t: Tensor,
  dim: number | ArgReduceOptions | undefined,
  keepdim: boolean | undefined,
): Tensor {
  if (typeof dim === "object") {
    keepdim ??= dim.keepdim;
    dim = dim.dim;
  }
  const d = dim === undefined || dim === null ? undefined : checkDim(fn, dim);
  const keep = keepdim ?? false;
  return wrap(
    fn === "argmax" ? t._raw.argmax(d, keep) : t._raw.argmin(d, keep),
  );
}

function varArgs(
  fn: string,
  dim: number | Shape | VarOptions | null | undefined,
  options: VarOptions | undefined,
): [Int32Array, number, boolean] {
  let opts: VarOptions = options ?? {};
  let d: number | Shape | undefined;
  if (dim !== null && typeof dim === "object" && !Array.isArray(dim)) {
    opts = { ...(dim as VarOptions), ...opts };
    d = opts.dim;
  } else {
    d = (dim ?? undefined) as number | Shape | undefined;
  }
  const [dims, keep] = parseReduceArgs(fn, d, opts.keepdim);
  const correction = opts.correction ?? (opts.unbiased === false ? 0 : 1);
  return [dims, correction, keep];
}

function normArgs(
  p: number | "fro" | NormOptions | undefined,
  dim: number | Shape | null | undefined,
  keepdim: boolean | undefined,
): [number, Int32Array, boolean] {
  let order: number | "fro" | undefined;
  if (p !== undefined && typeof p === "object") {
    order = p.p;
    dim = p.dim;
    keepdim ??= p.keepdim;
  } else {
    order = p;
  }
  const [dims, keep] = parseReduceArgs("norm", dim ?? undefined, keepdim);
  return [order === undefined || order === "fro" ? 2 : order, dims, keep];
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

for (const fn of ["prod", "amax", "amin", "all", "any"] as const) {
  proto[fn] = function (
    this: Tensor,
    dim?: ReduceArg,
    keepdim?: boolean,
  ): Tensor {
    const [dims, keep] = parseReduceArgs(fn, dim, keepdim);
    return wrap(this._raw[fn](dims, keep));
  };
}
proto.max = function (this: Tensor, dim?: number | Tensor, keepdim?: boolean) {
  return extreme("max", this, dim, keepdim);
};
proto.min = function (this: Tensor, dim?: number | Tensor, keepdim?: boolean) {
  return extreme("min", this, dim, keepdim);
};
proto.argmax = function (
  this: Tensor,
  dim?: number | ArgReduceOptions,
  keepdim?: boolean,
) {
  return argExtreme("argmax", this, dim, keepdim);
};
proto.argmin = function (
  this: Tensor,
  dim?: number | ArgReduceOptions,
  keepdim?: boolean,
) {
  return argExtreme("argmin", this, dim, keepdim);
};
proto.count_nonzero = function (this: Tensor, dim?: number | Shape): Tensor {
  const [dims] = parseReduceArgs("count_nonzero", dim, undefined);
  return wrap(this._raw.count_nonzero(dims));
};
proto.var = function (
  this: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
) {
  const [dims, correction, keep] = varArgs("var", dim, options);
  return wrap(this._raw.var(dims, correction, keep));
};
proto.std = function (
  this: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
) {
  const [dims, correction, keep] = varArgs("std", dim, options);
  return wrap(this._raw.std(dims, correction, keep));
};
proto.logsumexp = function (
  this: Tensor,
  dim: number | Shape,
  keepdim?: boolean,
): Tensor {
  const [dims, keep] = parseReduceArgs("logsumexp", dim, keepdim);
  return wrap(this._raw.logsumexp(dims, keep));
};
proto.norm = function (
  this: Tensor,
  p?: number | "fro" | NormOptions,
  dim?: number | Shape | null,
  keepdim?: boolean,
): Tensor {
  const [order, dims, keep] = normArgs(p, dim, keepdim);
  return wrap(this._raw.norm(order, dims, keep));
};

// ---- torch.* functions ----

/** Product over `dim` (all dims when absent). See {@link Tensor.prod}. */
export function prod(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("prod", "input", input).prod(dim as number, keepdim);
}

/** Largest value over `dim`. See {@link Tensor.amax}. */
export function amax(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("amax", "input", input).amax(dim as number, keepdim);
}

/** Smallest value over `dim`. See {@link Tensor.amin}. */
export function amin(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("amin", "input", input).amin(dim as number, keepdim);
}

/** `torch.max(t)`, `torch.max(t, dim, keepdim)` (values, indices) or `torch.max(t, other)`. */
export function max(input: Tensor): Tensor;
export function max(
  input: Tensor,
  dim: number,
  keepdim?: boolean,
): ValuesIndices;
export function max(input: Tensor, other: Tensor): Tensor;
export function max(
  input: Tensor,
  dim?: number | Tensor,
  keepdim?: boolean,
): Tensor | ValuesIndices {
  return extreme("max", checkTensor("max", "input", input), dim, keepdim);
}

/** `torch.min(t)`, `torch.min(t, dim, keepdim)` (values, indices) or `torch.min(t, other)`. */
export function min(input: Tensor): Tensor;
export function min(
  input: Tensor,
  dim: number,
  keepdim?: boolean,
): ValuesIndices;
export function min(input: Tensor, other: Tensor): Tensor;
export function min(
  input: Tensor,
  dim?: number | Tensor,
  keepdim?: boolean,
): Tensor | ValuesIndices {
  return extreme("min", checkTensor("min", "input", input), dim, keepdim);
}

/** Index of the largest element. See {@link Tensor.argmax}. */
export function argmax(
  input: Tensor,
  dim?: number | ArgReduceOptions,
  keepdim?: boolean,
): Tensor {
  return argExtreme(
    "argmax",
    checkTensor("argmax", "input", input),
    dim,
    keepdim,
  );
}

/** Index of the smallest element. See {@link Tensor.argmin}. */
export function argmin(
  input: Tensor,
  dim?: number | ArgReduceOptions,
  keepdim?: boolean,
): Tensor {
  return argExtreme(
    "argmin",
    checkTensor("argmin", "input", input),
    dim,
    keepdim,
  );
}

/** Whether every element is nonzero. See {@link Tensor.all}. */
export function all(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("all", "input", input).all(dim as number, keepdim);
}

/** Whether any element is nonzero. See {@link Tensor.any}. */
export function any(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("any", "input", input).any(dim as number, keepdim);
}

/** The number of nonzero elements over `dim`. See {@link Tensor.count_nonzero}. */
export function count_nonzero(input: Tensor, dim?: number | Shape): Tensor {
  return checkTensor("count_nonzero", "input", input).count_nonzero(dim);
}

/** Variance. See {@link Tensor.var}. */
function var_(
  input: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
): Tensor {
  return checkTensor("var", "input", input).var(dim as number, options);
}
export { var_ as var };

/** Standard deviation. See {@link Tensor.std}. */
export function std(
  input: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
): Tensor {
  return checkTensor("std", "input", input).std(dim as number, options);
}

/** `log(sum(exp(input), dim))`, stably. See {@link Tensor.logsumexp}. */
export function logsumexp(
  input: Tensor,
  dim: number | Shape,
  keepdim?: boolean,
): Tensor {
  return checkTensor("logsumexp", "input", input).logsumexp(dim, keepdim);
}

/** The vector p-norm (`torch.norm(input, p, dim, keepdim)`). See {@link Tensor.norm}. */
export function norm(
  input: Tensor,
  p?: number | "fro" | NormOptions,
  dim?: number | Shape | null,
  keepdim?: boolean,
): Tensor {
  return checkTensor("norm", "input", input).norm(p as number, dim, keepdim);
}

// ---- mode ----

declare module "../tensor/tensor.js" {
  interface Tensor {
    /** The most frequent value along `dim` (the smallest on ties) and the last index where it occurs. */
    mode(dim?: number, keepdim?: boolean): SortResult;
  }
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

/** The most frequent value along `dim`. See {@link Tensor.mode}. */
export function mode(
  input: Tensor,
  dim?: number,
  keepdim?: boolean,
): SortResult {
  return checkTensor("mode", "input", input).mode(dim, keepdim);
}
