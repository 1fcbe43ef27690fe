/**
 * `nn.Module` and `nn.Parameter`: the base of every layer, with PyTorch's bookkeeping —
 * parameters, buffers and children under dotted names, train/eval, `state_dict` /
 * `load_state_dict` with PyTorch's keys, hooks.
 *
 * Registration: PyTorch registers `self.fc = nn.Linear(…)` in `__setattr__`; JS has no such hook
 * (short of a Proxy on every module), so a module finds its parameters and children by looking at
 * its own properties whenever it walks them: `this.fc = new nn.Linear(2, 3)` and
 * `this.w = new nn.Parameter(t)` register themselves, in assignment order. Buffers are tensors
 * like any other property, so they are declared with {@link Module.register_buffer}, as in
 * PyTorch. `register_parameter`/`register_module` work too (and set the property).
 *
 * Calling: JS cannot make an instance callable, so `model(x)` is spelled `model.call(x)`: it runs
 * the forward pre-hooks, `forward`, then the forward hooks (PyTorch's `__call__`), and places the
 * full backward hooks (module_hooks.ts). Calling `model.forward(x)` directly skips the hooks, as
 * in PyTorch. State-dict hooks run in `state_dict` and `load_state_dict` as PyTorch runs them.
 *
 * @module
 */

import { DeviceError, ShapeError, TorchError } from "../errors.js";
import { Tensor } from "../tensor/tensor.js";
import { is_grad_enabled, no_grad } from "../autograd/grad_mode.js";
import type { RemovableHandle } from "../tensor/autograd.js";
import { zeros } from "../ops/creation.js";
import { args } from "../schema/index.js";
import {
  HookList,
  setupBackwardHooks,
  type BackwardHook,
  type BackwardPreHook,
} from "./module_hooks.js";
import { type DType, type Device, isFloatingPoint } from "../dtype.js";
import { type DeviceName, canonicalDevice } from "../defaults.js";
import { type ToOptions, moveTo, parseTo } from "../ops/devices.js";
import { get_default_device } from "../runtime.js";

/**
 * A tensor that is a module parameter: a leaf with `requires_grad` (unless told otherwise) that
 * `Module` registers when assigned to one of its properties.
 */
export class Parameter extends Tensor {
  /** Wraps `data` (sharing its storage, detached from any graph); an empty tensor when absent. */
  constructor(data?: Tensor, requires_grad = true) {
    const a = args("nn.Parameter", arguments);
    const base = a.data ?? zeros(0);
    super(base._raw.detach());
    if (a.data === null) base.dispose();
    if (a.requires_grad) this._raw.set_requires_grad(true);
  }

  override toString(): string {
    return `Parameter containing:\n${super.toString()}`;
  }
}

/**
 * A parameter made from `data`, a temporary created for it, whose own handle is then disposed
 * (the storage lives on in the parameter). Layers build their parameters this way so that
 * `module.dispose()` frees their memory at once: `new Parameter(empty(…))` would leave the
 * temporary's handle holding the same storage until garbage collection.
 */
export function ownedParameter(data: Tensor, requires_grad = true): Parameter {
  const p = new Parameter(data, requires_grad);
  data.dispose();
  return p;
}

/** A state dict: tensors by PyTorch's dotted names (`"0.weight"`, `"encoder.layers.1.bias"`). */
export type StateDict = Record<string, Tensor>;

/** What {@link Module.load_state_dict} returns (PyTorch's `_IncompatibleKeys`). */
export interface IncompatibleKeys {
  missing_keys: string[];
  unexpected_keys: string[];
}

/** A forward pre-hook: may return replacement arguments (an array). */
export type ForwardPreHook = (
  module: Module,
  args: unknown[],
) => unknown[] | void | undefined;
/** A forward hook: may return a replacement output. */
export type ForwardHook = (
  module: Module,
  args: unknown[],
  output: unknown,
) => unknown;

