/**
 * Elementwise and reduction composites: functions PyTorch has that are a few core ops each —
 * comparisons (`isclose`, `allclose`, `equal`, `isneginf`, `isposinf`, `isreal`, `isin`,
 * `is_nonzero`), NaN-aware math (`fmax`, `fmin`, `nansum`, `nanmean`), `heaviside`,
 * `true_divide`, `float_power`, `ldexp`, `angle`, `real`/`conj`, `imag` (which PyTorch refuses
 * for real dtypes, as here), `diff`, the fused
 * reductions (`aminmax`, `var_mean`, `std_mean`), and the activations with arguments
 * (`hardshrink`, `softshrink`, `threshold`, `glu`, `prelu`, `rrelu`, in-place `*_`).
 *
 * Functions that answer a question about values (`allclose`, `equal`, `is_nonzero`) must read
 * them back from the device, so they return a `Promise<boolean>` where PyTorch returns a bool.
 *
 * @module
 */

import { scalarTypeName } from "../dtype.js";
import { isFloatingPoint } from "../dtype.js";
import type { ReduceOptions, Shape } from "../args.js";
import type { DType } from "../dtype.js";
import { DTypeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { where } from "./conditional.js";
import { inferSize } from "./broadcast.js";
import { floatOnly } from "./float_only.js";
import { cat } from "./indexing.js";
import { full } from "./creation.js";
import type { VarOptions } from "./reductions.js";
import { castFor, varCorrection } from "./reduce_args.js";
import { type Args, args, methodArgs } from "../schema/index.js";
import {
  type Scalar,
  Tensor,
  checkTensor,
  wrap,
  wrapDim,
} from "../tensor/tensor.js";
import { binary } from "./op_rows.js";
import { checkValues } from "./value_checks.js";

/** `[min, max]` with names, as `torch.aminmax` returns. */
export type MinMax = [Tensor, Tensor] & {
  readonly min: Tensor;
  readonly max: Tensor;
};

/** Options of `isclose`/`allclose`. */
export interface CloseOptions {
  /** Relative tolerance. Default 1e-5. */
  rtol?: number;
  /** Absolute tolerance. Default 1e-8. */
  atol?: number;
  /** Whether NaN equals NaN. Default `false`. */
  equal_nan?: boolean;
}

declare module "../tensor/tensor.js" {
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
function nansumImpl(a: Args["nansum"]): Tensor {
  return scope(() => {
    const x = castFor(a.input, a.dtype);
    const dim = a.dim ?? [];
    if (!isFloatingPoint(x.dtype)) return x.sum(dim, a.keepdim);
    return where(x.isnan(), 0, x).sum(dim, a.keepdim);
  });
}
function nanmeanImpl(a: Args["nanmean"]): Tensor {
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
function aminmaxImpl(a: Args["aminmax"]): MinMax {
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

// ---- torch.* functions ----

/** `input.isclose(other, options)`. See {@link Tensor.isclose}. */
export function isclose(
  input: Tensor,
  other: Tensor,
  options?: CloseOptions,
): Tensor;
export function isclose(
  input: Tensor,
  other: Tensor,
  rtol?: number,
  atol?: number,
  equal_nan?: boolean,
): Tensor;
export function isclose(input: Tensor): Tensor {
  const a = args("isclose", arguments);
  return a.input.isclose(a.other, a);
}
/** Whether all of `input` is close to `other` (a promise: the answer is read from the device). */
export function allclose(
  input: Tensor,
  other: Tensor,
  options?: CloseOptions,
): Promise<boolean>;
export function allclose(
  input: Tensor,
  other: Tensor,
  rtol?: number,
  atol?: number,
  equal_nan?: boolean,
): Promise<boolean>;
export function allclose(input: Tensor): Promise<boolean> {
  const a = args("allclose", arguments);
  return a.input.allclose(a.other, a);
}
/** Whether `input` and `other` have the same shape and values (a promise). */
export function equal(input: Tensor, other: Tensor): Promise<boolean> {
  const a = args("equal", arguments);
  return a.input.equal(a.other);
}
/** Whether each element is -∞. */
export function isneginf(input: Tensor): Tensor {
  return args("isneginf", arguments).input.isneginf();
}
/** Whether each element is +∞. */
export function isposinf(input: Tensor): Tensor {
  return args("isposinf", arguments).input.isposinf();
}
/** Whether each element is real (always, for webtorch's dtypes). */
export function isreal(input: Tensor): Tensor {
  return args("isreal", arguments).input.isreal();
}
/** Whether the one element of `input` is nonzero (a promise). */
export function is_nonzero(input: Tensor): Promise<boolean> {
  return args("is_nonzero", arguments).input.is_nonzero();
}
/** Whether each element of `elements` is in `test_elements` (bool; `invert` negates). */
export function isin(
  elements: Tensor,
  test_elements: Tensor,
  options?: { invert?: boolean },
): Tensor {
  const a = args("isin", arguments);
  const e = a.elements;
  const t = a.test_elements;
  if (e.dtype === "bool" || t.dtype === "bool")
    throw new DTypeError("Unsupported input type encountered for isin(): Bool");
  return scope(() => {
    const found = e.unsqueeze(-1).eq(t.reshape(-1)).any(-1);
    return a.invert ? found.logical_not() : found;
  });
}
/** NaN-ignoring maximum. See {@link Tensor.fmax}. */
export function fmax(input: Tensor, other: Tensor): Tensor {
  const a = args("fmax", arguments);
  return a.input.fmax(a.other);
}
/** NaN-ignoring minimum. See {@link Tensor.fmin}. */
export function fmin(input: Tensor, other: Tensor): Tensor {
  const a = args("fmin", arguments);
  return a.input.fmin(a.other);
}
/** The Heaviside step function. See {@link Tensor.heaviside}. */
export function heaviside(input: Tensor, values: Tensor): Tensor {
  const a = args("heaviside", arguments);
  return a.input.heaviside(a.values);
}
/** Alias of `div`. */
export function true_divide(
  input: Tensor | Scalar,
  other: Tensor | Scalar,
): Tensor {
  const a = args("true_divide", arguments);
  return binary("div", a.input, a.other);
}
/** `input ** exponent` in float32 (PyTorch: float64). */
export function float_power(
  input: Tensor | Scalar,
  exponent: Tensor | Scalar,
): Tensor {
  ({ input, exponent } = args("float_power", arguments));
  if (input instanceof Tensor) return input.float_power(exponent);
  return scope(() =>
    binary(
      "pow",
      input,
      checkTensor("float_power", "exponent", exponent).to("float32"),
    ),
  );
}
/** `input * 2 ** other`. */
export function ldexp(input: Tensor, other: Tensor): Tensor {
  const a = args("ldexp", arguments);
  return a.input.ldexp(a.other);
}
/** The sum treating NaN as 0. */
export function nansum(
  input: Tensor,
  dim?: number | Shape | null,
  keepdim?: boolean,
  options?: { dtype?: DType },
): Tensor;
export function nansum(
  input: Tensor,
  options?: ReduceOptions & { dtype?: DType },
): Tensor;
export function nansum(): Tensor {
  return nansumImpl(args("nansum", arguments));
}
/** The mean of the non-NaN elements. */
export function nanmean(
  input: Tensor,
  dim?: number | Shape | null,
  keepdim?: boolean,
  options?: { dtype?: DType },
): Tensor;
export function nanmean(
  input: Tensor,
  options?: ReduceOptions & { dtype?: DType },
): Tensor;
export function nanmean(): Tensor {
  return nanmeanImpl(args("nanmean", arguments));
}
/** `[amin, amax]` (named `min`, `max`). */
export function aminmax(
  input: Tensor,
  options?: { dim?: number | null; keepdim?: boolean },
): MinMax {
  return aminmaxImpl(args("aminmax", arguments));
}

function statsMean(fn: "var" | "std", a: Args["var_mean"]): [Tensor, Tensor] {
  if (!isFloatingPoint(a.input.dtype))
    throw new DTypeError(
      `${fn}_mean only support floating point and complex dtypes`,
    );
  const correction = varCorrection(a);
  const dims = Int32Array.from(a.dim ?? []);
  const raw = a.input._raw;
  const s = wrap(
    fn === "var"
      ? raw.var(dims, correction, a.keepdim)
      : raw.std(dims, correction, a.keepdim),
  );
  const m = a.input.mean(a.dim ?? [], a.keepdim);
  return [s, m];
}
/** `[var, mean]` over `dim` (see `var` for the options). */
export function var_mean(
  input: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
): [Tensor, Tensor] {
  return statsMean("var", args("var_mean", arguments));
}
/** `[std, mean]` over `dim`. */
export function std_mean(
  input: Tensor,
  dim?: number | Shape | VarOptions | null,
  options?: VarOptions,
): [Tensor, Tensor] {
  return statsMean("std", args("std_mean", arguments));
}
/** The `n`-th forward difference. See {@link Tensor.diff}. */
export function diff(
  input: Tensor,
  n?: number,
  dim?: number,
  prepend?: Tensor | null,
  append?: Tensor | null,
): Tensor {
  const a = args("diff", arguments);
  return a.input.diff(a.n, a.dim, a.prepend, a.append);
}
/** The angle of each element (0 or π for reals). */
export function angle(input: Tensor): Tensor {
  return args("angle", arguments).input.angle();
}
/** The real part: the tensor itself for real dtypes (a new handle). */
export function real(input: Tensor): Tensor {
  return args("real", arguments).input.conj();
}
/** The conjugate: the tensor itself for real dtypes (a new handle). */
export function conj(input: Tensor): Tensor {
  return args("conj", arguments).input.conj();
}
/** {@link conj} (there is no lazy conjugation to materialise). */
export function conj_physical(input: Tensor): Tensor {
  return args("conj_physical", arguments).input.clone();
}
/** Values at flat indices. See {@link Tensor.take}. */
export function take(input: Tensor, index: Tensor): Tensor {
  const a = args("take", arguments);
  return a.input.take(a.index);
}

/** The imaginary part: refused for real dtypes, as PyTorch does (webtorch has no complex ones). */
export function imag(input: Tensor): Tensor {
  args("imag", arguments);
  throw new TorchError(
    "imag is not implemented for tensors with non-complex dtypes.",
  );
}
