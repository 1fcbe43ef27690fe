/**
 * einops patterns parsed by the type checker: `rearrange(x, "b c h w -> b (h w) c")` with a
 * literal input shape has a literal output shape, and a pattern that cannot fit the input (wrong
 * rank, a size a group cannot divide, an axis on one side only) is a compile error naming the
 * pattern, the shape and einops' rule. Types only: nothing here exists at run time.
 *
 * What the types give up on (the run-time checks in index.ts always run): an input shape of
 * unknown rank (the output is then one `number` per output group), sizes typed `number`, and a
 * pattern typed `string`.
 *
 * @module
 */

import type { Add2 } from "../shapes/arith.js";
import type { Plus, Tup } from "../shapes/core.js";
import type {
  DivideExact,
  Dims,
  IsTuple,
  Multiply,
  ShapeMismatch,
  ShapeString,
} from "../shapes.js";

/** Axis lengths given to an einops call: `{ h: 2, w: 3 }`. */
export type EinopsLengths = Readonly<Record<string, number>>;

// ---- tokens and groups ----

type Push<Acc extends string[], W extends string> = W extends ""
  ? Acc
  : [...Acc, W];
/** `"b (h w) c"` → `["b", "(", "h", "w", ")", "c"]` (`...` is kept as a word). */
type Words<
  S extends string,
  Cur extends string = "",
  Acc extends string[] = [],
> = S extends `${infer C}${infer R}`
  ? C extends " "
    ? Words<R, "", Push<Acc, Cur>>
    : C extends "(" | ")"
      ? Words<R, "", [...Push<Acc, Cur>, C]>
      : Words<R, `${Cur}${C}`, Acc>
  : Push<Acc, Cur>;

/** One entry per dim: a group of axis words (`[]` for `1` and `()`), or `"..."`. */
type Group = string[] | "...";
type Groups<
  T extends string[],
  G extends string[] | null = null,
  Acc extends Group[] = [],
> = T extends [infer H extends string, ...infer R extends string[]]
  ? H extends "("
    ? G extends null
      ? Groups<R, [], Acc>
      : false
    : H extends ")"
      ? G extends string[]
        ? Groups<R, null, [...Acc, G]>
        : false
      : G extends string[]
        ? Groups<R, H extends "1" ? G : [...G, H], Acc>
        : Groups<
            R,
            null,
            [...Acc, H extends "1" ? [] : H extends "..." ? "..." : [H]]
          >
  : G extends null
    ? Acc
    : false;
type Parse<S extends string> = Groups<Words<S>>;

/** The groups before and after `...` (`[groups, [], false]` when there is none). */
type SplitEllipsis<Gs extends Group[], Pre extends Group[] = []> = Gs extends [
  infer H extends Group,
  ...infer R extends Group[],
]
  ? H extends "..."
    ? [Pre, R, true]
    : SplitEllipsis<R, [...Pre, H]>
  : [Pre, [], false];

// ---- binding axis names to sizes ----

type Known<N extends number> = number extends N ? false : true;
/** The length of a word if known before looking at the shape: a number, or a given length. */
type GivenLength<W extends string, L> = W extends `${infer N extends number}`
  ? N
  : W extends keyof L
    ? L[W] extends number
      ? L[W]
      : never
    : never;
type ProductOf<Ws extends string[], L, Acc extends number = 1> = Ws extends [
  infer H extends string,
  ...infer R extends string[],
]
  ? [GivenLength<H, L>] extends [never]
    ? ProductOf<R, L, Acc>
    : ProductOf<R, L, Multiply<Acc, GivenLength<H, L>>>
  : Acc;
type Unknowns<Ws extends string[], L> = Ws extends [
  infer H extends string,
  ...infer R extends string[],
]
  ? [GivenLength<H, L>] extends [never]
    ? [H, ...Unknowns<R, L>]
    : Unknowns<R, L>
  : [];

