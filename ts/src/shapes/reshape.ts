/**
 * Shape-level types, reshapes and dim moves: `reshape`/`view`, `flatten`/`unflatten`, `permute`,
 * `transpose`, `t`, `mT`, `T`, `squeeze`/`unsqueeze` and `expand`.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type {
  Dims,
  Includes,
  IsTuple,
  Known,
  Lt,
  Mutable,
  NormDim,
  NormDims,
  Prefix,
  Reverse,
  SetAt,
  ShapeMismatch,
  ShapeString,
  Slice,
  Succ,
  Suffix,
} from "./core.js";
import type { DivideExact, Numel } from "./arith.js";

// ---- reshape, flatten, unflatten ----

type Count<
  T extends Dims,
  X extends number,
  Acc extends unknown[] = [],
> = T extends readonly [infer H extends number, ...infer R extends number[]]
  ? Count<R, X, H extends X ? (X extends H ? [...Acc, unknown] : Acc) : Acc>
  : Acc["length"];
type WithoutMinusOne<T extends Dims> = T extends readonly [
  infer H extends number,
  ...infer R extends number[],
]
  ? H extends -1
    ? WithoutMinusOne<R>
    : [H, ...WithoutMinusOne<R>]
  : [];
type FillMinusOne<T extends Dims, V extends number> = {
  -readonly [K in keyof T]: T[K] extends -1 ? V : T[K];
};
type HasUnknown<T extends Dims> = T extends readonly [
  infer H extends number,
  ...infer R extends number[],
]
  ? Known<H> extends false
    ? true
    : HasUnknown<R>
  : false;

/**
 * `reshape`/`view`'s result: `N` with one `-1` inferred; a mismatch when the element counts
 * differ (`"reshape: shape '[4, 4]' is invalid for input of size 6"`, PyTorch's words).
 */
export type Reshape<
  S extends Dims,
  N extends Dims,
  Fn extends string = "reshape",
> =
  IsTuple<N> extends false
    ? number[]
    : IsTuple<S> extends false
      ? number[]
      : Count<N, -1> extends 0
        ? IsTuple<S> extends false
          ? Mutable<N>
          : HasUnknown<S> extends true
            ? Mutable<N>
            : HasUnknown<N> extends true
              ? Mutable<N>
              : Numel<S> extends Numel<N>
                ? Mutable<N>
                : ShapeMismatch<`${Fn}: shape '${ShapeString<N>}' is invalid for input of size ${Numel<S>}`>
        : Count<N, -1> extends 1
          ? IsTuple<S> extends false
            ? FillMinusOne<N, number>
            : HasUnknown<S> extends true
              ? FillMinusOne<N, number>
              : HasUnknown<WithoutMinusOne<N>> extends true
                ? FillMinusOne<N, number>
                : Numel<WithoutMinusOne<N>> extends 0
                  ? ShapeMismatch<`${Fn}: shape '${ShapeString<N>}' is invalid for input of size ${Numel<S>}`>
                  : DivideExact<
                        Numel<S>,
                        Numel<WithoutMinusOne<N>>
                      > extends infer Q
                    ? [Q] extends [never]
                      ? ShapeMismatch<`${Fn}: shape '${ShapeString<N>}' is invalid for input of size ${Numel<S>}`>
                      : FillMinusOne<N, Q & number>
                    : never
          : ShapeMismatch<`${Fn}: only one dimension can be inferred (shape ${ShapeString<N>})`>;

/** `flatten(start, end)`'s result shape. */
export type Flatten<S extends Dims, Start extends number, End extends number> =
  IsTuple<S> extends false
    ? number[]
    : S extends readonly []
      ? [1]
      : NormDims<[Start, End], S["length"], "flatten"> extends infer N
        ? N extends [infer A extends number, infer B extends number]
          ? Lt<B, A> extends true
            ? ShapeMismatch<`flatten: start_dim cannot come after end_dim`>
            : [
                ...Prefix<S, A>,
                Numel<Slice<S, A, Succ<B>>>,
                ...Suffix<S, Succ<B>>,
              ]
          : N extends ShapeMismatch<string>
            ? N
            : number[]
        : never;

/** `unflatten(dim, sizes)`'s result shape (one size may be -1). */
export type Unflatten<S extends Dims, D extends number, Sizes extends Dims> =
  IsTuple<S> extends false
    ? number[]
    : NormDim<D, S["length"], "unflatten"> extends infer N
      ? N extends number
        ? Known<N> extends false
          ? number[]
          : Reshape<[S[N]], Sizes, "unflatten"> extends infer U
            ? U extends Dims
              ? [...Prefix<S, N>, ...U, ...Suffix<S, Succ<N>>]
              : U
            : never
        : N
      : never;

// ---- permutes, transposes, squeezes ----

/** `permute(dims)`'s result shape; the dims must be a permutation of `0..rank-1`. */
export type Permute<S extends Dims, P extends Dims> =
  IsTuple<S> extends false
    ? number[]
    : IsTuple<P> extends false
      ? number[]
      : P["length"] extends S["length"]
        ? NormDims<P, S["length"], "permute"> extends infer N
          ? N extends number[]
            ? HasRepeat<N> extends true
              ? ShapeMismatch<`permute: repeated dim in ${ShapeString<P>}`>
              : {
                  [K in keyof N]: N[K] extends infer I extends keyof S
                    ? S[I]
                    : never;
                }
            : N
          : never
        : ShapeMismatch<`permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = ${S["length"]} is not equal to len(dims) = ${P["length"]}`>;
