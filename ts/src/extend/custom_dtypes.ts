/**
 * Storage-only custom dtypes (docs/extending.md): a registered dtype names how raw values are
 * stored (one of the core's dtypes holds them), how a file encodes them, and how they turn into
 * float32 (`dequantize`). Enough to load quantized weights (int8 with a scale, say) from
 * safetensors and compute with them in float32; there is no arithmetic in a custom dtype.
 *
 * ```ts
 * torch.register_dtype({
 *   name: "qint8", itemsize: 1, storage: "int32", safetensors: "I8",
 *   decode: (view, at) => view.getInt8(at),
 * });
 * const sd = torch.loadBytes(bytes);          // I8 entries load as QuantizedTensor ("qint8")
 * const w = (sd.weight as torch.QuantizedTensor).dequantize(sd["weight.scale"]);
 * ```
 *
 * @module
 */

import { args } from "../schema/index.js";
import { DTypeError, TorchError } from "../errors.js";
import { type DType, dtypeCode, isFloatingPoint } from "../dtype.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import type { RawTensor } from "../wasm/webtorch_core.js";

/** What {@link register_dtype} takes. */
export interface DTypeConfig {
  /** The dtype's name (`"qint8"`); must not be a built-in dtype's. */
  name: string;
  /** Bytes per element in files. */
  itemsize: number;
  /** The core dtype that holds the raw values (`"int32"` for 8-bit integers). */
  storage: DType;
  /** The safetensors dtype code loaded as this dtype (`"I8"`), if any. */
  safetensors?: string;
  /** One element's raw value from file bytes at `byteOffset` (little-endian). */
  decode(view: DataView, byteOffset: number): number;
  /**
   * float32 values from the raw values (a tensor of `storage` dtype) and the dequantization
   * parameters. Default: `(raw - zero_point) * scale`.
   */
  dequantize?(
    raw: Tensor,
    scale: Tensor | number,
    zero_point: Tensor | number,
  ): Tensor;
  /** A description for {@link get_dtype_info}. */
  description?: string;
}

/** What {@link get_dtype_info} says about a dtype. */
export interface DTypeInfo {
  name: string;
  /** Bytes per element (built-ins: as PyTorch reports `itemsize`). */
  itemsize: number;
  is_floating_point: boolean;
  /** Registered with {@link register_dtype}. */
  is_custom: boolean;
  /** The core dtype holding the values. */
  storage: DType;
  /** The safetensors dtype code it loads from. */
  safetensors: string | null;
  description: string;
}

const BUILTIN: Record<DType, { itemsize: number; safetensors: string }> = {
  float32: { itemsize: 4, safetensors: "F32" },
  int32: { itemsize: 4, safetensors: "I32" },
  int64: { itemsize: 8, safetensors: "I64" },
  uint8: { itemsize: 1, safetensors: "U8" },
  bool: { itemsize: 1, safetensors: "BOOL" },
  float16: { itemsize: 2, safetensors: "F16" },
  bfloat16: { itemsize: 2, safetensors: "BF16" },
  float64: { itemsize: 8, safetensors: "F64" },
};

const custom = new Map<
  string,
  Required<Omit<DTypeConfig, "safetensors">> & DTypeConfig
>();

