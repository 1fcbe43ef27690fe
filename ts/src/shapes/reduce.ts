/**
 * Shape-level types, reductions: the shape after reducing dims, with or without `keepdim`.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type { Dims, Includes, IsTuple, Known, NormDims } from "./core.js";

// ---- reductions ----

type ReduceKnown<
  S extends Dims,
  Ds extends number[],
  Keep extends boolean,
  I extends unknown[] = [],
  Acc extends number[] = [],
> = S extends readonly [infer H extends number, ...infer R extends number[]]
  ? Includes<Ds, I["length"]> extends true
    ? ReduceKnown<
        R,
        Ds,
        Keep,
        [...I, unknown],
        Keep extends true ? [...Acc, 1] : Acc
      >
    : ReduceKnown<R, Ds, Keep, [...I, unknown], [...Acc, H]>
  : Acc;

/**
 * The shape after reducing dims `Dm` (a dim, a list, or `undefined` for all) with `keepdim`
 * `Keep`, or the mismatch for a dim out of range.
 */
export type Reduce<
  S extends Dims,
  Dm extends number | Dims | undefined,
  Keep extends boolean,
  Fn extends string = "reduce",
> =
  IsTuple<S> extends false
    ? number[]
    : boolean extends Keep
      ? number[]
      : Dm extends undefined
        ? Keep extends true
          ? { [K in keyof S]: 1 }
          : []
        : Dm extends number
          ? Known<Dm> extends false
            ? number[]
            : NormDims<[Dm], S["length"], Fn> extends infer N
              ? N extends number[]
                ? ReduceKnown<S, N, Keep>
                : N
              : never
          : Dm extends Dims
            ? IsTuple<Dm> extends false
              ? number[]
              : Dm extends readonly []
                ? Keep extends true
                  ? { [K in keyof S]: 1 }
                  : []
                : NormDims<Dm, S["length"], Fn> extends infer N
                  ? N extends number[]
                    ? ReduceKnown<S, N, Keep>
                    : N
                  : never
            : number[];

/** The shape after removing dim `D` (`select`, `unbind`, `max(dim)` without keepdim…). */
export type RemoveDim<
  S extends Dims,
  D extends number,
  Fn extends string,
> = Reduce<S, D, false, Fn>;

/** The dims and keepdim of a reduction's options object. */
export type ReduceOf<O> = O extends { dim: infer Dm extends number | Dims }
  ? Dm
  : undefined;
/** The keepdim of a reduction's options object (`false` when absent). */
export type KeepOf<O> = O extends { keepdim: infer K extends boolean }
  ? K
  : false;

/** A `dim` argument that may be `null` (all dims), as `var`/`std`/`norm` take it. */
export type DimArg<Dm> = Dm extends null ? undefined : Dm;
