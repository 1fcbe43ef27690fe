/**
 * The `Tensor` methods of custom devices (extend/devices.ts): `to` and `to_async` for a registered
 * device, declared on `Tensor` and installed on its prototype, wrapping the class's `to` (a
 * dtype); tensor/methods/devices.ts wraps this one in turn.
 *
 * @module
 */

import { core } from "../../runtime.js";
import { DeviceError } from "../../errors.js";
import { type DType, type Device } from "../../dtype.js";
import { Tensor, type TypedArray } from "../tensor.js";
import { fromValues } from "../../extend/registry.js";
import { _untraceable } from "../../compile/trace.js";
import {
  devices,
  readyAsync,
  DeviceTensor,
  fromHost,
  toDevice,
} from "../../extend/devices.js";

declare module "../tensor.js" {
  interface Tensor {
    /** A copy on device `"cpu"` or `"webgpu"` (from `"webgpu"`: use {@link Tensor.to_async}). */
    to(device: Device): Tensor;
    /** A copy on a registered custom device (`t.to("mydevice")`). */
    to<N extends string>(
      device: N & (N extends DType | Device ? never : N),
    ): DeviceTensor;
    /** A copy on `device`, reading asynchronously when the data is on the GPU. */
    to_async(device: Device): Promise<Tensor>;
    /** A copy on a registered custom device, after an asynchronous read. */
    to_async(device: string): Promise<DeviceTensor>;
  }
}

const proto = Tensor.prototype as unknown as Record<string, unknown>;

const toDType = proto.to as (this: Tensor, arg: unknown) => Tensor;

proto.to = function (this: Tensor, arg: unknown): Tensor | DeviceTensor {
  if (
    typeof arg !== "string" ||
    !(arg === "cpu" || arg === "webgpu" || devices.has(arg))
  )
    return toDType.call(this, arg);
  if (arg === this.device) return this.clone();
  _untraceable("a device move reads tensor data");
  if (this.device === "webgpu")
    throw new DeviceError(
      `moving a webgpu tensor to '${arg}' needs an asynchronous read: use await t.to_async('${arg}')`,
    );
  if (arg === "cpu" || arg === "webgpu")
    return fromValues(
      core.read_cpu(this._raw) as TypedArray,
      this.shape,
      this.dtype,
      arg,
    );
  return toDevice(this, arg);
};

proto.to_async = async function (
  this: Tensor,
  device: string,
): Promise<Tensor | DeviceTensor> {
  if (device === this.device) return this.clone();
  const values = await this.toArray();
  if (devices.has(device)) await readyAsync(device);
  return fromHost(values, this.shape, this.dtype, device);
};
