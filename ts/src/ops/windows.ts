/**
 * Window functions (`hann_window`, `hamming_window`, `blackman_window`, `bartlett_window`,
 * `kaiser_window`), composed from `arange` and pointwise ops in PyTorch's order of operations.
 *
 * @module
 */

import {
  type CreationOptions,
  checkFloat,
  creationOptions,
  leaf,
} from "../args.js";
import type { DType } from "../dtype.js";
import { TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { get_default_device } from "../runtime.js";
import { defaultFloat } from "../defaults.js";
import type { Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
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
  a: {
    window_length: number;
    periodic: boolean;
    dtype: DType | null;
    device: string | null;
    requires_grad: boolean;
  },
  terms: (n: Tensor, denom: number) => Tensor,
): Tensor {
  const n = a.window_length;
  if (n < 0)
    throw new TorchError(
      `${fn} requires non-negative window_length, got window_length=${n}`,
    );
  const o = creationOptions(a);
  const dtype = o.dtype ?? defaultFloat();
  checkFloat(fn, dtype);
  const device = o.device ?? get_default_device();
  if (n <= 1)
    return ones([n], { dtype, device, requires_grad: o.requires_grad });
  const denom = a.periodic ? n : n - 1;
  return leaf(
    scope(() => terms(arange(n, { dtype, device }), denom)),
    o.requires_grad,
  );
}

/** `alpha - beta cos(2πn / N')`: the Hann and Hamming windows. */
function raisedCosine(alpha: number, beta: number) {
  return (n: Tensor, denom: number): Tensor =>
    n
      .mul((2 * Math.PI) / denom)
      .cos()
      .mul(-beta)
      .add(alpha);
}

/** The Hann window: `0.5 - 0.5 cos(2πn / N')`. */
export function hann_window(
  window_length: number,
  periodic?: boolean,
  options?: CreationOptions,
): Tensor;
export function hann_window(
  window_length: number,
  options?: WindowOptions,
): Tensor;
export function hann_window(): Tensor {
  const a = args("hann_window", arguments);
  return cosineWindow("hann_window", a, raisedCosine(0.5, 0.5));
}

/** The Hamming window: `alpha - beta cos(2πn / N')` (0.54 and 0.46 by default). */
export function hamming_window(
  window_length: number,
  periodic?: boolean,
  alpha?: number,
  beta?: number,
  options?: CreationOptions,
): Tensor;
export function hamming_window(
  window_length: number,
  options?: WindowOptions & { alpha?: number; beta?: number },
): Tensor;
export function hamming_window(): Tensor {
  const a = args("hamming_window", arguments);
  return cosineWindow("hamming_window", a, raisedCosine(a.alpha, a.beta));
}

/** The Blackman window: `0.42 - 0.5 cos(2πn / N') + 0.08 cos(4πn / N')`. */
export function blackman_window(
  window_length: number,
  periodic?: boolean,
  options?: CreationOptions,
): Tensor;
export function blackman_window(
  window_length: number,
  options?: WindowOptions,
): Tensor;
export function blackman_window(): Tensor {
  const a = args("blackman_window", arguments);
  return cosineWindow("blackman_window", a, (n, denom) => {
    const w = n.mul(Math.PI / denom);
    return w.mul(4).cos().mul(0.08).sub(w.mul(2).cos().mul(0.5)).add(0.42);
  });
}

/** The Bartlett (triangular) window: `2n / N'` up to the middle, `2 - 2n / N'` after. */
export function bartlett_window(
  window_length: number,
  periodic?: boolean,
  options?: CreationOptions,
): Tensor;
export function bartlett_window(
  window_length: number,
  options?: WindowOptions,
): Tensor;
export function bartlett_window(): Tensor {
  const a = args("bartlett_window", arguments);
  return cosineWindow("bartlett_window", a, (n, denom) => {
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
  periodic?: boolean,
  beta?: number,
  options?: CreationOptions,
): Tensor;
export function kaiser_window(
  window_length: number,
  options?: WindowOptions & { beta?: number },
): Tensor;
export function kaiser_window(): Tensor {
  const a = args("kaiser_window", arguments);
  const beta = a.beta;
  return cosineWindow("kaiser_window", a, (n, denom) => {
    const alpha = denom / 2;
    const r = n.sub(alpha).div(alpha);
    const w = r.mul(r).neg().add(1).sqrt().mul(beta).i0();
    return w.div(full([], beta, { dtype: n.dtype, device: n.device }).i0());
  });
}
