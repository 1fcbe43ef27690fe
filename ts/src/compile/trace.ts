/**
 * The tracer behind {@link compile}: records the `RawTensor` calls a function makes (tensor
 * arguments as slots), replays a recorded trace on new inputs (call by call from TS, or as one
 * core plan), and captures a stable trace's kernels as a WebGPU graph.
 *
 * @module
 */

import { core } from "../runtime.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import type { Graph, Plan, RawTensor } from "../wasm/webtorch_core.js";

type Arg =
  | { k: "slot"; i: number }
  | { k: "ext"; v: RawTensor }
  | { k: "list"; items: Arg[] }
  /** A `RawTensorList` (`cat`, `stack`): a replay makes a new one of these tensors. */
  | { k: "tlist"; items: Arg[] }
  | { k: "val"; v: unknown };

interface Call {
  fn: (...a: unknown[]) => unknown;
  name: string;
  /** -1 for a static call (`RawTensor.from_f32`). */
  self: Arg | null;
  args: Arg[];
  /** Slots of the RawTensors returned (one, or one per array element). */
  out: number[];
  grad: boolean;
}

type Out =
  | { k: "slot"; i: number }
  | { k: "ext"; v: RawTensor }
  | { k: "val"; v: unknown }
  | { k: "list"; items: Out[] }
  | { k: "obj"; entries: [string, Out][] };

export interface Trace {
  calls: Call[];
  inputs: number;
  slots: number;
  out: Out;
  /** A key of the calls, to compare consecutive traces. */
  key: string;
}

export interface Entry {
  state: "warming" | "stable" | "eager";
  trace: Trace | null;
  repeats: number;
  /** The core plan of a stable trace (null: replayed call by call from TS). */
  plan: Plan | null;
  /** The captured kernel graph (null: not captured, or refused). */
  graph: Graph | null;
  /** Whether a capture was tried (each stable trace tries once). */
  captured: boolean;
}

/** Query methods: they return plain data the TS layer reads and need no replay. */
const QUERIES = new Set([
  "meta",
  "shape",
  "strides",
  "offset",
  "dtype",
  "device",
  "numel",
  "is_contiguous",
  "version",
  "requires_grad",
  "is_leaf",
  "grad_fn_name",
  "retains_grad",
  "storage_offset",
  "constructor",
]);

let tracer: Tracer | null = null;

/** Whether a trace is being recorded now. */
export function isTracing(): boolean {
  return tracer !== null;
}

class Tracer {
  calls: Call[] = [];
  slots = new Map<RawTensor, number>();
  next = 0;
  depth = 0;
  broken: string | null = null;

  slotOf(raw: RawTensor): Arg {
    const i = this.slots.get(raw);
    return i === undefined ? { k: "ext", v: raw } : { k: "slot", i };
  }

  /** What each `RawTensorList` made while recording holds (`push` is wrapped). */
  lists = new WeakMap<object, RawTensor[]>();

  arg(a: unknown): Arg {
    if (isRaw(a)) return this.slotOf(a);
    if (Array.isArray(a) && a.some(isRaw))
      return { k: "list", items: a.map((x) => this.arg(x)) };
    if (a instanceof core.RawTensorList) {
      const items = this.lists.get(a);
      if (items !== undefined)
        return { k: "tlist", items: items.map((x) => this.arg(x)) };
    }
    if (
      a !== null &&
      typeof a === "object" &&
      "__wbg_ptr" in (a as object) &&
      !ArrayBuffer.isView(a)
    )
      this.break("a core object other than a tensor is passed to the core");
    return { k: "val", v: ArrayBuffer.isView(a) ? copyView(a) : a };
  }

  break(why: string): void {
    this.broken ??= why;
  }
}

function isRaw(a: unknown): a is RawTensor {
  return a instanceof core.RawTensor;
}

function copyView(v: ArrayBufferView): ArrayBufferView {
  const ctor = v.constructor as new (x: ArrayBufferView) => ArrayBufferView;
  return new ctor(v);
}

