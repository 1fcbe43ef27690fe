/**
 * Custom devices (docs/extending.md): `register_device(config)` with torch.js's `DeviceConfig`
 * (name, `initialize`, `capabilities`, `createBuffer`, `dispatch`, `sync`, optional
 * `writeBuffer` / `readBuffer`), and the queries `list_devices`, `has_device`,
 * `get_device_config`, `initialize_device`, `is_webgpu_available`, `is_cpu_only_mode`.
 *
 * The config's members as torch.js's `DeviceConfig` describes them (seeds/001):
 *
 * - `initialize` — "Called when the device is first used": not at registration, but by the first
 *   use of the device — `initialize_device(name)`, a move to it, an op on it — once (concurrent
 *   first uses share the call; a failed one is tried again by the next use). An asynchronous use
 *   (`await initialize_device(name)`, `await t.to_async(name)`) waits for it; a synchronous one
 *   (`t.to(name)`) starts it but cannot wait for its Promise, so it raises a `DeviceError` asking
 *   for `await torch.initialize_device(name)` until the device is ready.
 * - `capabilities` — "Used for operation selection and validation". Selection: an op runs through
 *   `dispatch` only when the device has compute (`compute: true`), lists the op in `ops`, and
 *   supports its dtype (`supportedDTypes`); otherwise it falls back through the CPU backend (see
 *   below). Validation: a tensor whose dtype is not in `supportedDTypes` is not moved to the device,
 *   and a buffer larger than `maxBufferSize` is not created — both a `DeviceError`, before any call
 *   into the device.
 * - `writeBuffer` is optional: a device without it registers, initializes and computes, but host
 *   data cannot be copied onto it, so a move to it (or a CPU fallback's result coming back) is a
 *   `DeviceError` saying so. `readBuffer` is optional as well (`readBufferSync`, webtorch's
 *   addition, makes reads synchronous).
 *
 * A tensor on a custom device is a {@link DeviceTensor}: a device buffer plus shape and dtype.
 * The device computes the ops it selects as above (elementwise and 2-D matmul, float32) through
 * `dispatch`; every other op falls back through the CPU backend: the inputs are copied to the
 * CPU, computed there, and the result copied back (one read and one write per tensor). Moves
 * (`t.to(name)`) read the source and write the target; a read of WebGPU memory is asynchronous,
 * so moves from `"webgpu"` go through `await t.to_async(name)`. Custom-device tensors do not take
 * part in autograd.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { core } from "../runtime.js";
import { DeviceError, TorchError } from "../errors.js";
import { type DType } from "../dtype.js";
import { Tensor, type TypedArray } from "../tensor/tensor.js";
import { BINARY_OPS, UNARY_OPS } from "../ops/opnames.js";
import { broadcast_shapes } from "../tensor/shape_ops.js";
import { fromValues } from "./registry.js";
import { _untraceable } from "../compile/trace.js";

export type {
  BufferUsage,
  DeviceBuffer,
  DeviceContext,
  DeviceCapabilities,
  DispatchConfig,
  DeviceConfig,
} from "./device_types.js";
import type {
  DeviceBuffer,
  DeviceConfig,
  DeviceContext,
} from "./device_types.js";

interface Registered {
  config: DeviceConfig;
  context: DeviceContext | null;
  /** The `initialize()` under way (its first use started it), or null. */
  starting: Promise<DeviceContext> | null;
}

/** The registered custom devices, by name. */
export const devices = new Map<string, Registered>();

/** Ops a device may compute through `dispatch`, with their shape rules. */
const ELEMENTWISE = new Set<string>([...UNARY_OPS, ...BINARY_OPS]);

/** Registers a device; its `initialize()` runs when it is first used (see the module's notes). */
export function register_device(config: DeviceConfig): void {
  args("register_device", arguments);
  const name = config?.name;
  if (typeof name !== "string" || !/^[a-z][a-z0-9_]*$/.test(name))
    throw new DeviceError(
      `register_device(): the name must be lowercase letters, digits and _, got ${String(name)}`,
    );
  if (name === "cpu" || name === "webgpu" || devices.has(name))
    throw new DeviceError(`device '${name}' is already registered`);
  for (const fn of ["initialize", "createBuffer", "dispatch", "sync"] as const)
    if (typeof config[fn] !== "function")
      throw new DeviceError(`register_device(): '${name}' has no ${fn}()`);
  for (const fn of ["writeBuffer", "readBuffer", "readBufferSync"] as const)
    if (config[fn] !== undefined && typeof config[fn] !== "function")
      throw new DeviceError(
        `register_device(): '${name}'.${fn} must be a function when given`,
      );
  for (const op of config.ops ?? [])
    if (!ELEMENTWISE.has(op) && op !== "matmul")
      throw new DeviceError(
        `register_device(): '${name}' lists op '${op}', which devices cannot dispatch (elementwise ops and matmul can)`,
      );
  devices.set(name, { config, context: null, starting: null });
}

