/**
 * Per-tensor affine quantization: `quantize_per_tensor` → a {@link QuantizedTensor} of
 * `quint8`/`qint8`/`qint32` (storage-only custom dtypes, registered on first use), and
 * `dequantize`.
 *
 * @module
 */

import { type DType } from "../dtype.js";
import { DTypeError } from "../errors.js";
import { scope } from "../lifetime.js";
import { args } from "../schema/index.js";
import {
  QuantizedTensor,
  has_dtype,
  register_dtype,
} from "../extend/custom_dtypes.js";
import { type Tensor } from "../tensor/tensor.js";

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
  const a = args("quantize_per_tensor", arguments);
  const x = a.input;
  ({ scale, zero_point } = a);
  dtype = a.dtype as QuantizedDType;
  const q = QDTYPES[dtype];
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
export function dequantize(input: Tensor): Tensor {
  const t = args("dequantize", arguments).input;
  if (t instanceof QuantizedTensor) return t.dequantize();
  return t.clone();
}
