/**
 * `torch.where(cond, input, other)` and `masked_fill`: elementwise selection (one fused node in
 * the core, so it joins the kernel of its neighbours). Scalars on either side promote as Python
 * numbers do (an integral number is an int, a boolean a bool).
 *
 * @module
 */

import { type Scalar, Tensor, wrap } from "../tensor/tensor.js";
import { TorchError } from "../errors.js";
import { args } from "../schema/index.js";
import { nonzero } from "./unique.js";
import { maskedFill } from "../tensor/methods/conditional.js";

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
