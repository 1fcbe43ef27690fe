/**
 * `torch.nn.functional`'s losses composed from core ops, beyond the regression and classification
 * ones of losses.ts: huber, kl_div, poisson_nll, gaussian_nll, margin_ranking, hinge_embedding,
 * soft_margin, multilabel_soft_margin, multilabel_margin, multi_margin, cosine_embedding,
 * triplet_margin (with and without a distance function) and ctc.
 * Each follows PyTorch's formula with
 * differentiable core ops inside a {@link scope}.
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { ShapeError, TorchError } from "../../errors.js";
import {
  castError,
  cTypeName,
  isFloatingPoint,
  scalarTypeName,
} from "../../dtype.js";
import { get_default_dtype, promote_types } from "../../state.js";
import { checkValues } from "../../ops/value_checks.js";
import type { Tensor } from "../../tensor/tensor.js";
import { arange, full, tensor } from "../../ops/creation.js";
import { cat } from "../../ops/indexing.js";
import { where } from "../../ops/conditional.js";
import { scope } from "../../lifetime.js";
import { type Reduction, floatLoss } from "./losses.js";
import { pairwise_distance } from "./distance.js";

function reduce(loss: Tensor, reduction: Reduction): Tensor {
  if (reduction === "none") return loss;
  if (reduction === "mean") return loss.mean();
  if (reduction === "sum") return loss.sum();
  throw new TorchError(
    `${String(reduction)} is not a valid value for reduction`,
  );
}

/**
 * PyTorch's error where a loss's float result (the operands' promoted dtype, the default float
 * dtype for integers) would be written into the input's integer dtype.
 */
function floatResult(input: Tensor, target: Tensor): void {
  if (isFloatingPoint(input.dtype)) return;
  const result = promote_types(input.dtype, target.dtype);
  throw castError(
    isFloatingPoint(result) ? result : get_default_dtype(),
    input.dtype,
  );
}

/** `max(z, 0)` as PyTorch's hinge kernels take it: `if (z > 0) sum += z`, so NaN adds nothing. */
function positivePart(z: Tensor): Tensor {
  return z.where(z.gt(0), 0);
}

/** Huber loss: `0.5 d²` below `delta`, `delta·(|d| - 0.5 delta)` above. */
export function huber_loss(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction,
  delta?: number,
): Tensor {
  ({ input, target, reduction, delta } = args(
    "nn.functional.huber_loss",
    arguments,
  ));
  floatLoss("huber_cpu", input, target);
  return scope(() => {
    const d = input.sub(target).abs();
    const q = d.minimum(delta);
    return reduce(q.square().mul(0.5).add(d.sub(q).mul(delta)), reduction);
  });
}

/**
 * Kullback–Leibler divergence of log-probabilities `input` from `target` (probabilities, or
 * log-probabilities with `log_target`). `"batchmean"` divides the sum by the batch size.
 */
export function kl_div(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction | "batchmean",
  log_target?: boolean,
): Tensor {
  ({ input, target, reduction, log_target } = args(
    "nn.functional.kl_div",
    arguments,
  ));
  if (!isFloatingPoint(input.dtype) || !isFloatingPoint(target.dtype))
    throw new TorchError("kl_div: Integral inputs not supported.");
  return scope(() => {
    const loss = log_target
      ? target.exp().mul(target.sub(input))
      : target.xlogy(target).sub(target.mul(input));
    if (reduction === "batchmean")
      return input.ndim === 0 ? loss.sum() : loss.sum().div(input.shape[0]!);
    return reduce(loss, reduction);
  });
}

/** Options of {@link poisson_nll_loss}. */
export interface PoissonNLLOptions {
  /** `input` is the log of the rate (default) or the rate itself. */
  log_input?: boolean;
  /** Add Stirling's approximation of `log(target!)`. */
  full?: boolean;
  /** Added inside the log when log_input is false (default 1e-8). */
  eps?: number;
  /** `"mean"` (default), `"sum"` or `"none"`. */
  reduction?: Reduction;
}

