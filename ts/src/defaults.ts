/**
 * The defaults PyTorch code sets globally — the default floating point dtype
 * (`torch.set_default_dtype`) — and the device names PyTorch code writes: `"cuda"` (and
 * `"cuda:0"`, `"webgpu:0"`, `"cpu:0"`) name webtorch's devices, so that ports keep their strings.
 * `"cuda"` is WebGPU: the first use says so once (through `warnings.ts`'s `warnOnce`, key `device.cuda-alias`).
 *
 * @module
 */

import { DeviceError } from "./errors.js";
import { warnOnce } from "./warnings.js";
import { type DType, type Device } from "./dtype.js";

// ---- default dtype ----

let defaultDtype: DType = "float32";

/**
 * The dtype float factories (`zeros`, `rand`, `arange(0.5)`, `tensor([1.5])`, …) make when none is
 * given: `torch.get_default_dtype()`.
 */
export function defaultFloat(): DType {
  return defaultDtype;
}

/** Sets {@link defaultFloat} (the caller has checked it is a floating point dtype). */
export function setDefaultFloat(dtype: DType): void {
  defaultDtype = dtype;
}

// ---- device names ----

/** A device as PyTorch code names it: webtorch's names, `"cuda"`, with an index or not. */
export type DeviceName =
  Device | "cuda" | `cuda:${number}` | `webgpu:${number}` | `cpu:${number}`;

const ALIASES: Record<string, Device> = {
  cpu: "cpu",
  webgpu: "webgpu",
  cuda: "webgpu",
};

/**
 * Whether `name` is a device webtorch's core has under one of PyTorch's spellings (`"cuda"`,
 * `"cuda:0"`, `"webgpu"`, `"cpu:0"`, …).
 */
export function isDeviceName(name: unknown): name is DeviceName {
  if (typeof name !== "string") return false;
  const type = name.split(":")[0]!;
  return type in ALIASES && /^[a-z]+(:\d+)?$/.test(name);
}

/**
 * The core device a device name means: `"cuda"` and `"cuda:0"` are `"webgpu"` (said once, on
 * first use), `"…:0"` the device itself. Other indices throw PyTorch's invalid-ordinal error:
 * webtorch has one device of each type. Names that are not a core device's come back unchanged
 * (custom devices, or an error their caller reports).
 */
export function canonicalDevice<T>(name: T): T | Device {
  if (!isDeviceName(name)) return name;
  const [type, index] = name.split(":") as [string, string | undefined];
  const device = ALIASES[type]!;
  if (index !== undefined && Number(index) !== 0)
    throw new DeviceError(
      `Invalid device ordinal ${index} for '${type}': webtorch has one ${device} device (${type}:0)`,
    );
  if (type === "cuda") warnCuda();
  return device;
}

/**
 * The one-time notice that `"cuda"` is WebGPU. A local helper so that the package's warning
 * module can take it over (a keyed warn-once).
 */
export function warnCuda(): void {
  if (silenced) return;
  warnOnce(
    "device.cuda-alias",
    'webtorch: "cuda" names the WebGPU device: tensors and modules moved to "cuda" report device "webgpu"',
  );
}

let silenced = false;

/** Turns the notice that `"cuda"` is WebGPU off (`false`) or back on; it is given once either way. */
export function setCudaWarning(enabled: boolean): void {
  silenced = !enabled;
}
