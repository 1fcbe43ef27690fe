/**
 * `torch.where(cond, input, other)` and `masked_fill`: elementwise selection (one fused node in
 * the core, so it joins the kernel of its neighbours). Scalars on either side promote as Python
 * numbers do (an integral number is an int, a boolean a bool).
 *
 * @module
 */

import { type Scalar, Tensor, wrap } from "../tensor/tensor.js";
import { cTypeName } from "../dtype.js";
import { TorchError } from "../errors.js";
import { args, methodArgs } from "../schema/index.js";
import { scope } from "../lifetime.js";
import { nonzero } from "./unique.js";

declare module "../tensor/tensor.js" {
  interface Tensor {
    /** `torch.where(condition, this, other)`. */
    where(condition: Tensor, other: Tensor | Scalar): Tensor;
    /** A copy with `value` (cast to this dtype) where `mask` (bool, broadcast) is true. */
    masked_fill(mask: Tensor, value: Tensor | Scalar): Tensor;
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
): Tensor;
/**
 * `torch.where(condition)`: `nonzero(condition, { as_tuple: true })`, one index tensor per dim.
 * Its length depends on the values, which are read back first: a `Promise`.
 */
export function where(condition: Tensor): Promise<Tensor[]>;
export function where(
  condition: Tensor,
  input?: Tensor | Scalar | null,
  other?: Tensor | Scalar | null,
): Tensor | Promise<Tensor[]> {
  const single = arguments.length === 1;
  ({ condition, input, other } = args("where", arguments));
  if (single)
    return nonzero(condition, { as_tuple: true }) as Promise<Tensor[]>;
  const cond = condition._raw;
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
  value: Tensor | Scalar,
): Tensor {
  ({ input, mask, value } = args("masked_fill", arguments));
  return maskedFill(input, mask, value);
}

/**
 * A number fills through the core's masked_fill; a 0-d tensor (cast to `x`'s dtype) through
 * `where`, which passes it the gradient summed over the filled elements, as PyTorch does.
 */
function maskedFill(x: Tensor, mask: Tensor, value: Tensor | Scalar): Tensor {
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