/** Negative log likelihood of a Poisson distribution with rate `input` at `target`. */
export function poisson_nll_loss(
  input: Tensor,
  target: Tensor,
  options?: PoissonNLLOptions,
): Tensor {
  const a = args("nn.functional.poisson_nll_loss", arguments);
  ({ input, target } = a);
  options = omit(a, "input", "target") as PoissonNLLOptions;
  const eps = options.eps ?? 1e-8;
  return scope(() => {
    let loss =
      (options.log_input ?? true)
        ? input.exp().sub(target.mul(input))
        : input.sub(target.mul(input.add(eps).log()));
    if (options.full) {
      const stirling = target
        .xlogy(target)
        .sub(target)
        .add(
          target
            .mul(2 * Math.PI)
            .log()
            .mul(0.5),
        );
      loss = loss.add(where(target.gt(1), stirling, 0));
    }
    return reduce(loss, options.reduction ?? "mean");
  });
}

/** Options of {@link gaussian_nll_loss}. */
export interface GaussianNLLOptions {
  /** Add the constant `0.5·log(2π)`. */
  full?: boolean;
  /** Variances are clamped to at least this (the gradient passes through unclamped). */
  eps?: number;
  /** `"mean"` (default), `"sum"` or `"none"`. */
  reduction?: Reduction;
}

/** Negative log likelihood of a Gaussian with mean `input` and variance `var` at `target`. */
export function gaussian_nll_loss(
  input: Tensor,
  target: Tensor,
  variance: Tensor,
  options?: GaussianNLLOptions,
): Tensor {
  const a = args("nn.functional.gaussian_nll_loss", arguments);
  ({ input, target, variance } = a);
  options = omit(a, "input", "target", "variance") as GaussianNLLOptions;
  const eps = options.eps ?? 1e-6;
  let v = variance;
  const same = (a: readonly number[], b: readonly number[]) =>
    a.length === b.length && a.every((s, i) => s === b[i]);
  return scope(() => {
    if (!same(v.shape, input.shape)) {
      if (same(input.shape.slice(0, -1), v.shape)) v = v.unsqueeze(-1);
      else if (!(
        same(input.shape.slice(0, -1), v.shape.slice(0, -1)) &&
        v.shape.at(-1) === 1
      ))
        throw new ShapeError("var is of incorrect size");
    }
    const red = options.reduction ?? "mean";
    const vd = v.detach();
    // PyTorch's `torch.any(var < 0)` (NaN passes), checked on a copy. On WebGPU the check's
    // failure is raised by reads of what is computed from the checked tensor, so the clamp below
    // is computed from it (`gate`), and with it the loss: a read of the loss raises.
    let gate = isFloatingPoint(vd.dtype) ? vd.nan_to_num(0) : vd.to("int64");
    checkValues(gate, 0, Infinity, { low: "var has negative entry/entries" });
    if (!isFloatingPoint(vd.dtype)) {
      // PyTorch then clamps var in place (`var.clamp_(min=eps)`), which an integer var cannot
      // hold. A check that always fails, on a tensor computed from the first check's, raises
      // that after the first (at the call on the CPU; on WebGPU the read of the loss raises
      // the first failed check's error), as PyTorch orders them.
      gate = gate.mul(0);
      checkValues(gate, 1, 1, {
        low: castError(get_default_dtype(), vd.dtype, cTypeName(vd.dtype))
          .message,
      });
    }
    // PyTorch clamps a copy under no_grad: the value is clamped, the gradient is the identity.
    // `gate` is never negative where the checks pass: the clamp is `max(var, eps)`.
    const clamped = where(gate.lt(0), vd, vd.maximum(eps));
    const vc = v.add(clamped.sub(vd));
    let loss = vc.log().add(input.sub(target).square().div(vc)).mul(0.5);
    if (options.full) loss = loss.add(0.5 * Math.log(2 * Math.PI));
    return reduce(loss, red);
  });
}

/** `max(0, -y·(x1 - x2) + margin)`. */
export function margin_ranking_loss(
  input1: Tensor,
  input2: Tensor,
  target: Tensor,
  margin?: number,
  reduction?: Reduction,
): Tensor {
  ({ input1, input2, target, margin, reduction } = args(
    "nn.functional.margin_ranking_loss",
    arguments,
  ));
  if (input1.ndim !== input2.ndim || input1.ndim !== target.ndim)
    throw new ShapeError(
      `margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: torch.Size([${input1.shape.join(", ")}]), input2: torch.Size([${input2.shape.join(", ")}]), target: torch.Size([${target.shape.join(", ")}]) `,
    );
  return scope(() => {
    // `margin` is a Python float: integer operands give a default-dtype result.
    let d = target.neg().mul(input1.sub(input2));
    if (!isFloatingPoint(d.dtype)) d = d.to(get_default_dtype());
    return reduce(d.add(margin).relu(), reduction);
  });
}

