/**
 * Autograd on the TS side: the `Tensor` members PyTorch users reach for (`requires_grad`, `.grad`,
 * `backward`, `detach`, hooks, the in-place `_` methods) and the grad-mode scopes
 * (`torch.no_grad`, `torch.enable_grad`, `torch.inference_mode`) plus `torch.autograd.grad` /
 * `torch.autograd.backward`.
 *
 * The tape and every backward rule live in the Rust core (`src/autograd/`); each member here is one
 * core call. Declared by merging into the `Tensor` interface and installed on its prototype, as
 * elementwise.ts does.
 *
 * @module
 */

import { GradRequest, type RawTensor } from "./wasm/webtorch_core.js";
import { core, opId } from "./runtime.js";
import { TorchError } from "./errors.js";
import { BINARY_OPS, UNARY_OPS } from "./ops/opnames.js";
import {
  type AlphaOptions,
  type Scalar,
  Tensor,
  checkTensor,
  wrap,
} from "./tensor/tensor.js";

export {
  Function,
  FunctionCtx,
  type FunctionGrads,
} from "./autograd_function.js";

/** What `t.grad_fn` returns for a tensor made by a recorded op: its backward node's name. */
export interface GradFn {
  /** PyTorch's node name, like `"AddBackward0"`. */
  readonly name: string;
}

/** Options of {@link Tensor.backward} and {@link backward}. */
export interface BackwardOptions {
  /** Keep the graph so that backward can run through it again. Default: `create_graph`. */
  retain_graph?: boolean;
  /** Record the backward pass itself, for higher-order gradients. Default `false`. */
  create_graph?: boolean;
}

/** What `register_hook` returns: `remove()` turns the hook into a no-op. */
export interface RemovableHandle {
  /** Unregisters the hook. */
  remove(): void;
}

/** A gradient hook: return a tensor to replace the gradient, or nothing to keep it. */
export type GradHook = (grad: Tensor) => Tensor | void | undefined | null;

/** Unary rows without an in-place form (predicates give bool; `positive` is a no-op). */
const NO_INPLACE_UNARY = [
  "isnan",
  "isinf",
  "isfinite",
  "signbit",
  "positive",
  // torch.special functions: no Tensor method, so no in-place one (i0_ exists).
  "special_i0e",
  "special_i1",
  "special_i1e",
] as const;
/** Binary rows PyTorch has no in-place form of. */
const NO_INPLACE_BINARY = [
  "maximum",
  "minimum",
  "logaddexp",
  "logaddexp2",
] as const;

type InPlaceUnaryOp = Exclude<
  (typeof UNARY_OPS)[number],
  (typeof NO_INPLACE_UNARY)[number]
>;
type InPlaceBinaryOp = Exclude<
  (typeof BINARY_OPS)[number],
  (typeof NO_INPLACE_BINARY)[number] | "add" | "sub"
>;

/** `x.exp_()`, `x.relu_()`, …: one per unary op-table row that has an in-place form. */
export type InPlaceUnaryMethods = {
  [K in InPlaceUnaryOp as `${K}_`]: () => Tensor;
};
/** `x.mul_(y)`, `x.pow_(2)`, …: one per binary op-table row that has an in-place form. */
export type InPlaceBinaryMethods = {
  [K in InPlaceBinaryOp as `${K}_`]: (other: Tensor | Scalar) => Tensor;
};

