/**
 * The `masked_scatter`/`masked_scatter_` `Tensor` methods: declared on `Tensor` and installed on
 * its prototype; the `torch.*` function is in ops/masked_scatter.ts.
 *
 * @module
 */

import { checkValues } from "../../ops/value_checks.js";
import { methodArgs } from "../../schema/index.js";
import { scalarTypeName } from "../../dtype.js";
import { DTypeError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { where } from "../../ops/conditional.js";
import { broadcastPair } from "../../ops/broadcast.js";
import { Tensor, checkTensor } from "../tensor.js";
import { writeBack } from "../write_back.js";

declare module "../tensor.js" {
  interface Tensor {
    /**
     * A copy with the elements where `mask` (broadcast to this shape) is true replaced, in
     * row-major order, by the leading elements of `source`.
     */
    masked_scatter(mask: Tensor, source: Tensor): Tensor;
    /** {@link Tensor.masked_scatter} in place (the mask broadcast to this shape). */
    masked_scatter_(mask: Tensor, source: Tensor): this;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

function maskedScatter(
  self: Tensor,
  mask: Tensor,
  source: Tensor,
  inPlace: boolean,
): Tensor {
  const m = checkTensor("masked_scatter", "mask", mask);
  const s = checkTensor("masked_scatter", "source", source);
  if (m.dtype !== "bool")
    throw new DTypeError(
      `masked_scatter_ only supports boolean masks, but got mask with dtype ${scalarTypeName(m.dtype)}`,
    );
  if (s.dtype !== self.dtype)
    throw new DTypeError(
      `masked_scatter: expected self and source to have same dtypes but got${scalarTypeName(self.dtype)} and ${scalarTypeName(s.dtype)}`,
    );
  return scope(() => {
    let x = self;
    let mb = m;
    if (inPlace) mb = m.expand(self.shape);
    else {
      const [a, c] = broadcastPair(self, m);
      x = a;
      mb = c;
    }
    const flat = mb.reshape(-1);
    // The running count of true elements; its last is the count.
    const count = flat.to("int64").cumsum(0);
    // PyTorch's check (a count past the source's size), on the count's device. On WebGPU its
    // failure is raised by reads of what is computed from the checked tensor: the ranks and the
    // mask below are, so a read of the result raises.
    checkValues(count, 0, s.numel(), {
      low: "Number of elements of source < number of ones in mask",
    });
    // A true element's running count is at least 1: the same mask, computed from the count.
    const picked = mb.logical_and(count.reshape(x.shape).gt(0));
    const rank = count.sub(1).clamp_min(0);
    const src = s.reshape(-1);
    const v =
      src.numel() === 0
        ? x
        : src.index_select(0, rank.clamp_max(src.numel() - 1)).reshape(x.shape);
    return where(picked, v, x);
  });
}

proto.masked_scatter = function (this: Tensor, mask: Tensor, source: Tensor) {
  return maskedScatter(this, mask, source, false);
};
proto.masked_scatter_ = function (this: Tensor, mask: Tensor, source: Tensor) {
  ({ mask, source } = methodArgs(
    "masked_scatter",
    this,
    arguments,
    "masked_scatter_",
  ));
  return writeBack(this, maskedScatter(this, mask, source, true));
};
