/**
 * Op registries (docs/extending.md): TS-level functions and methods, user WGSL kernels with a
 * shape rule and a dtype rule (and a JS fallback for the CPU backend), forward compositions and
 * backward rules that make custom ops differentiable, and the queries `list_ops`, `has_kernel`,
 * `get_op_info`, `coverage_report`.
 *
 * A registered op is called as `torch.ops.<name>(...)` (PyTorch keeps custom ops in `torch.ops`
 * too: an ES module namespace cannot grow), and as a Tensor method when registered as one.
 *
 * @module
 */

import { core } from "../runtime.js";
import { DeviceError, DTypeError, TorchError } from "../errors.js";
import { type DType, dtypeCode, isFloatingPoint } from "../dtype.js";
import { Tensor, type TypedArray, wrap } from "../tensor/tensor.js";
import { _untraceable } from "../compile/trace.js";
import { args } from "../schema/index.js";
import {
  Function,
  type FunctionCtx,
  type FunctionGrads,
} from "../autograd/function.js";

/** What a WGSL kernel's shape rule sees: the input shapes and the scalar arguments. */
export type ShapeRule = (
  shapes: readonly (readonly number[])[],
  scalars: readonly number[],
) => readonly number[];

/** What a kernel's dtype rule sees: the input dtypes. */
export type DTypeRule = (dtypes: readonly DType[]) => DType;

/**
 * A JS kernel for the CPU backend: fills `out` (row-major, of the shape rule's shape) from the
 * inputs' values (row-major, contiguous).
 */
export type CPUKernel = (
  inputs: readonly TypedArray[],
  out: TypedArray,
  info: {
    shapes: readonly (readonly number[])[];
    outShape: readonly number[];
    scalars: readonly number[];
  },
) => void;

/**
 * A kernel for {@link register_kernel}. The WGSL source binds (group 0):
 *
 * ```wgsl
 * struct Meta { numel: u32, r0: u32, r1: u32, r2: u32, scalars: array<vec4<f32>, 2> }
 * @group(0) @binding(0) var<uniform> meta: Meta;
 * @group(0) @binding(1) var<storage, read_write> out: array<f32>;
 * @group(0) @binding(2) var<storage, read> x: array<f32>;   // input 0, then 3, 4, …
 * ```
 *
 * and has an entry point `main`; it runs `ceil(numel / workgroup_size)` workgroups, laid out in 2-D
 * past 65 535 (`let i = gid.x + gid.y * nwg.x * WG;` with `@builtin(num_workgroups) nwg`). Inputs
 * are contiguous from element 0; int32/int64 are `i32` words, uint8/bool `u32` words.
 */
export interface KernelConfig {
  /** The op's name (`torch.ops[name]`); a registered function of that name is refused. */
  name: string;
  /** How many tensor inputs the op takes (scalars follow them). */
  inputs: number;
  /** WGSL for the webgpu device (see above). */
  wgsl?: string;
  /** Invocations per workgroup that `wgsl` declares. Default 256. */
  workgroup_size?: number;
  /** A JS kernel for the cpu device. */
  cpu?: CPUKernel;
  /** The output shape. Default: the first input's shape. */
  shape?: ShapeRule;
  /** The output dtype. Default: the first input's dtype. */
  dtype?: DTypeRule;
}

/** What a backward rule of {@link register_backward} sees besides the output gradient. */
export interface BackwardContext {
  /** The op's tensor inputs (saved at forward time). */
  inputs: readonly Tensor[];
  /** The op's output. */
  output: Tensor;
  /** The scalar arguments. */
  scalars: readonly number[];
}

/**
 * A backward rule: the gradient of each tensor input (or `null`) from the output's gradient,
 * written with torch ops (custom ones included).
 */
export type BackwardFn = (
  grad: Tensor,
  ctx: BackwardContext,
) => Tensor | null | readonly (Tensor | null)[];

/** A forward written with torch ops: used on devices without a kernel for the op. */
export type ForwardFn = (...args: (Tensor | number)[]) => Tensor;

