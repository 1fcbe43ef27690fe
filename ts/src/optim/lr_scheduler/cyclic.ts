/**
 * The cyclic schedules of `torch.optim.lr_scheduler`: CosineAnnealingWarmRestarts, CyclicLR and
 * OneCycleLR — PyTorch's recursions and closed forms, so learning rates (and, for the cyclic
 * ones, momenta) match PyTorch's step for step.
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import { args, omit } from "../../schema/index.js";
import type { Optimizer, ParamGroup } from "../optimizer.js";
import { LRScheduler, checkOptimizer } from "./lr_scheduler.js";
import { perGroup } from "../options.js";

/** SGDR: cosine annealing restarted every `T_i` epochs, `T_i` growing by `T_mult`. */
export class CosineAnnealingWarmRestarts extends LRScheduler {
  T_i: number;
  T_cur: number;
  constructor(
    optimizer: Optimizer,
    readonly T_0: number,
    readonly T_mult = 1,
    readonly eta_min = 0,
    last_epoch = -1,
  ) {
    ({ optimizer, T_0, T_mult, eta_min, last_epoch } = args(
      "optim.lr_scheduler.CosineAnnealingWarmRestarts",
      arguments,
    ) as {
      optimizer: typeof optimizer;
      T_0: typeof T_0;
      T_mult: typeof T_mult;
      eta_min: typeof eta_min;
      last_epoch: typeof last_epoch;
    });
    if (!(Number.isInteger(T_0) && T_0 > 0))
      throw new TorchError(`Expected positive integer T_0, but got ${T_0}`);
    if (!(Number.isInteger(T_mult) && T_mult >= 1))
      throw new TorchError(`Expected integer T_mult >= 1, but got ${T_mult}`);
    super(optimizer, last_epoch);
    this.T_i = T_0;
    this.T_cur = last_epoch;
    this.step();
  }
  get_lr(): number[] {
    const c = 1 + Math.cos((Math.PI * this.T_cur) / this.T_i);
    return this.base_lrs.map(
      (b) => this.eta_min + ((b - this.eta_min) * c) / 2,
    );
  }
  /** One epoch on, or (with `epoch`, possibly fractional) to that point of the schedule. */
  override step(epoch?: number): void {
    this._step_count += 1;
    let e = epoch;
    if (e === undefined && this.last_epoch < 0) e = 0;
    if (e === undefined) {
      e = this.last_epoch + 1;
      this.T_cur += 1;
      if (this.T_cur >= this.T_i) {
        this.T_cur -= this.T_i;
        this.T_i *= this.T_mult;
      }
    } else {
      if (e < 0)
        throw new TorchError(`Expected non-negative epoch, but got ${e}`);
      if (e >= this.T_0) {
        if (this.T_mult === 1) this.T_cur = e % this.T_0;
        else {
          const n = Math.floor(
            Math.log((e / this.T_0) * (this.T_mult - 1) + 1) /
              Math.log(this.T_mult),
          );
          this.T_cur =
            e - (this.T_0 * (this.T_mult ** n - 1)) / (this.T_mult - 1);
          this.T_i = this.T_0 * this.T_mult ** n;
        }
      } else {
        this.T_i = this.T_0;
        this.T_cur = e;
      }
    }
    this.last_epoch = Math.floor(e);
    this._set_lrs(this.get_lr());
  }
}

/** Where a cyclic scheduler writes momentum: `momentum`, or `betas[0]` (Adam family). */
function momentumKey(optimizer: Optimizer): "momentum" | "betas" {
  const d = optimizer.defaults as Record<string, unknown>;
  if ("momentum" in d) return "momentum";
  if ("betas" in d) return "betas";
  throw new TorchError(
    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled",
  );
}

function setMomentum(
  g: ParamGroup,
  key: "momentum" | "betas",
  m: number,
): void {
  if (key === "betas") {
    const [, b2] = g.betas as [number, number];
    g.betas = [m, b2];
  } else g.momentum = m;
}

/** Options of {@link CyclicLR}. */
export interface CyclicLROptions {
  /** Lower learning-rate boundary of the cycle, per group. */
  base_lr: number | number[];
  /** Upper learning-rate boundary (peak), per group. */
  max_lr: number | number[];
  /** Iterations in the increasing half of a cycle (default 2000). */
  step_size_up?: number;
  /** Iterations in the decreasing half (default: step_size_up). */
  step_size_down?: number | null;
  /** `"triangular"` (default), `"triangular2"` or `"exp_range"`. */
  mode?: "triangular" | "triangular2" | "exp_range";
  /** Multiplier of the amplitude per iteration in `"exp_range"` mode (default 1). */
  gamma?: number;
  /** A custom amplitude scale (overrides `mode`). */
  scale_fn?: ((x: number) => number) | null;
  /** Whether the scale function takes the cycle number or the iteration (`"cycle"` / `"iterations"`). */
  scale_mode?: "cycle" | "iterations";
  /** Cycle the optimizer's momentum (or Adam's beta1) too (default true). */
  cycle_momentum?: boolean;
  /** Lower momentum boundary (momentum is cycled inversely to the learning rate). */
  base_momentum?: number | number[];
  /** Upper momentum boundary. */
  max_momentum?: number | number[];
  /** Index of the last epoch, to resume a schedule (default -1: start). */
  last_epoch?: number;
}

