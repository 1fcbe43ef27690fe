/**
 * Linear algebra composed from `matmul`, views, broadcasting and reductions: `mm`, `bmm`, `mv`,
 * `dot`/`vdot`/`inner`/`outer`/`ger`, the `add*` fused forms (`addmm`, `addmv`, `addr`,
 * `baddbmm`, `addbmm`: `beta * input + alpha * product`), `kron`, `tensordot`, `chain_matmul`,
 * `trace`, `diag`/`diagflat`/`diag_embed`, `cross`, `cdist`, `dist` and `adjoint`. The checks
 * that PyTorch makes before its kernels run are made here, with its messages; the math is the
 * core's (matmul runs the tiled kernel, so these are as fast as `matmul`).
 *
 * @module
 */

import { isFloatingPoint } from "../dtype.js";
import { type Shape, checkInts } from "../args.js";
import { DTypeError, ShapeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { Tensor, checkTensor, wrapDim } from "../tensor/tensor.js";
import { args } from "../schema/index.js";

/** `beta` and `alpha` of the `add*` forms: `beta * input + alpha * product`. */
export interface BetaAlpha {
  /** Multiplier of `input` (0: `input` is ignored, NaN included). Default 1. */
  beta?: number;
  /** Multiplier of the product. Default 1. */
  alpha?: number;
}

import { title, betaAlpha } from "../tensor/methods/linalg.js";

/** `input.mm(mat2)`. */
export function mm(input: Tensor, mat2: Tensor): Tensor {
  if (
    arguments.length === 2 &&
    input instanceof Tensor &&
    mat2 instanceof Tensor
  )
    return input.mm(mat2);
  const a = args("mm", arguments);
  return a.input.mm(a.mat2);
}
/** `input.bmm(mat2)`. */
export function bmm(input: Tensor, mat2: Tensor): Tensor {
  if (
    arguments.length === 2 &&
    input instanceof Tensor &&
    mat2 instanceof Tensor
  )
    return input.bmm(mat2);
  const a = args("bmm", arguments);
  return a.input.bmm(a.mat2);
}
/** `input.mv(vec)`. */
export function mv(input: Tensor, vec: Tensor): Tensor {
  const a = args("mv", arguments);
  return a.input.mv(a.vec);
}
/** `input.dot(tensor)`. */
export function dot(input: Tensor, tensor: Tensor): Tensor {
  const a = args("dot", arguments);
  return a.input.dot(a.tensor);
}
/** `input.vdot(other)`. */
export function vdot(input: Tensor, other: Tensor): Tensor {
  const a = args("vdot", arguments);
  return a.input.vdot(a.other);
}
/** `input.inner(other)`. */
export function inner(input: Tensor, other: Tensor): Tensor {
  const a = args("inner", arguments);
  return a.input.inner(a.other);
}
/** `input.outer(vec2)`. */
export function outer(input: Tensor, vec2: Tensor): Tensor {
  const a = args("outer", arguments);
  return a.input.outer(a.vec2);
}
/** Alias of {@link outer}. */
export const ger = outer;
/** `input.kron(other)`. */
export function kron(input: Tensor, other: Tensor): Tensor {
  const a = args("kron", arguments);
  return a.input.kron(a.other);
}
/** `beta * input + alpha * (mat1 @ mat2)`. */
export function addmm(
  input: Tensor,
  mat1: Tensor,
  mat2: Tensor,
  options?: BetaAlpha,
): Tensor {
  const a = args("addmm", arguments);
  return a.input.addmm(a.mat1, a.mat2, betaAlpha(a));
}
/** `beta * input + alpha * (mat @ vec)`. */
export function addmv(
  input: Tensor,
  mat: Tensor,
  vec: Tensor,
  options?: BetaAlpha,
): Tensor {
  const a = args("addmv", arguments);
  return a.input.addmv(a.mat, a.vec, betaAlpha(a));
}
/** `beta * input + alpha * outer(vec1, vec2)`. */
export function addr(
  input: Tensor,
  vec1: Tensor,
  vec2: Tensor,
  options?: BetaAlpha,
): Tensor {
  const a = args("addr", arguments);
  return a.input.addr(a.vec1, a.vec2, betaAlpha(a));
}
/** `beta * input + alpha * bmm(batch1, batch2)`. */
export function baddbmm(
  input: Tensor,
  batch1: Tensor,
  batch2: Tensor,
  options?: BetaAlpha,
): Tensor {
  const a = args("baddbmm", arguments);
  return a.input.baddbmm(a.batch1, a.batch2, betaAlpha(a));
}
/** `beta * input + alpha * sum over the batch of bmm(batch1, batch2)`. */
export function addbmm(
  input: Tensor,
  batch1: Tensor,
  batch2: Tensor,
  options?: BetaAlpha,
): Tensor {
  const a = args("addbmm", arguments);
  return a.input.addbmm(a.batch1, a.batch2, betaAlpha(a));
}

/** The sum of the main diagonal of a matrix. */
export function trace(input: Tensor): Tensor {
  return args("trace", arguments).input.trace();
}
/** `input.diag(diagonal)`. See {@link Tensor.diag}. */
export function diag(input: Tensor, diagonal?: number): Tensor {
  const a = args("diag", arguments);
  return a.input.diag(a.diagonal);
}
/** `input.diagflat(offset)`. */
export function diagflat(input: Tensor, offset?: number): Tensor {
  const a = args("diagflat", arguments);
  return a.input.diagflat(a.offset);
}
/** `input.diag_embed(offset, dim1, dim2)`. */
export function diag_embed(
  input: Tensor,
  offset?: number,
  dim1?: number,
  dim2?: number,
): Tensor {
  const a = args("diag_embed", arguments);
  return a.input.diag_embed(a.offset, a.dim1, a.dim2);
}
/** `input.cross(other, dim)`. */
export function cross(
  input: Tensor,
  other: Tensor,
  dim?: number | null,
): Tensor {
  const a = args("cross", arguments);
  return a.input.cross(a.other, a.dim);
}
/** The p-norm (default 2) of `input - other`. */
export function dist(input: Tensor, other: Tensor, p?: number): Tensor {
  const a = args("dist", arguments);
  return a.input.dist(a.other, a.p as number);
}
/** `input.adjoint()`: the last two dims swapped (a view). */
export function adjoint(input: Tensor): Tensor {
  return args("adjoint", arguments).input.adjoint();
}

/** The product of the matrices, left to right (`torch.linalg.multi_dot` without reordering). */
export function chain_matmul(...matrices: Tensor[]): Tensor {
  matrices = args("chain_matmul", arguments).matrices;
  if (matrices.length === 0)
    throw new TorchError("chain_matmul(): Expected one or more matrices");
  matrices.forEach((m, i) => {
    checkTensor("chain_matmul", `matrices[${i}]`, m);
    if (m.ndim !== 2)
      throw new ShapeError(
        `Tensor dimension is ${m.ndim}, expected 2 instead.`,
      );
  });
  if (matrices.length === 1) return matrices[0]!.clone();
  for (let i = 0; i + 1 < matrices.length; i++) {
    const [m, n] = [matrices[i]!, matrices[i + 1]!];
    if (m.shape[1] !== n.shape[0])
      throw new ShapeError(
        `multi_dot(): tensors ${i} and ${i + 1} with shapes [${m.shape.join(", ")}] and [${n.shape.join(", ")}] cannot be multiplied`,
      );
  }
  return scope(() =>
    matrices.slice(1).reduce((acc, m) => acc.mm(m), matrices[0]!),
  );
}

/**
 * Sums the products of `a` and `b` over `dims`: an integer (the last `dims` dims of `a` with the
 * first of `b`) or two lists of dims `[dims_a, dims_b]`.
 */
export function tensordot(
  a: Tensor,
  b: Tensor,
  dims?: number | [Shape, Shape],
): Tensor {
  const parsed = args("tensordot", arguments);
  ({ a, b } = parsed);
  dims = parsed.dims as number | [Shape, Shape];
  if (
    !Number.isInteger(dims) &&
    !(
      Array.isArray(dims) &&
      dims.length === 2 &&
      dims.every((d) => Array.isArray(d))
    )
  )
    throw new TorchError(
      `tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two lists, but got dims=${JSON.stringify(dims)}`,
    );
  let da: number[];
  let db: number[];
  if (typeof dims === "number") {
    if (dims < 0)
      throw new TorchError(`tensordot expects dims >= 0, but got dims=${dims}`);
    if (dims > a.ndim || dims > b.ndim)
      throw new TorchError(
        `tensordot expects dims < ndim_a or ndim_b, but got dims=${dims}`,
      );
    da = Array.from({ length: dims }, (_, i) => a.ndim - dims + i);
    db = Array.from({ length: dims }, (_, i) => i);
  } else {
    da = checkInts("tensordot", "dims", Array.from(dims[0])).map((d) =>
      wrapDim(d, a.ndim),
    );
    db = checkInts("tensordot", "dims", Array.from(dims[1])).map((d) =>
      wrapDim(d, b.ndim),
    );
    if (da.length !== db.length)
      throw new TorchError("both dimension lists should have same length");
  }
  // The message names the dims as given: an integer `dims` stands for the dims -dims … -1 of `a`.
  const given = typeof dims === "number" ? da.map((d) => d - a.ndim) : dims[0];
  const givenB = typeof dims === "number" ? db : dims[1];
  da.forEach((d, i) => {
    if (a.shape[d] !== b.shape[db[i]!])
      throw new ShapeError(
        `contracted dimensions need to match, but first has size ${a.shape[d]} in dim ${given[i]} and second has size ${b.shape[db[i]!]} in dim ${givenB[i]}`,
      );
  });
  const freeA = a.shape.map((_, i) => i).filter((i) => !da.includes(i));
  const freeB = b.shape.map((_, i) => i).filter((i) => !db.includes(i));
  const k = da.reduce((p, d) => p * a.shape[d]!, 1);
  return scope(() =>
    a
      .permute([...freeA, ...da])
      .reshape(
        freeA.reduce((p, d) => p * a.shape[d]!, 1),
        k,
      )
      .matmul(
        b.permute([...db, ...freeB]).reshape(
          k,
          freeB.reduce((p, d) => p * b.shape[d]!, 1),
        ),
      )
      .reshape([
        ...freeA.map((d) => a.shape[d]!),
        ...freeB.map((d) => b.shape[d]!),
      ]),
  );
}

/**
 * The p-norm distance between each row of `x1` (`[…, P, M]`) and each row of `x2` (`[…, R, M]`):
 * `[…, P, R]`. Differences are taken directly (PyTorch's exact path; no matmul expansion).
 */
export function cdist(x1: Tensor, x2: Tensor, p?: number): Tensor {
  ({ x1, x2, p } = args("cdist", arguments));
  if (x1.ndim < 2)
    throw new ShapeError(
      `cdist only supports at least 2D tensors, X1 got: ${x1.ndim}D`,
    );
  if (x2.ndim < 2)
    throw new ShapeError(
      `cdist only supports at least 2D tensors, X2 got: ${x2.ndim}D`,
    );
  const c1 = x1.shape[x1.ndim - 1];
  const c2 = x2.shape[x2.ndim - 1];
  if (c1 !== c2)
    throw new ShapeError(
      `X1 and X2 must have the same number of columns. X1: ${c1} X2: ${c2}`,
    );
  if (p < 0) throw new TorchError(`cdist only supports non-negative p values`);
  for (const [t, n] of [
    [x1, "X1"],
    [x2, "X2"],
  ] as const)
    if (!isFloatingPoint(t.dtype))
      throw new DTypeError(
        `cdist only supports floating-point dtypes, ${n} got: ${title(t)}`,
      );
  return scope(() => x1.unsqueeze(-2).sub(x2.unsqueeze(-3)).norm(p, -1));
}
