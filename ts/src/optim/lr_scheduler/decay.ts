/**
 * The decaying schedules of `torch.optim.lr_scheduler`: StepLR, MultiStepLR, ExponentialLR,
 * CosineAnnealingLR, LambdaLR, LinearLR, MultiplicativeLR, ConstantLR and PolynomialLR — PyTorch's
 * recursions and closed forms, so learning rates match PyTorch's step for step.
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import { args } from "../../schema/index.js";
import { pyTypeName } from "../../args.js";
import type { Optimizer } from "../optimizer.js";
import { LRScheduler } from "./lr_scheduler.js";

/** Multiplies the rate by `gamma` every `step_size` epochs. */
export class StepLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly step_size: number,
    readonly gamma = 0.1,
    last_epoch = -1,
  ) {
    ({ optimizer, step_size, gamma, last_epoch } = args(
      "optim.lr_scheduler.StepLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      step_size: typeof step_size;
      gamma: typeof gamma;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    this.step();
  }
  get_lr(): number[] {
    const e = this.last_epoch;
    if (e === 0 || e % this.step_size !== 0) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * this.gamma);
  }
  protected override _get_closed_form_lr(): number[] {
    const k = Math.floor(this.last_epoch / this.step_size);
    return this.base_lrs.map((b) => b * this.gamma ** k);
  }
}

