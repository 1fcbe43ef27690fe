/**
 * The machinery of `nn.Module`'s backward and state-dict hooks (module.ts registers and calls
 * them): ordered hook lists with removable handles, and the full backward hooks' identity nodes.
 *
 * Full backward hooks as PyTorch places them: when a module with backward hooks is called with
 * grad enabled, its tensor arguments pass through one identity node (`BackwardHookFunction`)
 * before `forward`, and its tensor outputs through another after the forward hooks. In backward,
 * the output node sees the gradients of the outputs first (the backward pre-hooks run there and
 * may replace them); the input node then sees the gradients of the inputs, and the backward hooks
 * run with both and may replace the input gradients. When no argument requires grad, the hooks
 * run at the output node with `null` input gradients.
 *
 * @module
 */

import { Function, type FunctionCtx } from "../autograd/function.js";
import { Tensor } from "../tensor/tensor.js";
import { TorchError } from "../errors.js";
import type { RemovableHandle } from "../tensor/autograd.js";

/** Hooks in call order, each removable by its handle; `prepend` puts one first. */
export class HookList<F> {
  #hooks = new Map<number, F>();
  #next = 0;

  add(fn: F, prepend = false): RemovableHandle {
    if (typeof fn !== "function")
      throw new TorchError(`hook must be callable, got ${typeof fn}`);
    const id = this.#next++;
    if (prepend) this.#hooks = new Map([[id, fn], ...this.#hooks]);
    else this.#hooks.set(id, fn);
    return { remove: () => void this.#hooks.delete(id) };
  }

  get size(): number {
    return this.#hooks.size;
  }

  values(): F[] {
    return [...this.#hooks.values()];
  }
}

/** Gradients as backward hooks see them: one per argument (or output), `null` where none. */
export type Grads = (Tensor | null)[];

/** What a stage of the identity node does with the gradients of its tensors. */
type Stage = (grads: Grads) => Grads;

/** The identity node: returns views of its tensors; its backward runs the stage. */
class BackwardHookFunction extends Function {
  static override forward(
    ctx: FunctionCtx,
    stage: Stage,
    ...tensors: Tensor[]
  ): Tensor[] {
    ctx.set_materialize_grads(false);
    ctx.stage = stage;
    const outs = tensors.map((t) => t.view_as(t));
    ctx.mark_non_differentiable(
      ...outs.filter((_, i) => !tensors[i]!.requires_grad),
    );
    return outs;
  }

  static override backward(ctx: FunctionCtx, ...grads: Grads): Grads {
    return [null, ...(ctx.stage as Stage)(grads)];
  }
}

/** A hook's replacement gradients as a list of `n`, with PyTorch's message for another count. */
function replacement(r: unknown, n: number, what: string): Grads {
  const list = r instanceof Tensor ? [r] : Array.from(r as ArrayLike<unknown>);
  if (list.length !== n)
    throw new TorchError(
      `Backward hook returned an invalid number of ${what}, got ${list.length}, but expected ${n}`,
    );
  return list.map((g) => (g instanceof Tensor ? g : null));
}

/** A full backward hook: may return replacement input gradients. */
export type BackwardHook<M> = (
  module: M,
  grad_input: Grads,
  grad_output: Grads,
) => Grads | Tensor | void | undefined | null;
/** A backward pre-hook: may return replacement output gradients. */
export type BackwardPreHook<M> = (
  module: M,
  grad_output: Grads,
) => Grads | Tensor | void | undefined | null;

/**
 * Puts `module`'s call between the identity nodes: returns the arguments to call `forward` with,
 * and the function that wraps its output.
 */
export function setupBackwardHooks<M>(
  module: M,
  args: unknown[],
  hooks: BackwardHook<M>[],
  preHooks: BackwardPreHook<M>[],
): [unknown[], (output: unknown) => unknown] {
  const positions = args.flatMap((a, i) => (a instanceof Tensor ? [i] : []));
  const tensors = positions.map((i) => args[i] as Tensor);
  const inputsNeedGrad = tensors.some((t) => t.requires_grad);
  let gradOutputs: Grads = [];
  let callArgs = args;
  const runHooks = (gradInputs: Grads): Grads => {
    let gi = gradInputs;
    for (const h of hooks) {
      const r = h(module, gi, gradOutputs);
      if (r === undefined || r === null) continue;
      if (!inputsNeedGrad) {
        if (replacement(r, gi.length, "grad_input").some((g) => g !== null))
          throw new TorchError(
            "Backward hook for Modules where no input requires gradient should always return None or None for all gradients.",
          );
        continue;
      }
      gi = replacement(r, gi.length, "grad_input");
    }
    return gi;
  };
  if (inputsNeedGrad) {
    const outs = BackwardHookFunction.apply(
      (grads: Grads) => {
        // One entry per positional argument, as PyTorch's grad_input.
        const all: Grads = args.map(() => null);
        positions.forEach((p, k) => (all[p] = grads[k] ?? null));
        const gi = runHooks(all);
        return positions.map((p) => gi[p] ?? null);
      },
      ...tensors,
    );
    callArgs = [...args];
    positions.forEach((p, k) => (callArgs[p] = outs[k]));
  }
  const finish = (output: unknown): unknown => {
    const single = output instanceof Tensor;
    const items = single ? [output] : Array.isArray(output) ? output : null;
    if (items === null) return output;
    const at = items.flatMap((v, i) => (v instanceof Tensor ? [i] : []));
    const outs = at.map((i) => items[i] as Tensor);
    if (!outs.some((t) => t.requires_grad)) return output;
    const wrapped = BackwardHookFunction.apply(
      (grads: Grads) => {
        let go = grads;
        for (const h of preHooks) {
          const r = h(module, go);
          if (r !== undefined && r !== null)
            go = replacement(r, go.length, "grad_output");
        }
        gradOutputs = go;
        if (!inputsNeedGrad) runHooks(args.map(() => null));
        return go;
      },
      ...outs,
    );
    if (single) return wrapped[0];
    const result = [...items];
    at.forEach((i, k) => (result[i] = wrapped[k]));
    return result;
  };
  return [callArgs, finish];
}
