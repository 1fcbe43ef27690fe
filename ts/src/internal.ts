/**
 * `torch._C`: a window onto the wasm core for webtorch's own tests and tools (like PyTorch's
 * `torch._C`). Not a stable API.
 *
 * @module
 */

import { core } from "./runtime.js";
import { indexPut } from "./ops/index_put.js";
import type { Tensor } from "./tensor/tensor.js";
import { writeBack } from "./tensor/write_back.js";

/** Every op-table row name of the core, in id order. */
export function op_names(): string[] {
  return core.op_names();
}

/** The arity (1 or 2) of an op-table row by name; -1 when the core has no such row. */
export function op_arity(name: string): number {
  if (typeof name !== "string") return -1;
  const id = core.op_id(name);
  return id < 0 ? -1 : core.op_arity(id);
}

/** The WebGPU adapter's description and limits, or `null` on the CPU backend. */
export function adapter_info(): unknown {
  return core.adapter_info();
}

/** Destroys the WebGPU device as a device loss would (fault tests). */
export function debug_destroy_device(): void {
  core.debug_destroy_device();
}

/**
 * Records an out-of-memory error as the WebGPU device reports a refused buffer (fault tests: the
 * next read or sync must raise it as an `OutOfMemoryError`).
 */
export function debug_device_oom(): void {
  core.debug_device_oom();
}

/** Makes the core panic (tests prove the engine survives it). */
export function debug_panic(): void {
  core.debug_panic();
}

/**
 * Makes the next pass through one of the core's fault points panic — places where the engine,
 * a backend or a tensor holds its state borrowed ({@link debug_fault_points}) — so that tests
 * can prove a panic there leaves nothing borrowed. `""` disarms.
 */
export function debug_panic_at(point: string): void {
  core.debug_panic_at(point);
}

/** The fault points {@link debug_panic_at} accepts. */
export function debug_fault_points(): string[] {
  return core.debug_fault_points();
}

/**
 * The core's classes whose calls tests count: `RawTensor` (one method per op) and `Graph` (a
 * captured `torch.compile` step).
 */
export function core_classes(): { RawTensor: unknown; Graph: unknown } {
  return { RawTensor: core.RawTensor, Graph: core.Graph };
}

/**
 * Runs `fn` and counts the calls it makes into the core through its classes (`RawTensor`
 * methods and statics, `RawTensorList`, `OptimGroup`, `Plan`): how tests prove that a step is one
 * call per parameter group. Module-level core functions are not counted.
 */
export function count_core_calls(fn: () => void): Record<string, number> {
  const counts: Record<string, number> = {};
  const restore: [Record<string, unknown>, string, unknown][] = [];
  const classes = [
    core.RawTensor,
    core.RawTensorList,
    core.OptimGroup,
    core.Plan,
  ] as unknown as (Record<string, unknown> & {
    prototype: Record<string, unknown>;
  })[];
  const patch = (target: Record<string, unknown>, name: string) => {
    const f = target[name];
    if (
      typeof f !== "function" ||
      name === "constructor" ||
      name.startsWith("__")
    )
      return;
    restore.push([target, name, f]);
    target[name] = function (this: unknown, ...args: unknown[]) {
      counts[name] = (counts[name] ?? 0) + 1;
      return (f as (...a: unknown[]) => unknown).apply(this, args);
    };
  };
  for (const cls of classes) {
    for (const name of Object.getOwnPropertyNames(cls.prototype))
      patch(cls.prototype, name);
    for (const name of Object.getOwnPropertyNames(cls)) patch(cls, name);
  }
  try {
    fn();
  } finally {
    for (const [target, name, f] of restore.reverse()) target[name] = f;
  }
  return counts;
}

/**
 * PyTorch's ATen `index_put` (`torch.ops.aten.index_put`): `null` among the indices is a whole
 * dim, which the public `index_put` refuses as PyTorch's does. For the parity tests, which compare
 * it with the ATen op.
 */
export function aten_index_put(
  input: Tensor,
  indices: readonly (Tensor | null)[],
  values: Tensor | number | boolean,
  accumulate = false,
): Tensor {
  return indexPut(input, indices, values, accumulate);
}

/** {@link aten_index_put} in place (`torch.ops.aten.index_put_`). */
export function aten_index_put_(
  input: Tensor,
  indices: readonly (Tensor | null)[],
  values: Tensor | number | boolean,
  accumulate = false,
): Tensor {
  return writeBack(input, indexPut(input, indices, values, accumulate));
}
