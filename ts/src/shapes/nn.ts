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
