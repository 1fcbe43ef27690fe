/**
 * `torch.nn.functional`'s regression losses (`mse_loss`, `l1_loss`, `smooth_l1_loss`) and
 * classification losses (`nll_loss`, which runs the core's fused kernel on `(N, C)` inputs,
 * `cross_entropy`, `binary_cross_entropy`, `binary_cross_entropy_with_logits`), with PyTorch's
 * checks and messages; the modules over them are nn/loss.ts. The other losses are
 * loss_composites.ts.
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { castError, isFloatingPoint, scalarTypeName } from "../../dtype.js";
import { promote_types } from "../../state.js";
import { DTypeError, ShapeError, TorchError } from "../../errors.js";
import { checkValues } from "../../ops/value_checks.js";
import { type Tensor, wrap } from "../../tensor/tensor.js";
import { arange } from "../../ops/creation.js";
import { temps } from "./composition.js";
import { log_softmax } from "./activations.js";

/** Reduction of a loss: `"mean"` (default), `"sum"` or `"none"`. */
export type Reduction = "mean" | "sum" | "none";

function reduce(loss: Tensor, reduction: Reduction): Tensor {
  if (reduction === "none") return loss;
  try {
    if (reduction === "mean") return loss.mean();
    if (reduction === "sum") return loss.sum();
  } finally {
    loss.dispose();
  }
  throw new TorchError(
    `${String(reduction)} is not a valid value for reduction`,
  );
}

/**
 * Refuses integer and bool operands, as PyTorch's regression-loss kernel `kernel` does for their
 * promoted dtype (an integer target with a float input is fine).
 */
export function floatLoss(kernel: string, input: Tensor, target: Tensor): void {
  const dtype = promote_types(input.dtype, target.dtype);
  if (!isFloatingPoint(dtype))
    throw new DTypeError(
      `"${kernel}" not implemented for '${scalarTypeName(dtype)}'`,
    );
}

function checkSameShape(fn: string, input: Tensor, target: Tensor): void {
  if (input.shape.join() !== target.shape.join())
    throw new TorchError(
      `${fn}: Using a target size (torch.Size([${target.shape.join(", ")}])) that is different to the input size (torch.Size([${input.shape.join(", ")}])) is not supported.`,
    );
}

/** Mean squared error. */
export function mse_loss(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction,
): Tensor {
  ({ input, target, reduction } = args("nn.functional.mse_loss", arguments));
  floatLoss("mse_cpu", input, target);
  return temps((k) => reduce(k(input.sub(target)).square(), reduction));
}

/** Mean absolute error. */
export function l1_loss(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction,
): Tensor {
  ({ input, target, reduction } = args("nn.functional.l1_loss", arguments));
  return temps((k) => reduce(k(input.sub(target)).abs(), reduction));
}

/** Smooth L1 (Huber with `beta` scaling): `0.5 d²/beta` below `beta`, else `|d| - 0.5 beta`. */
export function smooth_l1_loss(
  input: Tensor,
  target: Tensor,
  reduction?: Reduction,
  beta?: number,
): Tensor {
  ({ input, target, reduction, beta } = args(
    "nn.functional.smooth_l1_loss",
    arguments,
  ));
  floatLoss("smooth_l1_cpu", input, target);
  // beta = 0 is the L1 loss (PyTorch's rule; the quadratic part would divide by 0).
  if (beta === 0) return l1_loss(input, target, reduction);
  return temps((k) => {
    const d = k(k(input.sub(target)).abs());
    // min(d, beta) carries the quadratic part, the rest is linear.
    const q = k(d.minimum(beta));
    const loss = k(k(k(q.square()).mul(0.5 / beta))).add(k(d.sub(q)));
    return reduce(loss, reduction);
  });
}

/** Options of {@link nll_loss} and {@link cross_entropy}. */
export interface ClassLossOptions {
  /** A weight per class (1-D, `C`). */
  weight?: Tensor | null;
  /** Targets equal to this contribute nothing (and do not count in the mean). Default -100. */
  ignore_index?: number;
  /** `"mean"` (weighted mean over the targets), `"sum"` or `"none"`. */
  reduction?: Reduction;
  /** Cross-entropy only: mixes the target with the uniform distribution. Default 0. */
  label_smoothing?: number;
}

/** PyTorch's batch-size and target-dtype checks of the class losses, in its wording. */
function checkClassTarget(input: Tensor, target: Tensor): void {
  if (input.ndim >= 2 && target.ndim >= 1 && input.shape[0] !== target.shape[0])
    throw new ShapeError(
      `Expected input batch_size (${input.shape[0]}) to match target batch_size (${target.shape[0]}).`,
    );
  if (target.is_floating_point())
    throw new DTypeError(
      "expected target dtype to be Long or Byte, but got Float",
    );
}

