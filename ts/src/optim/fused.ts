/**
 * The built-in optimizers' step: one core call per parameter group (`RawTensor.optim_step`,
 * src/ops/optim/), which updates every parameter of the group with one kernel over the group's
 * flat buffers — not a JS round trip per tensor. The state (exp_avg, exp_avg_sq, …) lives in the
 * core as one flat float32 tensor per group; `optimizer.state` and `state_dict()` show each
 * parameter's part of it as a view, in PyTorch's per-parameter layout. docs/nn.md ("Fused
 * optimizer steps") says why the core gathers the parameters with buffer copies.
 *
 * @module
 */

import { core } from "../runtime.js";
import { TorchError } from "../errors.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import { enable_grad } from "../autograd/grad_mode.js";
import type { OptimGroup } from "../wasm/webtorch_core.js";
import {
  Optimizer,
  type ParamGroup,
  type ParamGroupInput,
  type ParamState,
} from "./optimizer.js";
import { type CheckedOption, resolveOptions } from "./options.js";

/** What an optimizer's constructor accepts: tensors, or param groups with options. */
export type Params = Iterable<Tensor> | Iterable<ParamGroupInput>;

/** The scalar state the core keeps per parameter, by PyTorch's names (`param_scalars` order). */
const SCALARS = { step: 1, mu_product: 2, eta: 3, mu: 4 } as const;
type ScalarName = keyof typeof SCALARS;

/** The scalar state entries of each optimizer (the rest have `step` only). */
const SCALAR_STATE: Record<string, readonly ScalarName[]> = {
  SGD: [],
  NAdam: ["step", "mu_product"],
  ASGD: ["step", "eta", "mu"],
};

interface Fused {
  group: OptimGroup;
  id: number;
  /** The parameters the core group was made for (a changed list makes a new one). */
  params: Tensor[];
}

/** An optimizer whose step is the core's fused update of kind `kind` (a torch.optim name). */
export abstract class FusedOptimizer<
  O extends { lr: number },
> extends Optimizer<O> {
  readonly #kind: string;
  /** The hyperparameters the core takes, as [option, index into an array option]. */
  readonly #hyper: [string, number | undefined][];
  readonly #scalars: readonly ScalarName[];
  #fused: (Fused | undefined)[] = [];

  /**
   * `defaults` overridden by `options`, checked as PyTorch checks the options named in
   * `checked`.
   */
  protected constructor(
    kind: string,
    params: Params,
    defaults: O,
    options: Partial<O>,
    checked: readonly CheckedOption[],
  ) {
    super(params, resolveOptions(defaults, options, checked));
    this.#kind = kind;
    this.#hyper = core.optim_hyper_names(kind).map((name) => {
      const [option, index] = name.split(".");
      return [option!, index === undefined ? undefined : Number(index)];
    });
    this.#scalars = SCALAR_STATE[kind] ?? ["step"];
  }

  /**
   * One step over every parameter that has a gradient: one core call per group. `closure`
   * (re-evaluates the model and returns the loss) runs with grad enabled first.
   */
  override step<T = undefined>(closure?: () => T): T | undefined {
    const loss = closure ? enable_grad(closure) : undefined;
    this.param_groups.forEach((group, gi) => {
      core.RawTensor.optim_step(this.#core(gi).id, this.#options(group));
    });
    return loss;
  }

  /** Per-parameter state: views of the core's flat state, and the scalar state. */
  override get state(): Map<Tensor, ParamState> {
    const state = new Map<Tensor, ParamState>();
    this.param_groups.forEach((group, gi) => {
      const { group: g } = this.#core(gi);
      const slots = g.slot_names();
      if (slots.length === 0 && this.#scalars.length === 0) return;
      group.params.forEach((p, i) => {
        const scalars = g.param_scalars(i);
        if (scalars[0] === 0) return;
        const s: ParamState = {};
        for (const name of this.#scalars) s[name] = scalars[SCALARS[name]]!;
        slots.forEach((name, k) => {
          const view = g.state_view(i, k);
          if (view !== undefined) s[name] = wrap(view);
        });
        state.set(p, s);
      });
    });
    return state;
  }

  /** Writes `state` into the core's state (parameters missing from it start afresh). */
  protected override _load_state(state: Map<Tensor, ParamState>): void {
    this.param_groups.forEach((group, gi) => {
      const { group: g } = this.#core(gi);
      const options = this.#options(group);
      g.ensure_state(options);
      const slots = g.slot_names();
      // Adagrad's accumulators start at initial_accumulator_value and exist from the start.
      const adagrad = this.#kind === "Adagrad";
      const initial = adagrad ? Number(group.initial_accumulator_value) : 0;
      group.params.forEach((p, i) => {
        const s = state.get(p);
        slots.forEach((name, k) => {
          const view = wrap(g.state_view(i, k)!);
          try {
            const v = s?.[name];
            if (v instanceof Tensor) view.copy_(v);
            else view.fill_(initial);
          } finally {
            view.dispose();
          }
        });
        const scalar = (name: ScalarName, fallback: number): number => {
          const v = s?.[name] ?? fallback;
          if (typeof v !== "number")
            throw new TorchError(
              `optimizer state '${name}' must be a number to load it`,
            );
          return v;
        };
        g.set_param_scalars(
          i,
          Float64Array.of(
            s !== undefined || adagrad ? 1 : 0,
            scalar("step", 0),
            scalar("mu_product", 1),
            scalar("eta", Math.fround(group.lr)),
            scalar("mu", 1),
          ),
        );
      });
    });
  }

  /** The core group of param group `gi` (made on first use, again if its params changed). */
  #core(gi: number): Fused {
    const group = this.param_groups[gi]!;
    const f = this.#fused[gi];
    if (f !== undefined && sameTensors(f.params, group.params)) return f;
    f?.group.free();
    const list = new core.RawTensorList();
    try {
      for (const p of group.params) list.push(p._raw);
      const g = new core.OptimGroup(this.#kind, list, this.#options(group));
      const made = { group: g, id: g.id(), params: [...group.params] };
      this.#fused[gi] = made;
      return made;
    } finally {
      list.free();
    }
  }

  /** The group's options as the core takes them (flags as 0/1). */
  #options(group: ParamGroup): Float64Array {
    return Float64Array.from(this.#hyper, ([option, index]) => {
      let v = group[option];
      if (index !== undefined && Array.isArray(v)) v = v[index];
      if (typeof v === "boolean") return v ? 1 : 0;
      if (typeof v !== "number")
        throw new TorchError(
          `optimizer option '${option}' must be a number, got ${typeof v}`,
        );
      return v;
    });
  }
}

function sameTensors(a: readonly Tensor[], b: readonly Tensor[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
