/**
 * Joining and repeating, composed from `cat`, views and `expand` + `reshape`: `hstack`,
 * `vstack`/`row_stack`, `dstack`, `column_stack`, `repeat`, `tile`, `repeat_interleave` (integer
 * repeats), `block_diag`, `cartesian_prod` and `combinations`. Each differentiates through the
 * ops it is made of.
 *
 * @module
 */

import {
  type Shape,
  checkHostAlloc,
  checkInts,
  pyTypeName,
  sizeList,
} from "../args.js";
import { args } from "../schema/index.js";
import { DTypeError, ShapeError, TorchError } from "../errors.js";
import { cat } from "./indexing.js";
import { scope } from "../lifetime.js";
import { atleast_1d, atleast_2d, atleast_3d } from "../tensor/shape_ops.js";
import { Tensor } from "../tensor/tensor.js";
import { tensor, zeros } from "./creation.js";

function list(fn: string, tensors: readonly Tensor[]): Tensor[] {
  if (!Array.isArray(tensors))
    throw new TorchError(
      `${fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not ${pyTypeName(tensors)}`,
    );
  if (tensors.length === 0)
    throw new TorchError(`${fn} expects a non-empty TensorList`);
  tensors.forEach((t, i) => {
    if (!(t instanceof Tensor))
      throw new TorchError(
        `expected Tensor as element ${i} in argument 0, but got ${pyTypeName(t)}`,
      );
  });
  return tensors;
}

/** Joins along dim 1 (dim 0 when the tensors are 1-D); 0-D tensors count as 1-D. */
export function hstack(tensors: readonly Tensor[]): Tensor {
  const ts = list("hstack", args("hstack", arguments).tensors as Tensor[]);
  return scope(() => {
    const ls = atleast_1d(ts);
    return cat(ls, ls[0]!.ndim === 1 ? 0 : 1);
  });
}

/** Joins along dim 0 after making every tensor at least 2-D (`[n]` → `[1, n]`). */
export function vstack(tensors: readonly Tensor[]): Tensor {
  const ts = list("vstack", args("vstack", arguments).tensors as Tensor[]);
  return scope(() => cat(atleast_2d(ts), 0));
}

/** Alias of {@link vstack}. */
export function row_stack(tensors: readonly Tensor[]): Tensor {
  ({ tensors } = args("row_stack", arguments) as { tensors: Tensor[] });
  return vstack(tensors);
}

/** Joins along dim 2 after making every tensor at least 3-D. */
export function dstack(tensors: readonly Tensor[]): Tensor {
  const ts = list("dstack", args("dstack", arguments).tensors as Tensor[]);
  return scope(() => cat(atleast_3d(ts), 2));
}

/** Joins along dim 1, 0-D and 1-D tensors (n elements) taken as columns `[n, 1]`. */
export function column_stack(tensors: readonly Tensor[]): Tensor {
  const ts = list(
    "column_stack",
    args("column_stack", arguments).tensors as Tensor[],
  );
  return scope(() =>
    cat(
      ts.map((t) => (t.ndim <= 1 ? t.reshape(t.numel(), 1) : t)),
      1,
    ),
  );
}

/** `input.repeat_interleave(repeats, dim)`. See {@link Tensor.repeat_interleave}. */
export function repeat_interleave(
  input: Tensor,
  repeats: number,
  dim?: number | null,
): Tensor;
/**
 * With a tensor of `repeats` (0-D, or 1-D with one entry per element along `dim`), or with
 * `repeats` alone (`torch.repeat_interleave(repeats)`: each index `i` repeated `repeats[i]`
 * times), the length depends on the values, which are read back first: a `Promise`.
 */
export function repeat_interleave(
  input: Tensor,
  repeats?: Tensor | null,
  dim?: number | null,
): Promise<Tensor>;
export function repeat_interleave(
  input: Tensor,
  repeats?: number | Tensor | null,
  dim?: number | null,
): Tensor | Promise<Tensor> {
  const a = args("repeat_interleave", arguments);
  return a.input.repeat_interleave(a.repeats as never, a.dim);
}

/** `input.tile(dims)`. See {@link Tensor.tile}. */
export function tile(input: Tensor, dims: Shape): Tensor {
  const a = args("tile", arguments);
  return a.input.tile(sizeList("tile", a.dims, "dims"));
}

