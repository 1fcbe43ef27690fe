/**
 * The op-table rows as functions of tensors and scalars: one core call each, with PyTorch's
 * argument checks and wording (a scalar operand's Python kind, `alpha`). `Tensor`'s methods and
 * the `torch.*` functions (ops.ts) both call these.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { pyTypeName } from "../args.js";
import type { BinaryOp, UnaryOp } from "./opnames.js";
import { opId } from "../runtime.js";
import {
  type AlphaOptions,
  type Scalar,
  Tensor,
  checkTensor,
  wrap,
} from "../tensor/tensor.js";

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
]);