/** What {@link get_op_info} says about an op. */
export interface OpInfo {
  name: string;
  /** `builtin` (the core's op table), `function`, `method` or `kernel`. */
  kind: "builtin" | "function" | "method" | "kernel";
  /** Devices with a kernel (a forward composition runs anywhere and is not listed). */
  kernels: string[];
  /** Whether a registered forward composition exists. */
  forward: boolean;
  /** Whether a registered backward rule exists (builtins: differentiated by the core). */
  backward: boolean;
  /** Tensor inputs of a kernel op; `null` when not fixed. */
  inputs: number | null;
}

/** The ops by device, as {@link coverage_report} tallies them. */
export interface CoverageReport {
  ops: { name: string; kind: OpInfo["kind"]; devices: string[] }[];
  /** Ops with a kernel (or composition) per device. */
  by_device: Record<string, number>;
  total: number;
}

interface Entry {
  kind: "function" | "method" | "kernel";
  fn?: (...args: never[]) => unknown;
  config?: KernelConfig;
  forward?: ForwardFn;
  backward?: BackwardFn;
  /** The autograd.Function subclass that runs this op when a backward exists. */
  autograd?: typeof Function;
}

const registry = new Map<string, Entry>();

/**
 * Custom ops by name: `torch.ops.my_op(x)`. Functions from {@link register_function} and ops
 * from {@link register_kernel} / {@link register_forward} land here.
 */
export const ops: Record<string, (...args: never[]) => unknown> = {};

function checkName(fn: string, name: unknown): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new TorchError(
      `${fn}(): op name must be an identifier, got ${String(name)}`,
    );
  return name;
}

function taken(name: string): boolean {
  return registry.has(name) || core.op_id(name) >= 0;
}

/**
 * Adds a TS-level function to `torch.ops`: `register_function("hardtanh2", (x) => x.clamp(-2,
 * 2))`. Throws if an op of that name exists.
 */
export function register_function<F extends (...args: never[]) => unknown>(
  name: string,
  fn: F,
): F {
  args("register_function", arguments);
  checkName("register_function", name);
  if (taken(name))
    throw new TorchError(`register_function(): op '${name}' already exists`);
  registry.set(name, { kind: "function", fn });
  ops[name] = fn;
  return fn;
}

/**
 * Adds a Tensor method: `register_method("double", (t) => t.mul(2))` makes `t.double()`. Throws
 * if Tensor already has a member of that name. (TS users declare it with module augmentation.)
 */
export function register_method<A extends unknown[], R>(
  name: string,
  fn: (self: Tensor, ...args: A) => R,
): void {
  args("register_method", arguments);
  checkName("register_method", name);
  if (name in Tensor.prototype || registry.get(name)?.kind === "method")
    throw new TorchError(`register_method(): Tensor.${name} already exists`);
  Object.defineProperty(Tensor.prototype, name, {
    value: function (this: Tensor, ...args: A): R {
      return fn(this, ...args);
    },
    configurable: true,
    writable: true,
  });
  const entry = registry.get(name);
  if (entry === undefined)
    registry.set(name, {
      kind: "method",
      fn: fn as (...args: never[]) => unknown,
    });
}

/**
 * Registers a custom kernel op: WGSL for the webgpu device (compiled and validated now; a
 * compile error rejects with the compiler's messages) and/or a JS kernel for the cpu device.
 * Resolves to the op, also `torch.ops[name]`: `op(...tensors, ...scalars)`.
 */
export function register_kernel(
  config: KernelConfig,
): Promise<(...args: (Tensor | number)[]) => Tensor> {
  // Parsed before the Promise: a wrong argument throws at the call.
  args("register_kernel", arguments);
  return registerKernel(config);
}

