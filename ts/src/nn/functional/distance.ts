/**
 * `torch.nn.functional`'s distance functions: `pairwise_distance` and `cosine_similarity`.
 *
 * @module
 */

import { args } from "../../schema/index.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";

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
    if (p === 1) return d.sum(-1, keepdim);
    if (p === 2) return d.square().sum(-1, keepdim).sqrt();
    return d
      .pow(p)
      .sum(-1, keepdim)
      .pow(1 / p);
  });
}

/** `x1·x2 / max(‖x1‖·‖x2‖, eps)` along `dim`. */
export function cosine_similarity(
  x1: Tensor,
  x2: Tensor,
  dim?: number,
  eps?: number,
): Tensor {
  ({ x1, x2, dim, eps } = args("nn.functional.cosine_similarity", arguments));
  return scope(() => {
    const n1 = x1.square().sum(dim).sqrt();
    const n2 = x2.square().sum(dim).sqrt();
    return x1.mul(x2).sum(dim).div(n1.mul(n2).maximum(eps));
  });
}