/** Installs the recording wrappers on `RawTensor` for the duration of `run`. */
function recording<T>(t: Tracer, run: () => T): T {
  const cls = core.RawTensor as unknown as Record<string, unknown> & {
    prototype: Record<string, unknown>;
  };
  const saved: [Record<string, unknown>, string, unknown][] = [];
  const patch = (
    target: Record<string, unknown>,
    name: string,
    isStatic: boolean,
  ) => {
    const fn = target[name];
    if (typeof fn !== "function" || QUERIES.has(name) || name.startsWith("__"))
      return;
    saved.push([target, name, fn]);
    target[name] = function (this: unknown, ...args: unknown[]) {
      if (t.depth > 0)
        return (fn as (...a: unknown[]) => unknown).apply(this, args);
      if (name === "read")
        t.break("fn reads tensor data (a data-dependent value)");
      const call: Call = {
        fn: fn as (...a: unknown[]) => unknown,
        name,
        self: isStatic ? null : t.arg(this),
        args: args.map((a) => t.arg(a)),
        out: [],
        grad: core.is_grad_enabled(),
      };
      t.depth++;
      let result: unknown;
      try {
        result = (fn as (...a: unknown[]) => unknown).apply(this, args);
      } finally {
        t.depth--;
      }
      const outs = isRaw(result)
        ? [result]
        : Array.isArray(result)
          ? result.filter(isRaw)
          : [];
      for (const r of outs) {
        const i = t.next++;
        t.slots.set(r, i);
        call.out.push(i);
      }
      t.calls.push(call);
      return result;
    };
  };
  for (const name of Object.getOwnPropertyNames(cls.prototype))
    patch(cls.prototype, name, false);
  for (const name of [
    "from_f64",
    "from_f32",
    "full",
    "arange",
    "rand",
    "randn",
    "cat",
    "stack",
    "optim_step",
  ])
    patch(cls, name, true);
  const listProto = core.RawTensorList.prototype as unknown as Record<
    string,
    unknown
  >;
  const push = listProto.push as (this: object, r: RawTensor) => void;
  saved.push([listProto, "push", push]);
  listProto.push = function (this: object, r: RawTensor) {
    const items = t.lists.get(this) ?? [];
    items.push(r);
    t.lists.set(this, items);
    push.call(this, r);
  };
  const wrapRaw = cls.__wrap as (ptr: number) => RawTensor;
  saved.push([cls, "__wrap", wrapRaw]);
  cls.__wrap = (ptr: number) => {
    if (t.depth === 0)
      t.break(
        "a core function outside RawTensor made a tensor (custom autograd, a custom kernel)",
      );
    return wrapRaw.call(cls, ptr);
  };
  try {
    return run();
  } finally {
    for (const [target, name, fn] of saved.reverse()) target[name] = fn;
  }
}

/** The key of a call sequence: names, grad modes, slots, external identities, values. */
function keyOf(
  calls: readonly Call[],
  externals: Map<RawTensor, number>,
): string {
  const arg = (a: Arg | null): string => {
    if (a === null) return "_";
    switch (a.k) {
      case "slot":
        return `s${a.i}`;
      case "ext": {
        let id = externals.get(a.v);
        if (id === undefined) {
          id = externals.size;
          externals.set(a.v, id);
        }
        return `e${id}`;
      }
      case "list":
        return `[${a.items.map(arg).join(",")}]`;
      case "tlist":
        return `L[${a.items.map(arg).join(",")}]`;
      case "val":
        return ArrayBuffer.isView(a.v)
          ? `${a.v.constructor.name}(${Array.from(a.v as unknown as ArrayLike<number>).join(",")})`
          : typeof a.v === "function"
            ? "fn"
            : (JSON.stringify(a.v) ?? "u");
    }
  };
  return calls
    .map(
      (c) =>
        `${c.name}${c.grad ? "+" : "-"}(${arg(c.self)};${c.args.map(arg).join(",")})`,
    )
    .join("|");
}

/** The traced output structure of `fn`'s result. */
function outOf(t: Tracer, r: unknown): Out {
  if (r instanceof Tensor) {
    const i = t.slots.get(r._raw);
    return i === undefined ? { k: "ext", v: r._raw } : { k: "slot", i };
  }
  if (Array.isArray(r)) return { k: "list", items: r.map((x) => outOf(t, x)) };
  if (r !== null && typeof r === "object") {
    if (Object.getPrototypeOf(r) !== Object.prototype)
      t.break(
        "fn returns an object that is not a tensor, array or plain object",
      );
    return {
      k: "obj",
      entries: Object.entries(r).map(([k, v]) => [k, outOf(t, v)]),
    };
  }
  return { k: "val", v: r };
}

/**
 * @internal Marks the trace being recorded (if any) as untraceable: TS code that turns tensor
 * data into JS values (a JS kernel, a device copy) calls this.
 */
export function _untraceable(why: string): void {
  tracer?.break(why);
}

