/**
 * The `Tensor` methods of the ops in ops/creation_like.ts: declared on `Tensor` and installed on
 * its prototype; the `torch.*` functions stay in ops/creation_like.ts.
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
} from "../../args.js";
import { methodArgs } from "../../schema/index.js";
import { Tensor } from "../tensor.js";
import { type TensorData, full, ones, tensor } from "../../ops/creation.js";

declare module "../tensor.js" {
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
export function likeOptions(
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
