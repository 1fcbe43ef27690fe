/**
 * `torch.utils.checkpoint`: activation checkpointing. `checkpoint(fn, ...args)` runs `fn` without
 * recording its graph — its intermediate activations are freed when it returns — and records one
 * node that, in backward, runs `fn` again on the saved arguments with grad enabled and
 * back-propagates through that recomputation. Memory traded for compute, with the gradients of
 * the plain call.
 *
 * The recomputation runs inside the backward pass: the gradients of the tensors `fn` uses besides
 * its arguments (a module's parameters) are accumulated into their `.grad` there, as PyTorch's
 * reentrant variant does. So `torch.autograd.grad` reaches such tensors only when they are passed
 * as arguments. `use_reentrant: false` (PyTorch's recommended variant) also records the node when
 * no argument requires grad, so that the parameters inside still get their gradients;
 * `use_reentrant: true` does not, as in PyTorch.
 *
 * The random state: webtorch cannot save and restore the core generator's state, so a random op
 * inside `fn` (dropout) would draw other numbers when recomputed. With `preserve_rng_state`
 * (default) and `determinism_check: "default"`, the recomputed outputs are compared with a
 * fingerprint of the originals (their sum and absolute sum) and a difference raises a
 * `TorchError` (at once on the CPU, at the next read or sync on WebGPU) rather than giving other
 * gradients. Pass `preserve_rng_state: false` to accept a different draw, as PyTorch does then.
 *
 * @module
 */

import { args as parse } from "../schema/index.js";
import { TorchError } from "../errors.js";
import { Function, type FunctionCtx } from "../autograd/function.js";
import { backward } from "../autograd/index.js";
import { enable_grad } from "../autograd/grad_mode.js";
import { keep, scope } from "../lifetime.js";
import { Tensor } from "../tensor/tensor.js";
import { zeros } from "../ops/creation.js";
import { stack } from "../ops/indexing.js";

/** Options of {@link checkpoint}. */
export interface CheckpointOptions {
  /** `false` (recommended): the node is recorded even when no argument requires grad. */
  use_reentrant?: boolean | null;
  /** Check that the recomputation reproduces the outputs (see the module doc). Default `true`. */
  preserve_rng_state?: boolean;
  /** `"default"`: the check above; `"none"`: no check. */
  determinism_check?: "default" | "none";
}

/** The function's arguments, optionally followed by the {@link CheckpointOptions}. */
export type CheckpointArgs =
  unknown[] | [...args: unknown[], options: CheckpointOptions];

/** What the node needs besides its tensors: the function, its arguments' layout, the check. */
interface Plan {
  fn: (...a: unknown[]) => unknown;
  args: unknown[];
  positions: number[];
  check: boolean;
  fingerprints: Tensor[];
}

function callWith(plan: Plan, tensors: Tensor[]): unknown {
  const a = [...plan.args];
  plan.positions.forEach((p, k) => (a[p] = tensors[k]));
  return plan.fn(...a);
}

function outputList(out: unknown): Tensor[] {
  if (out instanceof Tensor) return [out];
  if (Array.isArray(out) && out.every((o) => o instanceof Tensor))
    return out as Tensor[];
  throw new TorchError(
    "checkpoint: the function must return a Tensor or an array of Tensors",
  );
}

/** Each output's sum and absolute sum, as one float32 pair. */
function fingerprint(t: Tensor): Tensor {
  return scope(() => {
    const f = t.detach().to("float32");
    return stack([f.sum(), f.abs().sum()]);
  });
}

