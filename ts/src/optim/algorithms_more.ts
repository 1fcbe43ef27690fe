/**
 * More optimizers: Adamax, NAdam, RAdam, ASGD, Adadelta and Rprop — PyTorch's options,
 * defaults and argument checks, stepped by the core's fused update as in algorithms.ts. Scalars
 * that PyTorch keeps in float32 state tensors (NAdam's `mu_product`, ASGD's `eta` and `mu`) are
 * float32 in the core too, so trajectories match to float32 rounding.
 *
 * @module
 */

import { FusedOptimizer, type Params } from "./fused.js";

/** Options of {@link Adamax}. */
export interface AdamaxOptions {
  /** Learning rate. */
  lr: number;
  /** Coefficients of the running averages of the gradient and of its square. */
  betas: [number, number];
  /** Term added for numerical stability. */
  eps: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** Adamax: Adam with the infinity norm of past gradients in place of the second moment. */
export class Adamax extends FusedOptimizer<AdamaxOptions> {
  constructor(params: Params, options: Partial<AdamaxOptions> = {}) {
    const defaults: AdamaxOptions = {
      lr: 2e-3,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weight_decay: 0,
      maximize: false,
    };
    super("Adamax", params, defaults, options, [
      "lr",
      "eps",
      "betas",
      "weight_decay",
    ]);
  }
}

/** Options of {@link NAdam}. */
export interface NAdamOptions {
  /** Learning rate. */
  lr: number;
  /** Coefficients of the running averages of the gradient and of its square. */
  betas: [number, number];
  /** Term added for numerical stability. */
  eps: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Decay of the momentum schedule (PyTorch's `momentum_decay`, default 0.004). */
  momentum_decay: number;
  /** Apply weight decay to the parameters directly (AdamW-style) instead of through the gradient (default false). */
  decoupled_weight_decay: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** NAdam: Adam with Nesterov momentum (Dozat), with PyTorch's momentum-decay schedule. */
export class NAdam extends FusedOptimizer<NAdamOptions> {
  constructor(params: Params, options: Partial<NAdamOptions> = {}) {
    const defaults: NAdamOptions = {
      lr: 2e-3,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weight_decay: 0,
      momentum_decay: 4e-3,
      decoupled_weight_decay: false,
      maximize: false,
    };
    super("NAdam", params, defaults, options, [
      "lr",
      "eps",
      "betas",
      "weight_decay",
      "momentum_decay",
    ]);
  }
}

/** Options of {@link RAdam}. */
export interface RAdamOptions {
  /** Learning rate. */
  lr: number;
  /** Coefficients of the running averages of the gradient and of its square. */
  betas: [number, number];
  /** Term added for numerical stability. */
  eps: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Apply weight decay to the parameters directly (AdamW-style) instead of through the gradient (default false). */
  decoupled_weight_decay: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** RAdam: Adam with the variance of the adaptive learning rate rectified (Liu et al.). */
export class RAdam extends FusedOptimizer<RAdamOptions> {
  constructor(params: Params, options: Partial<RAdamOptions> = {}) {
    const defaults: RAdamOptions = {
      lr: 1e-3,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weight_decay: 0,
      decoupled_weight_decay: false,
      maximize: false,
    };
    super("RAdam", params, defaults, options, [
      "lr",
      "eps",
      "betas",
      "weight_decay",
    ]);
  }
}

/** Options of {@link ASGD}. */
export interface ASGDOptions {
  /** Learning rate. */
  lr: number;
  /** Decay term (default 1e-4). */
  lambd: number;
  /** Power of the step-size decay, `lr / (1 + lambd·lr·t)^alpha` (default 0.75). */
  alpha: number;
  /** Step at which averaging starts (default 1e6). */
  t0: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** Averaged SGD; the running average of the parameters is `state.ax`. */
export class ASGD extends FusedOptimizer<ASGDOptions> {
  constructor(params: Params, options: Partial<ASGDOptions> = {}) {
    const defaults: ASGDOptions = {
      lr: 1e-2,
      lambd: 1e-4,
      alpha: 0.75,
      t0: 1e6,
      weight_decay: 0,
      maximize: false,
    };
    super("ASGD", params, defaults, options, ["lr", "weight_decay"]);
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
    const defaults: RpropOptions = {
      lr: 1e-2,
      etas: [0.5, 1.2],
      step_sizes: [1e-6, 50],
      maximize: false,
    };
    super("Rprop", params, defaults, options, ["lr", "etas", "step_sizes"]);
  }
}