/** Removes a device (destroying its context); false if it was not registered. */
export function unregister_device(name: string): boolean {
  args("unregister_device", arguments);
  const d = devices.get(name);
  if (d === undefined) return false;
  d.context?.destroy();
  return devices.delete(name);
}

/** `"cpu"`, `"webgpu"` when available, then the registered devices. */
export function list_devices(): string[] {
  args("list_devices", arguments);
  return [
    "cpu",
    ...(core.webgpu_available() ? ["webgpu"] : []),
    ...devices.keys(),
  ];
}

/** Whether `name` is a usable device (webgpu only when available). */
export function has_device(name: string): boolean {
  args("has_device", arguments);
  return list_devices().includes(name);
}

/** The registered config of a custom device; a `DeviceError` for another name. */
export function get_device_config(name: string): DeviceConfig {
  args("get_device_config", arguments);
  const d = devices.get(name);
  if (d === undefined)
    throw new DeviceError(`device '${name}' is not a registered device`);
  return d.config;
}

/** The context `initialize()` gave a custom device, or `null` before `initialize_device(name)`. */
export function get_device_context(name: string): DeviceContext | null {
  args("get_device_context", arguments);
  const d = devices.get(name);
  if (d === undefined)
    throw new DeviceError(`device '${name}' is not a registered device`);
  return d.context;
}

/**
 * Initializes a custom device (`config.initialize()`, once: nothing more when its first use
 * already did) or, for `"webgpu"` / no name, creates a new WebGPU device (after a loss); resolves
 * to the device's name.
 */
export function initialize_device(name?: string): Promise<string> {
  // Parsed before the Promise: a wrong argument throws at the call.
  return initializeDevice(
    args("initialize_device", arguments).name ?? undefined,
  );
}

async function initializeDevice(name?: string): Promise<string> {
  if (name === undefined || name === "webgpu") return core.initialize_device();
  const d = devices.get(name);
  if (d === undefined)
    throw new DeviceError(`device '${name}' is not a registered device`);
  if (d.context === null) await start(name, d);
  return name;
}

/** Starts `initialize()` once (first use); resolves when the device is ready. */
function start(name: string, d: Registered): Promise<DeviceContext> {
  if (d.starting === null) {
    // The executor runs now: `initialize` is called by the use itself, and a throw becomes a
    // rejection.
    const starting = new Promise<DeviceContext>((resolve) =>
      resolve(d.config.initialize()),
    ).then((ctx) => {
      if (!ctx?.ready)
        throw new DeviceError(`device '${name}' did not become ready`);
      d.context = ctx;
      return ctx;
    });
    d.starting = starting;
    // A failed initialize is tried again by the next use (and is never an unhandled rejection:
    // the use that waits for it reports it).
    starting.catch(() => {
      if (d.starting === starting) d.starting = null;
    });
  }
  return d.starting;
}

/** Whether a WebGPU device exists. */
export function is_webgpu_available(): boolean {
  args("is_webgpu_available", arguments);
  return core.webgpu_available();
}

/** Whether webtorch runs on the CPU backend only (no WebGPU device). */
export function is_cpu_only_mode(): boolean {
  args("is_cpu_only_mode", arguments);
  return !core.webgpu_available();
}

function registered(name: string): Registered {
  const d = devices.get(name);
  if (d === undefined)
    throw new DeviceError(
      `Expected one of cpu, webgpu or a registered device at start of device string: ${name}`,
    );
  return d;
}

/** The config of a ready device; a synchronous first use starts `initialize()` and raises. */
function ready(name: string): DeviceConfig {
  const d = registered(name);
  if (d.context === null) {
    void start(name, d);
    throw new DeviceError(
      `device '${name}' is not initialized: await torch.initialize_device('${name}') (its initialize() has been started, but a synchronous call cannot wait for it)`,
    );
  }
  return d.config;
}

/** The config of a device, waiting for `initialize()` when this is its first use. */
export async function readyAsync(name: string): Promise<DeviceConfig> {
  const d = registered(name);
  if (d.context === null) await start(name, d);
  return d.config;
}

