/**
 * The `Tensor` methods of the ops in ops/index_put.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/index_put.ts.
 *
 * @module
 */

import { methodArgs } from "../../schema/index.js";
import { writeBack } from "../write_back.js";
import { Tensor } from "../tensor.js";
import { indexPut } from "../../ops/index_put.js";

declare module "../tensor.js" {
  interface Tensor {
    /**
     * `this[indices] = values` in place (`accumulate`: `this[indices] += values`, repeated
     * indices adding up). `indices` holds one entry per leading dim: an int64/int32 tensor (the
     * tensors broadcast together) or a bool/uint8 mask covering as many dims as it has; the
     * dims after the last entry are whole (`None` is refused, as PyTorch does). Returns this
     * tensor.
     */
    index_put_(
      indices: readonly Tensor[],
      values: Tensor | number | boolean,
      accumulate?: boolean,
    ): this;
    /** {@link Tensor.index_put_} on a copy. */
    index_put(
      indices: readonly Tensor[],
      values: Tensor | number | boolean,
      accumulate?: boolean,
    ): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

proto.index_put = function (this: Tensor) {
  const a = methodArgs("index_put", this, arguments);
  return indexPut(this, a.indices, a.values, a.accumulate);
};

proto.index_put_ = function (this: Tensor) {
  const a = methodArgs("index_put_", this, arguments);
  return writeBack(this, indexPut(this, a.indices, a.values, a.accumulate));
};
