/**
 * The `Tensor` methods of the ops in ops/bitwise.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/bitwise.ts.
 *
 * @module
 */

import { isFloatingPoint } from "../../dtype.js";
import { DTypeError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { type Scalar, Tensor } from "../tensor.js";
import { methodArgs } from "../../schema/index.js";
import { binary } from "../../ops/op_rows.js";
import { where } from "../../ops/conditional.js";
import { inferSize } from "../../ops/broadcast.js";

declare module "../tensor.js" {
  interface Tensor {
    /** `this << other` for integer tensors (`this * 2 ** other`). */
    bitwise_left_shift(other: Tensor | Scalar): Tensor;
    /** `this >> other` for integer tensors (arithmetic: `floor(this / 2 ** other)`). */
    bitwise_right_shift(other: Tensor | Scalar): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

export function shift(
  left: boolean,
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  // PyTorch broadcasts the operands before it picks a kernel for their dtype.
  if (other instanceof Tensor) inferSize(input.shape, other.shape);
  const kinds = [input, other].map((v) =>
    v instanceof Tensor ? v.dtype : "int64",
  );
  const bad = kinds.find((k) => isFloatingPoint(k) || k === "bool");
  if (
    bad !== undefined ||
    (typeof other === "number" && !Number.isInteger(other))
  )
    throw new DTypeError(
      `"${left ? "lshift" : "rshift"}_cpu" not implemented for '${bad === "bool" ? "Bool" : "Float"}'`,
    );
  return scope(() => {
    if (!left) return rightShift(input, other);
    // A number shift is a number factor (`binary` takes a tensor on one side at least).
    const factor =
      typeof other === "number" ? 2 ** other : binary("pow", 2, other);
    return input.mul(factor);
  });
}

/**
 * `input >> other`, arithmetic. A shift below 0 or of the type's width and more fills with the
 * sign bit (-1 for negative elements, else 0), as PyTorch's kernel does for shifts outside the
 * type's width: every stored value fits 32 bits (int64 too), so a shift of 31 and more leaves
 * only the sign, and a uint8 result's of 8 and more leaves 0 (its factor would not fit a uint8).
 */
function rightShift(input: Tensor, other: Tensor | Scalar): Tensor {
  const zero = input.mul(0);
  const signFill = where(input.lt(0), zero.sub(1), zero);
  const width =
    input.dtype === "uint8" &&
    (typeof other === "number" || (other as Tensor).dtype === "uint8")
      ? 8
      : 31;
  if (typeof other === "number")
    return other < 0 || other >= width
      ? signFill
      : binary("floor_divide", input, 2 ** other);
  const o = other as Tensor;
  const saturated = o.lt(0).logical_or(o.ge(width));
  const factor = binary("pow", 2, where(saturated, 0, o));
  return where(saturated, signFill, binary("floor_divide", input, factor));
}

proto.bitwise_left_shift = function (this: Tensor, other: Tensor | Scalar) {
  ({ other } = methodArgs("bitwise_left_shift", this, arguments));
  return shift(true, this, other);
};

proto.bitwise_right_shift = function (this: Tensor, other: Tensor | Scalar) {
  ({ other } = methodArgs("bitwise_right_shift", this, arguments));
  return shift(false, this, other);
};
