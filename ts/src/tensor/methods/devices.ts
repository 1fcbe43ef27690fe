/**
 * The `Tensor` methods of the ops in ops/devices.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/devices.ts.
 *
 * @module
 */

// custom_devices.ts installs the `to` of custom devices first: this module's `to` wraps it.
import "./custom_devices.js";
import { has_device } from "../../extend/devices.js";
import { DeviceError } from "../../errors.js";
import {
  type DType,
  type Device,
  checkDeviceSupportsDtype,
  dtypeCode,
  isDType,
} from "../../dtype.js";
import {
  type DeviceName,
  canonicalDevice,
  isDeviceName,
} from "../../defaults.js";
import { methodArgs } from "../../schema/index.js";
import { Tensor } from "../tensor.js";
import { _untraceable } from "../../compile/trace.js";
import type { Dims } from "../../shapes.js";
import { type ToOptions, parseTo, moveTo } from "../../ops/devices.js";

declare module "../tensor.js" {
  interface Tensor<S extends Dims = number[], D extends DType = DType> {
    /**
     * Moves and/or converts, as PyTorch's `Tensor.to`: `t.to("cuda")`, `t.to("cpu", "float16")`,
     * `t.to({ device, dtype })`, `t.to(other)` (other's device and dtype). When nothing changes
     * the result is another handle of the same tensor (`copy: true` copies). A move from WebGPU to
     * the CPU returns at once; its values arrive with the GPU's read (see the module notes).
     */
    to(
      device: DeviceName | Tensor | null,
      dtype?: DType | null,
      non_blocking?: boolean,
      copy?: boolean,
    ): Tensor<S>;
    /** The keyword form of `to`. */
    to(options: ToOptions): Tensor<S>;
    /** This tensor on the CPU (`to("cpu")`): from WebGPU, returned before its values arrive. */
    cpu(): Tensor<S, D>;
    /** This tensor on the WebGPU device, which `"cuda"` names (`to("cuda")`). */
    cuda(
      device?: DeviceName | number | null,
      non_blocking?: boolean,
    ): Tensor<S, D>;
    /** `to(torch.float64)`: a `TorchError`, as neither of webtorch's devices stores float64. */
    double(): Tensor<S>;
    /** Whether the tensor is on the device `"cuda"` names (WebGPU). */
    readonly is_cuda: boolean;
  }
}

const proto = Tensor.prototype as unknown as Record<string, unknown>;

/** `to` of a dtype or a registered custom device (extend/devices.ts). */
const toBase = proto.to as (this: Tensor, arg: unknown) => Tensor;

proto.to = function (this: Tensor, ...rest: unknown[]): unknown {
  const first = rest[0];
  // The common call, one dtype name, cannot be wrong.
  if (rest.length === 1 && isDType(first)) {
    checkDeviceSupportsDtype(this.device, first);
    return toBase.call(this, first);
  }
  // A registered custom device (`t.to("mydevice")`) stays with extend/devices.ts.
  if (
    rest.length === 1 &&
    typeof first === "string" &&
    !isDeviceName(first) &&
    has_device(first)
  )
    return toBase.call(this, first);
  const target = parseTo(this.device, arguments, this);
  return moveTo(
    this,
    target.device ?? this.device,
    target.dtype ?? this.dtype,
    target.copy,
  );
};

/**
 * The core device a device string names, or PyTorch's error for an unknown one (a
 * `DTypeError` for a name that reads as a dtype's, `"float99"`: webtorch's dtypes are strings).
 */
export function coreDevice(name: string): Device {
  const device = canonicalDevice(name);
  if (/^(float|int|uint|bool|complex|bfloat|half|double|long|short)/.test(name))
    dtypeCode(name as DType);
  if (device !== "cpu" && device !== "webgpu")
    throw new DeviceError(
      `Expected one of cpu, webgpu, cuda device type at start of device string: ${name}`,
    );
  return device;
}

proto.cpu = function (this: Tensor): Tensor {
  methodArgs("cpu", this, arguments);
  return moveTo(this, "cpu", this.dtype);
};

proto.cuda = function (this: Tensor): Tensor {
  const a = methodArgs("cuda", this, arguments);
  const d = a.device;
  canonicalDevice(typeof d === "number" ? `cuda:${d}` : (d ?? "cuda"));
  if (typeof d === "string" && coreDevice(d) !== "webgpu")
    throw new DeviceError(
      `Invalid device, must be cuda device, got ${d} (webtorch: "cuda" is the WebGPU device)`,
    );
  return moveTo(this, "webgpu", this.dtype);
};

proto.double = function (this: Tensor): Tensor {
  methodArgs("double", this, arguments);
  // `to` asks checkDeviceSupportsDtype whether this device stores float64.
  return this.to("float64" as DType);
};

Object.defineProperty(proto, "is_cuda", {
  get(this: Tensor) {
    return this.device === "webgpu";
  },
  configurable: true,
});
