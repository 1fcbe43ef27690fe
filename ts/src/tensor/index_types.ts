/**
 * The result shape of `x.index(...)` computed by the type checker: integers drop a dim, slices
 * (`":"`, `"1:-1:2"`) keep it with its new length, `null` adds a 1, `"..."` keeps the dims it
 * stands for, and index tensors (or lists) put their broadcast shape where PyTorch does. An
 * integer out of range, too many indices and index tensors that do not broadcast are compile
 * errors with PyTorch's messages. Types only: nothing here exists at run time.
 *
 * Index tensors broadcast together; their dims go in place of the indexed dims when the tensors
 * stand together (integers between them do not count: PyTorch applies them first) and first
 * otherwise. Where the types stop (the run-time rules
 * always apply): index strings typed `string` and tensors of unknown rank give `number[]`; slice
 * lengths are worked out for sizes and bounds below 1,000 (larger ones give `number`).
 *
 * @module
 */

import type { DType } from "../dtype.js";
import type {
  Broadcast,
  Dims,
  IsTuple,
  ShapeMismatch,
  ShapeString,
} from "../shapes.js";
import type { Tensor } from "./tensor.js";
import type { Add, Big, DivMod, FromBig, Sub, ToBig } from "../shapes/arith.js";
import type { Reverse } from "../shapes/core.js";

/**
 * One index of `x.index(...)`: an integer, a slice or several items as a string (`"1:-1:2"`,
 * `":"`, `"..."`, `"None"`, `"0, 1:"`), `null` (a new axis), an index tensor (int64/int32) or a
 * boolean mask, or a list of integers.
 */
export type IndexItem =
  | number
  | string
  | null
  | Tensor<Dims, DType>
  | readonly number[]
  | readonly boolean[];

// ---- small naturals as tuples (sizes and bounds below 1,000) ----

type Tup<N extends number, T extends 0[] = []> = T["length"] extends N
  ? T
  : Tup<N, [...T, 0]>;
type Small<N extends number> = number extends N
  ? false
  : `${N}` extends `-${string}` | `${string}.${string}` | `${string}e${string}`
    ? false
    : `${N}` extends `${number}${number}${number}${number}`
      ? false
      : true;
type LtN<A extends number, B extends number> =
  Tup<B> extends [...Tup<A>, 0, ...0[]] ? true : false;
type SubN<A extends number, B extends number> =
  Tup<A> extends [...Tup<B>, ...infer R] ? R["length"] : 0;
/** `ceil(D / C)` for `D > 0` (decimal digit arithmetic: no tuples of length `D`). */
type CeilDiv<D extends number, C extends number> = C extends 1
  ? D
  : D extends 0
    ? 0
    : DivMod<Reverse<Sub<ToBig<D>, [1]>>, ToBig<C>> extends [
          infer Q extends Big,
          Big,
        ]
      ? FromBig<Add<Q, [1]>>
      : number;
/** A slice bound made non-negative and clamped to `[0, N]` (`undefined`: the default `Def`). */
type Bound<V, N extends number, Def extends number> = V extends number
  ? `${V}` extends `-${infer A extends number}`
    ? Small<A> extends true
      ? LtN<A, N> extends true
        ? SubN<N, A>
        : 0
      : number
    : Small<V> extends true
      ? Small<N> extends true
        ? LtN<V, N> extends true
          ? V
          : N
        : number extends N
          ? number
          : V // a size of 1,000 or more is larger than V
      : number
  : Def;
type Num<S extends string> = S extends ""
  ? undefined
  : S extends `${infer N extends number}`
    ? N
    : never;
/** `[start, stop, step]` of a slice string, or `never` when it is not one. */
type SliceParts<S extends string> = S extends `${infer A}:${infer B}:${infer C}`
  ? [Num<A>, Num<B>, C extends "" ? 1 : Num<C>]
  : S extends `${infer A}:${infer B}`
    ? [Num<A>, Num<B>, 1]
    : never;
/** The length of `S` applied to a dim of size `N`. */
type SliceLen<S extends string, N extends number> =
  SliceParts<S> extends [infer A, infer B, infer C extends number]
    ? [A, B] extends [undefined, undefined]
      ? C extends 1
        ? N
        : Small<N> extends true
          ? Small<C> extends true
            ? N extends 0
              ? 0
              : CeilDiv<N, C>
            : number
          : number
      : Small<C> extends true
        ? Small<Bound<B, N, N>> extends true
          ? [Bound<A, N, 0>, Bound<B, N, N>] extends [
              infer Lo extends number,
              infer Hi extends number,
            ]
            ? number extends Lo | Hi
              ? number
              : LtN<Lo, Hi> extends true
                ? CeilDiv<SubN<Hi, Lo>, C>
                : 0
            : number
          : number
        : number
    : number;

