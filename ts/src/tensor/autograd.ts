/**
 * Autograd on the TS side: the `Tensor` members PyTorch users reach for (`requires_grad`, `.grad`,
 * `backward`, `detach`, hooks, the in-place `_` methods) and their types. The grad-mode scopes
 * and `torch.autograd.grad` / `torch.autograd.backward` are in autograd/.
 *
 * The tape and every backward rule live in the Rust core (`src/autograd/`); each member here is one
 * core call. Declared by merging into the `Tensor` interface and installed on its prototype, as
 * elementwise.ts does.
 *
 * @module
 */

import { can_cast } from "../state.js";
import { divRounding, isOperand, roundDecimals } from "../ops/op_rows.js";
import { methodArgs } from "../schema/index.js";
import { castError, isFloatingPoint } from "../dtype.js";
import { clampCastError } from "./inplace_methods.js";
import { writeBack } from "./write_back.js";
import type { RawTensor } from "../wasm/webtorch_core.js";
import { opId } from "../runtime.js";
import { TorchError } from "../errors.js";
import { BINARY_OPS, UNARY_OPS } from "../ops/opnames.js";
import {
  NO_INPLACE_BINARY,
  NO_INPLACE_UNARY,
} from "../schema/generated_rows.js";
import { type Scalar, Tensor, checkTensor, wrap } from "./tensor.js";

/** What `t.grad_fn` returns for a tensor made by a recorded op: its backward node's name. */
export interface GradFn {
  /** PyTorch's node name, like `"AddBackward0"`. */
  readonly name: string;
}

/** Options of {@link Tensor.backward} and `torch.autograd.backward`. */
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

// The rows PyTorch has no in-place form of come from their schema entries (no `inplace`).

type InPlaceUnaryOp = Exclude<
  (typeof UNARY_OPS)[number],
  (typeof NO_INPLACE_UNARY)[number] | "round"
>;
type InPlaceBinaryOp = Exclude<
  (typeof BINARY_OPS)[number],
  (typeof NO_INPLACE_BINARY)[number] | "add" | "sub" | "div"
>;

/** `x.exp_()`, `x.relu_()`, …: one per unary op-table row that has an in-place form. */
export type InPlaceUnaryMethods = {
  [K in InPlaceUnaryOp as `${K}_`]: () => Tensor;
};
/** `x.mul_(y)`, `x.pow_(2)`, …: one per binary op-table row that has an in-place form. */
export type InPlaceBinaryMethods = {
  [K in InPlaceBinaryOp as `${K}_`]: (other: Tensor | Scalar) => Tensor;
};

declare module "./tensor.js" {
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
    /** In-place `div` (with `rounding_mode`, the result must fit this tensor's dtype). */
    div_(other: Tensor | Scalar, options?: DivOptions): this;
    /** In-place `round`. */
    round_(options?: RoundOptions): this;
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
    if (arguments.length > 0) methodArgs(op, this, arguments, `${op}_`); // throws
    this._raw.unary_(opId(op));
    return this;
  };
}

/**
 * Runs an in-place op of `t` that reads `other`: where `other` is `t` itself (`x.mul_(x)`), it
 * reads through a second handle of the same tensor (the core cannot borrow one handle as both
 * the written tensor and an input).
 */
function withOperand(
  t: Tensor,
  other: Tensor,
  f: (raw: RawTensor) => void,
): void {
  if (other !== t) return f(other._raw);
  const alias = other._raw.handle();
  try {
    f(alias);
  } finally {
    alias.free();
  }
}

function inplaceBinary(
  t: Tensor,
  op: string,
  other: Tensor | Scalar,
  alpha = 1,
): Tensor {
  const id = opId(op);
  if (other instanceof Tensor) {
    withOperand(t, other, (raw) => {
      if (alpha === 1) t._raw.binary_(id, raw);
      else t._raw.add_alpha_(id, raw, alpha);
    });
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
      ? function (this: Tensor, other: unknown): Tensor {
          if (arguments.length === 1 && isOperand(other))
            return inplaceBinary(this, op, other);
          const a = methodArgs(op, this, arguments, `${op}_`);
          return inplaceBinary(this, op, a.other, Number(a.alpha));
        }
      : function (this: Tensor, other: unknown): Tensor {
          if (arguments.length === 1 && isOperand(other))
            return inplaceBinary(this, op, other);
          return inplaceBinary(
            this,
            op,
            methodArgs(op, this, arguments, `${op}_`).other,
          );
        };
}
proto.round_ = function (this: Tensor): Tensor {
  const { decimals } = methodArgs("round", this, arguments, "round_");
  if (decimals === 0) this._raw.unary_(opId("round"));
  else writeBack(this, roundDecimals(this, decimals));
  return this;
};
proto.div_ = function (this: Tensor): Tensor {
  const a = methodArgs("div", this, arguments, "div_");
  if (a.rounding_mode === null) return inplaceBinary(this, "div", a.other);
  const result = divRounding(this, a.other, a.rounding_mode);
  if (!can_cast(result.dtype, this.dtype)) {
    const from = result.dtype;
    result.dispose();
    throw castError(from, this.dtype);
  }
  return writeBack(this, result);
};

proto.copy_ = function (this: Tensor, src: Tensor): Tensor {
  withOperand(this, checkTensor("copy_", "src", src), (raw) =>
    this._raw.copy_(raw),
  );
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
  const bounds = methodArgs("clamp", this, arguments, "clamp_");
  // A tensor bound, or a history to extend: clamp's own composition, whose gradient at a number
  // bound is PyTorch's (0 there; `maximum`/`minimum` would split it).
  if (
    bounds.min instanceof Tensor ||
    bounds.max instanceof Tensor ||
    this.requires_grad ||
    !isFloatingPoint(this.dtype)
  ) {
    // An integer or bool tensor: clamp's promoted result, which must cast back (PyTorch names
    // the output type by its C++ name there).
    const result = this.clamp(bounds.min, bounds.max);
    if (!can_cast(result.dtype, this.dtype)) {
      result.dispose();
      throw clampCastError(result.dtype, this.dtype);
    }
    return writeBack(this, result);
  }
  min = bounds.min === null ? null : Number(bounds.min);
  max = bounds.max === null ? null : Number(bounds.max);
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
