/**
 * The `Tensor` methods of the ops in ops/composites.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/composites.ts.
 *
 * @module
 */

import { scalarTypeName } from "../../dtype.js";
import { isFloatingPoint } from "../../dtype.js";
import type { ReduceOptions, Shape } from "../../args.js";
import type { DType } from "../../dtype.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { where } from "../../ops/conditional.js";
import { inferSize } from "../../ops/broadcast.js";
import { floatOnly } from "../../ops/float_only.js";
import { cat } from "../../ops/indexing.js";
import { full } from "../../ops/creation.js";
import { castFor } from "../../ops/reduce_args.js";
import { type Args, methodArgs } from "../../schema/index.js";
import { type Scalar, Tensor, checkTensor, wrap, wrapDim } from "../tensor.js";
import { binary } from "../../ops/op_rows.js";
import { checkValues } from "../../ops/value_checks.js";
import {
  type MinMax,
  type CloseOptions,
  isclose,
} from "../../ops/composites.js";

declare module "../tensor.js" {
  interface Tensor {
    /** `|this - other| <= atol + rtol * |other|` elementwise (equal infinities are close). */
    isclose(other: Tensor, options?: CloseOptions): Tensor;
    /** Whether every element {@link isclose} (reads the device: a promise). */
    allclose(other: Tensor, options?: CloseOptions): Promise<boolean>;
    /** Whether the shapes and all the values are equal (reads the device: a promise). */
    equal(other: Tensor): Promise<boolean>;
    /** Whether each element is -∞ (bool). */
    isneginf(): Tensor;
    /** Whether each element is +∞ (bool). */
    isposinf(): Tensor;
    /** Whether each element is real: always true for webtorch's real dtypes (bool). */
    isreal(): Tensor;
    /** Whether the only element is nonzero (reads the device: a promise). */
    is_nonzero(): Promise<boolean>;
    /** Elementwise maximum ignoring NaN (NaN only where both are). */
    fmax(other: Tensor): Tensor;
    /** Elementwise minimum ignoring NaN (NaN only where both are). */
    fmin(other: Tensor): Tensor;
    /** 0 below 0, 1 above, `values` at 0 (same dtypes). */
    heaviside(values: Tensor): Tensor;
    /** Alias of `div` (true division). */
    true_divide(other: Tensor | Scalar): Tensor;
    /** `this ** exponent` in floating point (float32 here; PyTorch computes in float64). */
    float_power(exponent: Tensor | Scalar): Tensor;
    /** `this * 2 ** other`. */
    ldexp(other: Tensor): Tensor;
    /** The sum treating NaN as 0. */
    nansum(
      dim?: number | Shape | null,
      keepdim?: boolean,
      options?: { dtype?: DType },
    ): Tensor;
    nansum(options: ReduceOptions & { dtype?: DType }): Tensor;
    /** The mean over the non-NaN elements. */
    nanmean(
      dim?: number | Shape | null,
      keepdim?: boolean,
      options?: { dtype?: DType },
    ): Tensor;
    nanmean(options: ReduceOptions & { dtype?: DType }): Tensor;
    /** `[amin, amax]` over `dim` (all elements without one). */
    aminmax(options?: { dim?: number; keepdim?: boolean }): MinMax;
    /** The `n`-th forward difference along `dim` (default the last), with optional ends. */
    diff(
      n?: number,
      dim?: number,
      prepend?: Tensor | null,
      append?: Tensor | null,
    ): Tensor;
    /** `where(|x| <= lambd, 0, x)`. */
    hardshrink(lambd?: number): Tensor;
    /** The element's angle: 0 for non-negative reals, π for negative ones (NaN stays NaN). */
    angle(): Tensor;
    /** The tensor itself (real dtypes have no imaginary part): a new handle. */
    conj(): Tensor;
    /** {@link Tensor.conj}. */
    resolve_conj(): Tensor;
    /** {@link Tensor.conj}. */
    resolve_neg(): Tensor;
    /** The values at the flat indices `index` (negative ones count from the end). */
    take(index: Tensor): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

function title(t: Tensor): string {
  return scalarTypeName(t.dtype);
}

proto.isclose = function (
  this: Tensor,
  other: Tensor,
  options: CloseOptions = {},
) {
  const o = checkTensor("isclose", "other", other);
  if (this.dtype !== o.dtype)
    throw new DTypeError(`${title(this)} did not match ${title(o)}`);
  const { rtol = 1e-5, atol = 1e-8, equal_nan = false } = options;
  if (rtol < 0)
    throw new TorchError(
      `rtol must be greater than or equal to zero, but got ${rtol}`,
    );
  if (atol < 0)
    throw new TorchError(
      `atol must be greater than or equal to zero, but got ${atol}`,
    );
  return scope(() => {
    let close = this.eq(o);
    if (equal_nan)
      close = close.logical_or(this.isnan().logical_and(o.isnan()));
    if (this.dtype === "bool") return close;
    // Finite `other` only: an infinite one would pass |a - inf| <= inf.
    const within = this.sub(o).abs().le(o.abs().mul(rtol).add(atol));
    return close.logical_or(within.logical_and(o.isfinite()));
  });
};

proto.allclose = async function (
  this: Tensor,
  other: Tensor,
  options?: CloseOptions,
) {
  const all = scope(() => this.isclose(other, options).all());
  try {
    return (await all.item()) as boolean;
  } finally {
    all.dispose();
  }
};

proto.equal = async function (this: Tensor, other: Tensor) {
  const o = checkTensor("equal", "other", other);
  if (
    this.shape.length !== o.shape.length ||
    this.shape.some((s, i) => s !== o.shape[i])
  )
    return false;
  const all = scope(() => this.eq(o).all());
  try {
    return (await all.item()) as boolean;
  } finally {
    all.dispose();
  }
};

proto.isneginf = function (this: Tensor) {
  return this.eq(-Infinity);
};

proto.isposinf = function (this: Tensor) {
  return this.eq(Infinity);
};

proto.isreal = function (this: Tensor) {
  return full(this.shape, true, { device: this.device });
};

proto.is_nonzero = async function (this: Tensor) {
  const n = this.numel();
  if (n !== 1)
    throw new TorchError(
      n === 0
        ? "Boolean value of Tensor with no values is ambiguous"
        : "Boolean value of Tensor with more than one value is ambiguous",
    );
  return (await this.item()) !== 0 && (await this.item()) !== false;
};

/**
 * `fmax`/`fmin` with PyTorch's gradient: to the winner, split evenly at a tie, to `a` where `b` is
 * NaN and to `b` where only `a` is. `wins` is `ge` for fmax, `le` for fmin.
 */
function nanIgnoring(a: Tensor, b: Tensor, wins: "ge" | "le"): Tensor {
  return scope(() => {
    const picked = where(a[wins](b).logical_or(b.isnan()), a, b);
    if (!isFloatingPoint(picked.dtype)) return picked;
    // Equal values: their halves sum back to the value, each side's gradient halved.
    return where(a.eq(b), a.mul(0.5).add(b.mul(0.5)), picked);
  });
}

proto.fmax = function (this: Tensor, other: Tensor) {
  return nanIgnoring(this, checkTensor("fmax", "other", other), "ge");
};

proto.fmin = function (this: Tensor, other: Tensor) {
  return nanIgnoring(this, checkTensor("fmin", "other", other), "le");
};

proto.heaviside = function (this: Tensor, values: Tensor) {
  const v = checkTensor("heaviside", "values", values);
  if (this.dtype !== v.dtype)
    throw new DTypeError(
      "heaviside is not yet implemented for tensors with different dtypes.",
    );
  // PyTorch's broadcast error names `input` tensor a and `values` tensor b.
  inferSize(this.shape, v.shape);
  return scope(() => where(this.eq(0), v, this.gt(0).to(this.dtype)));
};

proto.true_divide = function (this: Tensor, other: Tensor | Scalar) {
  return binary("div", this, other);
};

proto.float_power = function (this: Tensor, exponent: Tensor | Scalar) {
  return scope(() =>
    binary(
      "pow",
      this.to("float32"),
      exponent instanceof Tensor ? exponent.to("float32") : exponent,
    ),
  );
};

proto.ldexp = function (this: Tensor, other: Tensor) {
  const o = checkTensor("ldexp", "other", other);
  return scope(() => this.mul(binary("pow", 2, o.to("float32"))));
};

export function nansumImpl(a: Args["nansum"]): Tensor {
  return scope(() => {
    const x = castFor(a.input, a.dtype);
    const dim = a.dim ?? [];
    if (!isFloatingPoint(x.dtype)) return x.sum(dim, a.keepdim);
    return where(x.isnan(), 0, x).sum(dim, a.keepdim);
  });
}

export function nanmeanImpl(a: Args["nanmean"]): Tensor {
  const x0 = a.input;
  if (!isFloatingPoint(a.dtype ?? x0.dtype))
    throw new DTypeError(
      a.dtype === null
        ? `nanmean(): expected input to have floating point or complex dtype but got ${title(x0)}`
        : `nanmean(): expected dtype to be floating point or complex but got ${scalarTypeName(a.dtype)}`,
    );
  return scope(() => {
    const x = castFor(x0, a.dtype);
    const dim = a.dim ?? [];
    return nansumImpl({ input: x, dim, keepdim: a.keepdim, dtype: null }).div(
      x.isnan().logical_not().sum(dim, a.keepdim),
    );
  });
}

export function aminmaxImpl(a: Args["aminmax"]): MinMax {
  const { input, dim, keepdim } = a;
  if (input.numel() === 0 && (dim === null || input.shape[dim] === 0))
    throw new TorchError(
      "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.",
    );
  const d = dim === null ? [] : [dim];
  const mn = input.amin(d, dim === null ? false : keepdim);
  const mx = input.amax(d, dim === null ? false : keepdim);
  return Object.assign([mn, mx] as [Tensor, Tensor], { min: mn, max: mx });
}

proto.nansum = function (this: Tensor) {
  return nansumImpl(methodArgs("nansum", this, arguments));
};

proto.nanmean = function (this: Tensor) {
  return nanmeanImpl(methodArgs("nanmean", this, arguments));
};

proto.aminmax = function (this: Tensor) {
  return aminmaxImpl(methodArgs("aminmax", this, arguments));
};

proto.diff = function (
  this: Tensor,
  n = 1,
  dim = -1,
  prepend: Tensor | null = null,
  append: Tensor | null = null,
) {
  ({ n, dim, prepend, append } = methodArgs("diff", this, arguments));
  if (this.ndim === 0)
    throw new TorchError("diff expects input to be at least one-dimensional");
  if (n < 0) throw new TorchError(`order must be non-negative but got ${n}`);
  const d = wrapDim(dim, this.ndim);
  return scope(() => {
    let x: Tensor =
      prepend || append
        ? cat(
            [prepend, this, append].filter((t): t is Tensor => !!t),
            d,
          )
        : this;
    for (let i = 0; i < n && x.shape[d]! > 0; i++) {
      const len = x.shape[d]! - 1;
      const hi = x.narrow(d, 1, len);
      const lo = x.narrow(d, 0, len);
      x = x.dtype === "bool" ? hi.logical_xor(lo) : hi.sub(lo);
    }
    return x === this ? this.clone() : x;
  });
};

proto.hardshrink = function (this: Tensor, lambd = 0.5) {
  floatOnly("hardshrink_cpu", this);
  return scope(() => where(this.abs().le(lambd), 0, this));
};

proto.angle = function (this: Tensor) {
  // NaN stays NaN, the rest (±inf included) is π below 0, else 0.
  return scope(() => {
    const f = this.to("float32");
    return where(this.lt(0), Math.PI, where(f.isnan(), f, 0));
  });
};

proto.conj = function (this: Tensor) {
  return wrap(this._raw.handle());
};

proto.resolve_conj = proto.conj;

proto.resolve_neg = proto.conj;

proto.take = function (this: Tensor, index: Tensor) {
  const i = checkTensor("take", "index", index);
  const n = this.numel();
  checkValues(i, -n, n - 1, {
    kind: "IndexError",
    low: `out of range: tried to access index {} on a tensor of ${n} elements.`,
  });
  return scope(() => {
    const flat = i.reshape(-1);
    const wrapped = where(flat.lt(0), flat.add(n), flat);
    return this.reshape(-1).index_select(0, wrapped).reshape(i.shape);
  });
};