declare module "./tensor/tensor.js" {
  interface Tensor extends InPlaceUnaryMethods, InPlaceBinaryMethods {
    /** Whether autograd records ops on this tensor. Settable on leaves (floating point only). */
    requires_grad: boolean;
    /** Sets {@link Tensor.requires_grad} in place and returns this tensor. */
    requires_grad_(requires_grad?: boolean): this;
    /**
     * The accumulated gradient, or `null`. Each read returns a new handle to the same gradient
     * (in-place ops on it, like `p.grad.zero_()`, reach the stored gradient); set `null` to clear.
     */
    grad: Tensor | null;
    /** The backward node that made this tensor (`{ name: "AddBackward0" }`), `null` for leaves. */
    readonly grad_fn: GradFn | null;
    /** Whether this tensor is a leaf of the graph (made by the user, not by a recorded op). */
    readonly is_leaf: boolean;
    /** Whether `.grad` is kept for this non-leaf tensor (see {@link retain_grad}). */
    readonly retains_grad: boolean;
    /** How many in-place writes this tensor's storage has had (PyTorch's `_version`). */
    readonly _version: number;
    /** Keep `.grad` of this non-leaf tensor after backward. */
    retain_grad(): void;
    /** The same data, cut from the graph (shares storage; `requires_grad` false). */
    detach(): Tensor;
    /**
     * Computes the gradient of this tensor w.r.t. the graph leaves and accumulates it into their
     * `.grad`. `gradient` is required unless this tensor has one element.
     */
    backward(gradient?: Tensor | null, options?: BackwardOptions): void;
    backward(options: BackwardOptions): void;
    /** Calls `hook(grad)` when this tensor's gradient is computed; it may return a replacement. */
    register_hook(hook: GradHook): RemovableHandle;
    /** `this += alpha * other`, in place. */
    add_(other: Tensor | Scalar, options?: AlphaOptions): this;
    /** `this -= alpha * other`, in place. */
    sub_(other: Tensor | Scalar, options?: AlphaOptions): this;
    /** Writes `src` (broadcast and cast) into this tensor. */
    copy_(src: Tensor): this;
    /** Sets every element to `value`. */
    fill_(value: Scalar): this;
    /** Sets every element to 0. */
    zero_(): this;
    /** Clamps every element into `[min, max]` in place (either bound may be absent). */
    clamp_(min?: number | null, max?: number | null): this;
    /** Alias of {@link clamp_}. */
    clip_(min?: number | null, max?: number | null): this;
  }
}

// ---- grad mode ----

/** Whether ops are recorded for autograd right now. */
export function is_grad_enabled(): boolean {
  return core.is_grad_enabled();
}

/** Turns recording on or off (prefer the scoped {@link no_grad} / {@link enable_grad}). */
export function set_grad_enabled(mode: boolean): void {
  core.set_grad_enabled(mode);
}

/**
 * Runs `fn` with grad mode set to `mode` and restores the previous mode afterwards — when `fn`
 * returns, throws, or (for an async `fn`) when its promise settles. NOTE: grad mode is global to
 * the core, as it is per thread in PyTorch; other code running while an async `fn` awaits sees
 * the same mode.
 */
function withGradMode<T>(mode: boolean, fn: () => T): T {
  const previous = core.set_grad_enabled(mode);
  let result: T;
  try {
    result = fn();
  } catch (err) {
    core.set_grad_enabled(previous);
    throw err;
  }
  if (result instanceof Promise) {
    return result.finally(() => core.set_grad_enabled(previous)) as T;
  }
  core.set_grad_enabled(previous);
  return result;
}

/** `with torch.no_grad():` — runs `fn` (sync or async) without recording ops for autograd. */
export function no_grad<T>(fn: () => T): T {
  return withGradMode(false, fn);
}

/** `with torch.enable_grad():` — runs `fn` with recording on, even inside {@link no_grad}. */
export function enable_grad<T>(fn: () => T): T {
  return withGradMode(true, fn);
}

/**
 * `with torch.inference_mode():` — here the same as {@link no_grad} (the core has no separate
 * inference tensors; nothing is recorded either way).
 */
export function inference_mode<T>(fn: () => T): T {
  return withGradMode(false, fn);
}

// ---- torch.autograd ----

/** Options of {@link grad}. */
export interface GradOptions {
  /** The gradient of each output (required for outputs with more than one element). */
  grad_outputs?: Tensor | readonly (Tensor | null | undefined)[] | null;
  /** Keep the graph for another backward pass. Default: `create_graph`. */
  retain_graph?: boolean;
  /** Record the gradient computation, for higher-order gradients. Default `false`. */
  create_graph?: boolean;
  /** Return `null` for inputs the outputs do not depend on instead of throwing. Default `false`. */
  allow_unused?: boolean;
}

function asList(
  fn: string,
  arg: string,
  value: Tensor | readonly Tensor[],
): Tensor[] {
  const list = value instanceof Tensor ? [value] : Array.from(value);
  list.forEach((t, i) => checkTensor(fn, `${arg}[${i}]`, t));
  return list;
}