/** A new buffer of `bytes` on the device, within its `maxBufferSize` (validation). */
function createChecked(config: DeviceConfig, bytes: number): DeviceBuffer {
  const max = config.capabilities.maxBufferSize;
  if (bytes > max)
    throw new DeviceError(
      `device '${config.name}': a buffer of ${bytes} bytes is larger than its maxBufferSize (${max} bytes)`,
    );
  return config.createBuffer(Math.max(4, bytes), [
    "storage",
    "copy-src",
    "copy-dst",
  ]);
}

/** The device's writeBuffer; a `DeviceError` for a device without one. */
function writer(
  config: DeviceConfig,
): NonNullable<DeviceConfig["writeBuffer"]> {
  if (typeof config.writeBuffer !== "function")
    throw new DeviceError(
      `device '${config.name}' has no writeBuffer(): host data cannot be copied onto it`,
    );
  return config.writeBuffer.bind(config);
}

const ARRAYS = {
  float32: Float32Array,
  int32: Int32Array,
  int64: Int32Array,
  uint8: Uint8Array,
  bool: Uint8Array,
  float16: Float32Array,
  bfloat16: Float32Array,
  float64: Float64Array,
} as const satisfies Record<DType, unknown>;

/** A tensor on a custom device: a device buffer, shape and dtype. */
export class DeviceTensor {
  /** The size of each dim. */
  readonly shape: readonly number[];
  /** The element type (values are stored as a read gives them: 4 bytes for float32/int32/int64, 1 for uint8/bool). */
  readonly dtype: DType;
  /** The device's name. */
  readonly device: string;
  /** Whether gradients flow to this tensor ({@link DeviceTensor.backward}). */
  requires_grad = false;
  /** The gradient a backward accumulated (a tensor on this device), or null. */
  grad: DeviceTensor | null = null;
  /** @internal The op that made it, when an operand requires grad. */
  _node: { name: string; args: unknown[]; self: DeviceTensor } | null = null;
  #buffer: DeviceBuffer | null;

  /** @internal Takes ownership of `buffer`. */
  constructor(
    buffer: DeviceBuffer,
    shape: readonly number[],
    dtype: DType,
    device: string,
  ) {
    this.#buffer = buffer;
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.device = device;
  }

