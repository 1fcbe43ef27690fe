/**
 * `torch.optim.Optimizer`: parameter groups, per-parameter state, `zero_grad`, `state_dict` /
 * `load_state_dict`. The built-in optimizers step in the core, one call per parameter group
 * (fused.ts); an optimizer written in TS implements {@link Optimizer._update} for one parameter
 * (or overrides `step`), with tensor ops that the core fuses per written tensor.
 *
 * @module
 */

import { keep as keepAlive } from "../lifetime.js";
import { TorchError } from "../errors.js";
import { Tensor } from "../tensor/tensor.js";
import { pyTypeName } from "../args.js";
import { enable_grad, no_grad } from "../autograd/grad_mode.js";

/** A parameter group: its parameters and its options (`lr`, `momentum`, …). */
export interface ParamGroup {
  params: Tensor[];
  lr: number;
  [option: string]: unknown;
}

/** What the constructor and `add_param_group` accept: parameters with some options. */
export type ParamGroupInput = { params: Iterable<Tensor> } & Record<
  string,
  unknown
>;

/**
 * Per-parameter optimizer state: tensors (moment buffers), numbers (`step`), and lists of them
 * (LBFGS's history: `old_dirs`, `old_stps`, `ro`).
 */
export type ParamState = Record<string, Tensor | number | Tensor[] | number[]>;

/** `Optimizer.state_dict()`: state by parameter index, groups with parameter indices. */
export interface OptimizerStateDict {
  state: Record<number, ParamState>;
  param_groups: (Record<string, unknown> & { params: number[] })[];
}

/** A copy of one state value: tensors (also in lists) cloned, numbers as they are. */
export function copyStateValue(v: ParamState[string]): ParamState[string] {
  if (v instanceof Tensor) return v.clone();
  if (Array.isArray(v))
    return v.map((x) => (x instanceof Tensor ? x.clone() : x)) as
      Tensor[] | number[];
  return v;
}

/** Collects temporaries and disposes them at the end of a parameter's update. */
export type Keep = <T extends Tensor>(t: T) => T;

/** Whether `v` can be spread (arrays, sets, generators; not strings). */
function iterable(v: unknown): v is Iterable<unknown> {
  return (
    v !== null &&
    typeof v === "object" &&
    typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] ===
      "function"
  );
}

/** An optimizer's `params` as a list, checked as PyTorch checks it. */
function paramList(params: unknown): (Tensor | ParamGroupInput)[] {
  if (params instanceof Tensor || !iterable(params))
    throw new TorchError(
      `params argument given to the optimizer should be an iterable of Tensors or dicts, but got ${pyTypeName(params)}`,
    );
  const list = [...params];
  for (const p of list)
    if (!(p instanceof Tensor) && !isGroup(p))
      throw new TorchError(
        `optimizer can only optimize Tensors, but one of the params is ${pyTypeName(p)}`,
      );
  return list as (Tensor | ParamGroupInput)[];
}

/** A param group: a plain object whose `params` is a Tensor or an iterable of them. */
function isGroup(g: unknown): g is ParamGroupInput {
  if (g === null || typeof g !== "object" || Array.isArray(g)) return false;
  const proto = Object.getPrototypeOf(g);
  return proto === Object.prototype || proto === null;
}

/** The base class of the optimizers (`torch.optim.Optimizer`). */
export abstract class Optimizer<O extends { lr: number } = { lr: number }> {
  readonly defaults: O;
  readonly param_groups: ParamGroup[] = [];
  readonly #state = new Map<Tensor, ParamState>();

  /** Per-parameter state, keyed by the parameter tensor. */
  get state(): Map<Tensor, ParamState> {
    return this.#state;
  }

  constructor(
    params: Iterable<Tensor> | Iterable<ParamGroupInput>,
    defaults: O,
  ) {
    this.defaults = defaults;
    const list = paramList(params);
    if (list.length === 0)
      throw new TorchError("optimizer got an empty parameter list");
    if (list.every((p) => p instanceof Tensor)) {
      this.add_param_group({ params: list as Tensor[] });
    } else {
      for (const g of list) {
        if (g instanceof Tensor)
          throw new TorchError(
            "optimizer parameters must be all Tensors or all param group objects",
          );
        this.add_param_group(g);
      }
    }
  }

