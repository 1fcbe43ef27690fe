/**
 * Creating tensors: `torch.tensor` from JS data, and the factories (`zeros`, `ones`, `full`,
 * `arange`, `rand`, `randn`) with PyTorch's signatures and dtype inference; and the factories
 * composed from them: `empty` (zero-filled: WebGPU buffers start zeroed, so there is nothing to
 * gain from garbage), `empty_strided`, `linspace`, `logspace`, `eye`,
 * `tril_indices`/`triu_indices` and `as_tensor`.
 *
 * @module
 */

import {
  RawTensor,
  manual_seed as coreManualSeed,
} from "../wasm/webtorch_core.js";
import { ShapeError, TorchError } from "../errors.js";
import { default_generator } from "../generator.js";
import { type DType, deviceCode, dtypeCode } from "../dtype.js";
import { args } from "../schema/index.js";
import {
  type CreationOptions,
  type Shape,
  type SizeArgs,
  checkHostAlloc,
  checkInts,
  creationOptions,
  leaf,
  plainInts,
  pyTypeName,
  sizeList,
} from "../args.js";
import { get_default_device } from "../runtime.js";
import { defaultFloat } from "../defaults.js";
import { scope } from "../lifetime.js";
import { where } from "./conditional.js";
import { pow } from "./ops.js";
import { type Scalar, Tensor, wrap } from "../tensor/tensor.js";
import type {
  DataDType,
  DataShape,
  Dims,
  Mutable,
  OptionDType,
  SizesOf,
} from "../shapes.js";

/** Typed arrays `torch.tensor` accepts, and the dtype each gives by default. */
export type TypedArrayData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Int16Array
  | Int32Array
  | Uint8Array
  | Uint8ClampedArray
  | Uint16Array
  | Uint32Array
  | BigInt64Array;

/** What `torch.tensor` takes: a scalar, a typed array, or (nested) arrays of these. */
export type TensorData =
  number | boolean | bigint | TypedArrayData | readonly TensorData[];

/** Options of {@link tensor}. */
export type TensorOptions = CreationOptions;

/**
 * A tensor holding a copy of `data`. The dtype, unless given, is inferred as PyTorch infers it
 * from Python data: all booleans → bool; all integers → int64; any other number → float32.
 * Typed arrays keep their kind: Float32Array/Float64Array → float32, Int32Array (and narrower
 * signed) → int32, Uint8Array → uint8, BigInt64Array/Uint32Array → int64.
 *
 * @example torch.tensor([[1, 2], [3, 4]]) // int64, shape [2, 2]
 */
export function tensor<
  const T extends TensorData,
  const O extends TensorOptions = object,
>(
  data: T,
  options?: O,
): Tensor<
  DataShape<T>,
  O extends { dtype: infer X extends DType } ? X : DataDType<T>
>;
export function tensor<
  S extends Dims,
  D extends DType,
  const O extends TensorOptions = object,
>(
  data: Tensor<S, D>,
  options?: O,
): Tensor<Mutable<S>, O extends { dtype: infer X extends DType } ? X : D>;
export function tensor(
  data: TensorData | Tensor,
  options?: TensorOptions,
): Tensor;
export function tensor(
  data: TensorData | Tensor,
  options?: TensorOptions,
): Tensor {
  options = creationOptions(args("tensor", arguments));
  const device = deviceCode(options.device ?? get_default_device());
  if (data instanceof Tensor) {
    // PyTorch copies (with a warning to prefer clone()); same here.
    const copy = data.clone();
    if (options.dtype === undefined || options.dtype === copy.dtype)
      return copy;
    try {
      return copy.to(options.dtype);
    } finally {
      copy.dispose();
    }
  }
  if (
    data instanceof Float32Array &&
    (options.dtype ?? "float32") === "float32"
  ) {
    return made(
      RawTensor.from_f32(data, Int32Array.of(data.length), device),
      options,
    );
  }
  const { values, shape, dtype } = flatten(data);
  return made(
    RawTensor.from_f64(
      values,
      Int32Array.from(shape),
      dtypeCode(options.dtype ?? dtype),
      device,
    ),
    options,
  );
}