/** A state-dict pre-hook: `(module, prefix, keep_vars)`. */
export type StateDictPreHook = (
  module: Module,
  prefix: string,
  keep_vars: boolean,
) => void;
/** A state-dict post-hook: may edit `state_dict` in place. */
export type StateDictPostHook = (
  module: Module,
  state_dict: StateDict,
  prefix: string,
  local_metadata: { version: number },
) => void;
/** A load_state_dict pre-hook: may edit `state_dict` and append to the lists. */
export type LoadStateDictPreHook = (
  module: Module,
  state_dict: StateDict,
  prefix: string,
  local_metadata: { version: number },
  strict: boolean,
  missing_keys: string[],
  unexpected_keys: string[],
  error_msgs: string[],
) => void;
/** A load_state_dict post-hook: may edit the key lists in place. */
export type LoadStateDictPostHook = (
  module: Module,
  incompatible_keys: IncompatibleKeys,
) => void;
export type { BackwardHook, BackwardPreHook } from "./module_hooks.js";

type Kind = "parameter" | "buffer" | "module";

/**
 * The base class of all neural network modules (`torch.nn.Module`). Subclasses assign their
 * parameters and submodules as properties in the constructor and implement `forward`.
 *
 * @example
 * class MLP extends nn.Module {
 *   fc1 = new nn.Linear(8, 16);
 *   fc2 = new nn.Linear(16, 4);
 *   forward(x: Tensor) { return this.fc2.call(this.fc1.call(x).relu()); }
 * }
 */
export class Module {
  /** Whether the module is in training mode (see {@link train}, {@link eval}). */
  training = true;
  // Names registered explicitly or found on properties, in order, with their kinds and values.
  // Values of property-backed entries are read from the property (it may be reassigned).
  readonly #entries = new Map<
    string,
    { kind: Kind; value: unknown; prop: boolean }
  >();
  readonly #preHooks = new Set<ForwardPreHook>();
  readonly #hooks = new Set<ForwardHook>();

  /** The computation; subclasses override it. */
  forward(..._args: never[]): unknown {
    throw new TorchError(
      `Module [${this.constructor.name}] is missing the required "forward" function`,
    );
  }

