/**
 * Shape-level types, joins: `cat` and `stack`.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type {
  Dims,
  Inner,
  IsTuple,
  Known,
  Mutable,
  NormDim,
  SetAt,
  ShapeMismatch,
  ShapeString,
} from "./core.js";
import type { Add2 } from "./arith.js";
import type { Broadcast } from "./broadcast.js";
import type { Unsqueeze } from "./reshape.js";

// ---- joins ----

/** `cat(tensors, dim)`'s result: sizes along `dim` add up; the others must agree. */
export type Cat<
  Ts extends readonly Dims[],
  D extends number,
> = Ts extends readonly [infer F extends Dims, ...infer R extends Dims[]]
  ? IsTuple<F> extends false
    ? number[]
    : NormDim<D, F["length"], "cat"> extends infer N
      ? N extends number
        ? Known<N> extends false
          ? number[]
          : CatFold<R, N, Mutable<F>>
        : N
      : never
  : number[];
type CatFold<
  Ts extends readonly Dims[],
  D extends number,
  Acc extends Dims,
> = Ts extends readonly [infer F extends Dims, ...infer R extends Dims[]]
  ? IsTuple<F> extends false
    ? number[]
    : F["length"] extends Acc["length"]
      ? CatPair<Acc, F, D> extends infer P
        ? P extends Dims
          ? CatFold<R, D, P>
          : P
        : never
      : ShapeMismatch<`cat: Tensors must have same number of dimensions: got ${Acc["length"]} and ${F["length"]}`>
  : Acc;
type CatPair<
  A extends Dims,
  B extends Dims,
  D extends number,
  I extends unknown[] = [],
  Acc extends number[] = [],
> = A extends readonly [infer X extends number, ...infer AR extends number[]]
  ? B extends readonly [infer Y extends number, ...infer BR extends number[]]
    ? I["length"] extends D
      ? CatPair<AR, BR, D, [...I, unknown], [...Acc, Add2<X, Y>]>
      : Inner<X, Y> extends true
        ? CatPair<
            AR,
            BR,
            D,
            [...I, unknown],
            [...Acc, Known<X> extends true ? X : Y]
          >
        : ShapeMismatch<`cat: Sizes of tensors must match except in dimension ${D}. Expected size ${X} but got size ${Y} for tensor number 1 in the list.`>
    : Acc
  : Acc;

/** `stack(tensors, dim)`'s result: equal shapes, a new dim of their count at `dim`. */
export type Stack<
  Ts extends readonly Dims[],
  D extends number,
> = number extends Ts["length"]
  ? Ts extends readonly (infer F extends Dims)[]
    ? IsTuple<F> extends false
      ? number[]
      : Unsqueeze<F, D> extends infer U
        ? U extends Dims
          ? NormDim<D, [...F, 1]["length"], "stack"> extends infer N extends
              number
            ? SetAt<U, N, number>
            : number[]
          : U
        : never
    : number[]
  : Ts extends readonly [infer F extends Dims, ...infer R extends Dims[]]
    ? IsTuple<F> extends false
      ? number[]
      : SameShapes<R, F> extends infer E
        ? E extends true
          ? number extends Ts["length"]
            ? Unsqueeze<F, D> extends infer U
              ? U extends Dims
                ? NormDim<
                    D,
                    [...F, 1]["length"],
                    "stack"
                  > extends infer N extends number
                  ? SetAt<U, N, number>
                  : number[]
                : U
              : never
            : Unsqueeze<F, D> extends infer U
              ? U extends Dims
                ? NormDim<
                    D,
                    [...F, 1]["length"],
                    "stack"
                  > extends infer N extends number
                  ? SetAt<U, N, Ts["length"]>
                  : number[]
                : U
              : never
          : E
        : never
    : number[];
type SameShapes<
  Ts extends readonly Dims[],
  F extends Dims,
> = Ts extends readonly [infer G extends Dims, ...infer R extends Dims[]]
  ? Broadcast<F, G> extends infer B
    ? B extends Dims
      ? G["length"] extends F["length"]
        ? Mutable<G> extends infer GG
          ? [GG] extends [Mutable<F>] | [number[]]
            ? SameShapes<R, F>
            : ShapeMismatch<`stack: stack expects each tensor to be equal size, but got ${ShapeString<F>} at entry 0 and ${ShapeString<G>} at entry 1`>
          : never
        : ShapeMismatch<`stack: stack expects each tensor to be equal size, but got ${ShapeString<F>} at entry 0 and ${ShapeString<G>} at entry 1`>
      : ShapeMismatch<`stack: stack expects each tensor to be equal size, but got ${ShapeString<F>} at entry 0 and ${ShapeString<G>} at entry 1`>
    : never
  : true;
