/**
 * Container modules: `Sequential`, `ModuleList`, `ModuleDict` (children named `"0"`, `"1"`, …
 * or by key, so state-dict keys match PyTorch's).
 *
 * @module
 */

import { IndexError, TorchError } from "../errors.js";
import { Module } from "./module.js";
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
