/**
 * Loading the wasm core and choosing the device.
 *
 * The entry module awaits {@link init} at the top level, so `import * as torch from "webtorch"`
 * resolves only once the core is loaded and a device is chosen: WebGPU when an adapter exists,
 * else the CPU backend (logged once). In the browser the `.wasm` is fetched next to this module
 * (bundlers see the `new URL(…, import.meta.url)` and emit it as an asset); in Node it is read with
 * `fs`, and WebGPU comes from the optional `webgpu` package (Dawn) when it is installed.
 *
 * @module
 */

import initWasm, * as rawCore from "./wasm/webtorch_core.js";
import {
  DeviceError,
  ERROR_CLASSES,
  InternalError,
  OutOfMemoryError,
  TorchError,
} from "./errors.js";
import { type Device, deviceFromCode } from "./dtype.js";

/**
 * The core's exports, every call guarded: a trap inside the core (a Rust panic, or an allocation
 * the wasm heap refused — both abort the call as a `WebAssembly.RuntimeError`) is followed by
 * `recover()`, which releases what the trapped call held, and becomes an `OutOfMemoryError` or an
 * `InternalError` naming the core function. The classes' methods are guarded in place, so
 * every holder of a `RawTensor` goes through the guard.
 */
export const core: typeof rawCore = guardCore(
  rawCore,
  // Loading and recovery themselves are not guarded.
  new Set(["default", "initSync", "recover"]),
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

function guarded<F extends (...a: never[]) => unknown>(f: F, name: string): F {
  // NOTE: fixed arities for the common cases: a rest parameter allocates an array per call,
  // and these wrap every op's call into the core.
  const fail = (e: unknown): never => {
    throw e instanceof WebAssembly.RuntimeError ? fromTrap(e, name) : e;
  };
  const g = f as unknown as (this: unknown, ...a: unknown[]) => unknown;
  let w: (this: unknown, ...a: unknown[]) => unknown;
  switch (f.length) {
    case 0:
      w = function (this: unknown) {
        try {
          return g.call(this);
        } catch (e) {
          return fail(e);
        }
      };
      break;
    case 1:
      w = function (this: unknown, a: unknown) {
        try {
          return g.call(this, a);
        } catch (e) {
          return fail(e);
        }
      };
      break;
    case 2:
      w = function (this: unknown, a: unknown, b: unknown) {
        try {
          return g.call(this, a, b);
        } catch (e) {
          return fail(e);
        }
      };
      break;
    default:
      w = function (this: unknown, ...a: unknown[]) {
        try {
          return g.apply(this, a);
        } catch (e) {
          return fail(e);
        }
      };
  }
  Object.defineProperty(w, "name", { value: f.name });
  return w as unknown as F;
}

/** The error a trap in core function `name` becomes, once the core has recovered. */
function fromTrap(trap: WebAssembly.RuntimeError, name: string): TorchError {
  const info = rawCore.recover() as {
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
let announced: Device | null = null;

/**
 * Loads the wasm core (once) and (re)selects the default device; resolves to its name.
 *
 * The package calls this on import, so it is needed only to switch: `await torch.init({ device:
 * "cpu" })` moves new tensors to the CPU backend; `"auto"` goes back to WebGPU when it exists.
 * Tensors made before keep their device.
 */
export async function init(options: InitOptions = {}): Promise<Device> {
  loading ??= loadCore().catch((err: unknown) => {
    loading = null; // let a later call retry
    throw err;
  });
  await loading;
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
  if (name !== defaultDevice) {
    throw new TorchError(
      `core init returned '${name}' but reports default device '${defaultDevice}'`,
    );
  }
  if (announced !== defaultDevice) {
    announced = defaultDevice;
    console.info(describeDevice(requested, defaultDevice));
  }
  return defaultDevice;
}

/** The device new tensors go to unless a `device` option says otherwise. */
export function get_default_device(): Device {
  if (defaultDevice === null)
    throw new TorchError("webtorch is not initialised: await torch.init()");
  return defaultDevice;
}

function describeDevice(requested: DeviceRequest, device: Device): string {
  if (device === "webgpu") {
    const info = core.adapter_info() as {
      name?: string;
      description?: string;
    } | null;
    const what = info?.name || info?.description;
    return `webtorch: running on WebGPU${what ? ` (${what})` : ""}`;
  }
  return requested === "cpu"
    ? "webtorch: running on the CPU backend (requested)"
    : "webtorch: no WebGPU adapter found; running on the CPU backend";
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

async function loadCore(): Promise<void> {
  const wasmUrl = new URL("./wasm/webtorch_core_bg.wasm", import.meta.url);
  if (wasmUrl.protocol === "file:") {
    // Node (and runtimes like it): no fetch of file: URLs, so read the bytes ourselves.
    await installNodeWebGPU();
    const fs = (await importOptional("node:fs/promises")) as {
      readFile(path: URL): Promise<Uint8Array>;
    };
    memory = (await initWasm({ module_or_path: await fs.readFile(wasmUrl) }))
      .memory;
  } else {
    memory = (await initWasm({ module_or_path: wasmUrl })).memory;
  }
  metaAt = core.meta_scratch();
  for (const [kind, ctor] of Object.entries(ERROR_CLASSES))
    core.register_error_class(kind, ctor);
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
  } catch {
    return; // not installed: the CPU backend it is
  }
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
