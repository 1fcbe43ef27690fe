/**
 * Checks of tensor values that PyTorch makes before an op: class indices in range (`one_hot`,
 * `nll_loss`, `cross_entropy`), probabilities in [0, 1] (`binary_cross_entropy`, `bernoulli`),
 * non-negative finite weights (`multinomial`).
 *
 * NOTE: on the CPU backend the values are on the host and are checked at the call, as PyTorch
 * does. On WebGPU they live on the device and checking them would need an asynchronous read, so
 * there they are not checked (docs/RELIABILITY.md, known gaps).
 */
import { core } from "./runtime.js";
import { type Tensor, type TypedArray } from "./tensor.js";

/**
 * The first value of `t` outside `[lo, hi]` (NaN is outside) that is not `except`, or
 * `undefined` when there is none or when the values are not on the host (a non-CPU tensor).
 */
export function firstOutside(
  t: Tensor,
  lo: number,
  hi: number,
  except?: number,
): number | undefined {
  if (t.device !== "cpu" || t.numel() === 0) return undefined;
  const values = core.read_cpu(t._raw) as TypedArray;
  for (const x of values) {
    const v = Number(x);
    if (!(v >= lo && v <= hi) && v !== except) return v;
  }
  return undefined;
}
