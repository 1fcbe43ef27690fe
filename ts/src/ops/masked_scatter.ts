/**
 * `masked_scatter`/`masked_scatter_`: the elements where a mask is true replaced, in row-major
 * order, by the leading elements of `source` — each true element's rank among the true ones (a
 * cumulative sum of the mask) picks its source element, so nothing is read back. A source shorter
 * than the mask's true count raises PyTorch's error (on WebGPU at the next read or sync). The
 * `Tensor` methods are in tensor/methods/masked_scatter.ts.
 *
 * @module
 */

import { args } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";

/** `input` with its masked elements replaced by `source`'s. See {@link Tensor.masked_scatter}. */
export function masked_scatter(
  input: Tensor,
  mask: Tensor,
  source: Tensor,
): Tensor {
  const a = args("masked_scatter", arguments);
  return a.input.masked_scatter(a.mask, a.source);
}
