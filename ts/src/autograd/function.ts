/**
 * `torch.autograd.Function`: custom differentiable operations written in TS. A subclass defines
 * static `forward(ctx, ...args)` and `backward(ctx, ...grads)`; `MyFn.apply(...args)` runs
 * `forward` under no_grad and records one node in the core's graph (a `CustomFunction`) whose
 * backward calls the subclass's `backward`. The node takes part in everything the core's own nodes
 * do: hooks, `retain_grad`, `retain_graph`, the in-place check on saved tensors, and double
 * backward when `backward` is written with differentiable ops.
 *
 * ```ts
 * class Exp extends torch.autograd.Function {
 *   static override forward(ctx: torch.autograd.FunctionCtx, x: Tensor): Tensor {
 *     const y = x.exp();
 *     ctx.save_for_backward(y);
 *     return y;
 *   }
 *   static override backward(ctx: torch.autograd.FunctionCtx, gy: Tensor): Tensor {
 *     const [y] = ctx.saved_tensors;
 *     return gy.mul(y!);
 *   }
 * }
 * const y = Exp.apply(x);
 * ```
 *
 * @module
 */

import { CustomFunction, type RawTensor } from "../wasm/webtorch_core.js";
import { TorchError } from "../errors.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import { keep } from "../lifetime.js";
import { zeros } from "../ops/creation.js";
import { is_grad_enabled, no_grad } from "./grad_mode.js";

/** The context a custom function's `forward` fills and its `backward` reads. */
export class FunctionCtx {
  /** One flag per `forward` argument: whether its gradient will be used (tensors only). */
  needs_input_grad: readonly boolean[] = [];
  /** Whether gradients of unused outputs reach `backward` as zeros (default) or `null`. */
  materialize_grads = true;
  /** Other state a subclass keeps between forward and backward (`ctx.k = 3`). */
  [key: string]: unknown;
  private saved: (Tensor | null)[] = [];
  /** @internal */
  _dirty: Tensor[] = [];
  /** @internal */
  _non_differentiable: Tensor[] = [];

  /** Keeps tensors (inputs or outputs) for `backward`; an in-place change before then is an error. */
  save_for_backward(...tensors: (Tensor | null | undefined)[]): void {
    this.saved = tensors.map((t, i) => {
      if (t === null || t === undefined) return null;
      if (!(t instanceof Tensor))
        throw new TorchError(
          `save_for_backward can only save variables, but argument ${i} is of type ${typeof t}`,
        );
      // A handle of our own, outside any open scope: backward may run after the scope closes.
      return keep(wrap(t._raw.handle()));
    });
  }

  /** The tensors given to {@link save_for_backward}, in order. */
  get saved_tensors(): (Tensor | null)[] {
    return [...this.saved];
  }

  /** Marks inputs that `forward` modified in place (and returns): they take the node's history. */
  mark_dirty(...tensors: Tensor[]): void {
    this._dirty = tensors;
  }

  /** Marks outputs that are not differentiable (integer results, indices): they get no history. */
  mark_non_differentiable(...tensors: Tensor[]): void {
    this._non_differentiable = tensors;
  }

  /** `false`: gradients of outputs that got none reach `backward` as `null` instead of zeros. */
  set_materialize_grads(value: boolean): void {
    this.materialize_grads = value;
  }

  /** @internal */
  _saved_raw(): Tensor[] {
    return this.saved.filter((t): t is Tensor => t !== null);
  }
}

/** What a custom `backward` may return: one gradient per `forward` argument (`null` for none). */
export type FunctionGrads =
  Tensor | null | undefined | readonly (Tensor | null | undefined)[];

type ForwardArgs<F> = F extends (ctx: FunctionCtx, ...args: infer A) => unknown
  ? A
  : never;
type ForwardResult<F> = F extends (...args: never[]) => infer R ? R : never;

/** Sums `g` down to `shape` (PyTorch's `sum_to` for gradients of broadcast inputs), or `null`. */
function sumTo(g: Tensor, shape: readonly number[]): Tensor | null {
  const lead = g.ndim - shape.length;
  if (lead < 0) return null;
  const dims: number[] = [];
  for (let i = 0; i < g.ndim; i++) {
    const want = i < lead ? 1 : shape[i - lead]!;
    if (i < lead) dims.push(i);
    else if (want === 1 && g.shape[i] !== 1) dims.push(i);
    else if (want !== g.shape[i]) return null;
  }
  let r = dims.length > 0 ? g.sum(dims, true) : g;
  if (lead > 0) r = r.reshape([...shape]);
  return r;
}

/**
 * Base class of custom autograd functions. Subclasses override the static `forward` and
 * `backward` and are called through the static {@link Function.apply}; they are never
 * instantiated.
 */
export class Function {
  /**
   * Computes the outputs (runs under no_grad). Tensor arguments are the node's inputs; other
   * arguments are passed through and get `null` gradients.
   */
  static forward(ctx: FunctionCtx, ...args: any[]): any {
    void ctx;
    void args;
    throw new TorchError(
      "You must implement the forward function for custom autograd.Function.",
    );
  }