// ---- items ----

type Trim<S extends string> = S extends ` ${infer R}`
  ? Trim<R>
  : S extends `${infer R} `
    ? Trim<R>
    : S;
type SplitComma<S extends string> = S extends `${infer A},${infer B}`
  ? [Trim<A>, ...SplitComma<B>]
  : [Trim<S>];
/** The items with strings split at commas (a `string` item makes the whole index unknown). */
type Flat<
  I extends readonly unknown[],
  Acc extends unknown[] = [],
> = I extends readonly [infer H, ...infer R]
  ? H extends string
    ? string extends H
      ? false
      : Flat<R, [...Acc, ...SplitComma<H>]>
    : Flat<R, [...Acc, H]>
  : Acc;

type IntString<S extends string> = S extends `${infer N extends number}`
  ? `${N}` extends S
    ? N
    : never
  : never;
/** What an item is: `"int"`, `"slice"`, `"none"`, `"..."`, `"adv"` (index tensor), `"mask"`. */
type KindOf<X> = X extends null
  ? "none"
  : X extends number
    ? "int"
    : X extends "..."
      ? "..."
      : X extends "None" | "null"
        ? "none"
        : X extends string
          ? [IntString<X>] extends [never]
            ? "slice"
            : "int"
          : X extends { readonly dtype: infer D }
            ? [D] extends ["bool" | "uint8"]
              ? "mask"
              : "bool" extends D
                ? "maybe-mask"
                : "adv"
            : X extends readonly boolean[]
              ? "mask"
              : "adv";
type Width<K> = K extends "none" | "..." ? 0 : 1;
type Consumed<I extends unknown[], Acc extends 0[] = []> = I extends [
  infer H,
  ...infer R,
]
  ? Consumed<R, Width<KindOf<H>> extends 1 ? [...Acc, 0] : Acc>
  : Acc["length"];
/** The shape an index tensor or list contributes. */
type AdvShape<X> = X extends { readonly shape: infer S extends Dims }
  ? IsTuple<S> extends true
    ? [...S]
    : false
  : X extends readonly unknown[]
    ? number extends X["length"]
      ? [number]
      : [X["length"]]
    : false;

type Err<M extends string> = [ShapeMismatch<M>];
/** The dims the items produce from the front of `S` (`D`: how many dims consumed so far). */
type Walk<
  I extends unknown[],
  S extends Dims,
  Adv extends number[],
  D extends 0[] = [],
  Acc extends number[] = [],
> = I extends [infer H, ...infer R]
  ? KindOf<H> extends "..."
    ? Walk<R, S, Adv, D, Acc>
    : KindOf<H> extends "none"
      ? Walk<R, S, Adv, D, [...Acc, 1]>
      : S extends readonly [
            infer N extends number,
            ...infer SR extends number[],
          ]
        ? KindOf<H> extends "int"
          ? IntCheck<H, N, D["length"]> extends [infer E]
            ? [E]
            : Walk<R, SR, Adv, [...D, 0], Acc>
          : KindOf<H> extends "slice"
            ? Walk<R, SR, Adv, [...D, 0], [...Acc, SliceLen<H & string, N>]>
            : // An index tensor: the broadcast index dims at the first one (when they are
              // together), nothing for the others.
              Walk<R, SR, [], [...D, 0], [...Acc, ...Adv]>
        : false
  : [Acc, S];
type IntValue<H> = H extends number
  ? H
  : H extends string
    ? IntString<H>
    : never;
type IntCheck<H, N extends number, Dim extends number> =
  IntValue<H> extends infer V extends number
    ? Small<N> extends false
      ? []
      : number extends V
        ? []
        : `${V}` extends `-${infer A extends number}`
          ? Small<A> extends true
            ? LtN<N, A> extends true
              ? Err<`index ${V} is out of bounds for dimension ${Dim} with size ${N}`>
              : []
            : Err<`index ${V} is out of bounds for dimension ${Dim} with size ${N}`>
          : Small<V> extends true
            ? LtN<V, N> extends true
              ? []
              : Err<`index ${V} is out of bounds for dimension ${Dim} with size ${N}`>
            : Err<`index ${V} is out of bounds for dimension ${Dim} with size ${N}`>
    : [];

/** The shape `Walk` gives, or its mismatch. */
type WalkOut<I extends unknown[], S extends Dims, Adv extends number[]> =
  Walk<I, S, Adv> extends infer W
    ? W extends [infer E extends ShapeMismatch<string>]
      ? E
      : W extends [infer A extends number[], Dims]
        ? A
        : number[]
    : never;

