/**
 * Factories shaped like a tensor: the `*_like` family (`zeros_like`, `ones_like`, `full_like`,
 * `empty_like`) and the `Tensor.new_*` methods, with that tensor's dtype and device unless given.
 *
 * @module
 */

import {
  type CreationOptions,
  type Shape,
  creationOptions,
  dataOptions,
  like,
  sizeList,
} from "../args.js";
import { args, methodArgs } from "../schema/index.js";
import { type Scalar, Tensor } from "../tensor/tensor.js";
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

/** The options of a `new_*` or `*_like` call: `t`'s dtype and device unless given. */
function likeOptions(
  t: Tensor,
  a: Parameters<typeof creationOptions>[0],
): CreationOptions {
  const o = creationOptions(a);
  return { ...like(t, o), requires_grad: o.requires_grad };
}

proto.new_zeros = function (this: Tensor) {
  const a = methodArgs("new_zeros", this, arguments);
  // `full`'s size check, with PyTorch's words for new_zeros (torch.zeros has its own).
  return full(sizeList("new_zeros", a.size), 0, likeOptions(this, a));
};
proto.new_ones = function (this: Tensor) {
  const a = methodArgs("new_ones", this, arguments);
  return ones(sizeList("new_ones", a.size), likeOptions(this, a));
};
proto.new_full = function (this: Tensor) {
  const a = methodArgs("new_full", this, arguments);
  return full(a.size, a.fill_value, likeOptions(this, a));
};
proto.new_empty = function (this: Tensor) {
  const a = methodArgs("new_empty", this, arguments);
  return full(sizeList("new_empty", a.size), 0, likeOptions(this, a));
};
proto.new_tensor = function (
  this: Tensor,
  data: TensorData,
  options?: CreationOptions,
) {
  return tensor(data, like(this, dataOptions("new_tensor", options)));
};

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
