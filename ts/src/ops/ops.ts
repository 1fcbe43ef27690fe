/**
 * The `torch.*` functions for ops that are also `Tensor` methods: `torch.exp(x)` is `x.exp()`.
 * Binary functions also take a scalar on either side (`torch.sub(1, x)` is `1 - x`). That every
 * op-table row has its function here is checked by tests/types and the Node/browser tests.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { divRounding, isOperand, roundDecimals } from "./op_rows.js";
import { type ReduceOptions, type Shape, sizeList } from "../args.js";
import type { BinaryOp, UnaryOp } from "./opnames.js";
import type { DType } from "../dtype.js";
import type { CheckOf, Dims, Matmul, ShapeOf } from "../shapes.js";
import {
  type AlphaOptions,
  type DivOptions,
  type RoundOptions,
  type Scalar,
  Tensor,
  checkTensor,
  type Promote,
} from "../tensor/tensor.js";
import { binary, unary, withAlpha } from "./op_rows.js";

// One function per op-table row (opnames.ts), in table order.

/** A `torch.*` function for a unary row: `torch.exp(x)` is `x.exp()`. */
function unaryFn(op: UnaryOp): (input: Tensor) => Tensor {
  // The common call, one tensor, skips the parser: it could find nothing wrong with it.
  return function (input) {
    if (arguments.length === 1 && input instanceof Tensor)
      return unary(op, input);
    return unary(op, args(op, arguments).input);
  };
}

/** A `torch.*` function for a binary row; either operand may be a scalar (`torch.pow(2, x)`). */
function binaryFn(
  op: BinaryOp,
): (input: Tensor | Scalar, other: Tensor | Scalar) => Tensor {
  return function (input, other) {
    if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
      return binary(op, input, other);
    const a = args(op, arguments);
    return binary(op, a.input, a.other);
  };
}

// ---- elementwise, one operand ----

