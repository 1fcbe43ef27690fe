/**
 * `torch.cuda`: PyTorch's CUDA module answered by webtorch's GPU device, WebGPU, which `"cuda"`
 * names (so that `device = torch.cuda.is_available() ? "cuda" : "cpu"` ports as it is). The first
 * use says so once (`set_alias_warning(false)` turns that off).
 *
 * @module
 */

import { core } from "./runtime.js";
import { DeviceError } from "./errors.js";
import {
  type DeviceName,
  canonicalDevice,
  setCudaWarning,
  warnCuda,
} from "./defaults.js";
import { args } from "./schema/index.js";

/** The device type's name, as PyTorch code asks for it; its tensors report `"webgpu"`. */
export const name = "cuda";

/** Whether there is a GPU to compute on: a WebGPU adapter was found. */
export function is_available(): boolean {
  args("cuda.is_available", arguments);
  warnCuda();
  return core.webgpu_available();
}

/** 1 with a WebGPU device, else 0 (webtorch uses one GPU). */
export function device_count(): number {
  args("cuda.device_count", arguments);
  warnCuda();
  return core.webgpu_available() ? 1 : 0;
}

/** 0, the index of the one GPU device; PyTorch's error without one. */
export function current_device(): number {
  args("cuda.current_device", arguments);
  gpu();
  return 0;
}

/** The WebGPU adapter's name (its description where it has no name). */
export function get_device_name(device?: DeviceName | number | null): string {
  const a = args("cuda.get_device_name", arguments);
  checkGpu(a.device);
  const info = core.adapter_info() as {
    name?: string;
    description?: string;
  } | null;
  return info?.name || info?.description || "WebGPU";
}

/**
 * Resolves once the GPU has finished the work submitted so far, and CPU copies of GPU tensors
 * made without waiting (`t.cpu()`) have their values.
 */
export function synchronize(
  device?: DeviceName | number | null,
): Promise<void> {
  const a = args("cuda.synchronize", arguments);
  checkGpu(a.device);
  return core.sync() as Promise<void>;
}

/** Turns the one-time notice that `"cuda"` is WebGPU off (`false`) or back on. */
export function set_alias_warning(enabled: boolean): void {
  setCudaWarning(args("cuda.set_alias_warning", arguments).enabled);
}

function gpu(): void {
  warnCuda();
  if (!core.webgpu_available())
    throw new DeviceError(
      "No CUDA GPUs are available (webtorch: no WebGPU adapter was found; tensors live on 'cpu')",
    );
}

/** Checks a device argument names the GPU (`"cuda"`, `"cuda:0"`, `0`, `"webgpu"`). */
function checkGpu(device: string | number | null): void {
  gpu();
  if (device === null) return;
  const d = canonicalDevice(
    typeof device === "number" ? `cuda:${device}` : device,
  );
  if (d !== "webgpu")
    throw new DeviceError(`Expected a cuda device, but got: ${String(device)}`);
}
