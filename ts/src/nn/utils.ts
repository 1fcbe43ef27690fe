/**
 * `torch.nn.utils`: gradient clipping and flattening parameters into one vector (everything stays
 * on the device: the clip coefficient is a tensor, never read back to JS), and `rnn`, the
 * packed sequences of rnn_utils.ts.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { Tensor } from "../tensor/tensor.js";
import { no_grad } from "../autograd/grad_mode.js";
import { arange, zeros } from "../ops/creation.js";
import { cat } from "../ops/indexing.js";

function list(parameters: Tensor | Iterable<Tensor>): Tensor[] {
  return parameters instanceof Tensor ? [parameters] : [...parameters];
}

/**
 * Scales the gradients of `parameters` in place so that their joint `norm_type` norm is at most
 * `max_norm`; returns the norm before clipping (a 0-d tensor, still on the device). PyTorch's
 * `error_if_nonfinite` would need a device read here: check the returned norm instead.
 */
export function clip_grad_norm_(
  parameters: Tensor | Iterable<Tensor>,
  max_norm: number,
  norm_type = 2,
): Tensor {
  return no_grad(() => {
    const grads = list(parameters)
      .map((p) => p.grad)
      .filter((g): g is Tensor => g !== null);
    if (grads.length === 0) return zeros([]);
    const inf = norm_type === Infinity;
    // Σ |g|^p over every gradient (max |g| for p = ∞), accumulated on the device.
    let acc: Tensor | null = null;
    for (const g of grads) {
      const a = g.abs();
      const p = inf ? a : norm_type === 2 ? a.square() : a.pow(norm_type);
      const s = inf ? p.amax() : p.sum();
      if (p !== a) p.dispose();
      a.dispose();
      if (acc === null) acc = s;
      else {
        const next: Tensor = inf ? acc.maximum(s) : acc.add(s);
        acc.dispose();
        s.dispose();
        acc = next;
      }
    }
    const total = inf ? acc! : acc!.pow(1 / norm_type);
    if (total !== acc) acc!.dispose();
    // coef = min(max_norm / (total + 1e-6), 1)
    const denom = total.add(1e-6);
    const ratio = denom.reciprocal().mul(max_norm);
    const coef = ratio.minimum(1);
    for (const g of grads) {
      g.mul_(coef);
      g.dispose();
    }
    for (const t of [denom, ratio, coef]) t.dispose();
    return total;
  });
}

/** Clamps every gradient of `parameters` into `[-clip_value, clip_value]` in place. */
export function clip_grad_value_(
  parameters: Tensor | Iterable<Tensor>,
  clip_value: number,
): void {
  no_grad(() => {
    for (const p of list(parameters)) {
      const g = p.grad;
      if (g) {
        g.clamp_(-clip_value, clip_value);
        g.dispose();
      }
    }
  });
}

/** All of `parameters` flattened and joined into one 1-D tensor (differentiable). */
export function parameters_to_vector(parameters: Iterable<Tensor>): Tensor {
  const flat = [...parameters].map((p) => p.reshape([-1]));
  try {
    return cat(flat);
  } finally {
    for (const f of flat) f.dispose();
  }
}

/** Writes consecutive slices of `vec` into `parameters` (in place, without gradient). */
export function vector_to_parameters(
  vec: Tensor,
  parameters: Iterable<Tensor>,
): void {
  if (vec.ndim !== 1)
    throw new TorchError(
      `expected torch.Tensor, but got: ${vec.ndim}-D tensor`,
    );
  no_grad(() => {
    let offset = 0;
    for (const p of parameters) {
      const n = p.numel();
      const idx = arange(offset, offset + n, { device: vec.device });
      const part = vec.index_select(0, idx);
      p.copy_(part.reshape([...p.shape]));
      idx.dispose();
      part.dispose();
      offset += n;
    }
  });
}
export * as rnn from "./rnn_utils.js";