/** `[name, size]` pairs of one input group of size `D`, or the mismatch. */
type BindGroup<G extends string[], D extends number, L> =
  ProductOf<G, L> extends infer P extends number
    ? Unknowns<G, L> extends infer U extends string[]
      ? U extends []
        ? Known<D> extends false
          ? never
          : Known<P> extends false
            ? never
            : D extends P
              ? never
              : ShapeMismatch<`Shape mismatch, ${D} != ${P}`>
        : U extends [infer A extends string]
          ? Known<D> extends false
            ? [A, number]
            : DivideExact<D, P> extends infer Q
              ? [Q] extends [never]
                ? ShapeMismatch<`Shape mismatch, can't divide axis of length ${D} in chunks of ${P}`>
                : [A, Q]
              : never
          : ShapeMismatch<`Could not infer sizes for ${Unknowns<G, L>[number]}`>
      : never
    : never;
/** The pairs of every group against the sizes, or the first mismatch. */
type Bind<Gs extends Group[], S extends Dims, L, Acc = never> = Gs extends [
  infer G extends Group,
  ...infer R extends Group[],
]
  ? S extends readonly [infer D extends number, ...infer SR extends number[]]
    ? G extends string[]
      ? BindGroup<G, D, L> extends infer B
        ? [B] extends [ShapeMismatch<string>]
          ? B
          : Bind<R, SR, L, Acc | B>
        : never
      : Bind<R, SR, L, Acc>
    : Acc
  : Acc;
/** Given lengths as pairs (`repeat`'s new axes). */
type LengthPairs<L> = {
  [K in keyof L & string]: L[K] extends number ? [K, L[K]] : never;
}[keyof L & string];
type SizeOf<Pairs, W extends string> = W extends `${infer N extends number}`
  ? N
  : Pairs extends [W, infer Z extends number]
    ? Z
    : never;

// ---- the output ----

type Names<Gs extends Group[]> = Exclude<
  Extract<Gs[number], string[]>[number],
  `${number}` | "..."
>;
type Product<S extends Dims, Acc extends number = 1> = S extends readonly [
  infer H extends number,
  ...infer R extends number[],
]
  ? Product<R, Multiply<Acc, H>>
  : Acc;
type OutGroup<
  G extends string[],
  Pairs,
  Ell extends Dims,
  Acc extends number = 1,
> = G extends [infer H extends string, ...infer R extends string[]]
  ? H extends "..."
    ? OutGroup<R, Pairs, Ell, Multiply<Acc, Product<Ell>>>
    : [SizeOf<Pairs, H>] extends [never]
      ? number
      : OutGroup<R, Pairs, Ell, Multiply<Acc, SizeOf<Pairs, H>>>
  : Acc;
type Out<
  Gs extends Group[],
  Pairs,
  Ell extends Dims,
  Acc extends number[] = [],
> = Gs extends [infer G extends Group, ...infer R extends Group[]]
  ? G extends string[]
    ? Out<R, Pairs, Ell, [...Acc, OutGroup<G, Pairs, Ell>]>
    : Out<R, Pairs, Ell, [...Acc, ...Ell]>
  : Acc;
type NumberPer<Gs extends Group[]> = {
  [K in keyof Gs]: number;
};

type Kind = "rearrange" | "reduce" | "repeat";
type Fail<
  K extends Kind,
  P extends string,
  S extends Dims,
  M extends string,
> = ShapeMismatch<`${K}: ${M} (pattern "${P}", input shape ${ShapeString<S>})`>;

/** Checks that depend only on the pattern and the kind of call. */
type SideCheck<
  K extends Kind,
  LG extends Group[],
  RG extends Group[],
  L,