/**
 * `torch.autograd.grad(outputs, inputs, …)`: the gradients of `outputs` w.r.t. each of `inputs`
 * (one entry per input; `null` for an unused input with `allow_unused`). Does not touch `.grad`.
 */
export function grad(
  outputs: Tensor | readonly Tensor[],
  inputs: Tensor | readonly Tensor[],
  options: GradOptions = {},
): (Tensor | null)[] {
  const outs = asList("grad", "outputs", outputs);
  const ins = asList("grad", "inputs", inputs);
  const gos =
    options.grad_outputs === undefined || options.grad_outputs === null
      ? []
      : options.grad_outputs instanceof Tensor
        ? [options.grad_outputs]
        : Array.from(options.grad_outputs);
  if (gos.length > 0 && gos.length !== outs.length) {
    throw new TorchError(
      `grad requires one grad_output per output: got ${gos.length} grad_outputs and ${outs.length} outputs`,
    );
  }
  const request = new GradRequest();
  try {
    outs.forEach((t, i) => {
      const g = gos[i];
      request.add_output(t._raw, g ? g._raw.handle() : undefined);
    });
    for (const t of ins) request.add_input(t._raw);
    const create = options.create_graph ?? false;
    request.run(
      options.retain_graph ?? create,
      create,
      options.allow_unused ?? false,
    );
    return ins.map((_, i) => {
      const r = request.result(i);
      return r === undefined ? null : wrap(r);
    });
  } finally {
    request.free();
  }
}

/**
 * `torch.autograd.backward(tensors, grad_tensors)`: `backward` of each tensor with its gradient,
 * accumulating into the leaves' `.grad`. The graph is kept between the tensors (they may share
 * it) and released after the last unless `retain_graph`.
 */
export function backward(
  tensors: Tensor | readonly Tensor[],
  grad_tensors?: Tensor | readonly (Tensor | null | undefined)[] | null,
  options: BackwardOptions = {},
): void {
  const ts = asList("backward", "tensors", tensors);
  const gs =
    grad_tensors === undefined || grad_tensors === null
      ? []
      : grad_tensors instanceof Tensor
        ? [grad_tensors]
        : Array.from(grad_tensors);
  const create = options.create_graph ?? false;
  const retain = options.retain_graph ?? create;
  ts.forEach((t, i) =>
    t.backward(gs[i] ?? null, {
      retain_graph: i < ts.length - 1 ? true : retain,
      create_graph: create,
    }),
  );
}

// ---- Tensor members ----

const proto = Tensor.prototype as unknown as Record<string, unknown>;

Object.defineProperties(Tensor.prototype, {
  requires_grad: {
    get(this: Tensor): boolean {
      return this._raw.requires_grad();
    },
    set(this: Tensor, flag: boolean) {
      this._raw.set_requires_grad(Boolean(flag));
    },
    configurable: true,
  },
  grad: {
    get(this: Tensor): Tensor | null {
      const g = this._raw.grad();
      return g === undefined ? null : wrap(g);
    },
    set(this: Tensor, g: Tensor | null | undefined) {
      if (g === null || g === undefined) this._raw.set_grad(undefined);
      else this._raw.set_grad(checkTensor("grad", "grad", g)._raw.handle());
    },
    configurable: true,
  },
  grad_fn: {
    get(this: Tensor): GradFn | null {
      const name = this._raw.grad_fn_name();
      return name === undefined ? null : Object.freeze({ name });
    },
    configurable: true,
  },
  is_leaf: {
    get(this: Tensor): boolean {
      return this._raw.is_leaf();
    },
    configurable: true,
  },
  retains_grad: {
    get(this: Tensor): boolean {
      return this._raw.retains_grad();
    },
    configurable: true,
  },
  _version: {
    get(this: Tensor): number {
      return this._raw.version();
    },
    configurable: true,
  },
});

