/**
 * Bit shifts of integers: `bitwise_left_shift` (`x * 2^y`) and `bitwise_right_shift`
 * (arithmetic, `floor(x / 2^y)`), as `torch.*` functions and `Tensor` methods.
 *
 * @module
 */

import { isFloatingPoint } from "../dtype.js";
import { DTypeError } from "../errors.js";
import { scope } from "../lifetime.js";
import { type Scalar, Tensor, checkTensor } from "../tensor/tensor.js";
import { binary } from "./op_rows.js";

declare module "../tensor/tensor.js" {
  interface Tensor {
    /** `this << other` for integer tensors (`this * 2 ** other`). */
    bitwise_left_shift(other: Tensor | Scalar): Tensor;
    /** `this >> other` for integer tensors (arithmetic: `floor(this / 2 ** other)`). */
    bitwise_right_shift(other: Tensor | Scalar): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

function shift(left: boolean, input: Tensor, other: Tensor | Scalar): Tensor {
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
    const factor = binary("pow", 2, other);
    return left ? input.mul(factor) : binary("floor_divide", input, factor);
  });
}
proto.bitwise_left_shift = function (this: Tensor, other: Tensor | Scalar) {
  return shift(true, this, other);
};
proto.bitwise_right_shift = function (this: Tensor, other: Tensor | Scalar) {
  return shift(false, this, other);
};

/** `input << other` (integers). See {@link Tensor.bitwise_left_shift}. */
export function bitwise_left_shift(
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  return checkTensor("bitwise_left_shift", "input", input).bitwise_left_shift(
    other,
  );
}

/** `input >> other` (integers, arithmetic). See {@link Tensor.bitwise_right_shift}. */
export function bitwise_right_shift(
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  return checkTensor("bitwise_right_shift", "input", input).bitwise_right_shift(
    other,
  );
}
