/**
 * `torch.optim.lr_scheduler`'s schedulers of schedulers, SequentialLR and ChainedScheduler, and
 * ReduceLROnPlateau (driven by a metric, not the epoch) — as PyTorch steps them.
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import type { Optimizer } from "../optimizer.js";
import { LRScheduler, checkOptimizer } from "./lr_scheduler.js";
import { args, omit } from "../../schema/index.js";
import { pyTypeName } from "../../args.js";
import { perGroup } from "../options.js";

/** Raises unless `schedulers` is a list of {@link LRScheduler}s. */
function checkSchedulers(
  name: string,
  schedulers: unknown,
): asserts schedulers is LRScheduler[] {
  if (!Array.isArray(schedulers))
    throw new TorchError(
      `${name} expects a list of schedulers, but got ${pyTypeName(schedulers)}`,
    );
  schedulers.forEach((s: unknown, i) => {
    if (!(s instanceof LRScheduler))
      throw new TorchError(
        `${name} expects a list of schedulers, but got ${pyTypeName(s)} at index ${i}`,
      );
  });
}

/** Runs `schedulers` one after another, switching at each of `milestones` (epochs). */
export class SequentialLR extends LRScheduler {
  readonly #schedulers: LRScheduler[];
  readonly #milestones: number[];

