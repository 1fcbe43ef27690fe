/**
 * Shape-level types, layers: `nn.Linear`'s last dim and convolution/pooling output sizes.
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
  Reverse,
  ShapeMismatch,
  ShapeString,
} from "./core.js";
import type { Add, Big, DivMod, FromBig, Mul, Sub, ToBig } from "./arith.js";

/** The last dim of `S` replaced by `V` (`nn.Linear`). */
export type ReplaceLast<S extends Dims, V extends number> =
  IsTuple<S> extends false
    ? number[]
    : S extends readonly [...infer B extends number[], number]
      ? [...B, V]
      : ShapeMismatch<`linear: input must have at least 1 dim`>;

/** Checks that the last dim of `S` is `In` (`nn.Linear`'s `in_features`). */
export type CheckLast<S extends Dims, In extends number, Fn extends string> =
  IsTuple<S> extends false
    ? unknown
    : S extends readonly [...number[], infer L extends number]
      ? Inner<L, In> extends true
        ? unknown
        : ShapeMismatch<`${Fn}: mat1 and mat2 shapes cannot be multiplied: input's last dim is ${L}, in_features is ${In} (input ${ShapeString<S>})`>
      : ShapeMismatch<`${Fn}: input must have at least 1 dim`>;

/** The output size of a convolution/pooling along one dim. */
export type ConvSize<
  L extends number,
  K extends number,
  Stride extends number,
  Pad extends number,
  Dil extends number,
> = [L, K, Stride, Pad, Dil] extends [infer A extends number, ...infer _]
  ? Known<A> extends false
    ? number
    : Known<K> extends false
      ? number
      : Known<Stride> extends false
        ? number
        : Known<Pad> extends false
          ? number
          : Known<Dil> extends false
            ? number
            : // (L + 2p - d(k-1) - 1) / s + 1, floor division
              ConvOut<L, K, Stride, Pad, Dil>
  : number;
type ConvOut<
  L extends number,
  K extends number,
  S extends number,
  P extends number,
  D extends number,
> =
  Sub<
    Add<Add<ToBig<L>, ToBig<P>>, ToBig<P>>,
    [...Add<Mul<ToBig<D>, Sub<ToBig<K>, [1]>>, [1]>]
  > extends infer Num extends Big
    ? DivMod<Reverse<Num>, ToBig<S>> extends [infer Q extends Big, Big]
      ? FromBig<Add<Q, [1]>>
      : number
    : number;

/** `T` itself when a number, else its `I`th entry (`kernel_size: 3` or `[3, 5]`). */
export type At<T, I extends number> = T extends number
  ? T
  : T extends readonly number[]
    ? T[I] extends number
      ? T[I]
      : number
    : number;

/** An option's value, or `D` when it is absent or `undefined`/`null`. */
export type Opt<O, Key extends string, D> = Key extends keyof O
  ? [O[Key]] extends [undefined | null]
    ? D
    : Exclude<O[Key], undefined | null>
  : D;

/** One spatial size of a convolution or pooling output (`"same"` keeps it, `"valid"` pads 0). */
type Spatial<L extends number, I extends number, K, St, P, D> = P extends "same"
  ? L
  : ConvSize<
      L,
      At<K, I>,
      At<St, I>,
      P extends "valid" ? 0 : At<P, I>,
      At<D, I>
    >;

/** The spatial sizes of `Sp` (`[H, W]` or `[L]`) through a window. */
type SpatialAll<Sp extends readonly number[], K, St, P, D> = {
  [I in keyof Sp]: Sp[I] extends number
    ? Spatial<
        Sp[I],
        I extends `${infer N extends number}` ? N : number,
        K,
        St,
        P,
        D
      >
    : never;
};

/**
 * A convolution's output shape: `[N, C, ...sp]` (or unbatched `[C, ...sp]`) → `[N, Out, ...sp']`
 * with `k` spatial dims (1 or 2); the channel dim must be `In`.
 */
export type ConvShape<
  S extends Dims,
  k extends number,
  In extends number,
  Out extends number,
  K,
  St,
  P,
  D,
  Fn extends string,
