/**
 * The `Tensor` methods of the ops in ops/linalg.ts: declared on `Tensor` and installed on its
 * prototype; the `torch.*` functions stay in ops/linalg.ts.
 *
 * @module
 */

import { cTypeName, isFloatingPoint, scalarTypeName } from "../../dtype.js";
import { promote_types } from "../../state.js";
import { checkInts } from "../../args.js";
import { DTypeError, ShapeError, TorchError } from "../../errors.js";
import { cat, stack as torchStack } from "../../ops/indexing.js";
import { scope } from "../../lifetime.js";
import { where } from "../../ops/conditional.js";
import { arange, zeros } from "../../ops/creation.js";
import { broadcast_tensors } from "../shape_ops.js";
import { Tensor, checkTensor, wrapDim } from "../tensor.js";
import { methodArgs } from "../../schema/index.js";
import type { BMM, CheckOf, Dims, MM, ShapeOf } from "../../shapes.js";
import type { DTypeT, Promote, ShapeT } from "../tensor.js";
import type { DType } from "../../dtype.js";
import { type BetaAlpha } from "../../ops/linalg.js";

declare module "../tensor.js" {
  interface Tensor {
    /** Matrix × matrix (both 2-D). */
    mm<Self extends Tensor<Dims>, O extends Dims, E extends DType>(
      this: Self,
      mat2: Tensor<O, E> & CheckOf<MM<ShapeT<Self>, O>>,
    ): Tensor<ShapeOf<MM<ShapeT<Self>, O>>, Promote<DTypeT<Self>, E>>;
    /** Batched matrix × matrix (both 3-D, the same batch size). */
    bmm<Self extends Tensor<Dims>, O extends Dims, E extends DType>(
      this: Self,
      mat2: Tensor<O, E> & CheckOf<BMM<ShapeT<Self>, O>>,
    ): Tensor<ShapeOf<BMM<ShapeT<Self>, O>>, Promote<DTypeT<Self>, E>>;
    /** Matrix × vector. */
    mv(vec: Tensor): Tensor;
    /** The dot product of two 1-D tensors of one length and dtype. */
    dot(other: Tensor): Tensor;
    /** {@link Tensor.dot} (no complex conjugation to do for real tensors). */
    vdot(other: Tensor): Tensor;
    /** Sum of products over the last dims of both tensors. */
    inner(other: Tensor): Tensor;
    /** The outer product of two 1-D tensors. */
    outer(vec2: Tensor): Tensor;
    /** Alias of {@link Tensor.outer}. */
    ger(vec2: Tensor): Tensor;
    /** `beta * this + alpha * (mat1 @ mat2)`. */
    addmm(mat1: Tensor, mat2: Tensor, options?: BetaAlpha): Tensor;
    /** `beta * this + alpha * (mat @ vec)`. */
    addmv(mat: Tensor, vec: Tensor, options?: BetaAlpha): Tensor;
    /** `beta * this + alpha * outer(vec1, vec2)`. */
    addr(vec1: Tensor, vec2: Tensor, options?: BetaAlpha): Tensor;
    /** `beta * this + alpha * bmm(batch1, batch2)`. */
    baddbmm(batch1: Tensor, batch2: Tensor, options?: BetaAlpha): Tensor;
    /** `beta * this + alpha * sum_b(batch1[b] @ batch2[b])`. */
    addbmm(batch1: Tensor, batch2: Tensor, options?: BetaAlpha): Tensor;
    /** The Kronecker product. */
    kron(other: Tensor): Tensor;
    /** The sum of the main diagonal of a 2-D tensor. */
    trace(): Tensor;
    /** 1-D: the matrix with this on diagonal `diagonal`; 2-D: that diagonal (a copy). */
    diag(diagonal?: number): Tensor;
    /** The flattened tensor on diagonal `offset` of a square matrix. */
    diagflat(offset?: number): Tensor;
    /** The last dim placed on the diagonal of new dims `dim1`, `dim2` (zeros elsewhere). */
    diag_embed(offset?: number, dim1?: number, dim2?: number): Tensor;
    /** The 3-vector cross product along `dim` (default: the first dim of size 3). */
    cross(other: Tensor, dim?: number | null): Tensor;
    /** The p-norm of `this - other`. */
    dist(other: Tensor, p?: number): Tensor;
    /** The transpose of the last two dims (a view; the conjugate transpose for real tensors). */
    adjoint(): Tensor;
  }
}

