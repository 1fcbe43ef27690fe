/**
 * Window functions (`hann_window`, `hamming_window`, `blackman_window`, `bartlett_window`,
 * `kaiser_window`), composed from `arange` and pointwise ops in PyTorch's order of operations.
 *
 * @module
 */

import { type CreationOptions, checkFloat, checkInts } from "../args.js";
import { TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { get_default_device } from "../runtime.js";
import type { Tensor } from "../tensor/tensor.js";
import { arange, full, ones } from "./creation.js";
import { where } from "./conditional.js";

/** Options of the window functions. */
export interface WindowOptions extends CreationOptions {
  /** A periodic window (for spectral analysis; the default) or a symmetric one (filter design). */
  periodic?: boolean;
}

/**
 * `alpha - beta cos(2πn / N')` over `arange(N)`, N' = N (periodic) or N - 1; PyTorch's order of
 * operations, so the values round as its do.
 */
function cosineWindow(
  fn: string,
  length: number,
  options: WindowOptions,
  terms: (n: Tensor, denom: number) => Tensor,
): Tensor {
  const n = checkInts(fn, "window_length", [length])[0]!;
  if (n < 0)
    throw new TorchError(
      `${fn} requires non-negative window_length, got window_length=${n}`,
    );
  const dtype = options.dtype ?? "float32";
  checkFloat(fn, dtype);
  const device = options.device ?? get_default_device();
  if (n <= 1) return ones([n], { dtype, device });
  const denom = (options.periodic ?? true) ? n : n - 1;
  return scope(() => terms(arange(n, { dtype, device }), denom));
}

/** The Hann window: `0.5 - 0.5 cos(2πn / N')`. */
export function hann_window(
  window_length: number,
  options: WindowOptions = {},
): Tensor {
  return hamming_window(
    window_length,
    { ...options, alpha: 0.5, beta: 0.5 },
    "hann_window",
  );
}

/** The Hamming window: `alpha - beta cos(2πn / N')` (0.54 and 0.46 by default). */
export function hamming_window(
  window_length: number,
  options: WindowOptions & { alpha?: number; beta?: number } = {},
  fn = "hamming_window",
): Tensor {
  const alpha = options.alpha ?? 0.54;
  const beta = options.beta ?? 0.46;
  return cosineWindow(fn, window_length, options, (n, denom) =>
    n
      .mul((2 * Math.PI) / denom)
      .cos()
      .mul(-beta)
      .add(alpha),
  );
}

/** The Blackman window: `0.42 - 0.5 cos(2πn / N') + 0.08 cos(4πn / N')`. */
export function blackman_window(
  window_length: number,
  options: WindowOptions = {},
): Tensor {
  return cosineWindow("blackman_window", window_length, options, (n, denom) => {
    const w = n.mul(Math.PI / denom);
    return w.mul(4).cos().mul(0.08).sub(w.mul(2).cos().mul(0.5)).add(0.42);
  });
}

/** The Bartlett (triangular) window: `2n / N'` up to the middle, `2 - 2n / N'` after. */
export function bartlett_window(
  window_length: number,
  options: WindowOptions = {},
): Tensor {
  return cosineWindow("bartlett_window", window_length, options, (n, denom) => {
    const w = n.mul(2 / denom);
    // Indices past N' / 2 take the falling side.
    const falling = arange(n.shape[0]!, { device: n.device }).gt(
      Math.floor(denom / 2),
    );
    return where(falling, w.neg().add(2), w);
  });
}

/**
 * The Kaiser window: `I₀(β sqrt(1 - ((n - N'/2) / (N'/2))²)) / I₀(β)` over `arange(N)`, N' = N
 * (periodic) or N - 1; `beta` (default 12) trades main-lobe width for side-lobe level.
 */
export function kaiser_window(
  window_length: number,
  options: WindowOptions & { beta?: number } = {},
): Tensor {
  const beta = options.beta ?? 12.0;
  return cosineWindow("kaiser_window", window_length, options, (n, denom) => {
    const alpha = denom / 2;
    const r = n.sub(alpha).div(alpha);
    const w = r.mul(r).neg().add(1).sqrt().mul(beta).i0();
    return w.div(full([], beta, { dtype: n.dtype, device: n.device }).i0());
  });
}
