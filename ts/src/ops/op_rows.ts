/**
 * The op-table rows as functions of tensors and scalars: one core call each, with PyTorch's
 * argument checks and wording (a scalar operand's Python kind, `alpha`). `Tensor`'s methods and
 * the `torch.*` functions (ops.ts) both call these.
 *
 * @module
 */

import { DTypeError, TorchError } from "../errors.js";
import { isFloatingPoint, scalarTypeName } from "../dtype.js";
import { result_type } from "../state.js";
import { args } from "../schema/index.js";
import { pyTypeName } from "../args.js";
import type { BinaryOp, UnaryOp } from "./opnames.js";
import type { DType } from "../dtype.js";
import type { Dims } from "../shapes.js";
import { opId } from "../runtime.js";
import {
  type AlphaOptions,
  type FloatOf,
  type Scalar,
  Tensor,
  checkTensor,
  wrap,
} from "../tensor/tensor.js";

/**
 * Whether `v` is an operand a binary row takes as it is (a tensor or a number): the call shape
 * the wrappers send straight to the core, the parser handling every other.
 */
export function isOperand(v: unknown): v is Tensor | number {
  return v instanceof Tensor || typeof v === "number";
}

/** Applies a unary op-table row. */
export function unary(op: UnaryOp, input: Tensor): Tensor {
  return wrap(checkTensor(op, "input", input)._raw.unary(opId(op)));
}

/**
 * Applies a binary op-table row to two operands, at least one a Tensor; a scalar on the left is
 * passed as `reverse` (`torch.sub(2, t)` is `2 - t`). An integral number counts as a Python int,
 * a boolean as a Python bool (JS cannot tell `2` from `2.0`).
 */
export function binary(
  op: BinaryOp,
  input: Tensor | Scalar,
  other: Tensor | Scalar,
): Tensor {
  const id = opId(op);
  if (input instanceof Tensor) {
    if (other instanceof Tensor) return wrap(input._raw.binary(id, other._raw));
    return scalarOp(id, input, checkScalar(op, "other", other), false);
  }
  if (other instanceof Tensor)
    return scalarOp(id, other, checkScalar(op, "input", input), true);
  return checkTensor(op, "input", input); // throws: two scalars
}

function scalarOp(
  id: number,
  t: Tensor,
  value: Scalar,
  reverse: boolean,
): Tensor {
  return wrap(
    typeof value === "boolean"
      ? t._raw.binary_scalar_bool(id, value, reverse)
      : t._raw.binary_scalar(id, value, reverse),
  );
}

/** `add`/`sub` with PyTorch's `alpha` (`input ± alpha * other`). */
export function withAlpha(
  op: "add" | "sub",
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options: AlphaOptions = {},
): Tensor {
  const alpha = options.alpha ?? 1;
  if (typeof alpha !== "number")
    throw new TorchError(`${op}(): argument 'alpha' must be Number`);
  if (alpha === 1) return binary(op, input, other);
  if (!(input instanceof Tensor)) {
    // `torch.sub(2, t, { alpha })`: 2 - alpha * t.
    const scaled = checkTensor(op, "other", other).mul(alpha);
    try {
      return binary(op, input, scaled);
    } finally {
      scaled.dispose(); // the result keeps what it needs alive in the core
    }
  }
  const id = opId(op);
  if (other instanceof Tensor)
    return wrap(input._raw.add_alpha(id, other._raw, alpha));
  return wrap(
    input._raw.add_alpha_scalar(
      id,
      Number(checkScalar(op, "other", other)),
      alpha,
    ),
  );
}

function checkScalar(fn: string, arg: string, value: unknown): Scalar {
  if (typeof value === "number" || typeof value === "boolean") return value;
  // Where PyTorch's binding has one Tensor signature it names the argument ("add(): argument
  // 'other' (position 2) must be Tensor, not str"); where it also has a Scalar overload, it
  // reports that no overload matches.
  if (TENSOR_ONLY_BINDINGS.has(fn) || arg !== "other")
    return checkTensor(fn, arg, value) as never;
  throw new TorchError(
    `${fn}() received an invalid combination of arguments - got (Tensor, ${pyTypeName(value)}), but expected one of: (Tensor input, Tensor other), (Tensor input, Number other)`,
  );
}

