/**
 * PyTorch's symbolic-shape helpers `torch.sym_float`, `torch.sym_int` and `torch.sym_not` on the
 * plain values JS has (webtorch has no symbolic sizes, so each is Python's `float(a)`,
 * `int(a)` — truncation toward zero — and `not a`). A tensor's value would need a read, which
 * is asynchronous on WebGPU: tensors are refused (use `await t.item()` first).
 *
 * @module
 */

import { ArgumentError, OverflowError, TorchError } from "../errors.js";
import { args } from "../schema/index.js";
import { pyTypeName } from "../args.js";
import { Tensor } from "../tensor/tensor.js";

function plainValue(fn: string, a: unknown): number | boolean | bigint {
  if (a instanceof Tensor)
    throw new TorchError(
      `${fn}(): webtorch reads a tensor's value asynchronously; pass await t.item() instead of the tensor`,
    );
  if (typeof a === "number" || typeof a === "boolean" || typeof a === "bigint")
    return a;
  throw new ArgumentError(
    `${fn}(): expected a number or a bool, but got ${pyTypeName(a)}`,
  );
}

/** `float(a)`: a number as a float (true → 1, a bigint → the nearest number). */
export function sym_float(a: number | boolean | bigint): number {
  const v = plainValue("sym_float", args("sym_float", arguments).a);
  return Number(v);
}

/** `int(a)`: truncates toward zero; ±inf is an `OverflowError`, NaN a `TorchError` (Python's). */
export function sym_int(a: number | boolean | bigint): number | bigint {
  const v = plainValue("sym_int", args("sym_int", arguments).a);
  if (typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (Number.isNaN(v))
    throw new TorchError("cannot convert float NaN to integer");
  if (!Number.isFinite(v))
    throw new OverflowError("cannot convert float infinity to integer");
  return Math.trunc(v) + 0; // + 0: int(-0.5) is 0, not -0
}

/** `not a`: true for 0 and false, false for any other value (NaN too: Python's `not nan` is False). */
export function sym_not(a: number | boolean | bigint): boolean {
  const v = plainValue("sym_not", args("sym_not", arguments).a);
  if (typeof v === "number") return v === 0;
  if (typeof v === "bigint") return v === 0n;
  return !v;
}
