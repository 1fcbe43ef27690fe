/**
 * `torch.compile(fn | module, options?)` (docs/compile.md): traces `fn` at the boundary between
 * the TS layer and the wasm core — every `RawTensor` call it makes, with tensor arguments as slots
 * — once per input signature, and replays the recorded calls on later inputs, skipping the TS
 * work in between (argument parsing, wrappers, the user's own JS). Forward passes and whole
 * training steps (forward, `backward`, an optimizer step) compile.
 *
 * Guards: the signature of the arguments (tensor shapes, dtypes, devices, requires_grad; other
 * arguments by value) and what `options.guard()` returns. A trace is replayed only after two
 * consecutive calls with one signature recorded the same calls (so state the JS side builds on
 * the first call, such as optimizer buffers, and step-dependent constants show up as a change);
 * anything the tracer cannot follow (a read of tensor data, a core call outside `RawTensor`, an
 * async `fn`) makes that signature run eagerly. `torch.compiler.reset()` forgets every trace.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { warnOnce } from "../warnings.js";
import { args as parseArgs } from "../schema/index.js";
import { Tensor, forgetReads } from "../tensor/tensor.js";
import {
  build,
  capture,
  inputsOf,
  isTracing,
  planOf,
  replay,
  runPlan,
  trace,
  type Entry,
} from "./trace.js";

export { _untraceable } from "./trace.js";

/** Options of {@link compile}. */
export interface CompileOptions {
  /**
   * `"webgpu"` (default; traces whatever device the tensors are on; `"inductor"`, PyTorch's
   * default, is the same) or `"eager"` (no tracing).
   */
  backend?: "webgpu" | "inductor" | "eager" | null;
  /** Throw instead of running eagerly when a call cannot be traced. */
  fullgraph?: boolean;
  /**
   * PyTorch's dynamic-shape hint. A trace is per input shape, as `false` asks; `true` has no
   * effect here and warns once.
   */
  dynamic?: boolean | null;
  /**
   * PyTorch's optimization mode. webtorch has one compiler, `"default"`; another mode has no
   * effect here and warns once.
   */
  mode?:
    | "default"
    | "lite"
    | "reduce-overhead"
    | "max-autotune-no-cudagraphs"
    | "max-autotune"
    | null;
  /** PyTorch's backend options: none has an effect here; giving any warns once. */
  options?: Record<string, unknown> | null;
  /** Run `model` as it is, uncompiled (the result still counts its calls in `stats`). */
  disable?: boolean;
  /** Extra guard values (JS state the traced code reads: a learning rate, a flag). */
  guard?: () => readonly unknown[];
  /** Calls with equal traces before replaying. Default 2. */
  warmup?: number;
  /** Replay through a core plan (one wasm call) when every call has one. Default true. */
  plan?: boolean;
  /**
   * Capture a stable trace's kernels on WebGPU and replay them directly (pre-built pipelines,
   * buffers and bind groups; one wasm call, one submit). Default true.
   */
  graph?: boolean;
}

/** Counters of one compiled function. */
export interface CompileStats {
  /** Calls answered by a replay. */
  replays: number;
  /** Calls that recorded a trace. */
  traces: number;
  /** Calls run eagerly (untraceable signature, or `backend: "eager"`). */
  eager: number;
  /** Why signatures run eagerly. */
  reasons: string[];
  /** Stable traces replayed through a core plan (the rest replay call by call from TS). */
  planned: number;
  /** Stable traces captured as kernel graphs. */
  graphs: number;
  /** Calls answered by replaying a kernel graph. */
  graph_replays: number;
  /** Why stable traces were not captured as kernel graphs. */
  graph_reasons: string[];
}

/** A compiled function: the same call signature, plus its statistics. */
export type Compiled<F extends (...args: never[]) => unknown> = F & {
  readonly stats: CompileStats;
};

let generation = 0;