class CheckpointFunction extends Function {
  static override forward(
    ctx: FunctionCtx,
    plan: Plan,
    ...tensors: Tensor[]
  ): Tensor | Tensor[] {
    ctx.set_materialize_grads(false);
    ctx.plan = plan;
    // The dummy (last, for use_reentrant false) is not an argument of the function.
    const inputs = tensors.slice(0, plan.positions.length);
    ctx.save_for_backward(...inputs);
    const out = scope(() => callWith(plan, inputs));
    const outs = outputList(out);
    // Only a recorded node (some argument needs a gradient) is ever recomputed. The
    // fingerprints live as long as the plan (a backward with retain_graph may run again).
    if (plan.check && ctx.needs_input_grad.some(Boolean))
      plan.fingerprints = outs.map((o) => keep(fingerprint(o)));
    return out as Tensor | Tensor[];
  }

  static override backward(
    ctx: FunctionCtx,
    ...grads: (Tensor | null)[]
  ): (Tensor | null)[] {
    const plan = ctx.plan as Plan;
    const saved = ctx.saved_tensors as Tensor[];
    const inputGrads = scope(() => {
      const inputs = saved.map((t) =>
        t.detach().requires_grad_(t.requires_grad),
      );
      const outs = outputList(enable_grad(() => callWith(plan, inputs)));
      // Added to the gradients fed to the recomputation: zero, but computed from the check, so
      // that on WebGPU every gradient read depends on it (and raises when it failed).
      let zero: Tensor | null = null;
      if (plan.check) {
        const excess = outs.map((o, i) => {
          const want = plan.fingerprints[i]!;
          // Within float32 rounding of the absolute sum: a recomputation that drew other
          // random numbers is far outside it. Both sums infinite (NaN difference) is a match.
          const tol = want.select(0, 1).abs().mul(1e-5).add(1e-6);
          return fingerprint(o)
            .sub(want)
            .abs()
            .select(0, 0)
            .sub(tol)
            .nan_to_num(-1);
        });
        const c = excess.length > 1 ? stack(excess).amax() : excess[0]!;
        c._raw.check_values(
          -Infinity,
          0,
          null,
          "TorchError",
          "",
          "torch.utils.checkpoint: the recomputed forward differs from the original one (a random op such as dropout inside the checkpointed function draws other numbers: webtorch cannot restore the random state). Pass preserve_rng_state: false to accept that.",
        );
        zero = c.clamp(-1, 1).mul(0);
      }
      const ts: Tensor[] = [];
      const gs: Tensor[] = [];
      outs.forEach((o, i) => {
        const g = grads[i];
        if (g && o.requires_grad) {
          ts.push(o);
          gs.push(zero ? g.add(zero) : g);
        }
      });
      if (ts.length) backward(ts, gs);
      return inputs.map((x) => x.grad ?? null);
    });
    const extra = ctx.needs_input_grad.length - 1 - saved.length;
    return [null, ...inputGrads, ...new Array<null>(extra).fill(null)];
  }
}

/**
 * `torch.utils.checkpoint.checkpoint(fn, ...args, options?)`: `fn(...args)` without keeping its
 * intermediate activations; backward recomputes them (see the module doc).
 */
export function checkpoint(
  fn: (...a: any[]) => unknown,
  ...args: CheckpointArgs
): any {
  const a = parse("utils.checkpoint.checkpoint", arguments);
  const fnArgs = a.args as unknown[];
  const plan: Plan = {
    fn: a.fn as (...x: unknown[]) => unknown,
    args: fnArgs,
    positions: fnArgs.flatMap((v, i) => (v instanceof Tensor ? [i] : [])),
    check: a.preserve_rng_state && a.determinism_check === "default",
    fingerprints: [],
  };
  const tensors = plan.positions.map((p) => fnArgs[p] as Tensor);
  // PyTorch's default is the reentrant variant (with a warning to pass it explicitly).
  const reentrant = a.use_reentrant ?? true;
  if (!reentrant) {
    // An input that requires grad, so the node is recorded whatever the arguments.
    const dummy = zeros(0, { requires_grad: true });
    try {
      return CheckpointFunction.apply(plan, ...tensors, dummy);
    } finally {
      dummy.dispose();
    }
  }
  return CheckpointFunction.apply(plan, ...tensors);
}