proto.requires_grad_ = function (this: Tensor, flag = true): Tensor {
  this._raw.set_requires_grad(Boolean(flag));
  return this;
};
proto.retain_grad = function (this: Tensor): void {
  this._raw.retain_grad();
};
proto.detach = function (this: Tensor): Tensor {
  return wrap(this._raw.detach());
};
proto.backward = function (
  this: Tensor,
  gradient?: Tensor | BackwardOptions | null,
  options: BackwardOptions = {},
): void {
  // `t.backward({ retain_graph: true })`: options without a gradient.
  if (
    gradient !== null &&
    typeof gradient === "object" &&
    !(gradient instanceof Tensor)
  ) {
    options = gradient;
    gradient = undefined;
  }
  const create = options.create_graph ?? false;
  const g =
    gradient === undefined || gradient === null
      ? undefined
      : checkTensor("backward", "gradient", gradient)._raw.handle();
  this._raw.backward(g, options.retain_graph ?? create, create);
};
proto.register_hook = function (this: Tensor, hook: GradHook): RemovableHandle {
  if (typeof hook !== "function")
    throw new TorchError("register_hook(): argument 'hook' must be a function");
  let active = true;
  this._raw.register_hook((g: RawTensor): RawTensor | undefined => {
    // NOTE: the gradient handle is left to the GC (not disposed here): hooks commonly keep it.
    const grad = wrap(g);
    if (!active) return undefined;
    const r = hook(grad);
    if (r === undefined || r === null) return undefined;
    // The core consumes the returned handle: give it a new one, so `r` stays usable in JS.
    return checkTensor("register_hook", "return value", r)._raw.handle();
  });
  return {
    remove() {
      active = false;
    },
  };
};

// ---- in place ----

for (const op of UNARY_OPS) {
  if ((NO_INPLACE_UNARY as readonly string[]).includes(op)) continue;
  proto[`${op}_`] = function (this: Tensor): Tensor {
    this._raw.unary_(opId(op));
    return this;
  };
}

function inplaceBinary(
  t: Tensor,
  op: string,
  other: Tensor | Scalar,
  alpha = 1,
): Tensor {
  const id = opId(op);
  if (other instanceof Tensor) {
    if (alpha === 1) t._raw.binary_(id, other._raw);
    else t._raw.add_alpha_(id, other._raw, alpha);
  } else if (typeof other === "number" || typeof other === "boolean") {
    t._raw.binary_scalar_(id, Number(other) * alpha);
  } else {
    checkTensor(`${op}_`, "other", other); // throws
  }
  return t;
}

for (const op of BINARY_OPS) {
  if ((NO_INPLACE_BINARY as readonly string[]).includes(op)) continue;
  proto[`${op}_`] =
    op === "add" || op === "sub"
      ? function (
          this: Tensor,
          other: Tensor | Scalar,
          options: AlphaOptions = {},
        ): Tensor {
          const alpha = options.alpha ?? 1;
          if (typeof alpha !== "number")
            throw new TorchError(`${op}_(): argument 'alpha' must be Number`);
          return inplaceBinary(this, op, other, alpha);
        }
      : function (this: Tensor, other: Tensor | Scalar): Tensor {
          return inplaceBinary(this, op, other);
        };
}

proto.copy_ = function (this: Tensor, src: Tensor): Tensor {
  this._raw.copy_(checkTensor("copy_", "src", src)._raw);
  return this;
};
proto.fill_ = function (this: Tensor, value: Scalar): Tensor {
  if (typeof value !== "number" && typeof value !== "boolean")
    throw new TorchError("fill_(): argument 'value' must be Number");
  this._raw.fill_(Number(value));
  return this;
};
proto.zero_ = function (this: Tensor): Tensor {
  this._raw.fill_(0);
  return this;
};
// The core has no clamp row: two in-place scalar ops (max first, then min, as PyTorch orders
// them: clamp(x, min, max) = min(max(x, min), max)).
proto.clamp_ = proto.clip_ = function (
  this: Tensor,
  min?: number | null,
  max?: number | null,
): Tensor {
  if (
    (min === undefined || min === null) &&
    (max === undefined || max === null)
  )
    throw new TorchError(
      "torch.clamp: At least one of 'min' or 'max' must not be None",
    );
  if (min !== undefined && min !== null)
    this._raw.binary_scalar_(opId("maximum"), min);
  if (max !== undefined && max !== null)
    this._raw.binary_scalar_(opId("minimum"), max);
  return this;
};