/** Runs `fn(...args)` recording its core calls. */
export function trace(
  fn: (...args: unknown[]) => unknown,
  args: unknown[],
): { result: unknown; trace: Trace | null; reason: string | null } {
  const t = new Tracer();
  const inputs: RawTensor[] = [];
  const visit = (a: unknown) => {
    if (a instanceof Tensor && !t.slots.has(a._raw)) {
      t.slots.set(a._raw, t.next++);
      inputs.push(a._raw);
    } else if (Array.isArray(a)) a.forEach(visit);
  };
  args.forEach(visit);
  tracer = t;
  let result: unknown;
  try {
    result = recording(t, () => fn(...args));
  } finally {
    tracer = null;
  }
  if (result instanceof Promise)
    return { result, trace: null, reason: "fn is async (returns a Promise)" };
  const out = outOf(t, result);
  if (t.broken !== null) return { result, trace: null, reason: t.broken };
  return {
    result,
    trace: {
      calls: t.calls,
      inputs: inputs.length,
      slots: t.next,
      out,
      key: keyOf(t.calls, new Map()),
    },
    reason: null,
  };
}

/** The tensor arguments of a call, in slot order (each once). */
export function inputsOf(args: readonly unknown[]): RawTensor[] {
  const inputs: RawTensor[] = [];
  const visit = (a: unknown) => {
    if (a instanceof Tensor) {
      if (!inputs.includes(a._raw)) inputs.push(a._raw);
    } else if (Array.isArray(a)) a.forEach(visit);
  };
  args.forEach(visit);
  return inputs;
}

/** The tensors a trace uses but did not make (parameters, optimizer state), each once. */
function externalsOf(tr: Trace): RawTensor[] {
  const ext: RawTensor[] = [];
  const arg = (a: Arg | Out | null) => {
    if (a === null) return;
    if (a.k === "ext") {
      if (!ext.includes(a.v)) ext.push(a.v);
    } else if (a.k === "list" || a.k === "tlist")
      (a.items as (Arg | Out)[]).forEach(arg);
    else if (a.k === "obj") a.entries.forEach(([, v]) => arg(v));
  };
  for (const c of tr.calls) {
    arg(c.self);
    c.args.forEach(arg);
  }
  arg(tr.out);
  return ext;
}

/**
 * Replays `tr` call by call on `inputs` (owned by the caller); returns the raw outputs in the
 * order {@link build} consumes them (new handles for inputs and externals).
 */
function replayRaw(tr: Trace, inputs: readonly RawTensor[]): RawTensor[] {
  const slots: (RawTensor | undefined)[] = new Array(tr.slots);
  inputs.forEach((r, i) => (slots[i] = r));
  const inputSlots = inputs.length;
  // Lists made for the call being replayed (freed after it).
  const lists: { free(): void }[] = [];
  const value = (a: Arg): unknown => {
    switch (a.k) {
      case "slot":
        return slots[a.i];
      case "ext":
        return a.v;
      case "list":
        return a.items.map(value);
      case "tlist": {
        const l = new core.RawTensorList();
        lists.push(l);
        for (const x of a.items) l.push(value(x) as RawTensor);
        return l;
      }
      case "val":
        return a.v;
    }
  };
  const startGrad = core.is_grad_enabled();
  let grad = startGrad;
  const kept = new Set<number>();
  const collect = (o: Out) => {
    if (o.k === "slot") kept.add(o.i);
    else if (o.k === "list") o.items.forEach(collect);
    else if (o.k === "obj") o.entries.forEach(([, v]) => collect(v));
  };
  collect(tr.out);
  try {
    for (const c of tr.calls) {
      if (c.grad !== grad) grad = (core.set_grad_enabled(c.grad), c.grad);
      const self = c.self === null ? core.RawTensor : value(c.self);
      let r: unknown;
      try {
        r = c.fn.apply(self, c.args.map(value));
      } finally {
        for (const l of lists.splice(0)) l.free();
      }
      if (c.out.length === 1) slots[c.out[0]!] = r as RawTensor;
      else if (c.out.length > 1) {
        const list = (r as unknown[]).filter(isRaw);
        c.out.forEach((s, k) => (slots[s] = list[k]));
      }
    }
  } finally {
    if (grad !== startGrad) core.set_grad_enabled(startGrad);
    // Intermediates die with the replay (eagerly they would be garbage or disposed).
    for (let i = inputSlots; i < slots.length; i++) {
      const r = slots[i] as (RawTensor & { __wbg_ptr?: number }) | undefined;
      if (r !== undefined && !kept.has(i) && r.__wbg_ptr !== 0) r.free();
    }
  }
  const outs: RawTensor[] = [];
  const take = (o: Out) => {
    if (o.k === "slot")
      outs.push(o.i < inputSlots ? slots[o.i]!.handle() : slots[o.i]!);
    else if (o.k === "ext") outs.push(o.v.handle());
    else if (o.k === "list") o.items.forEach(take);
    else if (o.k === "obj") o.entries.forEach(([, v]) => take(v));
  };
  take(tr.out);
  return outs;
}