const TYPED_DTYPES: readonly [
  abstract new (...args: never[]) => ArrayBufferView,
  DType,
][] = [
  [Float32Array, "float32"],
  [Float64Array, "float32"],
  [Int8Array, "int32"],
  [Int16Array, "int32"],
  [Int32Array, "int32"],
  [Uint8Array, "uint8"],
  [Uint8ClampedArray, "uint8"],
  [Uint16Array, "int32"],
  [Uint32Array, "int64"],
  [BigInt64Array, "int64"],
];

function typedDType(view: ArrayBufferView): DType | undefined {
  return TYPED_DTYPES.find(([ctor]) => view instanceof ctor)?.[1];
}

function isSequence(x: unknown): x is ArrayLike<unknown> {
  return (
    Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView))
  );
}

/** Flattens nested data into row-major float64 values, checking it is not ragged. */
function flatten(data: TensorData): {
  values: Float64Array;
  shape: number[];
  dtype: DType;
} {
  const shape: number[] = [];
  for (let x: unknown = data; isSequence(x); x = x[0]) {
    shape.push(x.length);
    if (x.length === 0 || ArrayBuffer.isView(x)) break;
  }
  const values = new Float64Array(shape.reduce((a, b) => a * b, 1));
  let pos = 0;
  let allBool = true;
  let allInt = true;
  const typedKinds = new Set<DType>();
  let plainLeaves = false;

  const leaf = (v: unknown, d: number, first: boolean): void => {
    if (typeof v === "boolean") {
      values[pos++] = v ? 1 : 0;
      return;
    }
    allBool = false;
    if (typeof v === "bigint") {
      values[pos++] = Number(v);
    } else if (typeof v === "number") {
      values[pos++] = v;
      if (!Number.isInteger(v)) allInt = false;
    } else if (isSequence(v)) {
      throw new TorchError(
        `expected a number at dim ${d} but got a sequence of length ${v.length}`,
      );
    } else if (typeof v === "string") {
      throw new TorchError(
        // PyTorch infers the shape along the first elements, where a string is one dim more.
        d > 0 && first
          ? "too many dimensions 'str'"
          : "new(): invalid data type 'str'",
      );
    } else {
      throw new TorchError(`Could not infer dtype of ${pyTypeName(v)}`);
    }
  };
  const walk = (x: unknown, d: number, first: boolean): void => {
    if (d === shape.length) {
      plainLeaves = true;
      leaf(x, d, first);
      return;
    }
    if (!isSequence(x)) {
      throw new TorchError(
        `expected sequence of length ${shape[d]} at dim ${d} (got ${pyTypeName(x)}): not a sequence`,
      );
    }
    if (x.length !== shape[d]) {
      throw new TorchError(
        `expected sequence of length ${shape[d]} at dim ${d} (got ${x.length})`,
      );
    }
    if (ArrayBuffer.isView(x)) {
      if (d !== shape.length - 1) {
        throw new TorchError(
          `expected sequence of length ${shape[d]} at dim ${d} (got a typed array)`,
        );
      }
      const kind = typedDType(x)!;
      typedKinds.add(kind);
      allBool = false;
      if (kind !== "float32" && kind !== "int64") {
        values.set(x as unknown as ArrayLike<number>, pos);
        pos += x.length;
        return;
      }
      for (let i = 0; i < x.length; i++) {
        const v = Number(x[i]);
        values[pos++] = v;
        if (kind === "float32") allInt = false;
      }
      return;
    }
    for (let i = 0; i < x.length; i++) walk(x[i], d + 1, first && i === 0);
  };
  walk(data, 0, true);

  let dtype: DType;
  if (typedKinds.size === 1 && !plainLeaves) dtype = [...typedKinds][0]!;
  else if (values.length === 0) dtype = defaultFloat();
  else if (allBool) dtype = "bool";
  else dtype = allInt ? "int64" : defaultFloat();
  return { values, shape, dtype };
}

