/**
 * Shape-level types, `einsum` equations parsed by the type checker.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type { Dims, IsTuple, ShapeMismatch, ShapeString } from "./core.js";

// ---- einsum ----

type NoSpaces<S extends string> = S extends `${infer A} ${infer B}`
  ? NoSpaces<`${A}${B}`>
  : S;
type Chars<S extends string> = S extends `${infer C}${infer R}`
  ? [C, ...Chars<R>]
  : [];
type SplitComma<S extends string> = S extends `${infer A},${infer B}`
  ? [A, ...SplitComma<B>]
  : [S];
type IsUnion<T, U = T> = T extends unknown
  ? [U] extends [T]
    ? false
    : true
  : never;
/** `[letter, size]` pairs of every operand, or the first rank mismatch. */
type EinsumPairs<
  Subs extends string[],
  Shapes extends readonly Dims[],
  Eq extends string,
  I extends unknown[] = [],
  Acc = never,
> = Subs extends [infer F extends string, ...infer R extends string[]]
  ? Shapes extends readonly [infer S extends Dims, ...infer SR extends Dims[]]
    ? IsTuple<S> extends false
      ? false
      : Chars<F>["length"] extends S["length"]
        ? EinsumPairs<R, SR, Eq, [...I, unknown], Acc | Zip<Chars<F>, S>>
        : ShapeMismatch<`einsum: the number of subscripts in the equation (${Chars<F>["length"]}) does not match the number of dimensions (${S["length"]}) for operand ${I["length"]} ('${Eq}')`>
    : ShapeMismatch<`einsum: more operands were provided than specified in the equation '${Eq}'`>
  : Shapes extends readonly []
    ? Acc
    : ShapeMismatch<`einsum: fewer operands were provided than were specified in the equation '${Eq}'`>;
type Zip<L extends string[], S extends Dims, Acc = never> = L extends [
  infer X extends string,
  ...infer LR extends string[],
]
  ? S extends readonly [infer Z extends number, ...infer SR extends number[]]
    ? Zip<LR, SR, Acc | [X, Z]>
    : Acc
  : Acc;
type SizeOf<Pairs, L extends string> = Pairs extends [L, infer Z extends number]
  ? Z
  : never;
type EinsumCheck<
  Pairs,
  Letters extends string,
  Eq extends string,
  Shapes extends readonly Dims[],
> = {
  [L in Letters]: [SizeOf<Pairs, L>] extends [never]
    ? never
    : IsUnion<SizeOf<Pairs, L>> extends true
      ? ShapeMismatch<`einsum: subscript ${L} has different sizes in '${Eq}' (shapes ${ShapesString<Shapes>})`>
      : never;
}[Letters];
type ShapesString<Ss extends readonly Dims[]> = Ss extends readonly [
  infer F extends Dims,
  ...infer R extends Dims[],
]
  ? R extends []
    ? ShapeString<F>
    : `${ShapeString<F>}, ${ShapesString<R>}`
  : "";
type EinsumOut<
  Out extends string[],
  Pairs,
  Eq extends string,
  Acc extends number[] = [],
> = Out extends [infer L extends string, ...infer R extends string[]]
  ? [SizeOf<Pairs, L>] extends [never]
    ? ShapeMismatch<`einsum: output subscript ${L} does not appear in the equation for any input operand ('${Eq}')`>
    : EinsumOut<R, Pairs, Eq, [...Acc, SizeOf<Pairs, L>]>
  : Acc;

/**
 * The result shape of `einsum(Eq, ...operands)` with an explicit output (`"bij,bjk->bik"`), or
 * the mismatch (subscript count vs rank, a subscript with two sizes, an unknown output
 * subscript). Equations with `...` or without `->` give `number[]` (checked at run time).
 */
export type Einsum<
  Eq extends string,
  Shapes extends readonly Dims[],
> = string extends Eq
  ? number[]
  : NoSpaces<Eq> extends `${infer In}->${infer Out}`
    ? `${In}${Out}` extends `${string}.${string}`
      ? number[]
      : EinsumPairs<SplitComma<In>, Shapes, Eq> extends infer P
        ? [P] extends [false]
          ? number[]
          : [P] extends [ShapeMismatch<string>]
            ? P
            : [
                  EinsumCheck<P, Exclude<Chars<In>[number], ",">, Eq, Shapes>,
                ] extends [never]
              ? EinsumOut<Chars<Out>, P, Eq>
              : EinsumCheck<P, Exclude<Chars<In>[number], ",">, Eq, Shapes>
        : never
    : number[];