async function registerKernel(
  config: KernelConfig,
): Promise<(...args: (Tensor | number)[]) => Tensor> {
  const name = checkName("register_kernel", config?.name);
  const prior = registry.get(name);
  if (
    (prior !== undefined && prior.kind !== "kernel") ||
    (prior === undefined && core.op_id(name) >= 0)
  )
    throw new TorchError(`register_kernel(): op '${name}' already exists`);
  if (!Number.isInteger(config.inputs) || config.inputs < 0)
    throw new TorchError(
      `register_kernel(): inputs must be a non-negative integer`,
    );
  if (config.wgsl === undefined && config.cpu === undefined)
    throw new TorchError(
      `register_kernel(): '${name}' needs a wgsl source or a cpu kernel`,
    );
  if (config.wgsl !== undefined) {
    if (!core.webgpu_available())
      throw new DeviceError(
        `register_kernel(): '${name}' has WGSL but the webgpu device is not available; give a cpu kernel only`,
      );
    await core.compile_kernel(name, config.wgsl, config.inputs);
  }
  const entry: Entry = prior ?? { kind: "kernel" };
  entry.config = { ...config };
  registry.set(name, entry);
  return install(name, entry);
}

/**
 * Registers (or replaces) the forward of op `name` written with torch ops; it runs where the op
 * has no kernel for the inputs' device, and is differentiated through its ops unless a backward
 * rule exists.
 */
export function register_forward(
  name: string,
  forward: ForwardFn,
): (...args: (Tensor | number)[]) => Tensor {
  args("register_forward", arguments);
  checkName("register_forward", name);
  let entry = registry.get(name);
  if (entry !== undefined && entry.kind !== "kernel")
    throw new TorchError(
      `register_forward(): '${name}' is a registered ${entry.kind}`,
    );
  if (entry === undefined && core.op_id(name) >= 0)
    throw new TorchError(`register_forward(): op '${name}' already exists`);
  entry ??= { kind: "kernel" };
  entry.forward = forward;
  registry.set(name, entry);
  return install(name, entry);
}

/**
 * Registers the backward rule of custom op `name` (a kernel or forward op): the op then records
 * an autograd node when an input requires grad (as a `torch.autograd.Function` does).
 */
export function register_backward(name: string, backward: BackwardFn): void {
  args("register_backward", arguments);
  const entry = registry.get(name);
  if (entry === undefined || entry.kind !== "kernel")
    throw new TorchError(
      `register_backward(): no custom op '${name}' (register_kernel or register_forward first)`,
    );
  entry.backward = backward;
  entry.autograd = autogradFor(name, entry);
}

/** The op function of a kernel entry (installed in `torch.ops`). */
function install(
  name: string,
  entry: Entry,
): (...args: (Tensor | number)[]) => Tensor {
  const op = (...args: (Tensor | number)[]): Tensor => {
    const tensors: Tensor[] = [];
    const scalars: number[] = [];
    for (const a of args) {
      if (a instanceof Tensor) {
        if (scalars.length > 0)
          throw new TorchError(
            `${name}(): tensor arguments must come before scalars`,
          );
        tensors.push(a);
      } else if (typeof a === "number") scalars.push(a);
      else
        throw new TorchError(
          `${name}(): arguments must be Tensors or numbers, not ${a === null ? "null" : typeof a}`,
        );
    }
    if (entry.autograd !== undefined)
      return (entry.autograd.apply as (...a: unknown[]) => Tensor).call(
        entry.autograd,
        ...tensors,
        ...scalars,
      );
    return runForward(name, entry, tensors, scalars);
  };
  entry.fn = op as (...args: never[]) => unknown;
  ops[name] = op as (...args: never[]) => unknown;
  return op;
}

