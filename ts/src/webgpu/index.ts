/**
 * `torch.webgpu`: controls of the WebGPU execution model that PyTorch does not have — batching,
 * synchronisation, fusion, memory — named as in the torch.js design (seeds/000). What each knob
 * means is in docs/webgpu.md.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { core } from "../runtime.js";
import { budgetArg } from "../args.js";
import {
  memoryWarningState,
  setMemoryWarning,
  type MemoryWarningOptions,
  type MemoryWarningState,
} from "./pressure.js";

export type { MemoryWarningOptions, MemoryWarningState };

// ---- batching ----

/** The threshold batching uses while it is enabled (set_batch_threshold; default 64). */
let batchThreshold = 64;
let batchingEnabled = true;

/** Submits pending commands and resolves once the GPU has finished all of them. */
export async function sync_device(): Promise<void> {
  await core.sync();
}

/** Whether a WebGPU device is in use (an adapter was found and a device created). */
export function is_available(): boolean {
  return core.webgpu_available();
}

/** Computes pending tensors, ends the open compute pass and submits it now, without waiting. */
export function flush_batch(): void {
  core.flush();
}

/** Submits automatically once `n` commands are pending (default 64). */
export function set_batch_threshold(n: number): void {
  if (!Number.isInteger(n) || n < 1) {
    throw new TorchError(
      `set_batch_threshold(): expected a positive integer, got ${n}`,
    );
  }
  batchThreshold = n;
  if (batchingEnabled) core.set_batch_threshold(n);
}

/** Submits automatically `ms` milliseconds after the first pending command (default 16; 0 turns the timer off). */
export function set_batch_delay(ms: number): void {
  if (!Number.isInteger(ms) || ms < 0) {
    throw new TorchError(
      `set_batch_delay(): expected a non-negative integer, got ${ms}`,
    );
  }
  core.set_batch_delay(ms);
}

/** Submits every command on its own (for debugging); {@link enable_batching} undoes it. */
export function disable_batching(): void {
  batchingEnabled = false;
  core.set_batch_threshold(1);
}

/** Batches commands again, with the threshold last given to {@link set_batch_threshold}. */
export function enable_batching(): void {
  batchingEnabled = true;
  core.set_batch_threshold(batchThreshold);
}

/** Whether commands are batched (see {@link disable_batching}). */
export function is_batching_enabled(): boolean {
  return batchingEnabled;
}

/** The number of commands recorded but not yet submitted (on the default device). */
export function get_pending_count(): number {
  return core.pending_count();
}

/**
 * Runs `fn` as one batch: no threshold or timer submits inside it, one flush when it returns (or
 * throws). Resolves the same value as `fn`; when `fn` returns a Promise, the batch ends when it
 * settles.
 *
 * @example const z = torch.webgpu.batch(() => torch.relu(torch.add(x, bias)));
 */
export function batch<T>(fn: () => T): T {
  core.begin_batch();
  let result: T;
  try {
    result = fn();
  } catch (err) {
    try {
      core.end_batch();
    } catch {
      // the error from fn is the one to report
    }
    throw err;
  }
  if (result instanceof Promise) {
    return result.finally(() => core.end_batch()) as T;
  }
  core.end_batch();
  return result;
}

// ---- fusion ----

/** Fusion counters since the last reset (`get_fusion_stats()`). */
export interface FusionStats {
  /** Kernels that fused two or more ops. */
  fusions: number;
  /** Ops that ran inside such kernels. */
  fused_ops: number;
  /** Elementwise ops that ran on their own because the tensor was below the minimum size. */
  bypasses: number;
  /** Fused kernels containing each named pattern, by pattern name. */
  patterns: Record<string, number>;
}

/** A named op sequence the fusion statistics count (`add_fusion_pattern`). */
export interface FusionPattern {
  /** The op-table names, in order (e.g. `["add", "relu"]`). */
  ops: string[];
  /** The name the statistics use. */
  name: string;
  /** What the pattern is. */
  description?: string;
}

/** Fuses chains of elementwise ops into single kernels (the default). */
export function enable_fusion(): void {
  core.set_fusion_enabled(true);
}

/** Runs every op as its own kernel (pending tensors are computed first). */
export function disable_fusion(): void {
  core.set_fusion_enabled(false);
}

/** Whether fusion is on. */
export function is_fusion_enabled(): boolean {
  return core.is_fusion_enabled();
}

/** How many ops back a pending input may be inlined from (default 4). */
export function set_fusion_window(n: number): void {
  core.set_fusion_window(n);
}