/** Registers a storage-only dtype; throws if the name or its safetensors code is taken. */
export function register_dtype(config: DTypeConfig): void {
  args("register_dtype", arguments);
  const { name } = config ?? {};
  if (typeof name !== "string" || name === "")
    throw new DTypeError(`register_dtype(): name must be a non-empty string`);
  if (name in BUILTIN || custom.has(name))
    throw new DTypeError(`dtype '${name}' is already registered`);
  if (!Number.isInteger(config.itemsize) || config.itemsize <= 0)
    throw new DTypeError(
      `register_dtype(): itemsize must be a positive integer`,
    );
  dtypeCode(config.storage); // a DTypeError for an unknown storage dtype
  if (typeof config.decode !== "function")
    throw new DTypeError(`register_dtype(): decode must be a function`);
  const code = config.safetensors;
  if (code !== undefined) {
    const owner =
      Object.entries(BUILTIN).find(([, b]) => b.safetensors === code)?.[0] ??
      [...custom.values()].find((c) => c.safetensors === code)?.name;
    if (owner !== undefined || ["F16", "BF16"].includes(code))
      throw new DTypeError(
        `register_dtype(): safetensors dtype ${code} already loads as ${owner ?? "float32"}`,
      );
  }
  custom.set(name, {
    dequantize: (raw, scale, zp) => raw.float().sub(zp).mul(scale),
    description: `custom dtype stored as ${config.storage}`,
    ...config,
  });
}

/** Removes a registered dtype (tensors already loaded keep their values). */
export function unregister_dtype(name: string): boolean {
  args("unregister_dtype", arguments);
  return custom.delete(name);
}

/** The built-in dtypes, then the registered ones. */
export function list_dtypes(): string[] {
  args("list_dtypes", arguments);
  return [...Object.keys(BUILTIN), ...custom.keys()];
}

/** Whether `name` is a built-in or registered dtype. */
export function has_dtype(name: string): boolean {
  args("has_dtype", arguments);
  return name in BUILTIN || custom.has(name);
}

/** Facts about a dtype; a `DTypeError` for an unknown one. */
export function get_dtype_info(name: string): DTypeInfo {
  args("get_dtype_info", arguments);
  const b = (BUILTIN as Record<string, (typeof BUILTIN)[DType] | undefined>)[
    name
  ];
  if (b !== undefined)
    return {
      name,
      itemsize: b.itemsize,
      is_floating_point: isFloatingPoint(name as DType),
      is_custom: false,
      storage: name as DType,
      safetensors: b.safetensors,
      description: `built-in ${name}`,
    };
  const c = custom.get(name);
  if (c === undefined)
    throw new DTypeError(`dtype '${name}' is not registered`);
  return {
    name,
    itemsize: c.itemsize,
    is_floating_point: false,
    is_custom: true,
    storage: c.storage,
    safetensors: c.safetensors ?? null,
    description: c.description,
  };
}

/** @internal The registered dtype that loads safetensors code `code`, if any. */
export function _dtype_for_file(code: string): DTypeConfig | undefined {
  return [...custom.values()].find((c) => c.safetensors === code);
}

/**
 * A tensor of a custom dtype: its raw values are held in the dtype's storage dtype (what `dtype`
 * and every Tensor method see, as `int_repr()` in PyTorch); `dequantize` gives float32.
 */
export class QuantizedTensor extends Tensor {
  /** The custom dtype's name. */
  readonly custom_dtype: string;

  /** Wraps storage `raw` (taking ownership) as dtype `customDtype`. */
  constructor(raw: RawTensor, customDtype: string) {
    super(raw);
    if (!custom.has(customDtype))
      throw new DTypeError(`dtype '${customDtype}' is not registered`);
    this.custom_dtype = customDtype;
  }

  /** The raw values as a plain tensor of the storage dtype (a new handle). */
  int_repr(): Tensor {
    return wrap(this._raw.handle());
  }

  /**
   * float32 values: the dtype's `dequantize` of the raw values with `scale` and `zero_point`
   * (tensors broadcast: a `[out, 1]` scale is per output channel).
   */
  dequantize(
    scale: Tensor | number = 1,
    zero_point: Tensor | number = 0,
  ): Tensor {
    const c = custom.get(this.custom_dtype);
    if (c === undefined)
      throw new TorchError(`dtype '${this.custom_dtype}' was unregistered`);
    const raw = this.int_repr();
    try {
      return c.dequantize!(raw, scale, zero_point);
    } finally {
      raw.dispose();
    }
  }
}