> = K extends "rearrange"
  ? [Exclude<Names<LG>, Names<RG>> | Exclude<Names<RG>, Names<LG>>] extends [
      never,
    ]
    ? true
    : `Identifiers only on one side of expression (should be on both): ${Exclude<Names<LG>, Names<RG>> | Exclude<Names<RG>, Names<LG>>}`
  : K extends "reduce"
    ? [Exclude<Names<RG>, Names<LG>>] extends [never]
      ? true
      : `Unexpected identifiers on the right side of reduce: ${Exclude<Names<RG>, Names<LG>>}`
    : [Exclude<Names<LG>, Names<RG>>] extends [never]
      ? [Exclude<Names<RG>, Names<LG> | keyof L>] extends [never]
        ? true
        : `Specify sizes for new axes in repeat: ${Exclude<Names<RG>, Names<LG> | keyof L> & string}`
      : `Unexpected identifiers on the left side of repeat: ${Exclude<Names<LG>, Names<RG>>}`;

/** The output shape of an einops call, or the mismatch. */
export type EinopsShape<
  K extends Kind,
  P extends string,
  S extends Dims,
  L,
> = string extends P
  ? number[]
  : P extends `${infer A}->${infer B}`
    ? [Parse<A>, Parse<B>] extends [
        infer LG extends Group[],
        infer RG extends Group[],
      ]
      ? SideCheck<K, LG, RG, L> extends infer C extends string
        ? Fail<K, P, S, C>
        : IsTuple<S> extends false
          ? "..." extends RG[number]
            ? number[]
            : NumberPer<RG>
          : SplitEllipsis<LG> extends [
                infer Pre extends Group[],
                infer Post extends Group[],
                infer HasEll extends boolean,
              ]
            ? HasEll extends true
              ? Lt<S["length"], [...Pre, ...Post]["length"]> extends true
                ? Fail<
                    K,
                    P,
                    S,
                    `Wrong shape: expected >=${[...Pre, ...Post]["length"]} dims. Received ${S["length"]}-dim tensor.`
                  >
                : EllipsisOut<K, P, S, L, Pre, Post, RG>
              : S["length"] extends LG["length"]
                ? Finish<K, P, S, Bind<LG, S, L>, L, RG, []>
                : Fail<
                    K,
                    P,
                    S,
                    `Wrong shape: expected ${LG["length"]} dims. Received ${S["length"]}-dim tensor.`
                  >
            : never
      : number[]
    : number[];
type Drop<S extends Dims, N extends unknown[]> = N extends [
  unknown,
  ...infer NR,
]
  ? S extends readonly [number, ...infer SR extends number[]]
    ? Drop<SR, NR>
    : []
  : S;
type Take<
  S extends Dims,
  N extends unknown[],
  Acc extends number[] = [],
> = N extends [unknown, ...infer NR]
  ? S extends readonly [infer H extends number, ...infer SR extends number[]]
    ? Take<SR, NR, [...Acc, H]>
    : Acc
  : Acc;
type Reverse<S extends Dims, Acc extends number[] = []> = S extends readonly [
  infer H extends number,
  ...infer R extends number[],
]
  ? Reverse<R, [H, ...Acc]>
  : Acc;
type Lt<A extends number, B extends number> = [A, B] extends [B, A]
  ? false
  : LtTup<[], A, B>;
type LtTup<
  T extends unknown[],
  A extends number,
  B extends number,
> = T["length"] extends A
  ? true
  : T["length"] extends B
    ? false
    : LtTup<[...T, unknown], A, B>;
type EllipsisOut<
  K extends Kind,
  P extends string,
  S extends Dims,
  L,
  Pre extends Group[],
  Post extends Group[],
  RG extends Group[],
> =
  Reverse<Take<Reverse<S>, Post>> extends infer Tail extends number[]
    ? Take<S, Pre> extends infer Head extends number[]
      ? Finish<
          K,
          P,
          S,
          Bind<Pre, Head, L> | Bind<Post, Tail, L>,
          L,
          RG,
          Reverse<Drop<Reverse<Drop<S, Pre>>, Post>>
        >
      : never
    : never;
