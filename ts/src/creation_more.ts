/**
 * More factories, composed from the core's `full`, `arange`, `rand` and `randn`: the `*_like`
 * family and the `Tensor.new_*` methods, `empty` (zero-filled: WebGPU buffers start zeroed, so
 * there is nothing to gain from garbage), `randint`, `bernoulli`, `normal`, `linspace`, `logspace`,
 * `eye`, `tril_indices`/`triu_indices`, the window functions and `as_tensor`.
 *
 * Random factories draw from the core's Philox generator (`manual_seed` gives the same numbers on
 * every device); they are not PyTorch's streams, so fixtures check their shapes, dtypes and
 * ranges, not their values.
 *
 * @module
 */

import { scalarTypeName } from "./dtype.js";
import {
  type CreationOptions,
  type Shape,
  type SizeArgs,
  checkHostAlloc,
  checkInts,
  parseSizeArgs,
} from "./args.js";
import { TorchError } from "./errors.js";
import { checkValues } from "./ops/value_checks.js";
import type { OptionDType, SizesOf } from "./shapes.js";
import { type DType, isFloatingPoint } from "./dtype.js";
import { scope } from "./lifetime.js";
import { get_default_device } from "./runtime.js";
import { type Scalar, Tensor, checkTensor, wrap } from "./tensor/tensor.js";
import {
  type TensorData,
  arange,
  full,
  ones,
  rand,
  randn,
  tensor,
  zeros,
} from "./ops/creation.js";
import { where } from "./ops/conditional.js";
import { pow } from "./ops/ops.js";

declare module "./tensor/tensor.js" {
  interface Tensor {
    /** Zeros of `size`, with this tensor's dtype and device unless given. */
    new_zeros(size: Shape, options?: CreationOptions): Tensor;
    /** Ones of `size`, with this tensor's dtype and device unless given. */
    new_ones(size: Shape, options?: CreationOptions): Tensor;
    /** `fill_value` in `size`, with this tensor's dtype and device unless given. */
    new_full(
      size: Shape,
      fill_value: Scalar,
      options?: CreationOptions,
    ): Tensor;
    /** `new_zeros` (webtorch's `empty` is zero-filled). */
    new_empty(size: Shape, options?: CreationOptions): Tensor;
    /** `torch.tensor(data)` with this tensor's dtype and device unless given. */
    new_tensor(data: TensorData, options?: CreationOptions): Tensor;
  }
}

