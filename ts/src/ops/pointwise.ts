/**
 * Pointwise composites and reorderings built from core ops (so they fuse on WebGPU and carry
 * gradients): `clamp`/`clip`/`clamp_min`/`clamp_max` (number or tensor bounds), `lerp`,
 * `addcmul`, `addcdiv`, `nan_to_num`, and `flip`/`fliplr`/`flipud`, `roll`, `rot90`,
 * `tril`/`triu`.
 *
 * `clamp` is two `where`s — `x < min ? min : x`, then `> max ? max : ·` — so NaN passes
 * through, `min > max` gives `max` everywhere and the gradient is 1 on the closed interval, as in
 * PyTorch. `flip` gathers by reversed positions (PyTorch copies too: strides are never
 * negative).
 *
 * @module
 */

import { args } from "../schema/index.js";
import { Tensor } from "../tensor/tensor.js";
import { clamped } from "../tensor/methods/pointwise.js";

/** A clamp bound: a number, a tensor (broadcast), or null/undefined for none. */
export type Bound = number | Tensor | null | undefined;

/** Options of `addcmul`/`addcdiv`. */
export interface ValueOptions {
  /** The multiplier of the product/quotient. Default 1. */
  value?: number;
}

/** Options of `nan_to_num`. */
export interface NanToNumOptions {
  /** What NaN becomes. Default 0. */
  nan?: number;
  /** What +∞ becomes. Default the dtype's largest finite value. */
  posinf?: number | null;
  /** What -∞ becomes. Default the dtype's smallest finite value. */
  neginf?: number | null;
}

/** Clamped to `[min, max]`. See {@link Tensor.clamp}. */
export function clamp(input: Tensor, min?: Bound, max?: Bound): Tensor {
  ({ input, min, max } = args("clamp", arguments));
  return clamped(input, min, max);
}
/** Alias of {@link clamp}. */
export const clip = clamp;
/** `clamp(input, min, null)`. */
export function clamp_min(input: Tensor, min: number | Tensor): Tensor {
  ({ input, min } = args("clamp_min", arguments));
  return clamped(input, min, null);
}
/** `clamp(input, null, max)`. */
export function clamp_max(input: Tensor, max: number | Tensor): Tensor {
  ({ input, max } = args("clamp_max", arguments));
  return clamped(input, null, max);
}
/** `input + weight * (end - input)`. See {@link Tensor.lerp}. */
export function lerp(
  input: Tensor,
  end: Tensor,
  weight: number | Tensor,
): Tensor {
  const a = args("lerp", arguments);
  return a.input.lerp(a.end, a.weight as number | Tensor);
}
/** `input + value * tensor1 * tensor2`. */
export function addcmul(
  input: Tensor,
  tensor1: Tensor,
  tensor2: Tensor,
  options?: ValueOptions,
): Tensor {
  const a = args("addcmul", arguments);
  return a.input.addcmul(a.tensor1, a.tensor2, { value: Number(a.value) });
}
/** `input + value * tensor1 / tensor2`. */
export function addcdiv(
  input: Tensor,
  tensor1: Tensor,
  tensor2: Tensor,
  options?: ValueOptions,
): Tensor {
  const a = args("addcdiv", arguments);
  return a.input.addcdiv(a.tensor1, a.tensor2, { value: Number(a.value) });
}
/** NaN and infinities replaced by finite values. See {@link Tensor.nan_to_num}. */
export function nan_to_num(
  input: Tensor,
  nan?: number | NanToNumOptions,
  posinf?: number | null,
  neginf?: number | null,
): Tensor {
  const a = args("nan_to_num", arguments);
  return a.input.nan_to_num(a.nan ?? undefined, a.posinf, a.neginf);
}
/** Reversed along `dims`. See {@link Tensor.flip}. */
export function flip(input: Tensor, dims: readonly number[]): Tensor {
  const a = args("flip", arguments);
  return a.input.flip(a.dims);
}
/** Reversed along dim 1. */
export function fliplr(input: Tensor): Tensor {
  return args("fliplr", arguments).input.fliplr();
}
/** Reversed along dim 0. */
export function flipud(input: Tensor): Tensor {
  return args("flipud", arguments).input.flipud();
}
/** Rolled with wrap-around. See {@link Tensor.roll}. */
export function roll(
  input: Tensor,
  shifts: number | readonly number[],
  dims?: number | readonly number[],
): Tensor {
  ({ input, shifts, dims } = args("roll", arguments));
  return input.roll(shifts, dims);
}
/** Rotated by 90° `k` times. See {@link Tensor.rot90}. */
export function rot90(
  input: Tensor,
  k?: number,
  dims?: readonly number[],
): Tensor {
  const a = args("rot90", arguments);
  return a.input.rot90(a.k, a.dims);
}
/** The lower triangle. See {@link Tensor.tril}. */
export function tril(input: Tensor, diagonal?: number): Tensor {
  const a = args("tril", arguments);
  return a.input.tril(a.diagonal);
}
/** The upper triangle. See {@link Tensor.triu}. */
export function triu(input: Tensor, diagonal?: number): Tensor {
  const a = args("triu", arguments);
  return a.input.triu(a.diagonal);
}
