/**
 * The `Tensor` methods of the ops in ops/pointwise.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/pointwise.ts.
 *
 * @module
 */

import { methodArgs } from "../../schema/index.js";
import { cTypeName, isFloatingPoint, scalarTypeName } from "../../dtype.js";
import { checkInts } from "../../args.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scope } from "../../lifetime.js";
import { defaultFloat } from "../../defaults.js";
import { arange } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { inferSize } from "../../ops/broadcast.js";
import { cat } from "../../ops/indexing.js";
import { Tensor, checkTensor, wrap, wrapDim } from "../tensor.js";
import {
  type Bound,
  type ValueOptions,
  type NanToNumOptions,
} from "../../ops/pointwise.js";

declare module "../tensor.js" {
  interface Tensor {
    /** Elementwise `min(max(x, min), max)`; either bound may be absent, a number or a tensor. */
    clamp(min?: Bound, max?: Bound): Tensor;
    /** Alias of {@link Tensor.clamp}. */
    clip(min?: Bound, max?: Bound): Tensor;
    /** `clamp(min, null)`. */
    clamp_min(min: number | Tensor): Tensor;
    /** `clamp(null, max)`. */
    clamp_max(max: number | Tensor): Tensor;
    /** `this + weight * (end - this)` (PyTorch's two-sided formula for accuracy near 1). */
    lerp(end: Tensor, weight: number | Tensor): Tensor;
    /** `this + value * tensor1 * tensor2`. */
    addcmul(tensor1: Tensor, tensor2: Tensor, options?: ValueOptions): Tensor;
    /** `this + value * tensor1 / tensor2`. */
    addcdiv(tensor1: Tensor, tensor2: Tensor, options?: ValueOptions): Tensor;
    /** NaN, +∞ and -∞ replaced by finite values. */
    nan_to_num(
      nan?: number,
      posinf?: number | null,
      neginf?: number | null,
    ): Tensor;
    nan_to_num(options: NanToNumOptions): Tensor;
    /** Reversed along each of `dims` (a copy). */
    flip(...dims: number[]): Tensor;
    flip(dims: readonly number[]): Tensor;
    /** Reversed along dim 1. */
    fliplr(): Tensor;
    /** Reversed along dim 0. */
    flipud(): Tensor;
    /** Elements shifted along `dims` with wrap-around (flattened when `dims` is absent). */
    roll(
      shifts: number | readonly number[],
      dims?: number | readonly number[],
    ): Tensor;
    /** Rotated by 90° `k` times in the plane of `dims` (default [0, 1]), from the first toward the second. */
    rot90(k?: number, dims?: readonly number[]): Tensor;
    /** The lower triangle of the last two dims (on and below diagonal `diagonal`), zeros elsewhere. */
    tril(diagonal?: number): Tensor;
    /** The upper triangle of the last two dims (on and above diagonal `diagonal`), zeros elsewhere. */
    triu(diagonal?: number): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

function isBound(b: Bound): b is number | Tensor {
  return b !== null && b !== undefined;
}

function clampImpl(this: Tensor, min?: Bound, max?: Bound): Tensor {
  ({ min, max } = methodArgs("clamp", this, arguments));
  return clamped(this, min, max);
}

/** `min(max(x, min), max)` with either bound absent; PyTorch's errors for none and for bool. */
export function clamped(x: Tensor, min: Bound, max: Bound): Tensor {
  if (!isBound(min) && !isBound(max))
    throw new TorchError(
      "torch.clamp: At least one of 'min' or 'max' must not be None",
    );
  if (x.dtype === "bool") {
    // PyTorch clamps in the promoted dtype: int64 for integer bounds, the default float dtype
    // when one is fractional (a bool result has no kernel).
    const numbers = [min, max].filter(isBound);
    if (numbers.every((b) => typeof b === "number")) {
      const float = numbers.some((b) => !Number.isInteger(b));
      return scope(() =>
        clamped(x.to(float ? defaultFloat() : "int64"), min, max),
      );
    }
    throw new TorchError(`"clamp_cpu" not implemented for 'Bool'`);
  }
  if (min instanceof Tensor && max instanceof Tensor)
    return clampTensors(x, min, max);
  // PyTorch compares a uint8 tensor with integer bounds as numbers (clamp(0, -2, 5) is 0), where
  // a comparison op would wrap the bound (-2 as 254): clamp in int32, then back.
  const integral = (b: Bound) => !isBound(b) || Number.isInteger(b);
  if (x.dtype === "uint8" && integral(min) && integral(max))
    return scope(() => clamped(x.to("int32"), min, max).to("uint8"));
  return scope(() => {
    let y: Tensor = x;
    // PyTorch's gradients: a tensor bound is `maximum`/`minimum` (a tie splits the gradient
    // between input and bound, a NaN passes it to both); a number bound passes it strictly inside
    // only (0 at the bound and at NaN), so the value there comes from a detached copy. Neither
    // comparison holds at a NaN element or for a NaN bound: `x + bound` is NaN there, as in
    // PyTorch (a NaN bound makes every element NaN).
    if (isBound(min))
      y =
        typeof min === "number"
          ? where(y.gt(min), y, where(y.le(min), min, y.detach().add(min)))
          : y.maximum(min);
    if (isBound(max))
      y =
        typeof max === "number"
          ? where(y.lt(max), y, where(y.ge(max), max, y.detach().add(max)))
          : y.minimum(max);
    // A bound of a wider dtype promotes the result even where it was not chosen.
    if (y === x) y = x.clone();
    return y;
  });
}

/**
 * `clamp` between two tensor bounds: the values of `minimum(maximum(x, lo), hi)`, with PyTorch's
 * gradients. Where the result is a number: to `x` strictly inside, to `lo` below it and to `hi`
 * above it (to `hi` wherever `hi < lo`), split evenly between `x` and a bound it equals when
 * `lo < hi`, all to `x` when `x = lo = hi`. Where it is NaN: to `x` unless a number bound
 * excludes it, to `hi` where `hi < lo`, and to nothing else.
 */
function clampTensors(x: Tensor, lo: Tensor, hi: Tensor): Tensor {
  return scope(() => {
    const y0 = x.maximum(lo).minimum(hi);
    if (!isFloatingPoint(y0.dtype)) return y0;
    const xNan = x.isnan();
    const ordered = lo.lt(hi);
    const inLo = x.ge(lo).logical_or(lo.isnan()).logical_or(xNan);
    const inHi = x.le(hi).logical_or(hi.isnan()).logical_or(xNan);
    const toX = inLo.logical_and(inHi);
    const toLo = x.lt(lo).logical_and(lo.le(hi));
    const toHi = hi.lt(lo).logical_or(x.gt(hi).logical_and(hi.ge(lo)));
    const tieLo = x.eq(lo).logical_and(ordered);
    const tieHi = x.eq(hi).logical_and(ordered);
    const number = where(
      tieLo,
      x.mul(0.5).add(lo.mul(0.5)),
      where(
        tieHi,
        x.mul(0.5).add(hi.mul(0.5)),
        where(toX, x, where(toLo, lo, hi)),
      ),
    );
    // NaN plus the chosen sides, each at most once: the value stays NaN, the gradients flow.
    const nan = y0
      .detach()
      .add(where(toX, x, 0))
      .add(where(toHi, hi, 0));
    return where(y0.isnan(), nan, number);
  });
}

proto.clamp = clampImpl;

proto.clip = clampImpl;

proto.clamp_min = function (this: Tensor) {
  return clamped(this, methodArgs("clamp_min", this, arguments).min, null);
};

proto.clamp_max = function (this: Tensor) {
  return clamped(this, null, methodArgs("clamp_max", this, arguments).max);
};

/**
 * PyTorch's broadcast of an op's operands in their order (its TensorIterator's), so that a
 * mismatch names the sizes as PyTorch does: `a` the shape so far, `b` the next operand's.
 */
function checkBroadcast(...shapes: (readonly number[])[]): void {
  shapes.reduce<number[]>((acc, s) => inferSize(acc, s), []);
}

proto.lerp = function (this: Tensor, end: Tensor, weight: number | Tensor) {
  checkTensor("lerp", "end", end);
  checkBroadcast(
    this.shape,
    end.shape,
    ...(weight instanceof Tensor ? [weight.shape] : []),
  );
  if (!isFloatingPoint(this.dtype))
    throw new DTypeError(
      `"lerp_kernel_scalar" not implemented for '${scalarTypeName(this.dtype)}'`,
    );
  if (end.dtype !== this.dtype)
    throw new DTypeError(
      `expected dtype ${cTypeName(this.dtype)} for \`end\` but got dtype ${cTypeName(end.dtype)}`,
    );
  return scope(() => {
    const diff = end.sub(this);
    // weight < 0.5: start + w·(end - start); else end - (end - start)·(1 - w), as PyTorch.
    if (typeof weight === "number") {
      return weight < 0.5
        ? this.add(diff.mul(weight))
        : end.sub(diff.mul(1 - weight));
    }
    const w = checkTensor("lerp", "weight", weight);
    if (w.dtype !== this.dtype)
      throw new DTypeError(
        `expected dtype ${cTypeName(this.dtype)} for \`weight\` but got dtype ${cTypeName(w.dtype)}`,
      );
    const low = this.add(diff.mul(w));
    const high = end.sub(diff.mul(w.neg().add(1)));
    return where(w.abs().lt(0.5), low, high);
  });
};

proto.addcmul = function (
  this: Tensor,
  t1: Tensor,
  t2: Tensor,
  options: ValueOptions = {},
) {
  const a = checkTensor("addcmul", "tensor1", t1);
  const b = checkTensor("addcmul", "tensor2", t2);
  checkBroadcast(this.shape, a.shape, b.shape);
  const value = options.value ?? 1;
  // PyTorch's order: self + (value * tensor1) * tensor2.
  return scope(() => this.add((value === 1 ? a : a.mul(value)).mul(b)));
};

proto.addcdiv = function (
  this: Tensor,
  t1: Tensor,
  t2: Tensor,
  options: ValueOptions = {},
) {
  const a = checkTensor("addcdiv", "tensor1", t1);
  const b = checkTensor("addcdiv", "tensor2", t2);
  checkBroadcast(this.shape, a.shape, b.shape);
  // PyTorch's message word for word (its double space included).
  if (!isFloatingPoint(a.dtype) && !isFloatingPoint(b.dtype))
    throw new DTypeError(
      "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.",
    );
  const value = options.value ?? 1;
  return scope(() => {
    const q = a.div(b);
    return this.add(value === 1 ? q : q.mul(value));
  });
};

const F32_MAX = 3.4028234663852886e38;

proto.nan_to_num = function (
  this: Tensor,
  a?: number | NanToNumOptions,
  posinf?: number | null,
  neginf?: number | null,
) {
  const o: NanToNumOptions =
    typeof a === "object" && a !== null ? a : { nan: a, posinf, neginf };
  if (!isFloatingPoint(this.dtype)) return this.clone();
  return scope(() => {
    let y = where(this.isnan(), o.nan ?? 0, this);
    y = where(y.isposinf(), o.posinf ?? F32_MAX, y);
    y = where(y.isneginf(), o.neginf ?? -F32_MAX, y);
    return y;
  });
};

function dimsArg(fn: string, args: unknown[]): number[] {
  const list =
    args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  return checkInts(fn, "dims", list);
}

/** `t` reversed along dim `d` (wrapped): one gather by host-made positions, unchecked. */
function flipDim(t: Tensor, d: number): Tensor {
  return wrap(t._raw.flip(d));
}

proto.flip = function (this: Tensor, ...args: unknown[]) {
  const dims = dimsArg("flip", args).map((d) =>
    wrapDim(d, Math.max(this.ndim, 1)),
  );
  const seen = new Set<number>();
  for (const d of dims) {
    if (seen.has(d))
      throw new TorchError(
        `dim ${d} appears multiple times in the list of dims`,
      );
    seen.add(d);
  }
  if (this.ndim === 0) return this.clone();
  return scope(() => {
    let y: Tensor = this;
    for (const d of dims) y = flipDim(y, d);
    return y === this ? this.clone() : y;
  });
};

proto.fliplr = function (this: Tensor) {
  if (this.ndim < 2) throw new TorchError("Input must be >= 2-d.");
  return this.flip(1);
};

proto.flipud = function (this: Tensor) {
  if (this.ndim < 1) throw new TorchError("Input must be >= 1-d.");
  return this.flip(0);
};

/** `t` rolled by `shift` along dim `d`: the last `shift` elements move to the front. */
function rollDim(t: Tensor, shift: number, d: number): Tensor {
  const n = t.shape[d]!;
  if (n === 0) return t;
  const s = ((shift % n) + n) % n;
  if (s === 0) return t;
  return cat([t.narrow(d, n - s, s), t.narrow(d, 0, n - s)], d);
}

proto.roll = function (
  this: Tensor,
  shifts: number | readonly number[],
  dims?: number | readonly number[],
) {
  ({ shifts, dims } = methodArgs("roll", this, arguments));
  const sh = checkInts(
    "roll",
    "shifts",
    typeof shifts === "number" ? [shifts] : [...shifts],
  );
  const ds =
    dims === undefined
      ? []
      : checkInts(
          "roll",
          "dims",
          typeof dims === "number" ? [dims] : [...dims],
        );
  if (ds.length === 0) {
    if (sh.length !== 1)
      throw new TorchError(
        `shifts and dimensions must align. shifts: ${sh.length}, dims:0`,
      );
    return scope(() =>
      rollDim(this.reshape(-1), sh[0]!, 0).reshape(this.shape),
    );
  }
  if (sh.length !== ds.length)
    throw new TorchError(
      `shifts and dimensions must align. shifts: ${sh.length}, dims:${ds.length}`,
    );
  return scope(() => {
    let y: Tensor = this;
    ds.forEach((d, i) => {
      y = rollDim(y, sh[i]!, wrapDim(d, this.ndim));
    });
    return y === this ? this.clone() : y;
  });
};

proto.rot90 = function (this: Tensor, k = 1, dims: readonly number[] = [0, 1]) {
  const [kk] = checkInts("rot90", "k", [k]);
  if (dims.length !== 2)
    throw new TorchError(
      `expected total rotation dims == 2, but got dims = ${dims.length}`,
    );
  if (this.ndim < 2)
    throw new TorchError(
      `expected total dims >= 2, but got total dims = ${this.ndim}`,
    );
  const d0 = wrapDim(dims[0]!, this.ndim);
  const d1 = wrapDim(dims[1]!, this.ndim);
  if (d0 === d1)
    throw new TorchError(
      `expected rotation dims to be different, but got dim0 = ${d0} and dim1 = ${d1}`,
    );
  const r = ((kk! % 4) + 4) % 4;
  return scope(() => {
    let y: Tensor;
    if (r === 1) y = this.flip(d1).transpose(d0, d1);
    else if (r === 2) y = this.flip(d0, d1);
    else if (r === 3) y = this.flip(d0).transpose(d0, d1);
    else y = this.clone();
    return y;
  });
};

function triangle(t: Tensor, fn: "tril" | "triu", diagonal: number): Tensor {
  if (t.ndim < 2)
    throw new TorchError(`${fn}: input tensor must have at least 2 dimensions`);
  const [k] = checkInts(fn, "diagonal", [diagonal]);
  const rows = t.shape[t.ndim - 2]!;
  const cols = t.shape[t.ndim - 1]!;
  return scope(() => {
    const i = arange(rows, { dtype: "int64", device: t.device }).unsqueeze(1);
    const j = arange(cols, { dtype: "int64", device: t.device });
    // tril keeps j - i <= k; triu keeps j - i >= k.
    const d = j.sub(i);
    const keepMask = fn === "tril" ? d.le(k!) : d.ge(k!);
    return where(keepMask, t, 0).to(t.dtype);
  });
}

proto.tril = function (this: Tensor, diagonal = 0) {
  return triangle(this, "tril", diagonal);
};

proto.triu = function (this: Tensor, diagonal = 0) {
  return triangle(this, "triu", diagonal);
};