  constructor(
    optimizer: Optimizer,
    schedulers: readonly LRScheduler[],
    milestones: readonly number[],
    last_epoch = -1,
  ) {
    const a = args("optim.lr_scheduler.SequentialLR", arguments);
    checkOptimizer(a.optimizer);
    checkSchedulers("SequentialLR", a.schedulers);
    ({ optimizer, schedulers, milestones, last_epoch } = a as {
      optimizer: Optimizer;
      schedulers: LRScheduler[];
      milestones: number[];
      last_epoch: number;
    });
    if (schedulers.length < 1)
      throw new TorchError(
        "SequentialLR expects at least one scheduler, but got no scheduler.",
      );
    schedulers.forEach((s, i) => {
      if (s.optimizer !== optimizer)
        throw new TorchError(
          `SequentialLR expects all schedulers to belong to the same optimizer, but got scheduler at index ${i} to be different than the optimizer passed in.`,
        );
    });
    if (milestones.length !== schedulers.length - 1)
      throw new TorchError(
        `Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers ${schedulers.length} and the number of milestones to be equal to ${milestones.length}`,
      );
    super(optimizer, last_epoch);
    this.#schedulers = [...schedulers];
    this.#milestones = [...milestones];
    this.last_epoch = last_epoch + 1;
    // Back to the initial rates; undo the step each scheduler took when it was made.
    for (const g of optimizer.param_groups) g.lr = g.initial_lr as number;
    for (const s of this.#schedulers) s.last_epoch -= 1;
    this.#schedulers[0]!._initial_step();
    this._set_lrs(this.#schedulers[0]!.get_last_lr());
  }

  get_lr(): number[] {
    return this.groupLrs();
  }

  override step(): void {
    this._step_count += 1;
    this.last_epoch += 1;
    const idx = this.#milestones.filter((m) => m <= this.last_epoch).length;
    const s = this.#schedulers[idx]!;
    if (idx > 0 && this.#milestones[idx - 1] === this.last_epoch) s.step(0);
    else s.step();
    this._set_lrs(s.get_last_lr());
  }
}

/** Steps every scheduler in turn each epoch: their effects compound. */
export class ChainedScheduler extends LRScheduler {
  readonly #schedulers: LRScheduler[];

  constructor(schedulers: readonly LRScheduler[], optimizer?: Optimizer) {
    const a = args("optim.lr_scheduler.ChainedScheduler", arguments);
    checkSchedulers("ChainedScheduler", a.schedulers);
    if (a.optimizer !== null) checkOptimizer(a.optimizer);
    schedulers = a.schedulers as LRScheduler[];
    optimizer = (a.optimizer as Optimizer | null) ?? undefined;
    const opt = optimizer ?? schedulers[0]?.optimizer;
    if (!opt)
      throw new TorchError(
        "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.",
      );
    super(opt, -1);
    this.#schedulers = [...schedulers];
    this._set_lrs(this.groupLrs());
    this.last_epoch = 0;
  }

  get_lr(): number[] {
    return this.groupLrs();
  }

  override step(): void {
    this._step_count += 1;
    this.last_epoch += 1;
    for (const s of this.#schedulers) s.step();
    this._set_lrs(this.groupLrs());
  }
}

/** Options of {@link ReduceLROnPlateau}. */
export interface ReduceLROnPlateauOptions {
  /** `"min"` (default): reduce when the metric stops decreasing; `"max"`: stops increasing. */
  mode?: "min" | "max";
  /** Multiplier of the learning rate on a plateau (default 0.1). */
  factor?: number;
  /** Epochs without improvement before reducing (default 10). */
  patience?: number;
  /** Minimal change that counts as an improvement (default 1e-4). */
  threshold?: number;
  /** `"rel"` (default) or `"abs"` comparison with the best value. */
  threshold_mode?: "rel" | "abs";
  /** Epochs to wait after a reduction before resuming normal operation (default 0). */
  cooldown?: number;
  /** Lower bound of the learning rate, one number or one per group (default 0). */
  min_lr?: number | number[];
  /** Reductions smaller than this are skipped (default 1e-8). */
  eps?: number;
}

/**
 * Cuts the rate by `factor` when a metric has stopped improving for `patience` epochs.
 * `step(metric)` takes a number (read it first: `sched.step(await loss.item())`).
 */
export class ReduceLROnPlateau {
  readonly mode: "min" | "max";
  readonly factor: number;
  readonly patience: number;
  readonly threshold: number;
  readonly threshold_mode: "rel" | "abs";
  readonly cooldown: number;
  readonly min_lrs: number[];
  readonly eps: number;
  best: number;
  num_bad_epochs = 0;
  cooldown_counter = 0;
  last_epoch = 0;
  #lastLr: number[];

  constructor(
    readonly optimizer: Optimizer,
    options: ReduceLROnPlateauOptions = {},
  ) {
    const a = args("optim.lr_scheduler.ReduceLROnPlateau", arguments);
    checkOptimizer(a.optimizer);
    this.optimizer = a.optimizer;
    const o = omit(a, "optimizer") as ReduceLROnPlateauOptions;
    this.factor = o.factor ?? 0.1;
    if (this.factor >= 1) throw new TorchError("Factor should be < 1.0.");
    this.mode = o.mode ?? "min";
    if (this.mode !== "min" && this.mode !== "max")
      throw new TorchError(`mode ${String(this.mode)} is unknown!`);
    this.threshold_mode = o.threshold_mode ?? "rel";
    if (this.threshold_mode !== "rel" && this.threshold_mode !== "abs")
      throw new TorchError(
        `threshold mode ${String(this.threshold_mode)} is unknown!`,
      );
    this.patience = o.patience ?? 10;
    this.threshold = o.threshold ?? 1e-4;
    this.cooldown = o.cooldown ?? 0;
    this.min_lrs = perGroup("min_lr", optimizer, o.min_lr ?? 0);
    this.eps = o.eps ?? 1e-8;
    this.best = this.mode === "min" ? Infinity : -Infinity;
    this.#lastLr = optimizer.param_groups.map((g) => g.lr);
  }

  #isBetter(a: number): boolean {
    const t = this.threshold;
    if (this.mode === "min")
      return this.threshold_mode === "rel"
        ? a < this.best * (1 - t)
        : a < this.best - t;
    return this.threshold_mode === "rel"
      ? a > this.best * (t + 1)
      : a > this.best + t;
  }

  /** Records this epoch's metric and reduces the rates when it has plateaued. */
  step(metric: number): void {
    if (typeof metric !== "number")
      throw new TorchError(
        "ReduceLROnPlateau.step expects a number (read a tensor first: await t.item())",
      );
    this.last_epoch += 1;
    if (this.#isBetter(metric)) {
      this.best = metric;
      this.num_bad_epochs = 0;
    } else this.num_bad_epochs += 1;
    if (this.cooldown_counter > 0) {
      this.cooldown_counter -= 1;
      this.num_bad_epochs = 0;
    }
    if (this.num_bad_epochs > this.patience) {
      this.optimizer.param_groups.forEach((g, i) => {
        const next = Math.max(g.lr * this.factor, this.min_lrs[i]!);
        if (g.lr - next > this.eps) g.lr = next;
      });
      this.cooldown_counter = this.cooldown;
      this.num_bad_epochs = 0;
    }
    this.#lastLr = this.optimizer.param_groups.map((g) => g.lr);
  }

  /** The rates after the last step. */
  get_last_lr(): number[] {
    return [...this.#lastLr];
  }

  /** The counters and the best metric. */
  state_dict(): Record<string, unknown> {
    return {
      best: this.best,
      num_bad_epochs: this.num_bad_epochs,
      cooldown_counter: this.cooldown_counter,
      last_epoch: this.last_epoch,
      _last_lr: [...this.#lastLr],
    };
  }

  /** Restores what `state_dict()` returned. */
  load_state_dict(state: Record<string, unknown>): void {
    this.best = state.best as number;
    this.num_bad_epochs = state.num_bad_epochs as number;
    this.cooldown_counter = state.cooldown_counter as number;
    this.last_epoch = state.last_epoch as number;
    this.#lastLr = [...(state._last_lr as number[])];
  }
}
