/**
 * `Tensor`: a handle to a core `RawTensor` plus its cached shape, dtype and device.
 *
 * Every method is one call into the core (math lives in Rust); this file only handles arguments
 * (scalars, dims, options) the way PyTorch does. Results are lazy on the core's side; reading
 * (`toArray`, `item`, `tolist`) is asynchronous and flushes pending GPU work.
 *
 * @module
 */

import { type Args, methodArgs } from "../schema/index.js";
import { track, untrack } from "../lifetime.js";
import type { RawTensor } from "../wasm/webtorch_core.js";
import { IndexError, TorchError } from "../errors.js";
import {
  type DType,
  type Device,
  dtypeCode,
  dtypeFromCode,
  isFloatingPoint,
  deviceFromCode,
} from "../dtype.js";
import {
  type ReduceOptions,
  type Shape,
  checkInts,
  plainInts,
  pyTypeName,
  sizeList,
} from "../args.js";
import type {
  CheckOf,
  Dims,
  Expand,
  KeepOf,
  MT,
  Matmul,
  Permute,
  Reduce,
  ReduceOf,
  Reshape,
  Rev,
  Mutable,
  ShapeOf,
  T2,
  Transpose,
} from "../shapes.js";
import { core, metaShape } from "../runtime.js";

// `using t = …` needs Symbol.dispose; older runtimes get the registered symbol TS falls back to.
(Symbol as { dispose?: symbol }).dispose ??= Symbol.for("Symbol.dispose");

