/**
 * Loading the wasm core and choosing the device.
 *
 * The entry module awaits {@link init} at the top level, so `import * as torch from "webtorch"`
 * resolves only once the core is loaded and a device is chosen: WebGPU when an adapter exists,
 * else the CPU backend (logged once). In the browser the `.wasm` is fetched next to this module
 * (bundlers see the `new URL(…, import.meta.url)` and emit it as an asset); in Node it is read with
 * `fs`, and WebGPU comes from the optional `webgpu` package (Dawn) when it is installed. The
 * `require("webtorch")` entry cannot wait: {@link initNodeSync} loads the core synchronously.
 *
 * @module
 */

import initWasm, * as rawCore from "./wasm/webtorch_core.js";
import { initSync as initWasmSync } from "./wasm/webtorch_core.js";
import {
  DeviceError,
  ERROR_CLASSES,
  InternalError,
  OutOfMemoryError,
  TorchError,
} from "./errors.js";
import { type Device, deviceFromCode } from "./dtype.js";
import { note, warnOnce } from "./warnings.js";
import { args } from "./schema/index.js";

/**
 * The core's exports, every call guarded. A call that leaves the core by anything but a returned
 * `TorchError` — a trap (a Rust panic, or an allocation the wasm heap refused: a
 * `WebAssembly.RuntimeError`), a stack overflow, an exception thrown through the core — ran no
 * destructor on its way out: the error becomes an `OutOfMemoryError` or an `InternalError`
 * naming the core function, and once the outermost call into the core has ended the guard puts
 * the shadow-stack pointer back where that call found it and calls `recover()`, which releases
 * the borrows the unwound frames held. The classes' methods are guarded in place, so every
 * holder of a `RawTensor` goes through the guard.
 */
export const core: typeof rawCore = guardCore(
  rawCore,
  // Loading and recovery themselves are not guarded.
  new Set(["default", "initSync", "recover", "trap_info"]),
);

function guardCore(m: typeof rawCore, unguarded: Set<string>): typeof rawCore {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(m)) {
    if (typeof value !== "function" || unguarded.has(name)) {
      out[name] = value;
    } else if (Function.prototype.toString.call(value).startsWith("class")) {
      guardClass(value as unknown as GuardedClass);
      out[name] = value;
    } else {
      out[name] = guarded(value as (...a: unknown[]) => unknown, name);
    }
  }
  return out as typeof rawCore;
}

type GuardedClass = Record<string, unknown> & {
  name: string;
  prototype: Record<string, unknown>;
};

function guardClass(cls: GuardedClass): void {
  for (const target of [cls.prototype, cls]) {
    for (const key of Object.getOwnPropertyNames(target)) {
      const d = Object.getOwnPropertyDescriptor(target, key)!;
      if (key === "constructor" || key === "prototype" || key.startsWith("__"))
        continue;
      const name = `${cls.name}.${key}`;
      if (typeof d.value === "function") {
        d.value = guarded(d.value as (...a: unknown[]) => unknown, name);
      } else if (d.get !== undefined || d.set !== undefined) {
        if (d.get) d.get = guarded(d.get, name);
        if (d.set) d.set = guarded(d.set, name);
      } else {
        continue;
      }
      Object.defineProperty(target, key, d);
    }
  }
}

/** Nesting of guarded calls (a gradient hook calls the core from inside `backward`). */
let depth = 0;
/** A call unwound out of the core: recover when the outermost call ends. */
let unwound = false;
/** The core's shadow-stack pointer, and its value when the outermost call began. */
let stackPointer: WebAssembly.Global | null = null;
let stackAtEntry = 0;

function enter(): void {
  if (depth++ === 0 && stackPointer !== null)
    stackAtEntry = stackPointer.value as number;
}

function leave(): void {
  if (--depth === 0 && unwound) {
    // No frame of the core is running now: what the unwound frames held can be released.
    unwound = false;
    if (stackPointer !== null) stackPointer.value = stackAtEntry;
    rawCore.recover();
  }
}

