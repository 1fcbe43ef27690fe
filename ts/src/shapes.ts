/**
 * Shape-level types: the shape rules of PyTorch's ops computed by the type checker, so that
 * `Tensor<[2, 3]>` flows through `matmul`, broadcasting, reductions, reshapes, permutes, joins and
 * einsum equations, and a mismatch is a compile error naming both shapes and the rule.
 *
 * Nothing here exists at run time. A size typed `number` (unknown) or a shape typed `number[]`
 * (unknown rank) makes the rules give up gracefully: the result is as precise as the inputs allow,
 * and the run-time checks (which always run) catch the rest. See docs/types.md.
 *
 * Two kinds of type live here: shape functions (`BroadcastShape<A, B>` is a shape) and checks
 * (`CheckBroadcast<A, B>` is `unknown` when the shapes fit, else a {@link ShapeMismatch} carrying
 * the message). A method takes `other: Tensor<O> & CheckBroadcast<S, O>`, so a misfit argument is
 * not assignable and the message shows in tsc's error.
 *
 * The rules are split by topic under ./shapes/; this module is their public list (re-exported
 * by the package index), so the helpers the rule modules share stay out of the public API.
 *
 * @module
 */

export type {
  Dims,
  ShapeMismatch,
  CheckOf,
  ShapeOf,
  IsTuple,
  ShapeString,
  Mutable,
  NormDim,
} from "./shapes/core.js";
export type { Numel, Multiply, DivideExact } from "./shapes/arith.js";
export type {
  Broadcast,
  BroadcastShape,
  CheckBroadcast,
  Matmul,
  MM,
  BMM,
} from "./shapes/broadcast.js";
export type { Reduce, RemoveDim, ReduceOf, KeepOf } from "./shapes/reduce.js";
export type { NarrowDim } from "./shapes/narrow.js";
export type {
  Reshape,
  Flatten,
  Unflatten,
  Permute,
  Transpose,
  T2,
  MT,
  Rev,
  Squeeze,
  Unsqueeze,
  Expand,
} from "./shapes/reshape.js";
export type { Cat, Stack } from "./shapes/joins.js";
export type {
  SizesOf,
  DataShape,
  OptionDType,
  DataDType,
} from "./shapes/creation.js";
export type {
  ReplaceLast,
  CheckLast,
  ConvSize,
  ConvShape,
  PoolShape,
  AdaptiveShape,
  CheckShape,
  Opt,
  At,
} from "./shapes/nn.js";
export type { Einsum } from "./shapes/einsum.js";
