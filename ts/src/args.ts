/**
 * Argument handling shared by the creation functions and Tensor methods: PyTorch's calling
 * conventions (`zeros(2, 3)` and `zeros([2, 3])`, trailing keyword options) turned into the
 * integer arrays the core takes. No math happens here.
 *
 * @module
 */

import { ArgumentError, OutOfMemoryError, TorchError } from "./errors.js";
import { core } from "./runtime.js";
import {
  type DType,
  type Device,
  isFloatingPoint,
  scalarTypeName,
} from "./dtype.js";
import type { Tensor } from "./tensor/tensor.js";
import { type DeviceName, canonicalDevice } from "./defaults.js";

/** A shape or list of dims as users pass it. */
export type Shape = readonly number[];

/** Options accepted by the creation functions. */
export interface CreationOptions {
  /** The dtype of the new tensor; each function documents its default. */
  dtype?: DType;
  /**
   * The device of the new tensor; defaults to `torch.get_default_device()`. `"cuda"` (and
   * `"cuda:0"`) name the WebGPU device, as PyTorch code spells it.
   */
  device?: DeviceName;
  /** Record operations on the new tensor for autograd (a leaf). Default `false`. */
  requires_grad?: boolean;
}

/** Sizes as varargs or one array, optionally followed by an options object. */
export type SizeArgs<O> =
  | [...sizes: number[]]
  | [...sizes: number[], options: O]
  | [sizes: Shape, options?: O];

/**
 * The name Python gives the type of the value a JS caller passed, for PyTorch's TypeError
 * wording ("must be Tensor, not str"): undefined and null are None, arrays lists, objects dicts.
 */
export function pyTypeName(v: unknown): string {
  if (v === undefined || v === null) return "NoneType";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") {
    const name = (v as object).constructor?.name;
    return name === undefined || name === "Object" ? "dict" : name;
  }
  return typeof v;
}

// Sizes, dims and indices cross into the core as 32-bit integers: anything wider would wrap.
const INT32_MAX = 2 ** 31 - 1;

/**
 * Checks that `values` are all integers (sizes, dims) that fit the core's 32-bit arguments and
 * returns them as numbers. A size (`arg` "size") beyond that can never be allocated: an
 * OutOfMemoryError, as PyTorch's allocator would give.
 */
