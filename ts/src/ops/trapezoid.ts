/**
 * The trapezoid rules: `trapezoid` (alias `trapz`), the integral along a dim, and
 * `cumulative_trapezoid`, its running form; with unit spacing, `{ dx }`, or sample points `x`.
 *
 * @module
 */

import {
  ArgumentError,
  DTypeError,
  IndexError,
  TorchError,
} from "../errors.js";
import { scope } from "../lifetime.js";
import { args } from "../schema/index.js";
import { type Tensor, wrapDim } from "../tensor/tensor.js";

/** PyTorch's refusal of bool samples in the trapezoid rules (`fn`). */
function checkTrapezoid(fn: string, y: Tensor, x: Tensor | null): void {
  if (x !== null && (x.dtype === "bool" || y.dtype === "bool"))
    throw new DTypeError(
      `${fn}: received a bool input for \`x\` or \`y\`, but bool is not supported`,
    );
  if (y.dtype === "bool")
    throw new DTypeError(
      `${fn}: received a bool input for \`y\`, but bool is not supported`,
    );
}

/**
 * The trapezoid rule along `dim` (default the last): `trapezoid(y)` with unit spacing,
 * `trapezoid(y, { dx })`, or `trapezoid(y, x)` with sample points `x`.
 */
export function trapezoid(
  y: Tensor,
  x?: Tensor | { dx?: number; dim?: number } | null,
  options?: { dx?: number; dim?: number },
): Tensor {
  const a = args("trapezoid", arguments);
  y = a.y;
  const xt = a.x;
  if (xt !== null && a.dx !== null)
    throw new ArgumentError(
      "trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dx=float), but expected one of: (Tensor y, Tensor x, *, int dim = -1), (Tensor y, *, Number dx = 1, int dim = -1)",
    );
  checkTrapezoid("trapezoid", y, xt);
  if (y.ndim === 0)
    throw new IndexError(
      `Dimension specified as ${a.dim} but tensor has no dimensions`,
    );
  const d = wrapDim(a.dim, y.ndim);
  const n = y.shape[d]!;
  if (xt !== null && xt.ndim === 1 && xt.shape[0] !== n)
    throw new TorchError(
      "trapezoid: There must be one `x` value for each sample point",
    );
  return scope(() => {
    if (n === 0) return y.sum(d);
    const pairs = y.narrow(d, 1, n - 1).add(y.narrow(d, 0, n - 1));
    if (xt !== null) {
      const xs =
        xt.ndim === 1
          ? xt.reshape([n, ...new Array<number>(y.ndim - 1 - d).fill(1)])
          : xt;
      const dd = xt.ndim === 1 ? 0 : d;
      const dx = xs.narrow(dd, 1, n - 1).sub(xs.narrow(dd, 0, n - 1));
      return dx.mul(pairs).sum(d).div(2);
    }
    // PyTorch's formula for uniform spacing: (sum - (first + last) / 2) * dx.
    const dx = a.dx ?? 1;
    const ends = y.select(d, 0).add(y.select(d, -1)).mul(0.5);
    return y.sum(d).sub(ends).mul(dx);
  });
}

/** Alias of {@link trapezoid}. */
export const trapz = trapezoid;

/**
 * The running trapezoid rule along `dim`: `cumulative_trapezoid(y)` with unit spacing,
 * `{ dx }`, or sample points `x`. The result is one shorter than `y` along `dim`.
 */
export function cumulative_trapezoid(
  y: Tensor,
  x?: Tensor | { dx?: number; dim?: number } | null,
  options?: { dx?: number; dim?: number },
): Tensor {
  const a = args("cumulative_trapezoid", arguments);
  const yt = a.y;
  if (a.x !== null && a.dx !== null)
    throw new TorchError(
      "cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dx=float), but expected one of: (Tensor y, Tensor x, *, int dim = -1), (Tensor y, *, Number dx = 1, int dim = -1)",
    );
  checkTrapezoid("cumulative_trapezoid", yt, a.x);
  // PyTorch's cumulative_trapezoid slices `y` before it looks at `dim`.
  if (yt.ndim === 0)
    throw new IndexError("slice() cannot be applied to a 0-dim tensor.");
  const d = wrapDim(a.dim, yt.ndim);
  const n = yt.shape[d]!;
  if (a.x !== null && a.x.ndim === 1 && a.x.shape[0] !== n)
    throw new TorchError(
      "cumulative_trapezoid: There must be one `x` value for each sample point",
    );
  return scope(() => {
    if (n === 0) return yt.narrow(d, 0, 0).mul(1);
    const pairs = yt.narrow(d, 1, n - 1).add(yt.narrow(d, 0, n - 1));
    const xt = a.x;
    if (xt !== null) {
      const xs =
        xt.ndim === 1
          ? xt.reshape([n, ...new Array<number>(yt.ndim - 1 - d).fill(1)])
          : xt;
      const dd = xt.ndim === 1 ? 0 : d;
      const dx = xs.narrow(dd, 1, n - 1).sub(xs.narrow(dd, 0, n - 1));
      return dx.mul(pairs).div(2).cumsum(d);
    }
    return pairs.mul((a.dx ?? 1) / 2).cumsum(d);
  });
}