/** Wraps a new core tensor, marking it as requiring grad when `options.requires_grad`. */
function made(raw: RawTensor, options: CreationOptions): Tensor {
  const t = wrap(raw);
  return options.requires_grad ? t.requires_grad_() : t;
}

function deviceOf(options: CreationOptions): number {
  return deviceCode(options.device ?? get_default_device());
}

type SizeFactory = "zeros" | "ones" | "empty" | "rand" | "randn";

/** The sizes and options of a size factory's call, through its schema entry. */
function sizeArgs(
  fn: SizeFactory,
  values: ArrayLike<unknown>,
): [number[], CreationOptions] {
  if (plainInts(values)) return [checkInts(fn, "size", Array.from(values)), {}];
  const a = args(fn, values);
  return [sizeList(fn, a.size), creationOptions(a)];
}

/** The dtype PyTorch gives `full` for a fill value: bool, int64 for integers, else float32. */
function scalarDType(value: number | boolean): DType {
  if (typeof value === "boolean") return "bool";
  return Number.isInteger(value) ? "int64" : defaultFloat();
}

/** A tensor of zeros (the default dtype, float32 unless `torch.set_default_dtype` changed it, unless `dtype`): `torch.zeros(2, 3)`, `torch.zeros([2, 3], { dtype })`. */
export function zeros<const A extends SizeArgs<CreationOptions>>(
  ...size: A
): Tensor<SizesOf<A>, OptionDType<A, "float32">>;
export function zeros(): Tensor {
  const [sizes, options] = sizeArgs("zeros", arguments);
  // PyTorch checks zeros' sizes on its own, with its own words (ones and full: fullOf's).
  if (sizes.some((n) => n < 0))
    throw new ShapeError("zeros: Dimension size must be non-negative.");
  return fullOf(sizes, 0, options.dtype ?? defaultFloat(), options);
}

/** A tensor of ones (the default dtype, float32 unless `torch.set_default_dtype` changed it, unless `dtype`). */
export function ones<const A extends SizeArgs<CreationOptions>>(
  ...size: A
): Tensor<SizesOf<A>, OptionDType<A, "float32">>;
export function ones(): Tensor {
  const [sizes, options] = sizeArgs("ones", arguments);
  return fullOf(sizes, 1, options.dtype ?? defaultFloat(), options);
}

/** A tensor filled with `fill_value`; the dtype follows the value (bool, int64, float32) unless given. */
export function full<
  const Z extends Shape,
  V extends number | boolean,
  const O extends CreationOptions = object,
>(
  size: Z,
  fill_value: V,
  options?: O,
): Tensor<
  Mutable<Z>,
  O extends { dtype: infer X extends DType }
    ? X
    : V extends boolean
      ? "bool"
      : number extends V
        ? "float32" | "int64"
        : `${V & number}` extends `${string}.${string}`
          ? "float32"
          : "int64"
>;
export function full(
  size: Shape,
  fill_value: number | boolean,
  options?: CreationOptions,
): Tensor {
  const a = args("full", arguments);
  const sizes = checkInts("full", "size", a.size);
  return fullOf(
    sizes,
    Number(a.fill_value),
    a.dtype ?? scalarDType(a.fill_value),
    creationOptions(a),
  );
}

function fullOf(
  sizes: number[],
  value: number,
  dtype: DType,
  options: CreationOptions,
): Tensor {
  return made(
    RawTensor.full(
      Int32Array.from(sizes),
      value,
      dtypeCode(dtype),
      deviceOf(options),
    ),
    options,
  );
}

/**
 * Values from `start` (default 0) up to but excluding `end`, `step` apart (default 1):
 * `arange(5)`, `arange(1, 4)`, `arange(0, 1, 0.25)`. int64 when all arguments are integers, else
 * float32 (unless `dtype`).
 */
