/**
 * Bit shifts of integers: `bitwise_left_shift` (`x * 2^y`) and `bitwise_right_shift`
 * (arithmetic, `floor(x / 2^y)`), as `torch.*` functions (the `Tensor` methods:
 * tensor/methods/bitwise.ts).
 *
 * @module
 */

import { type Scalar, Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
import { shift } from "../tensor/methods/bitwise.js";

/** `input << other` (integers). See {@link Tensor.bitwise_left_shift}. */
export function bitwise_left_shift(
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  ({ input, other } = args("bitwise_left_shift", arguments));
  return shift(true, input, other);
}

/** `input >> other` (integers, arithmetic). See {@link Tensor.bitwise_right_shift}. */
export function bitwise_right_shift(
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  ({ input, other } = args("bitwise_right_shift", arguments));
  return shift(false, input, other);
}
