/**
 * Optimizers with per-element step sizes from the gradients' history: RMSprop, Adagrad, Adadelta
 * and Rprop — PyTorch's options, defaults and argument checks; each step is the core's fused update of PyTorch's
 * single-tensor algorithm (`torch/optim/*.py`, `foreach=False`), op for op, so that N steps
 * match PyTorch to float32 rounding (fused.ts, src/ops/optim/).
 *
 * @module
 */

import { args, omit } from "../schema/index.js";
import { FusedOptimizer, type Params } from "./fused.js";

/** Options of {@link RMSprop}. */
export interface RMSpropOptions {
  /** Learning rate. */
  lr: number;
  /** Smoothing constant. */
  alpha: number;
  /** Term added for numerical stability. */
  eps: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Momentum factor (default 0). */
  momentum: number;
  /** Normalize by an estimate of the gradient's variance (default false). */
  centered: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** RMSprop (optionally centered, with momentum). */
export class RMSprop extends FusedOptimizer<RMSpropOptions> {
  constructor(params: Params, options: Partial<RMSpropOptions> = {}) {
    const a = args("optim.RMSprop", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<RMSpropOptions>;
    const defaults: RMSpropOptions = {
      lr: 1e-2,
      alpha: 0.99,
      eps: 1e-8,
      weight_decay: 0,
      momentum: 0,
      centered: false,
      maximize: false,
    };
    super("RMSprop", params, defaults, options, [
      "lr",
      "eps",
      "momentum",
      "weight_decay",
      "alpha",
    ]);
  }
}

/** Options of {@link Adagrad}. */
export interface AdagradOptions {
  /** Learning rate. */
  lr: number;
  /** Learning-rate decay per step (default 0). */
  lr_decay: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Starting value of the sum of squared gradients (default 0). */
  initial_accumulator_value: number;
  /** Term added for numerical stability. */
  eps: number;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** Adagrad (its accumulators exist from the constructor on, as in PyTorch). */
export class Adagrad extends FusedOptimizer<AdagradOptions> {
  constructor(params: Params, options: Partial<AdagradOptions> = {}) {
    const a = args("optim.Adagrad", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<AdagradOptions>;
    const defaults: AdagradOptions = {
      lr: 1e-2,
      lr_decay: 0,
      weight_decay: 0,
      initial_accumulator_value: 0,
      eps: 1e-10,
      maximize: false,
    };
    super("Adagrad", params, defaults, options, [
      "lr",
      "lr_decay",
      "weight_decay",
      "initial_accumulator_value",
      "eps",
    ]);
  }
}

/** Options of {@link Adadelta}. */
export interface AdadeltaOptions {
  /** Learning rate. */
  lr: number;
  /** Decay of the running averages (default 0.9). */
  rho: number;
  /** Term added for numerical stability. */
  eps: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** Adadelta (Zeiler): step sizes from running averages of squared gradients and updates. */
export class Adadelta extends FusedOptimizer<AdadeltaOptions> {
  constructor(params: Params, options: Partial<AdadeltaOptions> = {}) {
    const a = args("optim.Adadelta", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<AdadeltaOptions>;
    const defaults: AdadeltaOptions = {
      lr: 1,
      rho: 0.9,
      eps: 1e-6,
      weight_decay: 0,
      maximize: false,
    };
    super("Adadelta", params, defaults, options, [
      "lr",
      "rho",
      "eps",
      "weight_decay",
    ]);
  }
}

/** Options of {@link Rprop}. */
export interface RpropOptions {
  /** Learning rate. */
  lr: number;
  /** Multiplicative decrease and increase factors of the step sizes (default [0.5, 1.2]). */
  etas: [number, number];
  /** Minimal and maximal step sizes (default [1e-6, 50]). */
  step_sizes: [number, number];
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** Resilient backpropagation: per-element step sizes grown or shrunk by the gradient's sign. */
export class Rprop extends FusedOptimizer<RpropOptions> {
  constructor(params: Params, options: Partial<RpropOptions> = {}) {
    const a = args("optim.Rprop", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<RpropOptions>;
    const defaults: RpropOptions = {
      lr: 1e-2,
      etas: [0.5, 1.2],
      step_sizes: [1e-6, 50],
      maximize: false,
    };
    super("Rprop", params, defaults, options, ["lr", "etas", "step_sizes"]);
  }
}