/** The guard key of a call's arguments, or null when an argument cannot be keyed. */
function signature(
  args: readonly unknown[],
  extra: readonly unknown[],
): string | null {
  const parts: string[] = [];
  const visit = (a: unknown): boolean => {
    if (a instanceof Tensor) {
      parts.push(
        `T[${a.shape.join(",")}]${a.dtype}@${a.device}${a.requires_grad ? "g" : ""}`,
      );
      return true;
    }
    if (Array.isArray(a)) {
      parts.push("[");
      const ok = a.every(visit);
      parts.push("]");
      return ok;
    }
    if (
      a === null ||
      a === undefined ||
      ["number", "boolean", "string"].includes(typeof a)
    ) {
      parts.push(JSON.stringify(a) ?? "u");
      return true;
    }
    return false;
  };
  if (!args.every(visit)) return null;
  parts.push("|", JSON.stringify(extra));
  return parts.join(" ");
}

interface Callable {
  call(...args: unknown[]): unknown;
  training?: boolean;
}

/**
 * Compiles `fn` (or a module: its `call`) into a function with the same arguments that replays
 * a trace of its core calls per input signature; see the module comment and docs/compile.md.
 */
export function compile<F extends (...args: never[]) => unknown>(
  model: F,
  options?: CompileOptions,
): Compiled<F>;
export function compile<M extends Callable>(
  model: M,
  options?: CompileOptions,
): Compiled<(...args: Parameters<M["call"]>) => ReturnType<M["call"]>>;
/** Without a model (PyTorch's decorator form): a function that compiles its argument. */
export function compile(
  model?: null,
  options?: CompileOptions,
): <F extends (...args: never[]) => unknown>(model: F) => Compiled<F>;
export function compile(
  model?: ((...args: unknown[]) => unknown) | Callable | null,
  options?: CompileOptions,
): unknown {
  const a = parseArgs("compile", arguments);
  warnIgnored(a.dynamic, a.mode, a.options);
  const o: CompileOptions = {
    backend: a.disable ? "eager" : (a.backend as CompileOptions["backend"]),
    fullgraph: a.fullgraph,
  };
  if (a.guard !== null) o.guard = a.guard;
  if (a.warmup !== null) o.warmup = a.warmup;
  if (a.plan !== null) o.plan = a.plan;
  if (a.graph !== null) o.graph = a.graph;
  if (a.model === null)
    return (m: (...args: unknown[]) => unknown) => compileModel(m, o);
  return compileModel(a.model as (...args: unknown[]) => unknown, o);
}

/**
 * Warns once for each of PyTorch's options that webtorch's compiler cannot honour: dynamic shapes,
 * a mode other than the default, backend options (docs/compile.md). `mode` and `options`
 * together are refused, as PyTorch does.
 */
function warnIgnored(dynamic: unknown, mode: unknown, options: unknown): void {
  if (mode !== null && options !== null)
    throw new TorchError(
      "Either mode or options can be specified, but both can't be specified at the same time.",
    );
  if (dynamic === true)
    warnOnce(
      "compile.dynamic",
      "webtorch: torch.compile(dynamic=True) has no effect: a trace is recorded per input shape",
    );
  if (mode !== null && mode !== "default")
    warnOnce(
      "compile.mode",
      `webtorch: torch.compile(mode="${String(mode)}") has no effect: webtorch has one compiler (mode "default")`,
    );
  if (
    options !== null &&
    typeof options === "object" &&
    Object.keys(options).length > 0
  )
    warnOnce(
      "compile.options",
      `webtorch: torch.compile(options=...) has no effect: webtorch's compiler takes none of the backend options (${Object.keys(options).join(", ")})`,
    );
}

