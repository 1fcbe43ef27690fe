/**
 * Loss modules: thin `Module`s over the `nn.functional` losses, with PyTorch's constructor
 * options (`reduction` defaults to `"mean"`).
 *
 * @module
 */

import type { Tensor } from "../tensor/tensor.js";
import * as F from "./functional/index.js";
import { args } from "../schema/index.js";
import { Module } from "./module.js";

/** `reduction` option shared by every loss. */
export interface LossOptions {
  /** `"mean"` (default), `"sum"` or `"none"`. */
  reduction?: F.Reduction;
}

abstract class Loss extends Module {
  readonly reduction: F.Reduction;
  constructor(options: LossOptions = {}) {
    super();
    this.reduction = options.reduction ?? "mean";
  }
  abstract override forward(input: Tensor, target: Tensor): Tensor;
}

/** Mean squared error. */
export class MSELoss extends Loss {
  constructor(options: LossOptions = {}) {
    super((options = args("nn.MSELoss", arguments) as typeof options));
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.mse_loss(input, target, this.reduction);
  }
}

/** Mean absolute error. */
export class L1Loss extends Loss {
  constructor(options: LossOptions = {}) {
    super((options = args("nn.L1Loss", arguments) as typeof options));
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.l1_loss(input, target, this.reduction);
  }
}

/** Smooth L1 loss with `beta` (default 1). */
export class SmoothL1Loss extends Loss {
  readonly beta: number;
  constructor(options: LossOptions & { beta?: number } = {}) {
    super((options = args("nn.SmoothL1Loss", arguments) as typeof options));
    this.beta = options.beta ?? 1;
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.smooth_l1_loss(input, target, this.reduction, this.beta);
  }
}

/** Negative log likelihood of log-probabilities (see `F.nll_loss`). */
export class NLLLoss extends Loss {
  constructor(
    readonly options: Omit<F.ClassLossOptions, "label_smoothing"> = {},
  ) {
    super((options = args("nn.NLLLoss", arguments) as typeof options));
    // A buffer, as in PyTorch (state dicts carry it).
    this.register_buffer("weight", options.weight ?? null);
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.nll_loss(input, target, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Cross entropy of logits (see `F.cross_entropy`). */
export class CrossEntropyLoss extends Loss {
  constructor(readonly options: F.ClassLossOptions = {}) {
    super((options = args("nn.CrossEntropyLoss", arguments) as typeof options));
    // A buffer, as in PyTorch (state dicts carry it).
    this.register_buffer("weight", options.weight ?? null);
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.cross_entropy(input, target, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Binary cross entropy of probabilities. */
export class BCELoss extends Loss {
  constructor(readonly options: LossOptions & { weight?: Tensor | null } = {}) {
    super((options = args("nn.BCELoss", arguments) as typeof options));
    // A buffer, as in PyTorch (state dicts carry it).
    this.register_buffer("weight", options.weight ?? null);
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.binary_cross_entropy(input, target, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}

/** Binary cross entropy of logits (stable; optional `pos_weight`). */
export class BCEWithLogitsLoss extends Loss {
  constructor(
    readonly options: LossOptions & {
      weight?: Tensor | null;
      pos_weight?: Tensor | null;
    } = {},
  ) {
    super(
      (options = args("nn.BCEWithLogitsLoss", arguments) as typeof options),
    );
    // Buffers, as in PyTorch (state dicts carry them).
    this.register_buffer("weight", options.weight ?? null);
    this.register_buffer("pos_weight", options.pos_weight ?? null);
  }
  override forward(input: Tensor, target: Tensor): Tensor {
    return F.binary_cross_entropy_with_logits(input, target, {
      ...this.options,
      reduction: this.reduction,
    });
  }
}