/**
 * Per-target weights and the one-hot selection of class indices along dim 1: shapes
 * `(N, C, d…)` and targets `(N, d…)` (or `(C)` and a scalar target).
 */
function classSelect(
  input: Tensor,
  target: Tensor,
  options: ClassLossOptions,
  k: <U extends Tensor>(t: U) => U,
): { select: Tensor; w: Tensor; classDim: number; cShape: number[] } {
  const classDim = input.ndim === 1 ? 0 : 1;
  const C = input.shape[classDim]!;
  checkClassTarget(input, target);
  checkValues(target, 0, C - 1, {
    except: options.ignore_index ?? -100,
    kind: "IndexError",
    low: "Target {} is out of bounds.",
  });
  const t = k(unsqueezeAt(target, classDim));
  const cShape = input.shape.map((_, i) => (i === classDim ? C : 1));
  const classes = k(arange(C, { device: input.device }).reshape(cShape));
  let select = k(k(t.eq(classes)).to("float32")); // one-hot, zero rows for ignored targets
  if (options.weight) select = k(select.mul(k(options.weight.reshape(cShape))));
  const w = k(select.sum(classDim)); // weight of each target (0 when ignored)
  return { select, w, classDim, cShape };
}

/**
 * Whether `nll_loss` runs as the core's fused kernels (`(C)` or `(N, C)` log-probabilities):
 * one dispatch forward and one backward, where the one-hot composition below costs ~9 and ~8,
 * most of the host time of a small training step. Other shapes keep the composition.
 */
function fusedNll(input: Tensor, target: Tensor): boolean {
  return input.ndim <= 2 && target.ndim === input.ndim - 1;
}

/** Negative log likelihood of log-probabilities `input` (N, C, …) at class indices `target`. */
export function nll_loss(
  input: Tensor,
  target: Tensor,
  options?: Omit<ClassLossOptions, "label_smoothing">,
): Tensor {
  const a = args("nn.functional.nll_loss", arguments);
  ({ input, target } = a);
  options = omit(a, "input", "target") as ClassLossOptions;
  const reduction = options.reduction ?? "mean";
  if (target.dtype === "int32" || target.dtype === "bool")
    throw new DTypeError(
      `expected target dtype to be Long or Byte, but got ${scalarTypeName(target.dtype)}`,
    );
  if (fusedNll(input, target)) {
    const w = options.weight ?? null;
    // The core checks shapes and dtypes (PyTorch's wording, as `checkClassTarget`) and the
    // targets against C on the device (PyTorch's IndexError).
    return wrap(
      input._raw.nll_loss(
        target._raw,
        (w ?? input)._raw,
        w !== null,
        options.ignore_index ?? -100,
        reduction,
      ),
    );
  }
  return temps((k) => {
    const { select, w, classDim } = classSelect(input, target, options, k);
    const loss = k(k(k(input.mul(select)).sum(classDim)).neg());
    if (reduction === "none") return loss.mul(1);
    if (reduction === "sum") return loss.sum();
    return k(loss.sum()).div(k(w.sum()));
  });
}

/**
 * Cross entropy of logits `input` (N, C, …) against class indices (int) or class probabilities
 * (float, the shape of `input`): `nll_loss(log_softmax(input, 1), target)`.
 */
export function cross_entropy(
  input: Tensor,
  target: Tensor,
  options?: ClassLossOptions,
): Tensor {
  const a = args("nn.functional.cross_entropy", arguments);
  ({ input, target } = a);
  options = omit(a, "input", "target") as ClassLossOptions;
  const reduction = options.reduction ?? "mean";
  const eps = options.label_smoothing ?? 0;
  const classDim = input.ndim === 1 ? 0 : 1;
  const C = input.shape[classDim]!;
  return temps((k) => {
    const logp = k(log_softmax(input, classDim));
    if (target.is_floating_point()) {
      // Class probabilities.
      checkSameShape("cross_entropy", input, target);
      let tgt = target;
      if (eps > 0) tgt = k(k(target.mul(1 - eps)).add(eps / C));
      let prod = k(logp.mul(tgt));
      if (options.weight)
        prod = k(
          prod.mul(
            k(
              options.weight.reshape(
                input.shape.map((_, i) => (i === classDim ? C : 1)),
              ),
            ),
          ),
        );
      const loss = k(k(prod.sum(classDim)).neg());
      if (reduction === "none") return loss.mul(1);
      if (reduction === "sum") return loss.sum();
      return k(loss.sum()).div(input.ndim === 1 ? 1 : input.numel() / C);
    }
    const nllOptions = { ...omit(options, "label_smoothing"), reduction };
    if (eps === 0) return nll_loss(logp, target, nllOptions);
    const nll = k(nll_loss(logp, target, nllOptions));
    // PyTorch: (1 - ε) nll + ε/C · Σ_c -logp_c·w_c, reduced like nll.
    const { w, cShape } = classSelect(
      input,
      target,
      { ...options, weight: null },
      k,
    );
    const active = k(k(w.gt(0)).to("float32")); // not ignored
    let lp = logp;
    if (options.weight) lp = k(lp.mul(k(options.weight.reshape(cShape))));
    const smooth = k(k(k(k(lp.sum(classDim)).neg()).mul(active)));
    let smoothRed: Tensor;
    if (reduction === "none") smoothRed = smooth;
    else if (reduction === "sum") smoothRed = k(smooth.sum());
    else {
      const { w: wt } = classSelect(input, target, options, k);
      smoothRed = k(k(smooth.sum()).div(k(wt.sum())));
    }
    return k(nll.mul(1 - eps)).add(k(smoothRed.mul(eps / C)));
  });
}

