/**
 * The optimizers: SGD, Adam, AdamW, RMSprop, Adagrad — PyTorch's single-tensor algorithms
 * (`torch/optim/*.py`, `foreach=False`) op for op, so that N steps match PyTorch to float32
 * rounding. Defaults are PyTorch's.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Tensor } from "../tensor.js";
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

/** Options of {@link SGD}. */
export interface SGDOptions {
  lr: number;
  momentum: number;
  dampening: number;
  weight_decay: number;
  nesterov: boolean;
  maximize: boolean;
}

/** Stochastic gradient descent with optional momentum (Nesterov), dampening, weight decay. */
export class SGD extends Optimizer<SGDOptions> {
  constructor(params: Params, options: Partial<SGDOptions> = {}) {
    const o: SGDOptions = {
      lr: 1e-3,
      momentum: 0,
      dampening: 0,
      weight_decay: 0,
      nesterov: false,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    if (o.momentum < 0)
      throw new TorchError(`Invalid momentum value: ${o.momentum}`);
    if (o.weight_decay < 0)
      throw new TorchError(`Invalid weight_decay value: ${o.weight_decay}`);
    if (o.nesterov && (o.momentum <= 0 || o.dampening !== 0))
      throw new TorchError(
        "Nesterov momentum requires a momentum and zero dampening",
      );
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
    const momentum = num(group, "momentum");
    const wd = num(group, "weight_decay");
    let g = flag(group, "maximize") ? keep(grad.neg()) : grad;
    if (wd !== 0) g = keep(g.add(p, { alpha: wd }));
    if (momentum !== 0) {
      const buf = state.momentum_buffer as Tensor | undefined;
      let b: Tensor;
      if (buf === undefined) {
        b = g.clone();
        state.momentum_buffer = b;
      } else {
        const next = keep(
          keep(buf.mul(momentum)).add(g, {
            alpha: 1 - num(group, "dampening"),
          }),
        );
        buf.copy_(next);
        b = buf;
      }
      g = flag(group, "nesterov") ? keep(g.add(b, { alpha: momentum })) : b;
    }
    p.add_(g, { alpha: -lr });
  }
}

/** Options of {@link Adam} and {@link AdamW}. */
export interface AdamOptions {
  lr: number;
  betas: [number, number];
  eps: number;
  weight_decay: number;
  amsgrad: boolean;
  maximize: boolean;
}

/** The Adam update; `decoupled` is AdamW's weight decay (`p *= 1 - lr·wd` first). */
function adamUpdate(
  decoupled: boolean,
  p: Tensor,
  grad: Tensor,
  state: ParamState,
  group: ParamGroup,
  keep: Keep,
): void {
  const lr = num(group, "lr");
  const [beta1, beta2] = group.betas as [number, number];
  const eps = num(group, "eps");
  const wd = num(group, "weight_decay");
  const step = ((state.step as number | undefined) ?? 0) + 1;
  state.step = step;
  let g = flag(group, "maximize") ? keep(grad.neg()) : grad;
  let param = p;
  if (wd !== 0) {
    if (decoupled) param = keep(p.mul(1 - lr * wd));
    else g = keep(g.add(p, { alpha: wd }));
  }
  const m = state.exp_avg as Tensor | undefined;
  const v = state.exp_avg_sq as Tensor | undefined;
  // exp_avg.lerp_(grad, 1 - beta1): m + w (g - m)
  const mNew = m
    ? keep(m.add(keep(g.sub(m)), { alpha: 1 - beta1 }))
    : keep(g.mul(1 - beta1));
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  const gg = keep(keep(g.mul(1 - beta2)).mul(g));
  const vNew = v ? keep(keep(v.mul(beta2)).add(gg)) : gg;
  const bc1 = 1 - beta1 ** step;
  const bc2Sqrt = Math.sqrt(1 - beta2 ** step);
  let second = vNew;
  if (flag(group, "amsgrad")) {
    const vmax = state.max_exp_avg_sq as Tensor | undefined;
    second = vmax ? keep(vmax.maximum(vNew)) : vNew;
  }
  const denom = keep(keep(keep(second.sqrt()).div(bc2Sqrt)).add(eps));
  // param.addcdiv_(exp_avg, denom, value=-lr / bias_correction1)
  const pNew = keep(param.add(keep(mNew.div(denom)), { alpha: -lr / bc1 }));
  storeAll(state, [
    ["exp_avg", mNew],
    ["exp_avg_sq", vNew],
    ...(flag(group, "amsgrad")
      ? [["max_exp_avg_sq", second] as [string, Tensor]]
      : []),
  ]);
  p.copy_(pNew);
}

function adamOptions(options: Partial<AdamOptions>, wd: number): AdamOptions {
  const o: AdamOptions = {
    lr: 1e-3,
    betas: [0.9, 0.999],
    eps: 1e-8,
    weight_decay: wd,
    amsgrad: false,
    maximize: false,
    ...options,
  };
  checkLr(o.lr);
  if (!(o.eps >= 0)) throw new TorchError(`Invalid epsilon value: ${o.eps}`);
  o.betas.forEach((b, i) => {
    if (!(b >= 0 && b < 1))
      throw new TorchError(`Invalid beta parameter at index ${i}: ${b}`);
  });
  if (!(o.weight_decay >= 0))
    throw new TorchError(`Invalid weight_decay value: ${o.weight_decay}`);
  return o;
}

/** Adam (L2 weight decay added to the gradient), with optional AMSGrad. */
export class Adam extends Optimizer<AdamOptions> {
  constructor(params: Params, options: Partial<AdamOptions> = {}) {
    super(params, adamOptions(options, 0));
  }
  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    adamUpdate(false, p, grad, state, group, keep);
  }
}