/** The op's value: its kernel for the inputs' device, else its forward composition. */
function runForward(
  name: string,
  entry: Entry,
  tensors: readonly Tensor[],
  scalars: readonly number[],
): Tensor {
  const config = entry.config;
  const device = tensors[0]?.device ?? "cpu";
  for (const t of tensors)
    if (t.device !== device)
      throw new DeviceError(
        `Expected all tensors to be on the same device, but found at least two devices, ${device} and ${t.device}!`,
      );
  if (config !== undefined) {
    if (tensors.length !== config.inputs)
      throw new TorchError(
        `${name}() takes ${config.inputs} tensor inputs but ${tensors.length} were given`,
      );
    const shapes = tensors.map((t) => t.shape);
    const outShape = [...(config.shape?.(shapes, scalars) ?? shapes[0] ?? [])];
    const outDtype: DType =
      config.dtype?.(tensors.map((t) => t.dtype)) ??
      tensors[0]?.dtype ??
      "float32";
    dtypeCode(outDtype); // a DTypeError for a bad rule result
    if (device === "webgpu" && config.wgsl !== undefined) {
      return wrap(
        core.run_kernel(
          name,
          tensors.map((t) => t._raw.handle()),
          Int32Array.from(outShape),
          dtypeCode(outDtype),
          Float32Array.from(scalars),
          config.workgroup_size ?? 256,
        ),
      );
    }
    if (device === "cpu" && config.cpu !== undefined)
      return runCpu(config.cpu, tensors, outShape, outDtype, scalars);
  }
  if (entry.forward !== undefined) return entry.forward(...tensors, ...scalars);
  throw new DeviceError(
    `Could not run '${name}' with arguments from the '${device}' backend: it has no kernel there and no registered forward`,
  );
}

/** Runs a JS kernel on CPU tensors' values; the result is a new CPU tensor. */
function runCpu(
  kernel: CPUKernel,
  tensors: readonly Tensor[],
  outShape: readonly number[],
  dtype: DType,
  scalars: readonly number[],
): Tensor {
  _untraceable("a JS kernel reads tensor data");
  const values = tensors.map((t) => core.read_cpu(t._raw) as TypedArray);
  const n = outShape.reduce((a, b) => a * b, 1);
  const out = isFloatingPoint(dtype)
    ? new Float32Array(n)
    : dtype === "int32" || dtype === "int64"
      ? new Int32Array(n)
      : new Uint8Array(n);
  kernel(values, out, {
    shapes: tensors.map((t) => t.shape),
    outShape,
    scalars,
  });
  return fromValues(out, outShape, dtype, "cpu");
}

/** @internal A tensor on a core device (`"cpu"`/`"webgpu"`) holding `values`. */
export function fromValues(
  values: TypedArray,
  shape: readonly number[],
  dtype: DType,
  device: "cpu" | "webgpu",
): Tensor {
  const dev = device === "cpu" ? 0 : 1;
  if (dtype === "float32" && values instanceof Float32Array)
    return wrap(core.RawTensor.from_f32(values, Int32Array.from(shape), dev));
  if (dtype === "float32" && !(values instanceof Float32Array))
    throw new DTypeError(`float32 values must come as a Float32Array`);
  return wrap(
    core.RawTensor.from_f64(
      Float64Array.from(values),
      Int32Array.from(shape),
      dtypeCode(dtype),
      dev,
    ),
  );
}

/**
 * The autograd.Function subclass that runs op `name` and applies its backward rule; `apply`
 * takes the tensors, then the scalars (which get no gradient).
 */
function autogradFor(name: string, entry: Entry): typeof Function {
  class CustomOp extends Function {
    static override forward(ctx: FunctionCtx, ...args: unknown[]): Tensor {
      const tensors = args.filter((a): a is Tensor => a instanceof Tensor);
      const scalars = args.filter((a): a is number => typeof a === "number");
      const out = runForward(name, entry, tensors, scalars);
      ctx.save_for_backward(...tensors, out);
      ctx.scalars = scalars;
      return out;
    }
    static override backward(ctx: FunctionCtx, grad: Tensor): FunctionGrads {
      const saved = ctx.saved_tensors as Tensor[];
      const inputs = saved.slice(0, -1);
      const scalars = ctx.scalars as number[];
      const r = entry.backward!(grad, {
        inputs,
        output: saved.at(-1)!,
        scalars,
      });
      const grads = r instanceof Tensor || r === null ? [r] : [...r];
      if (grads.length !== inputs.length)
        throw new TorchError(
          `backward of '${name}' returned ${grads.length} gradients for ${inputs.length} inputs`,
        );
      return [...grads, ...scalars.map(() => null)];
    }
  }
  Object.defineProperty(CustomOp, "name", { value: name });
  return CustomOp;
}

