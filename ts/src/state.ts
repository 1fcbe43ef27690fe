/**
 * torch-level settings and dtype queries that need no device: the default dtype, print options,
 * the determinism and anomaly switches, thread counts, autocast state, and PyTorch's type
 * promotion (`promote_types`, `result_type`, `can_cast`), `set_default_tensor_type` (float32
 * only). Settings webtorch cannot change are
 * accepted where PyTorch's value is the only one webtorch has, and refused otherwise, with why.
 *
 * @module
 */

import { DTypeError, TorchError } from "./errors.js";
import { args } from "./schema/index.js";
import {
  type DType,
  checkDeviceSupportsDtype,
  dtypeCode,
  dtypeFromCode,
  isFloatingPoint,
} from "./dtype.js";
import { core, get_default_device } from "./runtime.js";
import { defaultFloat, setDefaultFloat } from "./defaults.js";
import { type Scalar, Tensor } from "./tensor/tensor.js";

// ---- default dtype ----

/**
 * The dtype of new floating point tensors: what factories make without a `dtype` (`zeros`,
 * `rand`, `arange(0.5)`) and what `tensor([1.5])` infers. `float32` unless
 * {@link set_default_dtype} changed it.
 */
export function get_default_dtype(): DType {
  args("get_default_dtype", arguments);
  return defaultFloat();
}

/**
 * Makes `d` the default floating point dtype: `float32`, `float16`, `bfloat16` or `float64`
 * (PyTorch's TypeError for other dtypes; float64 only while the default device is the CPU, the
 * one device that stores it).
 */
export function set_default_dtype(d: DType): void {
  if (d === ("float64" as DType) || d === ("double" as DType))
    checkDeviceSupportsDtype(get_default_device(), "float64");
  const dtype = args("set_default_dtype", arguments).d;
  if (!isFloatingPoint(dtype))
    throw new DTypeError(
      `only floating-point types are supported as the default type`,
    );
  setDefaultFloat(dtype);
}

// ---- printing ----

/** Options of {@link set_printoptions} (PyTorch's names and defaults). */
export interface PrintOptions {
  /** Digits after the decimal point (or of the mantissa, in scientific notation). Default 4. */
  precision: number;
  /** Elements above which a tensor is summarised with `...` (`Infinity`: never). Default 1000. */
  threshold: number;
  /** Items shown at each end of every summarised dim. Default 3. */
  edgeitems: number;
  /** Characters per line before values wrap (and suffixes move to a new line). Default 80. */
  linewidth: number;
  /**
   * Scientific notation always (`true`), never (`false`), or chosen per tensor (`null`, the
   * default: when the nonzero magnitudes span more than 1000×, exceed 1e8 or go below 1e-4).
   */
  sci_mode: boolean | null;
}

/** What {@link set_printoptions} takes: any of the options, and a `profile` applied first. */
export interface SetPrintOptions extends Partial<PrintOptions> {
  /**
   * Presets applied before the other options: `"default"` (precision 4, threshold 1000,
   * edgeitems 3, linewidth 80), `"short"` (precision 2, edgeitems 2) or `"full"` (threshold
   * `Infinity`: never summarise).
   */
  profile?: "default" | "short" | "full";
}

const DEFAULT_PRINT: PrintOptions = {
  precision: 4,
  threshold: 1000,
  edgeitems: 3,
  linewidth: 80,
  sci_mode: null,
};
let printOptions: PrintOptions = { ...DEFAULT_PRINT };

const PROFILES = {
  default: {},
  short: { precision: 2, edgeitems: 2 },
  full: { threshold: Infinity },
} as const;

/**
 * Sets how tensors print ({@link Tensor.format}, {@link Tensor.print}), as PyTorch's
 * `torch.set_printoptions`: a `profile` resets precision, threshold, edgeitems and linewidth
 * first; options left out keep their value, except `sci_mode`, which every call sets (to `null`
 * when left out), as in PyTorch.
 */