declare global {
  // The published types name `Symbol.dispose` (Tensor and the core's classes are disposable):
  // declared here so that they compile without `lib: ["esnext.disposable"]` (Vite's and Node's
  // default tsconfigs lack it); the same declaration as that lib's, which it merges with.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** A value read back from a tensor: float32 → Float32Array, float64 → Float64Array, int32/int64 → Int32Array, uint8/bool → Uint8Array. */
export type TypedArray = Float32Array | Float64Array | Int32Array | Uint8Array;

/** A scalar operand of an elementwise op (booleans count as 1 and 0). */
export type Scalar = number | boolean;

/** What `item()` returns for dtype `D`: a boolean for bool, a number otherwise. */
export type ItemOf<D extends DType> = [D] extends ["bool"]
  ? boolean
  : "bool" extends D
    ? number | boolean
    : number;

/** Nested arrays as `tolist()` returns them (a bare number or boolean for a rank-0 tensor). */
export type NestedList = number | boolean | NestedList[];

/** Options of `add`/`sub`: `alpha` scales `other` first (`input + alpha * other`). */
export interface AlphaOptions {
  /** Multiplier of `other`. Default 1. */
  alpha?: number;
}

/** Options of `div`. */
export interface DivOptions {
  /**
   * `null` (default): true division. `"trunc"`: the quotient rounded toward zero; `"floor"`:
   * rounded down (Python's `//`). Both keep the operands' promoted dtype.
   */
  rounding_mode?: "trunc" | "floor" | null;
}

/** Options of `round`. */
export interface RoundOptions {
  /** Round to this many decimal places (negative: to tens, hundreds, …). Default 0. */
  decimals?: number;
}

/**
 * The dtype of `sum`'s result (PyTorch's): the `dtype` option when given, else the input's for
 * floating point, int64 for integers and bool.
 */
export type SumDType<D extends DType, O = object> = O extends {
  dtype: infer T extends DType;
}
  ? T
  : DType extends D
    ? DType
    : D extends "float32" | "float16" | "bfloat16" | "float64"
      ? D
      : "int64";

/** The dtype of a result that is floating point when `D` is (and unknown otherwise). */
export type FloatOf<D extends DType> = D extends "float32" ? "float32" : DType;
/**
 * The dtype of a binary op's result (PyTorch's promotion where webtorch's dtypes allow knowing
 * it: float32 wins, equal dtypes stay), else unknown.
 */
export type Promote<D extends DType, E extends DType> = [D] extends ["float32"]
  ? "float32"
  : [E] extends ["float32"]
    ? "float32"
    : [D] extends [E]
      ? [E] extends [D]
        ? D
        : DType
      : DType;

/** The shape type of a tensor type (`ShapeT<Tensor<[2, 3]>>` is `[2, 3]`). */
export type ShapeT<T> = T extends { readonly shape: infer S extends Dims }
  ? Mutable<S>
  : number[];
/** The shapes of a tuple of tensor types (`cat`, `stack`, `einsum`). */
export type ShapesOf<Ts extends readonly unknown[]> = {
  -readonly [K in keyof Ts]: ShapeT<Ts[K]>;
};
/** The dtype type of a tensor type. */
export type DTypeT<T> = T extends { readonly dtype: infer D extends DType }
  ? D
  : DType;

/** The type of `shape`: the tuple, or `readonly number[]` (also for `Tensor<any>`). */
export type ShapeProp<S extends Dims> = 0 extends 1 & S
  ? readonly number[]
  : Readonly<S>;

/**
 * A multi-dimensional array on a device (`"webgpu"` or `"cpu"`), like `torch.Tensor`.
 *
 * Create tensors with `torch.tensor`, `torch.zeros`, `torch.arange`, …; free them with
 * {@link Tensor.dispose} or `using`. Views (`transpose`, `permute`, `view`, `expand`, …) share
 * storage with their base.
 *
 * The type parameters carry the shape and dtype when they are known at compile time:
 * `torch.zeros(2, 3)` is a `Tensor<[2, 3], "float32">`, and `matmul`, broadcasting, reductions,
 * reshapes and permutes compute their result's shape (docs/types.md). `Tensor` alone
 * (`Tensor<number[], DType>`) is any tensor; shapes typed `number` are checked at run time only.
 *
 * @typeParam S - the shape: a tuple of sizes, or `number[]` when unknown.
 * @typeParam D - the dtype, or the union {@link DType} when unknown.
 */
export class Tensor<S extends Dims = number[], D extends DType = DType> {
  /** The size of each dim. */
  readonly shape: Readonly<S>;
  /** The element type. */
  readonly dtype: D;
  /** Where the data lives. */
  readonly device: Device;
  #raw: RawTensor | null;

  /** Wraps a core handle (taking ownership of it). Use `torch.tensor()` & co. to make tensors. */
  constructor(raw: RawTensor) {
    this.#raw = raw;
    // One call for dtype, device and shape (the sizes through the core's scratch).
    const m = raw.meta();
    this.shape = (m >>> 31
      ? Object.freeze(Array.from(raw.shape()))
      : metaShape((m >>> 16) & 0x7fff)) as unknown as S;
    this.dtype = dtypeFromCode(m & 0xff) as D;
    this.device = deviceFromCode((m >>> 8) & 0xff);
    track(this);
  }

  /** The core handle. Internal to webtorch; throws once the tensor is disposed. */
  get _raw(): RawTensor {
    if (this.#raw === null) throw new TorchError("Tensor has been disposed");
    return this.#raw;
  }

  /** The number of dims (`t.ndim`, as PyTorch's property). */
  get ndim(): S["length"] {
    return this.shape.length;
  }

  /** The number of dims (PyTorch's `t.dim()`). */
  dim(): number {
    return this.shape.length;
  }

  /** The number of elements. */
  numel(): number {
    return (this.shape as readonly number[]).reduce((a, b) => a * b, 1);
  }

  /** The shape, or the size of one dim (negative dims count from the end). */
  size(): Readonly<S>;
  size(dim: number): number;
  size(dim?: number): number | readonly number[] {
    const d = methodArgs("size", this, arguments).dim;
    return d === null
      ? this.shape
      : (this.shape as readonly number[])[wrapDim(d, this.ndim)]!;
  }

  /** The strides in elements, or the stride of one dim. */
  stride(): readonly number[];
  stride(dim: number): number;
  stride(dim?: number): number | readonly number[] {
    const d = methodArgs("stride", this, arguments).dim;
    const strides = Array.from(this._raw.strides());
    return d === null ? strides : strides[wrapDim(d, this.ndim)]!;
  }

  /** Whether the elements are laid out densely in row-major order. */
  is_contiguous(): boolean {
    return this._raw.is_contiguous();
  }

  /** Whether the dtype is floating point. */
  is_floating_point(): boolean {
    return isFloatingPoint(this.dtype);
  }

  // The elementwise methods (one per op-table row) are declared and installed in elementwise.ts.

  // ---- reductions ----

  /**
   * Sum over `dim` (all dims when absent): `t.sum()`, `t.sum(1)`, `t.sum([0, 1], true)`,
   * `t.sum({ dim: -1, keepdim: true })`.
   */
  sum<
    Self extends Tensor<Dims>,
    const O extends ReduceOptions & { dtype?: DType } = object,
  >(
    this: Self,
    options?: O & CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, "sum">>,
  ): Tensor<
    ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>,
    SumDType<DTypeT<Self>, O>
  >;
  sum<
    Self extends Tensor<Dims>,
    const Dm extends number | Shape,
    K extends boolean = false,
  >(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, "sum">>,
    keepdim?: K,
  ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, SumDType<DTypeT<Self>>>;
  sum<
    Self extends Tensor<Dims>,
    const Dm extends number | Shape,
    K extends boolean = false,
    const O extends { dtype?: DType } = object,
  >(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, "sum">>,
    keepdim: K | undefined,
    options: O,
  ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, SumDType<DTypeT<Self>, O>>;
  sum(
    dim?: number | Shape | ReduceOptions | null,
    keepdim?: boolean,
    options?: { dtype?: DType },
  ): Tensor {
    // The common call, every dim, cannot be wrong.
    if (arguments.length === 0)
      return wrap(this._raw.sum(new Int32Array(0), false));
    return reduceTo("sum", methodArgs("sum", this, arguments));
  }

  /** Mean over `dim` (all dims when absent); floating-point inputs only, as in PyTorch. */
  mean<
    Self extends Tensor<Dims>,
    const O extends ReduceOptions & { dtype?: DType } = object,
  >(
    this: Self,
    options?: O & CheckOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>, "mean">>,
  ): Tensor<
    ShapeOf<Reduce<ShapeT<Self>, ReduceOf<O>, KeepOf<O>>>,
    FloatOf<DTypeT<Self>>
  >;
  mean<
    Self extends Tensor<Dims>,
    const Dm extends number | Shape,
    K extends boolean = false,
  >(
    this: Self,
    dim: Dm & CheckOf<Reduce<ShapeT<Self>, Dm, K, "mean">>,
    keepdim?: K,
    options?: { dtype?: DType },
  ): Tensor<ShapeOf<Reduce<ShapeT<Self>, Dm, K>>, FloatOf<DTypeT<Self>>>;
  mean(
    dim?: number | Shape | ReduceOptions | null,
    keepdim?: boolean,
    options?: { dtype?: DType },
  ): Tensor {
    // The common call, every dim, cannot be wrong.
    if (arguments.length === 0)
      return wrap(this._raw.mean(new Int32Array(0), false));
    return reduceTo("mean", methodArgs("mean", this, arguments));
  }

  // ---- linear algebra ----

  /**
   * Matrix product with PyTorch's rules: 1-D·1-D, 2-D·2-D, batched with broadcasting
   * (`[b, n, k] @ [k, m]` → `[b, n, m]`). Inner sizes that differ are a compile error when known.
   */
  matmul<Self extends Tensor<Dims>, O extends Dims, E extends DType>(
    this: Self,
    other: Tensor<O, E> & CheckOf<Matmul<ShapeT<Self>, O>>,
  ): Tensor<ShapeOf<Matmul<ShapeT<Self>, O>>, Promote<DTypeT<Self>, E>>;
  matmul(other: Tensor): Tensor {
    return wrap(
      this._raw.matmul(checkTensor("matmul", "other", other, 1)._raw),
    );
  }

  // ---- shapes and views ----

  /** The same data in a new shape (a view when possible, else a copy); one size may be -1. */
  reshape<Self extends Tensor<Dims>, const N extends number[]>(
    this: Self,
    ...shape: N & CheckOf<Reshape<ShapeT<Self>, N>>
  ): Tensor<ShapeOf<Reshape<ShapeT<Self>, N>>, DTypeT<Self>>;
  reshape<Self extends Tensor<Dims>, const N extends Shape>(
    this: Self,
    shape: N & CheckOf<Reshape<ShapeT<Self>, N>>,
  ): Tensor<ShapeOf<Reshape<ShapeT<Self>, N>>, DTypeT<Self>>;
  reshape(...shape: (number | Shape)[]): Tensor {
    // One list of integers (`reshape([2, -1])`) is as common as varargs: no parser either.
    if (shape.length === 1 && Array.isArray(shape[0]) && plainInts(shape[0]))
      shape = shape[0];
    else if (!plainInts(shape))
      shape = sizeList(
        "reshape",
        methodArgs("reshape", this, arguments).shape,
        "shape",
      );
    return wrap(
      this._raw.reshape(Int32Array.from(checkInts("reshape", "shape", shape))),
    );
  }

  /** A view with a new shape (throws if the strides do not allow one); one size may be -1. */
  view<Self extends Tensor<Dims>, const N extends number[]>(
    this: Self,
    ...size: N & CheckOf<Reshape<ShapeT<Self>, N, "view">>
  ): Tensor<ShapeOf<Reshape<ShapeT<Self>, N>>, DTypeT<Self>>;
  view<Self extends Tensor<Dims>, const N extends Shape>(
    this: Self,
    size: N & CheckOf<Reshape<ShapeT<Self>, N, "view">>,
  ): Tensor<ShapeOf<Reshape<ShapeT<Self>, N>>, DTypeT<Self>>;
  view(...size: (number | Shape)[]): Tensor {
    if (size.length === 1 && Array.isArray(size[0]) && plainInts(size[0]))
      size = size[0];
    else if (!plainInts(size))
      size = sizeList("view", methodArgs("view", this, arguments).size, "size");
    return wrap(
      this._raw.view(Int32Array.from(checkInts("view", "size", size))),
    );
  }

  /** A view with dims `dim0` and `dim1` swapped. */
  transpose<Self extends Tensor<Dims>, A extends number, B extends number>(
    this: Self,
    dim0: A & CheckOf<Transpose<ShapeT<Self>, A, B>>,
    dim1: B,
  ): Tensor<ShapeOf<Transpose<ShapeT<Self>, A, B>>, DTypeT<Self>>;
  transpose(dim0: number, dim1: number): AnyTensor {
    if (!(arguments.length === 2 && plainInts([dim0, dim1])))
      ({ dim0, dim1 } = methodArgs("transpose", this, arguments));
    checkInts("transpose", "dim", [dim0, dim1]);
    return wrap(this._raw.transpose(dim0, dim1));
  }

  /** A view with the dims reordered: `t.permute(2, 0, 1)` or `t.permute([2, 0, 1])`. */
  permute<Self extends Tensor<Dims>, const P extends number[]>(
    this: Self,
    ...dims: P & CheckOf<Permute<ShapeT<Self>, P>>
  ): Tensor<ShapeOf<Permute<ShapeT<Self>, P>>, DTypeT<Self>>;
  permute<Self extends Tensor<Dims>, const P extends Shape>(
    this: Self,
    dims: P & CheckOf<Permute<ShapeT<Self>, P>>,
  ): Tensor<ShapeOf<Permute<ShapeT<Self>, P>>, DTypeT<Self>>;
  permute(...dims: (number | Shape)[]): Tensor {
    if (!plainInts(dims))
      dims = sizeList(
        "permute",
        methodArgs("permute", this, arguments).dims,
        "dims",
      );
    return wrap(
      this._raw.permute(Int32Array.from(checkInts("permute", "dims", dims))),
    );
  }

  /** The transpose of a tensor of at most 2 dims (a view; 0-D and 1-D come back as they are). */
  t<Self extends Tensor<Dims>>(
    this: Self & CheckOf<T2<ShapeT<Self>>>,
  ): Tensor<ShapeOf<T2<ShapeT<Self>>>, DTypeT<Self>>;
  t(): AnyTensor {
    if (arguments.length > 0) methodArgs("t", this, arguments);
    return wrap(this._raw.t());
  }

  /**
   * The dims reversed (PyTorch's `t.T`; PyTorch deprecates it for other than 2-D, webtorch
   * allows any rank as `permute(n-1, …, 0)`).
   */
  get T(): Tensor<ShapeOf<Rev<S>>, D> {
    const dims = Array.from({ length: this.ndim }, (_, i) => this.ndim - 1 - i);
    return wrap(this._raw.permute(Int32Array.from(dims))) as never;
  }

  /** The last two dims swapped (`t.mT`, a view; at least 2-D). */
  get mT(): Tensor<ShapeOf<MT<S>>, D> {
    if (this.ndim < 2)
      throw new TorchError(
        `tensor.mT is only supported on matrices or batches of matrices. Got ${this.ndim}-D tensor.`,
      );
    return wrap(this._raw.transpose(-2, -1)) as never;
  }

  /**
   * A broadcast view with size-1 dims repeated (stride 0) and new leading dims; -1 keeps a size:
   * `t.expand(3, -1)`, `t.expand([3, 4])`.
   */
  expand<Self extends Tensor<Dims>, const N extends number[]>(
    this: Self,
    ...size: N & CheckOf<Expand<ShapeT<Self>, N>>
  ): Tensor<ShapeOf<Expand<ShapeT<Self>, N>>, DTypeT<Self>>;
  expand<Self extends Tensor<Dims>, const N extends Shape>(
    this: Self,
    size: N & CheckOf<Expand<ShapeT<Self>, N>>,
  ): Tensor<ShapeOf<Expand<ShapeT<Self>, N>>, DTypeT<Self>>;
  expand(...size: (number | Shape)[]): Tensor {
    if (!plainInts(size))
      size = sizeList(
        "expand",
        methodArgs("expand", this, arguments).size,
        "size",
      );
    // The core keeps a dim's size for -1 and prints the sizes as given in its errors.
    const target = checkInts("expand", "size", size);
    return wrap(this._raw.expand(Int32Array.from(target)));
  }

  /** This tensor laid out densely in row-major order (shares storage when it already is). */
  contiguous(): Tensor<S, D>;
  contiguous(): AnyTensor {
    return wrap(this._raw.contiguous());
  }

  // ---- dtypes and copies ----

  /** Converts to `dtype` (always a new tensor handle): `t.to("int32")`, `t.to({ dtype })`. */
  to<Self extends Tensor<Dims>, E extends DType>(
    this: Self,
    dtype: E | { dtype: E },
  ): Tensor<ShapeT<Self>, E>;
  to(dtype: DType | { dtype: DType }): Tensor;
  // Device moves (`t.to("cpu")`, `t.to("mydevice")`) are overloads added by devices.ts.
  to(dtype: unknown): unknown {
    const target =
      typeof dtype === "object" ? (dtype as { dtype: DType }).dtype : dtype;
    return wrap(this._raw.to_dtype(dtypeCode(target as DType)));
  }
  /** `to("float32")`. */
  float(): Tensor<S, "float32"> {
    return this.to("float32") as never;
  }
  /** `to("float16")`. */
  half(): Tensor {
    return this.to("float16");
  }
  /** `to("bfloat16")`. */
  bfloat16(): Tensor {
    return this.to("bfloat16");
  }
  /** `to("float64")` (the CPU device only). */
  double(): Tensor<S, "float64"> {
    return this.to("float64") as never;
  }
  /** `to("int32")`. */
  int(): Tensor<S, "int32"> {
    return this.to("int32") as never;
  }
  /** `to("int64")`. */
  long(): Tensor<S, "int64"> {
    return this.to("int64") as never;
  }
  /** `to("bool")`. */
  bool(): Tensor<S, "bool"> {
    return this.to("bool") as never;
  }
  /** `to("uint8")`. */
  byte(): Tensor<S, "uint8"> {
    return this.to("uint8") as never;
  }

  /** A copy with its own storage. */
  clone(): Tensor<S, D>;
  clone(): AnyTensor {
    return wrap(this._raw.clone());
  }

  // ---- reads ----

  /** The values in row-major order as a typed array (flushes pending GPU work). */
  async toArray(): Promise<TypedArray> {
    const raw = this._raw;
    const values = (await raw.read()) as TypedArray;
    keepRead(this, raw, values);
    return values;
  }

  /** The only value of a one-element tensor (a boolean for bool tensors). */
  async item(): Promise<ItemOf<D>>;
  async item(): Promise<number | boolean> {
    const n = this.numel();
    if (n !== 1)
      throw new TorchError(
        `a Tensor with ${n} elements cannot be converted to Scalar`,
      );
    const values = await this.toArray();
    return this.dtype === "bool" ? values[0] !== 0 : values[0]!;
  }

  /** The values as nested arrays (a bare scalar for rank 0; booleans for bool tensors). */
  async tolist(): Promise<NestedList> {
    const values = await this.toArray();
    const toScalar =
      this.dtype === "bool" ? (v: number) => v !== 0 : (v: number) => v;
    const shape: readonly number[] = this.shape;
    let pos = 0;
    const build = (d: number): NestedList => {
      if (d === shape.length) return toScalar(values[pos++]!);
      const out: NestedList[] = [];
      for (let i = 0; i < shape[d]!; i++) out.push(build(d + 1));
      return out;
    };
    return build(0);
  }

  // ---- lifetime ----

  /** Releases the handle; the storage returns to the pool when no view uses it. Idempotent. */
  dispose(): void {
    if (this.#raw === null) return;
    const raw = this.#raw;
    this.#raw = null;
    untrack(this);
    try {
      raw.free();
    } catch (e) {
      // A handle a failed call left borrowed inside the core cannot be freed: it is leaked
      // (its memory with it), and the tensor is disposed all the same.
      if (!(e instanceof TorchError)) throw e;
    }
  }

  /**
   * @internal Takes `raw` in place of the handle (its shape, dtype and device with it): `resize_`,
   * and `Module.to`, which moves a parameter in place.
   */
  _setRaw(raw: RawTensor): void {
    const old = this._raw;
    this.#raw = raw;
    reads.delete(this);
    const self = this as { shape: readonly number[]; dtype: DType };
    self.shape = Object.freeze(Array.from(raw.shape()));
    const m = raw.meta();
    self.dtype = dtypeFromCode(m & 0xff);
    (this as { device: Device }).device = deviceFromCode((m >>> 8) & 0xff);
    old.free();
  }

  /** Whether {@link dispose} has been called. */
  get isDisposed(): boolean {
    return this.#raw === null;
  }

  /** `using t = torch.ones(3)` disposes `t` at the end of the block. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /**
   * PyTorch's `str(t)` when the values are on the host (a CPU tensor, or one read before and not
   * written since), else the shape, dtype and device with how to see the values
   * (`await t.print()`): a synchronous call cannot read from the GPU. `${t}` gives this text.
   */
  toString(): string {
    return printer(this);
  }

  /**
   * `${t}` is {@link toString}; `t + 1`, `t * 2`, `t < 0`, `+t` throw a `TorchError` naming the
   * method to use instead (JS operators cannot compute with tensors: `t.add(1)`, or
   * `torch.$("t + 1", { t })`; a value: `await t.item()`).
   */
  [Symbol.toPrimitive](hint: "string" | "number" | "default"): string {
    if (hint === "string") return this.toString();
    throw new TorchError(
      hint === "number"
        ? this.numel() === 1
          ? 'a Tensor has no synchronous JS number (+t, t * 2, t < 0): use await t.item() for its value, or t.mul(2), t.lt(0), torch.$("t * 2", { t }) to compute'
          : 'only one element tensors can be converted to Python scalars (+t, t * 2, t < 0 convert to a number): use t.mul(2), t.lt(0) or torch.$("t * 2", { t })'
        : 'a Tensor cannot be used with JS operators (t + 1 and t == 1 compute nothing on tensors): use t.add(1), t.eq(1) or torch.$("t + 1", { t })',
    );
  }

  /**
   * Throws a `TorchError`: a tensor has no synchronous JS value (PyTorch's `float(t)` and
   * `bool(t)` read it: here `await t.item()` and `await t.is_nonzero()`). JS truthiness cannot be
   * overridden: `if (t)` is true for every tensor; use `if (await t.is_nonzero())`.
   */
  valueOf(): never {
    const n = this.numel();
    throw new TorchError(
      n === 1
        ? "a Tensor has no synchronous JS value (its values may be on the GPU): use await t.item() for its number, await t.is_nonzero() for its truth value"
        : n === 0
          ? "Boolean value of Tensor with no values is ambiguous"
          : "Boolean value of Tensor with more than one value is ambiguous",
    );
  }
}

// ---- values on the host, for printing without a read ----

/** Reads kept for printing: up to this many elements (a copy, held while the tensor lives). */
const KEEP_READ_NUMEL = 1 << 16;
/** Bumped when a write may have skipped the storage's version (a captured graph's replay). */
let readEpoch = 0;
const reads = new WeakMap<
  Tensor,
  { raw: RawTensor; version: number; epoch: number; values: TypedArray }
>();

function keepRead(t: Tensor, raw: RawTensor, values: TypedArray): void {
  if (values.length > KEEP_READ_NUMEL || t.device === "cpu") return;
  reads.set(t, {
    raw,
    version: raw.version(),
    epoch: readEpoch,
    values: values.slice(),
  });
}

/** @internal Forgets every kept read (after a graph replay, whose writes keep no version). */
export function forgetReads(): void {
  readEpoch++;
}

/**
 * @internal The values of `t` in row-major order when they are on the host without a wait: a CPU
 * tensor's, or the last read of a tensor whose storage has not been written since. `null`
 * otherwise.
 */
export function hostValues(t: Tensor): TypedArray | null {
  const raw = t._raw;
  if (t.device === "cpu") return core.read_cpu(raw) as TypedArray;
  const kept = reads.get(t);
  if (
    kept === undefined ||
    kept.raw !== raw ||
    kept.epoch !== readEpoch ||
    kept.version !== raw.version()
  )
    return null;
  return kept.values;
}

/** The text of `toString()`: a header until printing.ts installs PyTorch's format. */
let printer = (t: Tensor): string =>
  `tensor(shape=[${t.shape.join(", ")}], dtype=${t.dtype}, device=${t.device})`;

/** @internal Sets what `toString()` returns (printing.ts). */
export function _setPrinter(p: (t: Tensor) => string): void {
  printer = p;
}

/** Any tensor, for implementation signatures under typed overloads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTensor = Tensor<any, any>;

/** Wraps a core handle returned by an op. */
/**
 * `sum`/`mean` of parsed arguments, the input cast to `dtype` first when one is given. Internal
 * (shared with `torch.sum`/`torch.mean`).
 */
export function reduceTo(fn: "sum" | "mean", a: Args["sum"]): Tensor {
  const dims = Int32Array.from(a.dim ?? []);
  if (a.dtype === null || a.dtype === a.input.dtype)
    return wrap(a.input._raw[fn](dims, a.keepdim));
  const cast = a.input.to(a.dtype);
  try {
    return wrap(cast._raw[fn](dims, a.keepdim));
  } finally {
    cast.dispose();
  }
}

export function wrap(raw: RawTensor): Tensor {
  return new Tensor(raw);
}

/**
 * Throws PyTorch's TypeError wording unless `value` is a Tensor: "exp(): argument 'input'
 * (position 1) must be Tensor, not str". `input` is position 1 and `other` position 2 unless
 * `position` says otherwise (0: none printed).
 */
export function checkTensor(
  fn: string,
  arg: string,
  value: unknown,
  position: number = arg === "input" ? 1 : arg === "other" ? 2 : 0,
): Tensor {
  if (value instanceof Tensor) {
    void value._raw; // throws "Tensor has been disposed"
    return value;
  }
  const at = position > 0 ? ` (position ${position})` : "";
  throw new TorchError(
    `${fn}(): argument '${arg}'${at} must be Tensor, not ${pyTypeName(value)}`,
  );
}

/** Wraps a possibly negative dim into `[0, ndim)`, with PyTorch's IndexError otherwise. */
export function wrapDim(dim: number, ndim: number): number {
  if (ndim === 0)
    throw new IndexError(
      `dimension specified as ${dim} but tensor has no dimensions`,
    );
  if (!Number.isInteger(dim) || dim < -ndim || dim >= ndim) {
    throw new IndexError(
      `Dimension out of range (expected to be in range of [${-ndim}, ${ndim - 1}], but got ${dim})`,
    );
  }
  return dim < 0 ? dim + ndim : dim;
}
