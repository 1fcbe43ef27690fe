/**
 * The `Tensor` methods of the ops in ops/indexing.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/indexing.ts.
 *
 * @module
 */

import { checkInts } from "../../args.js";
import { Tensor, checkTensor, wrap } from "../tensor.js";
import { TorchError } from "../../errors.js";

declare module "../tensor.js" {
  interface Tensor {
    /** The slices at `index` (a 1-D int64/int32 tensor) along `dim`. */
    index_select(dim: number, index: Tensor): Tensor;
    /** `out[i][j] = this[index[i][j]][j]` (dim 0; likewise for other dims). */
    gather(dim: number, index: Tensor): Tensor;
    /** `torch.take_along_dim(this, indices, dim)`. */
    take_along_dim(indices: Tensor, dim?: number | null): Tensor;
    /**
     * A copy with `src` (a tensor, or a number cast to this dtype) written along `dim` at
     * `index`: `out[index[i][j]][j] = src[i][j]` (dim 0). Repeated indices: unspecified winner.
     */
    scatter(dim: number, index: Tensor, src: Tensor | number | boolean): Tensor;
    /** A copy with `src` added along `dim` at `index` (repeated indices accumulate). */
    scatter_add(dim: number, index: Tensor, src: Tensor): Tensor;
  }
}

export function dimArg(fn: string, dim: unknown): number {
  return checkInts(fn, "dim", [dim])[0]!;
}

const proto = Tensor.prototype as unknown as Record<
  string,
  (this: Tensor, ...args: never[]) => Tensor
>;

proto.index_select = function (
  this: Tensor,
  dim: number,
  index: Tensor,
): Tensor {
  const i = checkTensor("index_select", "index", index);
  return wrap(this._raw.index_select(dimArg("index_select", dim), i._raw));
};

proto.gather = function (this: Tensor, dim: number, index: Tensor): Tensor {
  const i = checkTensor("gather", "index", index);
  return wrap(this._raw.gather(dimArg("gather", dim), i._raw));
};

proto.take_along_dim = function (
  this: Tensor,
  indices: Tensor,
  dim?: number | null,
): Tensor {
  const i = checkTensor("take_along_dim", "indices", indices);
  const d =
    dim === undefined || dim === null
      ? undefined
      : dimArg("take_along_dim", dim);
  return wrap(this._raw.take_along_dim(i._raw, d));
};

proto.scatter = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor | number | boolean,
): Tensor {
  const i = checkTensor("scatter", "index", index);
  const d = dimArg("scatter", dim);
  if (src instanceof Tensor)
    return wrap(this._raw.scatter(d, i._raw, src._raw));
  if (typeof src !== "number" && typeof src !== "boolean") {
    throw new TorchError(
      `scatter(): argument 'src' must be Tensor or Number, not ${typeof src}`,
    );
  }
  return wrap(this._raw.scatter_value(d, i._raw, Number(src)));
};

proto.scatter_add = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
): Tensor {
  const i = checkTensor("scatter_add", "index", index);
  const s = checkTensor("scatter_add", "src", src);
  return wrap(
    this._raw.scatter_add(dimArg("scatter_add", dim), i._raw, s._raw),
  );
};