> =
  IsTuple<S> extends false
    ? number[]
    : S extends readonly [
          infer N extends number,
          infer C extends number,
          ...infer Sp extends number[],
        ]
      ? Sp["length"] extends k
        ? Inner<C, In> extends true
          ? [N, Out, ...SpatialAll<Sp, K, St, P, D>]
          : ShapeMismatch<`${Fn}: expected input ${ShapeString<S>} to have ${In} channels, but got ${C} channels instead`>
        : S extends readonly [
              infer C1 extends number,
              ...infer Sp1 extends number[],
            ]
          ? Sp1["length"] extends k
            ? Inner<C1, In> extends true
              ? [Out, ...SpatialAll<Sp1, K, St, P, D>]
              : ShapeMismatch<`${Fn}: expected input ${ShapeString<S>} to have ${In} channels, but got ${C1} channels instead`>
            : ShapeMismatch<`${Fn}: expected a ${k}-D spatial input (batched or not), got ${ShapeString<S>}`>
          : never
      : ShapeMismatch<`${Fn}: expected a ${k}-D spatial input (batched or not), got ${ShapeString<S>}`>;

/** `unknown` when {@link ConvShape} is a shape, else its mismatch (for the input's type). */
export type CheckShape<R> = R extends ShapeMismatch<string> ? R : unknown;

/**
 * A pooling output shape: the last `k` dims (1 or 2) through the window (with `ceil_mode`
 * true they are `number`), the one or two leading dims kept.
 */
export type PoolShape<S extends Dims, k extends number, K, St, P, D, Ceil> =
  IsTuple<S> extends false ? number[] : PoolSplit<S, k, K, St, P, D, Ceil>;
type PoolSplit<
  S extends Dims,
  k extends number,
  K,
  St,
  P,
  D,
  Ceil,
> = k extends 2
  ? S extends readonly [
      ...infer Lead extends number[],
      infer H extends number,
      infer W extends number,
    ]
    ? Lead["length"] extends 1 | 2
      ? [true] extends [Ceil]
        ? [...Lead, number, number]
        : [...Lead, Spatial<H, 0, K, St, P, D>, Spatial<W, 1, K, St, P, D>]
      : ShapeMismatch<`pool2d: expected a 3-D or 4-D input, got ${ShapeString<S>}`>
    : ShapeMismatch<`pool2d: expected a 3-D or 4-D input, got ${ShapeString<S>}`>
  : S extends readonly [...infer Lead extends number[], infer L extends number]
    ? Lead["length"] extends 1 | 2
      ? [true] extends [Ceil]
        ? [...Lead, number]
        : [...Lead, Spatial<L, 0, K, St, P, D>]
      : ShapeMismatch<`pool1d: expected a 2-D or 3-D input, got ${ShapeString<S>}`>
    : ShapeMismatch<`pool1d: expected a 2-D or 3-D input, got ${ShapeString<S>}`>;

/** Adaptive pooling: the last `k` dims become `Os` (a number or a tuple; `null` keeps a dim). */
export type AdaptiveShape<S extends Dims, k extends number, Os> =
  IsTuple<S> extends false
    ? number[]
    : k extends 2
      ? S extends readonly [
          ...infer Lead extends number[],
          infer H extends number,
          infer W extends number,
        ]
        ? Lead["length"] extends 1 | 2
          ? [...Lead, AdaptiveAt<Os, 0, H>, AdaptiveAt<Os, 1, W>]
          : ShapeMismatch<`adaptive_avg_pool2d: expected a 3-D or 4-D input, got ${ShapeString<S>}`>
        : ShapeMismatch<`adaptive_avg_pool2d: expected a 3-D or 4-D input, got ${ShapeString<S>}`>
      : S extends readonly [
            ...infer Lead extends number[],
            infer L extends number,
          ]
        ? Lead["length"] extends 1 | 2
          ? [...Lead, AdaptiveAt<Os, 0, L>]
          : ShapeMismatch<`adaptive_avg_pool1d: expected a 2-D or 3-D input, got ${ShapeString<S>}`>
        : ShapeMismatch<`adaptive_avg_pool1d: expected a 2-D or 3-D input, got ${ShapeString<S>}`>;
type AdaptiveAt<Os, I extends number, Keep extends number> = Os extends number
  ? Os
  : Os extends readonly unknown[]
    ? Os[I] extends number
      ? Os[I]
      : Os[I] extends null
        ? Keep
        : number
    : number;
