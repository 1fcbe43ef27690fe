/**
 * The memory-pressure warning (docs/webgpu.md, "Tensors left to the garbage collector").
 *
 * A tensor that is never disposed is freed only when the garbage collector finalizes its handle,
 * which a loop of tensor ops rarely prompts (the handles are small JS objects; the memory they
 * hold is in the wasm heap or on the GPU, which the collector does not see). Meanwhile live
 * memory grows and the pool cannot hand a freed buffer to the next op. This module notices that
 * pattern cheaply and says so once.
 *
 * What it counts: tensors made outside any {@link scope} (or returned out of the outermost one),
 * and `dispose()` calls other than a scope's own. Every `interval` such tensors it reads the live
 * bytes of the default device (`runtime_stats().active_bytes`). A window is *growing* when the
 * live bytes rose since the previous sample and at most 7/8 of the tensors made in it were
 * disposed. It warns — provided at least 3/4 of the tensors made over them are still alive
 * (building a model frees most of its temporaries and keeps a few weights) — when consecutive
 * growing windows cover at least `ops` tensors and the live
 * bytes rose by at least `bytes` over them — or, for fast growth, at least 4 × `bytes` over a
 * quarter as many tensors (a loop of large tensors fills a GPU long before 512 of them). Growth
 * that stops (weights allocated once) ends the run of growing windows, so it never adds up to a
 * warning, and the tensors `torch.load` makes are not counted at all. The cost per op is an increment and
 * a comparison; none at all for tensors made inside a scope, or once the warning is off or shown.
 *
 * @module
 */

import { core } from "../runtime.js";
import { TorchError } from "../errors.js";
import { warn } from "../warnings.js";

/** Settings of the memory-pressure warning (`torch.webgpu.set_memory_warning`). */
export interface MemoryWarningOptions {
  /** Whether the warning may fire. Default true. */
  enabled?: boolean;
  /** Growth of live tensor bytes (over the growing windows) that fires it. Default 256 MiB. */
  bytes?: number;
  /**
   * How many tensors made outside a scope the growth must span (a one-time allocation of fewer
   * tensors never fires it). Default 512; a quarter of it when the growth is 4 × `bytes`.
   */
  ops?: number;
}

/** The warning's settings and where its detector stands (`torch.webgpu.memory_warning()`). */
export interface MemoryWarningState {
  /** Whether the warning may fire. */
  enabled: boolean;
  /** The growth in bytes that fires it. */
  bytes: number;
  /** The number of tensors the growth must span. */
  ops: number;
  /** Whether it has fired since it was last armed. */
  fired: boolean;
  /** Tensors made outside any scope since it was last armed. */
  made: number;
  /** `dispose()` calls (other than a scope's own) since it was last armed. */
  disposed: number;
  /** Tensors covered by the current run of growing windows. */
  growing_ops: number;
  /** Live bytes gained over the current run of growing windows. */
  growing_bytes: number;
}

const DEFAULT_BYTES = 256 * 2 ** 20;
const DEFAULT_OPS = 512;

let enabled = true;
let limitBytes = DEFAULT_BYTES;
let limitOps = DEFAULT_OPS;
/** Tensors per sample: a growing run needs about 8 samples. */
let interval = Math.max(16, Math.ceil(DEFAULT_OPS / 8));
let fired = false;

let made = 0;
let disposed = 0;
/** `made` at which the next sample is taken (Infinity while off or after firing). */
let next = interval;

let lastBytes = -1;
let lastDisposed = 0;
let runOps = 0;
let runStart = 0;
/** Live tensor handles when the run of growing windows began. */
let runLive = 0;

/** Nesting depth of {@link uncounted} calls: tensors made meanwhile are not counted. */
let quiet = 0;

/**
 * Runs `fn` without counting the tensors it makes: allocations that are meant to stay, such as a
 * file's tensors in `torch.load`.
 */
export function uncounted<T>(fn: () => T): T {
  quiet++;
  try {
    return fn();
  } finally {
    quiet--;
  }
}

/** Counts `n` tensors made outside any scope; samples when a window is full. */
export function noteMade(n = 1): void {
  if (quiet > 0) return;
  made += n;
  if (made >= next) sample();
}

/** Counts a `dispose()` that is not a scope's own. */
export function noteDisposed(): void {
  disposed++;
}

function sample(): void {
  next = made + interval;
  if (!enabled || fired) {
    next = Infinity;
    return;
  }
  let bytes: number;
  let live: number;
  try {
    const s = core.runtime_stats() as {
      active_bytes: number;
      live_tensors: number;
    };
    bytes = Number(s.active_bytes);
    live = Number(s.live_tensors);
  } catch {
    return; // no device yet (or a lost one): nothing to compare
  }
  const freed = disposed - lastDisposed;
  lastDisposed = disposed;
  const growing =
    lastBytes >= 0 && bytes > lastBytes && freed * 8 <= interval * 7;
  if (growing) {
    runOps += interval;
  } else {
    runOps = 0;
    runStart = bytes;
    runLive = live;
  }
  lastBytes = bytes;
  const grown = bytes - runStart;
  // Left to the collector, most tensors a loop makes are still alive; building a model makes
  // many temporaries that are freed and keeps a few weights, which is no leak.
  const kept = (live - runLive) * 4 >= runOps * 3;
  if (
    kept &&
    ((runOps >= limitOps && grown >= limitBytes) ||
      (runOps * 4 >= limitOps && grown >= 4 * limitBytes))
  ) {
    fired = true;
    next = Infinity;
    warn("memory.pressure", message(runStart, bytes, runOps));
  }
}

