/**
 * Shape-level types: the shape rules of PyTorch's ops computed by the type checker, so that
 * `Tensor<[2, 3]>` flows through `matmul`, broadcasting, reductions, reshapes, permutes, joins and
 * einsum equations, and a mismatch is a compile error naming both shapes and the rule.
 *
 * Nothing here exists at run time. A size typed `number` (unknown) or a shape typed `number[]`
 * (unknown rank) makes the rules give up gracefully: the result is as precise as the inputs allow,
 * and the run-time checks (which always run) catch the rest. See docs/types.md.
 *
 * Two kinds of type live here: shape functions (`BroadcastShape<A, B>` is a shape) and checks
 * (`CheckBroadcast<A, B>` is `unknown` when the shapes fit, else a {@link ShapeMismatch} carrying
 * the message). A method takes `other: Tensor<O> & CheckBroadcast<S, O>`, so a misfit argument is
 * not assignable and the message shows in tsc's error.
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

type Tup<N extends number, T extends unknown[] = []> = T["length"] extends N
  ? T
  : T["length"] extends 64
    ? never
    : Tup<N, [...T, unknown]>;
type Succ<N extends number> = [
  ...Tup<N>,
  unknown,
]["length"] extends infer L extends number
  ? L
  : never;
type Plus<A extends number, B extends number> = [
  ...Tup<A>,
  ...Tup<B>,
]["length"] extends infer L extends number
  ? L
  : never;
type Dec<N extends number> =
  Tup<N> extends [unknown, ...infer R] ? R["length"] : never;
type Lt<A extends number, B extends number> =
  Tup<B> extends [...Tup<A>, unknown, ...unknown[]] ? true : false;
type Minus<A extends number, B extends number> =
  Tup<A> extends [...Tup<B>, ...infer R] ? R["length"] : never;

/** `true` when `N` is a literal (not `number`). */
type Known<N extends number> = number extends N ? false : true;

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
type NormDims<
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

// ---- decimal arithmetic (numel checks and -1 in reshape work on sizes beyond tuple lengths) ----
// A number is a tuple of digits, least significant first: 1024 → [4, 2, 0, 1].

type Dg = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type Big = Dg[];
type ToBig<
  N extends number,
  S extends string = `${N}`,
  Acc extends Big = [],
> = S extends `${infer C extends Dg}${infer R}`
  ? ToBig<N, R, [C, ...Acc]>
  : Acc;
