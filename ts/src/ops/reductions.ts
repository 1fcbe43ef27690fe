/**
 * Reductions beyond `sum`/`mean`: `prod`, `amax`/`amin`, `max`/`min` (all elements, or values +
 * indices along a dim), `argmax`/`argmin`, `all`/`any`, `count_nonzero`, `var`/`std`,
 * `logsumexp` and `norm` — as `torch.*` functions and `Tensor` methods (those in
 * tensor/methods/reductions.ts). Each is one core call except `mode`
 * (the most frequent value), which counts equal pairs along the dim (O(n²) memory per row: fine
 * for the sizes it sees, stated here because it is not PyTorch's cost).
 *
 * @module
 */

import type { ReduceOptions, Shape } from "../args.js";
import { args } from "../schema/index.js";
import {
  type DTypeT,
  type FloatOf,
  type Promote,
  type ShapeT,
  Tensor,
  wrap,
} from "../tensor/tensor.js";
import type { SortResult } from "./sorting.js";
import { type DType } from "../dtype.js";
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
import {
  dimsOf,
  prodImpl,
  extreme,
  argExtreme,
  varStd,
  normImpl,
  modeImpl,
} from "../tensor/methods/reductions.js";

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

/** Options of `prod` (and of `sum`, `mean`, `nansum`, `nanmean`): the dims and the dtype. */
export interface DTypeReduceOptions extends ReduceOptions {
  /** Cast the input to this dtype before reducing (the result's dtype). */
  dtype?: DType;
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

/**
 * {@link ReduceMethod} and a trailing `{ dtype }` (`t.prod(1, false, { dtype: "float32" })`): the
 * input cast to `dtype` first.
 */
export interface DTypeReduceMethod<
  Fn extends string,
  R extends string,
> extends ReduceMethod<Fn, R> {
  <
    Self extends Tensor<Dims>,
    const Dm extends number | Shape,
    K extends boolean,
    T extends DType,
  >(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, Fn>>,
    keepdim: K | undefined,
    options: { dtype: T },
  ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, T>;
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

// ---- torch.* functions ----

/** Product over `dim` (all dims when absent). See {@link Tensor.prod}. */
export function prod(
  input: Tensor,
  dim?: number | null,
  keepdim?: boolean,
  options?: DTypeReduceOptions,
): Tensor;
export function prod(input: Tensor, options?: DTypeReduceOptions): Tensor;
export function prod(): Tensor {
  return prodImpl(args("prod", arguments));
}

/** Largest value over `dim`. See {@link Tensor.amax}. */
export function amax(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  const a = args("amax", arguments);
  return wrap(a.input._raw.amax(dimsOf(a.dim), a.keepdim));
}

/** Smallest value over `dim`. See {@link Tensor.amin}. */
export function amin(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  const a = args("amin", arguments);
  return wrap(a.input._raw.amin(dimsOf(a.dim), a.keepdim));
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
  const a = args("max", arguments);
  return extreme("max", a.input, a.dim, a.keepdim);
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
  const a = args("min", arguments);
  return extreme("min", a.input, a.dim, a.keepdim);
}

/** Index of the largest element. See {@link Tensor.argmax}. */
export function argmax(
  input: Tensor,
  dim?: number | ArgReduceOptions | null,
  keepdim?: boolean,
): Tensor {
  const a = args("argmax", arguments);
  return argExtreme("argmax", a.input, a.dim, a.keepdim);
}

/** Index of the smallest element. See {@link Tensor.argmin}. */
export function argmin(
  input: Tensor,
  dim?: number | ArgReduceOptions | null,
  keepdim?: boolean,
): Tensor {
  const a = args("argmin", arguments);
  return argExtreme("argmin", a.input, a.dim, a.keepdim);
}

/** Whether every element is nonzero. See {@link Tensor.all}. */
export function all(
  input: Tensor,
  dim?: number | Shape | ReduceOptions | null,
  keepdim?: boolean,
): Tensor {
  const a = args("all", arguments);
  return wrap(a.input._raw.all(dimsOf(a.dim), a.keepdim));
}

/** Whether any element is nonzero. See {@link Tensor.any}. */
export function any(
  input: Tensor,
  dim?: number | Shape | ReduceOptions | null,
  keepdim?: boolean,
): Tensor {
  const a = args("any", arguments);
  return wrap(a.input._raw.any(dimsOf(a.dim), a.keepdim));
}

/** The number of nonzero elements over `dim`. See {@link Tensor.count_nonzero}. */
export function count_nonzero(
  input: Tensor,
  dim?: number | Shape | null,
): Tensor {
  const a = args("count_nonzero", arguments);
  return wrap(a.input._raw.count_nonzero(dimsOf(a.dim)));
}

/** Variance. See {@link Tensor.var}. */
function var_(
  input: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
): Tensor {
  return varStd("var", args("var", arguments));
}
export { var_ as var };

/** Standard deviation. See {@link Tensor.std}. */
export function std(
  input: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
): Tensor {
  return varStd("std", args("std", arguments));
}

/** `log(sum(exp(input), dim))`, stably. See {@link Tensor.logsumexp}. */
export function logsumexp(
  input: Tensor,
  dim: number | Shape,
  keepdim?: boolean,
): Tensor {
  const a = args("logsumexp", arguments);
  return wrap(a.input._raw.logsumexp(dimsOf(a.dim), a.keepdim));
}

/** The vector p-norm (`torch.norm(input, p, dim, keepdim)`). See {@link Tensor.norm}. */
export function norm(
  input: Tensor,
  p?: number | "fro" | NormOptions | null,
  dim?: number | Shape | null,
  keepdim?: boolean,
): Tensor {
  return normImpl(args("norm", arguments));
}

/** The most frequent value along `dim`. See {@link Tensor.mode}. */
export function mode(
  input: Tensor,
  dim?: number,
  keepdim?: boolean,
): SortResult {
  return modeImpl(args("mode", arguments));
}
