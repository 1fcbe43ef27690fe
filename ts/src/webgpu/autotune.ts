/**
 * The matmul autotuner (`torch.webgpu.autotune_matmul`): times every matmul kernel variant on
 * this adapter for the shapes given, and records the fastest per shape class (M, N, K and the
 * batch count rounded up to powers of two) in the engine, where every later matmul of that class
 * uses it. Without tuning, a rule measured on one GPU picks the variant (docs/webgpu.md). The
 * table is cached by adapter: {@link autotune_cache} gives it, {@link load_autotune_cache} puts
 * it back (refusing a table tuned on another adapter), and `{ persist: true }` keeps it in
 * `localStorage` where the page has one.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { core } from "../runtime.js";
import { randn } from "../ops/creation.js";
import { profile } from "../profiler.js";
import { getCapabilities } from "./index.js";
import type { Tensor } from "../tensor/tensor.js";

/** A product to tune: `[m, n, k]` or `[m, n, k, batch]` (an m×k @ k×n product, batched). */
export type MatmulShape =
  readonly [number, number, number] | readonly [number, number, number, number];

/** Options of {@link autotune_matmul}. */
export interface AutotuneOptions {
  /** Timed runs per variant (the median counts; default 5). */
  reps?: number;
  /** Untimed runs per variant first (pipeline compilation; default 1). */
  warmup?: number;
  /** The variants to try (default: every variant the engine has). */
  variants?: readonly string[];
  /** Also save the table in `localStorage` under the adapter's name (where there is one). */
  persist?: boolean;
}

/** What {@link autotune_matmul} measured for one shape. */
export interface AutotuneResult {
  /** The shape class the choice applies to (e.g. `m512n64k256b1`). */
  shape_class: string;
  /** The variant chosen (the fastest median). */
  variant: string;
  /** Median time per run of each variant, in µs. */
  times_us: Record<string, number>;
  /** `"gpu"`: kernel time from timestamp queries; `"wall"`: run + completion wait on the host. */
  timing: "gpu" | "wall";
}

/** A tuned table and the adapter it was measured on ({@link autotune_cache}). */
export interface AutotuneCache {
  /** The adapter's name (`getCapabilities().name`) the table was measured on. */
  adapter: string;
  /** Variant name by shape class. */
  table: Record<string, string>;
}

const STORAGE_PREFIX = "webtorch:autotune:";

function adapterName(): string {
  return getCapabilities()?.name ?? "";
}

function requireWebGpu(fn: string): void {
  if (!core.webgpu_available())
    throw new TorchError(`${fn}() needs a WebGPU device`);
}

function checkShape(s: unknown): [number, number, number, number] {
  const ok = (v: unknown) => Number.isInteger(v) && (v as number) > 0;
  if (!Array.isArray(s) || (s.length !== 3 && s.length !== 4) || !s.every(ok))
    throw new TorchError(
      `autotune_matmul(): a shape is [m, n, k] or [m, n, k, batch] of positive integers, got ${JSON.stringify(s)}`,
    );
  return [s[0], s[1], s[2], s[3] ?? 1];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Median µs of one run of `a @ b` under the variant now forced. */
async function timeVariant(
  a: Tensor,
  b: Tensor,
  reps: number,
  warmup: number,
): Promise<[number, "gpu" | "wall"]> {
  const run = async () => {
    // A product nothing reads yet may stay pending (epilogue fusion): compute it before waiting.
    const c = a.matmul(b);
    core.flush();
    await core.sync();
    c.dispose();
  };
  for (let i = 0; i < warmup; i++) await run();
  const gpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const p = await profile(run);
    wall.push((performance.now() - t0) * 1000);
    const ns = p.gpu_events
      .filter((e) => e.kernel.startsWith("webtorch:matmul"))
      .reduce((s, e) => s + e.dur_ns, 0);
    if (ns > 0) gpu.push(ns / 1000);
  }
  return gpu.length === reps ? [median(gpu), "gpu"] : [median(wall), "wall"];
}

/**
 * Times each matmul variant on `shapes` and records the fastest for each shape's class; later
 * matmuls of those classes use it (a variant forced with the engine's `set_matmul_variant` still
 * wins, but tuning forces each variant in turn and leaves the engine on `"auto"`: force it again
 * afterwards). Resolves to what was measured. Figures, not guarantees: the GPU's clocks and other work
 * move them, so tune on an idle page.
 */
