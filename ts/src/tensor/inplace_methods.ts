/**
 * The in-place `Tensor` methods whose out-of-place op is a TS composite or a core op without an
 * in-place entry (`index_add_`, `lerp_`, `addcmul_`, `cumsum_`, …), the random fills
 * (`uniform_`, `normal_`, `bernoulli_`, `exponential_`, `cauchy_`, `log_normal_`, `geometric_`,
 * `random_`), and the methods `type_as`, `nonzero`, `masked_select`.
 *
 * Each composite computes the out-of-place result, checks it against this tensor as PyTorch's
 * in-place forms do (the broadcast shape must be this tensor's; the result dtype must cast to
 * this tensor's), then writes it with `copy_`: the write goes through the core's in-place path
 * (`autograd::assign`), which bumps the version counter, refuses a leaf that requires grad and
 * writes a view through to its base; the gradient flows through the composite's parts.
 *
 * @module
 */

import { DTypeError, ShapeError, TorchError } from "../errors.js";
import { can_cast } from "../state.js";
import { castError, cTypeName, scalarTypeName, type DType } from "../dtype.js";
import { checkFloat } from "../args.js";
import { methodArgs } from "../schema/index.js";
import { OPS } from "../schema/generated.js";
import { scope } from "../lifetime.js";
import { is_grad_enabled } from "../autograd/grad_mode.js";
import { rand, randn, tensor } from "../ops/creation.js";
import { masked_select, nonzero } from "../ops/unique.js";
import type { Generator } from "../generator.js";
import { writeBack } from "./write_back.js";
import { Tensor } from "./tensor.js";

/** Options of the random fills: the generator to draw from (default: the global seed). */
export interface RandomFillOptions {
  /** A `torch.Generator`: its Mersenne Twister stream instead of the global one. */
  generator?: Generator | null;
}

declare module "./tensor.js" {
  interface Tensor {
    /** In-place {@link Tensor.masked_fill}. */
    masked_fill_(mask: Tensor, value: Tensor | Scalar): this;
    /** In-place `index_add`: `self[..., index[i], ...] += alpha * source[..., i, ...]`. */
    index_add_(
      dim: number,
      index: Tensor,
      source: Tensor,
      options?: { alpha?: Scalar },
    ): this;
    /** In-place `index_copy`. */
    index_copy_(dim: number, index: Tensor, source: Tensor): this;
    /** In-place `index_fill`. */
    index_fill_(dim: number, index: Tensor, value: Scalar): this;
    /** In-place `index_reduce`. */
    index_reduce_(
      dim: number,
      index: Tensor,
      source: Tensor,
      reduce: "prod" | "mean" | "amax" | "amin",
      options?: { include_self?: boolean },
    ): this;
    /** In-place `scatter_reduce`. */
    scatter_reduce_(
      dim: number,
      index: Tensor,
      src: Tensor,
      reduce: "sum" | "prod" | "mean" | "amax" | "amin",
      options?: { include_self?: boolean },
    ): this;
    /** In-place `lerp`: `self += weight * (end - self)`. */
    lerp_(end: Tensor, weight: Tensor | Scalar): this;
    /** In-place `clamp_min`. */
    clamp_min_(min: Tensor | number): this;
    /** In-place `clamp_max`. */
    clamp_max_(max: Tensor | number): this;
    /** In-place `addcmul`: `self += value * tensor1 * tensor2`. */
    addcmul_(
      tensor1: Tensor,
      tensor2: Tensor,
      options?: { value?: Scalar },
    ): this;
    /** In-place `addcdiv`: `self += value * tensor1 / tensor2`. */
    addcdiv_(
      tensor1: Tensor,
      tensor2: Tensor,
      options?: { value?: Scalar },
    ): this;
    /** In-place `nan_to_num`. */
    nan_to_num_(
      nan?: number | null,
      posinf?: number | null,
      neginf?: number | null,
    ): this;
    /** In-place `ldexp`: `self *= 2 ** other`. */
    ldexp_(other: Tensor): this;
    /** In-place `heaviside`. */
    heaviside_(values: Tensor): this;
    /** In-place `tril`. */
    tril_(diagonal?: number): this;
    /** In-place `triu`. */
    triu_(diagonal?: number): this;
    /** In-place `cumsum` along `dim`. */
    cumsum_(dim: number, options?: { dtype?: DType | null }): this;
    /** In-place `cumprod` along `dim`. */
    cumprod_(dim: number, options?: { dtype?: DType | null }): this;
    /** In-place `addmm`: `self = beta * self + alpha * mat1 @ mat2`. */
    addmm_(
      mat1: Tensor,
      mat2: Tensor,
      options?: { beta?: Scalar; alpha?: Scalar },
    ): this;
    /** In-place `addmv`. */
    addmv_(
      mat: Tensor,
      vec: Tensor,
      options?: { beta?: Scalar; alpha?: Scalar },
    ): this;
    /** In-place `addr`. */
    addr_(
      vec1: Tensor,
      vec2: Tensor,
      options?: { beta?: Scalar; alpha?: Scalar },
    ): this;
    /** In-place `baddbmm`. */
    baddbmm_(
      batch1: Tensor,
      batch2: Tensor,
      options?: { beta?: Scalar; alpha?: Scalar },
    ): this;
    /** In-place `addbmm`. */
    addbmm_(
      batch1: Tensor,
      batch2: Tensor,
      options?: { beta?: Scalar; alpha?: Scalar },
    ): this;
    /** In-place `gcd` (integer tensors). */
    gcd_(other: Tensor): this;
    /** In-place `lcm` (integer tensors). */
    lcm_(other: Tensor): this;
    /** Fills with numbers uniform in `[from, to)` (floating point dtypes). */
    uniform_(from?: number, to?: number, options?: RandomFillOptions): this;
    /** Fills with numbers from N(mean, std²) (floating point dtypes). */
    normal_(mean?: number, std?: number, options?: RandomFillOptions): this;
    /** Fills with 1 with probability `p` (a number or a tensor of probabilities), else 0. */
    bernoulli_(p?: Tensor | number, options?: RandomFillOptions): this;
    /** Fills with numbers from the exponential distribution of rate `lambd`. */
    exponential_(lambd?: number, options?: RandomFillOptions): this;
    /** Fills with numbers from the Cauchy distribution. */
    cauchy_(median?: number, sigma?: number, options?: RandomFillOptions): this;
    /** Fills with numbers whose logarithm is N(mean, std²). */
    log_normal_(mean?: number, std?: number, options?: RandomFillOptions): this;
    /** Fills with the number of Bernoulli(p) trials up to the first success (1, 2, …). */
    geometric_(p: number, options?: RandomFillOptions): this;
    /**
     * Fills with integers uniform in `[from, to)`; `random_(to)` is `[0, to)`; no bound: `[0, 2^m]`
     * with `m` the dtype's mantissa bits (integer dtypes: their largest value).
     */
    random_(
      from?: number,
      to?: number | null,
      options?: RandomFillOptions,
    ): this;
    /** This tensor in `other`'s dtype (itself when the dtype is the same). */
    type_as(other: Tensor): Tensor;
    /** See `torch.nonzero`. */
    nonzero(options?: { as_tuple?: boolean }): ReturnType<typeof nonzero>;
    /** See `torch.masked_select`. */
    masked_select(mask: Tensor): ReturnType<typeof masked_select>;
  }
}