/** The options of `t.new_*()` and `*_like(t)`: `t`'s dtype and device unless given. */
function like(
  t: Tensor,
  options: CreationOptions = {},
): Required<Omit<CreationOptions, "requires_grad">> {
  return {
    dtype: options.dtype ?? t.dtype,
    device: options.device ?? t.device,
  };
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;
proto.new_zeros = function (
  this: Tensor,
  size: Shape,
  options?: CreationOptions,
) {
  return zeros(size, like(this, options));
};
proto.new_ones = function (
  this: Tensor,
  size: Shape,
  options?: CreationOptions,
) {
  return ones(size, like(this, options));
};
proto.new_full = function (
  this: Tensor,
  size: Shape,
  fill_value: Scalar,
  options?: CreationOptions,
) {
  return full(size, fill_value, like(this, options));
};
proto.new_empty = proto.new_zeros;
proto.new_tensor = function (
  this: Tensor,
  data: TensorData,
  options?: CreationOptions,
) {
  return tensor(data, like(this, options));
};

/** Zeros shaped like `input` (its dtype and device unless given). */
export function zeros_like(input: Tensor, options?: CreationOptions): Tensor {
  const t = checkTensor("zeros_like", "input", input);
  return zeros(t.shape, like(t, options));
}

/** Ones shaped like `input`. */
export function ones_like(input: Tensor, options?: CreationOptions): Tensor {
  const t = checkTensor("ones_like", "input", input);
  return ones(t.shape, like(t, options));
}

/** `fill_value` shaped like `input` (`input`'s dtype unless given, as PyTorch). */
export function full_like(
  input: Tensor,
  fill_value: Scalar,
  options?: CreationOptions,
): Tensor {
  const t = checkTensor("full_like", "input", input);
  return full(t.shape, fill_value, like(t, options));
}

/** An uninitialised tensor in PyTorch; here zero-filled (see the module notes). */
export function empty<const A extends SizeArgs<CreationOptions>>(
  ...args: A
): Tensor<SizesOf<A>, OptionDType<A, "float32">>;
export function empty(...args: SizeArgs<CreationOptions>): Tensor {
  const [sizes, options] = parseSizeArgs<CreationOptions>("empty", args);
  return zeros(sizes, options);
}

/** {@link empty} shaped like `input`. */
export function empty_like(input: Tensor, options?: CreationOptions): Tensor {
  const t = checkTensor("empty_like", "input", input);
  return zeros(t.shape, like(t, options));
}

function checkFloat(fn: string, dtype: DType): void {
  if (!isFloatingPoint(dtype))
    throw new TorchError(`"${fn}" not implemented for '${dtypeTitle(dtype)}'`);
}

/** PyTorch's scalar type names in messages ("Long", "Float"). */
function dtypeTitle(dtype: DType): string {
  return scalarTypeName(dtype);
}

/** Uniform [0, 1) numbers shaped like `input` (floating point dtypes only). */
export function rand_like(input: Tensor, options?: CreationOptions): Tensor {
  const o = like(checkTensor("rand_like", "input", input), options);
  checkFloat("check_uniform_bounds", o.dtype);
  return rand(input.shape, o);
}

/** Standard normal numbers shaped like `input` (floating point dtypes only). */
export function randn_like(input: Tensor, options?: CreationOptions): Tensor {
  const o = like(checkTensor("randn_like", "input", input), options);
  checkFloat("normal_kernel_cpu", o.dtype);
  return randn(input.shape, o);
}

/**
 * Integers uniform in `[low, high)` (int64 unless `dtype`): `randint(10, [3])`,
 * `randint(-5, 5, [2, 2])`. Drawn as `floor(low + u * (high - low))` from float32 uniforms, so
 * ranges beyond 2^24 are not uniform.
 */
export function randint(
  high: number,
  size: Shape,
  options?: CreationOptions,
): Tensor;
export function randint(
  low: number,
  high: number,
  size: Shape,
  options?: CreationOptions,
): Tensor;
export function randint(...args: unknown[]): Tensor {
  const options = (
    typeof args[args.length - 1] === "object" &&
    !Array.isArray(args[args.length - 1])
      ? args.pop()
      : {}
  ) as CreationOptions;
  const [low, high] = (
    args.length === 2 ? [0, args[0]] : [args[0], args[1]]
  ) as [number, number];
  const size = args[args.length - 1] as Shape;
  checkInts("randint", "low", [low, high]);
  return drawInts(low, high, checkInts("randint", "size", Array.from(size)), {
    dtype: options.dtype ?? "int64",
    device: options.device ?? get_default_device(),
  });
}

function drawInts(
  low: number,
  high: number,
  size: number[],
  options: Required<Omit<CreationOptions, "requires_grad">>,
): Tensor {
  if (low >= high)
    throw new TorchError(
      `random_ expects 'from' to be less than 'to', but got from=${low} >= to=${high}`,
    );
  return scope(() =>
    rand(size, { device: options.device })
      .mul(high - low)
      .floor()
      .minimum(high - low - 1) // a float32 product may round up to the bound itself
      .add(low)
      .to(options.dtype),
  );
}

/** {@link randint} shaped like `input` (its dtype unless given): `randint_like(t, high)` or `(t, low, high)`. */
export function randint_like(
  input: Tensor,
  low: number,
  high?: number,
  options?: CreationOptions,
): Tensor {
  const t = checkTensor("randint_like", "input", input);
  const [lo, hi] = high === undefined ? [0, low] : [low, high];
  checkInts("randint_like", "low", [lo, hi]);
  return drawInts(lo, hi, [...t.shape], like(t, options));
}

/** 1 with probability `p` (default: the elements of `input`), else 0, in `input`'s dtype. */
export function bernoulli(input: Tensor, p?: number): Tensor {
  const t = checkTensor("bernoulli", "input", input);
  if (p !== undefined && !(p >= 0 && p <= 1))
    throw new TorchError(
      `bernoulli_ expects p to be in [0, 1], but got p=${p}`,
    );
  if (p === undefined)
    checkValues(t, 0, 1, {
      low: "Expected p_in >= 0 && p_in <= 1 to be true, but got false.",
    });
  return scope(() =>
    rand(t.shape, { device: t.device })
      .lt(p ?? t)
      .to(t.dtype),
  );
}

/**
 * Poisson draws with the rates in `input` (a float tensor; rates >= 0), of its shape and dtype.
 * Each element draws from its own Philox stream of the `manual_seed` generator, so WebGPU and
 * the CPU backend give the same numbers (not PyTorch's: its generator differs), up to rare draws
 * above rate 10 that sit on a rounding boundary (docs/dtypes.md, "Random numbers"). Knuth's method
 * below rate 10, transformed rejection (PTRS) above. A negative or NaN rate raises PyTorch's error
 * on the CPU backend and draws NaN on WebGPU (the rates are on the device).
 */
export function poisson(input: Tensor): Tensor {
  const t = checkTensor("poisson", "input", input);
  return wrap(t._raw.poisson());
}

/**
 * Normal random numbers: `normal(mean, std)` with tensors (broadcast) or numbers, and
 * `normal(mean, std, size)` with numbers.
 */
export function normal(
  mean: Tensor | number,
  std: Tensor | number,
  size?: Shape,
  options?: CreationOptions,
): Tensor {
  if (typeof std === "number" && std < 0)
    throw new TorchError(`normal expects std >= 0.0, but found std ${std}`);
  const shapes = [mean, std]
    .filter((v): v is Tensor => v instanceof Tensor)
    .map((t) => t.shape);
  const shape =
    shapes.length === 0
      ? checkInts("normal", "size", Array.from(size ?? []))
      : shapes.length === 1
        ? shapes[0]!
        : shapes[0]!.length >= shapes[1]!.length
          ? shapes[0]!
          : shapes[1]!;
  return scope(() =>
    randn(shape, options ?? {})
      .mul(std)
      .add(mean),
  );
}

/**
 * `steps` values from `start` to `end` inclusive, evenly spaced (float32 unless `dtype`). As
 * PyTorch, the first half counts up from `start` and the second down from `end`, so both ends are
 * exact.
 */
export function linspace(
  start: number,
  end: number,
  steps: number,
  options: CreationOptions = {},
): Tensor {
  const n = checkInts("linspace", "steps", [steps])[0]!;
  if (n < 0) throw new TorchError("number of steps must be non-negative");
  const dtype = options.dtype ?? "float32";
  const device = options.device ?? get_default_device();
  if (n <= 1) return full([n], start, { dtype, device });
  const step = (end - start) / (n - 1);
  return scope(() => {
    const i = arange(n, { dtype: "float32", device });
    const up = i.mul(step).add(start);
    const down = i
      .sub(n - 1)
      .mul(step)
      .add(end);
    const out = where(i.lt(Math.floor(n / 2)), up, down);
    return dtype === "float32" ? out : out.to(dtype);
  });
}

/** `base ** linspace(start, end, steps)` (base 10 by default). */
export function logspace(
  start: number,
  end: number,
  steps: number,
  base = 10,
  options: CreationOptions = {},
): Tensor {
  return scope(() => {
    const exps = linspace(start, end, steps, { device: options.device });
    const out = pow(base, exps);
    return options.dtype === undefined || options.dtype === "float32"
      ? out
      : out.to(options.dtype);
  });
}

/** The `n × m` identity (m = n by default), float32 unless `dtype`. */
export function eye(
  n: number,
  m?: number | CreationOptions,
  options: CreationOptions = {},
): Tensor {
  if (typeof m === "object") [m, options] = [undefined, m];
  const [rows, cols] = checkInts("eye", "n", [n, m ?? n]);
  if (rows! < 0)
    throw new TorchError(`n must be greater or equal to 0, got ${rows}`);
  if (cols! < 0)
    throw new TorchError(`m must be greater or equal to 0, got ${cols}`);
  const device = options.device ?? get_default_device();
  return scope(() =>
    arange(rows!, { device })
      .unsqueeze(1)
      .eq(arange(cols!, { device }))
      .to(options.dtype ?? "float32"),
  );
}

/**
 * `Σ_{r < rows} clamp(r + a, 0, cols)` in closed form: the length of the triangle's rows summed
 * without visiting them (a float: only compared against the budget when it is large).
 */
function clampedRowSum(rows: number, cols: number, a: number): number {
  if (rows === 0 || cols === 0) return 0;
  const lo = Math.min(Math.max(1 - a, 0), rows); // first row with r + a >= 1
  const hi = Math.min(Math.max(cols - a, 0), rows); // first row with r + a >= cols
  return ((hi - lo) * (lo + a + (hi - 1 + a))) / 2 + cols * (rows - hi);
}

function triIndices(
  fn: string,
  row: number,
  col: number,
  offset: number,
  lower: boolean,
  options: CreationOptions,
): Tensor {
  checkInts(fn, "row", [row, col, offset]);
  if (row < 0) throw new TorchError(`row must be non-negative, got${row}`);
  if (col < 0) throw new TorchError(`col must be non-negative, got${col}`);
  // Row r holds columns [0, clamp(r + offset + 1, 0, col)) (tril) or [clamp(r + offset, 0, col),
  // col) (triu). The count comes first, so that the table is checked against the budget before it
  // exists; the fill then visits the non-empty rows only (time proportional to the count).
  const count = lower
    ? clampedRowSum(row, col, offset + 1)
    : row * col - clampedRowSum(row, col, offset);
  checkHostAlloc(fn, 2 * count, 4 + 8);
  const n = count;
  const coords = new Int32Array(2 * n);
  let k = 0;
  const first = n === 0 ? row : lower ? Math.max(0, -offset) : 0;
  const last = lower ? row : Math.min(row, col - offset);
  for (let r = first; r < last; r++) {
    const from = lower ? 0 : Math.min(Math.max(r + offset, 0), col);
    const to = lower ? Math.min(r + offset + 1, col) : col;
    for (let c = from; c < to; c++) {
      coords[k] = r;
      coords[n + k] = c;
      k++;
    }
  }
  return scope(() =>
    tensor(coords, {
      dtype: options.dtype ?? "int64",
      device: options.device ?? get_default_device(),
    }).reshape(2, n),
  );
}

/** The `[2, N]` coordinates (row-major) of the lower triangle of a `row × col` matrix. */
export function tril_indices(
  row: number,
  col: number,
  offset = 0,
  options: CreationOptions = {},
): Tensor {
  return triIndices("tril_indices", row, col, offset, true, options);
}

/** The `[2, N]` coordinates (row-major) of the upper triangle of a `row × col` matrix. */
export function triu_indices(
  row: number,
  col: number,
  offset = 0,
  options: CreationOptions = {},
): Tensor {
  return triIndices("triu_indices", row, col, offset, false, options);
}

/** Options of the window functions. */
export interface WindowOptions extends CreationOptions {
  /** A periodic window (for spectral analysis; the default) or a symmetric one (filter design). */
  periodic?: boolean;
}

/**
 * `alpha - beta cos(2πn / N')` over `arange(N)`, N' = N (periodic) or N - 1; PyTorch's order of
 * operations, so the values round as its do.
 */
function cosineWindow(
  fn: string,
  length: number,
  options: WindowOptions,
  terms: (n: Tensor, denom: number) => Tensor,
): Tensor {
  const n = checkInts(fn, "window_length", [length])[0]!;
  if (n < 0)
    throw new TorchError(
      `${fn} requires non-negative window_length, got window_length=${n}`,
    );
  const dtype = options.dtype ?? "float32";
  checkFloat(fn, dtype);
  const device = options.device ?? get_default_device();
  if (n <= 1) return ones([n], { dtype, device });
  const denom = (options.periodic ?? true) ? n : n - 1;
  return scope(() => terms(arange(n, { dtype, device }), denom));
}

/** The Hann window: `0.5 - 0.5 cos(2πn / N')`. */
export function hann_window(
  window_length: number,
  options: WindowOptions = {},
): Tensor {
  return hamming_window(
    window_length,
    { ...options, alpha: 0.5, beta: 0.5 },
    "hann_window",
  );
}

/** The Hamming window: `alpha - beta cos(2πn / N')` (0.54 and 0.46 by default). */
export function hamming_window(
  window_length: number,
  options: WindowOptions & { alpha?: number; beta?: number } = {},
  fn = "hamming_window",
): Tensor {
  const alpha = options.alpha ?? 0.54;
  const beta = options.beta ?? 0.46;
  return cosineWindow(fn, window_length, options, (n, denom) =>
    n
      .mul((2 * Math.PI) / denom)
      .cos()
      .mul(-beta)
      .add(alpha),
  );
}

/** The Blackman window: `0.42 - 0.5 cos(2πn / N') + 0.08 cos(4πn / N')`. */
export function blackman_window(
  window_length: number,
  options: WindowOptions = {},
): Tensor {
  return cosineWindow("blackman_window", window_length, options, (n, denom) => {
    const w = n.mul(Math.PI / denom);
    return w.mul(4).cos().mul(0.08).sub(w.mul(2).cos().mul(0.5)).add(0.42);
  });
}

/** The Bartlett (triangular) window: `2n / N'` up to the middle, `2 - 2n / N'` after. */
export function bartlett_window(
  window_length: number,
  options: WindowOptions = {},
): Tensor {
  return cosineWindow("bartlett_window", window_length, options, (n, denom) => {
    const w = n.mul(2 / denom);
    // Indices past N' / 2 take the falling side.
    const falling = arange(n.shape[0]!, { device: n.device }).gt(
      Math.floor(denom / 2),
    );
    return where(falling, w.neg().add(2), w);
  });
}

/**
 * The Kaiser window: `I₀(β sqrt(1 - ((n - N'/2) / (N'/2))²)) / I₀(β)` over `arange(N)`, N' = N
 * (periodic) or N - 1; `beta` (default 12) trades main-lobe width for side-lobe level.
 */
export function kaiser_window(
  window_length: number,
  options: WindowOptions & { beta?: number } = {},
): Tensor {
  const beta = options.beta ?? 12.0;
  return cosineWindow("kaiser_window", window_length, options, (n, denom) => {
    const alpha = denom / 2;
    const r = n.sub(alpha).div(alpha);
    const w = r.mul(r).neg().add(1).sqrt().mul(beta).i0();
    return w.div(full([], beta, { dtype: n.dtype, device: n.device }).i0());
  });
}

/**
 * `data` as a tensor, sharing it when it already is one of the requested dtype and device (the
 * same object, as PyTorch returns); otherwise a converted copy as {@link tensor} makes.
 */
export function as_tensor(
  data: TensorData | Tensor,
  options: CreationOptions = {},
): Tensor {
  if (data instanceof Tensor) {
    const sameDtype =
      options.dtype === undefined || options.dtype === data.dtype;
    const sameDevice =
      options.device === undefined || options.device === data.device;
    if (sameDtype && sameDevice) return data;
    return scope(() =>
      tensor(data, {
        dtype: options.dtype ?? data.dtype,
        device: options.device ?? data.device,
      }),
    );
  }
  return tensor(data, options);
}