/** `x` where `y = 1`, `max(0, margin - x)` where `y = -1`. */
export function hinge_embedding_loss(
  input: Tensor,
  target: Tensor,
  margin?: number,
  reduction?: Reduction,
): Tensor {
  ({ input, target, margin, reduction } = args(
    "nn.functional.hinge_embedding_loss",
    arguments,
  ));
  return scope(() => {
    const clamp = input.neg().add(margin).relu();
    const m = where(target.ne(1), clamp, 0);
    const s = where(target.ne(-1), input, 0);
    return reduce(m.add(s), reduction);
  });
}

/** Two-class logistic loss `log(1 + exp(-y·x))`. */
export function soft_margin_loss(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction,
): Tensor {
  ({ input, target, reduction } = args(
    "nn.functional.soft_margin_loss",
    arguments,
  ));
  floatResult(input, target);
  return scope(() => reduce(target.neg().mul(input).exp().log1p(), reduction));
}

/** One-vs-all logistic loss over the classes (last dim), averaged over classes. */
export function multilabel_soft_margin_loss(
  input: Tensor,
  target: Tensor,
  weight?: Tensor | null,
  reduction?: Reduction,
): Tensor {
  ({ input, target, weight, reduction } = args(
    "nn.functional.multilabel_soft_margin_loss",
    arguments,
  ));
  return scope(() => {
    let loss = target
      .mul(input.logsigmoid())
      .add(target.neg().add(1).mul(input.neg().logsigmoid()))
      .neg();
    if (weight) loss = loss.mul(weight);
    const c = input.ndim - 1;
    return reduce(loss.sum(c).div(input.shape[c]!), reduction);
  });
}

/**
 * Multi-class multi-label hinge loss: `target` `(N, C)` holds class indices, ended by the first
 * -1; each (target class j, non-target class i) pair adds `max(0, 1 - (x[j] - x[i])) / C`.
 */
export function multilabel_margin_loss(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction,
): Tensor {
  ({ input, target, reduction } = args(
    "nn.functional.multilabel_margin_loss",
    arguments,
  ));
  if (input.shape.join() !== target.shape.join())
    throw new ShapeError(
      `inconsistent target size: [${target.shape.join(", ")}] for input of size: [${input.shape.join(", ")}]`,
    );
  if (isFloatingPoint(target.dtype))
    throw new TorchError("argument #2 'target' is out of range");
  return scope(() => {
    const x = input.ndim === 1 ? input.unsqueeze(0) : input;
    const t = input.ndim === 1 ? target.unsqueeze(0) : target;
    const C = x.shape[1]!;
    // valid[n, j]: no -1 at or before j.
    const valid = t.eq(-1).to("int32").cumsum(1).eq(0);
    const idx = where(valid, t, 0);
    const classes = arange(C, { device: x.device }).reshape([1, 1, C]);
    const hit = idx.unsqueeze(2).eq(classes).logical_and(valid.unsqueeze(2));
    const isTarget = hit.any(1); // (N, C)
    const xt = x.gather(1, idx); // (N, J)
    const hinge = positivePart(
      xt.unsqueeze(2).neg().add(x.unsqueeze(1)).add(1),
    ); // (N, J, C)
    const mask = valid
      .unsqueeze(2)
      .logical_and(isTarget.logical_not().unsqueeze(1))
      .to("float32");
    let loss = hinge.mul(mask).sum([1, 2]).div(C);
    if (input.ndim === 1) loss = loss.squeeze(0);
    return reduce(loss, reduction);
  });
}

/** Options of {@link multi_margin_loss}. */
export interface MultiMarginOptions {
  /** The norm degree, 1 (default) or 2. */
  p?: 1 | 2;
  /** The margin (default 1). */
  margin?: number;
  /** A weight per class. */
  weight?: Tensor | null;
  /** `"mean"` (default), `"sum"` or `"none"`. */
  reduction?: Reduction;
}