/** `-input`. */
export const neg = unaryFn("neg");
/** `max(input, 0)`. */
export const relu = unaryFn("relu");
/** `|input|`. */
export const abs = unaryFn("abs");
/** `input * input`. */
export const square = unaryFn("square");
/** Rounds up to an integer value. */
export const ceil = unaryFn("ceil");
/** Rounds down to an integer value. */
export const floor = unaryFn("floor");
/** Rounds to the nearest integer value, ties to even. */
export function round(input: Tensor, options?: RoundOptions): Tensor {
  const a = args("round", arguments);
  return roundDecimals(a.input, a.decimals);
}
/** Rounds toward zero. */
export const trunc = unaryFn("trunc");
/** -1, 0 or 1 by the sign of `input` (0 for ±0; NaN stays NaN). */
export const sign = unaryFn("sign");
/** `+input` (the same values). */
export const positive = unaryFn("positive");
/** `input - trunc(input)`. */
export const frac = unaryFn("frac");
/** `~input` for integer and bool tensors. */
export const bitwise_not = unaryFn("bitwise_not");
/** `e^input`. */
export const exp = unaryFn("exp");
/** `√input` (NaN below 0). */
export const sqrt = unaryFn("sqrt");
/** Natural logarithm. */
export const log = unaryFn("log");
/** `1 / (1 + e^-input)`. */
export const sigmoid = unaryFn("sigmoid");
/** Hyperbolic tangent. */
export const tanh = unaryFn("tanh");
/** Sine (radians). */
export const sin = unaryFn("sin");
/** Cosine (radians). */
export const cos = unaryFn("cos");
/** Tangent (radians). */
export const tan = unaryFn("tan");
/** Arcsine. */
export const asin = unaryFn("asin");
/** Arccosine. */
export const acos = unaryFn("acos");
/** Arctangent. */
export const atan = unaryFn("atan");
/** Hyperbolic sine. */
export const sinh = unaryFn("sinh");
/** Hyperbolic cosine. */
export const cosh = unaryFn("cosh");
/** Inverse hyperbolic sine. */
export const asinh = unaryFn("asinh");
/** Inverse hyperbolic cosine. */
export const acosh = unaryFn("acosh");
/** Inverse hyperbolic tangent. */
export const atanh = unaryFn("atanh");
/** `e^input - 1`, accurate near 0. */
export const expm1 = unaryFn("expm1");
/** `2^input`. */
export const exp2 = unaryFn("exp2");
/** `log(1 + input)`, accurate near 0. */
export const log1p = unaryFn("log1p");
/** Base-2 logarithm. */
export const log2 = unaryFn("log2");
/** Base-10 logarithm. */
export const log10 = unaryFn("log10");
/** `1 / √input`. */
export const rsqrt = unaryFn("rsqrt");
/** `1 / input`. */
export const reciprocal = unaryFn("reciprocal");
/** The error function. */
export const erf = unaryFn("erf");
/** `1 - erf(input)`, accurate for large input. */
export const erfc = unaryFn("erfc");
/** The inverse error function. */
export const erfinv = unaryFn("erfinv");
/** `log|Γ(input)|`. */
export const lgamma = unaryFn("lgamma");
/** `Γ'(input) / Γ(input)`. */
export const digamma = unaryFn("digamma");
/** `ψ'(input)`, the trigamma function (PyTorch's `polygamma(1, input)`). */
export const trigamma = unaryFn("trigamma");
/** `sin(πx) / (πx)` (1 at 0). */
export const sinc = unaryFn("sinc");
/** `log(input / (1 - input))`. */
export const logit = unaryFn("logit");
/** `I₀(input)`, the modified Bessel function of the first kind of order 0. */
export const i0 = unaryFn("i0");
/** `e^-|input| I₀(input)`; PyTorch spells it `torch.special.i0e` (see `torch.special`). */
export const special_i0e = unaryFn("special_i0e");
/** `I₁(input)`; PyTorch spells it `torch.special.i1`. */
export const special_i1 = unaryFn("special_i1");
/** `e^-|input| I₁(input)`; PyTorch spells it `torch.special.i1e`. */
export const special_i1e = unaryFn("special_i1e");
/** Degrees to radians. */
export const deg2rad = unaryFn("deg2rad");
/** Radians to degrees. */
export const rad2deg = unaryFn("rad2deg");
/** `input * sigmoid(input)` (SiLU, swish). */
export const silu = unaryFn("silu");
/** GELU with the exact erf form: `input * Φ(input)`. */
export const gelu = unaryFn("gelu");
/** `input * tanh(softplus(input))`. */
export const mish = unaryFn("mish");
/** `log(1 + e^input)` (beta 1, threshold 20). */
export const softplus = unaryFn("softplus");
/** `log(sigmoid(input))`. */
export const logsigmoid = unaryFn("logsigmoid");
/** `input / (1 + |input|)`. */
export const softsign = unaryFn("softsign");
/** `input - tanh(input)`. */
export const tanhshrink = unaryFn("tanhshrink");
/** `relu6(input + 3) / 6`. */
export const hardsigmoid = unaryFn("hardsigmoid");
/** `input * hardsigmoid(input)`. */
export const hardswish = unaryFn("hardswish");
/** SELU with PyTorch's constants. */
export const selu = unaryFn("selu");
/** ELU with alpha 1. */
export const elu = unaryFn("elu");
/** CELU with alpha 1. */
export const celu = unaryFn("celu");
/** `min(max(input, 0), 6)`. */
export const relu6 = unaryFn("relu6");
/** Whether each element is NaN (bool). */
export const isnan = unaryFn("isnan");
/** Whether each element is ±∞ (bool). */
export const isinf = unaryFn("isinf");
/** Whether each element is finite (bool). */
export const isfinite = unaryFn("isfinite");
/** Whether the sign bit is set, -0 included (bool). */
export const signbit = unaryFn("signbit");
/** `input == 0` (bool). */
export const logical_not = unaryFn("logical_not");

// ---- elementwise, two operands, broadcasting ----

/** `input + alpha * other`. */
export function add(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options?: AlphaOptions,
): Tensor {
  if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
    return binary("add", input, other);
  const a = args("add", arguments);
  return withAlpha("add", a.input, a.other, { alpha: Number(a.alpha) });
}
/** `input - alpha * other`. */
export function sub(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options?: AlphaOptions,
): Tensor {
  if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
    return binary("sub", input, other);
  const a = args("sub", arguments);
  return withAlpha("sub", a.input, a.other, { alpha: Number(a.alpha) });
}
/** `input * other`. */
export const mul = binaryFn("mul");
/**
 * `input / other`: true division (integers give float32), or with `rounding_mode` the quotient
 * rounded toward zero (`"trunc"`) or down (`"floor"`) in the operands' promoted dtype.
 */