  /** Adds a group: its options fall back to the optimizer's defaults. */
  add_param_group(group: ParamGroupInput): void {
    if (!isGroup(group))
      throw new TorchError(
        `param_group must be a dict, but got ${pyTypeName(group)}`,
      );
    if (!(group.params instanceof Tensor) && !iterable(group.params))
      throw new TorchError(
        `optimizer parameters need to be an iterable of Tensors, but got ${pyTypeName(group.params)}`,
      );
    const params =
      group.params instanceof Tensor ? [group.params] : [...group.params];
    const seen = new Set(this.param_groups.flatMap((g) => g.params));
    for (const p of params) {
      if (!(p instanceof Tensor))
        throw new TorchError(
          `optimizer can only optimize Tensors, but one of the params is ${typeof p}`,
        );
      if (!p.is_leaf) throw new TorchError("can't optimize a non-leaf Tensor");
      if (seen.has(p))
        throw new TorchError(
          "some parameters appear in more than one parameter group",
        );
    }
    const full = {
      ...this.defaults,
      ...group,
      params,
    } as unknown as ParamGroup;
    this.param_groups.push(full);
  }

  /** Clears (`set_to_none`, the default) or zeroes the gradients of every parameter. */
  zero_grad(set_to_none = true): void {
    for (const g of this.param_groups) {
      for (const p of g.params) {
        if (set_to_none) p.grad = null;
        else {
          const grad = p.grad;
          if (grad) {
            no_grad(() => grad.zero_());
            grad.dispose();
          }
        }
      }
    }
  }

  /**
   * One optimization step over every parameter that has a gradient. `closure` (re-evaluates the
   * model and returns the loss) runs with grad enabled first; its result is returned.
   */
  step(closure?: () => unknown): unknown {
    const loss = closure ? enable_grad(closure) : undefined;
    no_grad(() => {
      for (const group of this.param_groups) {
        for (const p of group.params) {
          const grad = p.grad;
          if (grad === null) continue;
          let state = this.#state.get(p);
          if (state === undefined) {
            state = {};
            this.#state.set(p, state);
          }
          const temps: Tensor[] = [grad];
          try {
            this._update(p, grad, state, group, (t) => (temps.push(t), t));
          } finally {
            for (const t of temps) t.dispose();
          }
          // State outlives the step: a `torch.scope` around the step must not free it.
          for (const v of Object.values(state))
            if (v instanceof Tensor) keepAlive(v);
        }
      }
    });
    return loss;
  }

  /**
   * Updates one parameter in place from its gradient; `keep` registers temporaries to dispose.
   * Runs under `no_grad`. An optimizer written in TS implements this (or overrides `step`).
   */
  protected _update(
    param: Tensor,
    grad: Tensor,
    state: ParamState,
    group: ParamGroup,
    keep: Keep,
  ): void {
    void [param, grad, state, group, keep];
    throw new TorchError(
      `${this.constructor.name} implements neither step() nor _update()`,
    );
  }

  /** The state and groups, with parameters replaced by their indices (PyTorch's layout). */
  state_dict(): OptimizerStateDict {
    const index = new Map<Tensor, number>();
    const param_groups = this.param_groups.map((g) => {
      const { params, ...options } = g;
      return {
        ...options,
        params: params.map((p) => {
          if (!index.has(p)) index.set(p, index.size);
          return index.get(p)!;
        }),
      };
    });
    const state: Record<number, ParamState> = {};
    for (const [p, s] of this.state) {
      const i = index.get(p);
      if (i !== undefined) state[i] = { ...s };
    }
    return { state, param_groups };
  }

  /** Restores what {@link Optimizer.state_dict} returned (group options and state; tensors are copied). */
  load_state_dict(state_dict: OptimizerStateDict): void {
    const groups = state_dict.param_groups;
    if (groups.length !== this.param_groups.length)
      throw new TorchError(
        "loaded state dict has a different number of parameter groups",
      );
    const byIndex = new Map<number, Tensor>();
    groups.forEach((saved, gi) => {
      const mine = this.param_groups[gi]!;
      if (saved.params.length !== mine.params.length)
        throw new TorchError(
          "loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
        );
      saved.params.forEach((id, j) => byIndex.set(id, mine.params[j]!));
      const { params: _ignored, ...options } = saved;
      void _ignored;
      Object.assign(mine, options);
    });
    const state = new Map<Tensor, ParamState>();
    for (const [id, s] of Object.entries(state_dict.state)) {
      const p = byIndex.get(Number(id));
      if (p !== undefined) state.set(p, s);
    }
    this._load_state(state);
  }

  /** Replaces the state with `state` (saved tensors are copied, not shared). */
  protected _load_state(state: Map<Tensor, ParamState>): void {
    this.#state.clear();
    for (const [p, s] of state) {
      const copy: ParamState = {};
      for (const [k, v] of Object.entries(s)) copy[k] = copyStateValue(v);
      this.#state.set(p, copy);
    }
  }
}
