/**
 * Factories shaped like a tensor: the `*_like` family (`zeros_like`, `ones_like`, `full_like`,
 * `empty_like`) and the `Tensor.new_*` methods, with that tensor's dtype and device unless given.
 *
 * @module
 */

import { type CreationOptions, type Shape, like } from "../args.js";
import { type Scalar, Tensor, checkTensor } from "../tensor/tensor.js";
import { type TensorData, full, ones, tensor, zeros } from "./creation.js";

declare module "../tensor/tensor.js" {
  interface Tensor {
    /** Zeros of `size`, with this tensor's dtype and device unless given. */
    new_zeros(size: Shape, options?: CreationOptions): Tensor;
    /** Ones of `size`, with this tensor's dtype and device unless given. */
    new_ones(size: Shape, options?: CreationOptions): Tensor;
    /** `fill_value` in `size`, with this tensor's dtype and device unless given. */
    new_full(
      size: Shape,
      fill_value: Scalar,
      options?: CreationOptions,
    ): Tensor;
    /** `new_zeros` (webtorch's `empty` is zero-filled). */
    new_empty(size: Shape, options?: CreationOptions): Tensor;
    /** `torch.tensor(data)` with this tensor's dtype and device unless given. */
    new_tensor(data: TensorData, options?: CreationOptions): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;
proto.new_zeros = function (
  this: Tensor,
  size: Shape,
  options?: CreationOptions,
) {
  return zeros(size, like(this, options));
};
proto.new_ones = function (
  this: Tensor,
  size: Shape,
  options?: CreationOptions,
) {
  return ones(size, like(this, options));
};
proto.new_full = function (
  this: Tensor,
  size: Shape,
  fill_value: Scalar,
  options?: CreationOptions,
) {
  return full(size, fill_value, like(this, options));
};
proto.new_empty = proto.new_zeros;
proto.new_tensor = function (
  this: Tensor,
  data: TensorData,
  options?: CreationOptions,
) {
  return tensor(data, like(this, options));
};

/** Zeros shaped like `input` (its dtype and device unless given). */
export function zeros_like(input: Tensor, options?: CreationOptions): Tensor {
  const t = checkTensor("zeros_like", "input", input);
  return zeros(t.shape, like(t, options));
}

/** Ones shaped like `input`. */
export function ones_like(input: Tensor, options?: CreationOptions): Tensor {
  const t = checkTensor("ones_like", "input", input);
  return ones(t.shape, like(t, options));
}

/** `fill_value` shaped like `input` (`input`'s dtype unless given, as PyTorch). */
export function full_like(
  input: Tensor,
  fill_value: Scalar,
  options?: CreationOptions,
): Tensor {
  const t = checkTensor("full_like", "input", input);
  return full(t.shape, fill_value, like(t, options));
}

/** {@link empty} shaped like `input`. */
export function empty_like(input: Tensor, options?: CreationOptions): Tensor {
  const t = checkTensor("empty_like", "input", input);
  return zeros(t.shape, like(t, options));
}