export async function autotune_matmul(
  shapes: readonly MatmulShape[],
  options: AutotuneOptions = {},
): Promise<AutotuneResult[]> {
  requireWebGpu("autotune_matmul");
  const all = core.matmul_variants().filter((v) => v !== "auto");
  const variants = options.variants ?? all;
  for (const v of variants)
    if (!all.includes(v))
      throw new TorchError(
        `autotune_matmul(): unknown variant '${v}' (one of ${all.join(", ")})`,
      );
  if (variants.length === 0)
    throw new TorchError("autotune_matmul(): no variants to try");
  const reps = options.reps ?? 5;
  const warmup = options.warmup ?? 1;
  if (
    !Number.isInteger(reps) ||
    reps < 1 ||
    !Number.isInteger(warmup) ||
    warmup < 0
  )
    throw new TorchError(
      "autotune_matmul(): reps must be a positive integer and warmup a non-negative one",
    );
  // Every shape is checked before any is tuned: a bad one leaves the table as it was.
  const checked = Array.from(shapes, checkShape);
  const results: AutotuneResult[] = [];
  for (const [m, n, k, batch] of checked) {
    const lead = batch > 1 ? [batch] : [];
    const a = randn([...lead, m, k], { device: "webgpu" });
    const b = randn([...lead, k, n], { device: "webgpu" });
    const times: Record<string, number> = {};
    let timing: "gpu" | "wall" = "gpu";
    try {
      for (const v of variants) {
        core.set_matmul_variant(v);
        const [us, how] = await timeVariant(a, b, reps, warmup);
        times[v] = us;
        if (how === "wall") timing = "wall";
      }
    } finally {
      core.set_matmul_variant("auto");
      a.dispose();
      b.dispose();
    }
    const best = variants.reduce((x, y) => (times[y]! < times[x]! ? y : x));
    const shape_class = core.matmul_shape_class(m, n, k, batch);
    core.set_matmul_tuned(shape_class, best);
    results.push({ shape_class, variant: best, times_us: times, timing });
  }
  if (options.persist) save(autotune_cache());
  return results;
}

/** The tuned table, with the adapter it belongs to (JSON-serialisable). */
export function autotune_cache(): AutotuneCache {
  const flat = core.matmul_tuned();
  const table: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) table[flat[i]!] = flat[i + 1]!;
  return { adapter: adapterName(), table };
}

/**
 * Loads a table {@link autotune_cache} gave (or, without an argument, the one saved in
 * `localStorage` for this adapter). False when the table was tuned on another adapter or none is
 * saved; nothing is loaded then. A malformed entry throws, and the table is left as it was.
 */
export function load_autotune_cache(cache?: AutotuneCache): boolean {
  requireWebGpu("load_autotune_cache");
  const c = cache ?? stored();
  if (c === null || c.adapter !== adapterName()) return false;
  if (c.table === null || typeof c.table !== "object")
    throw new TorchError("load_autotune_cache(): the cache has no table");
  const all = core.matmul_variants();
  const before = autotune_cache().table;
  for (const [cls, v] of Object.entries(c.table)) {
    if (
      typeof v !== "string" ||
      !all.includes(v) ||
      !core.set_matmul_tuned(cls, v)
    ) {
      clear_autotune();
      for (const [k, w] of Object.entries(before)) core.set_matmul_tuned(k, w);
      throw new TorchError(
        `load_autotune_cache(): bad entry ${JSON.stringify(cls)}: ${JSON.stringify(v)}`,
      );
    }
  }
  return true;
}

/** Forgets every tuned choice (the shape rule decides again). */
export function clear_autotune(): void {
  core.clear_matmul_tuned();
}

interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function storage(): StorageLike | null {
  const s = (globalThis as { localStorage?: StorageLike }).localStorage;
  return s ?? null;
}

function save(c: AutotuneCache): void {
  storage()?.setItem(STORAGE_PREFIX + c.adapter, JSON.stringify(c));
}

function stored(): AutotuneCache | null {
  const text = storage()?.getItem(STORAGE_PREFIX + adapterName());
  if (!text) return null;
  try {
    return JSON.parse(text) as AutotuneCache;
  } catch {
    return null;
  }
}
