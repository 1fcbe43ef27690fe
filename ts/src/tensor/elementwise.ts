/**
 * The elementwise `Tensor` methods: one per op-table row (`ops/opnames.ts`), each a single core
 * call. Declared here (merged into the `Tensor` interface) and installed on `Tensor.prototype`
 * from the op lists: a new row is its name in `ops/opnames.ts`, its declaration below and its
 * function in `ops/ops.ts` (tests/types fails to compile when one of the three is missing).
 *
 * @module
 */

import { divRounding, isOperand, roundDecimals } from "../ops/op_rows.js";
import { methodArgs } from "../schema/index.js";
import { BINARY_OPS, UNARY_OPS } from "../ops/opnames.js";
import {
  type Scalar,
  Tensor,
  type DTypeT,
  type FloatOf,
  type Promote,
  type ShapeT,
} from "./tensor.js";
import { binary, unary, withAlpha } from "../ops/op_rows.js";
import type { DType } from "../dtype.js";
import type { BroadcastShape, CheckBroadcast, Dims } from "../shapes.js";

declare module "./tensor.js" {
  interface Tensor<S extends Dims = number[], D extends DType = DType> {
    /** `-x`. */
    neg(): Tensor<S, D>;
    /** `max(x, 0)`. */
    relu(): Tensor<S, D>;
    /** `|x|`. */
    abs(): Tensor<S, D>;
    /** `x * x`. */
    square(): Tensor<S, D>;
    /** Rounds up to an integer value. */
    ceil(): Tensor<S, D>;
    /** Rounds down to an integer value. */
    floor(): Tensor<S, D>;
    /** Rounds to the nearest integer value, ties to even. */
    round(options?: RoundOptions): Tensor<S, D>;
    /** Rounds toward zero. */
    trunc(): Tensor<S, D>;
    /** -1, 0 or 1 by the sign of `x` (0 for ±0; NaN stays NaN). */
    sign(): Tensor<S, D>;
    /** `+x` (the same values). */
    positive(): Tensor<S, D>;
    /** `x - trunc(x)`. */
    frac(): Tensor<S, D>;
    /** `~x` for integer and bool tensors. */
    bitwise_not(): Tensor<S, D>;
    /** `e^x`. */
    exp(): Tensor<S, FloatOf<D>>;
    /** `√x` (NaN below 0). */
    sqrt(): Tensor<S, FloatOf<D>>;
    /** Natural logarithm. */
    log(): Tensor<S, FloatOf<D>>;
    /** `1 / (1 + e^-x)`. */
    sigmoid(): Tensor<S, FloatOf<D>>;
    /** Hyperbolic tangent. */
    tanh(): Tensor<S, FloatOf<D>>;
    /** Sine (radians). */
    sin(): Tensor<S, FloatOf<D>>;
    /** Cosine (radians). */
    cos(): Tensor<S, FloatOf<D>>;
    /** Tangent (radians). */
    tan(): Tensor<S, FloatOf<D>>;
    /** Arcsine. */
    asin(): Tensor<S, FloatOf<D>>;
    /** Arccosine. */
    acos(): Tensor<S, FloatOf<D>>;
    /** Arctangent. */
    atan(): Tensor<S, FloatOf<D>>;
    /** Hyperbolic sine. */
    sinh(): Tensor<S, FloatOf<D>>;
    /** Hyperbolic cosine. */
    cosh(): Tensor<S, FloatOf<D>>;
    /** Inverse hyperbolic sine. */
    asinh(): Tensor<S, FloatOf<D>>;
    /** Inverse hyperbolic cosine. */
    acosh(): Tensor<S, FloatOf<D>>;
    /** Inverse hyperbolic tangent. */
    atanh(): Tensor<S, FloatOf<D>>;
    /** `e^x - 1`, accurate near 0. */
    expm1(): Tensor<S, FloatOf<D>>;
    /** `2^x`. */
    exp2(): Tensor<S, FloatOf<D>>;
    /** `log(1 + x)`, accurate near 0. */
    log1p(): Tensor<S, FloatOf<D>>;
    /** Base-2 logarithm. */
    log2(): Tensor<S, FloatOf<D>>;
    /** Base-10 logarithm. */
    log10(): Tensor<S, FloatOf<D>>;
    /** `1 / √x`. */
    rsqrt(): Tensor<S, FloatOf<D>>;
    /** `1 / x`. */
    reciprocal(): Tensor<S, FloatOf<D>>;
    /** The error function. */
    erf(): Tensor<S, FloatOf<D>>;
    /** `1 - erf(x)`, accurate for large x. */
    erfc(): Tensor<S, FloatOf<D>>;
    /** The inverse error function. */
    erfinv(): Tensor<S, FloatOf<D>>;
    /** `log|Γ(x)|`. */
    lgamma(): Tensor<S, FloatOf<D>>;
    /** `Γ'(x) / Γ(x)`. */
    digamma(): Tensor<S, FloatOf<D>>;
    /** `ψ'(x)`, PyTorch's `polygamma(1, x)`. */
    trigamma(): Tensor<S, FloatOf<D>>;
    /** `sin(πx) / (πx)` (1 at 0). */
    sinc(): Tensor<S, FloatOf<D>>;
    /** `log(x / (1 - x))`. */
    logit(): Tensor<S, FloatOf<D>>;
    /** `I₀(x)`, the modified Bessel function of the first kind, order 0. */
    i0(): Tensor<S, FloatOf<D>>;
    /** `e^-|x| I₀(x)` (the core's row for `torch.special.i0e`). */
    special_i0e(): Tensor<S, FloatOf<D>>;
    /** `I₁(x)` (the core's row for `torch.special.i1`). */
    special_i1(): Tensor<S, FloatOf<D>>;
    /** `e^-|x| I₁(x)` (the core's row for `torch.special.i1e`). */
    special_i1e(): Tensor<S, FloatOf<D>>;
    /** Degrees to radians. */
    deg2rad(): Tensor<S, FloatOf<D>>;
    /** Radians to degrees. */
    rad2deg(): Tensor<S, FloatOf<D>>;
    /** `x * sigmoid(x)` (SiLU, swish). */
    silu(): Tensor<S, FloatOf<D>>;
    /** GELU with the exact erf form: `x * Φ(x)`. */
    gelu(): Tensor<S, FloatOf<D>>;
    /** `x * tanh(softplus(x))`. */
    mish(): Tensor<S, FloatOf<D>>;
    /** `log(1 + e^x)` (beta 1, threshold 20). */
    softplus(): Tensor<S, FloatOf<D>>;
    /** `log(sigmoid(x))`. */
    logsigmoid(): Tensor<S, FloatOf<D>>;
    /** `x / (1 + |x|)`. */
    softsign(): Tensor<S, FloatOf<D>>;
    /** `x - tanh(x)`. */
    tanhshrink(): Tensor<S, FloatOf<D>>;
    /** `relu6(x + 3) / 6`. */
    hardsigmoid(): Tensor<S, FloatOf<D>>;
    /** `x * hardsigmoid(x)`. */
    hardswish(): Tensor<S, FloatOf<D>>;
    /** SELU with PyTorch's constants. */
    selu(): Tensor<S, FloatOf<D>>;
    /** ELU with alpha 1. */
    elu(): Tensor<S, FloatOf<D>>;
    /** CELU with alpha 1. */
    celu(): Tensor<S, FloatOf<D>>;
    /** `min(max(x, 0), 6)`. */
    relu6(): Tensor<S, D>;
    /** Whether each element is NaN (bool). */
    isnan(): Tensor<S, "bool">;
    /** Whether each element is ±∞ (bool). */
    isinf(): Tensor<S, "bool">;
    /** Whether each element is finite (bool). */
    isfinite(): Tensor<S, "bool">;
    /** Whether the sign bit is set, -0 included (bool). */
    signbit(): Tensor<S, "bool">;
    /** `x == 0` (bool). */
    logical_not(): Tensor<S, "bool">;
    /** `this + alpha * other`. */
    add: BinaryMethod<S, D, "promote", [options?: AlphaOptions]>;
    /** `this - alpha * other`. */
    sub: BinaryMethod<S, D, "promote", [options?: AlphaOptions]>;
    /** `this * other`. */
    mul: BinaryMethod<S, D, "promote">;
    /** `this / other` (true division: integers give float32). */
    div: BinaryMethod<S, D, "float", [options?: DivOptions]>;
    /** Elementwise maximum (NaN wins). */
    maximum: BinaryMethod<S, D, "promote">;
    /** Elementwise minimum (NaN wins). */
    minimum: BinaryMethod<S, D, "promote">;
    /** `this ** other`. */
    pow: BinaryMethod<S, D, "promote">;
    /** C's `fmod`: the remainder with the sign of the dividend. */
    fmod: BinaryMethod<S, D, "promote">;
    /** Python's `%`: the remainder with the sign of the divisor. */
    remainder: BinaryMethod<S, D, "promote">;
    /** `floor(this / other)`. */
    floor_divide: BinaryMethod<S, D, "promote">;
    /** `this & other` (integers, bool). */
    bitwise_and: BinaryMethod<S, D, "promote">;
    /** `this | other` (integers, bool). */
    bitwise_or: BinaryMethod<S, D, "promote">;
    /** `this ^ other` (integers, bool). */
    bitwise_xor: BinaryMethod<S, D, "promote">;
    /** `atan2(this, other)`, the angle of (other, this). */
    atan2: BinaryMethod<S, D, "float">;
    /** `√(this² + other²)`. */
    hypot: BinaryMethod<S, D, "float">;
    /** `this * log(other)`, 0 where `this` is 0. */
    xlogy: BinaryMethod<S, D, "float">;
    /** `log(e^this + e^other)`. */
    logaddexp: BinaryMethod<S, D, "float">;
    /** `log2(2^this + 2^other)`. */
    logaddexp2: BinaryMethod<S, D, "float">;
    /** `|this|` with the sign of `other`. */
    copysign: BinaryMethod<S, D, "float">;
    /** `this == other` (bool). */
    eq: BinaryMethod<S, D, "bool">;
    /** `this != other` (bool). */
    ne: BinaryMethod<S, D, "bool">;
    /** `this < other` (bool). */
    lt: BinaryMethod<S, D, "bool">;
    /** `this <= other` (bool). */
    le: BinaryMethod<S, D, "bool">;
    /** `this > other` (bool). */
    gt: BinaryMethod<S, D, "bool">;
    /** `this >= other` (bool). */
    ge: BinaryMethod<S, D, "bool">;
    /** `this != 0 && other != 0` (bool). */
    logical_and: BinaryMethod<S, D, "bool">;
    /** `this != 0 || other != 0` (bool). */
    logical_or: BinaryMethod<S, D, "bool">;
    /** `(this != 0) != (other != 0)` (bool). */
    logical_xor: BinaryMethod<S, D, "bool">;
  }
}

