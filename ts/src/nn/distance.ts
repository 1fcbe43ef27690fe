/**
 * Distance modules: `PairwiseDistance` and `CosineSimilarity` (over `F.pairwise_distance` and
 * `F.cosine_similarity`).
 *
 * @module
 */

import type { Tensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
import * as F from "./functional/index.js";
import { Module } from "./module.js";

/** `‖x1 - x2 + eps‖_p` along the last dim. */
export class PairwiseDistance extends Module {
  /** The norm's order (PyTorch's `p`). */
  readonly norm: number;
  constructor(
    p = 2,
    readonly eps = 1e-6,
    readonly keepdim = false,
  ) {
    super();
    const a = args("nn.PairwiseDistance", arguments);
    this.norm = a.p;
    Object.assign(this, { eps: a.eps, keepdim: a.keepdim });
  }
  override forward(x1: Tensor, x2: Tensor): Tensor {
    return F.pairwise_distance(x1, x2, this.norm, this.eps, this.keepdim);
  }
}

/** Cosine similarity along `dim`. */
export class CosineSimilarity extends Module {
  constructor(
    readonly dim = 1,
    readonly eps = 1e-8,
  ) {
    super();
    Object.assign(this, args("nn.CosineSimilarity", arguments));
  }
  override forward(x1: Tensor, x2: Tensor): Tensor {
    return F.cosine_similarity(x1, x2, this.dim, this.eps);
  }
}
