/**
 * Statistics of variables: `cov` (the covariance matrix of the rows) and `corrcoef` (Pearson
 * correlation coefficients), composed from `mean`, `matmul` and `diagonal`.
 *
 * @module
 */

import { DTypeError, TorchError } from "../errors.js";
import { defaultFloat } from "../defaults.js";
import { isFloatingPoint } from "../dtype.js";
import { scope } from "../lifetime.js";
import type { Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";

/**
 * The covariance matrix of the variables in the rows of `input` (observations in the columns),
 * divided by `N - correction`.
 */
export function cov(input: Tensor, options?: { correction?: number }): Tensor {
  const { input: t, correction } = args("cov", arguments);
  checkRank("cov", t);
  if (t.dtype === "bool")
    throw new DTypeError("cov(): bool dtype is not supported for input");
  return scope(() => {
    // Integer observations: the covariance in the default float dtype, as PyTorch's.
    const f = isFloatingPoint(t.dtype) ? t : t.to(defaultFloat());
    const x = t.ndim < 2 ? f.reshape(1, -1) : f;
    const n = x.shape[1]!;
    const centered = x.sub(x.mean(1, true));
    const c = centered.matmul(centered.t()).div(Math.max(n - correction, 0));
    return t.ndim < 2 ? c.reshape([]) : c;
  });
}

/** Pearson correlation coefficients of the rows of `input`, clamped to [-1, 1]. */
export function corrcoef(input: Tensor): Tensor {
  const { input: t } = args("corrcoef", arguments);
  checkRank("corrcoef", t);
  return scope(() => {
    const c = cov(t);
    if (c.ndim === 0) return c.div(c);
    const sd = c.diagonal().sqrt();
    return c.div(sd.unsqueeze(1)).div(sd).maximum(-1).minimum(1);
  });
}

function checkRank(fn: string, t: Tensor): void {
  if (t.ndim > 2)
    throw new TorchError(
      `${fn}(): expected input to have two or fewer dimensions but got an input with ${t.ndim} dimensions`,
    );
}