/** Binary cross entropy of probabilities `input` (logs clamped at -100, as PyTorch). */
export function binary_cross_entropy(
  input: Tensor,
  target: Tensor,
  options?: { weight?: Tensor | null; reduction?: Reduction },
): Tensor {
  const a = args("nn.functional.binary_cross_entropy", arguments);
  ({ input, target } = a);
  options = omit(a, "input", "target");
  if (input.shape.join() !== target.shape.join())
    throw new ShapeError(
      `Using a target size (torch.Size([${target.shape.join(", ")}])) that is different to the input size (torch.Size([${input.shape.join(", ")}])) is deprecated. Please ensure they have the same size.`,
    );
  if (!isFloatingPoint(input.dtype))
    throw new DTypeError(
      `"binary_cross_entropy" not implemented for '${scalarTypeName(input.dtype)}'`,
    );
  if (target.dtype !== input.dtype)
    throw new DTypeError(
      `Found dtype ${scalarTypeName(target.dtype)} but expected ${scalarTypeName(input.dtype)}`,
    );
  checkValues(input, 0, 1, {
    low: "all elements of input should be between 0 and 1",
  });
  checkValues(target, 0, 1, {
    low: "all elements of target should be between 0 and 1",
  });
  return temps((k) => {
    const logx = k(k(input.log()).maximum(-100));
    const log1mx = k(k(k(input.neg()).log1p()).maximum(-100));
    // -(t log x + (1 - t) log(1 - x)) = -(log1mx + t (logx - log1mx))
    let loss = k(k(k(k(logx.sub(log1mx)).mul(target)).add(log1mx)).neg());
    if (options.weight) loss = k(loss.mul(options.weight));
    return reduce(loss.mul(1), options.reduction ?? "mean");
  });
}

/** `binary_cross_entropy(sigmoid(input), target)`, computed stably from the logits. */
export function binary_cross_entropy_with_logits(
  input: Tensor,
  target: Tensor,
  options?: {
    weight?: Tensor | null;
    pos_weight?: Tensor | null;
    reduction?: Reduction;
  },
): Tensor {
  const a = args("nn.functional.binary_cross_entropy_with_logits", arguments);
  ({ input, target } = a);
  options = omit(a, "input", "target");
  if (input.shape.join() !== target.shape.join())
    throw new ShapeError(
      `Target size (torch.Size([${target.shape.join(", ")}])) must be the same as input size (torch.Size([${input.shape.join(", ")}]))`,
    );
  if (!isFloatingPoint(input.dtype))
    throw new DTypeError(
      `"log_sigmoid_cpu" not implemented for '${scalarTypeName(input.dtype)}'`,
    );
  // (1 - target) is multiplied by the input in place.
  if (!isFloatingPoint(target.dtype))
    throw castError(input.dtype, target.dtype);
  return temps((k) => {
    // (1 - t) x - lw · logsigmoid(x), lw = 1 + (pos_weight - 1) t; (1 - t) x is inf at x = inf
    // (x - t x would be NaN).
    const base = k(k(k(target.neg()).add(1)).mul(input));
    let nls = k(k(input.logsigmoid()).neg());
    if (options.pos_weight) {
      const lw = k(k(k(options.pos_weight.sub(1)).mul(target)).add(1));
      nls = k(nls.mul(lw));
    }
    let loss = k(base.add(nls));
    if (options.weight) loss = k(loss.mul(options.weight));
    return reduce(loss.mul(1), options.reduction ?? "mean");
  });
}

/** A view of `t` with a size-1 dim inserted at `dim`. */
function unsqueezeAt(t: Tensor, dim: number): Tensor {
  const s = [...t.shape];
  s.splice(dim, 0, 1);
  return t.reshape(s);
}
