/**
 * `torch.where(cond, input, other)` and `masked_fill`: elementwise selection (one fused node in
 * the core, so it joins the kernel of its neighbours). Scalars on either side promote as Python
 * numbers do (an integral number is an int, a boolean a bool).
 *
 * @module
 */

import { type Scalar, Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import { TorchError } from "../errors.js";

declare module "../tensor/tensor.js" {
  interface Tensor {
    /** `torch.where(condition, this, other)`. */
    where(condition: Tensor, other: Tensor | Scalar): Tensor;
    /** A copy with `value` (cast to this dtype) where `mask` (bool, broadcast) is true. */
    masked_fill(mask: Tensor, value: Scalar): Tensor;
  }
}

/** The scalar kind code of the core: 0 bool, 1 int, 2 float. */
function kind(v: Scalar): number {
  return typeof v === "boolean" ? 0 : Number.isInteger(v) ? 1 : 2;
}

function checkScalar(arg: string, v: unknown): Scalar {
  if (typeof v === "number" || typeof v === "boolean") return v;
  throw new TorchError(
    `where(): argument '${arg}' must be Tensor or Number, not ${v === null ? "null" : typeof v}`,
  );
}

/** `input` where `condition` is true, else `other` (all three broadcast; bool `condition`). */
export function where(
  condition: Tensor,
  input: Tensor | Scalar,
  other: Tensor | Scalar,
): Tensor {
  const cond = checkTensor("where", "condition", condition)._raw;
  if (input instanceof Tensor) {
    if (other instanceof Tensor)
      return wrap(cond.where_tensors(input._raw, other._raw));
    const v = checkScalar("other", other);
    return wrap(cond.where_scalar(input._raw, Number(v), kind(v), false));
  }
  const a = checkScalar("input", input);
  if (other instanceof Tensor)
    return wrap(cond.where_scalar(other._raw, Number(a), kind(a), true));
  const b = checkScalar("other", other);
  return wrap(cond.where_scalars(Number(a), kind(a), Number(b), kind(b)));
}

/** `input.masked_fill(mask, value)`. See {@link Tensor.masked_fill}. */
export function masked_fill(
  input: Tensor,
  mask: Tensor,
  value: Scalar,
): Tensor {
  return checkTensor("masked_fill", "input", input).masked_fill(mask, value);
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
  value: Scalar,
): Tensor {
  const m = checkTensor("masked_fill", "mask", mask);
  return wrap(
    this._raw.masked_fill(m._raw, Number(checkScalar("value", value))),
  );
};