type HasRepeat<T extends number[]> = T extends [
  infer H extends number,
  ...infer R extends number[],
]
  ? Includes<R, H> extends true
    ? true
    : HasRepeat<R>
  : false;

/** `transpose(d0, d1)`'s result shape. */
export type Transpose<S extends Dims, A extends number, B extends number> =
  IsTuple<S> extends false
    ? number[]
    : S extends readonly []
      ? NormDims<[A, B], 1, "transpose"> extends infer N
        ? N extends number[]
          ? []
          : N
        : never
      : NormDims<[A, B], S["length"], "transpose"> extends infer N
        ? N extends [infer X extends number, infer Y extends number]
          ? Known<X> extends false
            ? number[]
            : Known<Y> extends false
              ? number[]
              : SetAt<SetAt<S, X, S[Y]>, Y, S[X]>
          : N
        : never;

/** `t()`'s result: at most 2-D. */
export type T2<S extends Dims> =
  IsTuple<S> extends false
    ? number[]
    : S extends readonly [infer A extends number, infer B extends number]
      ? [B, A]
      : S extends readonly [] | readonly [number]
        ? Mutable<S>
        : ShapeMismatch<`t: t() expects a tensor with <= 2 dimensions, but self is ${S["length"]}D`>;

/** `mT`'s result: the last two dims swapped (at least 2-D). */
export type MT<S extends Dims> =
  IsTuple<S> extends false
    ? number[]
    : S extends readonly [
          ...infer B extends number[],
          infer X extends number,
          infer Y extends number,
        ]
      ? [...B, Y, X]
      : ShapeMismatch<`mT: tensor.mT is only supported on matrices or batches of matrices. Got ${S["length"]}-D tensor.`>;

/** `T`'s result: all dims reversed. */
export type Rev<S extends Dims> =
  IsTuple<S> extends false ? number[] : Reverse<[...S]>;

/** `squeeze()` / `squeeze(dim)`'s result shape. */
export type Squeeze<S extends Dims, D extends number | Dims | undefined> =
  IsTuple<S> extends false
    ? number[]
    : D extends undefined
      ? SqueezeAll<S>
      : D extends number
        ? SqueezeDims<S, [D]>
        : D extends Dims
          ? IsTuple<D> extends false
            ? number[]
            : SqueezeDims<S, D>
          : number[];
type SqueezeAll<S extends Dims> = S extends readonly [
  infer H extends number,
  ...infer R extends number[],
]
  ? H extends 1
    ? SqueezeAll<R>
    : Known<H> extends false
      ? number[]
      : [H, ...SqueezeAll<R>] extends infer X extends number[]
        ? X
        : never
  : [];
type SqueezeDims<S extends Dims, D extends Dims> =
  // PyTorch accepts dims of a 0-D tensor as if it had one dim.
  NormDims<
    D,
    S extends readonly [] ? 1 : S["length"],
    "squeeze"
  > extends infer N
    ? N extends number[]
      ? S extends readonly []
        ? []
        : SqueezeKnown<S, N>
      : N
    : never;
type SqueezeKnown<
  S extends Dims,
  Ds extends number[],
  I extends unknown[] = [],
  Acc extends number[] = [],
> = S extends readonly [infer H extends number, ...infer R extends number[]]
  ? Includes<Ds, I["length"]> extends true
    ? Known<H> extends false
      ? number[]
      : SqueezeKnown<R, Ds, [...I, unknown], H extends 1 ? Acc : [...Acc, H]>
    : SqueezeKnown<R, Ds, [...I, unknown], [...Acc, H]>
  : Acc;

/** `unsqueeze(dim)`'s result shape (`dim` in `[-rank-1, rank]`). */
export type Unsqueeze<S extends Dims, D extends number> =
  IsTuple<S> extends false
    ? number[]
    : NormDim<D, [...S, 1]["length"], "unsqueeze"> extends infer N
      ? N extends number
        ? Known<N> extends false
          ? number[]
          : [...Prefix<S, N>, 1, ...Suffix<S, N>]
        : N
      : never;

/** `expand(sizes)`'s result shape: `-1` keeps a size; size-1 dims stretch; new dims lead. */
export type Expand<S extends Dims, N extends Dims> =
  IsTuple<S> extends false
    ? number[]
    : IsTuple<N> extends false
      ? number[]
      : Lt<N["length"], S["length"]> extends true
        ? ShapeMismatch<`expand: the number of sizes provided (${N["length"]}) must be greater or equal to the number of dimensions in the tensor (${S["length"]})`>
        : ExpandFrom<S, N, S, N>;
type ExpandFrom<
  S extends Dims,
  N extends Dims,
  FullS extends Dims,
  FullN extends Dims,
  Acc extends number[] = [],
> = S extends readonly [...infer SR extends number[], infer X extends number]
  ? N extends readonly [...infer NR extends number[], infer Y extends number]
    ? (
        Y extends -1
          ? X
          : X extends 1
            ? Y
            : Known<X> extends false
              ? Y
              : Known<Y> extends false
                ? X
                : X extends Y
                  ? X
                  : false
      ) extends infer Z
      ? Z extends number
        ? ExpandFrom<SR, NR, FullS, FullN, [Z, ...Acc]>
        : ShapeMismatch<`expand: The expanded size of the tensor (${Y}) must match the existing size (${X}) at non-singleton dimension ${NR["length"]}.  Target sizes: ${ShapeString<FullN>}.  Tensor sizes: ${ShapeString<FullS>}`>
      : never
    : never
  : [...Mutable<N>, ...Acc];
