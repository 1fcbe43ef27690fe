/**
 * Shape-level types, `narrow`: one dim's size replaced by the narrowed length.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type { Dims, IsTuple, Known, NormDims, SetAt } from "./core.js";

/**
 * The shape after `narrow(D, start, L)`: dim `D` (negative counts from the end) becomes `L`, or
 * the mismatch for a dim out of range.
 */
export type NarrowDim<S extends Dims, D extends number, L extends number> =
  IsTuple<S> extends false
    ? number[]
    : Known<D> extends false
      ? number[]
      : NormDims<[D], S["length"], "narrow"> extends infer N
        ? N extends [infer I extends number]
          ? SetAt<S, I, L>
          : N
        : never;
