/**
 * Dtypes and devices: the names users write and the integer codes the wasm core takes.
 *
 * A dtype is its PyTorch name as a string (`torch.float32 === "float32"`), so `{ dtype: "int32" }`
 * and `{ dtype: torch.int32 }` are the same thing. Codes follow docs/core-api.md.
 *
 * @module
 */

import { DTypeError, DeviceError } from "./errors.js";
import { type DeviceName, canonicalDevice } from "./defaults.js";

/**
 * The dtypes webtorch supports (int64 is stored as checked 32-bit; float16 and bfloat16 as float32
 * words holding values rounded to the type, computed in float32; float64 on the CPU device only;
 * see docs/dtypes.md).
 */
export type DType =
  | "float32"
  | "int32"
  | "int64"
  | "uint8"
  | "bool"
  | "float16"
  | "bfloat16"
  | "float64";

/** 32-bit floating point, the default dtype. */
export const float32 = "float32" satisfies DType;
/** Alias of {@link float32}, as in PyTorch. */
export const float = "float32" satisfies DType;
/** 32-bit signed integer. */
export const int32 = "int32" satisfies DType;
/** Alias of {@link int32}, as in PyTorch. */
export const int = "int32" satisfies DType;
/** 64-bit signed integer in the API; stored as 32 bits, with range checks. */
export const int64 = "int64" satisfies DType;
/** Alias of {@link int64}, as in PyTorch. */
export const long = "int64" satisfies DType;
/** 8-bit unsigned integer. */
export const uint8 = "uint8" satisfies DType;
/** Boolean (stored as one byte per element on the CPU, 32 bits on the GPU). */
export const bool = "bool" satisfies DType;
/** IEEE half precision: values rounded to float16 on every store, computed in float32. */
export const float16 = "float16" satisfies DType;
/** Alias of {@link float16}, as in PyTorch. */
export const half = "float16" satisfies DType;
/** bfloat16 (8-bit exponent, 7-bit mantissa): rounded on every store, computed in float32. */
export const bfloat16 = "bfloat16" satisfies DType;

/** IEEE double precision, computed in f64: the CPU device only (WebGPU has no f64). */
export const float64 = "float64" satisfies DType;
/** Alias of {@link float64}, as in PyTorch. */
export const double = "float64" satisfies DType;

/** The device names: WebGPU or the CPU fallback backend. */
export type Device = "webgpu" | "cpu";

const DTYPE_CODES: Record<DType, number> = {
  float32: 0,
  int32: 1,
  int64: 2,
  uint8: 3,
  bool: 4,
  float16: 5,
  bfloat16: 6,
  float64: 7,
};
const DTYPES_BY_CODE: readonly DType[] = [
  "float32",
  "int32",
  "int64",
  "uint8",
  "bool",
  "float16",
  "bfloat16",
  "float64",
];
const DEVICES_BY_CODE: readonly Device[] = ["cpu", "webgpu"];

/** The core's code for `dtype`; throws a {@link DTypeError} for a name webtorch does not know. */
export function dtypeCode(dtype: DType): number {
  const code = (DTYPE_CODES as Record<string, number | undefined>)[dtype];
  if (code === undefined) {
    throw new DTypeError(
      `unsupported dtype '${String(dtype)}' (expected one of ${DTYPES_BY_CODE.join(", ")})`,
    );
  }
  return code;
}

/** Whether `name` is one of webtorch's dtype names. */
export function isDType(name: unknown): name is DType {
  return typeof name === "string" && Object.hasOwn(DTYPE_CODES, name);
}

/** The dtype name of a core dtype code. */
export function dtypeFromCode(code: number): DType {
  const dtype = DTYPES_BY_CODE[code];
  if (dtype === undefined)
    throw new DTypeError(`the core returned an unknown dtype code ${code}`);
  return dtype;
}

/**
 * The core's code for `device` (PyTorch's spellings too: `"cuda"`, `"cuda:0"`); throws a
 * {@link DeviceError} for an unknown name.
 */
export function deviceCode(device: DeviceName): number {
  const code = DEVICES_BY_CODE.indexOf(canonicalDevice(device) as Device);
  if (code < 0) {
    throw new DeviceError(
      `Expected one of cpu, webgpu, cuda device type at start of device string: ${String(device)}`,
    );
  }
  return code;
}

/** The device name of a core device code. */
export function deviceFromCode(code: number): Device {
  const device = DEVICES_BY_CODE[code];
  if (device === undefined)
    throw new DeviceError(`the core returned an unknown device code ${code}`);
  return device;
}

/**
 * Throws unless `device` stores `dtype`: float64 lives on the CPU backend only; WebGPU refuses
 * it with the error PyTorch's MPS backend gives (the core's wording, src/dtype.rs). Conversions
 * and defaults that could make one (`to`, `double()`, `set_default_dtype`) ask here first.
 */
export function checkDeviceSupportsDtype(device: string, dtype: string): void {
  if ((dtype === "float64" || dtype === "double") && device === "webgpu")
    throw new DTypeError(
      "Cannot convert a WebGPU Tensor to float64 dtype as the WebGPU device doesn't support float64. Please use float32 instead.",
    );
}

/** Whether `dtype` is a floating-point dtype (`torch.is_floating_point`). */
export function isFloatingPoint(dtype: DType): boolean {
  return (
    dtype === "float32" ||
    dtype === "float16" ||
    dtype === "bfloat16" ||
    dtype === "float64"
  );
}

/** PyTorch's C++ scalar type name of `dtype`, as its messages print it ("Float", "Long", "Half"). */
export function scalarTypeName(dtype: DType): string {
  return SCALAR_NAMES[dtype];
}

/**
 * PyTorch's refusal to write a result of dtype `result` into an output of dtype `output` that it
 * cannot be cast to (an in-place op, an `out=`, a loss computed in its input's dtype).
 */
export function castError(
  result: DType,
  output: DType,
  outputName: string = scalarTypeName(output),
): DTypeError {
  return new DTypeError(
    `result type ${scalarTypeName(result)} can't be cast to the desired output type ${outputName}`,
  );
}

/** The C++ type name of `dtype` in PyTorch's messages (`long int`, `unsigned char`, `c10::Half`). */
export function cTypeName(dtype: DType): string {
  return C_NAMES[dtype];
}

/**
 * The tensor-type name of `dtype` in PyTorch's C++ argument checks ("but got torch.FloatTensor
 * instead"): the legacy class name where the type has one, else the backend type name.
 */
export function tensorTypeName(dtype: DType): string {
  return TENSOR_TYPE_NAMES[dtype];
}

const TENSOR_TYPE_NAMES: Record<DType, string> = {
  float32: "torch.FloatTensor",
  float64: "torch.DoubleTensor",
  float16: "torch.HalfTensor",
  int64: "torch.LongTensor",
  int32: "torch.IntTensor",
  uint8: "torch.ByteTensor",
  bool: "CPUBoolType",
  bfloat16: "CPUBFloat16Type",
};

const C_NAMES: Record<DType, string> = {
  float32: "float",
  int32: "int",
  int64: "long int",
  uint8: "unsigned char",
  bool: "bool",
  float16: "c10::Half",
  bfloat16: "c10::BFloat16",
  float64: "double",
};

const SCALAR_NAMES: Record<DType, string> = {
  float32: "Float",
  int32: "Int",
  int64: "Long",
  uint8: "Byte",
  bool: "Bool",
  float16: "Half",
  bfloat16: "BFloat16",
  float64: "Double",
};
