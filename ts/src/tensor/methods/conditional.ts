/**
 * The `Tensor` methods of the ops in ops/conditional.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/conditional.ts.
 *
 * @module
 */

import { type Scalar, Tensor, wrap } from "../tensor.js";
import { cTypeName } from "../../dtype.js";
import { TorchError } from "../../errors.js";
import { methodArgs } from "../../schema/index.js";
import { scope } from "../../lifetime.js";
import { where } from "../../ops/conditional.js";

declare module "../tensor.js" {
  interface Tensor {
    /** `torch.where(condition, this, other)`. */
    where(condition: Tensor, other: Tensor | Scalar): Tensor;
    /** A copy with `value` (cast to this dtype) where `mask` (bool, broadcast) is true. */
    masked_fill(mask: Tensor, value: Tensor | Scalar): Tensor;
  }
}

/**
 * A number fills through the core's masked_fill; a 0-d tensor (cast to `x`'s dtype) through
 * `where`, which passes it the gradient summed over the filled elements, as PyTorch does.
 */
export function maskedFill(
  x: Tensor,
  mask: Tensor,
  value: Tensor | Scalar,
): Tensor {
  if (!(value instanceof Tensor))
    return wrap(x._raw.masked_fill(mask._raw, Number(value)));
  if (value.ndim !== 0)
    throw new TorchError(
      `masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ${value.ndim} dimension(s).`,
    );
  if (mask.dtype !== "bool")
    throw new TorchError(
      `masked_fill_ only supports boolean masks, but got mask with dtype ${cTypeName(mask.dtype)}`,
    );
  return scope(() => where(mask, value.to(x.dtype), x).expand(x.shape));
}

const proto = Tensor.prototype as unknown as Record<
  string,
  (this: Tensor, ...args: never[]) => Tensor
>;

proto.where = function (
  this: Tensor,
  condition: Tensor,
  other: Tensor | Scalar,
): Tensor {
  return where(condition, this, other);
};

proto.masked_fill = function (
  this: Tensor,
  mask: Tensor,
  value: Tensor | Scalar,
): Tensor {
  ({ mask, value } = methodArgs("masked_fill", this, arguments));
  return maskedFill(this, mask, value);
};
