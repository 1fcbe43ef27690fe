/**
 * The dtype refusal PyTorch's float-only kernels make (`"leaky_relu_cpu" not implemented for
 * 'Long'`), shared by the activations and composites built on ops that would accept integers.
 * Not part of the public namespace.
 *
 * @module
 */

import { isFloatingPoint, scalarTypeName } from "../dtype.js";
import { DTypeError } from "../errors.js";
import type { Tensor } from "../tensor/tensor.js";

/** `x`, refused as PyTorch's kernel `kernel` refuses integer and bool dtypes. */
export function floatOnly(kernel: string, x: Tensor): Tensor {
  if (!isFloatingPoint(x.dtype))
    throw new DTypeError(
      `"${kernel}" not implemented for '${scalarTypeName(x.dtype)}'`,
    );
  return x;
}
