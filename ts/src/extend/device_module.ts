/**
 * `torch.get_device_module(device?)`: the module of a device type, as PyTorch's
 * `torch.get_device_module("cuda")` returns `torch.cuda`. `"webgpu"` gives `torch.webgpu`,
 * `"cuda"` `torch.cuda` (the same device, with PyTorch's CUDA module members), `"cpu"`
 * `torch.cpu`; registered custom devices give a small module with PyTorch's common members.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { get_device_config, has_device } from "./devices.js";
import { DeviceError } from "../errors.js";
import { get_default_device } from "../runtime.js";
import * as cpu from "../cpu.js";
import * as webgpu from "../webgpu/index.js";
import * as cuda from "../cuda.js";

/** The members PyTorch's device modules share (`torch.cpu`, `torch.cuda`, …). */
export interface DeviceModule {
  /** The device type's name. */
  readonly name: string;
  /** Whether the device can run tensors now. */
  is_available(): boolean;
  /** Devices of this type (1: webtorch has one of each). */
  device_count(): number;
  /** Waits for the device's queued work. */
  synchronize(): Promise<void>;
}

/**
 * The module of device type `device` (default: the default device): `torch.webgpu` for
 * `"webgpu"`, else a {@link DeviceModule}. Throws `DeviceError` for an unknown device.
 */
export function get_device_module(
  device?: string,
): typeof webgpu | typeof cpu | typeof cuda | DeviceModule {
  args("get_device_module", arguments);
  const name = device ?? get_default_device();
  if (name === "webgpu") return webgpu;
  if (name === "cuda" || name === "cuda:0") return cuda;
  if (name === "cpu") return cpu;
  if (!has_device(name))
    throw new DeviceError(
      `Expected one of cpu, webgpu, cuda or a registered device type at start of device string: ${name}`,
    );
  const config = get_device_config(name);
  return {
    name,
    is_available: () => has_device(name),
    device_count: () => 1,
    synchronize: () => config.sync(),
  };
}
