/**
 * More optimizers: Adamax, NAdam, RAdam, ASGD, Adadelta and Rprop — PyTorch's single-tensor
 * algorithms (`torch/optim/*.py`, `foreach=False`) op for op, as in algorithms.ts. Scalars that
 * PyTorch keeps in float32 state tensors (NAdam's `mu_product`, ASGD's `eta`) are rounded to
 * float32 here too, so trajectories match to float32 rounding. Defaults are PyTorch's.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Tensor } from "../tensor.js";
import { where } from "../conditional.js";
import {
  type Keep,
  Optimizer,
  type ParamGroup,
  type ParamGroupInput,
  type ParamState,
  checkLr,
  flag,
  num,
  storeAll,
  zerosLike,
} from "./optimizer.js";

type Params = Iterable<Tensor> | Iterable<ParamGroupInput>;

function checkBetas(betas: readonly number[]): void {
  betas.forEach((b, i) => {
    if (!(b >= 0 && b < 1))
      throw new TorchError(`Invalid beta parameter at index ${i}: ${b}`);
  });
}

function checkNonNeg(what: string, v: number): void {
  if (!(v >= 0)) throw new TorchError(`Invalid ${what} value: ${v}`);
}

/** `grad` (negated with `maximize`), plus `weight_decay · p` (L2) when asked. */
function l2Grad(
  p: Tensor,
  grad: Tensor,
  group: ParamGroup,
  keep: Keep,
  l2 = true,
): Tensor {
  let g = flag(group, "maximize") ? keep(grad.neg()) : grad;
  const wd = num(group, "weight_decay");
  if (l2 && wd !== 0) g = keep(g.add(p, { alpha: wd }));
  return g;
}

function nextStep(state: ParamState): number {
  const step = ((state.step as number | undefined) ?? 0) + 1;
  state.step = step;
  return step;
}

/** `m.lerp(g, 1 - beta1)`, or `(1 - beta1)·g` for a fresh zero `m`. */
function firstMoment(
  m: Tensor | undefined,
  g: Tensor,
  beta1: number,
  keep: Keep,
): Tensor {
  return m
    ? keep(m.add(keep(g.sub(m)), { alpha: 1 - beta1 }))
    : keep(g.mul(1 - beta1));
}

/** `v·beta2 + (1 - beta2)·g²` (addcmul), `v` zero when fresh. */
function secondMoment(
  v: Tensor | undefined,
  g: Tensor,
  beta2: number,
  keep: Keep,
): Tensor {
  const gg = keep(keep(g.mul(1 - beta2)).mul(g));
  return v ? keep(keep(v.mul(beta2)).add(gg)) : gg;
}

/** Options of {@link Adamax}. */
export interface AdamaxOptions {
  lr: number;
  betas: [number, number];
  eps: number;
  weight_decay: number;
  maximize: boolean;
}

