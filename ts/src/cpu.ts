/**
 * `torch.cpu`: the CPU backend's module, with PyTorch's common device-module members and its
 * memory budget.
 *
 * The CPU backend's tensors live in the wasm core's heap, which is at most 4 GiB (one block at
 * most 2 GiB). Every allocation is checked against a budget before it is made — tensors, a
 * kernel's scratch, and the host-side tables the TS layer builds from sizes (index lists,
 * interpolation weights) — so a size too big for the heap is an `OutOfMemoryError` at the call,
 * never a trap or a V8 fatal error.
 *
 * @module
 */

import { core } from "./runtime.js";
import { budgetArg } from "./args.js";

/** The device type's name. */
export const name = "cpu";

/** Always true: the CPU backend exists wherever webtorch runs. */
export function is_available(): boolean {
  return true;
}

/** 1: webtorch has one CPU device. */
export function device_count(): number {
  return 1;
}

/**
 * Resolves once CPU work is done: at once, except for CPU copies of GPU tensors made without
 * waiting (`t.cpu()`), whose values arrive with the GPU's read (and the work recorded on them
 * runs then).
 */
export async function synchronize(): Promise<void> {
  await core.sync();
}

/** The CPU budget in bytes: live CPU tensors plus one op's scratch stay below it (default 3 GiB). */
export function memory_budget(): number {
  return core.memory_budget(0);
}

/**
 * Sets the CPU budget in bytes (`null`: the default, 3 GiB). An allocation that would exceed it
 * throws `OutOfMemoryError` before anything is allocated.
 */
export function set_memory_budget(bytes: number | null): void {
  core.set_memory_budget(0, budgetArg(bytes));
}