type FromBig<B extends Big, Acc extends string = ""> = B extends [
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
type Add<
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
type Mul<
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
type Sub<
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
type Reverse<T extends unknown[], Acc extends unknown[] = []> = T extends [
  infer H,
  ...infer R,
]
  ? Reverse<R, [H, ...Acc]>
  : Acc;
type QuotientDigit<R extends Big, B extends Big, K extends Dg = 9> = K extends 0
  ? 0
  : Cmp<MulDigit<B, K>, R> extends "gt"
    ? QuotientDigit<R, B, DecDigit[K]>
    : K;
/** `[quotient, remainder]` of `A / B` (B > 0) by long division. */
type DivMod<
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

// ---- broadcasting ----

type BroadcastDim<A extends number, B extends number> = A extends 1
  ? B
  : B extends 1
    ? A
    : Known<A> extends false
      ? B
      : Known<B> extends false
        ? A
        : A extends B
          ? A
          : false;
type AtLeast<X extends Dims, Y extends Dims> = X extends readonly [
  ...{ [K in keyof Y]: unknown },
  ...unknown[],
]
  ? true
  : false;
type BroadcastFrom<
  A extends Dims,
  B extends Dims,
  FullA extends Dims,
  FullB extends Dims,
  Acc extends number[] = [],
> = A extends readonly [...infer AR extends number[], infer X extends number]
  ? B extends readonly [...infer BR extends number[], infer Y extends number]
    ? BroadcastDim<X, Y> extends infer Z
      ? Z extends number
        ? BroadcastFrom<AR, BR, FullA, FullB, [Z, ...Acc]>
        : ShapeMismatch<`broadcast: shapes ${ShapeString<FullA>} and ${ShapeString<FullB>}: the size of tensor a (${X}) must match the size of tensor b (${Y}) at non-singleton dimension ${AtLeast<AR, BR> extends true ? AR["length"] : BR["length"]}`>
      : never
    : [...A, ...Acc]
  : [...B, ...Acc];

/** The broadcast of two shapes (PyTorch's rules), or the mismatch. */
export type Broadcast<A extends Dims, B extends Dims> =
  IsTuple<A> extends false
    ? number[]
    : IsTuple<B> extends false
      ? number[]
      : BroadcastFrom<A, B, A, B>;
/** The shape of an elementwise result of `S` and `O` (`number[]` on a mismatch). */
export type BroadcastShape<A extends Dims, B extends Dims> = ShapeOf<
  Broadcast<A, B>
>;
/** `unknown` when `A` and `B` broadcast, else the mismatch. */
export type CheckBroadcast<A extends Dims, B extends Dims> = CheckOf<
  Broadcast<A, B>
>;

// ---- matmul ----

type Inner<A extends number, B extends number> =
  Known<A> extends false
    ? true
    : Known<B> extends false
      ? true
      : A extends B
        ? true
        : false;

/** `torch.matmul`'s result shape (1-D, 2-D and batched with broadcasting), or the mismatch. */
export type Matmul<A extends Dims, B extends Dims> =
  IsTuple<A> extends false
    ? number[]
    : IsTuple<B> extends false
      ? number[]
      : A extends readonly []
        ? ShapeMismatch<`matmul: both arguments to matmul need to be at least 1D, but they are 0D and ${B["length"]}D`>
        : B extends readonly []
          ? ShapeMismatch<`matmul: both arguments to matmul need to be at least 1D, but they are ${A["length"]}D and 0D`>
          : A extends readonly [infer K extends number]
            ? B extends readonly [infer K2 extends number]
              ? Inner<K, K2> extends true
                ? []
                : ShapeMismatch<`matmul: inner dimensions do not match: ${K} vs ${K2} (shapes ${ShapeString<A>} and ${ShapeString<B>})`>
              : B extends readonly [
                    ...infer BB extends number[],
                    infer K2 extends number,
                    infer M extends number,
                  ]
                ? Inner<K, K2> extends true
                  ? [...BB, M]
                  : ShapeMismatch<`matmul: inner dimensions do not match: ${K} vs ${K2} (shapes ${ShapeString<A>} and ${ShapeString<B>})`>
                : never
            : A extends readonly [
                  ...infer AB extends number[],
                  infer N extends number,
                  infer K extends number,
                ]
              ? B extends readonly [infer K2 extends number]
                ? Inner<K, K2> extends true
                  ? [...AB, N]
                  : ShapeMismatch<`matmul: inner dimensions do not match: ${K} vs ${K2} (shapes ${ShapeString<A>} and ${ShapeString<B>})`>
                : B extends readonly [
                      ...infer BB extends number[],
                      infer K2 extends number,
                      infer M extends number,
                    ]
                  ? Inner<K, K2> extends true
                    ? Broadcast<AB, BB> extends infer Batch
                      ? Batch extends Dims
                        ? [...Batch, N, M]
                        : ShapeMismatch<`matmul: batch dimensions do not broadcast (shapes ${ShapeString<A>} and ${ShapeString<B>})`>
                      : never
                    : ShapeMismatch<`matmul: inner dimensions do not match: ${K} vs ${K2} (shapes ${ShapeString<A>} and ${ShapeString<B>})`>
                  : never
              : never;

/** `mm`'s result: both operands 2-D (`[n, k] @ [k, m]` → `[n, m]`). */
export type MM<A extends Dims, B extends Dims> =
  IsTuple<A> extends false
    ? number[]
    : IsTuple<B> extends false
      ? number[]
      : A extends readonly [infer N extends number, infer K extends number]
        ? B extends readonly [infer K2 extends number, infer M extends number]
          ? Inner<K, K2> extends true
            ? [N, M]
            : ShapeMismatch<`mm: mat1 and mat2 shapes cannot be multiplied (${N}x${K} and ${K2}x${M})`>
          : ShapeMismatch<`mm: mat2 must be a matrix, got ${B["length"]}-D tensor ${ShapeString<B>}`>
        : ShapeMismatch<`mm: self must be a matrix, got ${A["length"]}-D tensor ${ShapeString<A>}`>;

/** `bmm`'s result: both operands 3-D with equal batch sizes. */
export type BMM<A extends Dims, B extends Dims> =
  IsTuple<A> extends false
    ? number[]
    : IsTuple<B> extends false
      ? number[]
      : A extends readonly [
            infer Bt extends number,
            infer N extends number,
            infer K extends number,
          ]
        ? B extends readonly [
            infer Bt2 extends number,
            infer K2 extends number,
            infer M extends number,
          ]
          ? Inner<Bt, Bt2> extends true
            ? Inner<K, K2> extends true
              ? [Known<Bt> extends true ? Bt : Bt2, N, M]
              : ShapeMismatch<`bmm: Expected size for first two dimensions of batch2 tensor to be: [${Bt}, ${K}] but got: [${Bt2}, ${K2}]`>
            : ShapeMismatch<`bmm: batch1 and batch2 must have same number of batches, got ${Bt} and ${Bt2}`>
          : ShapeMismatch<`bmm: batch2 must be a 3D tensor, got ${ShapeString<B>}`>
        : ShapeMismatch<`bmm: batch1 must be a 3D tensor, got ${ShapeString<A>}`>;

// ---- reductions ----

type Includes<
  T extends readonly number[],
  X extends number,
> = T extends readonly [infer H, ...infer R extends number[]]
  ? H extends X
    ? true
    : Includes<R, X>
  : false;
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

type Slice<
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
type Prefix<T extends Dims, N extends number> = Slice<T, 0, N>;
type Suffix<T extends Dims, From extends number> = Slice<T, From, 1000>;

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

type SetAt<T extends Dims, I extends number, V extends number> = {
  -readonly [K in keyof T]: K extends `${I}` ? V : T[K];
};

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
type Add2<A extends number, B extends number> =
  Known<A> extends false
    ? number
    : Known<B> extends false
      ? number
      : FromBig<Add<ToBig<A>, ToBig<B>>>;

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

// ---- creation ----

/** The shape `zeros(2, 3)` / `zeros([2, 3])` makes. */
export type SizesOf<A extends readonly unknown[]> = A extends readonly [
  infer F extends Dims,
  ...unknown[],
]
  ? Mutable<F>
  : A extends readonly [...infer N extends number[], unknown]
    ? A extends readonly number[]
      ? Mutable<A>
      : N
    : A extends readonly number[]
      ? Mutable<A>
      : number[];

/** The shape of nested array data (`[[1, 2], [3, 4]]` → `[2, 2]`); `number[]` for ragged/unknown. */
export type DataShape<T> = T extends number | boolean | bigint
  ? []
  : T extends readonly unknown[]
    ? number extends T["length"]
      ? number[]
      : T extends readonly []
        ? [0]
        : DataShape<T[0]> extends infer I extends number[]
          ? [T["length"], ...I]
          : number[]
    : T extends ArrayLike<unknown>
      ? [number]
      : number[];

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

// ---- dtypes of creation ----

/** The `dtype` of a trailing options object in `A`, else `Def`. */
export type OptionDType<
  A extends readonly unknown[],
  Def,
> = A extends readonly [...unknown[], { dtype: infer X }] ? X : Def;

/** The dtype `torch.tensor` infers from nested literal data (PyTorch's rules). */
export type DataDType<T> =
  DataLeaves<T> extends infer L
    ? [L] extends [boolean]
      ? "bool"
      : [L] extends [Float32Array | Float64Array]
        ? "float32"
        : [L] extends [Int32Array | Int16Array | Int8Array | Uint16Array]
          ? "int32"
          : [L] extends [Uint8Array | Uint8ClampedArray]
            ? "uint8"
            : [L] extends [BigInt64Array | Uint32Array | bigint]
              ? "int64"
              : [L] extends [number | boolean]
                ? number extends L
                  ? "float32" | "int64"
                  : [
                        Extract<
                          `${L & number}`,
                          `${string}.${string}` | `${string}e${string}`
                        >,
                      ] extends [never]
                    ? "int64"
                    : "float32"
                : "float32" | "int64" | "int32" | "uint8" | "bool"
    : never;
// Depth-limited: `TensorData` itself is recursive.
type DataLeaves<T, Depth extends unknown[] = []> = Depth["length"] extends 8
  ? number | boolean
  : T extends readonly (infer E)[]
    ? DataLeaves<E, [...Depth, unknown]>
    : T;

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
