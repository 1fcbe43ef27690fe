/**
 * PyTorch's `(values, indices)` named tuples (`max(dim)`, `sort`, `topk`, `mode`, …), built in one
 * place for the modules that return them. Internal: not re-exported by the package entry.
 *
 * @module
 */

import type { ValuesIndices } from "../ops/reductions.js";
import { type Tensor, wrap } from "./tensor.js";
import type { RawTensor } from "../wasm/webtorch_core.js";

/** The named tuple of two tensors. */
export function valuesIndices(values: Tensor, indices: Tensor): ValuesIndices {
  // The core's indices are int64 (the named tuple's type says so).
  const idx = indices as Tensor<number[], "int64">;
  return Object.assign([values, idx] as [Tensor, typeof idx], {
    values,
    indices: idx,
  });
}

/** {@link valuesIndices} of the core's `[values, indices]` handles. */
export function pair(raws: RawTensor[]): ValuesIndices {
  const [values, indices] = raws.map(wrap) as [Tensor, Tensor];
  return valuesIndices(values, indices);
}
