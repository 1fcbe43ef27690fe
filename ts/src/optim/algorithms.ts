/**
 * The optimizers SGD, Adam, AdamW, RMSprop and Adagrad (more in algorithms_more.ts): PyTorch's
 * options, defaults and argument checks; each step is the core's fused update of PyTorch's
 * single-tensor algorithm (`torch/optim/*.py`, `foreach=False`), op for op, so that N steps
 * match PyTorch to float32 rounding (fused.ts, src/ops/optim/).
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { FusedOptimizer, type Params } from "./fused.js";

/** Options of {@link SGD}. */
export interface SGDOptions {
  /** Learning rate. */
  lr: number;
  /** Momentum factor (default 0). */
  momentum: number;
  /** Dampening of the momentum (default 0). */
  dampening: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Nesterov momentum (default false; needs momentum > 0 and dampening 0). */
  nesterov: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
}

/** Stochastic gradient descent with optional momentum (Nesterov), dampening, weight decay. */
export class SGD extends FusedOptimizer<SGDOptions> {
  constructor(params: Params, options: Partial<SGDOptions> = {}) {
    const defaults: SGDOptions = {
      lr: 1e-3,
      momentum: 0,
      dampening: 0,
      weight_decay: 0,
      nesterov: false,
      maximize: false,
    };
    const o = { ...defaults, ...options };
    if (o.nesterov && (o.momentum <= 0 || o.dampening !== 0))
      throw new TorchError(
        "Nesterov momentum requires a momentum and zero dampening",
      );
    super("SGD", params, defaults, options, ["lr", "momentum", "weight_decay"]);
  }
}

/** Options of {@link Adam} and {@link AdamW}. */
export interface AdamOptions {
  /** Learning rate. */
  lr: number;
  /** Coefficients of the running averages of the gradient and of its square. */
  betas: [number, number];
  /** Term added for numerical stability. */
  eps: number;
  /** L2 penalty added to the gradient (default 0). */
  weight_decay: number;
  /** Use the maximum of past squared-gradient averages (AMSGrad; default false). */
  amsgrad: boolean;
  /** Maximize the objective instead of minimizing it (default false). */
  maximize: boolean;
  /** AdamW's weight decay (`p *= 1 - lr·wd` before the update) instead of L2. */
  decoupled_weight_decay: boolean;
}

const ADAM_CHECKS = ["lr", "eps", "betas", "weight_decay"] as const;

function adamDefaults(weight_decay: number, decoupled: boolean): AdamOptions {
  return {
    lr: 1e-3,
    betas: [0.9, 0.999],
    eps: 1e-8,
    weight_decay,
    amsgrad: false,
    maximize: false,
    decoupled_weight_decay: decoupled,
  };
}

/** Adam (L2 weight decay added to the gradient), with optional AMSGrad. */
export class Adam extends FusedOptimizer<AdamOptions> {
  constructor(params: Params, options: Partial<AdamOptions> = {}) {
    super("Adam", params, adamDefaults(0, false), options, ADAM_CHECKS);
  }
}

/** AdamW: Adam with decoupled weight decay (default 1e-2). */
export class AdamW extends FusedOptimizer<AdamOptions> {
  constructor(params: Params, options: Partial<AdamOptions> = {}) {
    super("AdamW", params, adamDefaults(1e-2, true), options, ADAM_CHECKS);
  }
}

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
