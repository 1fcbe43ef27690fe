/**
 * Operand checks that several ops share in PyTorch's words (the trapezoid rules' dtype refusal;
 * broadcasting of two operands is in broadcast.ts). Not part of the public namespace.
 *
 * @module
 */

import { DTypeError } from "../errors.js";
import type { Tensor } from "../tensor/tensor.js";

/** PyTorch's refusal of bool samples in the trapezoid rules (`fn`). */
export function checkTrapezoid(fn: string, y: Tensor, x: Tensor | null): void {
  if (x !== null && (x.dtype === "bool" || y.dtype === "bool"))
    throw new DTypeError(
      `${fn}: received a bool input for \`x\` or \`y\`, but bool is not supported`,
    );
  if (y.dtype === "bool")
    throw new DTypeError(
      `${fn}: received a bool input for \`y\`, but bool is not supported`,
    );
}
