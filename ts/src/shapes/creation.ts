/**
 * Shape-level types, creation: the shapes and dtypes that `zeros(2, 3)`, `tensor([[1, 2]])` and
 * the other factories make.
 *
 * Types only (nothing here exists at run time); ../shapes.ts lists the public ones, and
 * docs/types.md describes them.
 *
 * @module
 */

import type { Dims, Mutable } from "./core.js";

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