const MB = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** The warning's text, with the leak report's largest groups and creation sites. */
function message(from: number, to: number, ops: number): string {
  const lines = [
    `webtorch: live tensor memory grew from ${MB(from)} to ${MB(to)} over the last ${ops} tensors made outside torch.scope, and almost none of them were disposed.`,
    "Tensors left to the garbage collector are freed only when it finalizes their handles, which can be much later: memory keeps growing and the memory pool cannot reuse their buffers, so large ops run much slower (docs/webgpu.md).",
    "Fix: wrap the loop body in torch.scope(() => …) (it frees everything made inside except what it returns), declare results with `using`, or call t.dispose() when done.",
  ];
  let report: {
    shape: number[];
    dtype: string;
    bytes: number;
    stack: string | null;
  }[] = [];
  try {
    report = core.leak_report() as typeof report;
  } catch {
    // the report is a help, not a requirement
  }
  const groups = new Map<string, { n: number; bytes: number }>();
  const sites = new Map<string, { n: number; bytes: number }>();
  for (const e of report) {
    const key = `${e.dtype}[${e.shape.join(", ")}]`;
    const g = groups.get(key) ?? { n: 0, bytes: 0 };
    g.n++;
    g.bytes += e.bytes;
    groups.set(key, g);
    const site = e.stack === null ? null : callerFrame(e.stack);
    if (site !== null) {
      const s = sites.get(site) ?? { n: 0, bytes: 0 };
      s.n++;
      s.bytes += e.bytes;
      sites.set(site, s);
    }
  }
  const top = (m: Map<string, { n: number; bytes: number }>) =>
    [...m].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 3);
  if (groups.size > 0) {
    lines.push(
      `Live tensors: ${report.length}; the largest groups: ${top(groups)
        .map(([k, g]) => `${g.n} × ${k} (${MB(g.bytes)})`)
        .join(", ")}.`,
    );
  }
  if (sites.size > 0) {
    lines.push(
      "Made at (torch.webgpu.leak_report() lists every live tensor):",
      ...top(sites).map(
        ([site, s]) =>
          `  ${s.n} tensor${s.n === 1 ? "" : "s"}, ${MB(s.bytes)}: ${site}`,
      ),
    );
  } else {
    lines.push(
      "Where they were made is recorded only while torch.webgpu.set_leak_tracking(true) is on (it slows every op); torch.webgpu.leak_report() then lists each live tensor with its creation stack.",
    );
  }
  lines.push(
    "This warning is shown once; torch.webgpu.set_memory_warning(false) turns it off, set_memory_warning({ bytes, ops }) tunes it.",
  );
  return lines.join("\n");
}

/** This package's folder (the one above webgpu/), to skip its own frames in a creation stack. */
const PACKAGE_DIR = new URL("..", import.meta.url).href;

/** The first frame of a creation stack outside webtorch (the caller's line), or null. */
function callerFrame(stack: string): string | null {
  for (const raw of stack.split("\n").slice(1)) {
    const line = raw.trim();
    if (
      line === "" ||
      line.includes(PACKAGE_DIR) ||
      line.includes("wasm://") ||
      line.includes("wasm-function")
    )
      continue;
    return line.replace(/^at /, "");
  }
  return null;
}

function checkLimit(name: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 1)
    throw new TorchError(
      `set_memory_warning(): '${name}' must be a positive number, got ${String(v)}`,
    );
  return v;
}

/**
 * Turns the warning on (`true`) or off (`false`), or changes its thresholds; either way it is
 * armed afresh: its windows restart and it may fire once more.
 */
export function setMemoryWarning(
  options: boolean | MemoryWarningOptions,
): void {
  if (typeof options === "boolean") options = { enabled: options };
  else if (options === null || typeof options !== "object")
    throw new TorchError(
      `set_memory_warning(): expected a boolean or an options object, got ${String(options)}`,
    );
  const bytes =
    options.bytes === undefined
      ? limitBytes
      : checkLimit("bytes", options.bytes);
  const ops =
    options.ops === undefined ? limitOps : checkLimit("ops", options.ops);
  if (options.enabled !== undefined) enabled = Boolean(options.enabled);
  limitBytes = bytes;
  limitOps = Math.ceil(ops);
  interval = Math.max(16, Math.ceil(limitOps / 8));
  fired = false;
  made = 0;
  disposed = 0;
  lastBytes = -1;
  lastDisposed = 0;
  runOps = 0;
  runStart = 0;
  runLive = 0;
  next = enabled ? interval : Infinity;
}

/** The warning's settings and counters. */
export function memoryWarningState(): MemoryWarningState {
  return {
    enabled,
    bytes: limitBytes,
    ops: limitOps,
    fired,
    made,
    disposed,
    growing_ops: runOps,
    growing_bytes: runOps > 0 ? lastBytes - runStart : 0,
  };
}
