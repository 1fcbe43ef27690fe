/**
 * The remaining ops of the seeds' lists (docs/COVERAGE.md, "The seeds' ops"): NumPy-style aliases
 * (`absolute`, `arccos`, …, `divide`, `multiply`, `subtract`, `negative`, `fix`) with their
 * in-place forms, `empty_strided`, `Tensor.resize_`, and per-tensor affine quantization
 * (`quantize_per_tensor` → a {@link QuantizedTensor} of `quint8`/`qint8`/`qint32`, `dequantize`).
 *
 * @module
 */

import { checkInts } from "./args.js";
import { type DType } from "./dtype.js";
import { DTypeError, TorchError } from "./errors.js";
import { scope } from "./lifetime.js";
import type { CreationOptions } from "./args.js";
import { zeros } from "./ops/creation.js";
import { cat } from "./ops/indexing.js";
import { QuantizedTensor, has_dtype, register_dtype } from "./custom_dtypes.js";
import * as ops from "./ops/ops.js";
import { Tensor, checkTensor } from "./tensor/tensor.js";

/** alias → the op it names (PyTorch's NumPy-compatible spellings). */
const ALIASES = {
  absolute: "abs",
  arccos: "acos",
  arccosh: "acosh",
  arcsin: "asin",
  arcsinh: "asinh",
  arctan: "atan",
  arctan2: "atan2",
  divide: "div",
  multiply: "mul",
  subtract: "sub",
  negative: "neg",
  fix: "trunc",
} as const;

declare module "./tensor/tensor.js" {
  interface Tensor {
    /** `abs`. */
    absolute(): Tensor;
    /** `acos`. */
    arccos(): Tensor;
    /** `acosh`. */
    arccosh(): Tensor;
    /** `asin`. */
    arcsin(): Tensor;
    /** `asinh`. */
    arcsinh(): Tensor;
    /** `atan`. */
    arctan(): Tensor;
    /** `atan2`. */
    arctan2(other: Tensor | Scalar): Tensor;
    /** `div`. */
    divide(other: Tensor | Scalar): Tensor;
    /** `mul`. */
    multiply(other: Tensor | Scalar): Tensor;
    /** `sub` (with `alpha`). */
    subtract(other: Tensor | Scalar, options?: { alpha?: number }): Tensor;
    /** `neg`. */
    negative(): Tensor;
    /** `trunc`. */
    fix(): Tensor;
    /** {@link Tensor.absolute} in place. */
    absolute_(): this;
    /** {@link Tensor.arccos} in place. */
    arccos_(): this;
    /** {@link Tensor.arccosh} in place. */
    arccosh_(): this;
    /** {@link Tensor.arcsin} in place. */
    arcsin_(): this;
    /** {@link Tensor.arcsinh} in place. */
    arcsinh_(): this;
    /** {@link Tensor.arctan} in place. */
    arctan_(): this;
    /** {@link Tensor.arctan2} in place. */
    arctan2_(other: Tensor | Scalar): this;
    /** {@link Tensor.divide} in place. */
    divide_(other: Tensor | Scalar): this;
    /** {@link Tensor.multiply} in place. */
    multiply_(other: Tensor | Scalar): this;
    /** {@link Tensor.subtract} in place. */
    subtract_(other: Tensor | Scalar, options?: { alpha?: number }): this;
    /** {@link Tensor.negative} in place. */
    negative_(): this;
    /** {@link Tensor.fix} in place. */
    fix_(): this;
    /**
     * Gives this tensor the shape `sizes` in place (PyTorch's `resize_`): a contiguous tensor that
     * does not grow keeps its storage (a view of its first elements); otherwise the values are
     * copied in row-major order into new storage, the added elements zero (PyTorch leaves them
     * uninitialized). Refused for tensors that require grad, as in PyTorch.
     */
    resize_(...sizes: (number | readonly number[])[]): this;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;
for (const [alias, op] of Object.entries(ALIASES)) {
  proto[alias] = proto[op]!;
  // The in-place forms are installed later (autograd.ts): look them up at call time.
  proto[`${alias}_`] = function (this: Tensor, ...args: never[]) {
    return (proto[`${op}_`] as (...a: never[]) => unknown).apply(this, args);
  };
}

/** `abs`. */
export const absolute = ops.abs;
/** `acos`. */
export const arccos = ops.acos;
/** `acosh`. */
export const arccosh = ops.acosh;
/** `asin`. */
export const arcsin = ops.asin;
/** `asinh`. */
export const arcsinh = ops.asinh;
/** `atan`. */
export const arctan = ops.atan;
/** `atan2`. */
export const arctan2 = ops.atan2;
/** `div`. */
export const divide = ops.div;
/** `mul`. */
export const multiply = ops.mul;
/** `sub` (with `alpha`). */
export const subtract = ops.sub;
/** `neg`. */
export const negative = ops.neg;
/** `trunc`. */
export const fix = ops.trunc;

/**
 * A tensor of `size` with the given `stride` (PyTorch's `empty_strided`): zero-filled storage just
 * large enough, viewed with `as_strided` — so `stride()` reports `stride`.
 */
export function empty_strided(
  size: readonly number[],
  stride: readonly number[],
  options: CreationOptions = {},
): Tensor {
  const sz = checkInts("empty_strided", "size", size);
  const st = checkInts("empty_strided", "stride", stride);
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
  return scope(() => zeros(storage, options).as_strided(sz, st));
}

proto.resize_ = function (
  this: Tensor,
  ...args: (number | readonly number[])[]
) {
  const sizes = checkInts(
    "resize_",
    "size",
    args.length === 1 && Array.isArray(args[0])
      ? (args[0] as readonly number[])
      : (args as number[]),
  );
  // PyTorch's wording for a negative size in resize_.
  if (sizes.some((n) => n < 0))
    throw new TorchError("numel: integer multiplication overflow");
  if (this.requires_grad)
    throw new TorchError("cannot resize variables that require grad");
  const numel = sizes.reduce((a, b) => a * b, 1);
  const next = scope(() => {
    if (this.is_contiguous() && numel <= this.numel()) {
      const strides = sizes.map((_, i) =>
        sizes.slice(i + 1).reduce((a, b) => a * b, 1),
      );
      return this.as_strided(sizes, strides, this.storage_offset());
    }
    const flat = this.reshape(-1);
    const grown =
      numel > flat.numel()
        ? cat([
            flat,
            zeros(numel - flat.numel(), {
              dtype: this.dtype,
              device: this.device,
            }),
          ])
        : flat;
    return grown.narrow(0, 0, numel).contiguous().reshape(sizes);
  });
  this._setRaw(next._raw.handle());
  next.dispose();
  return this;
};

// ---- per-tensor affine quantization ----

/** PyTorch's quantized dtypes: their storage and range. */
const QDTYPES = {
  quint8: { storage: "uint8", min: 0, max: 255, itemsize: 1 },
  qint8: { storage: "int32", min: -128, max: 127, itemsize: 1 },
  qint32: { storage: "int32", min: -(2 ** 31), max: 2 ** 31 - 1, itemsize: 4 },
} as const satisfies Record<
  string,
  { storage: DType; min: number; max: number; itemsize: number }
>;

/** A quantized dtype of {@link quantize_per_tensor}. */
export type QuantizedDType = keyof typeof QDTYPES;

/** A per-tensor affine quantized tensor: raw integers with one scale and zero point. */
export class PerTensorQuantized extends QuantizedTensor {
  readonly #scale: number;
  readonly #zeroPoint: number;

