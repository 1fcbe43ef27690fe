/**
 * Checks of tensor values that PyTorch makes before an op: class indices in range (`one_hot`,
 * `nll_loss`, `cross_entropy`), probabilities in [0, 1] (`binary_cross_entropy`, `bernoulli`),
 * non-negative finite weights (`multinomial`).
 *
 * NOTE: on the CPU backend the values are on the host and are checked at the call, as PyTorch
 * does. On WebGPU they live on the device: a check kernel runs with the op, and the next read or
 * sync throws the same error (CUDA's device-side assert, with the CPU's message; docs/webgpu.md).
 */
import { type Tensor } from "../tensor/tensor.js";

/** What {@link checkValues} raises. */
export interface ValueCheckMessage {
  /** A value to let through (e.g. `ignore_index`). */
  except?: number;
  /** `"IndexError"`, else a `TorchError`. */
  kind?: "IndexError" | "TorchError";
  /** The message for a value below `lo` (or NaN); `{}` is the value. */
  low: string;
  /** The message for a value above `hi` (default: `low`'s). */
  high?: string;
}

/**
 * PyTorch's precondition that every value of `t` lies in `[lo, hi]` (NaN fails): on the CPU
 * backend it throws now; on WebGPU the engine checks on the device and the next read or sync
 * throws the same error.
 */
export function checkValues(
  t: Tensor,
  lo: number,
  hi: number,
  m: ValueCheckMessage,
): void {
  t._raw.check_values(
    lo,
    hi,
    m.except,
    m.kind ?? "TorchError",
    m.low,
    m.high ?? m.low,
  );
}