/** Tensors with fewer elements than this run unfused (default 1024). */
export function set_fusion_min_size(n: number): void {
  core.set_fusion_min_size(n);
}

/** Fusion counters: fused kernels, fused ops, bypasses, and kernels per named pattern. */
export function get_fusion_stats(): FusionStats {
  return plain(core.fusion_stats()) as FusionStats;
}

/** Zeroes the fusion counters. */
export function reset_fusion_stats(): void {
  core.reset_fusion_stats();
}

/** Adds (or replaces, by name) a pattern the fusion statistics count. */
export function add_fusion_pattern(pattern: FusionPattern): void {
  core.add_fusion_pattern(
    pattern.name,
    [...pattern.ops],
    pattern.description ?? "",
  );
}

/** Every pattern the statistics count, built-in ones first. */
export function get_fusion_patterns(): FusionPattern[] {
  return plain(core.fusion_patterns()) as FusionPattern[];
}

// ---- memory and runtime ----

/** Counters of the default device's runtime (`torch.webgpu.runtime_stats()`). */
export interface RuntimeStats {
  /** Command buffers submitted to the GPU queue. */
  submits: number;
  /** Compute dispatches recorded. */
  dispatches: number;
  /** Buffer-to-buffer copies recorded (commands, not dispatches: a fused optimizer step's gathers). */
  copies: number;
  /** Device-side index/value checks dispatched (their failures raise at the next read or sync). */
  value_checks: number;
  /** Reads and syncs that fetched the checks' error buffer (only those after a check do). */
  check_reads: number;
  /** Compute pipelines in the cache. */
  pipelines: number;
  /** Buffers allocated from the device. */
  allocations: number;
  /** Buffer requests served from the pool. */
  reuses: number;
  /** Bytes held by live tensors. */
  active_bytes: number;
  /** Bytes held by the pool for reuse. */
  pooled_bytes: number;
  /** Highest `active_bytes` so far. */
  peak_bytes: number;
  /** Tensor handles not yet freed. */
  live_tensors: number;
  /** Replays of `torch.compile` kernel graphs (docs/compile.md). */
  graph_replays: number;
  /** Dispatches those replays encoded (included in `dispatches`). */
  graph_dispatches: number;
  /**
   * Bytes those replays copied in from inputs, out into outputs and back into state (the rest
   * they bind or write in place: docs/compile.md).
   */
  graph_copy_bytes: number;
  /**
   * Tiny float32 ops run inside batched launches (one dispatch runs many of them; on by default
   * except on adapters that emulate a GPU on the CPU: bench/KERNELS.md).
   */
  batched_ops: number;
}

/** Memory figures of the default device (`memory_stats()`), in bytes. */
export interface MemoryStats {
  /** Bytes held by live tensors. */
  active_bytes: number;
  /** Bytes held by the pool for reuse. */
  pooled_bytes: number;
  /** Highest `active_bytes` so far. */
  peak_bytes: number;
  /** Buffers allocated from the device so far. */
  allocations: number;
  /** Buffer requests served from the pool so far. */
  reuses: number;
}

/** Runtime counters: submits, dispatches, pipelines, allocations, pool reuse, bytes, live tensors. */
export function runtime_stats(): RuntimeStats {
  return plain(core.runtime_stats()) as RuntimeStats;
}

/** Memory use of the default device: active, pooled and peak bytes, allocations, reuses. */
export function memory_stats(): MemoryStats {
  const s = runtime_stats();
  return {
    active_bytes: s.active_bytes,
    pooled_bytes: s.pooled_bytes,
    peak_bytes: s.peak_bytes,
    allocations: s.allocations,
    reuses: s.reuses,
  };
}