const TENSOR_ONLY_BINDINGS = new Set([
  "add",
  "sub",
  "mul",
  "div",
  "maximum",
  "minimum",
  "atan2",
  "hypot",
  "logaddexp",
  "logaddexp2",
  "logical_and",
  "logical_or",
  "logical_xor",
  "kron",
  "nextafter",
]);

/**
 * `div` with PyTorch's `rounding_mode`: `null` is true division; `"floor"` rounds the quotient
 * down (`floor_divide`) and `"trunc"` toward zero, both keeping the promoted dtype (integers
 * stay integers, computed exactly on integers).
 */
export function divRounding(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  mode: "trunc" | "floor" | null,
): Tensor {
  if (mode === null) return binary("div", input, other);
  if (mode === "floor") return binary("floor_divide", input, other);
  const dtype = result_type(input, other);
  if (dtype === "bool")
    throw new DTypeError(`"div_trunc_cpu" not implemented for 'Bool'`);
  const owned: Tensor[] = [];
  const keep = (t: Tensor): Tensor => (owned.push(t), t);
  try {
    if (isFloatingPoint(dtype))
      return keep(binary("div", input, other)).trunc();
    // Integers: the floor quotient, plus one where the division was inexact and the operands'
    // signs differ.
    const floor = keep(binary("floor_divide", input, other));
    const inexact = keep(
      binary("ne", keep(binary("remainder", input, other)), 0),
    );
    const negative = (x: Tensor | Scalar): Tensor | boolean =>
      x instanceof Tensor ? keep(binary("lt", x, 0)) : Number(x) < 0;
    const a = negative(input);
    const b = negative(other);
    const signs =
      a instanceof Tensor
        ? keep(binary("logical_xor", a, b))
        : b instanceof Tensor
          ? keep(binary("logical_xor", b, a))
          : a !== b;
    const fix = keep(binary("logical_and", inexact, signs));
    return binary("add", floor, keep(fix.to(dtype)));
  } finally {
    for (const t of owned) t.dispose();
  }
}

/**
 * `round` with PyTorch's `decimals`: `x * 10^d` rounded half to even, then divided by `10^d`
 * (for negative `d`, divided first and multiplied after), in the tensor's dtype as PyTorch does.
 */
export function roundDecimals(input: Tensor, decimals: number): Tensor {
  if (decimals === 0) return unary("round", input);
  if (!isFloatingPoint(input.dtype))
    throw new DTypeError(
      `"round_cpu" not implemented for '${scalarTypeName(input.dtype)}'`,
    );
  const scale = 10 ** Math.abs(decimals);
  const [first, last]: [BinaryOp, BinaryOp] =
    decimals > 0 ? ["mul", "div"] : ["div", "mul"];
  const scaled = binary(first, input, scale);
  try {
    const rounded = unary("round", scaled);
    try {
      return binary(last, rounded, scale);
    } finally {
      rounded.dispose();
    }
  } finally {
    scaled.dispose();
  }
}

/**
 * The type of a unary row's `torch.*` function: the input's shape, the dtype by the row's rule
 * (`"same"`: the input's, `"float"`: floating point, `"bool"`).
 */
export type UnaryFn<R extends "same" | "float" | "bool"> = <
  S extends Dims,
  D extends DType,
>(
  input: Tensor<S, D>,
) => Tensor<S, R extends "same" ? D : R extends "float" ? FloatOf<D> : "bool">;

/** A `torch.*` function for a unary row: `torch.exp(x)` is `x.exp()`. */
export function unaryFn(op: UnaryOp): (input: Tensor) => Tensor {
  // The common call, one tensor, skips the parser: it could find nothing wrong with it.
  return function (input) {
    if (arguments.length === 1 && input instanceof Tensor)
      return unary(op, input);
    return unary(op, args(op, arguments).input);
  };
}

/** A `torch.*` function for a binary row; either operand may be a scalar (`torch.pow(2, x)`). */
export function binaryFn(
  op: BinaryOp,
): (input: Tensor | Scalar, other: Tensor | Scalar) => Tensor {
  return function (input, other) {
    if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
      return binary(op, input, other);
    const a = args(op, arguments);
    return binary(op, a.input, a.other);
  };
}