function compileModel(
  target: ((...args: unknown[]) => unknown) | Callable,
  options: CompileOptions,
): unknown {
  const isModule =
    typeof target === "object" &&
    target !== null &&
    typeof target.call === "function";
  if (typeof target !== "function" && !isModule)
    throw new TorchError(
      `torch.compile: expected a function or a module, got ${typeof target}`,
    );
  const run = isModule
    ? (...a: unknown[]) => (target as Callable).call(...a)
    : (target as (...a: unknown[]) => unknown);
  const warmup = options.warmup ?? 2;
  const cache = new Map<string, Entry>();
  let seen = generation;
  const stats: CompileStats = {
    replays: 0,
    traces: 0,
    eager: 0,
    reasons: [],
    planned: 0,
    graphs: 0,
    graph_replays: 0,
    graph_reasons: [],
  };
  const eager = (args: unknown[], why: string | null) => {
    stats.eager++;
    if (why !== null && !stats.reasons.includes(why)) stats.reasons.push(why);
    if (why !== null && options.fullgraph)
      throw new TorchError(`torch.compile: ${why}`);
    return run(...args);
  };
  const compiled = (...args: unknown[]): unknown => {
    if (options.backend === "eager" || isTracing()) return eager(args, null);
    if (seen !== generation) {
      for (const e of cache.values()) {
        e.plan?.free();
        e.graph?.free();
      }
      cache.clear();
      seen = generation;
    }
    const extra = [
      ...(isModule ? [(target as Callable).training ?? null] : []),
      ...(options.guard?.() ?? []),
    ];
    const sig = signature(args, extra);
    if (sig === null)
      return eager(args, "an argument is neither a tensor nor a plain value");
    let entry = cache.get(sig);
    if (entry === undefined) {
      entry = {
        state: "warming",
        trace: null,
        repeats: 0,
        plan: null,
        graph: null,
        captured: false,
      };
      cache.set(sig, entry);
    }
    if (entry.state === "eager") return eager(args, null);
    if (entry.state === "stable") {
      stats.replays++;
      if (entry.graph !== null) {
        const outs = entry.graph.run(inputsOf(args).map((r) => r.handle()));
        forgetReads(); // the replay rebinds storages without moving their versions
        if (outs !== undefined) {
          stats.graph_replays++;
          return build(entry.trace!.out, outs);
        }
        // The state changed since the capture: replay the calls from now on.
        entry.graph.free();
        entry.graph = null;
      } else if (!entry.captured && options.graph !== false) {
        entry.captured = true;
        const c = capture(entry, args);
        if (c.graph !== null) {
          entry.graph = c.graph;
          stats.graphs++;
          return c.result;
        }
        if (c.reason !== null && !stats.graph_reasons.includes(c.reason))
          stats.graph_reasons.push(c.reason);
        if (c.result !== undefined) return c.result;
      }
      return entry.plan !== null
        ? runPlan(entry.plan, entry.trace!, args)
        : replay(entry.trace!, args);
    }
    stats.traces++;
    const r = trace(run, args);
    if (r.trace === null) {
      entry.state = "eager";
      stats.eager++;
      stats.traces--;
      if (r.reason !== null && !stats.reasons.includes(r.reason))
        stats.reasons.push(r.reason);
      if (options.fullgraph) throw new TorchError(`torch.compile: ${r.reason}`);
      return r.result;
    }
    entry.repeats =
      entry.trace !== null && entry.trace.key === r.trace.key
        ? entry.repeats + 1
        : 1;
    entry.trace = r.trace;
    if (entry.repeats >= warmup) {
      entry.state = "stable";
      if (options.plan !== false) {
        entry.plan = planOf(r.trace);
        if (entry.plan !== null) stats.planned++;
      }
    }
    return r.result;
  };
  Object.defineProperty(compiled, "stats", { value: stats });
  return compiled;
}

/** `torch.compiler`: reset and query the compile caches. */
export const compiler = {
  /** Forgets every trace of every compiled function (they trace again on their next call). */
  reset(): void {
    generation++;
  },
  /** Whether a trace is being recorded now. */
  is_compiling(): boolean {
    return isTracing();
  },
};
