/**
 * `torch.webgpu`: controls of the WebGPU execution model that PyTorch does not have (batching,
 * synchronisation, statistics), named as in the torch.js design (seeds/000). More of the
 * namespace (fusion, memory) arrives with the runtime features behind it.
 *
 * @module
 */

import { core } from "./runtime.js";

/** Counters of the runtime since init (`torch.webgpu.runtime_stats()`). */
export interface RuntimeStats {
  /** Command buffers submitted to the GPU queue. */
  submits: number;
  /** Compute dispatches recorded. */
  dispatches: number;
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
}

/** Submits pending commands and resolves once the GPU has finished all of them. */
export async function sync_device(): Promise<void> {
  await core.sync();
}

/** Whether a WebGPU device is in use (an adapter was found and a device created). */
export function is_available(): boolean {
  return core.webgpu_available();
}

/** Ends the open compute pass and submits it now, without waiting. */
export function flush_batch(): void {
  core.flush();
}

/** Submits automatically once `n` commands are pending (default 64). */
export function set_batch_threshold(n: number): void {
  core.set_batch_threshold(n);
}

/** Submits automatically `ms` milliseconds after the first pending command (default 16; 0 turns the timer off). */
export function set_batch_delay(ms: number): void {
  core.set_batch_delay(ms);
}

/** The number of commands recorded but not yet submitted. */
export function get_pending_count(): number {
  return core.pending_count();
}

/** Runtime counters: submits, dispatches, pipelines, allocations, pool reuse, bytes, live tensors. */
export function runtime_stats(): RuntimeStats {
  return core.runtime_stats() as RuntimeStats;
}