/**
 * Cycles the rate between `base_lr` and `max_lr` (Smith's cyclical learning rates), and the
 * momentum inversely; stepped after every batch.
 */
export class CyclicLR extends LRScheduler {
  readonly max_lrs: number[];
  readonly total_size: number;
  readonly step_ratio: number;
  readonly mode: "triangular" | "triangular2" | "exp_range";
  readonly gamma: number;
  readonly scale_mode: "cycle" | "iterations";
  readonly cycle_momentum: boolean;
  readonly base_momentums: number[] = [];
  readonly max_momentums: number[] = [];
  readonly #scale: (x: number) => number;
  readonly #key: "momentum" | "betas" | null = null;

  constructor(optimizer: Optimizer, options: CyclicLROptions) {
    const a = args("optim.lr_scheduler.CyclicLR", arguments);
    checkOptimizer(a.optimizer);
    optimizer = a.optimizer;
    const o = omit(a, "optimizer") as CyclicLROptions;
    const last = o.last_epoch ?? -1;
    const base = perGroup("base_lr", optimizer, o.base_lr);
    if (last === -1)
      optimizer.param_groups.forEach((g, i) => (g.lr = base[i]!));
    super(optimizer, last);
    this.base_lrs.splice(0, this.base_lrs.length, ...base);
    this.max_lrs = perGroup("max_lr", optimizer, o.max_lr);
    const up = o.step_size_up ?? 2000;
    const down = o.step_size_down ?? up;
    this.total_size = up + down;
    this.step_ratio = up / this.total_size;
    this.mode = o.mode ?? "triangular";
    if (
      !["triangular", "triangular2", "exp_range"].includes(this.mode) &&
      !o.scale_fn
    )
      throw new TorchError("mode is invalid and scale_fn is None");
    this.gamma = o.gamma ?? 1;
    if (o.scale_fn) {
      this.#scale = o.scale_fn;
      this.scale_mode = o.scale_mode ?? "cycle";
    } else if (this.mode === "triangular") {
      this.#scale = () => 1;
      this.scale_mode = "cycle";
    } else if (this.mode === "triangular2") {
      this.#scale = (x) => 1 / 2 ** (x - 1);
      this.scale_mode = "cycle";
    } else {
      this.#scale = (x) => this.gamma ** x;
      this.scale_mode = "iterations";
    }
    this.cycle_momentum = o.cycle_momentum ?? true;
    if (this.cycle_momentum) {
      this.#key = momentumKey(optimizer);
      this.base_momentums = perGroup(
        "base_momentum",
        optimizer,
        o.base_momentum ?? 0.8,
      );
      this.max_momentums = perGroup(
        "max_momentum",
        optimizer,
        o.max_momentum ?? 0.9,
      );
      if (last === -1)
        optimizer.param_groups.forEach((g, i) =>
          setMomentum(g, this.#key!, this.max_momentums[i]!),
        );
    }
    this.step();
  }

  get_lr(): number[] {
    const e = this.last_epoch;
    const cycle = Math.floor(1 + e / this.total_size);
    const x = 1 + e / this.total_size - cycle;
    const f =
      x <= this.step_ratio
        ? x / this.step_ratio
        : (x - 1) / (this.step_ratio - 1);
    const s = this.#scale(this.scale_mode === "cycle" ? cycle : e);
    const lrs = this.base_lrs.map((b, i) => b + (this.max_lrs[i]! - b) * f * s);
    if (this.cycle_momentum)
      this.optimizer.param_groups.forEach((g, i) => {
        const hi = this.max_momentums[i]!;
        setMomentum(g, this.#key!, hi - (hi - this.base_momentums[i]!) * f * s);
      });
    return lrs;
  }
}

/** Options of {@link OneCycleLR}. */
export interface OneCycleLROptions {
  /** Upper learning-rate boundary (peak), per group. */
  max_lr: number | number[];
  /** Total number of steps in the cycle. */
  total_steps?: number | null;
  /** Epochs to train (with steps_per_epoch, instead of total_steps). */
  epochs?: number | null;
  /** Steps per epoch (with epochs, instead of total_steps). */
  steps_per_epoch?: number | null;
  /** Fraction of the cycle spent increasing the learning rate (default 0.3). */
  pct_start?: number;
  /** `"cos"` (default) or `"linear"` annealing. */
  anneal_strategy?: "cos" | "linear";
  /** Cycle the optimizer's momentum (or Adam's beta1) too (default true). */
  cycle_momentum?: boolean;
  /** Lower momentum boundary (momentum is cycled inversely to the learning rate). */
  base_momentum?: number | number[];
  /** Upper momentum boundary. */
  max_momentum?: number | number[];
  /** Initial learning rate = max_lr / div_factor (default 25). */
  div_factor?: number;
  /** Final learning rate = initial / final_div_factor (default 1e4). */
  final_div_factor?: number;
  /** Use a third phase that anneals below the initial rate (default false). */
  three_phase?: boolean;
  /** Index of the last epoch, to resume a schedule (default -1: start). */
  last_epoch?: number;
}

interface Phase {
  end_step: number;
  start_lr: string;
  end_lr: string;
  start_momentum: string;
  end_momentum: string;
}

/**
 * The 1cycle policy: warm up from `max_lr / div_factor` to `max_lr`, then anneal to
 * `initial_lr / final_div_factor` (cosine or linear), with momentum moving inversely; stepped
 * after every batch, `total_steps` times at most.
 */
export class OneCycleLR extends LRScheduler {
  readonly total_steps: number;
  readonly cycle_momentum: boolean;
  readonly #phases: Phase[];
  readonly #anneal: (start: number, end: number, pct: number) => number;
  readonly #key: "momentum" | "betas" | null = null;

  constructor(optimizer: Optimizer, options: OneCycleLROptions) {
    const a = args("optim.lr_scheduler.OneCycleLR", arguments);
    checkOptimizer(a.optimizer);
    optimizer = a.optimizer;
    const o = omit(a, "optimizer") as OneCycleLROptions;
    let total: number;
    if (o.total_steps !== undefined && o.total_steps !== null) {
      if (!(Number.isInteger(o.total_steps) && o.total_steps > 0))
        throw new TorchError(
          `Expected positive integer total_steps, but got ${o.total_steps}`,
        );
      total = o.total_steps;
    } else if (o.epochs && o.steps_per_epoch) {
      total = o.epochs * o.steps_per_epoch;
    } else
      throw new TorchError(
        "You must define either total_steps OR (epochs AND steps_per_epoch)",
      );
    const pct = o.pct_start ?? 0.3;
    if (!(pct >= 0 && pct <= 1))
      throw new TorchError(
        `Expected float between 0 and 1 pct_start, but got ${pct}`,
      );
    const strategy = o.anneal_strategy ?? "cos";
    if (strategy !== "cos" && strategy !== "linear")
      throw new TorchError(
        `anneal_strategy must be one of 'cos' or 'linear', instead got ${String(strategy)}`,
      );
    const last = o.last_epoch ?? -1;
    const maxLrs = perGroup("max_lr", optimizer, o.max_lr);
    const div = o.div_factor ?? 25;
    const finalDiv = o.final_div_factor ?? 1e4;
    if (last === -1)
      optimizer.param_groups.forEach((g, i) => {
        g.initial_lr = maxLrs[i]! / div;
        g.max_lr = maxLrs[i]!;
        g.min_lr = (g.initial_lr as number) / finalDiv;
      });
    const cycle = o.cycle_momentum ?? true;
    let key: "momentum" | "betas" | null = null;
    if (cycle) {
      key = momentumKey(optimizer);
      const hi = perGroup("max_momentum", optimizer, o.max_momentum ?? 0.95);
      const lo = perGroup("base_momentum", optimizer, o.base_momentum ?? 0.85);
      if (last === -1)
        optimizer.param_groups.forEach((g, i) => {
          setMomentum(g, key!, hi[i]!);
          g.max_momentum = hi[i]!;
          g.base_momentum = lo[i]!;
        });
    }
    super(optimizer, last);
    this.total_steps = total;
    this.cycle_momentum = cycle;
    this.#key = key;
    this.#anneal =
      strategy === "cos"
        ? (s, e, p) => e + ((s - e) / 2) * (Math.cos(Math.PI * p) + 1)
        : (s, e, p) => (e - s) * p + s;
    const ph = (
      end_step: number,
      start_lr: string,
      end_lr: string,
      start_momentum: string,
      end_momentum: string,
    ): Phase => ({ end_step, start_lr, end_lr, start_momentum, end_momentum });
    this.#phases = o.three_phase
      ? [
          ph(
            pct * total - 1,
            "initial_lr",
            "max_lr",
            "max_momentum",
            "base_momentum",
          ),
          ph(
            2 * pct * total - 2,
            "max_lr",
            "initial_lr",
            "base_momentum",
            "max_momentum",
          ),
          ph(total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
        ]
      : [
          ph(
            pct * total - 1,
            "initial_lr",
            "max_lr",
            "max_momentum",
            "base_momentum",
          ),
          ph(total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
        ];
    this.step();
  }

  get_lr(): number[] {
    const step = this.last_epoch;
    if (step > this.total_steps)
      throw new TorchError(
        `Tried to step ${step} times. The specified number of total steps is ${this.total_steps}`,
      );
    return this.optimizer.param_groups.map((g) => {
      const v = (k: string) => g[k] as number;
      let start = 0;
      for (const [i, p] of this.#phases.entries()) {
        if (step <= p.end_step || i === this.#phases.length - 1) {
          const pct = (step - start) / (p.end_step - start);
          if (this.cycle_momentum)
            setMomentum(
              g,
              this.#key!,
              this.#anneal(v(p.start_momentum), v(p.end_momentum), pct),
            );
          return this.#anneal(v(p.start_lr), v(p.end_lr), pct);
        }
        start = p.end_step;
      }
      return g.lr;
    });
  }
}
