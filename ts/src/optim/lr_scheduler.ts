/**
 * `torch.optim.lr_scheduler`: the base class and StepLR, MultiStepLR, ExponentialLR,
 * CosineAnnealingLR, LambdaLR, LinearLR (more in lr_scheduler_more.ts). Each uses PyTorch's recursive ("chainable") update, so that a schedule — and several
 * schedulers on one optimizer — give PyTorch's learning rates step for step. As in PyTorch, the
 * constructor takes the first step (epoch 0) and `step()` is called after `optimizer.step()`.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Optimizer } from "./optimizer.js";

/** The base class (`torch.optim.lr_scheduler.LRScheduler`). */
export abstract class LRScheduler {
  /** The learning rate of each group when the scheduler was made (`initial_lr`). */
  readonly base_lrs: number[];
  /** The epoch count: 0 after construction, +1 per `step()`. */
  last_epoch: number;
  #lastLr: number[] = [];
  protected _step_count = 0;

  constructor(
    readonly optimizer: Optimizer,
    last_epoch = -1,
  ) {
    for (const g of optimizer.param_groups) {
      if (last_epoch === -1) g.initial_lr ??= g.lr;
      else if (g.initial_lr === undefined)
        throw new TorchError(
          "param 'initial_lr' is not specified in param_groups when resuming an optimizer",
        );
    }
    this.base_lrs = optimizer.param_groups.map((g) => g.initial_lr as number);
    this.last_epoch = last_epoch;
  }

  /** The learning rates for the current `last_epoch`, from the groups' current ones. */
  abstract get_lr(): number[];

  /**
   * The learning rates at `last_epoch` computed from the base rates alone, for schedulers that
   * have such a form (used by `step(epoch)`, as PyTorch's `_get_closed_form_lr`).
   */
  protected _get_closed_form_lr(): number[] | null {
    return null;
  }

  /**
   * Advances one epoch and sets each group's `lr`. With `epoch` (PyTorch's deprecated form, used
   * by SequentialLR at milestones), jumps to that epoch using the closed form when there is one.
   */
  step(epoch?: number): void {
    this._step_count += 1;
    let lrs: number[];
    if (epoch === undefined) {
      this.last_epoch += 1;
      lrs = this.get_lr();
    } else {
      this.last_epoch = epoch;
      lrs = this._get_closed_form_lr() ?? this.get_lr();
    }
    this._set_lrs(lrs);
  }

  /** Sets each group's `lr` and remembers them for {@link get_last_lr}. */
  protected _set_lrs(lrs: number[]): void {
    this.optimizer.param_groups.forEach((g, i) => (g.lr = lrs[i]!));
    this.#lastLr = [...lrs];
  }

  /** Restarts the count (`_initial_step`): SequentialLR replays a scheduler's first step. */
  _initial_step(): void {
    this._step_count = 0;
    this.step();
  }

  /** The learning rates the last `step()` set. */
  get_last_lr(): number[] {
    return [...this.#lastLr];
  }

  /** `{ last_epoch, base_lrs, _step_count, _last_lr }` (no optimizer, no functions). */
  state_dict(): Record<string, unknown> {
    return {
      last_epoch: this.last_epoch,
      base_lrs: [...this.base_lrs],
      _step_count: this._step_count,
      _last_lr: [...this.#lastLr],
    };
  }

  /** Restores what `state_dict()` returned. */
  load_state_dict(state: Record<string, unknown>): void {
    this.last_epoch = state.last_epoch as number;
    this._step_count = state._step_count as number;
    this.#lastLr = [...(state._last_lr as number[])];
  }

  protected groupLrs(): number[] {
    return this.optimizer.param_groups.map((g) => g.lr);
  }
}

/** Multiplies the rate by `gamma` every `step_size` epochs. */
export class StepLR extends LRScheduler {
  constructor(
    optimizer: Optimizer,
    readonly step_size: number,
    readonly gamma = 0.1,
    last_epoch = -1,
  ) {
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
    super(optimizer, last_epoch);
    const n = optimizer.param_groups.length;
    this.lr_lambdas = Array.isArray(lr_lambda)
      ? [...lr_lambda]
      : Array(n).fill(lr_lambda);
    if (this.lr_lambdas.length !== n)
      throw new TorchError(
        `Expected ${n} lr_lambdas, but got ${this.lr_lambdas.length}`,
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
