/**
 * `torch.special`: PyTorch's special functions under their `torch.special` names. Each is an
 * op-table row (a WGSL and a CPU kernel; differentiable), the same function as its `torch.*`
 * spelling where PyTorch has one there too.
 *
 * @module
 */

import {
  digamma,
  erf,
  erfc,
  erfinv,
  exp2,
  expm1,
  i0,
  lgamma,
  log1p,
  logit,
  sigmoid,
  sinc,
  special_i0e,
  special_i1,
  special_i1e,
  xlogy,
} from "./ops/ops.js";

export {
  digamma,
  erf,
  erfc,
  erfinv,
  exp2,
  expm1,
  i0,
  log1p,
  logit,
  sinc,
  xlogy,
};
/** `e^-|input| I₀(input)`, the exponentially scaled modified Bessel function of order 0. */
export const i0e = special_i0e;
/** `I₁(input)`, the modified Bessel function of the first kind of order 1. */
export const i1 = special_i1;
/** `e^-|input| I₁(input)`, the exponentially scaled modified Bessel function of order 1. */
export const i1e = special_i1e;
/** The logistic sigmoid, `torch.sigmoid`. */
export const expit = sigmoid;
/** `torch.digamma`. */
export const psi = digamma;
/** `log|Γ(input)|`, `torch.lgamma`. */
export const gammaln = lgamma;
