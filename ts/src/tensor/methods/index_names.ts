/**
 * The `Tensor` methods of the ops in ops/index_names.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/index_names.ts.
 *
 * @module
 */

import { type DType, scalarTypeName } from "../../dtype.js";
import { DTypeError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { methodArgs } from "../../schema/index.js";
import { Tensor } from "../tensor.js";
import { where } from "../../ops/conditional.js";
import {
  gcd,
  lcm,
  type Frexp,
  frexp,
  type IndexReduce,
  index_reduce,
} from "../../ops/index_names.js";

/**
 * Euclid's steps that always reach gcd for integers of each dtype: a pair below 2^b needs at most
 * about 1.44·b steps (the Fibonacci bound).
 */
const EUCLID_STEPS: Partial<Record<DType, number>> = {
  uint8: 13,
  int32: 47,
  int64: 93,
};

function checkInteger(fn: string, t: Tensor): number {
  const steps = EUCLID_STEPS[t.dtype];
  if (steps === undefined)
    throw new DTypeError(
      `"${fn}_cpu" not implemented for '${scalarTypeName(t.dtype)}'`,
    );
  return steps;
}

/** The greatest common divisor of `|a|` and `|b|` (broadcast; integer dtypes; gcd(0, 0) = 0). */
export function gcdOf(a: Tensor, b: Tensor, fn: string): Tensor {
  checkInteger(fn, a);
  checkInteger(fn, b);
  return scope(() => {
    let x = a.abs().add(b.mul(0));
    let y = b.abs().add(a.mul(0));
    const steps = checkInteger(fn, x);
    for (let i = 0; i < steps; i++) {
      const done = y.eq(0);
      const r = x.remainder(where(done, 1, y));
      x = where(done, x, y);
      y = where(done, 0, r);
    }
    return x;
  });
}

declare module "../tensor.js" {
  interface Tensor {
    /** See {@link gcd}. */
    gcd(other: Tensor): Tensor;
    /** See {@link lcm}. */
    lcm(other: Tensor): Tensor;
    /** See {@link frexp}. */
    frexp(): Frexp;
    /** See {@link index_reduce}. */
    index_reduce(
      dim: number,
      index: Tensor,
      source: Tensor,
      reduce: IndexReduce,
      options?: { include_self?: boolean },
    ): Tensor;
  }
}

const proto = Tensor.prototype as unknown as Record<string, unknown>;

proto.gcd = function (this: Tensor): Tensor {
  const a = methodArgs("gcd", this, arguments);
  return gcdOf(this, a.other, "gcd");
};

proto.lcm = function (this: Tensor): Tensor {
  const a = methodArgs("lcm", this, arguments);
  return lcm(this, a.other);
};

proto.frexp = function (this: Tensor): Frexp {
  methodArgs("frexp", this, arguments);
  return frexp(this);
};

proto.index_reduce = function (this: Tensor): Tensor {
  const a = methodArgs("index_reduce", this, arguments);
  return index_reduce(this, a.dim, a.index, a.source, a.reduce as IndexReduce, {
    include_self: a.include_self,
  });
};
