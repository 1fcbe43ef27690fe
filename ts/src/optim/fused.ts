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
import type { OptimGroup, RawTensor } from "../wasm/webtorch_core.js";
import { moveTo } from "../ops/devices.js";
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
  /**
   * Their core handles then: `Module.to` moves a parameter in place by giving it a new handle,
   * and the group is made again for it, its state carried over.
   */
  raws: RawTensor[];
}

/** A group's state per parameter: its tensors by slot, and its scalars. */
type Carried = { slots: (Tensor | null)[]; scalars: Float64Array }[];

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

  /**
   * The core group of param group `gi` (made on first use, again if its params changed, or were
   * moved in place by `Module.to`: then with their state, moved along).
   */
  #core(gi: number): Fused {
    const group = this.param_groups[gi]!;
    const f = this.#fused[gi];
    const same = f !== undefined && sameTensors(f.params, group.params);
    if (same && group.params.every((p, i) => p._raw === f.raws[i])) return f;
    const carried = same ? carry(f.group, group.params) : null;
    f?.group.free();
    const list = new core.RawTensorList();
    let made: Fused;
    try {
      for (const p of group.params) list.push(p._raw);
      const g = new core.OptimGroup(this.#kind, list, this.#options(group));
      made = {
        group: g,
        id: g.id(),
        params: [...group.params],
        raws: group.params.map((p) => p._raw),
      };
      this.#fused[gi] = made;
    } finally {
      list.free();
    }
    if (carried !== null) restore(made.group, carried, this.#options(group));
    return made;
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

/** Each parameter's state in `g`, moved to the parameter's device now. */
function carry(g: OptimGroup, params: readonly Tensor[]): Carried | null {
  const slots = g.slot_names();
  const out: Carried = params.map((p, i) => ({
    scalars: Float64Array.from(g.param_scalars(i)),
    slots: slots.map((_, k) => {
      const raw = g.state_view(i, k);
      if (raw === undefined) return null;
      const view = wrap(raw);
      try {
        return moveTo(view, p.device, view.dtype, true);
      } finally {
        view.dispose();
      }
    }),
  }));
  return out.some((s) => s.scalars[0] !== 0) ? out : (dispose(out), null);
}

/** Writes what {@link carry} took into the group made again. */
function restore(g: OptimGroup, carried: Carried, options: Float64Array): void {
  g.ensure_state(options);
  carried.forEach(({ slots, scalars }, i) => {
    slots.forEach((t, k) => {
      if (t === null) return;
      const view = wrap(g.state_view(i, k)!);
      try {
        view.copy_(t);
      } finally {
        view.dispose();
      }
    });
    if (scalars.length === 5) g.set_param_scalars(i, scalars);
  });
  dispose(carried);
}

function dispose(carried: Carried): void {
  for (const { slots } of carried) for (const t of slots) t?.dispose();
}

function sameTensors(a: readonly Tensor[], b: readonly Tensor[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