/** Multi-class hinge loss: `Σ_{i≠y} max(0, margin - x[y] + x[i])^p / C`, per sample. */
export function multi_margin_loss(
  input: Tensor,
  target: Tensor,
  options?: MultiMarginOptions,
): Tensor {
  const a = args("nn.functional.multi_margin_loss", arguments);
  ({ input, target } = a);
  options = omit(a, "input", "target") as MultiMarginOptions;
  const p = options.p ?? 1;
  if (p !== 1 && p !== 2)
    throw new TorchError("only p == 1 and p == 2 supported");
  const margin = options.margin ?? 1;
  if (target.dtype !== "int64")
    throw new TorchError(
      `expected scalar type Long but found ${scalarTypeName(target.dtype)}`,
    );
  checkValues(target, 0, input.shape[input.ndim === 1 ? 0 : 1]! - 1, {
    low: "target out of range",
  });
  return scope(() => {
    const x = input.ndim === 1 ? input.unsqueeze(0) : input;
    const t = (input.ndim === 1 ? target.reshape([1]) : target).unsqueeze(1);
    const C = x.shape[1]!;
    const xy = x.gather(1, t); // (N, 1)
    let h = positivePart(x.sub(xy).add(margin));
    if (p === 2) h = h.square();
    const classes = arange(C, { device: x.device }).unsqueeze(0);
    h = where(classes.eq(t), 0, h);
    if (options.weight)
      h = h.mul(options.weight.gather(0, t.reshape([-1])).unsqueeze(1));
    let loss = h.sum(1).div(C);
    if (input.ndim === 1) loss = loss.squeeze(0);
    return reduce(loss, options.reduction ?? "mean");
  });
}

/** `1 - cos(x1, x2)` where `y = 1`, `max(0, cos(x1, x2) - margin)` where `y = -1`. */
export function cosine_embedding_loss(
  input1: Tensor,
  input2: Tensor,
  target: Tensor,
  margin?: number,
  reduction?: Reduction,
): Tensor {
  ({ input1, input2, target, margin, reduction } = args(
    "nn.functional.cosine_embedding_loss",
    arguments,
  ));
  const EPS = 1e-12;
  return scope(() => {
    const d = input1.ndim - 1;
    const prod = input1.mul(input2).sum(d);
    const m1 = input1.square().sum(d).add(EPS);
    const m2 = input2.square().sum(d).add(EPS);
    const cos = prod.div(m1.mul(m2).sqrt());
    const pos = where(target.eq(1), cos.neg().add(1), 0);
    const neg = where(target.eq(-1), cos.sub(margin).relu(), 0);
    return reduce(pos.add(neg), reduction);
  });
}

/** Options of {@link triplet_margin_loss}. */
export interface TripletMarginOptions {
  /** The margin (default 1). */
  margin?: number;
  /** The norm degree of the pairwise distance (default 2). */
  p?: number;
  /** Added to the differences before the norm (default 1e-6). */
  eps?: number;
  /** Use the smaller of d(anchor, negative) and d(positive, negative). */
  swap?: boolean;
  /** `"mean"` (default), `"sum"` or `"none"`. */
  reduction?: Reduction;
}

/** `max(d(a, p) - d(a, n) + margin, 0)` with the p-norm pairwise distance. */
export function triplet_margin_loss(
  anchor: Tensor,
  positive: Tensor,
  negative: Tensor,
  options?: TripletMarginOptions,
): Tensor {
  const a = args("nn.functional.triplet_margin_loss", arguments);
  ({ anchor, positive, negative } = a);
  options = omit(a, "anchor", "positive", "negative") as TripletMarginOptions;
  const p = options.p ?? 2;
  const eps = options.eps ?? 1e-6;
  return triplet(
    anchor,
    positive,
    negative,
    (a, b) => pairwise_distance(a, b, p, eps),
    options.margin ?? 1,
    options.swap ?? false,
    options.reduction ?? "mean",
  );
}

function triplet(
  anchor: Tensor,
  positive: Tensor,
  negative: Tensor,
  dist: (a: Tensor, b: Tensor) => Tensor,
  margin: number,
  swap: boolean,
  reduction: Reduction,
): Tensor {
  return scope(() => {
    const dp = dist(anchor, positive);
    let dn = dist(anchor, negative);
    if (swap) dn = dn.minimum(dist(positive, negative));
    return reduce(dp.sub(dn).add(margin).relu(), reduction);
  });
}