  /**
   * PyTorch's `module(...args)`: forward pre-hooks, then `forward`, then forward hooks. Typed as
   * this module's `forward`, overloads and type parameters included (`linear.call(x)` has the
   * shape and dtype `linear.forward(x)` has).
   */
  declare readonly call: this["forward"];
  static {
    // A prototype method, typed by the declaration above.
    Object.defineProperty(Module.prototype, "call", {
      configurable: true,
      writable: true,
      value: function call(this: Module, ...args: unknown[]): unknown {
        let input: unknown[] = args;
        for (const hook of this.#preHooks) {
          const r = hook(this, input);
          if (r !== undefined) input = Array.isArray(r) ? r : [r];
        }
        let finish: ((output: unknown) => unknown) | null = null;
        if (
          (this.#backwardHooks.size || this.#backwardPreHooks.size) &&
          is_grad_enabled()
        )
          [input, finish] = setupBackwardHooks<Module>(
            this,
            input,
            this.#backwardHooks.values(),
            this.#backwardPreHooks.values(),
          );
        let output = (this.forward as (...a: unknown[]) => unknown)(...input);
        for (const hook of this.#hooks) {
          const r = hook(this, input, output);
          if (r !== undefined) output = r;
        }
        if (finish) output = finish(output);
        return output;
      },
    });
  }

  /** Registers `hook(module, args)` to run before `forward`. */
  register_forward_pre_hook(hook: ForwardPreHook): RemovableHandle {
    this.#preHooks.add(hook);
    return { remove: () => void this.#preHooks.delete(hook) };
  }

  /** Registers `hook(module, args, output)` to run after `forward`. */
  register_forward_hook(hook: ForwardHook): RemovableHandle {
    this.#hooks.add(hook);
    return { remove: () => void this.#hooks.delete(hook) };
  }

  // ---- registration ----

  #checkName(name: string, kind: string): void {
    if (typeof name !== "string")
      throw new TorchError(`${kind} name should be a string`);
    if (name.includes(".") || name === "")
      throw new TorchError(
        `${kind} name can't contain "." and can't be empty, got "${name}"`,
      );
  }

  /** Sets a property named `name` unless that would hide a method or field of the class. */
  #setProp(name: string, value: unknown): boolean {
    const own = Object.prototype.hasOwnProperty.call(this, name);
    if (!own && name in this) return false;
    (this as unknown as Record<string, unknown>)[name] = value;
    return true;
  }

  /** Adds a parameter (or `null`, a declared-but-absent one like `bias=False`) under `name`. */
  register_parameter(name: string, param: Parameter | null): void {
    this.#checkName(name, "parameter");
    if (param !== null && !(param instanceof Parameter))
      throw new TorchError(
        `cannot assign '${typeName(param)}' object to parameter '${name}' (nn.Parameter or None required)`,
      );
    const prop = this.#setProp(name, param);
    this.#entries.set(name, { kind: "parameter", value: param, prop });
  }

  /** Adds a buffer (a tensor in the state dict that is not a parameter), or `null`. */
  register_buffer(
    name: string,
    tensor: Tensor | null,
    persistent = true,
  ): void {
    this.#checkName(name, "buffer");
    if (tensor !== null && !(tensor instanceof Tensor))
      throw new TorchError(
        `cannot assign '${typeName(tensor)}' object to buffer '${name}' (torch Tensor or None required)`,
      );
    const prop = this.#setProp(name, tensor);
    this.#entries.set(name, { kind: "buffer", value: tensor, prop });
    if (!persistent) this.#nonPersistent.add(name);
    else this.#nonPersistent.delete(name);
  }
  readonly #nonPersistent = new Set<string>();

  /** Adds a child module (or `null`) under `name`. */
  register_module(name: string, module: Module | null): void {
    this.#checkName(name, "module");
    if (module !== null && !isModule(module))
      throw new TorchError(`${typeName(module)} is not a Module subclass`);
    const prop = this.#setProp(name, module);
    this.#entries.set(name, { kind: "module", value: module, prop });
  }

  /** Alias of {@link register_module}. */
  add_module(name: string, module: Module | null): void {
    this.register_module(name, module);
  }

  /** The current entries: registered ones plus parameters and modules found on properties. */
  #sync(): [string, Kind, unknown][] {
    const self = this as unknown as Record<string, unknown>;
    for (const key of Object.keys(this)) {
      const v = self[key];
      const known = this.#entries.get(key);
      if (known) continue;
      if (v instanceof Parameter)
        this.#entries.set(key, { kind: "parameter", value: v, prop: true });
      else if (isModule(v))
        this.#entries.set(key, { kind: "module", value: v, prop: true });
    }
    const out: [string, Kind, unknown][] = [];
    for (const [name, e] of this.#entries) {
      const value = e.prop ? self[name] : e.value;
      out.push([name, e.kind, value ?? null]);
    }
    return out;
  }