export function arange(end: number, options?: CreationOptions): Tensor;
export function arange(
  start: number,
  end: number,
  options?: CreationOptions,
): Tensor;
export function arange(
  start: number,
  end: number,
  step: number,
  options?: CreationOptions,
): Tensor;
export function arange(): Tensor {
  // PyTorch's overloads (end), (start, end), (start, end, step), told apart by the parser.
  const a = args("arange", arguments);
  const options = creationOptions(a);
  const num = (v: Scalar): number => Number(v);
  const [start, end, step] =
    "start" in a
      ? [num(a.start), num(a.end), "step" in a ? num(a.step) : 1]
      : [0, num(a.end), 1];
  const dtype =
    options.dtype ??
    ([start, end, step].every(Number.isInteger) ? "int64" : defaultFloat());
  return made(
    RawTensor.arange(start, end, step, dtypeCode(dtype), deviceOf(options)),
    options,
  );
}

/** Uniform random numbers in [0, 1) (seeded by {@link manual_seed}): `rand(2, 3)`, `rand([2, 3])`. */
export function rand<const A extends SizeArgs<CreationOptions>>(
  ...size: A
): Tensor<SizesOf<A>, OptionDType<A, "float32">>;
export function rand(): Tensor {
  const [sizes, options] = sizeArgs("rand", arguments);
  return made(
    RawTensor.rand(
      Int32Array.from(sizes),
      dtypeCode(options.dtype ?? defaultFloat()),
      deviceOf(options),
    ),
    options,
  );
}

/** Standard normal random numbers (seeded by {@link manual_seed}): `randn(2, 3)`, `randn([2, 3])`. */
export function randn<const A extends SizeArgs<CreationOptions>>(
  ...size: A
): Tensor<SizesOf<A>, OptionDType<A, "float32">>;
export function randn(): Tensor {
  const [sizes, options] = sizeArgs("randn", arguments);
  return made(
    RawTensor.randn(
      Int32Array.from(sizes),
      dtypeCode(options.dtype ?? defaultFloat()),
      deviceOf(options),
    ),
    options,
  );
}

/** Seeds the random generator; the same seed gives the same numbers on every device. */
export function manual_seed(seed: number): void {
  const s = args("manual_seed", arguments).seed;
  coreManualSeed(s);
  default_generator.manual_seed(s);
}

/**
 * A tensor of `size` with the given `stride` (PyTorch's `empty_strided`): zero-filled storage just
 * large enough, viewed with `as_strided` — so `stride()` reports `stride`.
 */
export function empty_strided(
  size: readonly number[],
  stride: readonly number[],
  options?: CreationOptions,
): Tensor {
  const a = args("empty_strided", arguments);
  const sz = checkInts("empty_strided", "size", a.size);
  const st = a.stride;
  if (sz.length !== st.length)
    throw new TorchError(
      `dimensionality of sizes (${sz.length}) must match dimensionality of strides (${st.length})`,
    );
  if (sz.some((n) => n < 0))
    throw new TorchError(
      `Trying to create tensor with negative dimension ${sz.find((n) => n < 0)}: [${sz.join(", ")}]`,
    );
  const numel = sz.reduce((a, b) => a * b, 1);
  const storage =
    numel === 0 ? 0 : 1 + sz.reduce((a, n, i) => a + (n - 1) * st[i]!, 0);
  const o = creationOptions(a);
  return leaf(
    scope(() =>
      zeros(storage, { ...o, requires_grad: false }).as_strided(sz, st),
    ),
    o.requires_grad,
  );
}

/** An uninitialised tensor in PyTorch; here zero-filled (see the module notes). */
export function empty<const A extends SizeArgs<CreationOptions>>(
  ...size: A
): Tensor<SizesOf<A>, OptionDType<A, "float32">>;
export function empty(): Tensor {
  const [sizes, options] = sizeArgs("empty", arguments);
  return fullOf(sizes, 0, options.dtype ?? defaultFloat(), options);
}