export function checkInts(
  fn: string,
  arg: string,
  values: readonly unknown[],
): number[] {
  values.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isInteger(v)) {
      const kind = pyTypeName(v) === "int" ? "float" : pyTypeName(v);
      throw new TorchError(
        `${fn}(): argument '${arg}' must be tuple of ints, but found element of type ${kind} at pos ${i}`,
      );
    }
    if (v > INT32_MAX || v < -INT32_MAX - 1) {
      if (arg === "size" && v > 0)
        throw new OutOfMemoryError(
          `Trying to create tensor of shape [${values.join(", ")}] whose element count exceeds 2^32`,
        );
      throw new TorchError(
        `${fn}(): argument '${arg}' value ${v} at pos ${i} is out of range (32-bit integers only)`,
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
    args.length === 1 && (Array.isArray(first) || ArrayBuffer.isView(first))
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
    dim === undefined
      ? []
      : Array.isArray(dim) || ArrayBuffer.isView(dim)
        ? Array.from(dim as ArrayLike<number>)
        : [checkDim(fn, dim, "tuple of ints")];
  return [Int32Array.from(checkInts(fn, "dim", dims)), keepdim ?? false];
}

// Reductions whose Python binding has several overloads: PyTorch reports a bad `dim` as "no
// overload matches" rather than naming the argument.
const OVERLOADED_DIM = new Set([
  "sum",
  "mean",
  "prod",
  "std",
  "var",
  "std_mean",
  "var_mean",
  "count_nonzero",
  "max",
  "min",
  "norm",
]);

/**
 * Checks one `dim` argument (an integer), with PyTorch's TypeError wording otherwise:
 * "amax(): argument 'dim' (position 1) must be tuple of ints, not float".
 */
export function checkDim(
  fn: string,
  dim: unknown,
  expected: "int" | "tuple of ints" = "int",
): number {
  if (typeof dim === "number" && Number.isInteger(dim))
    return checkInts(fn, "dim", [dim])[0]!;
  const got = pyTypeName(dim);
  if (OVERLOADED_DIM.has(fn))
    throw new TorchError(
      `${fn}() received an invalid combination of arguments - got (${got}), but expected one of: (int dim, bool keepdim), (tuple of ints dim, bool keepdim)`,
    );
  throw new TorchError(
    `${fn}(): argument 'dim' (position 1) must be ${expected}, not ${got}`,
  );
}

/**
 * Throws `OutOfMemoryError` unless a host-side table of `count` elements of `bytesPerElement`
 * bytes fits the CPU budget: called before building one from sizes a caller chose (index lists,
 * interpolation tables), so that no size can make V8 abort.
 */
export function checkHostAlloc(
  what: string,
  count: number,
  bytesPerElement: number,
): void {
  core.check_host_alloc(what, count, bytesPerElement);
}

/** A `set_memory_budget` argument for the core: bytes, or -1 for `null` (the default). */
export function budgetArg(bytes: number | null): number {
  if (bytes !== null && !(Number.isSafeInteger(bytes) && bytes >= 0))
    throw new TorchError(
      `set_memory_budget(): expected a non-negative integer number of bytes or null, got ${String(bytes)}`,
    );
  return bytes ?? -1;
}

/** The options of `t.new_*()` and `*_like(t)`: `t`'s dtype and device unless given. */
export function like(
  t: Tensor,
  options: CreationOptions = {},
): Required<Omit<CreationOptions, "requires_grad">> {
  return {
    dtype: options.dtype ?? t.dtype,
    device: options.device ?? t.device,
  };
}

export function checkFloat(fn: string, dtype: DType): void {
  if (!isFloatingPoint(dtype))
    throw new TorchError(`"${fn}" not implemented for '${dtypeTitle(dtype)}'`);
}

/** PyTorch's scalar type names in messages ("Long", "Float"). */
function dtypeTitle(dtype: DType): string {
  return scalarTypeName(dtype);
}

/** The parsed creation options (`null` for not given) as {@link CreationOptions}. */
export function creationOptions(a: {
  dtype?: DType | null;
  device?: string | null;
  requires_grad?: boolean;
}): CreationOptions {
  return {
    dtype: a.dtype ?? undefined,
    device: (a.device ?? undefined) as Device | undefined,
    requires_grad: a.requires_grad,
  };
}

/** `t`, made a leaf that requires grad when `requires_grad`. */
export function leaf(t: Tensor, requires_grad: boolean | undefined): Tensor {
  return requires_grad ? t.requires_grad_() : t;
}

/**
 * A varargs size as parsed (`zeros(2, 3)`: `[2, 3]`; `zeros([2, 3])`: `[[2, 3]]`) as one list of
 * ints; a list beside other sizes is PyTorch's "must be tuple of ints".
 */
export function sizeList(
  fn: string,
  size: readonly (number | readonly number[])[],
  arg = "size",
): number[] {
  const first = size[0];
  const list: readonly unknown[] =
    size.length === 1 && typeof first === "object" ? first : size;
  list.forEach((v, i) => {
    if (typeof v !== "number")
      throw new ArgumentError(
        `${fn}(): argument '${arg}' must be tuple of ints, but found element of type list at pos ${i}`,
      );
  });
  return checkInts(fn, arg, list);
}

/**
 * Whether `values` are all integers: the common call of a size or dims taking function
 * (`zeros(2, 3)`, `t.reshape(2, -1)`), which cannot be of a wrong kind and skips the parser.
 */
export function plainInts(values: ArrayLike<unknown>): values is number[] {
  for (let i = 0; i < values.length; i++)
    if (!Number.isInteger(values[i])) return false;
  return true;
}

const DATA_OPTIONS = new Set(["dtype", "device", "requires_grad"]);

/**
 * The options of a function whose first argument is data of any shape (`tensor`, `as_tensor`,
 * `Tensor.new_tensor`), checked by hand: a schema entry could not tell a trailing options object
 * from the data. Anything but a plain object of known keys is PyTorch's arity or keyword error.
 */
export function dataOptions(fn: string, options: unknown): CreationOptions {
  if (options === undefined) return {};
  const proto =
    options !== null && typeof options === "object"
      ? Object.getPrototypeOf(options)
      : undefined;
  if (proto !== Object.prototype && proto !== null)
    throw new ArgumentError(
      `${fn}() takes 1 positional argument but 2 were given`,
    );
  for (const key of Object.keys(options as object))
    if (!DATA_OPTIONS.has(key))
      throw new ArgumentError(
        `${fn}() got an unexpected keyword argument '${key}'`,
      );
  const o = options as CreationOptions;
  if (o.requires_grad !== undefined && typeof o.requires_grad !== "boolean")
    throw new ArgumentError(
      `${fn}(): argument 'requires_grad' must be bool, not ${pyTypeName(o.requires_grad)}`,
    );
  return o.device === undefined
    ? o
    : { ...o, device: canonicalDevice(o.device) };
}