/**
 * PyTorch's checks of an in-place result against the tensor it is written into, then the write:
 * the shapes must agree (a result broadcast beyond this tensor's shape is an error) and the
 * result's dtype must cast to this tensor's.
 */
export function assignResult<T extends Tensor>(
  target: T,
  result: Tensor,
  castErr: (from: DType, to: DType) => DTypeError = castError,
): T {
  const want = target.shape.join(", ");
  if (result.shape.join(", ") !== want) {
    const got = result.shape.join(", ");
    result.dispose();
    throw new ShapeError(
      `output with shape [${want}] doesn't match the broadcast shape [${got}]`,
    );
  }
  if (!can_cast(result.dtype, target.dtype)) {
    const from = result.dtype;
    result.dispose();
    throw castErr(from, target.dtype);
  }
  return writeBack(target, result);
}

type Methods = Record<string, (this: Tensor, ...args: unknown[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

/**
 * The in-place forms computed by their out-of-place op: the arguments parse through the op's
 * schema entry under the in-place name, then the op runs on the parsed values.
 */
const COMPOSITES = [
  "masked_fill",
  "index_add",
  "index_copy",
  "index_fill",
  "index_reduce",
  "scatter_reduce",
  "lerp",
  "clamp_min",
  "clamp_max",
  "addcmul",
  "addcdiv",
  "nan_to_num",
  "ldexp",
  "heaviside",
  "tril",
  "triu",
  "cumsum",
  "cumprod",
  "addmm",
  "addmv",
  "addr",
  "baddbmm",
  "addbmm",
  "gcd",
  "lcm",
] as const;

/** PyTorch's own words where an in-place form's result cannot be cast (else assignResult's). */
const CAST_ERRORS: Partial<
  Record<(typeof COMPOSITES)[number], (from: DType, to: DType) => DTypeError>
> = {
  clamp_min: clampCastError,
  clamp_max: clampCastError,
  ldexp: (_from, to) =>
    new DTypeError(
      `ldexp can't be cast to the desired output type ${scalarTypeName(to)}`,
    ),
};

/** clamp_'s: the output type by its C++ name ("long int"). */
export function clampCastError(from: DType, to: DType): DTypeError {
  return castError(from, to, cTypeName(to));
}

for (const op of COMPOSITES) {
  proto[`${op}_`] = function (this: Tensor): Tensor {
    const parsed = methodArgs(op, this, arguments, `${op}_`) as Record<
      string,
      unknown
    >;
    // PyTorch's in-place scan has no bool kernel (its out-of-place form scans in int64).
    if ((op === "cumsum" || op === "cumprod") && this.dtype === "bool")
      throw new DTypeError(`"${op}_out_cpu" not implemented for 'Bool'`);
    if (
      (op === "cumsum" || op === "cumprod") &&
      parsed.dtype !== null &&
      parsed.dtype !== this.dtype
    )
      throw new DTypeError(
        `Bad in-place call: input tensor dtype ${cTypeName(this.dtype)} and output tensor dtype ${cTypeName(parsed.dtype as DType)} should match`,
      );
    // The out-of-place method called with the parsed values: positional ones in order, the
    // keyword-only ones as its options.
    const positional: unknown[] = [];
    const options: Record<string, unknown> = {};
    for (const p of OPS[op].params.slice(1))
      if (p.kwOnly) options[p.name] = parsed[p.name];
      else positional.push(parsed[p.name]);
    if (
      op === "heaviside" &&
      is_grad_enabled() &&
      (this.requires_grad || (parsed.values as Tensor).requires_grad)
    )
      throw new TorchError(
        "derivative for aten::heaviside_ is not implemented",
      );
    // With a history, the op reads a copy of the old values: its backward may save its input
    // (cumprod, clamp_max, scatter_reduce's amax), which the write below replaces.
    const src = this.requires_grad ? this.clone() : this;
    const method = (this as unknown as Methods)[op]!;
    const result = method.call(
      src,
      ...positional,
      ...(Object.keys(options).length > 0 ? [options] : []),
    );
    return assignResult(this, result as Tensor, CAST_ERRORS[op]);
  };
}

// ---- random fills ----

/**
 * `n` uniform numbers in [0, 1) shaped like `t`, in float32 on `t`'s device: from the global
 * seed, or from `generator`'s Mersenne Twister as PyTorch's CPU draws a float32 uniform (24 bits
 * of one 32-bit output).
 */
function uniforms(t: Tensor, gen: unknown): Tensor {
  const generator = gen as Generator | null | undefined;
  if (generator === null || generator === undefined)
    return rand([...t.shape], { device: t.device });
  const n = t.numel();
  const values = new Float32Array(n);
  for (let i = 0; i < n; i++)
    values[i] = (generator._random() & 0xffffff) / 0x1000000;
  return tensor(values, { device: t.device }).reshape([...t.shape]);
}

/** `n` standard normal numbers shaped like `t` (Box–Muller on `generator`'s uniforms). */
function normals(t: Tensor, gen: unknown): Tensor {
  const generator = gen as Generator | null | undefined;
  if (generator === null || generator === undefined)
    return randn([...t.shape], { device: t.device });
  const n = t.numel();
  const values = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - generator._uniform();
    const u2 = generator._uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    values[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < n) values[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return tensor(values, { device: t.device }).reshape([...t.shape]);
}

/** Writes `draw()`'s values (cast to this tensor's dtype) into `t`, outside autograd's view. */
function fill(t: Tensor, draw: () => Tensor): Tensor {
  return writeBack(
    t,
    scope(() => draw().to(t.dtype)),
  );
}

proto.uniform_ = function (this: Tensor): Tensor {
  const a = methodArgs("uniform_", this, arguments);
  checkFloat("check_uniform_bounds", this.dtype);
  const lo = Number(a.from);
  const hi = Number(a.to);
  if (!(lo <= hi))
    throw new TorchError(
      `uniform_ expects to return a [from, to) range, but found from=${lo} > to=${hi}`,
    );
  return fill(this, () =>
    uniforms(this, a.generator)
      .mul(hi - lo)
      .add(lo),
  );
};

proto.normal_ = function (this: Tensor): Tensor {
  const a = methodArgs("normal_", this, arguments);
  checkFloat("normal_kernel_cpu", this.dtype);
  const std = Number(a.std);
  if (!(std >= 0))
    throw new TorchError(`normal expects std >= 0.0, but found std ${std}`);
  return fill(this, () =>
    normals(this, a.generator).mul(std).add(Number(a.mean)),
  );
};

proto.bernoulli_ = function (this: Tensor): Tensor {
  const a = methodArgs("bernoulli_", this, arguments);
  const p = a.p;
  if (typeof p === "number" && !(p >= 0 && p <= 1))
    throw new TorchError(
      `bernoulli_ expects p to be in [0, 1], but got p=${p}`,
    );
  return fill(this, () => uniforms(this, a.generator).lt(p as Tensor | number));
};

proto.exponential_ = function (this: Tensor): Tensor {
  const a = methodArgs("exponential_", this, arguments);
  checkFloat("exponential_cpu", this.dtype);
  const lambd = Number(a.lambd);
  if (!(lambd > 0))
    throw new TorchError(
      `exponential_ expects lambda > 0.0, but found lambda=${lambd}`,
    );
  // -log(1 - u) / lambd with u in [0, 1): finite, >= 0.
  return fill(this, () =>
    uniforms(this, a.generator).neg().log1p().div(-lambd),
  );
};

proto.cauchy_ = function (this: Tensor): Tensor {
  const a = methodArgs("cauchy_", this, arguments);
  checkFloat("cauchy_cpu", this.dtype);
  const sigma = Number(a.sigma);
  if (!(sigma > 0))
    throw new TorchError(
      `cauchy_ expects sigma > 0.0, but found sigma=${sigma}`,
    );
  return fill(this, () =>
    uniforms(this, a.generator)
      .sub(0.5)
      .mul(Math.PI)
      .tan()
      .mul(sigma)
      .add(Number(a.median)),
  );
};

proto.log_normal_ = function (this: Tensor): Tensor {
  const a = methodArgs("log_normal_", this, arguments);
  checkFloat("log_normal_cpu", this.dtype);
  const std = Number(a.std);
  if (!(std > 0))
    throw new TorchError(`log_normal_ expects std > 0.0, but found std=${std}`);
  return fill(this, () =>
    normals(this, a.generator).mul(std).add(Number(a.mean)).exp(),
  );
};

proto.geometric_ = function (this: Tensor): Tensor {
  const a = methodArgs("geometric_", this, arguments);
  const p = Number(a.p);
  if (!(p > 0 && p < 1))
    throw new TorchError(
      `geometric_ expects p to be in (0, 1), but got p=${p}`,
    );
  // ceil(log(1 - u) / log(1 - p)), at least 1.
  return fill(this, () =>
    uniforms(this, a.generator)
      .neg()
      .log1p()
      .div(Math.log1p(-p))
      .ceil()
      .clamp_min(1),
  );
};

/** The largest integer `random_()` draws for a dtype with no bound given (PyTorch's rule). */
const RANDOM_TOP: Partial<Record<DType, number>> = {
  float32: 2 ** 24,
  float16: 2 ** 11,
  bfloat16: 2 ** 8,
  int32: 2 ** 31 - 1,
  uint8: 2 ** 8 - 1,
  bool: 1,
};

proto.random_ = function (this: Tensor): Tensor {
  const a = methodArgs("random_", this, arguments);
  let lo = Number(a.from);
  let hi: number;
  // random_(to) is PyTorch's one-number overload: [0, to).
  const positional = [...arguments].filter((v) => typeof v === "number");
  if (positional.length === 1 && (a.to === null || a.to === undefined)) {
    hi = lo;
    lo = 0;
  } else if (a.to === null || a.to === undefined) {
    const top = RANDOM_TOP[this.dtype];
    if (top === undefined)
      throw new TorchError(
        `random_() without a bound is not supported for ${scalarTypeName(this.dtype)} (its range is wider than a float32 draw covers uniformly); pass from and to`,
      );
    hi = top + 1;
  } else hi = Number(a.to);
  if (!(lo < hi))
    throw new TorchError(
      `random_ expects 'from' to be less than 'to', but got from=${lo} >= to=${hi}`,
    );
  if (hi - lo > 2 ** 24)
    throw new TorchError(
      `random_(): a range of ${hi - lo} values is wider than a float32 draw covers uniformly (2^24)`,
    );
  return fill(this, () =>
    uniforms(this, a.generator)
      .mul(hi - lo)
      .floor()
      .add(lo),
  );
};

// ---- methods ----

proto.type_as = function (this: Tensor, other: unknown): Tensor {
  const a = methodArgs("type_as", this, arguments);
  return this.to(a.other.dtype);
};
proto.nonzero = function (this: Tensor): unknown {
  const a = methodArgs("nonzero", this, arguments);
  return nonzero(this, { as_tuple: a.as_tuple } as never);
};
proto.masked_select = function (this: Tensor): unknown {
  const a = methodArgs("masked_select", this, arguments);
  return masked_select(this, a.mask);
};
