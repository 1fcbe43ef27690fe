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

import { isFloatingPoint } from "../dtype.js";
import type { ReduceOptions, Shape } from "../args.js";
import type { DType } from "../dtype.js";
import { DTypeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import type { VarOptions } from "./reductions.js";
import { varCorrection } from "./reduce_args.js";
import { type Args, args } from "../schema/index.js";
import { type Scalar, Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import { binary } from "./op_rows.js";
import {
  nansumImpl,
  nanmeanImpl,
  aminmaxImpl,
} from "../tensor/methods/composites.js";

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