/** Adamax: Adam with the infinity norm of past gradients in place of the second moment. */
export class Adamax extends Optimizer<AdamaxOptions> {
  constructor(params: Params, options: Partial<AdamaxOptions> = {}) {
    const o: AdamaxOptions = {
      lr: 2e-3,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weight_decay: 0,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    checkNonNeg("epsilon", o.eps);
    checkBetas(o.betas);
    checkNonNeg("weight_decay", o.weight_decay);
    super(params, o);
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const [beta1, beta2] = group.betas as [number, number];
    const step = nextStep(state);
    const g = l2Grad(p, grad, group, keep);
    const m = firstMoment(state.exp_avg as Tensor | undefined, g, beta1, keep);
    const u = state.exp_inf as Tensor | undefined;
    const gAbs = keep(keep(g.abs()).add(num(group, "eps")));
    // exp_inf = max(exp_inf · beta2, |g| + eps)
    const uNew = u ? keep(keep(u.mul(beta2)).maximum(gAbs)) : gAbs;
    const clr = num(group, "lr") / (1 - beta1 ** step);
    const pNew = keep(p.add(keep(m.div(uNew)), { alpha: -clr }));
    storeAll(state, [
      ["exp_avg", m],
      ["exp_inf", uNew],
    ]);
    p.copy_(pNew);
  }
}

/** Options of {@link NAdam}. */
export interface NAdamOptions {
  lr: number;
  betas: [number, number];
  eps: number;
  weight_decay: number;
  momentum_decay: number;
  decoupled_weight_decay: boolean;
  maximize: boolean;
}

/** NAdam: Adam with Nesterov momentum (Dozat), with PyTorch's momentum-decay schedule. */
export class NAdam extends Optimizer<NAdamOptions> {
  constructor(params: Params, options: Partial<NAdamOptions> = {}) {
    const o: NAdamOptions = {
      lr: 2e-3,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weight_decay: 0,
      momentum_decay: 4e-3,
      decoupled_weight_decay: false,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    checkNonNeg("epsilon", o.eps);
    checkBetas(o.betas);
    checkNonNeg("weight_decay", o.weight_decay);
    checkNonNeg("momentum_decay", o.momentum_decay);
    super(params, o);
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const lr = num(group, "lr");
    const [beta1, beta2] = group.betas as [number, number];
    const wd = num(group, "weight_decay");
    const decay = num(group, "momentum_decay");
    const decoupled = flag(group, "decoupled_weight_decay");
    const step = nextStep(state);
    const g = l2Grad(p, grad, group, keep, !decoupled);
    const param = decoupled && wd !== 0 ? keep(p.mul(1 - lr * wd)) : p;
    const bc2 = 1 - beta2 ** step;
    const mu = beta1 * (1 - 0.5 * 0.96 ** (step * decay));
    const muNext = beta1 * (1 - 0.5 * 0.96 ** ((step + 1) * decay));
    // PyTorch keeps mu_product in a float32 tensor.
    const prev = (state.mu_product as number | undefined) ?? 1;
    const muProduct = Math.fround(prev * Math.fround(mu));
    state.mu_product = muProduct;
    const m = firstMoment(state.exp_avg as Tensor | undefined, g, beta1, keep);
    const v = secondMoment(
      state.exp_avg_sq as Tensor | undefined,
      g,
      beta2,
      keep,
    );
    const denom = keep(keep(keep(v.div(bc2)).sqrt()).add(num(group, "eps")));
    const a = keep(
      param.add(keep(g.div(denom)), {
        alpha: (-lr * (1 - mu)) / (1 - muProduct),
      }),
    );
    const pNew = keep(
      a.add(keep(m.div(denom)), {
        alpha: (-lr * muNext) / (1 - muProduct * muNext),
      }),
    );
    storeAll(state, [
      ["exp_avg", m],
      ["exp_avg_sq", v],
    ]);
    p.copy_(pNew);
  }
}

/** Options of {@link RAdam}. */
export interface RAdamOptions {
  lr: number;
  betas: [number, number];
  eps: number;
  weight_decay: number;
  decoupled_weight_decay: boolean;
  maximize: boolean;
}

/** RAdam: Adam with the variance of the adaptive learning rate rectified (Liu et al.). */
export class RAdam extends Optimizer<RAdamOptions> {
  constructor(params: Params, options: Partial<RAdamOptions> = {}) {
    const o: RAdamOptions = {
      lr: 1e-3,
      betas: [0.9, 0.999],
      eps: 1e-8,
      weight_decay: 0,
      decoupled_weight_decay: false,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    checkNonNeg("epsilon", o.eps);
    checkBetas(o.betas);
    checkNonNeg("weight_decay", o.weight_decay);
    super(params, o);
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const lr = num(group, "lr");
    const [beta1, beta2] = group.betas as [number, number];
    const wd = num(group, "weight_decay");
    const decoupled = flag(group, "decoupled_weight_decay");
    const step = nextStep(state);
    const g = l2Grad(p, grad, group, keep, !decoupled);
    const param = decoupled && wd !== 0 ? keep(p.mul(1 - lr * wd)) : p;
    const m = firstMoment(state.exp_avg as Tensor | undefined, g, beta1, keep);
    const v = secondMoment(
      state.exp_avg_sq as Tensor | undefined,
      g,
      beta2,
      keep,
    );
    const bc1 = 1 - beta1 ** step;
    const bc2 = 1 - beta2 ** step;
    const corrected = keep(keep(m.div(bc1)).mul(lr));
    const rhoInf = 2 / (1 - beta2) - 1;
    const rhoT = rhoInf - (2 * step * beta2 ** step) / bc2;
    let update = corrected;
    if (rhoT > 5) {
      const rect = Math.sqrt(
        ((rhoT - 4) * (rhoT - 2) * rhoInf) /
          ((rhoInf - 4) * (rhoInf - 2) * rhoT),
      );
      const adaptive = keep(
        keep(keep(v.sqrt()).add(num(group, "eps"))).reciprocal(),
      );
      update = keep(
        keep(keep(corrected.mul(adaptive)).mul(Math.sqrt(bc2))).mul(rect),
      );
    }
    const pNew = keep(param.sub(update));
    storeAll(state, [
      ["exp_avg", m],
      ["exp_avg_sq", v],
    ]);
    p.copy_(pNew);
  }
}

/** Options of {@link ASGD}. */
export interface ASGDOptions {
  lr: number;
  lambd: number;
  alpha: number;
  t0: number;
  weight_decay: number;
  maximize: boolean;
}

/** Averaged SGD; the running average of the parameters is `state.ax`. */
export class ASGD extends Optimizer<ASGDOptions> {
  constructor(params: Params, options: Partial<ASGDOptions> = {}) {
    const o: ASGDOptions = {
      lr: 1e-2,
      lambd: 1e-4,
      alpha: 0.75,
      t0: 1e6,
      weight_decay: 0,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    checkNonNeg("weight_decay", o.weight_decay);
    super(params, o);
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const lr = num(group, "lr");
    const lambd = num(group, "lambd");
    const step = nextStep(state);
    const g = l2Grad(p, grad, group, keep);
    // PyTorch keeps eta and mu in float32 tensors.
    const eta = (state.eta as number | undefined) ?? Math.fround(lr);
    const mu = (state.mu as number | undefined) ?? 1;
    const pNew = keep(keep(p.mul(1 - lambd * eta)).add(g, { alpha: -eta }));
    const ax = (state.ax as Tensor | undefined) ?? zerosLike(p);
    const axNew =
      mu !== 1 ? keep(ax.add(keep(keep(pNew.sub(ax)).mul(mu)))) : pNew;
    storeAll(state, [["ax", axNew]]);
    state.eta = Math.fround(
      lr / (1 + lambd * lr * step) ** num(group, "alpha"),
    );
    state.mu = Math.fround(1 / Math.max(1, step - num(group, "t0")));
    p.copy_(pNew);
  }
}

/** Options of {@link Adadelta}. */
export interface AdadeltaOptions {
  lr: number;
  rho: number;
  eps: number;
  weight_decay: number;
  maximize: boolean;
}

/** Adadelta (Zeiler): step sizes from running averages of squared gradients and updates. */
export class Adadelta extends Optimizer<AdadeltaOptions> {
  constructor(params: Params, options: Partial<AdadeltaOptions> = {}) {
    const o: AdadeltaOptions = {
      lr: 1,
      rho: 0.9,
      eps: 1e-6,
      weight_decay: 0,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    if (!(o.rho >= 0 && o.rho <= 1))
      throw new TorchError(`Invalid rho value: ${o.rho}`);
    checkNonNeg("epsilon", o.eps);
    checkNonNeg("weight_decay", o.weight_decay);
    super(params, o);
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const rho = num(group, "rho");
    const eps = num(group, "eps");
    nextStep(state);
    const g = l2Grad(p, grad, group, keep);
    const sq = secondMoment(
      state.square_avg as Tensor | undefined,
      g,
      rho,
      keep,
    );
    const acc = state.acc_delta as Tensor | undefined;
    const std = keep(keep(sq.add(eps)).sqrt());
    const delta0 = acc
      ? keep(keep(acc.add(eps)).sqrt())
      : keep(zerosLike(p, Math.sqrt(eps)));
    const delta = keep(keep(delta0.div(std)).mul(g));
    const accNew = secondMoment(acc, delta, rho, keep);
    const pNew = keep(p.add(delta, { alpha: -num(group, "lr") }));
    storeAll(state, [
      ["square_avg", sq],
      ["acc_delta", accNew],
    ]);
    p.copy_(pNew);
  }
}

/** Options of {@link Rprop}. */
export interface RpropOptions {
  lr: number;
  etas: [number, number];
  step_sizes: [number, number];
  maximize: boolean;
}

/** Resilient backpropagation: per-element step sizes grown or shrunk by the gradient's sign. */
export class Rprop extends Optimizer<RpropOptions> {
  constructor(params: Params, options: Partial<RpropOptions> = {}) {
    const o: RpropOptions = {
      lr: 1e-2,
      etas: [0.5, 1.2],
      step_sizes: [1e-6, 50],
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    const [minus, plus] = o.etas;
    if (!(0 < minus && minus < 1 && 1 < plus))
      throw new TorchError(`Invalid eta values: ${minus}, ${plus}`);
    super(params, o);
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const [etaminus, etaplus] = group.etas as [number, number];
    const [lo, hi] = group.step_sizes as [number, number];
    nextStep(state);
    const g = flag(group, "maximize") ? keep(grad.neg()) : grad;
    const prev = (state.prev as Tensor | undefined) ?? keep(zerosLike(p));
    const size =
      (state.step_size as Tensor | undefined) ??
      keep(zerosLike(p, num(group, "lr")));
    const s = keep(keep(g.mul(prev)).sign());
    const factor = keep(
      where(keep(s.gt(0)), etaplus, keep(where(keep(s.lt(0)), etaminus, 1))),
    );
    const sizeNew = keep(keep(keep(size.mul(factor)).maximum(lo)).minimum(hi));
    // Where the sign flipped, the gradient counts as zero (no step, no memory).
    const gNew = keep(where(keep(s.lt(0)), 0, g));
    const pNew = keep(p.sub(keep(keep(gNew.sign()).mul(sizeNew))));
    storeAll(state, [
      ["prev", gNew],
      ["step_size", sizeNew],
    ]);
    p.copy_(pNew);
  }
}
