/**
 * `torch.nn.functional`'s distance functions: `pairwise_distance` and `cosine_similarity`.
 *
 * @module
 */

import { args } from "../../schema/index.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { broadcastPair } from "../../ops/broadcast.js";
import { DTypeError } from "../../errors.js";
import { isFloatingPoint, scalarTypeName } from "../../dtype.js";
import { promote_types } from "../../state.js";

/** `‖x1 - x2 + eps‖_p` along the last dim. */
export function pairwise_distance(
  x1: Tensor,
  x2: Tensor,
  p?: number,
  eps?: number,
  keepdim?: boolean,
): Tensor {
  ({ x1, x2, p, eps, keepdim } = args(
    "nn.functional.pairwise_distance",
    arguments,
  ));
  return scope(() => {
    const d = x1.sub(x2).add(eps).abs();
    if (p === Infinity) return d.amax(-1, keepdim);
    if (p === 0) return d.norm(0, -1, keepdim);
    if (p === 1) return d.sum(-1, keepdim);
    if (p === 2) return d.square().sum(-1, keepdim).sqrt();
    return d
      .pow(p)
      .sum(-1, keepdim)
      .pow(1 / p);
  });
}

/**
 * `Σ (x1 / max(‖x1‖, eps)) · (x2 / max(‖x2‖, eps))` along `dim`, as PyTorch computes it: each
 * input is divided by its own clamped norm (so two vectors of norm 1e-5 still have cosine 1), and
 * the clamp changes only the value — the gradient flows through the norm as if unclamped, and
 * the norm's gradient at a zero vector is 0, so a zero input has finite gradients. `dim` counts
 * in the inputs' broadcast shape (so its schema type is `int`, not `Dim`, which would count in
 * `x1`'s).
 */
export function cosine_similarity(
  x1: Tensor,
  x2: Tensor,
  dim?: number,
  eps?: number,
): Tensor {
  ({ x1, x2, dim, eps } = args("nn.functional.cosine_similarity", arguments));
  const d = dim as number;
  const e = eps as number;
  const common = promote_types(x1.dtype, x2.dtype);
  if (!isFloatingPoint(common))
    throw new DTypeError(
      `expected common dtype to be floating point, yet common dtype is ${scalarTypeName(common)}`,
    );
  return scope(() => {
    const [a, b] = broadcastPair(x1, x2);
    const unit = (x: Tensor) => {
      const n = x.norm(2, d, true);
      return x.div(n.add(n.clamp_min(e).sub(n).detach()));
    };
    return unit(a).mul(unit(b)).sum(d);
  });
}
