/**
 * Factories shaped like a tensor: the `*_like` family (`zeros_like`, `ones_like`, `full_like`,
 * `empty_like`) and the `Tensor.new_*` methods (tensor/methods/creation_like.ts), with that
 * tensor's dtype and device unless given.
 *
 * @module
 */

import { type CreationOptions } from "../args.js";
import { args } from "../schema/index.js";
import { type Scalar, Tensor } from "../tensor/tensor.js";
import { full, ones, zeros } from "./creation.js";
import { likeOptions } from "../tensor/methods/creation_like.js";

/** Zeros shaped like `input` (its dtype and device unless given). */
export function zeros_like(input: Tensor, options?: CreationOptions): Tensor {
  const a = args("zeros_like", arguments);
  return zeros(a.input.shape, likeOptions(a.input, a));
}

/** Ones shaped like `input`. */
export function ones_like(input: Tensor, options?: CreationOptions): Tensor {
  const a = args("ones_like", arguments);
  return ones(a.input.shape, likeOptions(a.input, a));
}

/** `fill_value` shaped like `input` (`input`'s dtype unless given, as PyTorch). */
export function full_like(
  input: Tensor,
  fill_value: Scalar,
  options?: CreationOptions,
): Tensor {
  const a = args("full_like", arguments);
  return full(a.input.shape, a.fill_value, likeOptions(a.input, a));
}

/** {@link empty} shaped like `input`. */
export function empty_like(input: Tensor, options?: CreationOptions): Tensor {
  const a = args("empty_like", arguments);
  return zeros(a.input.shape, likeOptions(a.input, a));
}