function guarded<F extends (...a: never[]) => unknown>(f: F, name: string): F {
  // NOTE: fixed arities for the common cases: a rest parameter allocates an array per call,
  // and these wrap every op's call into the core.
  const fail = (e: unknown): never => {
    throw e instanceof TorchError ? e : unwoundError(e, name);
  };
  const g = f as unknown as (this: unknown, ...a: unknown[]) => unknown;
  let w: (this: unknown, ...a: unknown[]) => unknown;
  switch (f.length) {
    case 0:
      w = function (this: unknown) {
        enter();
        try {
          return g.call(this);
        } catch (e) {
          return fail(e);
        } finally {
          leave();
        }
      };
      break;
    case 1:
      w = function (this: unknown, a: unknown) {
        enter();
        try {
          return g.call(this, a);
        } catch (e) {
          return fail(e);
        } finally {
          leave();
        }
      };
      break;
    case 2:
      w = function (this: unknown, a: unknown, b: unknown) {
        enter();
        try {
          return g.call(this, a, b);
        } catch (e) {
          return fail(e);
        } finally {
          leave();
        }
      };
      break;
    default:
      w = function (this: unknown, ...a: unknown[]) {
        enter();
        try {
          return g.apply(this, a);
        } catch (e) {
          return fail(e);
        } finally {
          leave();
        }
      };
  }
  Object.defineProperty(w, "name", { value: f.name });
  return w as unknown as F;
}

/**
 * What an exception that left core function `name` without a `TorchError` becomes (the core
 * recovers when the outermost call ends).
 */
function unwoundError(e: unknown, name: string): TorchError {
  unwound = true;
  if (e instanceof WebAssembly.RuntimeError) return fromTrap(e, name);
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError && /call stack/i.test(message))
    return new InternalError(
      `webtorch INTERNAL ASSERT FAILED in ${name}: stack overflow. Please report a bug to webtorch; the engine recovered and keeps working.`,
      { cause: e },
    );
  if (/recursive use of an object|while it was borrowed/.test(message))
    return new TorchError(
      `${name}: a tensor argument is in use by this same call (an in-place op given its own tensor) or by a call that failed inside the core earlier (then clone() it to keep using its values)`,
      { cause: e },
    );
  return new InternalError(
    `webtorch INTERNAL ASSERT FAILED in ${name}: ${message}. Please report a bug to webtorch; the engine recovered and keeps working.`,
    { cause: e },
  );
}

/** The error a trap in core function `name` becomes. */
function fromTrap(trap: WebAssembly.RuntimeError, name: string): TorchError {
  const info = rawCore.trap_info() as {
    panic: string | null;
    failed_alloc: number;
  };
  const recovered = "the engine recovered and keeps working";
  if (info.failed_alloc > 0) {
    return new OutOfMemoryError(
      `webtorch core out of memory in ${name}: tried to allocate ${info.failed_alloc} bytes, which the wasm heap (at most 4 GiB) could not provide; ${recovered}`,
      { cause: trap },
    );
  }
  if (info.panic !== null && info.panic.startsWith("capacity overflow")) {
    return new OutOfMemoryError(
      `webtorch core out of memory in ${name}: tried to allocate more bytes than the wasm heap can address (2 GiB in one block, 4 GiB in all); ${recovered}`,
      { cause: trap },
    );
  }
  return new InternalError(
    `webtorch INTERNAL ASSERT FAILED in ${name}: ${info.panic ?? `wasm trap (${trap.message})`}. Please report a bug to webtorch; ${recovered}.`,
    { cause: trap },
  );
}

/** What {@link init} may ask for: the best device there is (`"auto"`), or one in particular. */
export type DeviceRequest = "auto" | Device;

/** Options of {@link init}. */
export interface InitOptions {
  /** `"auto"` (default): WebGPU when an adapter exists, else the CPU; `"cpu"` forces the CPU. */
  device?: DeviceRequest;
}

let loading: Promise<void> | null = null;
let defaultDevice: Device | null = null;
/** `torch.set_default_device`'s choice, until the next `init` (null: the device init chose). */
let chosenDevice: Device | null = null;
let announced: Device | null = null;

/**
 * Loads the wasm core (once) and (re)selects the default device; resolves to its name.
 *
 * The package calls this on import, so it is needed only to switch: `await torch.init({ device:
 * "cpu" })` moves new tensors to the CPU backend; `"auto"` goes back to WebGPU when it exists.
 * Tensors made before keep their device.
 */
export function init(options?: InitOptions): Promise<Device> {
  // Parsed before the Promise: a wrong argument throws at the call.
  const device = args("init", arguments).device;
  return initDevice(device === null ? {} : { device: device as DeviceRequest });
}