function combine(
  input: Tensor,
  product: Tensor,
  { beta = 1, alpha = 1 }: BetaAlpha,
): Tensor {
  // Integer results take beta and alpha as integers (PyTorch casts the Scalars to the dtype).
  if (!isFloatingPoint(product.dtype) && product.dtype !== "bool") {
    beta = Math.trunc(beta);
    alpha = Math.trunc(alpha);
  }
  // `input` broadcasts to the product's shape (expand's error when it cannot); beta = 0 ignores
  // its values entirely, NaN and inf included (PyTorch's rule).
  const base = input.expand(product.shape);
  const scaled = alpha === 1 ? product : product.mul(alpha);
  if (beta === 0) return scaled;
  return (beta === 1 ? base : base.mul(beta)).add(scaled);
}

/** addmm's and addbmm's dtype check of the input against the second operand. */
function sameDTypeAsMat2(input: Tensor, mat2: Tensor): void {
  if (input.dtype !== mat2.dtype)
    throw new DTypeError(
      `self and mat2 must have the same dtype, but got ${title(input)} and ${title(mat2)}`,
    );
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;

const proto = Tensor.prototype as unknown as Methods;

function requireDims(t: Tensor, n: number, message: string): void {
  if (t.ndim !== n) throw new ShapeError(message);
}

proto.mm = function (this: Tensor, mat2: Tensor) {
  const m2 = checkTensor("mm", "mat2", mat2);
  requireDims(this, 2, `mm: self must be a matrix, got ${this.ndim}-D tensor`);
  requireDims(m2, 2, `mm: mat2 must be a matrix, got ${m2.ndim}-D tensor`);
  if (this.shape[1] !== m2.shape[0])
    throw new ShapeError(
      `mm: mat1 and mat2 shapes cannot be multiplied (${this.shape.join("x")} and ${m2.shape.join("x")})`,
    );
  return this.matmul(m2);
};

proto.bmm = function (this: Tensor, mat2: Tensor) {
  const m2 = checkTensor("bmm", "mat2", mat2);
  requireDims(this, 3, "batch1 must be a 3D tensor");
  requireDims(m2, 3, "batch2 must be a 3D tensor");
  const want = [this.shape[0]!, this.shape[2]!];
  if (m2.shape[0] !== want[0] || m2.shape[1] !== want[1])
    throw new ShapeError(
      `Expected size for first two dimensions of batch2 tensor to be: [${want.join(", ")}] but got: [${m2.shape[0]}, ${m2.shape[1]}].`,
    );
  return this.matmul(m2);
};

proto.mv = function (this: Tensor, vec: Tensor) {
  const v = checkTensor("mv", "vec", vec);
  if (this.ndim !== 2 || v.ndim !== 1)
    throw new ShapeError(
      `vector + matrix @ vector expected, got 1, ${this.ndim}, ${v.ndim}`,
    );
  if (this.shape[1] !== v.shape[0])
    throw new ShapeError(
      `size mismatch, got input (${this.shape[0]}), mat (${this.shape.join("x")}), vec (${v.shape[0]})`,
    );
  return this.matmul(v);
};

proto.dot = function (this: Tensor, other: Tensor) {
  const o = checkTensor("dot", "other", other);
  if (this.ndim !== 1 || o.ndim !== 1)
    throw new ShapeError(
      `1D tensors expected, but got ${this.ndim}D and ${o.ndim}D tensors`,
    );
  if (this.dtype !== o.dtype)
    throw new DTypeError(
      `dot : expected both vectors to have same dtype, but found ${title(this)} and ${title(o)}`,
    );
  if (this.shape[0] !== o.shape[0])
    throw new ShapeError(
      `inconsistent tensor size, expected tensor [${this.shape[0]}] and src [${o.shape[0]}] to have the same number of elements, but got ${this.shape[0]} and ${o.shape[0]} elements respectively`,
    );
  return this.matmul(o);
};

proto.vdot = function (this: Tensor, other: Tensor) {
  return this.dot(other);
};

proto.inner = function (this: Tensor, other: Tensor) {
  const o = checkTensor("inner", "other", other);
  if (this.ndim === 0 || o.ndim === 0) return this.mul(o);
  const k = this.shape[this.ndim - 1]!;
  if (o.shape[o.ndim - 1] !== k)
    throw new ShapeError(
      `inner() the last dimension must match on both input tensors but got shapes [${this.shape.join(", ")}] and [${o.shape.join(", ")}]`,
    );
  return scope(() =>
    this.reshape(-1, k)
      .matmul(o.reshape(-1, k).t())
      .reshape([...this.shape.slice(0, -1), ...o.shape.slice(0, -1)]),
  );
};

proto.outer = function (this: Tensor, vec2: Tensor) {
  const v = checkTensor("outer", "vec2", vec2);
  if (this.ndim !== 1)
    throw new ShapeError(
      `outer: Expected 1-D argument self, but got ${this.ndim}-D`,
    );
  if (v.ndim !== 1)
    throw new ShapeError(
      `outer: Expected 1-D argument vec2, but got ${v.ndim}-D`,
    );
  return scope(() => this.unsqueeze(1).mul(v));
};

proto.ger = proto.outer;

proto.addmm = function (
  this: Tensor,
  mat1: Tensor,
  mat2: Tensor,
  options: BetaAlpha = {},
) {
  void options;
  const a = methodArgs("addmm", this, arguments);
  const [m1, m2] = [a.mat1 as Tensor, a.mat2 as Tensor];
  if (m1.ndim === 2 && m2.ndim === 2 && m1.shape[1] !== m2.shape[0])
    throw new ShapeError(
      `addmm: mat1 and mat2 shapes cannot be multiplied (${m1.shape.join("x")} and ${m2.shape.join("x")})`,
    );
  sameDTypeAsMat2(this, m2);
  return scope(() => combine(this, m1.mm(m2), betaAlpha(a)));
};

proto.addmv = function (
  this: Tensor,
  mat: Tensor,
  vec: Tensor,
  options: BetaAlpha = {},
) {
  void options;
  const a = methodArgs("addmv", this, arguments);
  const ts = [this, a.mat as Tensor, a.vec as Tensor];
  if (ts.some((t) => t.dtype !== this.dtype))
    throw new DTypeError(
      `addmv input tensors must have the same dtype, but got ${ts
        .map(title)
        .join(", ")
        .replace(/, ([^,]*)$/, ", and $1")}`,
    );
  return scope(() => combine(this, a.mat.mv(a.vec), betaAlpha(a)));
};

proto.addr = function (
  this: Tensor,
  vec1: Tensor,
  vec2: Tensor,
  options: BetaAlpha = {},
) {
  void options;
  const a = methodArgs("addr", this, arguments);
  const ba = betaAlpha(a);
  const result = promote_types(
    promote_types(this.dtype, (a.vec1 as Tensor).dtype),
    (a.vec2 as Tensor).dtype,
  );
  if (!isFloatingPoint(result))
    for (const k of ["beta", "alpha"] as const) {
      if (typeof a[k] === "boolean" && result !== "bool")
        throw new TorchError(
          `Boolean ${k} only supported for Boolean results.`,
        );
      if (!Number.isInteger(ba[k]))
        throw new TorchError(
          `For integral input tensors, argument ${k} must not be a floating point number.`,
        );
    }
  return scope(() => combine(this, a.vec1.outer(a.vec2), ba));
};

proto.baddbmm = function (
  this: Tensor,
  b1: Tensor,
  b2: Tensor,
  options: BetaAlpha = {},
) {
  void options;
  const a = methodArgs("baddbmm", this, arguments);
  const ts = [this, a.batch1 as Tensor, a.batch2 as Tensor];
  if (ts.some((t) => t.dtype !== this.dtype)) {
    const n = (t: Tensor) => cTypeName(t.dtype);
    throw new DTypeError(
      `Input dtypes must be the same, got: input ${n(ts[0]!)}, batch1: ${n(ts[1]!)}, batch2: ${n(ts[2]!)}`,
    );
  }
  return scope(() => combine(this, a.batch1.bmm(a.batch2), betaAlpha(a)));
};

proto.addbmm = function (
  this: Tensor,
  b1: Tensor,
  b2: Tensor,
  options: BetaAlpha = {},
) {
  void options;
  const a = methodArgs("addbmm", this, arguments);
  const [x1, x2] = [a.batch1 as Tensor, a.batch2 as Tensor];
  if (x1.ndim === 3 && x2.ndim === 3 && x1.shape[0] !== x2.shape[0])
    throw new TorchError(
      `batch1 and batch2 must have same number of batches, got ${x1.shape[0]} and ${x2.shape[0]}`,
    );
  sameDTypeAsMat2(this, x2);
  return scope(() =>
    combine(this, a.batch1.bmm(a.batch2).sum(0), betaAlpha(a)),
  );
};

proto.kron = function (this: Tensor, other: Tensor) {
  const o = checkTensor("kron", "other", other);
  const nd = Math.max(this.ndim, o.ndim);
  const a = [...new Array<number>(nd - this.ndim).fill(1), ...this.shape];
  const b = [...new Array<number>(nd - o.ndim).fill(1), ...o.shape];
  // out[i * bs + j] = a[i] * b[j]: a as [a0, 1, a1, 1, …] times b as [1, b0, 1, b1, …].
  return scope(() =>
    this.reshape(a.flatMap((s) => [s, 1]))
      .mul(o.reshape(b.flatMap((s) => [1, s])))
      .reshape(a.map((s, i) => s * b[i]!)),
  );
};

proto.trace = function (this: Tensor) {
  if (this.ndim !== 2)
    throw new ShapeError(
      `trace: expected a matrix, but got tensor with dim ${this.ndim}`,
    );
  if (this.dtype === "bool")
    throw new DTypeError(`"trace" not implemented for 'Bool'`);
  return scope(() => this.diagonal().sum());
};

proto.diag = function (this: Tensor, diagonal = 0) {
  const k = checkInts("diag", "diagonal", [diagonal])[0]!;
  if (this.ndim === 2)
    return scope(() => this.diagonal(k).contiguous().clone());
  if (this.ndim !== 1)
    throw new ShapeError(
      `diag(): Supports 1D or 2D tensors. Got ${this.ndim}D`,
    );
  return this.diag_embed(k, 0, 1);
};

proto.diagflat = function (this: Tensor, offset = 0) {
  return scope(() => this.reshape(-1).diag_embed(offset, 0, 1));
};

proto.diag_embed = function (this: Tensor, offset = 0, dim1 = -2, dim2 = -1) {
  const [k] = checkInts("diag_embed", "offset", [offset, dim1, dim2]);
  const nd = this.ndim + 1;
  const d1 = wrapDim(dim1, nd);
  const d2 = wrapDim(dim2, nd);
  if (d1 === d2)
    throw new TorchError(
      `diagonal dimensions cannot be identical ${dim1}, ${dim2}`,
    );
  const src = this.ndim === 0 ? null : this;
  const n = this.shape[this.ndim - 1] ?? 1;
  const size = n + Math.abs(k!);
  const device = this.device;
  return scope(() => {
    const x = src ?? this.reshape(1);
    // Rows of the result for the n diagonal entries: out[…, i, i + k] = x[…, i] (k ≥ 0), or
    // out[…, i - k, i] = x[…, i] (k < 0); the |k| rows without an entry are zeros.
    const cols = arange(size, { device });
    const rows = arange(n, { device }).add(Math.max(k!, 0)).unsqueeze(1);
    // Zeros of the input's dtype (a bool `false`: a number would promote bool to int64).
    const zero = x.dtype === "bool" ? false : 0;
    let out = where(rows.eq(cols), x.unsqueeze(-1), zero);
    const pad = zeros([...x.shape.slice(0, -1), Math.abs(k!), size], {
      dtype: out.dtype,
      device,
    });
    if (k! > 0) out = cat([out, pad], -2);
    if (k! < 0) out = cat([pad, out], -2);
    return out.movedim([-2, -1], [d1, d2]).contiguous();
  });
};

proto.cross = function (this: Tensor, other: Tensor, dim?: number | null) {
  const o = checkTensor("cross", "other", other);
  if (this.ndim !== o.ndim)
    throw new ShapeError(
      `linalg.cross: inputs must have the same number of dimensions.`,
    );
  return scope(() => {
    const [a, b] = broadcast_tensors(this, o) as [Tensor, Tensor];
    // No dim: the first dim of size 3 (PyTorch's deprecated default).
    const d =
      dim === undefined || dim === null
        ? a.shape.findIndex((s) => s === 3)
        : wrapDim(dim, a.ndim);
    if (d < 0 || a.shape[d] !== 3)
      throw new ShapeError(
        d < 0
          ? "no dimension of size 3 in input"
          : `linalg.cross: inputs dimension ${dim} must have length 3. Got ${this.shape[d]} and ${o.shape[d]}`,
      );
    const [a0, a1, a2] = a.unbind(d) as [Tensor, Tensor, Tensor];
    const [b0, b1, b2] = b.unbind(d) as [Tensor, Tensor, Tensor];
    const c0 = a1.mul(b2).sub(a2.mul(b1));
    const c1 = a2.mul(b0).sub(a0.mul(b2));
    const c2 = a0.mul(b1).sub(a1.mul(b0));
    return torchStack([c0, c1, c2], d);
  });
};

proto.dist = function (this: Tensor, other: Tensor, p = 2) {
  const o = checkTensor("dist", "other", other);
  for (const t of [this, o])
    if (!isFloatingPoint(t.dtype))
      throw new DTypeError(
        `norm(): input dtype should be either floating point or complex. Got ${title(t)} instead.`,
      );
  return scope(() => this.sub(checkTensor("dist", "other", other)).norm(p));
};

proto.adjoint = function (this: Tensor) {
  return this.transpose(-2, -1);
};

export function title(t: Tensor): string {
  return scalarTypeName(t.dtype);
}

// ---- torch.* functions ----

/** The parsed `beta` and `alpha` as numbers (a boolean Scalar is 0 or 1, as in PyTorch). */
export function betaAlpha(a: {
  beta: number | boolean;
  alpha: number | boolean;
}): BetaAlpha {
  return { beta: Number(a.beta), alpha: Number(a.alpha) };
}
