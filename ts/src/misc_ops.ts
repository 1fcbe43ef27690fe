/**
 * Smaller composites: bit shifts of integers (`x * 2^y`, `floor(x / 2^y)`), `unravel_index`,
 * `combinations`, `cov`/`corrcoef`, the in-place scatters (`scatter_`, `scatter_add_`, written back
 * with `copy_`), `masked_select_async` (its size depends on the mask, so the mask is read first),
 * and `imag` (which PyTorch refuses for real dtypes, as here).
 *
 * @module
 */

import { isFloatingPoint } from "./dtype.js";
import { checkHostAlloc, checkInts, pyTypeName } from "./args.js";
import { DTypeError, TorchError } from "./errors.js";
import { scope } from "./lifetime.js";
import { broadcast_shapes } from "./tensor/shape_ops.js";
import { tensor } from "./ops/creation.js";
import { type Scalar, Tensor, checkTensor } from "./tensor/tensor.js";
import { binary } from "./ops/op_rows.js";

declare module "./tensor/tensor.js" {
  interface Tensor {
    /** {@link Tensor.scatter} in place (returns this tensor). */
    scatter_(dim: number, index: Tensor, src: Tensor | number | boolean): this;
    /** {@link Tensor.scatter_add} in place (returns this tensor). */
    scatter_add_(dim: number, index: Tensor, src: Tensor): this;
    /** `this << other` for integer tensors (`this * 2 ** other`). */
    bitwise_left_shift(other: Tensor | Scalar): Tensor;
    /** `this >> other` for integer tensors (arithmetic: `floor(this / 2 ** other)`). */
    bitwise_right_shift(other: Tensor | Scalar): Tensor;
  }
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

function writeBack(target: Tensor, result: Tensor): Tensor {
  try {
    target.copy_(result);
  } finally {
    result.dispose();
  }
  return target;
}

proto.scatter_ = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor | number,
) {
  return writeBack(this, this.scatter(dim, index, src));
};
proto.scatter_add_ = function (
  this: Tensor,
  dim: number,
  index: Tensor,
  src: Tensor,
) {
  return writeBack(this, this.scatter_add(dim, index, src));
};

function shift(left: boolean, input: Tensor, other: Tensor | Scalar): Tensor {
  const kinds = [input, other].map((v) =>
    v instanceof Tensor ? v.dtype : "int64",
  );
  const bad = kinds.find((k) => isFloatingPoint(k) || k === "bool");
  if (
    bad !== undefined ||
    (typeof other === "number" && !Number.isInteger(other))
  )
    throw new DTypeError(
      `"${left ? "lshift" : "rshift"}_cpu" not implemented for '${bad === "bool" ? "Bool" : "Float"}'`,
    );
  return scope(() => {
    const factor = binary("pow", 2, other);
    return left ? input.mul(factor) : binary("floor_divide", input, factor);
  });
}
proto.bitwise_left_shift = function (this: Tensor, other: Tensor | Scalar) {
  return shift(true, this, other);
};
proto.bitwise_right_shift = function (this: Tensor, other: Tensor | Scalar) {
  return shift(false, this, other);
};

/** `input << other` (integers). See {@link Tensor.bitwise_left_shift}. */
export function bitwise_left_shift(
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  return checkTensor("bitwise_left_shift", "input", input).bitwise_left_shift(
    other,
  );
}

/** `input >> other` (integers, arithmetic). See {@link Tensor.bitwise_right_shift}. */
export function bitwise_right_shift(
  input: Tensor,
  other: Tensor | Scalar,
): Tensor {
  return checkTensor("bitwise_right_shift", "input", input).bitwise_right_shift(
    other,
  );
}

/** The coordinates in `shape` of flat `indices`: one int64 tensor per dim. */
export function unravel_index(
  indices: Tensor,
  shape: number | readonly number[],
): Tensor[] {
  const idx = checkTensor("unravel_index", "indices", indices);
  if (isFloatingPoint(idx.dtype) || idx.dtype === "bool")
    throw new DTypeError(
      "expected 'indices' to be integer dtype, but got " + idx.dtype,
    );
  const dims = checkInts(
    "unravel_index",
    "shape",
    typeof shape === "number" ? [shape] : [...shape],
  );
  if (dims.some((d) => d < 0))
    throw new TorchError(
      "'shape' cannot have negative values, but got (" + dims.join(", ") + ")",
    );
  // Row-major strides of `shape`; coordinate k is floor(i / stride_k) mod size_k.
  const strides = dims.map((_, k) =>
    dims.slice(k + 1).reduce((a, b) => a * b, 1),
  );
  return scope(() =>
    dims.map((d, k) =>
      binary("floor_divide", idx, strides[k]!).remainder(d).to("int64"),
    ),
  );
}

