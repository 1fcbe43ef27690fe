/**
 * The in-place forms' last step: the computed result copied into the target (then freed).
 *
 * @module
 */

import type { Tensor } from "./tensor.js";

/** Copies `result` into `target`, frees `result`, returns `target`. */
export function writeBack<T extends Tensor>(target: T, result: Tensor): T {
  try {
    target.copy_(result);
  } finally {
    result.dispose();
  }
  return target;
}
