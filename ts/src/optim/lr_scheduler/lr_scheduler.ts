/**
 * `torch.optim.lr_scheduler.LRScheduler`, the base class of the schedulers. Each scheduler uses
 * PyTorch's recursive ("chainable") update, so that a schedule — and several schedulers on one
 * optimizer — give PyTorch's learning rates step for step. As in PyTorch, the constructor takes
 * the first step (epoch 0) and `step()` is called after `optimizer.step()`.
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import { Optimizer } from "../optimizer.js";
import { pyTypeName } from "../../args.js";

/** Raises PyTorch's error unless `optimizer` is an {@link Optimizer}. */
export function checkOptimizer(
  optimizer: unknown,
): asserts optimizer is Optimizer {
  if (!(optimizer instanceof Optimizer))
    throw new TorchError(`${pyTypeName(optimizer)} is not an Optimizer`);
}

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
    checkOptimizer(optimizer);
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
