/**
 * Broadcasting of two shapes as PyTorch's tensor ops check it (its `infer_size`), shared by the
 * composites that broadcast before they compute. Not public: `torch.broadcast_shapes` has its own
 * message.
 *
 * @module
 */

import type { Shape } from "../args.js";
import type { Tensor } from "../tensor/tensor.js";
import { ShapeError } from "../errors.js";

/**
 * The shape `a` and `b` broadcast to, with the error of PyTorch's tensor ops (its `infer_size`:
 * the dims checked from the last, `a` the shape so far); `torch.broadcast_shapes` words its own (ops/shape_fns.ts).
 */
export function inferSize(a: Shape, b: Shape): number[] {
  const rank = Math.max(a.length, b.length);
  const out = new Array<number>(rank);
  for (let i = rank - 1; i >= 0; i--) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1)
      throw new ShapeError(
        `The size of tensor a (${x}) must match the size of tensor b (${y}) at non-singleton dimension ${i}`,
      );
    out[i] = x === 1 ? y : x;
  }
  return out;
}

/** `a` and `b` expanded to their broadcast shape, with the elementwise ops' error. */
export function broadcastPair(a: Tensor, b: Tensor): [Tensor, Tensor] {
  const shape = inferSize(a.shape, b.shape);
  return [a.expand(shape), b.expand(shape)];
}