/** How a binary op's result dtype follows from its operands'. */
type BinaryKind = "promote" | "float" | "bool";

/** The result dtype of a binary op of kind `K` on dtypes `A` and `B`. */
type BinaryDType<
  K extends BinaryKind,
  A extends DType,
  B extends DType,
> = K extends "bool"
  ? "bool"
  : K extends "float"
    ? FloatOf<Promote<A, B>>
    : Promote<A, B>;

/**
 * The type of every binary elementwise method (one shape for all of them): with a scalar, the
 * same shape; with a tensor, the broadcast shape (a compile error when the shapes cannot
 * broadcast) and the dtype `BinaryDType<K, …>`. `Extra`: further arguments (add/sub's alpha).
 */
export interface BinaryMethod<
  S extends Dims,
  D extends DType,
  K extends BinaryKind,
  Extra extends unknown[] = [],
> {
  (
    other: Scalar,
    ...extra: Extra
  ): Tensor<S, K extends "bool" ? "bool" : FloatOf<D>>;
  <Self extends Tensor<Dims>, O extends Dims, E extends DType>(
    this: Self,
    other: (Tensor<O, E> & CheckBroadcast<ShapeT<Self>, O>) | Scalar,
    ...extra: Extra
  ): Tensor<BroadcastShape<ShapeT<Self>, O>, BinaryDType<K, DTypeT<Self>, E>>;
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => Tensor>;
const proto = Tensor.prototype as unknown as Methods;
for (const op of UNARY_OPS) {
  proto[op] = function (this: Tensor): Tensor {
    if (arguments.length > 0) methodArgs(op, this, arguments); // throws
    return unary(op, this);
  };
}
for (const op of BINARY_OPS) {
  proto[op] =
    op === "add" || op === "sub"
      ? function (this: Tensor, other: unknown): Tensor {
          if (arguments.length === 1 && isOperand(other))
            return binary(op, this, other);
          const a = methodArgs(op, this, arguments);
          return withAlpha(op, this, a.other, { alpha: Number(a.alpha) });
        }
      : function (this: Tensor, other: unknown): Tensor {
          if (arguments.length === 1 && isOperand(other))
            return binary(op, this, other);
          return binary(op, this, methodArgs(op, this, arguments).other);
        };
}
proto.round = function (this: Tensor): Tensor {
  return roundDecimals(this, methodArgs("round", this, arguments).decimals);
};
proto.div = function (this: Tensor, other: unknown): Tensor {
  if (arguments.length === 1 && isOperand(other))
    return binary("div", this, other);
  const a = methodArgs("div", this, arguments);
  return divRounding(this, a.other, a.rounding_mode);
};
