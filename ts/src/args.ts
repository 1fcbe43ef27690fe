/**
 * Argument handling shared by the creation functions and Tensor methods: PyTorch's calling
 * conventions (`zeros(2, 3)` and `zeros([2, 3])`, trailing keyword options) turned into the
 * integer arrays the core takes. No math happens here.
 *
 * @module
 */

import { TorchError } from "./errors.js";
import type { DType, Device } from "./dtype.js";

/** A shape or list of dims as users pass it. */
export type Shape = readonly number[];

/** Options accepted by the creation functions. */
export interface CreationOptions {
  /** The dtype of the new tensor; each function documents its default. */
  dtype?: DType;
  /** The device of the new tensor; defaults to `torch.get_default_device()`. */
  device?: Device;
}

/** Sizes as varargs or one array, optionally followed by an options object. */
export type SizeArgs<O> =
  | [...sizes: number[]]
  | [...sizes: number[], options: O]
  | [sizes: Shape, options?: O];

/**
 * Splits `(2, 3, {dtype})` / `([2, 3], {dtype})` into sizes and options, checking that every size
 * is an integer (PyTorch: "argument 'size' must be tuple of ints").
 */
export function parseSizeArgs<O extends object>(
  fn: string,
  args: readonly unknown[],
): [number[], O] {
  let rest = args;
  let options = {} as O;
  const last = rest[rest.length - 1];
  if (
    last !== null &&
    typeof last === "object" &&
    !Array.isArray(last) &&
    !ArrayBuffer.isView(last)
  ) {
    options = last as O;
    rest = rest.slice(0, -1);
  }
  const first = rest[0];
  const sizes: unknown[] =
    rest.length === 1 && (Array.isArray(first) || ArrayBuffer.isView(first))
      ? Array.from(first as ArrayLike<unknown>)
      : [...rest];
  return [checkInts(fn, "size", sizes), options];
}

/** Checks that `values` are all integers (sizes, dims) and returns them as numbers. */
export function checkInts(
  fn: string,
  arg: string,
  values: readonly unknown[],
): number[] {
  values.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isInteger(v)) {
      const kind =
        typeof v === "number" ? "float" : Array.isArray(v) ? "list" : typeof v;
      throw new TorchError(
        `${fn}(): argument '${arg}' must be tuple of ints, but found element of type ${kind} at pos ${i}`,
      );
    }
  });
  return values as number[];
}

/** Dims as varargs or one array (`permute(1, 0)`, `permute([1, 0])`). */
export function parseDimArgs(
  fn: string,
  arg: string,
  args: readonly (number | Shape)[],
): number[] {
  const first = args[0];
  const dims =
    args.length === 1 && typeof first !== "number"
      ? Array.from(first as Shape)
      : [...args];
  return checkInts(fn, arg, dims);
}

/** Options of the reductions (`sum`, `mean`). */
export interface ReduceOptions {
  /** The dim or dims to reduce; all dims when absent (or empty). Negative dims count from the end. */
  dim?: number | Shape;
  /** Keep each reduced dim with size 1. Default `false`. */
  keepdim?: boolean;
}

/** Turns `sum()`, `sum(1)`, `sum([0, 1], true)` or `sum({dim, keepdim})` into dims and keepdim. */
export function parseReduceArgs(
  fn: string,
  dimOrOptions: number | Shape | ReduceOptions | undefined,
  keepdim: boolean | undefined,
): [Int32Array, boolean] {
  let dim: number | Shape | undefined;
  if (typeof dimOrOptions === "object" && !Array.isArray(dimOrOptions)) {
    const options = dimOrOptions as ReduceOptions;
    dim = options.dim;
    keepdim ??= options.keepdim;
  } else {
    dim = dimOrOptions as number | Shape | undefined;
  }
  const dims =
    dim === undefined ? [] : typeof dim === "number" ? [dim] : Array.from(dim);
  return [Int32Array.from(checkInts(fn, "dim", dims)), keepdim ?? false];
}
