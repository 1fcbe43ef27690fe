/**
 * `torch.einsum`: any valid equation (explicit `->` output or the implicit one, `...` ellipsis,
 * a subscript repeated within an operand, size-1 broadcasting) reduced to core ops. A repeated
 * subscript becomes a `diagonal` view; a subscript only one operand has and nothing later needs
 * is summed out first; then the operands are contracted left to right, each pair as one batched
 * `matmul` (batch dims kept apart so that they broadcast, free dims and contracted dims each
 * merged into one); finally the result is permuted into the output's order. The equation is
 * parsed here by hand: no `eval`.
 *
 * @module
 */

import type { CheckOf, Dims, Einsum, ShapeOf } from "../shapes.js";
import type { ShapesOf } from "../tensor/tensor.js";
import { DTypeError, ShapeError, TorchError } from "../errors.js";
import { scalarTypeName } from "../dtype.js";
import { scope } from "../lifetime.js";
import { Tensor, checkTensor } from "../tensor/tensor.js";
import { args } from "../schema/index.js";

/** An operand with one label per dim. Ellipsis dims get labels "…0", "…1", … (aligned right). */
interface Term {
  t: Tensor;
  labels: string[];
}

const ELL = "\u2026";

function isLetter(ch: string): boolean {
  return /^[a-zA-Z]$/.test(ch);
}

/** Splits one side of the equation into labels, `...` kept as the token ELL. */
function tokens(
  eq: string,
  term: string,
  offset: number,
  operand: number | "output",
): string[] {
  const out: string[] = [];
  for (let i = 0; i < term.length; i++) {
    const ch = term[i]!;
    if (ch === ".") {
      const where = operand === "output" ? "output" : `operand ${operand}`;
      if (term.slice(i, i + 3) !== "...")
        throw new TorchError(
          `einsum(): found '.' for ${where} that is not part of any ellipsis`,
        );
      if (out.includes(ELL))
        throw new TorchError(
          `einsum(): found '.' for ${where} for which an ellipsis was already found`,
        );
      out.push(ELL);
      i += 2;
    } else if (isLetter(ch)) {
      out.push(ch);
    } else {
      throw new TorchError(
        `einsum(): invalid subscript given at index ${offset + i} in the equation string, subscripts must be in [a-zA-Z]`,
      );
    }
  }
  void eq;
  return out;
}

/** Sums `term` over `labels` (each present in it). */
function sumOut(term: Term, labels: string[]): Term {
  if (labels.length === 0) return term;
  const dims = labels.map((l) => term.labels.indexOf(l));
  return {
    t: term.t.sum(dims),
    labels: term.labels.filter((l) => !labels.includes(l)),
  };
}

function size(term: Term, label: string): number {
  return term.t.shape[term.labels.indexOf(label)]!;
}

/** Contracts two terms, keeping the labels in `keep` (all others they share are summed). */
function contract(a: Term, b: Term, keep: Set<string>): Term {
  // Labels of one side only that nothing needs later: summed away first.
  a = sumOut(
    a,
    a.labels.filter((l) => !keep.has(l) && !b.labels.includes(l)),
  );
  b = sumOut(
    b,
    b.labels.filter((l) => !keep.has(l) && !a.labels.includes(l)),
  );
  let shared = a.labels.filter((l) => b.labels.includes(l));
  // A contracted label of size 1 on one side broadcasts: sum the other side over it instead.
  for (const l of shared.filter((l) => !keep.has(l))) {
    const [sa, sb] = [size(a, l), size(b, l)];
    if (sa === sb) continue;
    if (sa === 1) {
      a = {
        t: a.t.squeeze(a.labels.indexOf(l)),
        labels: a.labels.filter((x) => x !== l),
      };
      b = sumOut(b, [l]);
    } else {
      b = {
        t: b.t.squeeze(b.labels.indexOf(l)),
        labels: b.labels.filter((x) => x !== l),
      };
      a = sumOut(a, [l]);
    }
  }
  shared = a.labels.filter((l) => b.labels.includes(l));
  const batch = shared.filter((l) => keep.has(l));
  const summed = shared.filter((l) => !keep.has(l));
  // PyTorch contracts a pair with summed labels as one batched product, which takes one dtype
  // (a pair without them is a broadcast product, which promotes).
  if (summed.length > 0 && a.t.dtype !== b.t.dtype)
    throw new DTypeError(
      `expected scalar type ${scalarTypeName(a.t.dtype)} but found ${scalarTypeName(b.t.dtype)}`,
    );
  const left = a.labels.filter((l) => !shared.includes(l));
  const right = b.labels.filter((l) => !shared.includes(l));
  const prod = (t: Term, ls: string[]) =>
    ls.reduce((p, l) => p * size(t, l), 1);
  const k = prod(a, summed);
  const am = a.t
    .permute([...batch, ...left, ...summed].map((l) => a.labels.indexOf(l)))
    .reshape([...batch.map((l) => size(a, l)), prod(a, left), k]);
  const bm = b.t
    .permute([...batch, ...summed, ...right].map((l) => b.labels.indexOf(l)))
    .reshape([...batch.map((l) => size(b, l)), k, prod(b, right)]);
  const out = am.matmul(bm);
  const batchSizes = batch.map((l) => Math.max(size(a, l), size(b, l)));
  return {
    t: out.reshape([
      ...batchSizes,
      ...left.map((l) => size(a, l)),
      ...right.map((l) => size(b, l)),
    ]),
    labels: [...batch, ...left, ...right],
  };
}

