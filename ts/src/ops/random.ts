/**
 * Random sampling composed from the core's `rand` and `randn`: `rand_like`, `randn_like`,
 * `randint`, `randint_like`, `bernoulli`, `normal`, and `poisson` (a core kernel).
 *
 * Random factories draw from the core's Philox generator (`manual_seed` gives the same numbers on
 * every device); they are not PyTorch's streams, so fixtures check their shapes, dtypes and
 * ranges, not their values.
 *
 * @module
 */

import {
  type CreationOptions,
  type Shape,
  checkFloat,
  checkInts,
  creationOptions,
  leaf,
  like,
} from "../args.js";
import { TorchError } from "../errors.js";
import { checkValues } from "./value_checks.js";
import { scope } from "../lifetime.js";
import { get_default_device } from "../runtime.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import { args } from "../schema/index.js";
import { rand, randn } from "./creation.js";

/** Uniform [0, 1) numbers shaped like `input` (floating point dtypes only). */
export function rand_like(input: Tensor, options?: CreationOptions): Tensor {
  const a = args("rand_like", arguments);
  const o = like(a.input, creationOptions(a));
  checkFloat("check_uniform_bounds", o.dtype);
  return rand(a.input.shape, { ...o, requires_grad: a.requires_grad });
}

/** Standard normal numbers shaped like `input` (floating point dtypes only). */
export function randn_like(input: Tensor, options?: CreationOptions): Tensor {
  const a = args("randn_like", arguments);
  const o = like(a.input, creationOptions(a));
  checkFloat("normal_kernel_cpu", o.dtype);
  return randn(a.input.shape, { ...o, requires_grad: a.requires_grad });
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
export function randint(): Tensor {
  // PyTorch's overloads (high, size) and (low, high, size), told apart by the parser.
  const a = args("randint", arguments);
  const options = creationOptions(a);
  const low = "low" in a ? a.low : 0;
  return leaf(
    drawInts(low, a.high, checkInts("randint", "size", a.size), {
      dtype: options.dtype ?? "int64",
      device: options.device ?? get_default_device(),
    }),
    options.requires_grad,
  );
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
  const a = args("randint_like", arguments);
  const [lo, hi] = a.high === null ? [0, a.low] : [a.low, a.high];
  return leaf(
    drawInts(lo, hi, [...a.input.shape], like(a.input, creationOptions(a))),
    a.requires_grad,
  );
}

/** 1 with probability `p` (default: the elements of `input`), else 0, in `input`'s dtype. */
export function bernoulli(input: Tensor, p?: number | null): Tensor {
  const a = args("bernoulli", arguments);
  const t = a.input;
  p = a.p ?? undefined;
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
  ({ input } = args("poisson", arguments));
  return wrap(input._raw.poisson());
}

/**
 * Normal random numbers: `normal(mean, std)` with tensors (broadcast) or numbers, and
 * `normal(mean, std, size)` with numbers.
 */
export function normal(
  mean: Tensor | number,
  std: Tensor | number,
  size?: Shape | null,
  options?: CreationOptions,
): Tensor {
  const a = args("normal", arguments);
  ({ mean, std } = a);
  size = a.size;
  options = creationOptions(a);
  if (typeof std === "number" && std < 0)
    throw new TorchError(`normal expects std >= 0.0, but found std ${std}`);
  const shapes = [mean, std]
    .filter((v): v is Tensor => v instanceof Tensor)
    .map((t) => t.shape);
  const shape =
    shapes.length === 0
      ? checkInts("normal", "size", size ?? [])
      : shapes.length === 1
        ? shapes[0]!
        : shapes[0]!.length >= shapes[1]!.length
          ? shapes[0]!
          : shapes[1]!;
  const out = scope(() =>
    randn(shape, { ...options, requires_grad: false })
      .mul(std)
      .add(mean),
  );
  return leaf(out, options.requires_grad);
}
