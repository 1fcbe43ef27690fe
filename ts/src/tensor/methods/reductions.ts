/**
 * The reduction `Tensor` methods (`prod`, `amax`/`amin`, `max`/`min`, `argmax`/`argmin`,
 * `all`/`any`, `count_nonzero`, `var`/`std`, `logsumexp`, `norm`, `mode`): declared on `Tensor`
 * and installed on its prototype; the `torch.*` functions are in ops/reductions.ts.
 *
 * @module
 */

import { pair, valuesIndices } from "../tuples.js";
import type { Shape } from "../../args.js";
import { type Args, methodArgs } from "../../schema/index.js";
import {
  type DTypeT,
  type FloatOf,
  type ShapeT,
  Tensor,
  wrap,
  wrapDim,
} from "../tensor.js";
import { ArgumentError, TorchError } from "../../errors.js";
import { castFor, varCorrection } from "../../ops/reduce_args.js";
import { scope } from "../../lifetime.js";
import { arange } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import type { SortResult } from "../../ops/sorting.js";
import { binary } from "../../ops/op_rows.js";
import { isFloatingPoint } from "../../dtype.js";
import type {
  CheckOf,
  Dims,
  KeepOf,
  Reduce,
  ReduceOf,
  ShapeOf,
} from "../../shapes.js";
import type { DimArg } from "../../shapes/reduce.js";
import {
  type ValuesIndices,
  type NormOptions,
  type ReduceMethod,
  type DTypeReduceMethod,
  type ArgReduceMethod,
  type ExtremeMethod,
  type VarMethod,
} from "../../ops/reductions.js";