type Finish<
  K extends Kind,
  P extends string,
  S extends Dims,
  Pairs,
  L,
  RG extends Group[],
  Ell extends Dims,
> = [Extract<Pairs, ShapeMismatch<string>>] extends [never]
  ? Out<RG, Exclude<Pairs, ShapeMismatch<string>> | LengthPairs<L>, Ell>
  : Extract<Pairs, ShapeMismatch<string>> extends ShapeMismatch<
        infer M extends string
      >
    ? Fail<K, P, S, M>
    : never;

/** `rearrange(x, P, L)`'s output shape for an input of shape `S`, or the mismatch. */
export type RearrangeShape<P extends string, S extends Dims, L> = EinopsShape<
  "rearrange",
  P,
  S,
  L
>;
/** `reduce(x, P, reduction, L)`'s output shape, or the mismatch. */
export type ReduceShape<P extends string, S extends Dims, L> = EinopsShape<
  "reduce",
  P,
  S,
  L
>;
/** `repeat(x, P, L)`'s output shape, or the mismatch. */
export type RepeatShape<P extends string, S extends Dims, L> = EinopsShape<
  "repeat",
  P,
  S,
  L
>;

// ---- pack ----

type PackSplit<Ws extends string[], Pre extends string[] = []> = Ws extends [
  infer H extends string,
  ...infer R extends string[],
]
  ? H extends "*"
    ? [Pre["length"], R["length"]]
    : PackSplit<R, [...Pre, H]>
  : false;
type Sum<Ns extends number[], Acc extends number = 0> = Ns extends [
  infer H extends number,
  ...infer R extends number[],
]
  ? Sum<R, Add2<Acc, H>>
  : Acc;
/** The packed size of each shape (the product of the dims `*` stands for), or the mismatch. */
type Middles<
  Ss extends readonly Dims[],
  B extends number,
  A extends number,
  P extends string,
  I extends unknown[] = [],
  Acc extends number[] = [],
> = Ss extends readonly [infer S extends Dims, ...infer R extends Dims[]]
  ? IsTuple<S> extends false
    ? false
    : Lt<S["length"], Plus<B, A>> extends true
      ? ShapeMismatch<`pack: packed tensor #${I["length"]} (enumeration starts with 0) has shape ${ShapeString<S>}, while pattern ${P} assumes at least ${Plus<B, A>} axes`>
      : Reverse<
            Drop<Reverse<Drop<S, Tup<B>>>, Tup<A>>
          > extends infer Mid extends number[]
        ? Middles<R, B, A, P, [...I, unknown], [...Acc, Product<Mid>]>
        : never
  : Acc;

/**
 * `pack(tensors, P)`'s packed shape: the first tensor's dims before and after `*`, and the sum of
 * what `*` stands for in each (`number[]` for a list of unknown length or rank), or the mismatch.
 */
export type PackShape<
  P extends string,
  Ss extends readonly Dims[],
> = string extends P
  ? number[]
  : number extends Ss["length"]
    ? number[]
    : PackSplit<Words<P>> extends [
          infer B extends number,
          infer A extends number,
        ]
      ? Middles<Ss, B, A, P> extends infer M
        ? M extends number[]
          ? Ss extends readonly [infer F extends Dims, ...Dims[]]
            ? [...Take<F, Tup<B>>, Sum<M>, ...Reverse<Take<Reverse<F>, Tup<A>>>]
            : number[]
          : M extends false
            ? number[]
            : M
        : never
      : number[];

// ---- unpack ----

type Neg1ToNumber<S extends Dims> = {
  -readonly [K in keyof S]: S[K] extends -1 ? number : S[K];
};
type CountNeg<
  Ps extends readonly Dims[],
  Acc extends unknown[] = [],
> = Ps extends readonly [infer S extends Dims, ...infer R extends Dims[]]
  ? CountNeg<R, -1 extends S[number] ? [...Acc, unknown] : Acc>
  : Acc["length"];
