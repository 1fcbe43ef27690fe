/**
 * Shape-level types, broadcasting (PyTorch's rules) and the matrix products: `matmul`, `mm`,
 * `bmm`.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type {
  CheckOf,
  Dims,
  Inner,
  IsTuple,
  Known,
  ShapeMismatch,
  ShapeOf,
  ShapeString,
} from "./core.js";

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