/** {@link memory_stats} as a few readable lines. */
export function memory_summary(): string {
  const s = runtime_stats();
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(2)} MiB`;
  return [
    `webtorch memory (${String((s as unknown as { device?: string }).device ?? "default device")})`,
    `  active: ${mb(s.active_bytes)} in ${s.live_tensors} live tensors`,
    `  pooled: ${mb(s.pooled_bytes)}`,
    `  peak:   ${mb(s.peak_bytes)}`,
    `  allocations: ${s.allocations}, reused from the pool: ${s.reuses}`,
  ].join("\n");
}

/** Frees the buffers the pool holds for reuse. */
export function empty_cache(): void {
  core.empty_cache();
}

/** The WebGPU adapter: `{name, vendor, architecture, description, backend, features, limits}`; `null` without WebGPU. */
export function getCapabilities(): Capabilities | null {
  return plain(core.adapter_info()) as Capabilities | null;
}

/** What {@link getCapabilities} returns. */
export interface Capabilities {
  /** The adapter's name (e.g. "SwiftShader driver 5.0.0"). */
  name: string;
  /** The vendor, as the browser reports it. */
  vendor: string;
  /** The architecture, as the browser reports it. */
  architecture: string;
  /** A description, as the browser reports it. */
  description: string;
  /** The wgpu backend ("BrowserWebGpu"). */
  backend: string;
  /** The WebGPU features the adapter offers, in WebGPU's spelling (`"timestamp-query"`, `"shader-f16"`). */
  features: string[];
  /** The limits webtorch relies on, by WebGPU name (`maxBufferSize`, …). */
  limits: Record<string, number>;
}

/** Logs the WGSL of every kernel when it is compiled (the engine's debug flag). */
export function set_debug_print_shaders(on: boolean): void {
  core.set_debug_print_shaders(on);
}

/** Maps (as serde-wasm-bindgen emits them) to plain objects, recursively. */
function plain(value: unknown): unknown {
  if (value instanceof Map) {
    return Object.fromEntries(
      [...value].map(([k, v]) => [String(k), plain(v)]),
    );
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, plain(v)]),
    );
  }
  return value;
}

/** Starts peak-memory tracking afresh (`memory_stats().peak_bytes` = the active bytes now). */
export function reset_peak_memory_stats(): void {
  core.reset_peak_memory_stats();
}

/** One live tensor handle in {@link leak_report}. */
export interface LeakEntry {
  id: number;
  shape: number[];
  dtype: string;
  device: string;
  bytes: number;
  /** Where it was made (JS stack), when {@link set_leak_tracking} is on; else null. */
  stack: string | null;
}

/** Every live tensor handle, oldest first: what `dispose`/`scope` have not released yet. */
export function leak_report(): LeakEntry[] {
  return core.leak_report() as LeakEntry[];
}

/** Records the JS stack of each new tensor for {@link leak_report} (slow; for leak hunting). */
export function set_leak_tracking(on: boolean): void {
  core.set_leak_tracking(on);
  // The core's frames come first in the stack: keep enough to reach the caller's.
  const E = Error as { stackTraceLimit?: number };
  if (on && (E.stackTraceLimit ?? 0) < 50) E.stackTraceLimit = 50;
}

/**
 * Sets the memory-pressure warning: a one-time `console.warn` when live tensor memory keeps
 * growing over many tensors made outside `torch.scope` while almost none are disposed — the
 * sign of results left to the garbage collector, which frees them late (docs/webgpu.md).
 * `false` turns it off, `true` on; an object changes the thresholds (`bytes`: the growth that
 * fires it, default 256 MiB; `ops`: how many tensors the growth must span, default 512). Each
 * call arms it afresh, so it may fire once more. It watches the default device.
 *
 * @example torch.webgpu.set_memory_warning(false); // a program that knowingly relies on the GC
 */
export function set_memory_warning(
  options: boolean | MemoryWarningOptions,
): void {
  setMemoryWarning(options);
}

/** The memory-pressure warning's settings and counters (see {@link set_memory_warning}). */
export function memory_warning(): MemoryWarningState {
  return memoryWarningState();
}

/**
 * A new WebGPU device, after a device loss (ops on the lost one throw `DeviceError`) or to retry;
 * tensors of the old device stay invalid. Resolves to the default device's name.
 */
export async function initialize_device(): Promise<string> {
  return core.initialize_device();
}

export {
  autotune_matmul,
  autotune_cache,
  load_autotune_cache,
  clear_autotune,
  type AutotuneOptions,
  type AutotuneResult,
  type AutotuneCache,
  type MatmulShape,
} from "./autotune.js";

/**
 * The WebGPU memory budget in bytes, or `null` when none is set (the default: the device's own
 * memory is the limit, and a refusal is reported by the next read or sync).
 */
export function memory_budget(): number | null {
  const b = core.memory_budget(1);
  return b < 0 ? null : b;
}

/**
 * Caps the bytes live tensors and the buffer pool may hold on the WebGPU device (`null`: no cap),
 * as `torch.cuda.set_per_process_memory_fraction` caps a CUDA process. An allocation that would
 * pass it first empties the pool and tries again, as PyTorch's caching allocator does; past the
 * budget even then it throws `OutOfMemoryError` ("WebGPU out of memory. Tried to allocate …")
 * before anything is allocated.
 */
export function set_memory_budget(bytes: number | null): void {
  core.set_memory_budget(1, budgetArg(bytes));
}