type Join<S extends Dims> = S extends readonly [
  infer A extends number,
  ...infer R extends number[],
]
  ? R extends []
    ? `${A}`
    : `${A}, ${Join<R>}`
  : "";
type PyTuple<S extends Dims> = S extends readonly [infer A extends number]
  ? `(${A},)`
  : `(${Join<S>})`;
type PyShapes<Ps extends readonly Dims[]> = `[${JoinTuples<Ps>}]`;
type JoinTuples<Ps extends readonly Dims[]> = Ps extends readonly [
  infer S extends Dims,
  ...infer R extends Dims[],
]
  ? R extends []
    ? PyTuple<S>
    : `${PyTuple<S>}, ${JoinTuples<R>}`
  : "";
/** The packed axis' length each shape takes (`number` for a shape with a -1). */
type Takes<Ps extends readonly Dims[]> = {
  -readonly [K in keyof Ps]: -1 extends Ps[K][number] ? number : Product<Ps[K]>;
};

/**
 * `unpack(x, Ps, P)`'s shapes: one per packed shape in `Ps` (the dims before and after `*` kept,
 * `*` replaced by the packed shape; a -1 in it is `number`), or the mismatch: a rank other than
 * the pattern's, more than one -1, or known lengths that do not add up to the packed axis.
 * A list of shapes of unknown length gives `number[][]`.
 */
export type UnpackShapes<
  P extends string,
  S extends Dims,
  Ps extends readonly Dims[],
> = string extends P
  ? number[][]
  : number extends Ps["length"]
    ? number[][]
    : PackSplit<Words<P>> extends [
          infer B extends number,
          infer A extends number,
        ]
      ? IsTuple<S> extends false
        ? number[][]
        : S["length"] extends Plus<Plus<B, A>, 1>
          ? CountNeg<Ps> extends 0 | 1
            ? Sum<Takes<Ps>> extends infer N extends number
              ? Known<N> extends true
                ? Known<S[B]> extends true
                  ? N extends S[B]
                    ? UnpackOut<S, Ps, B>
                    : ShapeMismatch<`unpack: Error during unpack(..., "${P}"): could not split axis of size ${S[B]} into requested ${PyShapes<Ps>}`>
                  : UnpackOut<S, Ps, B>
                : UnpackOut<S, Ps, B>
              : never
            : ShapeMismatch<`unpack: unpack(..., ${P}) received more than one -1 in ${PyShapes<Ps>} and can't infer dimensions`>
          : ShapeMismatch<`unpack: unpack(..., ${P}) received input of wrong dim with shape torch.Size(${ShapeString<S>})`>
      : number[][];
type UnpackOut<S extends Dims, Ps extends readonly Dims[], B extends number> = {
  -readonly [K in keyof Ps]: [
    ...Take<S, Tup<B>>,
    ...Neg1ToNumber<Ps[K]>,
    ...Drop<S, Tup<Plus<B, 1>>>,
  ];
};

/** `unknown` when `R` is a list of shapes, else the mismatch it carries. */
export type CheckUnpack<R> = R extends ShapeMismatch<string> ? R : unknown;

/**
 * The packed shapes `pack(tensors, P)` returns: for each tensor, the dims `*` stands for
 * (`number[]` for a tensor of unknown rank; `number[][]` for a pattern typed `string` or a list
 * of unknown length).
 */
export type PackedShapes<
  P extends string,
  Ss extends readonly Dims[],
> = string extends P
  ? number[][]
  : number extends Ss["length"]
    ? number[][]
    : PackSplit<Words<P>> extends [
          infer B extends number,
          infer A extends number,
        ]
      ? {
          -readonly [K in keyof Ss]: IsTuple<Ss[K]> extends true
            ? Reverse<Drop<Reverse<Drop<Ss[K], Tup<B>>>, Tup<A>>>
            : number[];
        }
      : number[][];
