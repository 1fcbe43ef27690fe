/**
 * The elementwise `Tensor` methods: one per op-table row (`opnames.ts`), each a single core call.
 * Declared here (merged into the `Tensor` interface) and installed on `Tensor.prototype` from the
 * op lists: a new row is its name in `opnames.ts`, its declaration below and its function in
 * `ops.ts` (tests/types fails to compile when one of the three is missing).
 *
 * @module
 */

import { BINARY_OPS, UNARY_OPS } from "./opnames.js";
import {
  type AlphaOptions,
  type Scalar,
  Tensor,
  binary,
  unary,
  withAlpha,
} from "./tensor.js";

declare module "./tensor.js" {
  interface Tensor {
    /** `-x`. */
    neg(): Tensor;
    /** `max(x, 0)`. */
    relu(): Tensor;
    /** `|x|`. */
    abs(): Tensor;
    /** `x * x`. */
    square(): Tensor;
    /** Rounds up to an integer value. */
    ceil(): Tensor;
    /** Rounds down to an integer value. */
    floor(): Tensor;
    /** Rounds to the nearest integer value, ties to even. */
    round(): Tensor;
    /** Rounds toward zero. */
    trunc(): Tensor;
    /** -1, 0 or 1 by the sign of `x` (0 for ±0; NaN stays NaN). */
    sign(): Tensor;
    /** `+x` (the same values). */
    positive(): Tensor;
    /** `x - trunc(x)`. */
    frac(): Tensor;
    /** `~x` for integer and bool tensors. */
    bitwise_not(): Tensor;
    /** `e^x`. */
    exp(): Tensor;
    /** `√x` (NaN below 0). */
    sqrt(): Tensor;
    /** Natural logarithm. */
    log(): Tensor;
    /** `1 / (1 + e^-x)`. */
    sigmoid(): Tensor;
    /** Hyperbolic tangent. */
    tanh(): Tensor;
    /** Sine (radians). */
    sin(): Tensor;
    /** Cosine (radians). */
    cos(): Tensor;
    /** Tangent (radians). */
    tan(): Tensor;
    /** Arcsine. */
    asin(): Tensor;
    /** Arccosine. */
    acos(): Tensor;
    /** Arctangent. */
    atan(): Tensor;
    /** Hyperbolic sine. */
    sinh(): Tensor;
    /** Hyperbolic cosine. */
    cosh(): Tensor;
    /** Inverse hyperbolic sine. */
    asinh(): Tensor;
    /** Inverse hyperbolic cosine. */
    acosh(): Tensor;
    /** Inverse hyperbolic tangent. */
    atanh(): Tensor;
    /** `e^x - 1`, accurate near 0. */
    expm1(): Tensor;
    /** `2^x`. */
    exp2(): Tensor;
    /** `log(1 + x)`, accurate near 0. */
    log1p(): Tensor;
    /** Base-2 logarithm. */
    log2(): Tensor;
    /** Base-10 logarithm. */
    log10(): Tensor;
    /** `1 / √x`. */
    rsqrt(): Tensor;
    /** `1 / x`. */
    reciprocal(): Tensor;
    /** The error function. */
    erf(): Tensor;
    /** `1 - erf(x)`, accurate for large x. */
    erfc(): Tensor;
    /** The inverse error function. */
    erfinv(): Tensor;
    /** `log|Γ(x)|`. */
    lgamma(): Tensor;
    /** `Γ'(x) / Γ(x)`. */
    digamma(): Tensor;
    /** `ψ'(x)`, PyTorch's `polygamma(1, x)`. */
    trigamma(): Tensor;
    /** `sin(πx) / (πx)` (1 at 0). */
    sinc(): Tensor;
    /** `log(x / (1 - x))`. */
    logit(): Tensor;
    /** Degrees to radians. */
    deg2rad(): Tensor;
    /** Radians to degrees. */
    rad2deg(): Tensor;
    /** `x * sigmoid(x)` (SiLU, swish). */
    silu(): Tensor;
    /** GELU with the exact erf form: `x * Φ(x)`. */
    gelu(): Tensor;
    /** `x * tanh(softplus(x))`. */
    mish(): Tensor;
    /** `log(1 + e^x)` (beta 1, threshold 20). */
    softplus(): Tensor;
    /** `log(sigmoid(x))`. */
    logsigmoid(): Tensor;
    /** `x / (1 + |x|)`. */
    softsign(): Tensor;
    /** `x - tanh(x)`. */
    tanhshrink(): Tensor;
    /** `relu6(x + 3) / 6`. */
    hardsigmoid(): Tensor;
    /** `x * hardsigmoid(x)`. */
    hardswish(): Tensor;
    /** SELU with PyTorch's constants. */
    selu(): Tensor;
    /** ELU with alpha 1. */
    elu(): Tensor;
    /** CELU with alpha 1. */
    celu(): Tensor;
    /** `min(max(x, 0), 6)`. */
    relu6(): Tensor;
    /** Whether each element is NaN (bool). */
    isnan(): Tensor;
    /** Whether each element is ±∞ (bool). */
    isinf(): Tensor;
    /** Whether each element is finite (bool). */
    isfinite(): Tensor;
    /** Whether the sign bit is set, -0 included (bool). */
    signbit(): Tensor;
    /** `x == 0` (bool). */
    logical_not(): Tensor;
    /** `this + alpha * other`. */
    add(other: Tensor | Scalar, options?: AlphaOptions): Tensor;
    /** `this - alpha * other`. */
    sub(other: Tensor | Scalar, options?: AlphaOptions): Tensor;
    /** `this * other`. */
    mul(other: Tensor | Scalar): Tensor;
    /** `this / other` (true division: integers give float32). */
    div(other: Tensor | Scalar): Tensor;
    /** Elementwise maximum (NaN wins). */
    maximum(other: Tensor | Scalar): Tensor;
    /** Elementwise minimum (NaN wins). */
    minimum(other: Tensor | Scalar): Tensor;
    /** `this ** other`. */
    pow(exponent: Tensor | Scalar): Tensor;
    /** C's `fmod`: the remainder with the sign of the dividend. */
    fmod(other: Tensor | Scalar): Tensor;
    /** Python's `%`: the remainder with the sign of the divisor. */
    remainder(other: Tensor | Scalar): Tensor;
    /** `floor(this / other)`. */
    floor_divide(other: Tensor | Scalar): Tensor;
    /** `this & other` (integers, bool). */
    bitwise_and(other: Tensor | Scalar): Tensor;
    /** `this | other` (integers, bool). */
    bitwise_or(other: Tensor | Scalar): Tensor;
    /** `this ^ other` (integers, bool). */
    bitwise_xor(other: Tensor | Scalar): Tensor;
    /** `atan2(this, other)`, the angle of (other, this). */
    atan2(other: Tensor | Scalar): Tensor;
    /** `√(this² + other²)`. */
    hypot(other: Tensor | Scalar): Tensor;
    /** `this * log(other)`, 0 where `this` is 0. */
    xlogy(other: Tensor | Scalar): Tensor;
    /** `log(e^this + e^other)`. */
    logaddexp(other: Tensor | Scalar): Tensor;
    /** `log2(2^this + 2^other)`. */
    logaddexp2(other: Tensor | Scalar): Tensor;
    /** `|this|` with the sign of `other`. */
    copysign(other: Tensor | Scalar): Tensor;
    /** `this == other` (bool). */
    eq(other: Tensor | Scalar): Tensor;
    /** `this != other` (bool). */
    ne(other: Tensor | Scalar): Tensor;
    /** `this < other` (bool). */
    lt(other: Tensor | Scalar): Tensor;
    /** `this <= other` (bool). */
    le(other: Tensor | Scalar): Tensor;
    /** `this > other` (bool). */
    gt(other: Tensor | Scalar): Tensor;
    /** `this >= other` (bool). */
    ge(other: Tensor | Scalar): Tensor;
    /** `this != 0 && other != 0` (bool). */
    logical_and(other: Tensor | Scalar): Tensor;
    /** `this != 0 || other != 0` (bool). */
    logical_or(other: Tensor | Scalar): Tensor;
    /** `(this != 0) != (other != 0)` (bool). */
    logical_xor(other: Tensor | Scalar): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => Tensor>;
const proto = Tensor.prototype as unknown as Methods;
for (const op of UNARY_OPS) {
  proto[op] = function (this: Tensor): Tensor {
    return unary(op, this);
  };
}
for (const op of BINARY_OPS) {
  proto[op] =
    op === "add" || op === "sub"
      ? function (
          this: Tensor,
          other: Tensor | Scalar,
          options?: AlphaOptions,
        ): Tensor {
          return withAlpha(op, this, other, options);
        }
      : function (this: Tensor, other: Tensor | Scalar): Tensor {
          return binary(op, this, other);
        };
}
