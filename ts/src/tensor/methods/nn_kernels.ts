/**
 * The `Tensor` methods of the ops in ops/nn_kernels.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/nn_kernels.ts.
 *
 * @module
 */

import { checkDim } from "../../args.js";
import { type FloatOf, Tensor, wrap } from "../tensor.js";
import type { DType } from "../../dtype.js";
import type { Dims } from "../../shapes.js";

declare module "../tensor.js" {
  interface Tensor<S extends Dims = number[], D extends DType = DType> {
    /** `exp(x) / sum(exp(x))` along `dim`, computed stably. Floating point only. */
    softmax(dim: number): Tensor<S, FloatOf<D>>;
    /** `x - log(sum(exp(x)))` along `dim`, computed stably. Floating point only. */
    log_softmax(dim: number): Tensor<S, FloatOf<D>>;
  }
}

function dimArg(fn: string, dim: unknown): number {
  return checkDim(fn, dim);
}

const proto = Tensor.prototype as unknown as Record<
  string,
  (this: Tensor, dim: number) => Tensor
>;

proto.softmax = function (this: Tensor, dim: number): Tensor {
  return wrap(this._raw.softmax(dimArg("softmax", dim)));
};

proto.log_softmax = function (this: Tensor, dim: number): Tensor {
  return wrap(this._raw.log_softmax(dimArg("log_softmax", dim)));
};