/** Multiplies the rate by `gamma` at each milestone epoch. */
export class MultiStepLR extends LRScheduler {
  readonly milestones: number[];
  constructor(
    optimizer: Optimizer,
    milestones: readonly number[],
    readonly gamma = 0.1,
    last_epoch = -1,
  ) {
    ({ optimizer, milestones, gamma, last_epoch } = args(
      "optim.lr_scheduler.MultiStepLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      milestones: typeof milestones;
      gamma: typeof gamma;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    this.milestones = [...milestones].sort((a, b) => a - b);
    this.step();
  }
  get_lr(): number[] {
    const hits = this.milestones.filter((m) => m === this.last_epoch).length;
    if (hits === 0) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * this.gamma ** hits);
  }
  protected override _get_closed_form_lr(): number[] {
    const k = this.milestones.filter((m) => m <= this.last_epoch).length;
    return this.base_lrs.map((b) => b * this.gamma ** k);
  }
}

/** Multiplies the rate by `gamma` every epoch. */
export class ExponentialLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly gamma: number,
    last_epoch = -1,
  ) {
    ({ optimizer, gamma, last_epoch } = args(
      "optim.lr_scheduler.ExponentialLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      gamma: typeof gamma;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    this.step();
  }
  get_lr(): number[] {
    if (this.last_epoch === 0) return this.groupLrs();
    return this.groupLrs().map((lr) => lr * this.gamma);
  }
  protected override _get_closed_form_lr(): number[] {
    return this.base_lrs.map((b) => b * this.gamma ** this.last_epoch);
  }
}

/** Cosine annealing from the base rate to `eta_min` over `T_max` epochs (SGDR without restarts). */
export class CosineAnnealingLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly T_max: number,
    readonly eta_min = 0,
    last_epoch = -1,
  ) {
    ({ optimizer, T_max, eta_min, last_epoch } = args(
      "optim.lr_scheduler.CosineAnnealingLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      T_max: typeof T_max;
      eta_min: typeof eta_min;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    this.step();
  }
  get_lr(): number[] {
    const e = this.last_epoch;
    const T = this.T_max;
    const lrs = this.groupLrs();
    if (e === 0) return lrs;
    if (this._step_count === 1 && e > 0)
      return this.base_lrs.map(
        (b) =>
          this.eta_min +
          ((b - this.eta_min) * (1 + Math.cos((e * Math.PI) / T))) / 2,
      );
    if ((e - 1 - T) % (2 * T) === 0)
      return lrs.map(
        (lr, i) =>
          lr +
          ((this.base_lrs[i]! - this.eta_min) * (1 - Math.cos(Math.PI / T))) /
            2,
      );
    return lrs.map(
      (lr) =>
        ((1 + Math.cos((Math.PI * e) / T)) /
          (1 + Math.cos((Math.PI * (e - 1)) / T))) *
          (lr - this.eta_min) +
        this.eta_min,
    );
  }
  protected override _get_closed_form_lr(): number[] {
    const c = 1 + Math.cos((Math.PI * this.last_epoch) / this.T_max);
    return this.base_lrs.map(
      (b) => this.eta_min + ((b - this.eta_min) * c) / 2,
    );
  }
}

/** The base rate times `lr_lambda(epoch)` (one function, or one per group). */
export class LambdaLR extends LRScheduler {
  readonly lr_lambdas: ((epoch: number) => number)[];
  constructor(
    optimizer: Optimizer,
    lr_lambda: ((epoch: number) => number) | ((epoch: number) => number)[],
    last_epoch = -1,
  ) {
    ({ optimizer, lr_lambda, last_epoch } = args(
      "optim.lr_scheduler.LambdaLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      lr_lambda: typeof lr_lambda;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    const n = optimizer.param_groups.length;
    this.lr_lambdas = Array.isArray(lr_lambda)
      ? [...lr_lambda]
      : Array(n).fill(lr_lambda);
    if (this.lr_lambdas.length !== n)
      throw new TorchError(
        `Expected ${n} lr_lambdas, but got ${this.lr_lambdas.length}`,
      );
    for (const f of this.lr_lambdas)
      if (typeof f !== "function")
        throw new TorchError(
          `lr_lambda must be a function or a list of functions, but got ${pyTypeName(f)}`,
        );
    this.step();
  }
  get_lr(): number[] {
    return this.base_lrs.map(
      (b, i) => b * this.lr_lambdas[i]!(this.last_epoch),
    );
  }
}

/** Scales the rate linearly from `start_factor` to `end_factor` over `total_iters` epochs. */
export class LinearLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly start_factor = 1 / 3,
    readonly end_factor = 1,
    readonly total_iters = 5,
    last_epoch = -1,
  ) {
    ({ optimizer, start_factor, end_factor, total_iters, last_epoch } = args(
      "optim.lr_scheduler.LinearLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      start_factor: typeof start_factor;
      end_factor: typeof end_factor;
      total_iters: typeof total_iters;
      last_epoch: typeof last_epoch;
    });
    if (!(start_factor > 0 && start_factor <= 1))
      throw new TorchError(
        "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
      );
    if (!(end_factor >= 0 && end_factor <= 1))
      throw new TorchError(
        "Ending multiplicative factor expected to be between 0 and 1.",
      );
    super(optimizer, last_epoch);
    this.step();
  }
  get_lr(): number[] {
    const e = this.last_epoch;
    const lrs = this.groupLrs();
    if (e === 0) return lrs.map((lr) => lr * this.start_factor);
    if (e > this.total_iters) return lrs;
    const d = this.end_factor - this.start_factor;
    return lrs.map(
      (lr) =>
        lr * (1 + d / (this.total_iters * this.start_factor + (e - 1) * d)),
    );
  }
  protected override _get_closed_form_lr(): number[] {
    const t = Math.min(this.total_iters, this.last_epoch) / this.total_iters;
    const f = this.start_factor + (this.end_factor - this.start_factor) * t;
    return this.base_lrs.map((b) => b * f);
  }
}

/** The rate times `lr_lambda(epoch)` each epoch (compounding). */
export class MultiplicativeLR extends LRScheduler {
  readonly lr_lambdas: ((epoch: number) => number)[];
  constructor(
    optimizer: Optimizer,
    lr_lambda: ((epoch: number) => number) | ((epoch: number) => number)[],
    last_epoch = -1,
  ) {
    ({ optimizer, lr_lambda, last_epoch } = args(
      "optim.lr_scheduler.MultiplicativeLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      lr_lambda: typeof lr_lambda;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    const n = optimizer.param_groups.length;
    this.lr_lambdas = Array.isArray(lr_lambda)
      ? [...lr_lambda]
      : Array(n).fill(lr_lambda);
    if (this.lr_lambdas.length !== n)
      throw new TorchError(
        `Expected ${n} lr_lambdas, but got ${this.lr_lambdas.length}`,
      );
    for (const f of this.lr_lambdas)
      if (typeof f !== "function")
        throw new TorchError(
          `lr_lambda must be a function or a list of functions, but got ${pyTypeName(f)}`,
        );
    this.step();
  }
  get_lr(): number[] {
    const lrs = this.groupLrs();
    if (this.last_epoch <= 0) return lrs;
    return lrs.map((lr, i) => lr * this.lr_lambdas[i]!(this.last_epoch));
  }
}

/** The rate times `factor` until epoch `total_iters`, then the base rate. */
export class ConstantLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly factor = 1 / 3,
    readonly total_iters = 5,
    last_epoch = -1,
  ) {
    ({ optimizer, factor, total_iters, last_epoch } = args(
      "optim.lr_scheduler.ConstantLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      factor: typeof factor;
      total_iters: typeof total_iters;
      last_epoch: typeof last_epoch;
    });
    if (factor > 1 || factor < 0)
      throw new TorchError(
        "Constant multiplicative factor expected to be between 0 and 1.",
      );
    super(optimizer, last_epoch);
    this.step();
  }
  get_lr(): number[] {
    const e = this.last_epoch;
    const lrs = this.groupLrs();
    if (e === 0) return lrs.map((lr) => lr * this.factor);
    if (e !== this.total_iters) return lrs;
    return lrs.map((lr) => lr * (1 / this.factor));
  }
  protected override _get_closed_form_lr(): number[] {
    const f =
      this.factor + (this.last_epoch >= this.total_iters ? 1 - this.factor : 0);
    return this.base_lrs.map((b) => b * f);
  }
}

/** Decays the rate to 0 over `total_iters` epochs as a polynomial of degree `power`. */
export class PolynomialLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly total_iters = 5,
    readonly power = 1,
    last_epoch = -1,
  ) {
    ({ optimizer, total_iters, power, last_epoch } = args(
      "optim.lr_scheduler.PolynomialLR",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      total_iters: typeof total_iters;
      power: typeof power;
      last_epoch: typeof last_epoch;
    });
    super(optimizer, last_epoch);
    this.step();
  }
  get_lr(): number[] {
    const e = this.last_epoch;
    const T = this.total_iters;
    const lrs = this.groupLrs();
    if (e === 0 || e > T) return lrs;
    const f = ((1 - e / T) / (1 - (e - 1) / T)) ** this.power;
    return lrs.map((lr) => lr * f);
  }
  protected override _get_closed_form_lr(): number[] {
    const T = this.total_iters;
    const f = (1 - Math.min(T, this.last_epoch) / T) ** this.power;
    return this.base_lrs.map((b) => b * f);
  }
}
