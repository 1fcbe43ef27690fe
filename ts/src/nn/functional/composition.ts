/**
 * Helpers of `torch.nn.functional`'s compositions (the files of nn/functional/): the kernel or
 * its composition (the core's row kernels, softmax, log_softmax, layer_norm, index_select,
 * gather …, do not record every gradient; a function that could use one calls the kernel when
 * no gradient is needed, or when the kernel's result does record one, and otherwise composes the
 * same math from differentiable elementwise ops and reductions, which the core fuses), the
 * temporaries of a composition, and shapes in messages.
 *
 * @module
 */

import type { Tensor } from "../../tensor/tensor.js";
import { is_grad_enabled } from "../../autograd/grad_mode.js";

export const shapeStr = (t: Tensor) => `[${t.shape.join(", ")}]`;

/** Whether grad mode is on and some of `ts` requires grad. */
export function needsGrad(...ts: (Tensor | null | undefined)[]): boolean {
  return is_grad_enabled() && ts.some((t) => t?.requires_grad === true);
}

/** The kernel's result unless a gradient is needed that it does not record; then `composed()`. */
export function kernelOr(
  inputs: (Tensor | null | undefined)[],
  kernel: () => Tensor,
  composed: () => Tensor,
): Tensor {
  if (!needsGrad(...inputs)) return kernel();
  const y = kernel();
  if (y.requires_grad) return y;
  y.dispose();
  return composed();
}

/** Runs `fn` with a list that collects temporaries, then disposes them (not the result). */
export function temps<T>(fn: (keep: <U extends Tensor>(t: U) => U) => T): T {
  const list: Tensor[] = [];
  try {
    return fn((t) => (list.push(t), t));
  } finally {
    for (const t of list) t.dispose();
  }
}
