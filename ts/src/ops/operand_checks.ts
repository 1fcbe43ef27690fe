/**
 * Operand checks and broadcasts that several ops share in PyTorch's words (masked_select and
 * masked_scatter's broadcast, the trapezoid rules' dtype refusal). Not part of the public
 * namespace.
 *
 * @module
 */

import { DTypeError, ShapeError } from "../errors.js";
import type { Tensor } from "../tensor/tensor.js";

/** `a` and `b` expanded to their broadcast shape; a mismatch in PyTorch's binary-op words. */
export function broadcastPair(a: Tensor, b: Tensor): [Tensor, Tensor] {
  const rank = Math.max(a.ndim, b.ndim);
  const shape: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a.shape[a.ndim - rank + i] ?? 1;
    const y = b.shape[b.ndim - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1)
      throw new ShapeError(
        `The size of tensor a (${x}) must match the size of tensor b (${y}) at non-singleton dimension ${i}`,
      );
    shape.push(x === 1 ? y : x);
  }
  return [a.expand(shape), b.expand(shape)];
}

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