/**
 * `steps` values from `start` to `end` inclusive, evenly spaced (the default dtype, float32 unless `torch.set_default_dtype` changed it, unless `dtype`). As
 * PyTorch, the first half counts up from `start` and the second down from `end`, so both ends are
 * exact.
 */
export function linspace(
  start: number,
  end: number,
  steps: number,
  options?: CreationOptions,
): Tensor {
  const a = args("linspace", arguments);
  return leaf(
    linspaceOf(a.start, a.end, a.steps, creationOptions(a)),
    a.requires_grad,
  );
}

function linspaceOf(
  start: number,
  end: number,
  n: number,
  options: CreationOptions,
): Tensor {
  if (n < 0) throw new TorchError("number of steps must be non-negative");
  const dtype = options.dtype ?? defaultFloat();
  const device = options.device ?? get_default_device();
  if (n <= 1) return full([n], start, { dtype, device });
  const step = (end - start) / (n - 1);
  return scope(() => {
    const i = arange(n, { dtype: "float32", device });
    const up = i.mul(step).add(start);
    const down = i
      .sub(n - 1)
      .mul(step)
      .add(end);
    const out = where(i.lt(Math.floor(n / 2)), up, down);
    return dtype === "float32" ? out : out.to(dtype);
  });
}

/** `base ** linspace(start, end, steps)` (base 10 by default). */
export function logspace(
  start: number,
  end: number,
  steps: number,
  base?: number,
  options?: CreationOptions,
): Tensor {
  const a = args("logspace", arguments);
  const o = creationOptions(a);
  const dtype = o.dtype ?? defaultFloat();
  if (a.steps > 1 && ["int32", "int64", "uint8"].includes(dtype)) {
    // PyTorch's integer logspace: the bounds as integers, each power in double precision from the
    // nearer bound, truncated (a float32 power, as a GPU's, is 999 for 10^3).
    const [s, e] = [Math.trunc(a.start), Math.trunc(a.end)];
    const step = (e - s) / (a.steps - 1);
    const half = Math.floor(a.steps / 2);
    const values = Array.from({ length: a.steps }, (_, i) =>
      Math.trunc(
        a.base ** (i < half ? s + step * i : e - step * (a.steps - i - 1)),
      ),
    );
    return tensor(values, { ...o, dtype });
  }
  const out = scope(() => {
    const exps = linspaceOf(a.start, a.end, a.steps, {
      device: o.device,
      dtype: "float32",
    });
    const out = pow(a.base, exps);
    return dtype === "float32" ? out : out.to(dtype);
  });
  return leaf(out, o.requires_grad);
}

/** The `n × m` identity (m = n by default), the default dtype unless `dtype`. */
export function eye(n: number, options?: CreationOptions): Tensor;
export function eye(n: number, m?: number, options?: CreationOptions): Tensor;
export function eye(): Tensor {
  const a = args("eye", arguments);
  const rows = a.n;
  const cols = a.m ?? a.n;
  if (rows < 0)
    throw new TorchError(`n must be greater or equal to 0, got ${rows}`);
  if (cols < 0)
    throw new TorchError(`m must be greater or equal to 0, got ${cols}`);
  const o = creationOptions(a);
  const device = o.device ?? get_default_device();
  const out = scope(() =>
    arange(rows, { device })
      .unsqueeze(1)
      .eq(arange(cols, { device }))
      .to(o.dtype ?? defaultFloat()),
  );
  return leaf(out, o.requires_grad);
}

/**
 * `Σ_{r < rows} clamp(r + a, 0, cols)` in closed form: the length of the triangle's rows summed
 * without visiting them (a float: only compared against the budget when it is large).
 */