  /** The device buffer; throws once disposed. */
  get buffer(): DeviceBuffer {
    if (this.#buffer === null)
      throw new TorchError("DeviceTensor has been disposed");
    return this.#buffer;
  }

  /** The number of elements. */
  numel(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** The values (waits for the device: `sync`, then a read). */
  async toArray(): Promise<TypedArray> {
    const config = await readyAsync(this.device);
    await config.sync();
    const bytes = this.numel() * ARRAYS[this.dtype].BYTES_PER_ELEMENT;
    const data = config.readBuffer
      ? await config.readBuffer(this.buffer, bytes, 0)
      : readSync(config, this.buffer, bytes);
    return new ARRAYS[this.dtype](data.slice(0, bytes));
  }

  /** A copy on `device` (synchronous: needs the device's `readBufferSync` when leaving it). */
  to(device: string): Tensor | DeviceTensor {
    if (device === this.device) return this.copy();
    const config = ready(this.device);
    const bytes = this.numel() * ARRAYS[this.dtype].BYTES_PER_ELEMENT;
    const values = new ARRAYS[this.dtype](readSync(config, this.buffer, bytes));
    return fromHost(values, this.shape, this.dtype, device);
  }

  /** Marks a leaf as requiring grad (PyTorch's `requires_grad_`). */
  requires_grad_(flag = true): this {
    if (this._node !== null && !flag)
      throw new TorchError(
        "you can only change requires_grad flags of leaf variables.",
      );
    if (flag && this.dtype !== "float32" && this.dtype !== "float16")
      throw new TorchError(
        "only Tensors of floating point and complex dtype can require gradients",
      );
    this.requires_grad = flag;
    return this;
  }

  /**
   * Computes the gradients of this tensor (a scalar, or with `gradient`) for the leaves that
   * require grad and accumulates them into their `.grad` on the device. The device runs the
   * forward ops; backward moves to the CPU backend: the recorded ops are replayed there from the
   * leaves' values (webtorch's autograd gives PyTorch's gradients) and each leaf's gradient is
   * copied back to the device.
   */
  backward(gradient?: DeviceTensor | Tensor): void {
    if (!this.requires_grad)
      throw new TorchError(
        "element 0 of tensors does not require grad and does not have a grad_fn",
      );
    const made = new Map<DeviceTensor, Tensor>();
    const leaves: [DeviceTensor, Tensor][] = [];
    const temps: Tensor[] = [];
    const cpu = (t: DeviceTensor): Tensor => {
      let c = made.get(t);
      if (c !== undefined) return c;
      if (t._node === null) {
        c = t.to("cpu") as Tensor;
        if (t.requires_grad) {
          c.requires_grad_();
          leaves.push([t, c]);
        }
      } else {
        const { name, args, self } = t._node;
        const cargs = args.map((a) => (a instanceof DeviceTensor ? cpu(a) : a));
        const s = cpu(self) as unknown as Record<string, unknown>;
        c = (s[name] as (...a: unknown[]) => Tensor).apply(s, cargs);
      }
      temps.push(c);
      made.set(t, c);
      return c;
    };
    const out = cpu(this);
    const g =
      gradient instanceof DeviceTensor
        ? (gradient.to("cpu") as Tensor)
        : gradient;
    out.backward(g);
    for (const [leaf, c] of leaves) {
      const gc = c.grad;
      if (gc === null) continue;
      const gd = toDevice(gc, leaf.device);
      if (leaf.grad === null) leaf.grad = gd;
      else {
        const sum = leaf.grad.add(gd);
        leaf.grad.dispose();
        gd.dispose();
        leaf.grad = sum;
      }
    }
    if (g instanceof Tensor && !(gradient instanceof Tensor)) g.dispose();
    for (const t of temps) t.dispose();
  }

  /** A copy on `device`, reading through `readBuffer` when there is no synchronous read. */
  async to_async(device: string): Promise<Tensor | DeviceTensor> {
    const values = await this.toArray();
    if (devices.has(device)) await readyAsync(device);
    return fromHost(values, this.shape, this.dtype, device);
  }

  /**
   * Runs op `name` (a Tensor method name) with this tensor first: on the device when it lists
   * the op, else through the CPU backend (inputs copied there, the result copied back).
   */
  op(name: string, ...args: unknown[]): DeviceTensor {
    const config = ready(this.device);
    const tensorArgs = args.filter((a) => a instanceof DeviceTensor);
    for (const t of tensorArgs)
      if (t.device !== this.device)
        throw new DeviceError(
          `Expected all tensors to be on the same device, but found at least two devices, ${this.device} and ${t.device}!`,
        );
    // Operation selection by the device's capabilities (see the module's notes).
    const onDevice =
      config.capabilities.compute &&
      config.ops?.includes(name) &&
      this.dtype === "float32" &&
      tensorArgs.every((t) => t.dtype === "float32") &&
      config.capabilities.supportedDTypes.includes("float32");
    if (onDevice) {
      const inputs = [this, ...tensorArgs];
      const shapes = inputs.map((t) => t.shape);
      const scalars = args.filter((a): a is number => typeof a === "number");
      const outShape = outputShape(name, shapes, scalars);
      if (outShape !== null) {
        const output = createChecked(
          config,
          outShape.reduce((a, b) => a * b, 1) * 4,
        );
        config.dispatch({
          op: name,
          inputs: inputs.map((t) => t.buffer),
          output,
          shapes,
          outShape,
          dtype: "float32",
          scalars,
        });
        return this.#record(
          new DeviceTensor(output, outShape, "float32", this.device),
          name,
          args,
        );
      }
    }
    // NOTE: the documented fallback: copy to the CPU backend, compute there, copy back.
    const cpuArgs = args.map((a) =>
      a instanceof DeviceTensor ? (a.to("cpu") as Tensor) : a,
    );
    const self = this.to("cpu") as Tensor;
    const method = (self as unknown as Record<string, unknown>)[name];
    if (typeof method !== "function")
      throw new TorchError(`Tensor has no op '${name}'`);
    const result = (method as (...a: unknown[]) => unknown).apply(
      self,
      cpuArgs,
    );
    if (!(result instanceof Tensor))
      throw new TorchError(`'${name}' did not return a tensor`);
    const back = toDevice(result, this.device);
    for (const t of [self, result, ...cpuArgs])
      if (t instanceof Tensor) t.dispose();
    return this.#record(back, name, args);
  }

  /** Marks `out` as made by `name` when an operand requires grad (and grad mode is on). */
  #record(out: DeviceTensor, name: string, args: unknown[]): DeviceTensor {
    const needs =
      core.is_grad_enabled() &&
      [this, ...args].some((a) => a instanceof DeviceTensor && a.requires_grad);
    if (needs) {
      out.requires_grad = true;
      out._node = { name, args, self: this };
    }
    return out;
  }

