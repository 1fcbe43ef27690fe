/**
 * The loss modules over `nn.functional`'s composite losses (functional/loss_composites.ts):
 * `HuberLoss`, `KLDivLoss`, the likelihood, margin and embedding losses and `CTCLoss`, with
 * PyTorch's constructor options (a class `weight` is a buffer, as in PyTorch's state dicts). The
 * modules of the regression and classification losses are in loss.ts.
 *
 * @module
 */

import type { Tensor } from "../tensor/tensor.js";
import * as F from "./functional/index.js";
import { args } from "../schema/index.js";
import { Module } from "./module.js";
import type { LossOptions } from "./loss.js";

abstract class Loss extends Module {
  readonly reduction: F.Reduction;
  constructor(options: LossOptions = {}) {
    super();
    this.reduction = options.reduction ?? "mean";
  }
}

/** Huber loss with threshold `delta` (default 1). */
export class HuberLoss extends Loss {
  readonly delta: number;
  constructor(options: LossOptions & { delta?: number } = {}) {
    super((options = args("nn.HuberLoss", arguments) as typeof options));
    this.delta = options.delta ?? 1;
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.huber_loss(input, target, this.reduction, this.delta);
  }
}

/** KL divergence of log-probabilities (reduction may also be `"batchmean"`). */
export class KLDivLoss extends Module {
  readonly reduction: F.Reduction | "batchmean";
  readonly log_target: boolean;
  constructor(
    options: {
      reduction?: F.Reduction | "batchmean";
      log_target?: boolean;
    } = {},
  ) {
    super();
    options = args("nn.KLDivLoss", arguments);
    this.reduction = options.reduction ?? "mean";
    this.log_target = options.log_target ?? false;
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.kl_div(input, target, this.reduction, this.log_target);
  }
}

/** Poisson negative log likelihood. */
export class PoissonNLLLoss extends Loss {
  constructor(readonly options: F.PoissonNLLOptions = {}) {
    super((options = args("nn.PoissonNLLLoss", arguments) as typeof options));
  }
  override forward(log_input: Tensor, target: Tensor): Tensor {
    return F.poisson_nll_loss(log_input, target, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Gaussian negative log likelihood: `call(input, target, var)`. */
export class GaussianNLLLoss extends Loss {
  constructor(readonly options: F.GaussianNLLOptions = {}) {
    super((options = args("nn.GaussianNLLLoss", arguments) as typeof options));
  }
  override forward(input: Tensor, target: Tensor, variance: Tensor): Tensor {
    return F.gaussian_nll_loss(input, target, variance, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Ranking hinge loss: `call(x1, x2, y)`. */
export class MarginRankingLoss extends Loss {
  readonly margin: number;
  constructor(options: LossOptions & { margin?: number } = {}) {
    super(
      (options = args("nn.MarginRankingLoss", arguments) as typeof options),
    );
    this.margin = options.margin ?? 0;
  }
  override forward(input1: Tensor, input2: Tensor, target: Tensor): Tensor {
    return F.margin_ranking_loss(
      input1,
      input2,
      target,
      this.margin,
      this.reduction,
    );
  }
}

/** Hinge embedding loss for `y ∈ {1, -1}`. */
export class HingeEmbeddingLoss extends Loss {
  readonly margin: number;
  constructor(options: LossOptions & { margin?: number } = {}) {
    super(
      (options = args("nn.HingeEmbeddingLoss", arguments) as typeof options),
    );
    this.margin = options.margin ?? 1;
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.hinge_embedding_loss(input, target, this.margin, this.reduction);
  }
}

/** Two-class logistic loss. */
export class SoftMarginLoss extends Loss {
  constructor(options: LossOptions = {}) {
    super((options = args("nn.SoftMarginLoss", arguments) as typeof options));
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.soft_margin_loss(input, target, this.reduction);
  }
}

/** One-vs-all logistic loss (optional per-class `weight`). */
export class MultiLabelSoftMarginLoss extends Loss {
  declare weight: Tensor | null;
  constructor(options: LossOptions & { weight?: Tensor | null } = {}) {
    super(
      (options = args(
        "nn.MultiLabelSoftMarginLoss",
        arguments,
      ) as typeof options),
    );
    this.register_buffer("weight", options.weight ?? null);
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.multilabel_soft_margin_loss(
      input,
      target,
      this.weight,
      this.reduction,
    );
  }
}

/** Multi-class multi-label hinge loss (targets: class indices ended by -1). */
export class MultiLabelMarginLoss extends Loss {
  constructor(options: LossOptions = {}) {
    super(
      (options = args("nn.MultiLabelMarginLoss", arguments) as typeof options),
    );
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.multilabel_margin_loss(input, target, this.reduction);
  }
}

/** Multi-class hinge loss. */
export class MultiMarginLoss extends Loss {
  declare weight: Tensor | null;
  constructor(readonly options: F.MultiMarginOptions = {}) {
    super((options = args("nn.MultiMarginLoss", arguments) as typeof options));
    this.register_buffer("weight", options.weight ?? null);
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.multi_margin_loss(input, target, {
      ...this.options,
      weight: this.weight,
      reduction: this.reduction,
    });
  }
}

/** Cosine embedding loss: `call(x1, x2, y)`. */
export class CosineEmbeddingLoss extends Loss {
  readonly margin: number;
  constructor(options: LossOptions & { margin?: number } = {}) {
    super(
      (options = args("nn.CosineEmbeddingLoss", arguments) as typeof options),
    );
    this.margin = options.margin ?? 0;
  }
  override forward(input1: Tensor, input2: Tensor, target: Tensor): Tensor {
    return F.cosine_embedding_loss(
      input1,
      input2,
      target,
      this.margin,
      this.reduction,
    );
  }
}

/** Triplet loss with the p-norm distance: `call(anchor, positive, negative)`. */
export class TripletMarginLoss extends Loss {
  constructor(readonly options: F.TripletMarginOptions = {}) {
    super(
      (options = args("nn.TripletMarginLoss", arguments) as typeof options),
    );
  }
  override forward(anchor: Tensor, positive: Tensor, negative: Tensor): Tensor {
    return F.triplet_margin_loss(anchor, positive, negative, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Triplet loss with any distance function. */
export class TripletMarginWithDistanceLoss extends Loss {
  constructor(readonly options: F.TripletDistanceOptions = {}) {
    super(
      (options = args(
        "nn.TripletMarginWithDistanceLoss",
        arguments,
      ) as typeof options),
    );
  }
  override forward(anchor: Tensor, positive: Tensor, negative: Tensor): Tensor {
    return F.triplet_margin_with_distance_loss(anchor, positive, negative, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Connectionist temporal classification: `call(log_probs, targets, input_lengths, target_lengths)`. */
export class CTCLoss extends Loss {
  readonly blank: number;
  readonly zero_infinity: boolean;
  constructor(options: F.CTCLossOptions = {}) {
    super((options = args("nn.CTCLoss", arguments) as typeof options));
    this.blank = options.blank ?? 0;
    this.zero_infinity = options.zero_infinity ?? false;
  }
  override forward(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | readonly number[],
    target_lengths: Tensor | readonly number[],
  ): Tensor {
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, {
      blank: this.blank,
      reduction: this.reduction,
      zero_infinity: this.zero_infinity,
    });
  }
}