/** Options of {@link triplet_margin_with_distance_loss}. */
export interface TripletDistanceOptions {
  /** Default: `pairwise_distance` (Euclidean). */
  distance_function?: ((a: Tensor, b: Tensor) => Tensor) | null;
  /** The margin (default 1). */
  margin?: number;
  /** Use the distance swap (the smaller of anchor–negative and positive–negative; default false). */
  swap?: boolean;
  /** `"mean"` (default), `"sum"` or `"none"`. */
  reduction?: Reduction;
}

/** `max(d(a, p) - d(a, n) + margin, 0)` with any distance function. */
export function triplet_margin_with_distance_loss(
  anchor: Tensor,
  positive: Tensor,
  negative: Tensor,
  options?: TripletDistanceOptions,
): Tensor {
  const a = args("nn.functional.triplet_margin_with_distance_loss", arguments);
  ({ anchor, positive, negative } = a);
  options = omit(a, "anchor", "positive", "negative") as TripletDistanceOptions;
  const dist = options.distance_function ?? ((a, b) => pairwise_distance(a, b));
  const margin = options.margin ?? 1;
  if (!(margin > 0))
    throw new TorchError(`margin must be greater than 0, got ${margin}`);
  return triplet(
    anchor,
    positive,
    negative,
    dist,
    margin,
    options.swap ?? false,
    options.reduction ?? "mean",
  );
}

/** Options of {@link ctc_loss}. */
export interface CTCLossOptions {
  /** The blank label (default 0). */
  blank?: number;
  /** `"mean"` (default: each loss divided by its target length, then the batch mean). */
  reduction?: Reduction;
  /** Infinite losses (no possible alignment) and their gradients become 0. */
  zero_infinity?: boolean;
}

/** Stand-in for log(0) in the recursion: finite, so impossible paths get zero (not NaN) gradient. */
const LOG_ZERO = -1e30;

/** `log(exp(a) + exp(b) + exp(c))`, shifted by the (constant) max for stability. */
function logsumexp3(a: Tensor, b: Tensor, c: Tensor): Tensor {
  const m = a.maximum(b).maximum(c).detach();
  return a.sub(m).exp().add(b.sub(m).exp()).add(c.sub(m).exp()).log().add(m);
}

/**
 * Connectionist temporal classification loss of `log_probs` `(T, N, C)` (or unbatched `(T, C)`)
 * against `targets` — padded `(N, S)` or concatenated 1-D — with per-sample `input_lengths` and
 * `target_lengths` (tensors or arrays). The forward (alpha) recursion runs in log space over the
 * extended label sequence `blank, l1, blank, l2, …, blank`, with masks for the per-sample lengths,
 * so nothing is read back; the core differentiates it.
 */