/** The broadcast of the index tensors' shapes (`[]` without any), `number[]` or the mismatch. */
type AdvBroadcast<
  I extends unknown[],
  Acc extends Dims = [],
  Seen extends string = "",
> = I extends [infer H, ...infer R]
  ? KindOf<H> extends "adv"
    ? AdvShape<H> extends infer A extends number[]
      ? Broadcast<Acc, A> extends infer B
        ? B extends Dims
          ? AdvBroadcast<
              R,
              B,
              Seen extends "" ? ShapeString<A> : `${Seen}, ${ShapeString<A>}`
            >
          : ShapeMismatch<`index: shape mismatch: indexing tensors could not be broadcast together with shapes ${Seen}, ${ShapeString<A>}`>
        : never
      : number[]
    : AdvBroadcast<R, Acc, Seen>
  : Acc;
/**
 * Whether the index tensors stand together (PyTorch applies integers first, so only slices,
 * `null` and `...` between them separate them).
 */
type Together<
  I extends unknown[],
  State extends "before" | "in" | "after" = "before",
> = I extends [infer H, ...infer R]
  ? KindOf<H> extends "adv"
    ? State extends "after"
      ? false
      : Together<R, "in">
    : KindOf<H> extends "int"
      ? Together<R, State>
      : Together<R, State extends "in" ? "after" : State>
  : true;

type SplitAtEllipsis<
  I extends unknown[],
  Pre extends unknown[] = [],
> = I extends [infer H, ...infer R]
  ? H extends "..."
    ? [Pre, R]
    : SplitAtEllipsis<R, [...Pre, H]>
  : [Pre, []];
type Fill<N extends number, T extends unknown[] = []> = T["length"] extends N
  ? T
  : Fill<N, [...T, ":"]>;

/** The result shape of `x.index(...I)` for `x` of shape `S`, or the mismatch. */
export type IndexShape<S extends Dims, I extends readonly unknown[]> =
  IsTuple<S> extends false
    ? number[]
    : Flat<I> extends infer F extends unknown[]
      ? "mask" extends KindOf<F[number]>
        ? ShapeMismatch<"index: a boolean mask needs await x.index_async(...) (the result's size depends on the mask's values)">
        : "maybe-mask" extends KindOf<F[number]>
          ? number[]
          : LtN<S["length"], Consumed<F>> extends true
            ? ShapeMismatch<`index: too many indices for tensor of dimension ${S["length"]} (shape ${ShapeString<S>})`>
            : AdvBroadcast<F> extends infer B
              ? B extends Dims
                ? SplitAtEllipsis<F> extends [
                    infer Pre extends unknown[],
                    infer Post extends unknown[],
                  ]
                  ? [
                      ...Pre,
                      ...Fill<SubN<S["length"], Consumed<F>>>,
                      ...Post,
                    ] extends infer X extends unknown[]
                    ? Together<X> extends true
                      ? WalkOut<X, S, [...B]>
                      : WalkOut<X, S, []> extends infer W
                        ? W extends number[]
                          ? [...B, ...W]
                          : W
                        : never
                    : never
                  : never
                : B
              : never
      : number[];

// ---- assignment ----

/** The items of `x.set(index, v)`: an array of items, or one item. */
type SetItems<I> = I extends readonly unknown[] ? [...I] : [I];
/** The shape `x.set` writes (boolean masks are fine there: `number[]`), or the mismatch. */
export type SetShape<S extends Dims, I> =
  Flat<SetItems<I>> extends infer F extends unknown[]
    ? "mask" extends KindOf<F[number]>
      ? number[]
      : IndexShape<S, SetItems<I>>
    : number[];
type FitsFrom<V extends Dims, T extends Dims> = V extends readonly [
  ...infer VR extends number[],
  infer A extends number,
]
  ? T extends readonly [...infer TR extends number[], infer B extends number]
    ? A extends 1
      ? FitsFrom<VR, TR>
      : number extends A | B
        ? FitsFrom<VR, TR>
        : A extends B
          ? FitsFrom<VR, TR>
          : false
    : false
  : true;
/** `unknown` when a value of shape `V` broadcasts to the written shape `T`, else the mismatch. */
export type CheckSetValue<V, T> = V extends {
  readonly shape: infer VS extends Dims;
}
  ? T extends Dims
    ? IsTuple<T> extends false
      ? unknown
      : IsTuple<VS> extends false
        ? unknown
        : FitsFrom<VS, T> extends true
          ? unknown
          : ShapeMismatch<`set: shape mismatch: value tensor of shape ${ShapeString<VS>} cannot be broadcast to indexing result of shape ${ShapeString<T>}`>
    : unknown
  : unknown;
