/**
 * The elementwise `Tensor` methods: one per op-table row, each a single core call. Their types
 * come from the rows' schema entries (schema/elementwise.yaml → `schema/generated_rows.ts`), the
 * methods are installed here on `Tensor.prototype` from the same lists: a new row needs nothing
 * in this file.
 *
 * @module
 */

import { divRounding, isOperand, roundDecimals } from "../ops/op_rows.js";
import { methodArgs } from "../schema/index.js";
import { BINARY_OPS, UNARY_OPS } from "../ops/opnames.js";
import type { RowMethods } from "../schema/generated_rows.js";
import {
  type Scalar,
  Tensor,
  type DTypeT,
  type FloatOf,
  type Promote,
  type ShapeT,
} from "./tensor.js";
import { binary, unary, withAlpha } from "../ops/op_rows.js";
import type { DType } from "../dtype.js";
import type { BroadcastShape, CheckBroadcast, Dims } from "../shapes.js";

// The rows' method types are generated from their schema entries (schema/elementwise.yaml).
declare module "./tensor.js" {
  interface Tensor<
    S extends Dims = number[],
    D extends DType = DType,
  > extends RowMethods<S, D> {}
}

/** How a binary op's result dtype follows from its operands'. */
type BinaryKind = "promote" | "float" | "bool";

/** The result dtype of a binary op of kind `K` on dtypes `A` and `B`. */
type BinaryDType<
  K extends BinaryKind,
  A extends DType,
  B extends DType,
> = K extends "bool"
  ? "bool"
  : K extends "float"
    ? FloatOf<Promote<A, B>>
    : Promote<A, B>;

/**
 * The type of every binary elementwise method (one shape for all of them): with a scalar, the
 * same shape; with a tensor, the broadcast shape (a compile error when the shapes cannot
 * broadcast) and the dtype `BinaryDType<K, …>`. `Extra`: further arguments (add/sub's alpha).
 */
export interface BinaryMethod<
  S extends Dims,
  D extends DType,
  K extends BinaryKind,
  Extra extends unknown[] = [],
> {
  (
    other: Scalar,
    ...extra: Extra
  ): Tensor<S, K extends "bool" ? "bool" : FloatOf<D>>;
  <Self extends Tensor<Dims>, O extends Dims, E extends DType>(
    this: Self,
    other: (Tensor<O, E> & CheckBroadcast<ShapeT<Self>, O>) | Scalar,
    ...extra: Extra
  ): Tensor<BroadcastShape<ShapeT<Self>, O>, BinaryDType<K, DTypeT<Self>, E>>;
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => Tensor>;
const proto = Tensor.prototype as unknown as Methods;
for (const op of UNARY_OPS) {
  proto[op] = function (this: Tensor): Tensor {
    if (arguments.length > 0) methodArgs(op, this, arguments); // throws
    return unary(op, this);
  };
}
for (const op of BINARY_OPS) {
  proto[op] =
    op === "add" || op === "sub"
      ? function (this: Tensor, other: unknown): Tensor {
          if (arguments.length === 1 && isOperand(other))
            return binary(op, this, other);
          const a = methodArgs(op, this, arguments);
          return withAlpha(op, this, a.other, { alpha: Number(a.alpha) });
        }
      : function (this: Tensor, other: unknown): Tensor {
          if (arguments.length === 1 && isOperand(other))
            return binary(op, this, other);
          return binary(op, this, methodArgs(op, this, arguments).other);
        };
}
proto.round = function (this: Tensor): Tensor {
  return roundDecimals(this, methodArgs("round", this, arguments).decimals);
};
proto.div = function (this: Tensor, other: unknown): Tensor {
  if (arguments.length === 1 && isOperand(other))
    return binary("div", this, other);
  const a = methodArgs("div", this, arguments);
  return divRounding(this, a.other, a.rounding_mode);
};