  /** @internal Wraps raw values (taking ownership of `raw`'s handle). */
  constructor(
    raw: Tensor,
    dtype: QuantizedDType,
    scale: number,
    zeroPoint: number,
  ) {
    super(raw._raw.handle(), dtype);
    this.#scale = scale;
    this.#zeroPoint = zeroPoint;
  }

  /** The scale (`q_scale()` in PyTorch). */
  q_scale(): number {
    return this.#scale;
  }

  /** The zero point (`q_zero_point()` in PyTorch). */
  q_zero_point(): number {
    return this.#zeroPoint;
  }

  /** float32 values `(q - zero_point) * scale`; arguments override the tensor's own. */
  override dequantize(
    scale: Tensor | number = this.#scale,
    zero_point: Tensor | number = this.#zeroPoint,
  ): Tensor {
    return super.dequantize(scale, zero_point);
  }
}

function ensureQDType(name: QuantizedDType): void {
  if (has_dtype(name)) return;
  const q = QDTYPES[name];
  register_dtype({
    name,
    itemsize: q.itemsize,
    storage: q.storage,
    decode: (view, at) =>
      name === "quint8"
        ? view.getUint8(at)
        : name === "qint8"
          ? view.getInt8(at)
          : view.getInt32(at, true),
    description: `PyTorch's ${name} (per-tensor affine quantization)`,
  });
}

/**
 * `input` (float) quantized per tensor: `clamp(round(input / scale) + zero_point)` to the range of
 * `dtype` (`"quint8"`, `"qint8"`, `"qint32"`), rounding half to even as PyTorch does.
 */
export function quantize_per_tensor(
  input: Tensor,
  scale: number,
  zero_point: number,
  dtype: QuantizedDType,
): PerTensorQuantized {
  const x = checkTensor("quantize_per_tensor", "input", input);
  const q = QDTYPES[dtype];
  if (q === undefined)
    throw new DTypeError(
      `quantize_per_tensor(): dtype must be quint8, qint8 or qint32, got ${String(dtype)}`,
    );
  if (!x.is_floating_point())
    throw new DTypeError("Quantize only works on Float Tensor, got " + x.dtype);
  ensureQDType(dtype);
  // PyTorch multiplies by the float32 reciprocal of the scale.
  const inv = Math.fround(1 / Math.fround(scale));
  const raw = scope(() =>
    x
      .float()
      .mul(inv)
      .round()
      .add(zero_point)
      .clamp(q.min, q.max)
      .to(q.storage),
  );
  try {
    return new PerTensorQuantized(raw, dtype, scale, zero_point);
  } finally {
    raw.dispose();
  }
}

/** `t.dequantize()`: the float32 values of a quantized tensor (a float tensor as it is). */
export function dequantize(t: Tensor): Tensor {
  if (t instanceof QuantizedTensor) return t.dequantize();
  return checkTensor("dequantize", "input", t).clone();
}