function clampedRowSum(rows: number, cols: number, a: number): number {
  if (rows === 0 || cols === 0) return 0;
  const lo = Math.min(Math.max(1 - a, 0), rows); // first row with r + a >= 1
  const hi = Math.min(Math.max(cols - a, 0), rows); // first row with r + a >= cols
  return ((hi - lo) * (lo + a + (hi - 1 + a))) / 2 + cols * (rows - hi);
}

function triIndices(
  fn: string,
  row: number,
  col: number,
  offset: number,
  lower: boolean,
  options: CreationOptions,
): Tensor {
  if (row < 0) throw new TorchError(`row must be non-negative, got${row}`);
  if (col < 0) throw new TorchError(`col must be non-negative, got${col}`);
  // Row r holds columns [0, clamp(r + offset + 1, 0, col)) (tril) or [clamp(r + offset, 0, col),
  // col) (triu). The count comes first, so that the table is checked against the budget before it
  // exists; the fill then visits the non-empty rows only (time proportional to the count).
  const count = lower
    ? clampedRowSum(row, col, offset + 1)
    : row * col - clampedRowSum(row, col, offset);
  checkHostAlloc(fn, 2 * count, 4 + 8);
  const n = count;
  const coords = new Int32Array(2 * n);
  let k = 0;
  const first = n === 0 ? row : lower ? Math.max(0, -offset) : 0;
  const last = lower ? row : Math.min(row, col - offset);
  for (let r = first; r < last; r++) {
    const from = lower ? 0 : Math.min(Math.max(r + offset, 0), col);
    const to = lower ? Math.min(r + offset + 1, col) : col;
    for (let c = from; c < to; c++) {
      coords[k] = r;
      coords[n + k] = c;
      k++;
    }
  }
  return scope(() =>
    tensor(coords, {
      dtype: options.dtype ?? "int64",
      device: options.device ?? get_default_device(),
    }).reshape(2, n),
  );
}

/** The `[2, N]` coordinates (row-major) of the lower triangle of a `row × col` matrix. */
export function tril_indices(
  row: number,
  col: number,
  offset?: number,
  options?: Omit<CreationOptions, "requires_grad">,
): Tensor {
  const a = args("tril_indices", arguments);
  const o = creationOptions(a);
  return triIndices("tril_indices", a.row, a.col, a.offset, true, o);
}

/** The `[2, N]` coordinates (row-major) of the upper triangle of a `row × col` matrix. */
export function triu_indices(
  row: number,
  col: number,
  offset?: number,
  options?: Omit<CreationOptions, "requires_grad">,
): Tensor {
  const a = args("triu_indices", arguments);
  const o = creationOptions(a);
  return triIndices("triu_indices", a.row, a.col, a.offset, false, o);
}

/**
 * `data` as a tensor, sharing it when it already is one of the requested dtype and device (the
 * same object, as PyTorch returns); otherwise a converted copy as {@link tensor} makes.
 */
export function as_tensor(
  data: TensorData | Tensor,
  options?: Omit<CreationOptions, "requires_grad">,
): Tensor {
  options = creationOptions(args("as_tensor", arguments));
  if (data instanceof Tensor) {
    const sameDtype =
      options.dtype === undefined || options.dtype === data.dtype;
    const sameDevice =
      options.device === undefined || options.device === data.device;
    if (sameDtype && sameDevice) return data;
    return scope(() =>
      tensor(data, {
        dtype: options.dtype ?? data.dtype,
        device: options.device ?? data.device,
      }),
    );
  }
  return tensor(data, options);
}

/** A float16 value from its 16 bits (IEEE binary16: subnormals, ±inf, NaN). */
function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mant) * 2 ** (exp - 25);
}

/** float16 items read as the numbers they are (JS has no float16 array to view them with). */
function halfItems(b: ArrayBuffer, o: number, n: number): Float32Array {
  return Float32Array.from(new Uint16Array(b, o, n), halfValue);
}

