/**
 * The Adam family: Adam (with AMSGrad), AdamW (decoupled weight decay), Adamax (infinity norm),
 * NAdam (Nesterov momentum) and RAdam (rectified variance) — PyTorch's options, defaults and
 * argument checks; each step is the core's fused update of PyTorch's
 * single-tensor algorithm (`torch/optim/*.py`, `foreach=False`), op for op, so that N steps
 * match PyTorch to float32 rounding (fused.ts, src/optim.rs). Scalars that PyTorch keeps in float32 state tensors (NAdam's
 * `mu_product`) are float32 in the core too.
 *
 * @module
 */

import { args, omit } from "../schema/index.js";
import { FusedOptimizer, type Params } from "./fused.js";

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
    const a = args("optim.Adam", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<AdamOptions>;
    super("Adam", params, adamDefaults(0, false), options, ADAM_CHECKS);
  }
}

/** AdamW: Adam with decoupled weight decay (default 1e-2). */
export class AdamW extends FusedOptimizer<AdamOptions> {
  constructor(params: Params, options: Partial<AdamOptions> = {}) {
    const a = args("optim.AdamW", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<AdamOptions>;
    super("AdamW", params, adamDefaults(1e-2, true), options, ADAM_CHECKS);
  }
}

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
    const a = args("optim.Adamax", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<AdamaxOptions>;
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
    const a = args("optim.NAdam", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<NAdamOptions>;
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
    const a = args("optim.RAdam", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<RAdamOptions>;
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