/** `fn`'s result structure with the raw outputs (in order) as Tensors. */
export function build(out: Out, outs: readonly RawTensor[]): unknown {
  let k = 0;
  const go = (o: Out): unknown => {
    switch (o.k) {
      case "slot":
      case "ext":
        return wrap(outs[k++]!);
      case "val":
        return o.v;
      case "list":
        return o.items.map(go);
      case "obj":
        return Object.fromEntries(o.entries.map(([key, v]) => [key, go(v)]));
    }
  };
  return go(out);
}

/** Replays `tr` on new inputs; returns `fn`'s result structure with new Tensors. */
export function replay(tr: Trace, args: unknown[]): unknown {
  return build(tr.out, replayRaw(tr, inputsOf(args)));
}

/**
 * The core plan of `tr` (one wasm call per replay), or null when a call is not one plans have
 * (then the trace is replayed call by call from TS).
 */
export function planOf(tr: Trace): Plan | null {
  const plan = new core.Plan(tr.inputs);
  const slots = new Map<number, number>();
  for (let i = 0; i < tr.inputs; i++) slots.set(i, i);
  const externals = new Map<RawTensor, number>();
  const slotOf = (a: Arg | Out): number | undefined => {
    if (a.k === "slot") return slots.get(a.i);
    if (a.k !== "ext") return undefined;
    let s = externals.get(a.v);
    if (s === undefined) {
      s = plan.external(a.v);
      externals.set(a.v, s);
    }
    return s;
  };
  const ok = (() => {
    for (const c of tr.calls) {
      if (c.out.length > 1) return false;
      const self = c.self === null ? -1 : slotOf(c.self);
      if (self === undefined) return false;
      for (const a of c.args) {
        if (a.k === "slot" || a.k === "ext") {
          const s = slotOf(a);
          if (s === undefined) return false;
          plan.arg_slot(s);
        } else if (a.k === "list" || a.k === "tlist") return false;
        else if (typeof a.v === "number") plan.arg_num(a.v);
        else if (typeof a.v === "boolean") plan.arg_bool(a.v);
        else if (a.v === undefined || a.v === null) plan.arg_none();
        else if (a.v instanceof Int32Array) plan.arg_ints(a.v);
        else if (a.v instanceof Float64Array) plan.arg_floats(a.v);
        else return false;
      }
      // A static call (an optimizer step) returns nothing.
      if (self < 0) {
        if (c.out.length > 0 || !plan.call_static(c.name, c.grad)) return false;
        continue;
      }
      const out = plan.call(c.name, self, c.grad, c.out.length === 1);
      if (out < 0) return false;
      if (c.out.length === 1) slots.set(c.out[0]!, out);
    }
    const outputs = (o: Out): boolean => {
      if (o.k === "slot" || o.k === "ext") {
        const s = slotOf(o);
        if (s === undefined) return false;
        plan.output(s);
        return true;
      }
      if (o.k === "list") return o.items.every(outputs);
      if (o.k === "obj") return o.entries.every(([, v]) => outputs(v));
      return true;
    };
    return outputs(tr.out);
  })();
  if (!ok) {
    plan.free();
    return null;
  }
  return plan;
}

/** Replays `tr` through its core plan: one wasm call. */
export function runPlan(plan: Plan, tr: Trace, args: unknown[]): unknown {
  return build(tr.out, plan.run(inputsOf(args).map((r) => r.handle())));
}

/**
 * Replays a stable trace once more while the WebGPU backend captures its kernels; returns the
 * result and the graph, or the reason it was refused (the result is then the replay's own).
 */
export function capture(
  entry: Entry,
  args: unknown[],
): { result: unknown; graph: Graph | null; reason: string | null } {
  const tr = entry.trace!;
  const inputs = inputsOf(args);
  let cap;
  try {
    cap = core.GraphCapture.begin(
      inputs.map((r) => r.handle()),
      externalsOf(tr).map((r) => r.handle()),
    );
  } catch (e) {
    return {
      result: undefined,
      graph: null,
      reason: String((e as Error).message ?? e),
    };
  }
  let outs: RawTensor[];
  try {
    const copies = cap.inputs();
    outs = entry.plan !== null ? entry.plan.run(copies) : replayRaw(tr, copies);
  } catch (e) {
    cap.abort();
    throw e;
  }
  let graph: Graph;
  try {
    graph = cap.end(
      outs.map((r) => r.handle()),
      tr.calls.some((c) => c.name === "backward"),
    );
  } catch (e) {
    return {
      result: build(tr.out, outs),
      graph: null,
      reason: String((e as Error).message ?? e),
    };
  }
  for (const r of outs) r.free();
  return { result: build(tr.out, graph.take_outputs()), graph, reason: null };
}