export function set_printoptions(options?: SetPrintOptions): void;
export function set_printoptions(
  precision?: number | null,
  threshold?: number | null,
  edgeitems?: number | null,
  linewidth?: number | null,
  profile?: "default" | "short" | "full" | null,
  sci_mode?: boolean | null,
  options?: SetPrintOptions,
): void;
export function set_printoptions(): void {
  const a = args("set_printoptions", arguments);
  if (a.profile !== null)
    printOptions = {
      ...DEFAULT_PRINT,
      ...PROFILES[a.profile as keyof typeof PROFILES],
    };
  for (const k of [
    "precision",
    "threshold",
    "edgeitems",
    "linewidth",
  ] as const) {
    const v = a[k];
    if (v !== null) printOptions[k] = v;
  }
  printOptions.sci_mode = a.sci_mode;
}

/** The current print options (a copy). */
export function get_printoptions(): PrintOptions {
  args("get_printoptions", arguments);
  return { ...printOptions };
}

// ---- determinism, anomaly detection, warnings ----

let deterministic = false;
let deterministicWarnOnly = false;
let warnAlways = false;

/**
 * Records the request; webtorch's kernels are deterministic already (fixed reduction orders, a
 * counter-based generator; scatter with repeated indices is the one exception, as in PyTorch).
 */
export function use_deterministic_algorithms(
  mode: boolean,
  options?: { warn_only?: boolean },
): void {
  const a = args("use_deterministic_algorithms", arguments);
  deterministic = a.mode;
  deterministicWarnOnly = a.warn_only;
}

/** Whether {@link use_deterministic_algorithms} was turned on. */
export function are_deterministic_algorithms_enabled(): boolean {
  args("are_deterministic_algorithms_enabled", arguments);
  return deterministic;
}

/** Whether it was turned on with `warn_only`. */
export function is_deterministic_algorithms_warn_only_enabled(): boolean {
  args("is_deterministic_algorithms_warn_only_enabled", arguments);
  return deterministicWarnOnly;
}

/** 0 (off), 1 (warn) or 2 (error), from the determinism settings. */
export function get_deterministic_debug_mode(): number {
  args("get_deterministic_debug_mode", arguments);
  return deterministic ? (deterministicWarnOnly ? 1 : 2) : 0;
}

/** Sets the determinism settings from a mode: 0/"default", 1/"warn", 2/"error". */
export function set_deterministic_debug_mode(
  debug_mode: number | "default" | "warn" | "error",
): void {
  const mode = args("set_deterministic_debug_mode", arguments).debug_mode;
  const m =
    typeof mode === "string"
      ? ["default", "warn", "error"].indexOf(mode)
      : mode;
  if (m < 0 || m > 2)
    throw new TorchError(
      `invalid value of debug_mode, expected one of 0, 1, 2, but got ${String(mode)}`,
    );
  use_deterministic_algorithms(m > 0, { warn_only: m === 1 });
}

/** Sets whether warnings that PyTorch gives once are given every time (stored). */
export function set_warn_always(b: boolean): void {
  warnAlways = args("set_warn_always", arguments).b;
}

/** See {@link set_warn_always}. */
export function is_warn_always_enabled(): boolean {
  args("is_warn_always_enabled", arguments);
  return warnAlways;
}

/** Anomaly detection is not implemented: always `false`. */
export function is_anomaly_enabled(): boolean {
  args("is_anomaly_enabled", arguments);
  return false;
}

/** Anomaly detection is not implemented: always `false`. */
export function is_anomaly_check_nan_enabled(): boolean {
  args("is_anomaly_check_nan_enabled", arguments);
  return false;
}

/**
 * Whether inference mode is on: always `false`. webtorch's `inference_mode` is `no_grad` (there
 * are no inference tensors), and `is_grad_enabled()` is the switch that matters.
 */
export function is_inference_mode_enabled(): boolean {
  args("is_inference_mode_enabled", arguments);
  return false;
}

// ---- threads, precision, autocast ----

/** The intra-op thread count: 1 (the wasm core runs on the calling thread). */
export function get_num_threads(): number {
  args("get_num_threads", arguments);
  return 1;
}

/** The inter-op thread count: 1. */
export function get_num_interop_threads(): number {
  args("get_num_interop_threads", arguments);
  return 1;
}

let matmulPrecision: "highest" | "high" | "medium" = "highest";

/** `"highest"`, `"high"` or `"medium"`: stored; matmul always accumulates in float32. */
export function set_float32_matmul_precision(
  precision: "highest" | "high" | "medium",
): void {
  precision = args("set_float32_matmul_precision", arguments)
    .precision as typeof precision;
  if (!["highest", "high", "medium"].includes(precision))
    throw new TorchError(`Invalid precision ${String(precision)}`);
  matmulPrecision = precision;
}

