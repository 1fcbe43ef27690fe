/**
 * The `torch.*` functions for ops that are also `Tensor` methods: `torch.exp(x)` is `x.exp()`.
 * Binary functions also take a scalar on either side (`torch.sub(1, x)` is `1 - x`). That every
 * op-table row has its function here is checked by tests/types and the Node/browser tests.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { type ReduceOptions, type Shape, sizeList } from "../args.js";
import type { DType } from "../dtype.js";
import type { CheckOf, Dims, Matmul, ShapeOf } from "../shapes.js";
import {
  type AlphaOptions,
  type DivOptions,
  type RoundOptions,
  type Scalar,
  Tensor,
  reduceTo,
  type Promote,
} from "../tensor/tensor.js";
import {
  binary,
  divRounding,
  isOperand,
  roundDecimals,
  withAlpha,
} from "./op_rows.js";

// The op-table rows' functions are generated from the schema (schema/elementwise.yaml); those
// with keyword options (round, add, sub, div) are written here.
export * from "../schema/generated_functions.js";

// ---- elementwise, one operand ----

/** Rounds to the nearest integer value, ties to even. */
export function round(input: Tensor, options?: RoundOptions): Tensor {
  const a = args("round", arguments);
  return roundDecimals(a.input, a.decimals);
}

// ---- elementwise, two operands, broadcasting ----

/** `input + alpha * other`. */
export function add(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options?: AlphaOptions,
): Tensor {
  if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
    return binary("add", input, other);
  const a = args("add", arguments);
  return withAlpha("add", a.input, a.other, { alpha: Number(a.alpha) });
}
/** `input - alpha * other`. */
export function sub(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options?: AlphaOptions,
): Tensor {
  if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
    return binary("sub", input, other);
  const a = args("sub", arguments);
  return withAlpha("sub", a.input, a.other, { alpha: Number(a.alpha) });
}
/**
 * `input / other`: true division (integers give float32), or with `rounding_mode` the quotient
 * rounded toward zero (`"trunc"`) or down (`"floor"`) in the operands' promoted dtype.
 */
export function div(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
  options?: DivOptions,
): Tensor {
  if (arguments.length === 2 && input instanceof Tensor && isOperand(other))
    return binary("div", input, other);
  const a = args("div", arguments);
  return divRounding(a.input, a.other, a.rounding_mode);
}

// ---- reductions ----

/** Sum over `dim` (all dims when absent). See {@link Tensor.sum}. */
export function sum(
  input: Tensor,
  options?: ReduceOptions & { dtype?: DType },
): Tensor;
export function sum(
  input: Tensor,
  dim?: number | Shape | null,
  keepdim?: boolean,
  options?: { dtype?: DType },
): Tensor;
export function sum(input: Tensor): Tensor {
  return reduceTo("sum", args("sum", arguments));
}

/** Mean over `dim` (all dims when absent). See {@link Tensor.mean}. */
export function mean(
  input: Tensor,
  options?: ReduceOptions & { dtype?: DType },
): Tensor;
export function mean(
  input: Tensor,
  dim?: number | Shape | null,
  keepdim?: boolean,
  options?: { dtype?: DType },
): Tensor;
export function mean(input: Tensor): Tensor {
  return reduceTo("mean", args("mean", arguments));
}

// ---- linear algebra, shapes, copies ----

/** Matrix product (see {@link Tensor.matmul}). */
export function matmul<
  A extends Dims,
  B extends Dims,
  DA extends DType,
  DB extends DType,
>(
  input: Tensor<A, DA>,
  other: Tensor<B, DB> & CheckOf<Matmul<A, B>>,
): Tensor<ShapeOf<Matmul<A, B>>, Promote<DA, DB>>;
export function matmul(input: Tensor, other: Tensor): Tensor {
  // Two tensors, the common call, skip the parser: it could find nothing wrong with them.
  if (
    arguments.length === 2 &&
    input instanceof Tensor &&
    other instanceof Tensor
  )
    return input.matmul(other);
  const a = args("matmul", arguments);
  return a.input.matmul(a.other);
}

/** `input.reshape(shape)`. */
export function reshape(input: Tensor, shape: Shape): Tensor {
  const a = args("reshape", arguments);
  return a.input.reshape(sizeList("reshape", a.shape, "shape"));
}

/** `input.transpose(dim0, dim1)` (a view). */
export function transpose(input: Tensor, dim0: number, dim1: number): Tensor {
  ({ input, dim0, dim1 } = args("transpose", arguments));
  return input.transpose(dim0, dim1);
}

/** `input.permute(dims)` (a view). */
export function permute(input: Tensor, dims: Shape): Tensor {
  const a = args("permute", arguments);
  return a.input.permute(sizeList("permute", a.dims, "dims"));
}

/** `input.t()` (a view). */
export function t(input: Tensor): Tensor {
  ({ input } = args("t", arguments));
  return input.t();
}

/** `input.clone()`. */
export function clone(input: Tensor): Tensor {
  if (arguments.length === 1 && input instanceof Tensor) return input.clone();
  return args("clone", arguments).input.clone();
}

/** Whether `value` is a webtorch Tensor. */
export function is_tensor(obj: unknown): obj is Tensor {
  return args("is_tensor", arguments).obj instanceof Tensor;
}

/** Whether `input`'s dtype is floating point. */
export function is_floating_point(input: Tensor): boolean {
  return args("is_floating_point", arguments).input.is_floating_point();
}

/** The number of elements of `input`. */
export function numel(input: Tensor): number {
  return args("numel", arguments).input.numel();
}

/** `input.detach()`: the same values, cut from the autograd graph. */
export function detach(input: Tensor): Tensor {
  if (arguments.length === 1 && input instanceof Tensor) return input.detach();
  return args("detach", arguments).input.detach();
}