  /** A copy on the same device. */
  copy(): DeviceTensor {
    const config = ready(this.device);
    const bytes = this.numel() * ARRAYS[this.dtype].BYTES_PER_ELEMENT;
    const write = writer(config);
    const out = createChecked(config, bytes);
    write(out, new Uint8Array(readSync(config, this.buffer, bytes)));
    return new DeviceTensor(out, this.shape, this.dtype, this.device);
  }

  /** Releases the buffer (through the device's `destroyBuffer`, when it has one). */
  dispose(): void {
    if (this.#buffer === null) return;
    devices.get(this.device)?.config.destroyBuffer?.(this.#buffer);
    this.#buffer = null;
  }
}

// The Tensor methods of the elementwise ops, matmul and a few more, on DeviceTensor.
export interface DeviceTensor extends Record<
  (typeof UNARY_OPS)[number] | (typeof BINARY_OPS)[number],
  (...args: unknown[]) => DeviceTensor
> {
  /** `Tensor.matmul`: on the device when its `ops` list it, else on the CPU (the result put back). */
  matmul(other: DeviceTensor): DeviceTensor;
  /** `Tensor.sum`: on the device when its `ops` list it, else on the CPU (the result put back). */
  sum(...args: unknown[]): DeviceTensor;
  /** `Tensor.mean`: on the device when its `ops` list it, else on the CPU (the result put back). */
  mean(...args: unknown[]): DeviceTensor;
  /** `Tensor.reshape`: on the device when its `ops` list it, else on the CPU (the result put back). */
  reshape(...args: unknown[]): DeviceTensor;
}
for (const name of [
  ...UNARY_OPS,
  ...BINARY_OPS,
  "matmul",
  "sum",
  "mean",
  "reshape",
])
  Object.defineProperty(DeviceTensor.prototype, name, {
    value: function (this: DeviceTensor, ...args: unknown[]) {
      return this.op(name, ...args);
    },
    configurable: true,
    writable: true,
  });

function outputShape(
  name: string,
  shapes: readonly (readonly number[])[],
  scalars: readonly number[],
): number[] | null {
  if (name === "matmul") {
    const [a, b] = shapes;
    if (a?.length !== 2 || b?.length !== 2) return null; // the CPU handles the other ranks
    if (a[1] !== b[0])
      throw new TorchError(
        `mat1 and mat2 shapes cannot be multiplied (${a[0]}x${a[1]} and ${b[0]}x${b[1]})`,
      );
    return [a[0]!, b[1]!];
  }
  if (scalars.length > 0) return null; // scalar operands: the CPU path handles the promotion
  return shapes.length === 1
    ? [...shapes[0]!]
    : broadcast_shapes(...shapes.map((s) => [...s]));
}

function readSync(
  config: DeviceConfig,
  buffer: DeviceBuffer,
  bytes: number,
): ArrayBuffer {
  if (config.readBufferSync === undefined)
    throw new DeviceError(
      `device '${config.name}' has no synchronous read: use await t.to_async(device)`,
    );
  return config.readBufferSync(buffer, bytes, 0);
}

/** Host values as a tensor on `device` (a core device or a custom one). */
export function fromHost(
  values: TypedArray,
  shape: readonly number[],
  dtype: DType,
  device: string,
): Tensor | DeviceTensor {
  if (device === "cpu" || device === "webgpu") {
    if (device === "webgpu" && !core.webgpu_available())
      throw new DeviceError("webgpu device is not available");
    return fromValues(values, shape, dtype, device);
  }
  const config = ready(device);
  if (!config.capabilities.supportedDTypes.includes(dtype))
    throw new DeviceError(
      `device '${device}' does not support ${dtype} tensors (its supportedDTypes: ${config.capabilities.supportedDTypes.join(", ")})`,
    );
  const write = writer(config);
  const buffer = createChecked(config, values.byteLength);
  write(buffer, values);
  return new DeviceTensor(buffer, shape, dtype, device);
}

/** A core tensor copied to custom device `device` (synchronous for CPU tensors). */
export function toDevice(t: Tensor, device: string): DeviceTensor {
  if (t.device !== "cpu")
    throw new DeviceError(
      `moving a ${t.device} tensor to '${device}' needs an asynchronous read: use await t.to_async('${device}')`,
    );
  return fromHost(
    core.read_cpu(t._raw) as TypedArray,
    t.shape,
    t.dtype,
    device,
  ) as DeviceTensor;
}