async function initDevice(options: InitOptions): Promise<Device> {
  loading ??= loadCore().catch((err: unknown) => {
    loading = null; // let a later call retry
    throw err;
  });
  await loading;
  if (wasmUrl().protocol === "file:") await (nodeGpu ??= installNodeWebGPU());
  const requested = options.device ?? "auto";
  if (!["auto", "webgpu", "cpu"].includes(requested)) {
    throw new DeviceError(
      `Expected one of cpu, webgpu, auto device type at start of device string: ${String(requested)}`,
    );
  }
  // NOTE: with no `navigator.gpu` at all (Node without the `webgpu` package, old browsers) wgpu
  // panics while creating its instance, which would abort the wasm module: ask the core for the
  // CPU backend instead, as "auto" means, or report the missing device.
  const noWebGPU =
    (globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu ===
    undefined;
  if (noWebGPU && requested === "webgpu") {
    throw new DeviceError(
      "WebGPU is not available here (no navigator.gpu; in Node, install the `webgpu` package)",
    );
  }
  const name = await core.init(noWebGPU ? "cpu" : requested);
  defaultDevice = deviceFromCode(core.default_device());
  chosenDevice = null;
  if (name !== defaultDevice) {
    throw new TorchError(
      `core init returned '${name}' but reports default device '${defaultDevice}'`,
    );
  }
  if (announced !== defaultDevice) {
    announced = defaultDevice;
    announce(requested, defaultDevice);
  }
  return defaultDevice;
}

/**
 * The device new tensors go to unless a `device` option says otherwise: the one
 * `torch.set_default_device` chose, else the one {@link init} chose.
 */
export function get_default_device(): Device {
  if (defaultDevice === null)
    throw new TorchError("webtorch is not initialised: await torch.init()");
  return chosenDevice ?? defaultDevice;
}

/** Makes `device` the default (`null`: back to the one {@link init} chose). */
export function setDefaultDevice(device: Device | null): void {
  if (device === "webgpu" && !core.webgpu_available())
    throw new DeviceError(
      "webgpu device is not available: no WebGPU adapter was found (tensors live on 'cpu')",
    );
  chosenDevice = device;
}

/**
 * What became of the `webgpu` package in Node (set by `installNodeWebGPU`; `"other"`: not tried,
 * or something else gave `navigator.gpu`).
 */
let nodeWebGPU: "missing" | "installed" | "other" | { failed: string } =
  "other";

/**
 * Says which device new tensors go to: a note on WebGPU or a requested CPU; a warning, once, when
 * "auto" found no WebGPU, saying why and how to get it. Both go through `torch.warnings` (keys
 * `"device.…"`), so a filter silences them.
 */
function announce(requested: DeviceRequest, device: Device): void {
  if (device === "webgpu") {
    const info = core.adapter_info() as {
      name?: string;
      description?: string;
    } | null;
    const what = info?.name || info?.description;
    note(
      "device.webgpu",
      `webtorch: running on WebGPU${what ? ` (${what})` : ""}`,
    );
    return;
  }
  if (requested === "cpu") {
    note("device.cpu", "webtorch: running on the CPU backend (requested)");
    return;
  }
  warnOnce(
    "device.cpu-fallback",
    `webtorch: running on the CPU backend: ${whyNoWebGPU()}`,
  );
}

/** Why "auto" found no WebGPU here, and what would give it. */
function whyNoWebGPU(): string {
  const gpu = (globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu;
  if (nodeWebGPU === "missing")
    return "Node has WebGPU only through the optional `webgpu` package; `npm install webgpu` to run on the GPU";
  if (typeof nodeWebGPU === "object")
    return `the \`webgpu\` package failed to load (${nodeWebGPU.failed})`;
  if (nodeWebGPU === "installed")
    return "the `webgpu` package (Dawn) found no usable GPU adapter: it needs a Vulkan, Metal or D3D12 driver (Dawn's driver messages above, if any, are from that probe)";
  if (gpu === undefined)
    return "no WebGPU here (no navigator.gpu: an older browser, or WebGPU disabled)";
  return "no WebGPU adapter found (navigator.gpu.requestAdapter() gave none)";
}

let memory: WebAssembly.Memory | null = null;
let metaAt = 0;
let metaWords = new Int32Array(0);

/**
 * The sizes `RawTensor.meta()` wrote to the core's scratch, as a frozen array of `ndim`
 * numbers: read from the module's memory, with no allocation on the core's side (the view is
 * made again when the memory grows, which detaches the old one).
 */
export function metaShape(ndim: number): readonly number[] {
  if (metaWords.buffer !== memory!.buffer)
    metaWords = new Int32Array(memory!.buffer, metaAt, 16);
  const shape = new Array<number>(ndim);
  for (let i = 0; i < ndim; i++) shape[i] = metaWords[i]!;
  return Object.freeze(shape);
}

/** Where the core's `.wasm` is: next to this module (bundlers emit it as an asset). */
const wasmUrl = () => new URL("./wasm/webtorch_core_bg.wasm", import.meta.url);

/** Node's `navigator.gpu` from the `webgpu` package, installed once (see {@link init}). */
let nodeGpu: Promise<void> | null = null;

async function loadCore(): Promise<void> {
  const url = wasmUrl();
  if (url.protocol === "file:") {
    // Node (and runtimes like it): no fetch of file: URLs, so read the bytes ourselves.
    const fs = (await importOptional("node:fs/promises")) as {
      readFile(path: URL): Promise<Uint8Array>;
    };
    coreLoaded(await initWasm({ module_or_path: await fs.readFile(url) }));
  } else {
    coreLoaded(await initWasm({ module_or_path: url }));
  }
}

/**
 * Loads the core synchronously in Node, for `require("webtorch")` (require.ts), which cannot
 * wait: the default device is the CPU backend until `await torch.init()` picks WebGPU.
 */
export function initNodeSync(): void {
  const proc = (
    globalThis as {
      process?: { getBuiltinModule?: (id: string) => unknown };
    }
  ).process;
  if (typeof proc?.getBuiltinModule !== "function")
    throw new TorchError(
      'require("webtorch") needs Node >= 20.19 or >= 22.12 (process.getBuiltinModule and require of ES modules); use import',
    );
  const fs = proc.getBuiltinModule("node:fs") as {
    readFileSync(path: URL): Uint8Array;
  };
  coreLoaded(initWasmSync({ module: fs.readFileSync(wasmUrl()) }));
  defaultDevice = deviceFromCode(core.default_device());
  // The core's own init (its panic hook) finishes before the first `await torch.init()` does.
  loading = core.init("cpu").then(() => {});
  note(
    "device.require",
    "webtorch: loaded by require(): running on the CPU backend until `await torch.init()` picks WebGPU",
  );
}

/** What loading the core leaves to do once its module is instantiated (both ways). */
function coreLoaded(exports: { memory: WebAssembly.Memory }): void {
  memory = exports.memory;
  const sp = (exports as unknown as Record<string, unknown>).__stack_pointer;
  if (sp instanceof WebAssembly.Global) stackPointer = sp;
  metaAt = core.meta_scratch();
  for (const [kind, ctor] of Object.entries(ERROR_CLASSES))
    core.register_error_class(kind, ctor);
  // The batch timer calls the core through the guard: a failure there is logged, never thrown
  // out of a timer callback (which would end a Node process).
  core.register_flush_timer((ms: number) =>
    setTimeout(() => {
      try {
        core.timer_flush();
      } catch (e) {
        console.error("webtorch: batch flush failed:", e);
      }
    }, ms),
  );
}

/**
 * Gives Node a `navigator.gpu` from the optional `webgpu` package (Dawn), if it is installed and
 * nothing else provides one. wgpu looks for `navigator.gpu` on a global that has a `Window`
 * constructor, so one is defined as well.
 */
async function installNodeWebGPU(): Promise<void> {
  const g = globalThis as Record<string, unknown> & {
    navigator?: { gpu?: unknown };
  };
  if (g.navigator?.gpu !== undefined) return;
  let webgpu: {
    create(flags: string[]): unknown;
    globals: Record<string, unknown>;
  };
  try {
    webgpu = (await importOptional("webgpu")) as typeof webgpu;
  } catch (e) {
    // Not installed (or unloadable): the CPU backend it is, and init() says why.
    const code = (e as { code?: string }).code;
    nodeWebGPU =
      code === "ERR_MODULE_NOT_FOUND"
        ? "missing"
        : { failed: e instanceof Error ? e.message : String(e) };
    return;
  }
  nodeWebGPU = "installed";
  for (const [key, value] of Object.entries(webgpu.globals)) {
    if (!(key in g)) g[key] = value;
  }
  const gpu = webgpu.create([]);
  if (g.navigator === undefined) {
    Object.defineProperty(g, "navigator", {
      value: { gpu },
      configurable: true,
      writable: true,
    });
  } else {
    Object.defineProperty(g.navigator, "gpu", {
      value: gpu,
      configurable: true,
      enumerable: true,
    });
  }
  if (!("Window" in g)) {
    Object.defineProperty(g, "Window", {
      value: class Window {},
      configurable: true,
      writable: true,
    });
  }
}

/** `import()` of a name bundlers must leave alone (Node-only modules, optional packages). */
export function importOptional(specifier: string): Promise<unknown> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
}

/** The id of an op-table row by torch name; throws if the core has no such row. */
export function opId(name: string): number {
  let id = opIds.get(name);
  if (id === undefined) {
    id = core.op_id(name);
    opIds.set(name, id);
  }
  if (id < 0) throw new TorchError(`the webtorch core has no op '${name}'`);
  return id;
}
const opIds = new Map<string, number>();