/**
 * The block-diagonal matrix of `tensors` (each 0-D, 1-D as a row, or 2-D), zeros elsewhere; the
 * dtype is the tensors' promoted dtype.
 */
export function block_diag(...tensors: Tensor[]): Tensor {
  tensors = args("block_diag", arguments).tensors;
  return scope(() => {
    const mats = tensors.map((t, i) => {
      if (t.ndim > 2)
        throw new TorchError(
          `torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ${i} has ${t.ndim} dimensions`,
        );
      return t.ndim === 2 ? t : t.reshape(1, -1);
    });
    const cols = mats.reduce((a, m) => a + m.shape[1]!, 0);
    if (mats.length === 0) return zeros(1, 0);
    let left = 0;
    const rows = mats.map((m) => {
      const parts: Tensor[] = [];
      const [r, c] = m.shape as [number, number];
      if (left > 0)
        parts.push(zeros([r, left], { dtype: m.dtype, device: m.device }));
      parts.push(m);
      const right = cols - left - c;
      if (right > 0)
        parts.push(zeros([r, right], { dtype: m.dtype, device: m.device }));
      left += c;
      return cat(parts, 1);
    });
    return cat(rows, 0);
  });
}

/** The Cartesian product of 1-D tensors: `[N1 * N2 * …, k]` rows (1-D for one tensor). */
export function cartesian_prod(...tensors: Tensor[]): Tensor {
  tensors = args("cartesian_prod", arguments).tensors;
  tensors.forEach((t) => {
    if (t.ndim !== 1)
      throw new TorchError(
        `Expect a 1D vector, but got shape [${t.shape.join(", ")}]`,
      );
  });
  if (tensors.length === 1) return tensors[0]!.clone();
  if (tensors.some((t) => t.dtype !== tensors[0]!.dtype))
    throw new DTypeError("meshgrid expects all tensors to have the same dtype");
  const sizes = tensors.map((t) => t.shape[0]!);
  return scope(() => {
    // meshgrid ("ij") of the inputs, each flattened into one column.
    const cols = tensors.map((t, i) =>
      t
        .reshape(sizes.map((s, j) => (j === i ? s : 1)))
        .expand(sizes)
        .reshape(-1, 1),
    );
    return cat(cols, 1);
  });
}

/** `meshgrid` of 1-D tensors: `indexing` `"ij"` (matrix, the default) or `"xy"` (Cartesian). */
export function meshgrid(
  tensors: readonly Tensor[],
  options?: { indexing?: "ij" | "xy" },
): Tensor[] {
  const a = args("meshgrid", arguments);
  const ts = (
    a.tensors.length === 1 && Array.isArray(a.tensors[0])
      ? a.tensors[0]
      : a.tensors
  ) as Tensor[];
  ts.forEach((t) => {
    if (t.ndim > 1)
      throw new TorchError(
        `torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: tensor of shape [${t.shape.join(", ")}]`,
      );
  });
  if (ts.some((t) => t.dtype !== ts[0]!.dtype))
    throw new DTypeError("meshgrid expects all tensors to have the same dtype");
  if (ts.some((t) => t.device !== ts[0]!.device))
    throw new TorchError(
      "meshgrid expects all tensors to have the same device",
    );
  const xy = (a.indexing ?? "ij") === "xy" && ts.length >= 2;
  const order = ts.map((_, i) => i);
  if (xy) [order[0], order[1]] = [order[1]!, order[0]!];
  const sizes = order.map((i) => ts[i]!.numel());
  return scope(() =>
    ts.map((t, i) => {
      const pos = order.indexOf(i);
      return t.reshape(sizes.map((s, j) => (j === pos ? s : 1))).expand(sizes);
    }),
  );
}

/** The length-`r` combinations of the elements of the 1-D `input` (with repetition if asked). */
export function combinations(
  input: Tensor,
  r?: number,
  with_replacement?: boolean,
): Tensor {
  ({ input, r, with_replacement } = args("combinations", arguments));
  const t = input;
  if (t.ndim !== 1)
    throw new ShapeError(
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
    return picked.reshape(count, r);
  });
}
