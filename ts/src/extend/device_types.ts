/**
 * The types of custom devices (docs/extending.md): torch.js's `DeviceConfig` and what it takes
 * and returns. Re-exported by devices.ts.
 *
 * @module
 */

import type { DType } from "../dtype.js";

/** How a buffer is used (WebGPU's usage flags, by name). */
export type BufferUsage =
  "storage" | "uniform" | "copy-src" | "copy-dst" | "map-read" | "map-write";

/** A device's handle for one buffer (whatever the device makes; `size` in bytes). */
export interface DeviceBuffer {
  readonly size: number;
  [key: string]: unknown;
}

/** What `initialize()` resolves to. */
export interface DeviceContext {
  readonly name: string;
  readonly ready: boolean;
  /** The device's own context object (a GL context, a worker, …). */
  readonly context?: unknown;
  /** Releases the device's resources (its tensors are then unusable). */
  destroy(): void;
}

/**
 * What a device can do — "Used for operation selection and validation" (seeds/001): ops run
 * through `dispatch` only with `compute` and a dtype in `supportedDTypes`, else through the CPU;
 * tensors of other dtypes and buffers over `maxBufferSize` are refused (devices.ts).
 */
export interface DeviceCapabilities {
  readonly compute: boolean;
  readonly storage: boolean;
  readonly maxBufferSize: number;
  readonly maxWorkgroupSize: readonly [number, number, number];
  readonly maxWorkgroupsPerDimension: number;
  readonly supportedDTypes: readonly string[];
}

/**
 * One op for a device's `dispatch`: compute `op` on the input buffers (row-major, contiguous,
 * of `shapes`) into `output` (of `outShape`; binary ops broadcast as PyTorch does).
 */
export interface DispatchConfig {
  readonly op: string;
  readonly inputs: readonly DeviceBuffer[];
  readonly output: DeviceBuffer;
  readonly shapes: readonly (readonly number[])[];
  readonly outShape: readonly number[];
  readonly dtype: DType;
  readonly scalars: readonly number[];
}

/** torch.js's device configuration; `ops` and `readBufferSync` are webtorch's additions. */
export interface DeviceConfig<Name extends string = string> {
  readonly name: Name;
  /** Initializes the device: "Called when the device is first used" (once; devices.ts); resolves to its context. */
  initialize(): Promise<DeviceContext>;
  readonly capabilities: DeviceCapabilities;
  /** A buffer of `size` bytes for the given uses. */
  createBuffer(
    size: number,
    usage: BufferUsage | readonly BufferUsage[],
  ): DeviceBuffer;
  /** Runs one op (`config.op`, one of {@link DeviceConfig.ops}) on device buffers. */
  dispatch(config: DispatchConfig): void;
  /** Resolves when the work dispatched so far has finished. */
  sync(): Promise<void>;
  /** Copies host data into a buffer at `offset` bytes (uploads); optional: without it nothing moves onto the device. */
  writeBuffer?(
    buffer: DeviceBuffer,
    data: ArrayBufferView,
    offset?: number,
  ): void;
  /** Reads `size` bytes of a buffer from `offset` (`toArray`, `to("cpu")`). */
  readBuffer?(
    buffer: DeviceBuffer,
    size: number,
    offset?: number,
  ): Promise<ArrayBuffer>;
  /** A synchronous read (host-memory devices): makes `to("cpu")` and CPU fallbacks synchronous. */
  readBufferSync?(
    buffer: DeviceBuffer,
    size: number,
    offset?: number,
  ): ArrayBuffer;
  /** The ops `dispatch` computes (elementwise op names and `"matmul"`); others use the CPU. */
  readonly ops?: readonly string[];
  /** Releases a buffer (optional). */
  destroyBuffer?(buffer: DeviceBuffer): void;
}