/** See {@link set_float32_matmul_precision}. */
export function get_float32_matmul_precision(): string {
  args("get_float32_matmul_precision", arguments);
  return matmulPrecision;
}

/** Autocast is not implemented: always `false`. */
export function is_autocast_cpu_enabled(): boolean {
  args("is_autocast_cpu_enabled", arguments);
  return false;
}

/** Autocast is not implemented: always `false`. */
export function is_autocast_cache_enabled(): boolean {
  args("is_autocast_cache_enabled", arguments);
  return false;
}

/** The dtype autocast would use on the CPU: PyTorch's default, `bfloat16`, is not a webtorch dtype, so float32. */
export function get_autocast_cpu_dtype(): DType {
  args("get_autocast_cpu_dtype", arguments);
  return "float32";
}

/** The dtype autocast would use on the GPU (float32: there is no float16 compute yet). */
export function get_autocast_gpu_dtype(): DType {
  args("get_autocast_gpu_dtype", arguments);
  return "float32";
}

let autocastNesting = 0;

/** Counts nested autocast regions (bookkeeping only). */
export function autocast_increment_nesting(): number {
  args("autocast_increment_nesting", arguments);
  return ++autocastNesting;
}

/** See {@link autocast_increment_nesting}. */
export function autocast_decrement_nesting(): number {
  args("autocast_decrement_nesting", arguments);
  autocastNesting = Math.max(0, autocastNesting - 1);
  return autocastNesting;
}

/** There is no autocast cache: nothing to clear. */
export function clear_autocast_cache(): void {
  args("clear_autocast_cache", arguments);
}

/** A libstdc++ detail of native builds: false (no C++ ABI in a wasm build). */
export function compiled_with_cxx11_abi(): boolean {
  args("compiled_with_cxx11_abi", arguments);
  return false;
}

/** Whether `input`'s dtype is complex: never (webtorch has no complex dtypes). */
export function is_complex(input: Tensor): boolean {
  args("is_complex", arguments);
  return false;
}

// ---- type promotion ----

function category(d: DType): number {
  return d === "bool" ? 0 : isFloatingPoint(d) ? 2 : 1;
}

/**
 * The smallest dtype both `type1` and `type2` convert to without losing range or kind (the core's
 * rule, the one its ops promote by).
 */
export function promote_types(type1: DType, type2: DType): DType {
  ({ type1, type2 } = args("promote_types", arguments) as {
    type1: DType;
    type2: DType;
  });
  return dtypeFromCode(core.promote_types(dtypeCode(type1), dtypeCode(type2)));
}

/**
 * The dtype an elementwise op on these operands gives (PyTorch's rules, computed by the core):
 * tensors with dims decide; 0-D tensors, then Python-like scalars (an integral number is an int,
 * a boolean a bool), count only when they are of a higher kind (bool < integer < floating point).
 */
export function result_type(
  tensor1: Tensor | Scalar,
  tensor2: Tensor | Scalar,
): DType {
  ({ tensor1, tensor2 } = args("result_type", arguments));
  const operands: number[] = [];
  for (const x of [tensor1, tensor2]) {
    if (x instanceof Tensor)
      operands.push(dtypeCode(x.dtype), x.ndim > 0 ? 0 : 1);
    else if (typeof x === "boolean") operands.push(dtypeCode("bool"), 2);
    else if (typeof x === "number")
      operands.push(dtypeCode(Number.isInteger(x) ? "int64" : "float32"), 2);
    else
      throw new TorchError(
        `result_type(): argument 'tensor' must be Tensor or Number`,
      );
  }
  return dtypeFromCode(core.result_type(Uint32Array.from(operands)));
}

/** Whether a value of `from` may be written into `to` under PyTorch's casting rule (no lower kind). */
export function can_cast(from_: DType, to: DType): boolean {
  const a = args("can_cast", arguments);
  return category(a.from_ as DType) <= category(a.to as DType);
}

/** Accepts only float32 tensor types (`"torch.FloatTensor"` or `"float32"`); others throw. */
export function set_default_tensor_type(t: string): void {
  ({ t } = args("set_default_tensor_type", arguments));
  if (t !== "torch.FloatTensor" && t !== "float32")
    throw new DTypeError(
      "only floating-point types are supported as the default type",
    );
}
