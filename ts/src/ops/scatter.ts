/**
 * `scatter_reduce` (sum, prod, mean, amax, amin; `include_self`: the core's Scatter kernel, the
 * reductions atomic on the GPU), `mode`, and `torch.detach`.
 *
 * `mode` counts equal pairs along the dim (O(n²) memory per row: fine for the sizes it sees,
 * stated here because it is not PyTorch's cost).
 *
 * @module
 */

import { checkInts } from "../args.js";
import { TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { arange } from "./creation.js";
import { where } from "./conditional.js";
import { Tensor, checkTensor, wrap, wrapDim } from "../tensor/tensor.js";
import { valuesIndices } from "../tensor/tuples.js";
import type { SortResult } from "./sorting.js";

/** The reductions of {@link scatter_reduce}. */
export type ScatterReduce = "sum" | "prod" | "mean" | "amax" | "amin";

declare module "../tensor/tensor.js" {
  interface Tensor {
    /**
     * `this` with `src` reduced into it at `index` along `dim` (`include_self`: the existing
     * values take part; default true).
     */
    scatter_reduce(
      dim: number,
      index: Tensor,
      src: Tensor,
      reduce: ScatterReduce,
      options?: { include_self?: boolean },
    ): Tensor;
    /** The most frequent value along `dim` (the smallest on ties) and the last index where it occurs. */
    mode(dim?: number, keepdim?: boolean): SortResult;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

proto.scatter_reduce = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
  reduce: ScatterReduce,
  options: { include_self?: boolean } = {},
) {
  const idx = checkTensor("scatter_reduce", "index", index);
  const s = checkTensor("scatter_reduce", "src", src);
  const d = checkInts("scatter_reduce", "dim", [dim])[0]!;
  return wrap(
    this._raw.scatter_reduce(
      d,
      idx._raw,
      s._raw,
      String(reduce),
      options.include_self ?? true,
    ),
  );
};

proto.mode = function (this: Tensor, dim = -1, keepdim = false) {
  if (this.ndim === 0) {
    wrapDim(dim, 1);
    return valuesIndices(this.clone(), this.mul(0).to("int64"));
  }
  const d = wrapDim(dim, this.ndim);
  const n = this.shape[d]!;
  if (n === 0)
    throw new TorchError(
      "mode(): Expected reduction dim 0 to have non-zero size.",
    );
  return scope(() => {
    const x = this.movedim(d, -1);
    const counts = x.unsqueeze(-1).eq(x.unsqueeze(-2)).sum(-1);
    const best = counts.amax(-1, true);
    const big = x.amax(-1, true);
    const value = where(counts.eq(best), x, big).amin(-1, true);
    const pos = arange(n, { dtype: "int64", device: this.device });
    const index = where(x.eq(value), pos, -1).amax(-1, true);
    // The value read at its index, so the gradient goes there (as PyTorch's mode backward).
    const v = x.gather(-1, index).movedim(-1, d);
    const i = index.movedim(-1, d);
    return keepdim
      ? valuesIndices(v, i)
      : valuesIndices(v.squeeze(d), i.squeeze(d));
  });
};

/** `input` with `src` reduced in at `index`. See {@link Tensor.scatter_reduce}. */
export function scatter_reduce(
  input: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
  reduce: ScatterReduce,
  options?: { include_self?: boolean },
): Tensor {
  return checkTensor("scatter_reduce", "input", input).scatter_reduce(
    dim,
    index,
    src,
    reduce,
    options,
  );
}

/** The most frequent value along `dim`. See {@link Tensor.mode}. */
export function mode(
  input: Tensor,
  dim?: number,
  keepdim?: boolean,
): SortResult {
  return checkTensor("mode", "input", input).mode(dim, keepdim);
}

/** `input.detach()`: the same values, cut from the autograd graph. */
export function detach(input: Tensor): Tensor {
  return checkTensor("detach", "input", input).detach();
}
