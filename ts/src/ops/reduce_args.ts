/**
 * Helpers the reductions share (internal: not re-exported as `torch.*`).
 *
 * @module
 */

import type { DType } from "../dtype.js";
import type { Tensor } from "../tensor/tensor.js";

/** `input` cast to `dtype` first when one is given, as PyTorch's reductions with `dtype` do. */
export function castFor(input: Tensor, dtype: DType | null): Tensor {
  return dtype === null || dtype === input.dtype ? input : input.to(dtype);
}

/** `var`/`std` (and their `_mean`s): `correction` wins over the legacy `unbiased`. */
export function varCorrection(a: {
  correction: number | boolean | null;
  unbiased: boolean | null;
}): number {
  if (a.correction !== null) return Number(a.correction);
  return a.unbiased === false ? 0 : 1;
}
