/**
 * Container modules: `Sequential`, `ModuleList`, `ModuleDict` (children named `"0"`, `"1"`, …
 * or by key, so state-dict keys match PyTorch's), and `ParameterList`, `ParameterDict` (their
 * parameters named the same way).
 *
 * @module
 */

import { IndexError, TorchError } from "../errors.js";
import { Module, Parameter } from "./module.js";
import { Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
import { pyTypeName } from "../args.js";

function wrapIndex(i: number, n: number, what: string): number {
  if (!Number.isInteger(i) || i < -n || i >= n)
    throw new IndexError(`index ${i} is out of range`);
  void what;
  return i < 0 ? i + n : i;
}

/** Whether `v` is an object with `[Symbol.iterator]` (arrays, maps, generators). */
function isIterable(v: unknown): v is Iterable<unknown> {
  return (
    v !== null &&
    typeof v === "object" &&
    typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] ===
      "function"
  );
}

/**
 * Modules run in order, each on the previous one's output: `new nn.Sequential(a, b, c)`, or
 * with names: `new nn.Sequential({ fc: a, act: b })`.
 */
export class Sequential extends Module {
  #items: Module[] = [];

  constructor(...modules: Module[] | [Record<string, Module>]) {
    super();
    modules = args("nn.Sequential", arguments).modules as
      Module[] | [Record<string, Module>];
    const first = modules[0];
    if (
      modules.length === 1 &&
      typeof first === "object" &&
      first !== null &&
      !(first instanceof Module)
    ) {
      for (const [name, m] of Object.entries(first)) this.#add(name, m);
    } else {
      (modules as Module[]).forEach((m, i) => this.#add(String(i), m));
    }
  }

  #add(name: string, m: Module): void {
    if (!(m instanceof Module))
      throw new TorchError(`${String(m)} is not a Module subclass`);
    this.register_module(name, m);
    this.#items.push(m);
  }

  /** The module at position `i` (negative from the end). */
  at(i: number): Module {
    return this.#items[wrapIndex(i, this.#items.length, "Sequential")]!;
  }

  /** How many modules. */
  get length(): number {
    return this.#items.length;
  }

  /** Adds a module at the end; returns this. */
  append(module: Module): this {
    this.#add(String(this.#items.length), module);
    return this;
  }

  [Symbol.iterator](): Iterator<Module> {
    return this.#items[Symbol.iterator]();
  }

  override forward(input: unknown): unknown {
    let x = input;
    for (const m of this.#items)
      x = (m.call as (...a: unknown[]) => unknown).call(m, x);
    return x;
  }
}

/** A list of modules, registered as children `"0"`, `"1"`, … (no `forward` of its own). */
export class ModuleList extends Module {
  #items: Module[] = [];

  constructor(modules: Iterable<Module> = []) {
    super();
    const given: unknown = args("nn.ModuleList", arguments).modules ?? [];
    if (!isIterable(given))
      throw new TorchError(
        `ModuleList.extend should be called with an iterable, but got ${pyTypeName(given)}`,
      );
    for (const m of given as Iterable<Module>) this.append(m);
  }

  /** The module at position `i` (negative from the end). */
  at(i: number): Module {
    return this.#items[wrapIndex(i, this.#items.length, "ModuleList")]!;
  }

  /** How many modules. */
  get length(): number {
    return this.#items.length;
  }