/** bfloat16 items: the top 16 bits of a float32. */
function bfloat16Items(b: ArrayBuffer, o: number, n: number): Float32Array {
  const words = Uint32Array.from(new Uint16Array(b, o, n), (h) => h << 16);
  return new Float32Array(words.buffer);
}

/** Reads `n` items at byte `o` of `b` as the typed array of their values. */
type ItemReader = (b: ArrayBuffer, o: number, n: number) => ArrayBufferView;
const typed =
  (
    T: new (b: ArrayBuffer, o: number, n: number) => ArrayBufferView,
  ): ItemReader =>
  (b, o, n) =>
    new T(b, o, n);

/** The reader and item size of each dtype `frombuffer` can read. */
const FROMBUFFER_READERS: Partial<Record<DType, [ItemReader, number]>> = {
  float32: [typed(Float32Array), 4],
  float64: [typed(Float64Array), 8],
  float16: [halfItems, 2],
  bfloat16: [bfloat16Items, 2],
  int32: [typed(Int32Array), 4],
  int64: [typed(BigInt64Array), 8],
  uint8: [typed(Uint8Array), 1],
  bool: [typed(Uint8Array), 1],
};

/**
 * PyTorch's `torch.frombuffer`: a 1-D tensor of `count` items of `dtype` read from the bytes of
 * `buffer` (an ArrayBuffer, typed array, DataView or Node Buffer, from its own byte offset) after
 * `offset` bytes. The tensor holds a copy (webtorch's storage lives in the core, not in the JS
 * buffer), so later writes to the buffer do not show in it.
 */
export function frombuffer(
  buffer: ArrayBufferLike | ArrayBufferView,
  options: {
    dtype: DType;
    count?: number;
    offset?: number;
    requires_grad?: boolean;
  },
): Tensor;
export function frombuffer(): Tensor {
  const a = args("frombuffer", arguments);
  const buf: unknown = a.buffer;
  let bytes: ArrayBuffer, start: number, length: number;
  if (ArrayBuffer.isView(buf)) {
    bytes = buf.buffer as ArrayBuffer;
    start = buf.byteOffset;
    length = buf.byteLength;
  } else if (
    buf instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== "undefined" &&
      buf instanceof SharedArrayBuffer)
  ) {
    bytes = buf as ArrayBuffer;
    start = 0;
    length = buf.byteLength;
  } else {
    throw new TorchError("object does not implement Python buffer protocol.");
  }
  const dtype: DType = a.dtype;
  const reader = FROMBUFFER_READERS[dtype];
  if (reader === undefined)
    throw new TorchError(
      `frombuffer: webtorch cannot read ${dtype} (it reads ${Object.keys(FROMBUFFER_READERS).join(", ")})`,
    );
  const [read, size] = reader;
  const count: number = a.count;
  const offset: number = a.offset;
  if (length <= 0 || count === 0)
    throw new TorchError(
      `both buffer length (${length}) and count (${count}) must not be 0`,
    );
  if (offset < 0 || offset >= length)
    throw new TorchError(
      `offset (${offset} bytes) must be non-negative and no greater than buffer length (${length} bytes) minus 1`,
    );
  let n = count;
  if (count < 0) {
    if ((length - offset) % size !== 0)
      throw new TorchError(
        `buffer length (${length - offset} bytes) after offset (${offset} bytes) must be a multiple of element size (${size})`,
      );
    n = (length - offset) / size;
  } else if (offset + count * size > length) {
    throw new TorchError(
      `requested buffer length (${count} * ${size} bytes) after offset (${offset} bytes) must not be greater than actual buffer length (${length} bytes)`,
    );
  }
  // Copied into a fresh buffer: the typed-array constructor needs an aligned byte offset.
  const copy = new ArrayBuffer(n * size);
  new Uint8Array(copy).set(new Uint8Array(bytes, start + offset, n * size));
  return tensor(read(copy, 0, n) as unknown as TensorData, {
    dtype,
    requires_grad: a.requires_grad,
  });
}