  /** Gradients of the `forward` arguments, given one gradient per output. */
  static backward(ctx: FunctionCtx, ...grad_outputs: any[]): FunctionGrads {
    void ctx;
    void grad_outputs;
    throw new TorchError(
      "You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.",
    );
  }

  /** Runs `forward` on `args` and records the node; returns what `forward` returned. */
  static apply<T extends typeof Function>(
    this: T,
    ...args: ForwardArgs<T["forward"]>
  ): ForwardResult<T["forward"]> {
    const name = `${this.name}Backward`;
    const ctx = new FunctionCtx();
    const grad = is_grad_enabled();
    const inputs: Tensor[] = [];
    const positions: number[] = [];
    (args as unknown[]).forEach((a, i) => {
      if (a instanceof Tensor) {
        inputs.push(a);
        positions.push(i);
      }
    });
    ctx.needs_input_grad = (args as unknown[]).map(
      (a) => grad && a instanceof Tensor && a.requires_grad,
    );
    const result: unknown = no_grad(() => this.forward(ctx, ...args));
    if (!ctx.needs_input_grad.some(Boolean))
      return result as ForwardResult<T["forward"]>;

    const single = result instanceof Tensor;
    const items: unknown[] = single
      ? [result]
      : Array.isArray(result)
        ? [...result]
        : [result];
    const outIdx = items.flatMap((v, i) => (v instanceof Tensor ? [i] : []));
    const outs = outIdx.map((i) => items[i] as Tensor);
    const outShapes = outs.map((t) => [...t.shape]);
    const outDtypes = outs.map((t) => t.dtype);
    const outDevices = outs.map((t) => t.device);
    const inShapes = inputs.map((t) => [...t.shape]);
    const backward = this.backward.bind(this);
    const needs = ctx.needs_input_grad;

    const fn = new CustomFunction();
    try {
      for (const t of inputs) fn.add_input(t._raw);
      for (const t of ctx._saved_raw()) fn.add_saved(t._raw);
      for (const t of outs) fn.add_output(t._raw);
      fn.record(name, (grads: (RawTensor | undefined)[]) => {
        const gs = grads.map((g, i) =>
          g !== undefined
            ? wrap(g)
            : ctx.materialize_grads
              ? zeros([...outShapes[i]!], {
                  dtype: outDtypes[i] as "float32",
                  device: outDevices[i],
                })
              : null,
        );
        const r = backward(ctx, ...gs);
        let list: unknown[] =
          r instanceof Tensor || r === null || r === undefined
            ? [r]
            : Array.from(r);
        // Extra trailing nulls are allowed, as in PyTorch.
        while (
          list.length > args.length &&
          (list.at(-1) === null || list.at(-1) === undefined)
        )
          list = list.slice(0, -1);
        if (list.length !== args.length)
          throw new TorchError(
            `function ${name} returned an incorrect number of gradients (expected ${args.length}, got ${list.length})`,
          );
        list.forEach((g, i) => {
          if (g !== null && g !== undefined && !positions.includes(i))
            throw new TorchError(
              `function ${name} returned a gradient different than None at position ${i + 1}, but the corresponding forward input was not a Variable`,
            );
        });
        return positions.map((pos, k) => {
          const g = list[pos];
          if (g === null || g === undefined || !needs[pos]) return undefined;
          if (!(g instanceof Tensor))
            throw new TorchError(
              `function ${name} returned a gradient of type ${typeof g} at position ${pos + 1}; expected a Tensor or null`,
            );
          const want = inShapes[k]!;
          if (
            g.shape.length === want.length &&
            g.shape.every((s: number, d: number) => s === want[d])
          )
            return g._raw.handle();
          const summed = sumTo(g, want);
          if (summed === null)
            throw new TorchError(
              `Function ${name} returned an invalid gradient at index ${k} - got [${g.shape.join(", ")}] but expected shape compatible with [${want.join(", ")}]`,
            );
          return summed._raw.handle();
        });
      });
      const attached = outs.map((_, i) => wrap(fn.output(i)!));
      const nonDiff = new Set(ctx._non_differentiable);
      outs.forEach((orig, i) => {
        if (nonDiff.has(orig)) {
          const d = attached[i]!.detach();
          attached[i]!.dispose();
          attached[i] = d;
        }
      });
      for (const dirty of ctx._dirty) {
        const i = outs.indexOf(dirty);
        if (i < 0)
          throw new TorchError(
            `${this.name}.forward marked a tensor dirty that it did not return`,
          );
        dirty._raw.rebase_history(attached[i]!._raw);
        attached[i]!.dispose();
        attached[i] = dirty;
      }
      outIdx.forEach((pos, i) => (items[pos] = attached[i]));
    } finally {
      fn.free();
    }
    return (single ? items[0] : items) as ForwardResult<T["forward"]>;
  }
}
