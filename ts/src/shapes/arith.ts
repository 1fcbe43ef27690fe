/**
 * Shape-level types, decimal arithmetic on digit tuples: element counts (`numel` checks, `-1` in
 * reshape) and conv output sizes work on sizes beyond tuple lengths (`[50257, 768]`).
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type { Dims, IsTuple, Known, Lt, Plus, Reverse, Tup } from "./core.js";

// ---- decimal arithmetic (numel checks and -1 in reshape work on sizes beyond tuple lengths) ----
// A number is a tuple of digits, least significant first: 1024 → [4, 2, 0, 1].

type Dg = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
export type Big = Dg[];
export type ToBig<
  N extends number,
  S extends string = `${N}`,
  Acc extends Big = [],
> = S extends `${infer C extends Dg}${infer R}`
  ? ToBig<N, R, [C, ...Acc]>
  : Acc;
export type FromBig<B extends Big, Acc extends string = ""> = B extends [
  infer H extends Dg,
  ...infer R extends Big,
]
  ? FromBig<R, `${H}${Acc}`>
  : Acc extends `${infer N extends number}`
    ? N
    : 0;
type Trim<B extends Big> = B extends [...infer R extends Big, 0] ? Trim<R> : B;
type Head<B extends Big> = B extends [infer H extends Dg, ...Big] ? H : 0;
type Tail<B extends Big> = B extends [Dg, ...infer R extends Big] ? R : [];
type Split<N> = N extends Dg
  ? [N, 0]
  : `${N & number}` extends `1${infer U extends Dg}`
    ? [U, 1]
    : never;
type DigitAdd<A extends Dg, B extends Dg, C extends 0 | 1> = Split<
  [...Tup<A>, ...Tup<B>, ...Tup<C>]["length"]
>;
export type Add<
  A extends Big,
  B extends Big,
  C extends 0 | 1 = 0,
  Acc extends Big = [],
> = [A, B, C] extends [[], [], 0]
  ? Acc
  : DigitAdd<Head<A>, Head<B>, C> extends [
        infer S extends Dg,
        infer C2 extends 0 | 1,
      ]
    ? Add<Tail<A>, Tail<B>, C2, [...Acc, S]>
    : never;
type DecDigit = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8];
type MulDigit<A extends Big, D extends Dg, Acc extends Big = []> = D extends 0
  ? Trim<Acc>
  : MulDigit<A, DecDigit[D], Add<Acc, A>>;
export type Mul<
  A extends Big,
  B extends Big,
  Shift extends 0[] = [],
  Acc extends Big = [],
> = B extends [infer D extends Dg, ...infer R extends Big]
  ? MulDigit<A, D> extends infer P extends Big
    ? Mul<A, R, [...Shift, 0], Add<Acc, [...Shift, ...P]>>
    : never
  : Trim<Acc>;
type CmpSame<A extends Big, B extends Big, R = "eq"> = A extends [
  infer X extends Dg,
  ...infer AR extends Big,
]
  ? B extends [infer Y extends Dg, ...infer BR extends Big]
    ? CmpSame<AR, BR, X extends Y ? R : Lt<X, Y> extends true ? "lt" : "gt">
    : R
  : R;
type Cmp<A extends Big, B extends Big> = A["length"] extends B["length"]
  ? CmpSame<A, B>
  : Lt<A["length"], B["length"]> extends true
    ? "lt"
    : "gt";
type DigitSub<A extends Dg, X extends number> =
  Tup<A> extends [...Tup<X>, ...infer R]
    ? [R["length"], 0]
    : [...Tup<A>, ...Tup<10>] extends [...Tup<X>, ...infer R]
      ? [R["length"], 1]
      : never;
/** `A - B` for `A >= B`. */
export type Sub<
  A extends Big,
  B extends Big,
  Borrow extends 0 | 1 = 0,
  Acc extends Big = [],
> = A extends [infer X extends Dg, ...infer AR extends Big]
  ? DigitSub<X, Plus<Head<B>, Borrow>> extends [
      infer D extends Dg,
      infer B2 extends 0 | 1,
    ]
    ? Sub<AR, Tail<B>, B2, [...Acc, D]>
    : never
  : Trim<Acc>;
type QuotientDigit<R extends Big, B extends Big, K extends Dg = 9> = K extends 0
  ? 0
  : Cmp<MulDigit<B, K>, R> extends "gt"
    ? QuotientDigit<R, B, DecDigit[K]>
    : K;
/** `[quotient, remainder]` of `A / B` (B > 0) by long division. */
export type DivMod<
  MostFirst extends Big,
  B extends Big,
  Rem extends Big = [],
  Q extends Big = [],
> = MostFirst extends [infer D extends Dg, ...infer Rest extends Big]
  ? Trim<[D, ...Rem]> extends infer R extends Big
    ? QuotientDigit<R, B> extends infer K extends Dg
      ? DivMod<Rest, B, Sub<R, MulDigit<B, K>>, [K, ...Q]>
      : never
    : never
  : [Trim<Q>, Rem];

/** The product of the sizes, `number` when one is unknown. */
export type Numel<S extends Dims> =
  IsTuple<S> extends false ? number : NumelOf<S>;
type NumelOf<S extends Dims, Acc extends Big = [1]> = S extends readonly [
  infer D extends number,
  ...infer R extends number[],
]
  ? Known<D> extends false
    ? number
    : NumelOf<R, Mul<Acc, ToBig<D>>>
  : FromBig<Acc>;

/** `A * B` for non-negative integer literals (`number` when either is unknown). */
export type Multiply<A extends number, B extends number> =
  Known<A> extends false
    ? number
    : Known<B> extends false
      ? number
      : FromBig<Mul<ToBig<A>, ToBig<B>>>;

/** `A / B` when `B` divides `A`, else `never` (`number` when either is unknown). */
export type DivideExact<A extends number, B extends number> =
  Known<A> extends false
    ? number
    : Known<B> extends false
      ? number
      : B extends 0
        ? never
        : DivMod<Reverse<ToBig<A>>, ToBig<B>> extends [
              infer Q extends Big,
              infer R extends Big,
            ]
          ? R extends []
            ? FromBig<Q>
            : never
          : never;

// ---- helpers shared by the rule modules ----

/** `A + B` for non-negative integer literals (`number` when either is unknown). */
export type Add2<A extends number, B extends number> =
  Known<A> extends false
    ? number
    : Known<B> extends false
      ? number
      : FromBig<Add<ToBig<A>, ToBig<B>>>;
