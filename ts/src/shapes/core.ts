/**
 * Shape-level types, building blocks: shapes and mismatches, small naturals as tuple lengths
 * (ranks and dims), dim normalisation with PyTorch's out-of-range message, and tuple helpers.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

/** A shape at the type level: a tuple of sizes (`[2, 3]`), or `number[]` when the rank is unknown. */
export type Dims = readonly number[];

declare const shapeError: unique symbol;

/**
 * The type of an argument whose shape does not fit: nothing is assignable to it, and its message
 * (e.g. `"matmul: inner dimensions do not match: 3 vs 4 (shapes [2, 3] and [4, 5])"`) appears in
 * the compiler's error.
 */
export interface ShapeMismatch<Message extends string> {
  readonly [shapeError]: Message;
}

/** `unknown` when `R` is a shape, else the mismatch `R` carries (see {@link ShapeMismatch}). */
export type CheckOf<R> = R extends Dims ? unknown : R;

/**
 * The shape `R` computes; for a mismatch, an unknown-rank shape whose sizes carry the message
 * (`(number & ShapeMismatch<"…">)[]`), so the result of a misfit call is not assignable to any
 * known shape and shows why.
 */
export type ShapeOf<R> = R extends Dims
  ? R
  : R extends ShapeMismatch<string>
    ? (number & R)[]
    : number[];

/** Whether `S` has a known rank (a tuple). */
export type IsTuple<S extends Dims> = number extends S["length"] ? false : true;

/** `[2, 3]` → `"[2, 3]"` (unknown sizes print as `number`). */
export type ShapeString<S extends Dims> = `[${JoinDims<S>}]`;
type JoinDims<S extends Dims> =
  IsTuple<S> extends false
    ? "...number[]"
    : S extends readonly [infer A extends number, ...infer R extends number[]]
      ? R extends []
        ? `${A}`
        : `${A}, ${JoinDims<R>}`
      : "";

/** A mutable copy of a shape tuple (`readonly [2, 3]` → `[2, 3]`), so types print plainly. */
export type Mutable<S extends Dims> = S extends readonly [...infer T] ? T : S;

// ---- small naturals (ranks and dims) as tuple lengths ----

/** A tuple of length `N` (the small naturals below are tuple lengths; up to 64). */
export type Tup<
  N extends number,
  T extends unknown[] = [],
> = T["length"] extends N
  ? T
  : T["length"] extends 64
    ? never
    : Tup<N, [...T, unknown]>;
/** `N + 1`. */
export type Succ<N extends number> = [
  ...Tup<N>,
  unknown,
]["length"] extends infer L extends number
  ? L
  : never;
/** `A + B`. */
export type Plus<A extends number, B extends number> = [
  ...Tup<A>,
  ...Tup<B>,
]["length"] extends infer L extends number
  ? L
  : never;
/** `N - 1`. */
type Dec<N extends number> =
  Tup<N> extends [unknown, ...infer R] ? R["length"] : never;
/** `A < B`. */
export type Lt<A extends number, B extends number> =
  Tup<B> extends [...Tup<A>, unknown, ...unknown[]] ? true : false;
/** `A - B` for `A >= B`. */
type Minus<A extends number, B extends number> =
  Tup<A> extends [...Tup<B>, ...infer R] ? R["length"] : never;

/** `true` when `N` is a literal (not `number`). */
export type Known<N extends number> = number extends N ? false : true;

/**
 * A dim of a rank-`R` tensor made non-negative (`-1` → `R - 1`), or a mismatch with PyTorch's
 * message when it is out of range. A `number` dim stays `number`.
 */
export type NormDim<D extends number, R extends number, Fn extends string> =
  Known<D> extends false
    ? number
    : `${D}` extends `-${infer N extends number}`
      ? Lt<R, N> extends true
        ? DimError<D, R, Fn>[0]
        : Minus<R, N>
      : Lt<D, R> extends true
        ? D
        : DimError<D, R, Fn>[0];
// A one-tuple, so that `DimError<…>[0]` shows the message itself (not the alias) in tsc's errors.
type DimError<D extends number, R extends number, Fn extends string> = [
  R extends 0
    ? ShapeMismatch<`${Fn}: dimension specified as ${D} but tensor has no dimensions`>
    : ShapeMismatch<`${Fn}: Dimension out of range (expected to be in range of [-${R}, ${Dec<R>}], but got ${D})`>,
];

/** The non-negative dims of a list, or the first mismatch. */
export type NormDims<
  Ds extends Dims,
  R extends number,
  Fn extends string,
  Acc extends number[] = [],
> = Ds extends readonly [infer D extends number, ...infer Rest extends number[]]
  ? NormDim<D, R, Fn> extends infer N
    ? N extends number
      ? NormDims<Rest, R, Fn, [...Acc, N]>
      : N
    : never
  : Acc;

// ---- helpers shared by the rule modules ----

/** Whether two sizes may be equal (an unknown size may be anything). */
export type Inner<A extends number, B extends number> =
  Known<A> extends false
    ? true
    : Known<B> extends false
      ? true
      : A extends B
        ? true
        : false;
/** Whether the tuple `T` contains `X`. */
export type Includes<
  T extends readonly number[],
  X extends number,
> = T extends readonly [infer H, ...infer R extends number[]]
  ? H extends X
    ? true
    : Includes<R, X>
  : false;
/** `T` with index `I` set to `V`. */
export type SetAt<T extends Dims, I extends number, V extends number> = {
  -readonly [K in keyof T]: K extends `${I}` ? V : T[K];
};
/** The tuple reversed. */
export type Reverse<
  T extends unknown[],
  Acc extends unknown[] = [],
> = T extends [infer H, ...infer R] ? Reverse<R, [H, ...Acc]> : Acc;
/** `T.slice(From, To)` on a tuple. */
export type Slice<
  T extends Dims,
  From extends number,
  To extends number,
  I extends unknown[] = [],
  Acc extends number[] = [],
> = T extends readonly [infer H extends number, ...infer R extends number[]]
  ? I["length"] extends To
    ? Acc
    : Lt<I["length"], From> extends true
      ? Slice<R, From, To, [...I, unknown], Acc>
      : Slice<R, From, To, [...I, unknown], [...Acc, H]>
  : Acc;
/** The first `N` entries of `T`. */
export type Prefix<T extends Dims, N extends number> = Slice<T, 0, N>;
/** The entries of `T` from `From` on. */
export type Suffix<T extends Dims, From extends number> = Slice<T, From, 1000>;