export function div(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options?: DivOptions,
): Tensor {
  if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
    return binary("div", input, other);
  const a = args("div", arguments);
  return divRounding(a.input, a.other, a.rounding_mode);
}
/** Elementwise maximum (NaN wins). */
export const maximum = binaryFn("maximum");
/** Elementwise minimum (NaN wins). */
export const minimum = binaryFn("minimum");
/** `input ** other`. */
export const pow = binaryFn("pow");
/** C's `fmod`: the remainder with the sign of the dividend. */
export const fmod = binaryFn("fmod");
/** Python's `%`: the remainder with the sign of the divisor. */
export const remainder = binaryFn("remainder");
/** `floor(input / other)`. */
export const floor_divide = binaryFn("floor_divide");
/** `input & other` (integers, bool). */
export const bitwise_and = binaryFn("bitwise_and");
/** `input | other` (integers, bool). */
export const bitwise_or = binaryFn("bitwise_or");
/** `input ^ other` (integers, bool). */
export const bitwise_xor = binaryFn("bitwise_xor");
/** `atan2(input, other)`, the angle of (other, input). */
export const atan2 = binaryFn("atan2");
/** `√(input² + other²)`. */
export const hypot = binaryFn("hypot");
/** `input * log(other)`, 0 where `input` is 0. */
export const xlogy = binaryFn("xlogy");
/** `log(e^input + e^other)`. */
export const logaddexp = binaryFn("logaddexp");
/** `log2(2^input + 2^other)`. */
export const logaddexp2 = binaryFn("logaddexp2");
/** `|input|` with the sign of `other`. */
export const copysign = binaryFn("copysign");
/** `input == other` (bool). */
export const eq = binaryFn("eq");
/** `input != other` (bool). */
export const ne = binaryFn("ne");
/** `input < other` (bool). */
export const lt = binaryFn("lt");
/** `input <= other` (bool). */
export const le = binaryFn("le");
/** `input > other` (bool). */
export const gt = binaryFn("gt");
/** `input >= other` (bool). */
export const ge = binaryFn("ge");
/** `input != 0 && other != 0` (bool). */
export const logical_and = binaryFn("logical_and");
/** `input != 0 || other != 0` (bool). */
export const logical_or = binaryFn("logical_or");
/** `(input != 0) != (other != 0)` (bool). */
export const logical_xor = binaryFn("logical_xor");

// ---- reductions ----

/** Sum over `dim` (all dims when absent). See {@link Tensor.sum}. */
export function sum(input: Tensor, options?: ReduceOptions): Tensor;
export function sum(
  input: Tensor,
  dim: number | Shape,
  keepdim?: boolean,
): Tensor;
export function sum(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("sum", "input", input).sum(dim as number | Shape, keepdim);
}

/** Mean over `dim` (all dims when absent). See {@link Tensor.mean}. */
export function mean(input: Tensor, options?: ReduceOptions): Tensor;
export function mean(
  input: Tensor,
  dim: number | Shape,
  keepdim?: boolean,
): Tensor;
export function mean(
  input: Tensor,
  dim?: number | Shape | ReduceOptions,
  keepdim?: boolean,
): Tensor {
  return checkTensor("mean", "input", input).mean(
    dim as number | Shape,
    keepdim,
  );
}

// ---- linear algebra, shapes, copies ----

/** Matrix product (see {@link Tensor.matmul}). */
export function matmul<
  A extends Dims,
  B extends Dims,
  DA extends DType,
  DB extends DType,
>(
  input: Tensor<A, DA>,
  other: Tensor<B, DB> & CheckOf<Matmul<A, B>>,
): Tensor<ShapeOf<Matmul<A, B>>, Promote<DA, DB>>;
export function matmul(input: Tensor, other: Tensor): Tensor {
  return checkTensor("matmul", "input", input).matmul(other);
}

/** `input.reshape(shape)`. */
export function reshape(input: Tensor, shape: Shape): Tensor {
  const a = args("reshape", arguments);
  return a.input.reshape(sizeList("reshape", a.shape, "shape"));
}

/** `input.transpose(dim0, dim1)` (a view). */
export function transpose(input: Tensor, dim0: number, dim1: number): Tensor {
  ({ input, dim0, dim1 } = args("transpose", arguments));
  return input.transpose(dim0, dim1);
}

/** `input.permute(dims)` (a view). */
export function permute(input: Tensor, dims: Shape): Tensor {
  const a = args("permute", arguments);
  return a.input.permute(sizeList("permute", a.dims, "dims"));
}

/** `input.t()` (a view). */
export function t(input: Tensor): Tensor {
  ({ input } = args("t", arguments));
  return input.t();
}

/** `input.clone()`. */
export function clone(input: Tensor): Tensor {
  return checkTensor("clone", "input", input).clone();
}

/** Whether `value` is a webtorch Tensor. */
export function is_tensor(value: unknown): value is Tensor {
  return value instanceof Tensor;
}

/** Whether `input`'s dtype is floating point. */
export function is_floating_point(input: Tensor): boolean {
  return checkTensor("is_floating_point", "input", input).is_floating_point();
}

/** The number of elements of `input`. */
export function numel(input: Tensor): number {
  return checkTensor("numel", "input", input).numel();
}

/** `input.detach()`: the same values, cut from the autograd graph. */
export function detach(input: Tensor): Tensor {
  return checkTensor("detach", "input", input).detach();
}
