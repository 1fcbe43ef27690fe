/**
 * The `Tensor` methods of the ops in ops/aliases.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/aliases.ts.
 *
 * @module
 */

import { Tensor } from "../tensor.js";

/** alias → the op it names (PyTorch's NumPy-compatible spellings). */
const ALIASES = {
  absolute: "abs",
  arccos: "acos",
  arccosh: "acosh",
  arcsin: "asin",
  arcsinh: "asinh",
  arctan: "atan",
  arctan2: "atan2",
  divide: "div",
  multiply: "mul",
  subtract: "sub",
  negative: "neg",
  fix: "trunc",
} as const;

declare module "../tensor.js" {
  interface Tensor {
    /** `abs`. */
    absolute(): Tensor;
    /** `acos`. */
    arccos(): Tensor;
    /** `acosh`. */
    arccosh(): Tensor;
    /** `asin`. */
    arcsin(): Tensor;
    /** `asinh`. */
    arcsinh(): Tensor;
    /** `atan`. */
    arctan(): Tensor;
    /** `atan2`. */
    arctan2(other: Tensor | Scalar): Tensor;
    /** `div`. */
    divide(other: Tensor | Scalar): Tensor;
    /** `mul`. */
    multiply(other: Tensor | Scalar): Tensor;
    /** `sub` (with `alpha`). */
    subtract(other: Tensor | Scalar, options?: { alpha?: number }): Tensor;
    /** `neg`. */
    negative(): Tensor;
    /** `trunc`. */
    fix(): Tensor;
    /** {@link Tensor.absolute} in place. */
    absolute_(): this;
    /** {@link Tensor.arccos} in place. */
    arccos_(): this;
    /** {@link Tensor.arccosh} in place. */
    arccosh_(): this;
    /** {@link Tensor.arcsin} in place. */
    arcsin_(): this;
    /** {@link Tensor.arcsinh} in place. */
    arcsinh_(): this;
    /** {@link Tensor.arctan} in place. */
    arctan_(): this;
    /** {@link Tensor.arctan2} in place. */
    arctan2_(other: Tensor | Scalar): this;
    /** {@link Tensor.divide} in place. */
    divide_(other: Tensor | Scalar): this;
    /** {@link Tensor.multiply} in place. */
    multiply_(other: Tensor | Scalar): this;
    /** {@link Tensor.subtract} in place. */
    subtract_(other: Tensor | Scalar, options?: { alpha?: number }): this;
    /** {@link Tensor.negative} in place. */
    negative_(): this;
    /** {@link Tensor.fix} in place. */
    fix_(): this;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

for (const [alias, op] of Object.entries(ALIASES)) {
  proto[alias] = proto[op]!;
  // The in-place forms are installed later (tensor/autograd.ts): look them up at call time.
  proto[`${alias}_`] = function (this: Tensor, ...args: never[]) {
    return (proto[`${op}_`] as (...a: never[]) => unknown).apply(this, args);
  };
}
