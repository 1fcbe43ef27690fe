/**
 * `torch.webgpu`: controls of the WebGPU execution model that PyTorch does not have — batching,
 * synchronisation, fusion, memory — named as in the torch.js design (seeds/000). What each knob
 * means is in docs/webgpu.md.
 *
 * @module
 */

import { DeviceError, TorchError } from "../errors.js";
import { core, get_default_device } from "../runtime.js";
import { budgetArg } from "../args.js";
import { args } from "../schema/index.js";
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

/**
 * "Disable batching - each op submits immediately" (seeds/000): from now on every op is computed
 * and its commands submitted before the op returns — elementwise ops are not left pending (so
 * they do not fuse with the ops after them), tiny ops are not gathered into batched launches, and
 * every command is its own submit ({@link get_pending_count} is 0 after each op). Work pending
 * when it is called is computed and submitted now. {@link enable_batching} undoes it.
 */
export function disable_batching(): void {
  batchingEnabled = false;
  core.set_batch_threshold(1);
  core.set_immediate(true);
}

/** Batches commands again, with the threshold last given to {@link set_batch_threshold}. */
export function enable_batching(): void {
  batchingEnabled = true;
  core.set_immediate(false);
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

/**
 * A named op sequence (`add_fusion_pattern`). webtorch's fuser is general: every chain of
 * elementwise ops on tensors of at least {@link set_fusion_min_size} elements, each inlined
 * within {@link set_fusion_window} ops, becomes one kernel, whatever its ops — so a pattern needs
 * no kernel of its own to be fused; it names such chains for {@link get_fusion_stats}.
 */
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

/** The largest value the fusion settings take (the core keeps them as 32-bit counts). */
const FUSION_SETTING_MAX = 2 ** 32 - 1;

function fusionSetting(name: string, n: number): number {
  if (n < 0 || n > FUSION_SETTING_MAX)
    throw new TorchError(
      `${name}: expected a non-negative integer of at most ${FUSION_SETTING_MAX}, but got ${n}`,
    );
  return n;
}

/** How many ops back a pending input may be inlined from (default 4; 0: none). */
export function set_fusion_window(n: number): void {
  const a = args("webgpu.set_fusion_window", arguments);
  core.set_fusion_window(fusionSetting("set_fusion_window", a.n));
}

/** Tensors with fewer elements than this run unfused (default 1024). */
export function set_fusion_min_size(n: number): void {
  const a = args("webgpu.set_fusion_min_size", arguments);
  core.set_fusion_min_size(fusionSetting("set_fusion_min_size", a.n));
}

/** Fusion counters: fused kernels, fused ops, bypasses, and kernels per named pattern. */
export function get_fusion_stats(): FusionStats {
  return plain(core.fusion_stats()) as FusionStats;
}

/** Zeroes the fusion counters. */
export function reset_fusion_stats(): void {
  core.reset_fusion_stats();
}

/**
 * Adds (or replaces, by name) a fusion pattern: `{ ops, name, description? }`, the op-table names
 * of an elementwise chain in order. The fuser already fuses every such chain (see
 * {@link FusionPattern}); the pattern is checked — each op must be an elementwise op the fuser
 * can inline, the name a non-empty string — listed by {@link get_fusion_patterns}, and each fused
 * kernel containing the sequence is counted under its name in `get_fusion_stats().patterns`.
 *
 * @example torch.webgpu.add_fusion_pattern({ ops: ["add", "mul", "tanh"], name: "custom_activation" });
 */
export function add_fusion_pattern(options: FusionPattern): void {
  const a = args("webgpu.add_fusion_pattern", arguments);
  if (a.name === "")
    throw new TorchError("add_fusion_pattern: the pattern's name is empty");
  if (a.ops.length === 0)
    throw new TorchError(
      `add_fusion_pattern: pattern '${a.name}' lists no ops`,
    );
  core.add_fusion_pattern(a.name, [...a.ops], a.description);
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

/**
 * Memory figures of a device (`memory_stats()`): the seed's names (`active_bytes`, `pooled_bytes`,
 * `peak_bytes`) and, for the same figures, the names of PyTorch's `torch.cuda.memory_stats()`.
 */
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
  /** PyTorch's name of `active_bytes`: bytes of live tensors. */
  "allocated_bytes.all.current": number;
  /** PyTorch's name of `peak_bytes`. */
  "allocated_bytes.all.peak": number;
  /** `active_bytes` again (webtorch frees a tensor's memory when it is released). */
  "active_bytes.all.current": number;
  /** `peak_bytes` again. */
  "active_bytes.all.peak": number;
  /** Bytes held from the device: live tensors plus the pool (`active_bytes + pooled_bytes`). */
  "reserved_bytes.all.current": number;
  /** PyTorch's name of `allocations`: buffers allocated from the device. */
  num_device_alloc: number;
}

/** Runtime counters: submits, dispatches, pipelines, allocations, pool reuse, bytes, live tensors. */
export function runtime_stats(): RuntimeStats {
  return plain(core.runtime_stats()) as RuntimeStats;
}

/** The core's code of a device (`null`: the default device). */
function deviceCode(fn: string, device: string | null): number {
  const name = device ?? get_default_device();
  if (name === "cpu") return 0;
  if (name === "webgpu") {
    if (!core.webgpu_available())
      throw new DeviceError(
        `${fn}: webgpu device is not available: no WebGPU adapter was found`,
      );
    return 1;
  }
  throw new DeviceError(
    `${fn}: expected a cpu or webgpu device, but got: ${name}`,
  );
}

function deviceStats(fn: string, device: string | null): RuntimeStats {
  return plain(core.device_stats(deviceCode(fn, device))) as RuntimeStats;
}

/**
 * Memory use of `device` (default: the default device): active, pooled and peak bytes,
 * allocations, reuses, also under PyTorch's `torch.cuda.memory_stats()` key names
 * (`"allocated_bytes.all.current"`, …). Also `torch.memory_stats`.
 */
export function memory_stats(device?: string | null): MemoryStats {
  const a = args("memory_stats", arguments);
  const s = deviceStats("memory_stats", a.device);
  return {
    active_bytes: s.active_bytes,
    pooled_bytes: s.pooled_bytes,
    peak_bytes: s.peak_bytes,
    allocations: s.allocations,
    reuses: s.reuses,
    "allocated_bytes.all.current": s.active_bytes,
    "allocated_bytes.all.peak": s.peak_bytes,
    "active_bytes.all.current": s.active_bytes,
    "active_bytes.all.peak": s.peak_bytes,
    "reserved_bytes.all.current": s.active_bytes + s.pooled_bytes,
    num_device_alloc: s.allocations,
  };
}

/**
 * {@link memory_stats} of `device` (default: the default device) as a few readable lines
 * (`abbreviated` is accepted for PyTorch's signature; the summary is short either way). Also
 * `torch.memory_summary`.
 */
export function memory_summary(
  device?: string | null,
  abbreviated?: boolean,
): string {
  const a = args("memory_summary", arguments);
  const s = deviceStats("memory_summary", a.device);
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(2)} MiB`;
  return [
    `webtorch memory (${String((s as unknown as { device?: string }).device)})`,
    `  active: ${mb(s.active_bytes)} in ${s.live_tensors} live tensors`,
    `  pooled: ${mb(s.pooled_bytes)}`,
    `  peak:   ${mb(s.peak_bytes)}`,
    `  allocations: ${s.allocations}, reused from the pool: ${s.reuses}`,
  ].join("\n");
}

/** Frees the buffers the pool holds for reuse. */
export function empty_cache(): void {
  args("empty_cache", arguments);
  core.empty_cache();
}

/**
 * What the device supports (seeds/000: "Query what the GPU supports"): the WebGPU adapter's
 * `{name, vendor, architecture, description, backend, features, limits}`. Without a WebGPU
 * adapter it describes the CPU backend webtorch runs on instead (`backend: "cpu"`, no features,
 * and the one limit that applies there, `maxBufferSize`: the largest single allocation of the
 * wasm heap, or the CPU budget when that is smaller); the workgroup limits are WebGPU's and are
 * absent there.
 */
export function getCapabilities(): Capabilities {
  args("webgpu.getCapabilities", arguments);
  const gpu = plain(core.adapter_info()) as Capabilities | null;
  if (gpu !== null) return gpu;
  return {
    name: "cpu",
    vendor: "",
    architecture: "wasm32",
    description: "webtorch's CPU backend (no WebGPU adapter)",
    backend: "cpu",
    features: [],
    limits: {
      maxBufferSize: Math.min(CPU_MAX_ALLOCATION, core.memory_budget(0)),
    },
  };
}

/** The largest single allocation of the wasm heap (`isize::MAX` bytes on wasm32). */
const CPU_MAX_ALLOCATION = 2 ** 31 - 1;

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

/**
 * Starts peak-memory tracking afresh on `device` (default: the default device):
 * `memory_stats().peak_bytes` becomes the active bytes now. Also `torch.reset_peak_memory_stats`.
 */
export function reset_peak_memory_stats(device?: string | null): void {
  const a = args("reset_peak_memory_stats", arguments);
  core.reset_peak_of(deviceCode("reset_peak_memory_stats", a.device));
}

// ---- the members PyTorch's device modules share (`torch.get_device_module("webgpu")`) ----

/** The device type's name. */
export const name = "webgpu";

function requireGpu(fn: string): void {
  if (!core.webgpu_available())
    throw new DeviceError(
      `${fn}: webgpu device is not available: no WebGPU adapter was found`,
    );
}

/** Waits for the WebGPU device's queued work (`torch.cuda.synchronize`; {@link sync_device}). */
export function synchronize(device?: string | number | null): Promise<void> {
  args("webgpu.synchronize", arguments);
  return core.sync();
}

/** The number of WebGPU devices: 1 when an adapter was found, else 0 (`torch.cuda.device_count`). */
export function device_count(): number {
  args("webgpu.device_count", arguments);
  return core.webgpu_available() ? 1 : 0;
}

/** The index of the current WebGPU device: 0, the only one (`torch.cuda.current_device`). */
export function current_device(): number {
  args("webgpu.current_device", arguments);
  requireGpu("current_device");
  return 0;
}

/** The adapter's name (`getCapabilities().name`; `torch.cuda.get_device_name`). */
export function get_device_name(device?: string | number | null): string {
  const a = args("webgpu.get_device_name", arguments);
  requireGpu("get_device_name");
  if (typeof a.device === "number" && a.device !== 0)
    throw new DeviceError(
      `get_device_name: Invalid device id ${a.device} (there is 1 webgpu device)`,
    );
  return getCapabilities().name;
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