declare module "../tensor.js" {
  interface Tensor {
    /** Product over `dim` (all dims when absent); integers and bools multiply in int64. */
    prod: DTypeReduceMethod<"prod", "prod">;
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

// The dims a parsed `Dim[1]?` argument names: every dim when absent.
export const dimsOf = (dim: number[] | null): Int32Array =>
  Int32Array.from(dim ?? []);

export function extreme(
  fn: "max" | "min",
  t: Tensor,
  dim: number | Tensor | null,
  keepdim: boolean,
): Tensor | ValuesIndices {
  if (dim === null)
    return wrap(fn === "max" ? t._raw.max_all() : t._raw.min_all());
  if (dim instanceof Tensor) {
    if (keepdim)
      throw new ArgumentError(
        `${fn}() received an invalid combination of arguments - got (Tensor, Tensor, bool), but expected one of: (Tensor input), (Tensor input, Tensor other), (Tensor input, int dim, bool keepdim)`,
      );
    return binary(fn === "max" ? "maximum" : "minimum", t, dim);
  }
  return pair(
    fn === "max" ? t._raw.max_dim(dim, keepdim) : t._raw.min_dim(dim, keepdim),
  );
}

export function argExtreme(
  fn: "argmax" | "argmin",
  t: Tensor,
  dim: number | null,
  keepdim: boolean,
): Tensor {
  const d = dim ?? undefined;
  return wrap(
    fn === "argmax" ? t._raw.argmax(d, keepdim) : t._raw.argmin(d, keepdim),
  );
}

export function varStd(fn: "var" | "std", a: Args["var"]): Tensor {
  const correction = varCorrection(a);
  const raw = a.input._raw;
  const dims = dimsOf(a.dim);
  return wrap(
    fn === "var"
      ? raw.var(dims, correction, a.keepdim)
      : raw.std(dims, correction, a.keepdim),
  );
}

export function prodImpl(a: Args["prod"]): Tensor {
  return scope(() => {
    const x = castFor(a.input, a.dtype);
    return wrap(
      x._raw.prod(a.dim === null ? dimsOf(null) : dimsOf([a.dim]), a.keepdim),
    );
  });
}

export function normImpl(a: Args["norm"]): Tensor {
  const p = a.p === null || a.p === "fro" ? 2 : a.p;
  return wrap(a.input._raw.norm(p, dimsOf(a.dim), a.keepdim));
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

for (const fn of ["amax", "amin", "all", "any"] as const) {
  proto[fn] = function (this: Tensor): Tensor {
    const a = methodArgs(fn, this, arguments);
    return wrap(this._raw[fn](dimsOf(a.dim), a.keepdim));
  };
}

proto.prod = function (this: Tensor) {
  return prodImpl(methodArgs("prod", this, arguments));
};

proto.max = function (this: Tensor) {
  if (arguments.length === 0) return wrap(this._raw.max_all());
  const a = methodArgs("max", this, arguments);
  return extreme("max", this, a.dim, a.keepdim);
};

proto.min = function (this: Tensor) {
  if (arguments.length === 0) return wrap(this._raw.min_all());
  const a = methodArgs("min", this, arguments);
  return extreme("min", this, a.dim, a.keepdim);
};

proto.argmax = function (this: Tensor) {
  const a = methodArgs("argmax", this, arguments);
  return argExtreme("argmax", this, a.dim, a.keepdim);
};

proto.argmin = function (this: Tensor) {
  const a = methodArgs("argmin", this, arguments);
  return argExtreme("argmin", this, a.dim, a.keepdim);
};

proto.count_nonzero = function (this: Tensor): Tensor {
  const a = methodArgs("count_nonzero", this, arguments);
  return wrap(this._raw.count_nonzero(dimsOf(a.dim)));
};

proto.var = function (this: Tensor) {
  return varStd("var", methodArgs("var", this, arguments));
};

proto.std = function (this: Tensor) {
  return varStd("std", methodArgs("std", this, arguments));
};

proto.logsumexp = function (this: Tensor): Tensor {
  void this._raw; // a disposed tensor is the first error, before a missing dim
  const a = methodArgs("logsumexp", this, arguments);
  return wrap(this._raw.logsumexp(dimsOf(a.dim), a.keepdim));
};

proto.norm = function (this: Tensor): Tensor {
  return normImpl(methodArgs("norm", this, arguments));
};

// ---- mode ----

declare module "../tensor.js" {
  interface Tensor {
    /** The most frequent value along `dim` (the smallest on ties) and the last index where it occurs. */
    mode(dim?: number, keepdim?: boolean): SortResult;
    mode(options: { dim?: number; keepdim?: boolean }): SortResult;
  }
}

export function modeImpl(a: Args["mode"]): SortResult {
  const { input, keepdim } = a;
  // The default -1 comes unwrapped (the parser wraps the dims it is given).
  const d = wrapDim(a.dim, Math.max(input.ndim, 1));
  if (input.ndim === 0)
    return valuesIndices(input.clone(), input.mul(0).to("int64"));
  const n = input.shape[d]!;
  if (n === 0)
    throw new TorchError(
      "mode(): Expected reduction dim 0 to have non-zero size.",
    );
  return scope(() => {
    const x = input.movedim(d, -1);
    // NaN counts as equal to NaN (PyTorch's mode of [nan, nan, 1] is nan), so that the value
    // found always has an index.
    const same = (a: Tensor, b: Tensor) =>
      a.eq(b).logical_or(a.isnan().logical_and(b.isnan()));
    const counts = same(x.unsqueeze(-1), x.unsqueeze(-2)).sum(-1);
    const best = counts.amax(-1, true);
    // Not the most frequent: out of the smallest's way (inf, not amax, which a NaN would win).
    const big = isFloatingPoint(x.dtype) ? Infinity : x.amax(-1, true);
    const value = where(counts.eq(best), x, big).amin(-1, true);
    const pos = arange(n, { dtype: "int64", device: input.device });
    const index = where(same(x, value), pos, -1).amax(-1, true);
    // The value read at its index, so the gradient goes there (as PyTorch's mode backward).
    const v = x.gather(-1, index).movedim(-1, d);
    const i = index.movedim(-1, d);
    return keepdim
      ? valuesIndices(v, i)
      : valuesIndices(v.squeeze(d), i.squeeze(d));
  });
}

proto.mode = function (this: Tensor) {
  return modeImpl(methodArgs("mode", this, arguments));
};