/** Every op name: the core's op table and the registered ops (sorted). */
export function list_ops(): string[] {
  args("list_ops", arguments);
  return [...new Set([...core.op_names(), ...registry.keys()])].sort();
}

/** The registered TS-level functions. */
export function list_functions(): string[] {
  args("list_functions", arguments);
  return [...registry].filter(([, e]) => e.kind === "function").map(([n]) => n);
}

/** The registered Tensor methods. */
export function list_methods(): string[] {
  args("list_methods", arguments);
  return [...registry].filter(([, e]) => e.kind === "method").map(([n]) => n);
}

/** The registered kernel ops. */
export function list_kernels(): string[] {
  args("list_kernels", arguments);
  return [...registry].filter(([, e]) => e.kind === "kernel").map(([n]) => n);
}

function kernelDevices(name: string): string[] {
  if (typeof name !== "string")
    throw new TorchError(
      `expected an op name (a string), got ${typeof name === "object" ? String(name) : typeof name}`,
    );
  const entry = registry.get(name);
  if (entry === undefined)
    return core.op_id(name) >= 0
      ? core.webgpu_available()
        ? ["cpu", "webgpu"]
        : ["cpu"]
      : [];
  const out: string[] = [];
  if (entry.config?.cpu !== undefined) out.push("cpu");
  if (entry.config?.wgsl !== undefined) out.push("webgpu");
  return out;
}

/** Whether op `name` has a kernel (on `device`, when given). */
export function has_kernel(name: string, device?: string): boolean {
  device = args("has_kernel", arguments).device ?? undefined;
  const devices = kernelDevices(name);
  return device === undefined ? devices.length > 0 : devices.includes(device);
}

/**
 * Whether op `name` has autograd: what {@link get_op_info} reports as `backward` (built-in ops are
 * differentiated by the core; a custom op once {@link register_backward} gave it a rule); false
 * for a name that is no op.
 */
export function has_autograd(name: string): boolean {
  const a = args("has_autograd", arguments);
  if (!registry.has(a.name) && core.op_id(a.name) < 0) return false;
  return get_op_info(a.name).backward;
}

/** What is registered for op `name`; throws for an unknown op. */
export function get_op_info(name: string): OpInfo {
  args("get_op_info", arguments);
  const entry = registry.get(name);
  if (entry === undefined) {
    const id = core.op_id(name);
    if (id < 0) throw new TorchError(`unknown op '${name}'`);
    return {
      name,
      kind: "builtin",
      kernels: kernelDevices(name),
      forward: false,
      backward: true,
      inputs: core.op_arity(id),
    };
  }
  return {
    name,
    kind: entry.kind,
    kernels: kernelDevices(name),
    forward: entry.forward !== undefined,
    backward: entry.backward !== undefined,
    inputs: entry.config?.inputs ?? null,
  };
}

/**
 * Which ops run where: every op of {@link list_ops} with its devices (a forward composition
 * counts for every device), and per-device totals.
 */
export function coverage_report(devices?: readonly string[]): CoverageReport {
  devices = args("coverage_report", arguments).devices ?? undefined;
  const ops = list_ops().map((name) => {
    const entry = registry.get(name);
    const kind: OpInfo["kind"] = entry?.kind ?? "builtin";
    let devs = kernelDevices(name);
    if (
      entry?.forward !== undefined ||
      kind === "function" ||
      kind === "method"
    )
      devs = devices !== undefined ? [...devices] : ["*"];
    return { name, kind, devices: devs };
  });
  const by_device: Record<string, number> = {};
  for (const op of ops)
    for (const d of op.devices) by_device[d] = (by_device[d] ?? 0) + 1;
  return { ops, by_device, total: ops.length };
}
