/**
 * Devices and dtypes as PyTorch code moves between them: `Tensor.to(device, dtype)` (and its
 * keyword and tensor forms), `cpu()`, `cuda()`, `double()`; `torch.set_default_device`,
 * `torch.get_default_device`, `torch.device`.
 *
 * A move from WebGPU to the CPU (`t.cpu()`, `t.to("cpu")`) returns at once, without an `await`:
 * the CPU tensor's values arrive when the GPU's read does, and CPU work on it is recorded until
 * then (src/backend/cpu/deferred.rs); a read of it waits. `"cuda"` names the WebGPU device
 * (defaults.ts).
 *
 * @module
 */

import {
  core,
  get_default_device as defaultDevice,
  setDefaultDevice,
} from "../runtime.js";
import { DeviceError, TorchError } from "../errors.js";
import {
  type DType,
  type Device,
  checkDeviceSupportsDtype,
  dtypeCode,
  isDType,
} from "../dtype.js";
import { type DeviceName } from "../defaults.js";
import { type Args, args, methodArgs } from "../schema/index.js";
import { OPS } from "../schema/generated.js";
import { parseArgs } from "../schema/parse.js";
import { Tensor, type TypedArray, wrap } from "../tensor/tensor.js";
import { fromValues } from "../extend/registry.js";
import { _untraceable } from "../compile/trace.js";
import { coreDevice } from "../tensor/methods/devices.js";

/** The keyword form of {@link Tensor.to}: `t.to({ device: "cuda", dtype: torch.float16 })`. */
export interface ToOptions {
  /** The target device (`"cpu"`, `"webgpu"`, `"cuda"`, …); default: the tensor's. */
  device?: DeviceName | null;
  /** The target dtype; default: the tensor's. */
  dtype?: DType | null;
  /** Accepted for PyTorch's signature: moves never block the caller here. */
  non_blocking?: boolean;
  /** A new copy even when nothing changes (default: a handle of the same tensor then). */
  copy?: boolean;
}

/** What a `to(…)` call asks for: `null` where it keeps what the tensor or module has. */
export interface ToTarget {
  device: Device | null;
  dtype: DType | null;
  copy: boolean;
}

/** `to`'s entry without its `input` (`Module.to` parses through it as well). */
const TO_ARGS = { ...OPS.to, params: OPS.to.params.slice(1) };

/**
 * The device and dtype a `to(…)` call names (`Tensor.to` with `self`, `Module.to` without):
 * its three forms — a device and/or dtype, a dtype, a tensor — positional or by keyword. Float64
 * is refused for `device` (the tensor's or module's device) as {@link checkDeviceSupportsDtype}
 * says.
 */
export function parseTo(
  device: string,
  values: ArrayLike<unknown>,
  self?: Tensor,
): ToTarget {
  const a = (
    self === undefined
      ? parseArgs(TO_ARGS, values)
      : methodArgs("to", self, values)
  ) as Args["to"];
  const out: ToTarget = { device: null, dtype: a.dtype, copy: a.copy };
  const target = a.device;
  if (target instanceof Tensor) {
    out.device = target.device;
    out.dtype ??= target.dtype;
  } else if (isDType(target)) {
    if (a.dtype !== null)
      throw new TorchError(
        "to() received an invalid combination of arguments - got (torch.dtype, torch.dtype), but expected one of: (torch.device device, torch.dtype dtype, bool non_blocking, bool copy), (torch.dtype dtype, bool non_blocking, bool copy), (Tensor tensor, bool non_blocking, bool copy)",
      );
    out.dtype = target;
  } else if (typeof target === "string") {
    out.device = coreDevice(target);
  }
  if (out.dtype !== null && out.dtype !== undefined)
    checkDeviceSupportsDtype(out.device ?? device, out.dtype);
  return out;
}

/**
 * `t` on `device` as `dtype`: another handle when both are `t`'s own (a copy with `copy`),
 * converted on `t`'s device first, then moved.
 */
export function moveTo(
  t: Tensor,
  device: Device,
  dtype: DType,
  copy = false,
): Tensor {
  if (device === t.device) {
    if (dtype !== t.dtype) return wrap(t._raw.to_dtype(dtypeCode(dtype)));
    return copy ? t.clone() : wrap(t._raw.handle());
  }
  if (device === "webgpu" && !core.webgpu_available())
    throw new DeviceError(
      "webgpu device is not available: no WebGPU adapter was found (tensors live on 'cpu')",
    );
  _untraceable("a device move reads tensor data");
  if (t.requires_grad && core.is_grad_enabled())
    throw new TorchError(
      `moving a tensor that requires grad from ${t.device} to ${device} records no gradient in webtorch: move it under torch.no_grad() or detach() it first`,
    );
  // A dtype the source device does not store (float64 from WebGPU) is made after the move.
  if (dtype !== t.dtype && t.device === "webgpu" && dtype === "float64") {
    const moved = moveTo(t, device, t.dtype, copy);
    try {
      return moveTo(moved, device, dtype);
    } finally {
      moved.dispose();
    }
  }
  const src = dtype === t.dtype ? t : wrap(t._raw.to_dtype(dtypeCode(dtype)));
  try {
    if (device === "cpu") return wrap(src._raw.to_cpu_later());
    return fromValues(
      core.read_cpu(src._raw) as TypedArray,
      src.shape,
      src.dtype,
      device,
    );
  } finally {
    if (src !== t) src.dispose();
  }
}

// ---- torch.* ----

/**
 * The device factories use when no `device` is given (PyTorch's `torch.set_default_device`):
 * `"webgpu"`, `"cuda"` (the same) or `"cpu"`; `null` goes back to the device `torch.init` chose.
 */
export function set_default_device(device: DeviceName | null): void {
  const d = args("set_default_device", arguments).device;
  setDefaultDevice(d === null ? null : coreDevice(d));
}

/** The device factories use when no `device` is given. */
export function get_default_device(): Device {
  args("get_default_device", arguments);
  return defaultDevice();
}

/**
 * A device by PyTorch's name (`torch.device("cuda")`, `torch.device("cuda", 0)`,
 * `torch.device("cpu")`): webtorch's name for it (`"webgpu"` for `"cuda"`), which every `device`
 * option and `to()` take.
 */
export function device(type: DeviceName, index?: number | null): Device {
  const a = args("device", arguments);
  if (a.index !== null) {
    if (a.type.includes(":"))
      throw new DeviceError(
        `type (string) must not include an index because index was passed explicitly: ${a.type}`,
      );
    if (a.index < 0)
      throw new DeviceError(
        `Device index must not be negative, got ${a.index}`,
      );
    return coreDevice(`${a.type}:${a.index}`);
  }
  return coreDevice(a.type);
}
