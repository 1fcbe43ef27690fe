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

import initWasm, * as core from "./wasm/webtorch_core.js";
import { DeviceError, ERROR_CLASSES, TorchError } from "./errors.js";
import { type Device, deviceFromCode } from "./dtype.js";

export { core };

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
function importOptional(specifier: string): Promise<unknown> {
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