/** AdamW: Adam with decoupled weight decay (default 1e-2). */
export class AdamW extends Optimizer<AdamOptions> {
  constructor(params: Params, options: Partial<AdamOptions> = {}) {
    super(params, adamOptions(options, 1e-2));
  }
  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    adamUpdate(true, p, grad, state, group, keep);
  }
}

/** Options of {@link RMSprop}. */
export interface RMSpropOptions {
  lr: number;
  alpha: number;
  eps: number;
  weight_decay: number;
  momentum: number;
  centered: boolean;
  maximize: boolean;
}

/** RMSprop (optionally centered, with momentum). */
export class RMSprop extends Optimizer<RMSpropOptions> {
  constructor(params: Params, options: Partial<RMSpropOptions> = {}) {
    const o: RMSpropOptions = {
      lr: 1e-2,
      alpha: 0.99,
      eps: 1e-8,
      weight_decay: 0,
      momentum: 0,
      centered: false,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
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
    const alpha = num(group, "alpha");
    const eps = num(group, "eps");
    const wd = num(group, "weight_decay");
    const momentum = num(group, "momentum");
    state.step = ((state.step as number | undefined) ?? 0) + 1;
    let g = flag(group, "maximize") ? keep(grad.neg()) : grad;
    if (wd !== 0) g = keep(g.add(p, { alpha: wd }));
    const sq = state.square_avg as Tensor | undefined;
    // square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    const gg = keep(keep(g.mul(1 - alpha)).mul(g));
    const sqNew = sq ? keep(keep(sq.mul(alpha)).add(gg)) : gg;
    const out: [string, Tensor][] = [["square_avg", sqNew]];
    let avg: Tensor;
    if (flag(group, "centered")) {
      const ga = state.grad_avg as Tensor | undefined;
      const gaNew = ga
        ? keep(ga.add(keep(g.sub(ga)), { alpha: 1 - alpha }))
        : keep(g.mul(1 - alpha));
      out.push(["grad_avg", gaNew]);
      avg = keep(keep(sqNew.sub(keep(gaNew.square()))).sqrt());
    } else {
      avg = keep(sqNew.sqrt());
    }
    avg = keep(avg.add(eps));
    if (momentum > 0) {
      const buf = state.momentum_buffer as Tensor | undefined;
      const q = keep(g.div(avg));
      const bufNew = buf ? keep(keep(buf.mul(momentum)).add(q)) : q;
      out.push(["momentum_buffer", bufNew]);
      const pNew = keep(p.add(bufNew, { alpha: -lr }));
      storeAll(state, out);
      p.copy_(pNew);
    } else {
      const pNew = keep(p.add(keep(g.div(avg)), { alpha: -lr }));
      storeAll(state, out);
      p.copy_(pNew);
    }
  }
}

/** Options of {@link Adagrad}. */
export interface AdagradOptions {
  lr: number;
  lr_decay: number;
  weight_decay: number;
  initial_accumulator_value: number;
  eps: number;
  maximize: boolean;
}

/** Adagrad. */
export class Adagrad extends Optimizer<AdagradOptions> {
  constructor(params: Params, options: Partial<AdagradOptions> = {}) {
    const o: AdagradOptions = {
      lr: 1e-2,
      lr_decay: 0,
      weight_decay: 0,
      initial_accumulator_value: 0,
      eps: 1e-10,
      maximize: false,
      ...options,
    };
    checkLr(o.lr);
    super(params, o);
    // PyTorch creates the accumulator eagerly, in the constructor.
    for (const g of this.param_groups)
      for (const p of g.params)
        this.state.set(p, {
          step: 0,
          sum: zerosLike(p, num(g, "initial_accumulator_value")),
        });
  }

  protected _update(
    p: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    const lr = num(group, "lr");
    const step = ((state.step as number | undefined) ?? 0) + 1;
    state.step = step;
    let g = flag(group, "maximize") ? keep(grad.neg()) : grad;
    const wd = num(group, "weight_decay");
    if (wd !== 0) g = keep(g.add(p, { alpha: wd }));
    const clr = lr / (1 + (step - 1) * num(group, "lr_decay"));
    let sum = state.sum as Tensor | undefined;
    if (sum === undefined) {
      sum = zerosLike(p, num(group, "initial_accumulator_value"));
      state.sum = sum;
    }
    // state_sum.addcmul_(grad, grad, value=1); std = state_sum.sqrt().add_(eps)
    const sumNew = keep(sum.add(keep(g.mul(g))));
    const std = keep(keep(sumNew.sqrt()).add(num(group, "eps")));
    const pNew = keep(p.add(keep(g.div(std)), { alpha: -clr }));
    sum.copy_(sumNew);
    p.copy_(pNew);
  }
}