  #own<T>(kind: Kind): [string, T][] {
    return this.#sync()
      .filter(([, k, v]) => k === kind && v !== null)
      .map(([n, , v]) => [n, v as T]);
  }

  // ---- traversal ----

  /** `[name, module]` for this module and every descendant (dotted names; each module once). */
  named_modules(prefix = "", memo = new Set<Module>()): [string, Module][] {
    if (memo.has(this)) return [];
    memo.add(this);
    const out: [string, Module][] = [[prefix, this]];
    for (const [name, child] of this.#own<Module>("module")) {
      out.push(
        ...child.named_modules(prefix ? `${prefix}.${name}` : name, memo),
      );
    }
    return out;
  }

  /** This module and every descendant. */
  modules(): Module[] {
    return this.named_modules().map(([, m]) => m);
  }

  /** `[name, module]` for the direct children. */
  named_children(): [string, Module][] {
    const seen = new Set<Module>();
    return this.#own<Module>("module").filter(([, m]) =>
      seen.has(m) ? false : (seen.add(m), true),
    );
  }

  /** The direct children. */
  children(): Module[] {
    return this.named_children().map(([, m]) => m);
  }

  #namedMembers<T>(
    kind: Kind,
    prefix: string,
    recurse: boolean,
  ): [string, T][] {
    const out: [string, T][] = [];
    const seen = new Set<unknown>();
    const mods: [string, Module][] = recurse
      ? this.named_modules(prefix)
      : [[prefix, this]];
    for (const [mp, m] of mods) {
      for (const [name, v] of m.#own<T>(kind)) {
        if (seen.has(v)) continue; // shared (tied) tensors are listed once
        seen.add(v);
        out.push([mp ? `${mp}.${name}` : name, v]);
      }
    }
    return out;
  }

  /** `[name, parameter]` with PyTorch's dotted names (shared parameters once). */
  named_parameters(prefix = "", recurse = true): [string, Parameter][] {
    return this.#namedMembers<Parameter>("parameter", prefix, recurse);
  }

  /** Every parameter (an array, in registration order; iterate it or pass it to an optimizer). */
  parameters(recurse = true): Parameter[] {
    return this.named_parameters("", recurse).map(([, p]) => p);
  }

  /** `[name, buffer]` with dotted names. */
  named_buffers(prefix = "", recurse = true): [string, Tensor][] {
    return this.#namedMembers<Tensor>("buffer", prefix, recurse);
  }

  /** Every buffer. */
  buffers(recurse = true): Tensor[] {
    return this.named_buffers("", recurse).map(([, b]) => b);
  }

  /** The parameter, buffer or submodule at a dotted path (`"0.weight"`). */
  get_submodule(target: string): Module {
    if (target === "") return this;
    let m: Module = this;
    for (const part of target.split(".")) {
      const child = m.#sync().find(([n, k]) => n === part && k === "module");
      if (!child || child[2] === null)
        throw new TorchError(
          `${m.constructor.name} has no attribute \`${part}\``,
        );
      m = child[2] as Module;
    }
    return m;
  }

  // ---- modes and helpers ----

  /** Sets training mode on this module and its descendants; returns this. */
  train(mode = true): this {
    if (typeof mode !== "boolean")
      throw new TorchError("training mode is expected to be boolean");
    for (const m of this.modules()) m.training = mode;
    return this;
  }

  /** `train(false)`. */
  eval(): this {
    return this.train(false);
  }

  /** Sets `requires_grad` on every parameter; returns this. */
  requires_grad_(requires_grad = true): this {
    for (const p of this.parameters()) p.requires_grad_(requires_grad);
    return this;
  }

  /** Clears (`set_to_none`, the default) or zeroes every parameter's gradient. */
  zero_grad(set_to_none = true): void {
    for (const p of this.parameters()) {
      if (set_to_none) {
        p.grad = null;
      } else {
        const g = p.grad;
        if (g) no_grad(() => g.zero_()).dispose();
      }
    }
  }

  /** Calls `fn` on every descendant (children first) and then on this module; returns this. */
  apply(fn: (module: Module) => void): this {
    for (const child of this.children()) child.apply(fn);
    fn(this);
    return this;
  }

  // ---- devices and dtypes ----

  /**
   * Moves and/or casts the parameters and buffers in place, as PyTorch's `Module.to`:
   * `model.to("cuda")`, `model.to("cpu", torch.float16)`, `model.to(torch.bfloat16)`,
   * `model.to({ device, dtype })`, `model.to(tensor)`. The parameters stay the same objects (an
   * optimizer made before keeps working), with their gradients moved too; a dtype applies to the
   * floating point ones only (integer buffers keep theirs), and must be floating point. Returns
   * this module.
   */
  to(
    device: DeviceName | Tensor | null,
    dtype?: DType | null,
    non_blocking?: boolean,
  ): this;
  to(dtype: DType): this;
  to(options: Omit<ToOptions, "copy">): this;
  to(..._: unknown[]): this {
    const t = parseTo(this.#device(), arguments);
    if (t.dtype !== null && !isFloatingPoint(t.dtype))
      throw new TorchError(
        `nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.${t.dtype}`,
      );
    return this.#convert(t.device, t.dtype);
  }

  /** Moves every parameter and buffer to the CPU in place; returns this. */
  cpu(): this {
    return this.#convert("cpu", null);
  }

  /** Moves every parameter and buffer to the WebGPU device (which `"cuda"` names) in place. */
  cuda(device?: DeviceName | number | null): this {
    const d = canonicalDevice(
      typeof device === "number" ? `cuda:${device}` : (device ?? "cuda"),
    );
    if (d !== "webgpu")
      throw new DeviceError(
        `Invalid device, must be cuda device, got ${String(device)} (webtorch: "cuda" is the WebGPU device)`,
      );
    return this.#convert("webgpu", null);
  }

  /** Casts the floating point parameters and buffers to float16 in place. */
  half(): this {
    return this.#convert(null, "float16");
  }

  /** Casts the floating point parameters and buffers to float32 in place. */
  float(): this {
    return this.#convert(null, "float32");
  }

  /** Casts the floating point parameters and buffers to bfloat16 in place. */
  bfloat16(): this {
    return this.#convert(null, "bfloat16");
  }

  /** `to(torch.float64)`: a `TorchError`, as neither of webtorch's devices stores float64. */
  double(): this {
    return this.to("float64" as DType);
  }

  /** The device of the first parameter or buffer (the default device without any). */
  #device(): Device {
    return (
      this.parameters()[0]?.device ??
      this.buffers()[0]?.device ??
      get_default_device()
    );
  }

  /**
   * Each parameter and buffer on `device` (null: its own) as `dtype` (null: its own; only
   * floating point ones change), its handle replaced in place.
   */
  #convert(device: Device | null, dtype: DType | null): this {
    const move = (t: Tensor): Tensor | null => {
      const to = dtype !== null && isFloatingPoint(t.dtype) ? dtype : t.dtype;
      const on = device ?? t.device;
      return to === t.dtype && on === t.device ? null : moveTo(t, on, to);
    };
    no_grad(() => {
      for (const t of [...this.parameters(), ...this.buffers()]) {
        const moved = move(t);
        if (moved === null) continue;
        const grad = t.grad;
        const movedGrad = grad === null ? null : move(grad);
        const requires = t.requires_grad;
        t._setRaw(moved._raw.handle());
        moved.dispose();
        if (requires) t.requires_grad = true;
        if (grad !== null) {
          t.grad = movedGrad ?? grad;
          movedGrad?.dispose();
          grad.dispose();
        }
      }
    });
    return this;
  }

  // ---- state dict ----

  /**
   * The parameters and persistent buffers by dotted name, as PyTorch names them. Values are
   * detached handles sharing storage with the module (`keep_vars: true` gives the parameters
   * themselves).
   */
  state_dict(
    options: { prefix?: string; keep_vars?: boolean } = {},
  ): StateDict {
    const prefix = options.prefix ?? "";
    const out: StateDict = {};
    const visit = (m: Module, p: string, memo: Set<Module>) => {
      if (memo.has(m)) return;
      memo.add(m);
      for (const h of m.#stateDictPreHooks.values())
        h(m, p, options.keep_vars ?? false);
      // PyTorch's order: a module's parameters, then its buffers, then its children.
      const entries = m.#sync();
      for (const want of ["parameter", "buffer"])
        for (const [name, kind, v] of entries) {
          if (v === null || kind !== want) continue;
          if (kind === "parameter" || !m.#nonPersistent.has(name)) {
            const t = v as Tensor;
            out[p + name] = options.keep_vars ? t : t.detach();
          }
        }
      for (const [name, child] of m.named_children())
        visit(child, `${p}${name}.`, memo);
      for (const h of m.#stateDictHooks.values())
        h(m, out, p, m.#localMetadata());
    };
    visit(this, prefix, new Set());
    return out;
  }

  /**
   * Copies `state_dict`'s tensors into this module's parameters and buffers (under `no_grad`).
   * With `strict` (default), missing or unexpected keys throw PyTorch's error; a shape mismatch
   * always throws. The tensors must be on this module's device.
   */
  load_state_dict(
    state_dict: StateDict | Map<string, Tensor>,
    strict = true,
  ): IncompatibleKeys {
    // A copy that the load pre-hooks may edit (PyTorch's `OrderedDict(state_dict)`).
    const sd: StateDict =
      state_dict instanceof Map
        ? Object.fromEntries(state_dict)
        : { ...state_dict };
    const keys: IncompatibleKeys = { missing_keys: [], unexpected_keys: [] };
    const errors: string[] = [];
    // PyTorch's walk: each module's pre-hooks, its own entries (the tensors that fit are copied
    // even when others raise below), its children, then its post-hooks — which see the keys
    // found so far and may edit the lists before the strict check.
    const visit = (m: Module, prefix: string, memo: Set<Module>) => {
      if (memo.has(m)) return;
      memo.add(m);
      for (const h of m.#loadPreHooks.values())
        h(
          m,
          sd,
          prefix,
          m.#localMetadata(),
          strict,
          keys.missing_keys,
          keys.unexpected_keys,
          errors,
        );
      const local = new Map<string, Tensor>();
      for (const [name, kind, v] of m.#sync())
        if (
          v !== null &&
          (kind === "parameter" ||
            (kind === "buffer" && !m.#nonPersistent.has(name)))
        )
          local.set(name, v as Tensor);
      for (const [name, target] of local) {
        const key = prefix + name;
        if (!(key in sd)) {
          keys.missing_keys.push(key);
          continue;
        }
        const src: unknown = sd[key];
        if (!(src instanceof Tensor)) {
          errors.push(
            `While copying the parameter named "${key}", expected torch.Tensor or Tensor-like object from checkpoint but received ${typeName(src)}`,
          );
          continue;
        }
        if (src.shape.join() !== target.shape.join()) {
          errors.push(
            `size mismatch for ${key}: copying a param with shape torch.Size([${src.shape.join(", ")}]) from checkpoint, the shape in current model is torch.Size([${target.shape.join(", ")}]).`,
          );
          continue;
        }
        if (src.device !== target.device)
          throw new DeviceError(
            `load_state_dict: "${key}" is on ${src.device} but the module's tensor is on ${target.device}`,
          );
        no_grad(() => target.copy_(src));
      }
      const children = m.named_children();
      const childNames = new Set(children.map(([n]) => n));
      for (const key of Object.keys(sd)) {
        if (!key.startsWith(prefix)) continue;
        const rest = key.slice(prefix.length);
        const dot = rest.indexOf(".");
        if (dot >= 0 ? !childNames.has(rest.slice(0, dot)) : !local.has(rest))
          keys.unexpected_keys.push(key);
      }
      for (const [name, child] of children)
        visit(child, `${prefix}${name}.`, memo);
      for (const h of m.#loadPostHooks.values())
        if (h(m, keys) !== undefined)
          throw new TorchError(
            "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return new values, if incompatible_keys need to be modified, it should be done inplace.",
          );
    };
    visit(this, "", new Set());
    if (strict) {
      if (keys.unexpected_keys.length)
        errors.unshift(
          `Unexpected key(s) in state_dict: ${keys.unexpected_keys.map((k) => `"${k}"`).join(", ")}. `,
        );
      if (keys.missing_keys.length)
        errors.unshift(
          `Missing key(s) in state_dict: ${keys.missing_keys.map((k) => `"${k}"`).join(", ")}. `,
        );
    }
    if (errors.length) {
      throw new ShapeError(
        `Error(s) in loading state_dict for ${this.constructor.name}:\n\t${errors.join("\n\t")}`,
      );
    }
    return keys;
  }

  /** Frees every parameter and buffer handle of this module and its descendants. */
  dispose(): void {
    for (const p of this.parameters()) p.dispose();
    for (const b of this.buffers()) b.dispose();
  }

  // ---- backward and state-dict hooks (the machinery: module_hooks.ts) ----

  readonly #backwardHooks = new HookList<BackwardHook<Module>>();
  readonly #backwardPreHooks = new HookList<BackwardPreHook<Module>>();
  readonly #stateDictPreHooks = new HookList<StateDictPreHook>();
  readonly #stateDictHooks = new HookList<StateDictPostHook>();
  readonly #loadPreHooks = new HookList<LoadStateDictPreHook>();
  readonly #loadPostHooks = new HookList<LoadStateDictPostHook>();

  /**
   * Registers `hook(module, grad_input, grad_output)` to run when the gradients of the module's
   * inputs are computed (one entry per positional argument, `null` for non-tensors and inputs
   * without a gradient); it may return replacement `grad_input`s. Runs for calls made through
   * {@link call} with grad enabled.
   */
  register_full_backward_hook(
    hook: BackwardHook<this>,
    prepend = false,
  ): RemovableHandle {
    return this.#backwardHooks.add(hook as BackwardHook<Module>, prepend);
  }

  /**
   * Registers `hook(module, grad_output)` to run when the gradients of the module's outputs are
   * computed, before the backward hooks; it may return replacement `grad_output`s.
   */
  register_full_backward_pre_hook(
    hook: BackwardPreHook<this>,
    prepend = false,
  ): RemovableHandle {
    return this.#backwardPreHooks.add(hook as BackwardPreHook<Module>, prepend);
  }

  /** Registers `hook(module, prefix, keep_vars)` to run before this module's `state_dict` entries are saved. */
  register_state_dict_pre_hook(hook: StateDictPreHook): RemovableHandle {
    return this.#stateDictPreHooks.add(hook);
  }

  /**
   * Registers `hook(module, state_dict, prefix, local_metadata)` to run after this module's (and
   * its children's) entries are saved; it may edit `state_dict` in place.
   */
  register_state_dict_post_hook(hook: StateDictPostHook): RemovableHandle {
    return this.#stateDictHooks.add(hook);
  }

  /**
   * Registers `hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
   * unexpected_keys, error_msgs)` to run before this module's entries are loaded; it may edit
   * `state_dict` (a copy of the one given) and append to the lists.
   */
  register_load_state_dict_pre_hook(
    hook: LoadStateDictPreHook,
  ): RemovableHandle {
    return this.#loadPreHooks.add(hook);
  }

  /**
   * Registers `hook(module, incompatible_keys)` to run after `load_state_dict` loaded; it may
   * edit `incompatible_keys.missing_keys`/`unexpected_keys` in place before the strict check.
   */
  register_load_state_dict_post_hook(
    hook: LoadStateDictPostHook,
  ): RemovableHandle {
    return this.#loadPostHooks.add(hook);
  }

  /** PyTorch's `local_metadata` of a module: its state-dict format version. */
  #localMetadata(): { version: number } {
    return {
      version: (this.constructor as { _version?: number })._version ?? 1,
    };
  }

  // ---- printing ----

  /** The layer's settings for {@link toString} (`in_features=8, out_features=16, bias=True`). */
  extra_repr(): string {
    return "";
  }

  /** PyTorch's module printout. */
  toString(): string {
    const children = this.named_children();
    const extra = this.extra_repr();
    if (children.length === 0) return `${this.constructor.name}(${extra})`;
    const lines = children.map(
      ([n, m]) => `  (${n}): ${m.toString().split("\n").join("\n  ")}`,
    );
    if (extra) lines.unshift(`  ${extra}`);
    return `${this.constructor.name}(\n${lines.join("\n")}\n)`;
  }
}

// NOTE: a function outside the class, so that tsc does not emit a top-level `_a = Module`
// self-reference (which would count as a module side effect for bundlers' `sideEffects`).
function isModule(v: unknown): v is Module {
  return v instanceof Module;
}

function typeName(v: unknown): string {
  return v === null
    ? "None"
    : typeof v === "object"
      ? (v.constructor?.name ?? "object")
      : typeof v;
}
