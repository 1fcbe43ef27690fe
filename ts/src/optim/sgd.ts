/**
 * The SGD family: SGD (momentum, Nesterov, dampening, weight decay) and ASGD (averaged SGD) —
 * PyTorch's options, defaults and argument checks; each step is the core's fused update of PyTorch's
 * single-tensor algorithm (`torch/optim/*.py`, `foreach=False`), op for op, so that N steps
 * match PyTorch to float32 rounding (fused.ts, src/optim.rs). ASGD keeps `eta` and `mu` in
 * float32 state, as PyTorch does.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args, omit } from "../schema/index.js";
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
    const a = args("optim.SGD", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<SGDOptions>;
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
    const a = args("optim.ASGD", arguments);
    params = a.params as Params;
    options = omit(a, "params") as Partial<ASGDOptions>;
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