/**
 * Einstein summation: `einsum("ij,jk->ik", a, b)` is `a @ b`, `einsum("ii", m)` the trace,
 * `einsum("...ij->...ji", t)` a batched transpose, `einsum("bn,anm,bm->ba", l, A, r)` a bilinear
 * form. Without `->` the output is the ellipsis dims then the subscripts used once, sorted
 * (upper case before lower case). Operands may also be passed as one array.
 */
export function einsum<
  const Eq extends string,
  const Ts extends readonly Tensor<Dims>[],
>(
  equation: Eq & CheckOf<Einsum<Eq, ShapesOf<Ts>>>,
  ...operands: Ts
): Tensor<ShapeOf<Einsum<Eq, ShapesOf<Ts>>>>;
export function einsum(equation: string, operands: readonly Tensor[]): Tensor;
export function einsum(
  equation: string,
  ...operands: (Tensor | readonly Tensor[])[]
): Tensor {
  ({ equation, operands } = args("einsum", arguments));
  const ops = (
    operands.length === 1 && Array.isArray(operands[0]) ? operands[0] : operands
  ) as Tensor[];
  ops.forEach((t, i) => checkTensor("einsum", `operands[${i}]`, t));
  const eq = equation.replace(/\s/g, "");
  const arrow = eq.indexOf("->");
  const lhs = arrow < 0 ? eq : eq.slice(0, arrow);
  const terms = lhs.split(",");
  if (terms.length > ops.length)
    throw new TorchError(
      "einsum(): fewer operands were provided than specified in the equation",
    );
  if (terms.length < ops.length)
    throw new TorchError(
      "einsum(): more operands were provided than specified in the equation",
    );
  let offset = 0;
  const parsed = terms.map((term, i) => {
    const tk = tokens(eq, term, offset, i);
    offset += term.length + 1;
    return tk;
  });
  // Ellipsis dims: as many as the operand with the most, aligned right.
  const ellDims = parsed.map((tk, i) => {
    const explicit = tk.filter((l) => l !== ELL).length;
    const nd = ops[i]!.ndim;
    if (tk.includes(ELL) ? explicit > nd : explicit !== nd)
      throw new ShapeError(
        `einsum(): the number of subscripts in the equation (${explicit}) ${tk.includes(ELL) ? "is more than" : "does not match"} the number of dimensions (${nd}) for operand ${i}${tk.includes(ELL) ? "" : " and no ellipsis was given"}`,
      );
    return tk.includes(ELL) ? nd - explicit : 0;
  });
  const nEll = Math.max(0, ...ellDims);
  const ellLabels = Array.from({ length: nEll }, (_, i) => `${ELL}${i}`);
  const expand = (tk: string[], n: number) =>
    tk.flatMap((l) => (l === ELL ? ellLabels.slice(nEll - n) : [l]));

  const counts = new Map<string, number>();
  const sizes = new Map<string, [number, number]>(); // label -> [size, operand] seen first (not 1)
  const inputLabels = parsed.map((tk, i) => expand(tk, ellDims[i]!));
  inputLabels.forEach((labels, i) =>
    labels.forEach((l, d) => {
      counts.set(l, (counts.get(l) ?? 0) + 1);
      const s = ops[i]!.shape[d]!;
      const first = labels.indexOf(l);
      if (first < d && ops[i]!.shape[first] !== s)
        throw new ShapeError(
          `einsum(): subscript ${l} is repeated for operand ${i} but the sizes don't match, ${s} != ${ops[i]!.shape[first]}`,
        );
      const seen = sizes.get(l);
      if (seen === undefined || seen[0] === 1) sizes.set(l, [s, i]);
      else if (s !== 1 && s !== seen[0] && !l.startsWith(ELL))
        throw new ShapeError(
          `einsum(): subscript ${l} has size ${s} for operand ${i} which does not broadcast with previously seen size ${seen[0]}`,
        );
    }),
  );

  let output: string[];
  if (arrow < 0) {
    const once = [...counts.keys()].filter(
      (l) => !l.startsWith(ELL) && counts.get(l) === 1,
    );
    once.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)); // code order: A–Z before a–z
    output = [...ellLabels, ...once];
  } else {
    const tk = tokens(eq, eq.slice(arrow + 2), arrow + 2, "output");
    output = expand(tk, nEll);
    for (const l of output) {
      if (!counts.has(l))
        throw new TorchError(
          `einsum(): output subscript ${l} does not appear in the equation for any input operand`,
        );
      if (output.filter((x) => x === l).length > 1)
        throw new TorchError(
          `einsum(): output subscript ${l} appears more than once in the output`,
        );
    }
  }

  return scope(() => {
    // Repeated subscripts within an operand: their diagonal (moved to the last dim).
    const list: Term[] = inputLabels.map((labels, i) => {
      let t = ops[i]!;
      let ls = [...labels];
      for (;;) {
        const p = ls.findIndex((l, j) => ls.indexOf(l) !== j);
        if (p < 0) break;
        const q = ls.indexOf(ls[p]!);
        const l = ls[p]!;
        t = t.diagonal(0, q, p);
        ls = [...ls.filter((x) => x !== l), l];
      }
      return { t, labels: ls };
    });
    const outSet = new Set(output);
    let acc = list[0]!;
    for (let i = 1; i < list.length; i++) {
      const keep = new Set(outSet);
      for (const later of list.slice(i + 1))
        later.labels.forEach((l) => keep.add(l));
      acc = contract(acc, list[i]!, keep);
    }
    acc = sumOut(
      acc,
      acc.labels.filter((l) => !outSet.has(l)),
    );
    return acc.t.permute(output.map((l) => acc.labels.indexOf(l))).contiguous();
  });
}
