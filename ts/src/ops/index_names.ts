/**
 * Function-index names composed from existing ops: `gcd`, `lcm` (Euclid's algorithm on integer
 * tensors), `frexp`, `index_reduce`, and torch.js's names `var_`/`std_`
 * (`var` is a reserved word in JS) and `get_real_dtype`.
 *
 * @module
 */

import { type DType, isFloatingPoint, scalarTypeName } from "../dtype.js";
import { DTypeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { args } from "../schema/index.js";
import { Tensor, wrapDim } from "../tensor/tensor.js";
import { where } from "./conditional.js";
import { std, var as variance } from "./reductions.js";
import { gcdOf } from "../tensor/methods/index_names.js";

/** Elementwise greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0). */
export function gcd(input: Tensor, other: Tensor): Tensor {
  const a = args("gcd", arguments);
  return gcdOf(a.input, a.other, "gcd");
}

/** Elementwise least common multiple of integer tensors (non-negative; 0 when either is 0). */
export function lcm(input: Tensor, other: Tensor): Tensor {
  const a = args("lcm", arguments);
  return scope(() => {
    const g = gcdOf(a.input, a.other, "lcm");
    const zero = g.eq(0);
    const q = a.input.div(where(zero, 1, g), { rounding_mode: "trunc" });
    return where(zero, 0, q.mul(a.other).abs());
  });
}

/**
 * `t / 2**e` in two halves: 2**e alone overflows float32 at e = 128 (the largest floats) and is
 * subnormal below e = -126.
 */
function scale(t: Tensor, e: Tensor): Tensor {
  const h = e.div(2, { rounding_mode: "floor" });
  return t.div(h.exp2()).div(e.sub(h).exp2());
}

/** What {@link frexp} returns: mantissa and exponent, also by name. */
export type Frexp = [Tensor, Tensor] & { mantissa: Tensor; exponent: Tensor };

/**
 * Splits `input` into `mantissa * 2 ** exponent` with `|mantissa|` in [0.5, 1) (0, ±inf and NaN:
 * themselves, exponent 0). The exponent is int32; the mantissa's gradient is `grad / 2**exponent`.
 */
export function frexp(input: Tensor): Frexp {
  const a = args("frexp", arguments);
  const x = a.input;
  if (!isFloatingPoint(x.dtype))
    throw new DTypeError("torch.frexp() only supports floating-point dtypes");
  const [m, e] = scope(() => {
    const d = x.detach();
    const finite = d.isfinite().logical_and(d.ne(0));
    const mag = where(finite, d.abs(), 1);
    // floor(log2|x|) + 1, then one correction step each way for log2's rounding.
    let e = mag.log2().floor().add(1);
    let scaled = scale(mag, e);
    e = where(scaled.ge(1), e.add(1), e);
    e = where(scaled.lt(0.5), e.sub(1), e);
    e = where(finite, e, 0);
    return [scale(x, e), e.to("int32")] as const;
  });
  return Object.assign([m, e] as [Tensor, Tensor], {
    mantissa: m,
    exponent: e,
  });
}

/** The reductions of {@link index_reduce}. */
export type IndexReduce = "prod" | "mean" | "amax" | "amin";

/**
 * `input` with the slices of `source` along `dim` reduced into the slices `index` names
 * (`prod`, `mean`, `amax`, `amin`; `include_self` also reduces `input`'s own values in).
 */
export function index_reduce(
  input: Tensor,
  dim: number,
  index: Tensor,
  source: Tensor,
  reduce: IndexReduce,
  options?: { include_self?: boolean },
): Tensor {
  const a = args("index_reduce", arguments);
  const t = a.input;
  const d = wrapDim(a.dim, Math.max(t.ndim, 1));
  if (a.index.ndim > 1)
    throw new TorchError("index_reduce_(): Index is supposed to be a vector");
  if (a.index.dtype !== "int64" && a.index.dtype !== "int32")
    throw new TorchError(
      "index_reduce_(): Expected dtype int32/int64 for index but got: " +
        scalarTypeName(a.index.dtype),
    );
  const count = a.source.ndim === 0 ? 1 : a.source.shape[d]!;
  if (a.index.numel() !== count)
    throw new TorchError(
      `index_reduce_(): Number of indices (${a.index.numel()}) should be equal to source.size(dim): (${count}), for dim: ${d}`,
    );
  // The index as a scatter index: the slice number, broadcast over source's other dims.
  return scope(() => {
    const shape = new Array<number>(a.source.ndim).fill(1);
    if (a.source.ndim > 0) shape[d] = count;
    const idx = a.index
      .to("int64")
      .reshape(shape)
      .expand([...a.source.shape]);
    return t.scatter_reduce(d, idx, a.source, a.reduce as IndexReduce, {
      include_self: a.include_self,
    });
  });
}

/** torch.js's name for {@link variance | torch.var} (`var` is a reserved word in JS). */
export function var_(
  input: Tensor,
  dim?: number | number[] | object | null,
  options?: object,
): Tensor {
  args("var_", arguments);
  return (variance as (...v: unknown[]) => Tensor)(...arguments);
}

/** torch.js's name for `torch.std`, the twin of {@link var_}. */
export function std_(
  input: Tensor,
  dim?: number | number[] | object | null,
  options?: object,
): Tensor {
  args("std_", arguments);
  return (std as (...v: unknown[]) => Tensor)(...arguments);
}

/** The real dtype that goes with `dtype` (webtorch's dtypes are all real: `dtype` itself). */
export function get_real_dtype(dtype: DType): DType {
  return args("get_real_dtype", arguments).dtype;
}
