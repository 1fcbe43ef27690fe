/**
 * PyTorch's NumPy-style aliases (`absolute`, `arccos`, …, `divide`, `multiply`, `subtract`,
 * `negative`, `fix`): `torch.*` functions that are the op they name (the `Tensor` methods and
 * their in-place forms: tensor/methods/aliases.ts).
 *
 * @module
 */

import * as ops from "./ops.js";

/** `abs`. */
export const absolute = ops.abs;
/** `acos`. */
export const arccos = ops.acos;
/** `acosh`. */
export const arccosh = ops.acosh;
/** `asin`. */
export const arcsin = ops.asin;
/** `asinh`. */
export const arcsinh = ops.asinh;
/** `atan`. */
export const arctan = ops.atan;
/** `atan2`. */
export const arctan2 = ops.atan2;
/** `div`. */
export const divide = ops.div;
/** `mul`. */
export const multiply = ops.mul;
/** `sub` (with `alpha`). */
export const subtract = ops.sub;
/** `neg`. */
export const negative = ops.neg;
/** `trunc`. */
export const fix = ops.trunc;