export function ctc_loss(
  log_probs: Tensor,
  targets: Tensor,
  input_lengths: Tensor | readonly number[],
  target_lengths: Tensor | readonly number[],
  options?: CTCLossOptions,
): Tensor {
  const a = args("nn.functional.ctc_loss", arguments);
  ({ log_probs, targets, input_lengths, target_lengths } = a);
  options = omit(
    a,
    "log_probs",
    "targets",
    "input_lengths",
    "target_lengths",
  ) as CTCLossOptions;
  const blank = options.blank ?? 0;
  const reduction = options.reduction ?? "mean";
  if (log_probs.ndim !== 2 && log_probs.ndim !== 3)
    throw new TorchError(
      `ctc_loss: expected log_probs to be 2D or 3D, got ${log_probs.ndim}D`,
    );
  const unbatched = log_probs.ndim === 2;
  const device = log_probs.device;
  return scope(() => {
    const asLen = (v: Tensor | readonly number[]) =>
      (Array.isArray(v)
        ? tensor(Int32Array.from(v as number[]), { dtype: "int64", device })
        : (v as Tensor)
      ).reshape([-1]);
    const lp = unbatched ? log_probs.unsqueeze(1) : log_probs;
    const [T, N] = lp.shape as [number, number];
    const inLen = asLen(input_lengths);
    const tgLen = asLen(target_lengths);
    // Padded (N, S) targets; a concatenated 1-D list is cut at the cumulative lengths.
    let tg: Tensor;
    if (unbatched) tg = targets.reshape([1, -1]);
    else if (targets.ndim === 2) tg = targets;
    else {
      const total = targets.shape[0]!;
      const S = Math.max(1, total);
      const ends = tgLen.cumsum(0);
      const starts = ends.sub(tgLen).unsqueeze(1);
      const idx = starts.add(
        arange(S, { dtype: "int64", device }).unsqueeze(0),
      );
      tg = targets
        .unsqueeze(0)
        .expand(N, total)
        .gather(1, idx.minimum(Math.max(0, total - 1)));
    }
    const S = tg.shape[1]!;
    const Lx = 2 * S + 1;
    // Labels past a target's length may be anything (padding): make them blanks.
    const inTarget = arange(S, { dtype: "int64", device })
      .unsqueeze(0)
      .lt(tgLen.unsqueeze(1));
    tg = where(inTarget, tg.to("int64"), blank);
    // ext[n, 2s] = blank, ext[n, 2s+1] = target[n, s]
    const blanks = full([N, S + 1], blank, { dtype: "int64", device });
    const ext = cat(
      [tg.to("int64").unsqueeze(2), blanks.narrow(1, 1, S).unsqueeze(2)],
      2,
    ).reshape([N, 2 * S]);
    const extFull = cat([blanks.narrow(1, 0, 1), ext], 1); // (N, Lx)
    const pos = arange(Lx, { dtype: "int64", device }).unsqueeze(0);
    const valid = pos.lt(tgLen.unsqueeze(1).mul(2).add(1));
    // s-2 transitions: into a non-blank label that differs from the one two back.
    const prev2 = cat(
      [
        full([N, 2], -1, { dtype: "int64", device }),
        extFull.narrow(1, 0, Lx - 2),
      ],
      1,
    );
    const skip = extFull.ne(blank).logical_and(extFull.ne(prev2));
    const emit = (t: number) => lp.select(0, t).gather(1, extFull); // (N, Lx)
    const neg = (n: number) =>
      full([N, n], LOG_ZERO, { dtype: "float32", device });
    const shift = (a: Tensor, k: number) =>
      cat([neg(k), a.narrow(1, 0, Lx - k)], 1);
    let alpha = where(pos.lt(2).logical_and(valid), emit(0), LOG_ZERO);
    for (let t = 1; t < T; t++) {
      const a2 = where(skip, shift(alpha, 2), LOG_ZERO);
      const next = where(
        valid,
        logsumexp3(alpha, shift(alpha, 1), a2).add(emit(t)),
        LOG_ZERO,
      );
      alpha = where(inLen.gt(t).unsqueeze(1), next, alpha);
    }
    const last = tgLen.mul(2).unsqueeze(1);
    const endBlank = alpha.gather(1, last).squeeze(1);
    const endLabel = where(
      tgLen.gt(0),
      alpha.gather(1, last.sub(1).maximum(0)).squeeze(1),
      LOG_ZERO,
    );
    let loss = logsumexp3(
      endBlank,
      endLabel,
      full([N], LOG_ZERO, { dtype: "float32", device }),
    ).neg();
    // PyTorch's backward returns the gradient with respect to the logits under log_softmax
    // (its formula assumes log_probs came from one): the true gradient plus exp(log_probs) at each
    // step t < input_length. A term with value 0 and that gradient adds it.
    const ex = lp.exp();
    const steps = arange(T, { dtype: "int64", device })
      .unsqueeze(1)
      .lt(inLen.unsqueeze(0)); // (T, N)
    loss = loss.add(where(steps, ex.sub(ex.detach()).sum(2), 0).sum(0));
    // No possible alignment: PyTorch's inf (or 0 with zero_infinity).
    const impossible = loss.gt(-LOG_ZERO / 2);
    loss = options.zero_infinity
      ? where(impossible, 0, loss)
      : where(impossible, Infinity, loss);
    if (unbatched) loss = loss.squeeze(0);
    if (reduction === "none") return loss;
    if (reduction === "sum") return loss.sum();
    if (reduction === "mean")
      return loss
        .div(
          tgLen
            .to("float32")
            .maximum(1)
            .reshape(loss.shape as number[]),
        )
        .mean();
    throw new TorchError(
      `${String(reduction)} is not a valid value for reduction`,
    );
  });
}