/** The length-`r` combinations of the elements of the 1-D `input` (with repetition if asked). */
export function combinations(
  input: Tensor,
  r = 2,
  with_replacement = false,
): Tensor {
  const t = checkTensor("combinations", "input", input);
  if (t.ndim !== 1)
    throw new TorchError(
      `Expect a 1D vector, but got shape [${t.shape.join(", ")}]`,
    );
  if (typeof r !== "number" || !Number.isInteger(r))
    throw new TorchError(
      `combinations(): argument 'r' (position 2) must be int, not ${pyTypeName(r)}`,
    );
  r = checkInts("combinations", "r", [r])[0]!;
  if (r < 0) throw new TorchError(`Expect a non-negative number, but got ${r}`);
  if (r === 0) return tensor([], { dtype: t.dtype, device: t.device });
  const n = t.shape[0]!;
  // The index tuples depend on n and r alone: listed here (lexicographic, as itertools does),
  // after their count — C(n, r), or C(n + r - 1, r) with replacement — is checked against the
  // budget (an int32 table plus tensor's float64 copy), so that no n and r exhaust V8's heap.
  const m = with_replacement ? n + r - 1 : n;
  let count = r > m ? 0 : 1;
  for (let i = 0; i < Math.min(r, m - r) && count > 0; i++) {
    count = (count * (m - i)) / (i + 1);
    if (!(count * r <= Number.MAX_SAFE_INTEGER)) break;
  }
  count = Math.round(count);
  checkHostAlloc("combinations", count * r, 4 + 8);
  const table = new Int32Array(count * r);
  const acc = new Int32Array(r);
  // The first tuple, then each next one: bump the rightmost position that can still grow and
  // reset the positions after it to their smallest values.
  for (let j = 0; j < r; j++) acc[j] = with_replacement ? 0 : j;
  for (let row = 0; row < count; row++) {
    table.set(acc, row * r);
    let j = r - 1;
    while (j >= 0 && acc[j]! >= (with_replacement ? n - 1 : n - r + j)) j--;
    if (j < 0) break;
    acc[j]!++;
    for (let q = j + 1; q < r; q++)
      acc[q] = with_replacement ? acc[j]! : acc[q - 1]! + 1;
  }
  return scope(() => {
    const index = tensor(table, { dtype: "int64", device: t.device });
    const picked = t.index_select(0, index);
    return r === 1 ? picked : picked.reshape(count, r);
  });
}

/**
 * The covariance matrix of the variables in the rows of `input` (observations in the columns),
 * divided by `N - correction`.
 */
export function cov(
  input: Tensor,
  options: { correction?: number } = {},
): Tensor {
  const t = checkTensor("cov", "input", input);
  if (t.ndim > 2)
    throw new TorchError(
      `cov(): expected input to have two or fewer dimensions but got an input with ${t.ndim} dimensions`,
    );
  const correction = options.correction ?? 1;
  return scope(() => {
    const x = t.ndim < 2 ? t.reshape(1, -1) : t;
    const n = x.shape[1]!;
    const centered = x.sub(x.mean(1, true));
    const c = centered.matmul(centered.t()).div(Math.max(n - correction, 0));
    return t.ndim < 2 ? c.reshape([]) : c;
  });
}

/** Pearson correlation coefficients of the rows of `input`, clamped to [-1, 1]. */
export function corrcoef(input: Tensor): Tensor {
  const t = checkTensor("corrcoef", "input", input);
  return scope(() => {
    const c = cov(t);
    if (c.ndim === 0) return c.div(c);
    const sd = c.diagonal().sqrt();
    return c.div(sd.unsqueeze(1)).div(sd).maximum(-1).minimum(1);
  });
}

/**
 * The elements of `input` where `mask` (broadcast together) is true, as a 1-D tensor. The result's
 * length depends on the mask's values, so the mask is read back first (hence async; PyTorch's
 * `masked_select` blocks on the device the same way).
 */
export async function masked_select_async(
  input: Tensor,
  mask: Tensor,
): Promise<Tensor> {
  const t = checkTensor("masked_select", "input", input);
  const m = checkTensor("masked_select", "mask", mask);
  if (m.dtype !== "bool")
    throw new DTypeError(`masked_select: expected BoolTensor for mask`);
  const shape = broadcast_shapes(t.shape, m.shape);
  const flatMask = scope(() => m.expand(shape).reshape(-1).contiguous());
  let values: ArrayLike<number>;
  try {
    values = await flatMask.toArray();
  } finally {
    flatMask.dispose();
  }
  const picked: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i]) picked.push(i);
  return scope(() =>
    t
      .expand(shape)
      .reshape(-1)
      .index_select(0, tensor(picked, { dtype: "int64", device: t.device })),
  );
}

/** The imaginary part: refused for real dtypes, as PyTorch does (webtorch has no complex ones). */
export function imag(input: Tensor): Tensor {
  checkTensor("imag", "input", input);
  throw new TorchError(
    "imag is not implemented for tensors with non-complex dtypes.",
  );
}

/** Accepts only float32 tensor types (`"torch.FloatTensor"` or `"float32"`); others throw. */
export function set_default_tensor_type(t: string): void {
  if (t !== "torch.FloatTensor" && t !== "float32")
    throw new DTypeError(
      "only floating-point types are supported as the default type",
    );
}