  /** Adds a module at the end; returns this. */
  append(module: Module): this {
    this.register_module(String(this.#items.length), module);
    this.#items.push(module);
    return this;
  }

  /** Alias of {@link append}. */
  push(module: Module): this {
    return this.append(module);
  }

  /** Appends every module of `modules`; returns this. */
  extend(modules: Iterable<Module>): this {
    for (const m of modules) this.append(m);
    return this;
  }

  [Symbol.iterator](): Iterator<Module> {
    return this.#items[Symbol.iterator]();
  }
}

/** Modules by name (insertion order), registered as children under their keys. */
export class ModuleDict extends Module {
  #items = new Map<string, Module>();

  constructor(
    modules: Record<string, Module> | Iterable<[string, Module]> = {},
  ) {
    super();
    const given: unknown = args("nn.ModuleDict", arguments).modules ?? {};
    if (given === null || typeof given !== "object")
      throw new TorchError(
        `ModuleDict.update should be called with an iterable of key/value pairs, but got ${pyTypeName(given)}`,
      );
    const entries = isIterable(given)
      ? (given as Iterable<[string, Module]>)
      : Object.entries(given as Record<string, Module>);
    for (const [k, m] of entries) this.set(k, m);
  }

  /** The module under `key`; throws PyTorch's KeyError wording if absent. */
  get(key: string): Module {
    const m = this.#items.get(key);
    if (m === undefined) throw new TorchError(`KeyError: '${key}'`);
    return m;
  }

  /** Sets (or replaces) the module under `key`. */
  set(key: string, module: Module): this {
    this.register_module(key, module);
    this.#items.set(key, module);
    return this;
  }

  /** Whether `key` is present. */
  has(key: string): boolean {
    return this.#items.has(key);
  }

  /** The keys, in insertion order. */
  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** The modules, in insertion order. */
  values(): Module[] {
    return [...this.#items.values()];
  }

  /** `[key, module]` pairs, in insertion order. */
  items(): [string, Module][] {
    return [...this.#items.entries()];
  }

  /** How many modules. */
  get length(): number {
    return this.#items.size;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.#items.keys();
  }
}

/** A tensor as a parameter: a `Parameter` is kept, another tensor is wrapped (sharing storage). */
function asParameter(v: unknown, what: string): Parameter {
  if (v instanceof Parameter) return v;
  if (v instanceof Tensor) return new Parameter(v);
  throw new TorchError(
    `${what} holds tensors and parameters here, got ${pyTypeName(v)}`,
  );
}

/** PyTorch's one-line summary of a parameter in a container's printout. */
function paramLine(p: Parameter, type: string): string {
  const size = p.shape.length ? p.shape.join("x") : "";
  return `Parameter containing: [${type} of size ${size}]`;
}

/**
 * A list of parameters, registered as `"0"`, `"1"`, … (so state-dict keys match PyTorch's). A
 * tensor that is not a `Parameter` is made one, as in PyTorch.
 */
export class ParameterList extends Module {
  #items: Parameter[] = [];

  constructor(values: Iterable<Tensor> = []) {
    super();
    const given: unknown = args("nn.ParameterList", arguments).values ?? [];
    if (!isIterable(given))
      throw new TorchError(
        `ParameterList.extend should be called with an iterable, but got ${pyTypeName(given)}`,
      );
    for (const v of given) this.append(v as Tensor);
  }

  /** The parameter at position `i` (negative from the end). */
  at(i: number): Parameter {
    return this.#items[wrapIndex(i, this.#items.length, "ParameterList")]!;
  }

  /** How many parameters. */
  get length(): number {
    return this.#items.length;
  }

  /** Adds a parameter (a tensor is made one) at the end; returns this. */
  append(value: Tensor): this {
    const p = asParameter(value, "ParameterList");
    this.register_parameter(String(this.#items.length), p);
    this.#items.push(p);
    return this;
  }

  /** Appends every tensor of `values`; returns this. */
  extend(values: Iterable<Tensor>): this {
    if (!isIterable(values))
      throw new TorchError(
        `ParameterList.extend should be called with an iterable, but got ${pyTypeName(values)}`,
      );
    for (const v of values) this.append(v);
    return this;
  }

  [Symbol.iterator](): Iterator<Parameter> {
    return this.#items[Symbol.iterator]();
  }

  override toString(): string {
    const lines = this.#items.map(
      (p, i) => `    (${i}): ${paramLine(p, `torch.${p.dtype}`)}`,
    );
    return `ParameterList(\n${lines.join("\n")}\n)`;
  }
}

/** Parameters by name (insertion order), registered under their keys. */
export class ParameterDict extends Module {
  #items = new Map<string, Parameter>();

  constructor(
    parameters: Record<string, Tensor> | Iterable<[string, Tensor]> = {},
  ) {
    super();
    const given: unknown = args("nn.ParameterDict", arguments).parameters ?? {};
    if (given === null || typeof given !== "object")
      throw new TorchError(
        `ParametersDict.update should be called with an iterable of key/value pairs, but got ${pyTypeName(given)}`,
      );
    this.update(given as Record<string, Tensor>);
  }

  /** Adds (or replaces) every `[key, tensor]` of `parameters` (an object, a Map or pairs). */
  update(
    parameters: Record<string, Tensor> | Iterable<[string, Tensor]>,
  ): this {
    const entries: unknown[] = isIterable(parameters)
      ? [...(parameters as Iterable<unknown>)]
      : Object.entries(parameters);
    entries.forEach((e, i) => {
      if (!isIterable(e))
        throw new TorchError(
          `ParameterDict update sequence element #${i} should be Iterable; is${pyTypeName(e)}`,
        );
      const pair = [...e];
      if (pair.length !== 2)
        throw new TorchError(
          `ParameterDict update sequence element #${i} has length ${pair.length}; 2 is required`,
        );
      this.set(pair[0] as string, pair[1] as Tensor);
    });
    return this;
  }

  /** The parameter under `key`; throws PyTorch's KeyError wording if absent. */
  get(key: string): Parameter {
    const p = this.#items.get(key);
    if (p === undefined) throw new TorchError(`KeyError: '${key}'`);
    return p;
  }

  /** Sets (or replaces) the parameter under `key` (a tensor is made one). */
  set(key: string, value: Tensor): this {
    const p = asParameter(value, "ParameterDict");
    this.register_parameter(key, p);
    this.#items.set(key, p);
    return this;
  }

  /** Whether `key` is present. */
  has(key: string): boolean {
    return this.#items.has(key);
  }

  /** The keys, in insertion order. */
  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** The parameters, in insertion order. */
  values(): Parameter[] {
    return [...this.#items.values()];
  }

  /** `[key, parameter]` pairs, in insertion order. */
  items(): [string, Parameter][] {
    return [...this.#items.entries()];
  }

  /** How many parameters. */
  get length(): number {
    return this.#items.size;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.#items.keys();
  }

  override toString(): string {
    // PyTorch names the type here by its legacy tensor-type name.
    const legacy: Record<string, string> = {
      float32: "FloatTensor",
      float64: "DoubleTensor",
      float16: "HalfTensor",
      bfloat16: "BFloat16Tensor",
      int64: "LongTensor",
      int32: "IntTensor",
    };
    const lines = [...this.#items].map(
      ([k, p]) =>
        `    (${k}): ${paramLine(p, `torch.${legacy[p.dtype] ?? p.dtype}`)}`,
    );
    return `ParameterDict(\n${lines.join("\n")}\n)`;
  }
}
