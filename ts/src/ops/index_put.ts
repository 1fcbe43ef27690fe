/**
 * Advanced-index assignment: `index_put`/`index_put_` (PyTorch's `x[indices] = values`, with
 * `accumulate`); `masked_scatter` is in masked_scatter.ts.
 *
 * `index_put` with integer indices computes, for every element of the indexing result, its
 * linear offset in `self` (the index tensors broadcast together, the untouched dims as ranges)
 * and writes `values` there with one core `scatter` (`accumulate`: `scatter_add`, atomic on the
 * GPU) into the flattened tensor — PyTorch's own plan (linear indices, then one index_put kernel).
 * Being made of differentiable core ops, it carries gradients: to `self`, the upstream with zeros
 * where values were put (all of it with `accumulate`); to `values`, the upstream gathered at the
 * written places and summed over broadcasting.
 *
 * A boolean (or uint8) mask stands for the indices of its true elements, whose number PyTorch
 * knows and a GPU only learns by a read back. So that assignment stays synchronous, a lone mask
 * is applied densely: `where(mask, v, self)`, where `v` is `values` broadcast over the mask or,
 * when `values` runs along the selected elements, `values` read at each element's rank among the
 * true ones (a cumulative sum of the mask) — which is `masked_scatter` too. A mask beside integer
 * indices is compacted to indices on the GPU, its count taken from the integer indices' broadcast
 * length (the two must agree in PyTorch as well); beside integer indices of one element each, the
 * count is the mask's own, so each such index becomes a one-hot mask over its dim and the put is
 * a lone mask's over the joint mask. A 0-dim mask beside other indices keeps (true) or drops
 * (false) their put, as Python's `x[m, i] = v` does. Beside integer indices that broadcast to
 * `[...lead, 1]` (e.g. `[3, 1]`: the result is `[3, nnz]`), that is one such put per element of
 * `lead`. Only several masks at once, whose true counts must be zipped, need the counts on the
 * host and are refused.
 *
 * Indices out of range raise PyTorch's IndexError: at the call on the CPU backend, at the next
 * read or sync on WebGPU (a device-side check; docs/webgpu.md), where meanwhile they are written
 * nowhere.
 *
 * @module
 */

import { checkValues } from "./value_checks.js";
import { scalarTypeName } from "../dtype.js";
import { DTypeError, IndexError, ShapeError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { args } from "../schema/index.js";
import { arange, full, zeros } from "./creation.js";
import { where } from "./conditional.js";
import { writeBack } from "../tensor/write_back.js";
import { Tensor, checkTensor } from "../tensor/tensor.js";

const fmt = (s: readonly number[]) => `[${s.join(", ")}]`;
const isMask = (t: Tensor) => t.dtype === "bool" || t.dtype === "uint8";
const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** One entry of the expanded index list: a whole dim, integer indices, or a mask over `k` dims. */
type Entry =
  { kind: "all" } | { kind: "int"; t: Tensor } | { kind: "mask"; t: Tensor };

/** The broadcast of `shapes`, or PyTorch's IndexError naming them. */
function broadcastIndexShapes(
  shapes: readonly (readonly number[])[],
): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes)
    s.forEach((n, i) => {
      const j = rank - s.length + i;
      if (out[j] === 1) out[j] = n;
      else if (n !== 1 && n !== out[j])
        throw new IndexError(
          `shape mismatch: indexing tensors could not be broadcast together with shapes ${shapes.map(fmt).join(", ")}`,
        );
    });
  return out;
}

/** Whether `from` broadcasts to `to` (leading 1s of `from` may be dropped). */
function broadcastsTo(from: readonly number[], to: readonly number[]): boolean {
  const extra = from.length - to.length;
  if (extra > 0 && from.slice(0, extra).some((n) => n !== 1)) return false;
  return from
    .slice(Math.max(0, extra))
    .every(
      (n, i) =>
        n === 1 || n === to[to.length - Math.min(from.length, to.length) + i],
    );
}

/** `values` as a tensor of `self`'s dtype (PyTorch's error for a tensor of another dtype). */
function valuesOf(self: Tensor, values: Tensor | number | boolean): Tensor {
  if (values instanceof Tensor) {
    if (values.dtype !== self.dtype)
      throw new DTypeError(
        `Index put requires the source and destination dtypes match, got ${scalarTypeName(self.dtype)} for the destination and ${scalarTypeName(values.dtype)} for the source.`,
      );
    return values;
  }
  if (typeof values !== "number" && typeof values !== "boolean")
    throw new TorchError(
      `index_put_(): argument 'values' must be Tensor, not ${typeof values}`,
    );
  return full([], values, { dtype: self.dtype, device: self.device });
}

/**
 * PyTorch's IndexError for an index outside `[-size, size)`: at the call on the CPU backend, at
 * the next read or sync on WebGPU (a device-side check).
 */
function checkBounds(t: Tensor, dim: number, size: number): void {
  checkValues(t, -size, size - 1, {
    kind: "IndexError",
    low: `index {} is out of bounds for dimension ${dim} with size ${size}`,
  });
}

/** Checks `indices` against `self` and lays them out one entry per consumed dim group. */
function expand(self: Tensor, indices: readonly (Tensor | null)[]): Entry[] {
  if (!Array.isArray(indices))
    throw new TorchError("index_put_(): argument 'indices' must be a list");
  const entries: Entry[] = [];
  let dim = 0;
  indices.forEach((t, i) => {
    if (t === null || t === undefined) {
      entries.push({ kind: "all" });
      dim++;
      return;
    }
    checkTensor("index_put_", `indices[${i}]`, t);
    if (isMask(t)) {
      if (dim + t.ndim > self.ndim)
        throw new IndexError(
          `too many indices for tensor of dimension ${self.ndim} (got ${dim + t.ndim})`,
        );
      t.shape.forEach((n: number, j: number) => {
        if (n !== self.shape[dim + j])
          throw new IndexError(
            `The shape of the mask ${fmt(t.shape)} at index ${j} does not match the shape of the indexed tensor ${fmt(self.shape)} at index ${dim + j}`,
          );
      });
      entries.push({ kind: "mask", t });
      dim += t.ndim;
      return;
    }
    if (t.dtype !== "int64" && t.dtype !== "int32")
      throw new IndexError(
        "tensors used as indices must be long, int, byte or bool tensors",
      );
    entries.push({ kind: "int", t });
    dim++;
  });
  if (dim > self.ndim)
    throw new IndexError(
      `too many indices for tensor of dimension ${self.ndim} (got ${dim})`,
    );
  return entries;
}

/** `self` with `values` put (or added) where the lone mask at dim `p` is true. */
function putMask(
  self: Tensor,
  p: number,
  mask: Tensor,
  values: Tensor,
  accumulate: boolean,
): Tensor {
  const k = mask.ndim;
  const pre = self.shape.slice(0, p);
  const post = self.shape.slice(p + k);
  // The indexing result is pre + [nnz] + post; nnz is on the device, so values are checked
  // against every dim but that one here.
  const r = pre.length + 1 + post.length;
  let v = values;
  while (v.ndim > r && v.shape[0] === 1) v = v.squeeze(0);
  const vs = new Array<number>(r - v.ndim).fill(1).concat(v.shape);
  const bad =
    v.ndim > r ||
    [...pre, -1, ...post].some((n, i) => n >= 0 && vs[i] !== 1 && vs[i] !== n);
  if (bad)
    throw new ShapeError(
      `shape mismatch: value tensor of shape ${fmt(values.shape)} cannot be broadcast to indexing result of shape ${fmt([...pre, -1, ...post])}`,
    );
  v = v.reshape(vs);
  const n = vs[p]!;
  const flat = mask.reshape(-1);
  if (n !== 1) {
    // Each true element takes the values row at its rank among the true ones.
    const rank = flat.to("int64").cumsum(0).sub(1).clamp_min(0);
    v = v.index_select(p, rank);
  }
  v = v.reshape([
    ...vs.slice(0, p),
    ...(n === 1 ? mask.shape.map(() => 1) : mask.shape),
    ...vs.slice(p + 1),
  ]);
  const m = mask
    .to("bool")
    .reshape([...pre.map(() => 1), ...mask.shape, ...post.map(() => 1)]);
  return where(m, accumulate ? self.add(v) : v, self);
}

/**
 * `self` with `values` put (or added) at one mask (at least 1-d) and integer indices of one
 * element each: each integer index becomes a one-hot mask over its dim, and all of them with the
 * mask one mask over the dims they consume, whose true elements are the indexing result's (one
 * per true element of the mask, in its order). Apart (a whole dim between), the indexed dims
 * lead the result, as in PyTorch: `self` is permuted so that they come first.
 */
function putMaskAndScalars(
  self: Tensor,
  entries: readonly Entry[],
  values: Tensor,
  accumulate: boolean,
): Tensor {
  const device = self.device;
  const parts: Tensor[] = []; // one bool tensor per advanced entry, over its dims
  const advDims: number[] = [];
  const advEntries: number[] = [];
  let dim = 0;
  entries.forEach((e, k) => {
    if (e.kind === "all") {
      dim++;
      return;
    }
    advEntries.push(k);
    if (e.kind === "mask") {
      parts.push(e.t.to("bool"));
      for (let j = 0; j < e.t.ndim; j++) advDims.push(dim + j);
      dim += e.t.ndim;
      return;
    }
    const size = self.shape[dim]!;
    checkBounds(e.t, dim, size);
    const i = e.t.to("int64").reshape([]);
    const wrapped = where(i.lt(0), i.add(size), i);
    parts.push(arange(size, { dtype: "int64", device }).eq(wrapped));
    advDims.push(dim);
    dim++;
  });
  // The advanced dims' joint mask: each part broadcast over the others' dims.
  const n = advDims.length;
  let combined: Tensor | null = null;
  let at = 0;
  for (const part of parts) {
    const shaped = part.reshape([
      ...new Array<number>(at).fill(1),
      ...part.shape,
      ...new Array<number>(n - at - part.ndim).fill(1),
    ]);
    combined = combined === null ? shaped : combined.logical_and(shaped);
    at += part.ndim;
  }
  const adjacent = advEntries.every(
    (k, i) => i === 0 || k === advEntries[i - 1]! + 1,
  );
  if (adjacent)
    return putMask(self, advDims[0]!, combined!, values, accumulate);
  const rest = self.shape.map((_, d) => d).filter((d) => !advDims.includes(d));
  const perm = [...advDims, ...rest];
  const inverse = perm.map((_, d) => perm.indexOf(d));
  return putMask(self.permute(perm), 0, combined!, values, accumulate).permute(
    inverse,
  );
}

/**
 * A mask beside integer indices broadcasting to `[...lead, 1]` (the result is `[...lead, nnz]`
 * where they stand): one {@link putMaskAndScalars} per element of `lead`, with each index's
 * element there and `values` read there.
 */
function putMaskRows(
  self: Tensor,
  entries: readonly Entry[],
  b: readonly number[],
  values: Tensor,
  accumulate: boolean,
): Tensor {
  const lead = b.slice(0, -1);
  const n = prod(lead);
  const adv = entries.flatMap((e, k) => (e.kind === "all" ? [] : [k]));
  const adjacent = adv.every((k, i) => i === 0 || k === adv[i - 1]! + 1);
  const leadPos = adjacent ? adv[0]! : 0; // only whole dims stand before the first
  const advDims = entries.reduce(
    (s, e) => s + (e.kind === "mask" ? e.t.ndim : e.kind === "int" ? 1 : 0),
    0,
  );
  const r = self.ndim - advDims + lead.length + 1;
  let v = values;
  while (v.ndim > r && v.shape[0] === 1) v = v.squeeze(0);
  const shapeOk = () =>
    v.ndim <= r &&
    lead.every((d, i) => {
      const vd = v.shape[v.ndim - r + leadPos + i];
      return vd === undefined || vd === 1 || vd === d;
    });
  if (!shapeOk())
    throw new ShapeError(
      `shape mismatch: value tensor of shape ${fmt(values.shape)} cannot be broadcast to indexing result with leading dims ${fmt(lead)}`,
    );
  v = v.reshape([...new Array<number>(r - v.ndim).fill(1), ...v.shape]);
  const flat = entries.map((e) =>
    e.kind === "int" ? e.t.expand(b).reshape([n]) : null,
  );
  let out = self;
  for (let j = 0; j < n; j++) {
    let vj = v;
    // Row-major: the last lead dim varies fastest.
    const coords = new Array<number>(lead.length);
    for (let i = lead.length - 1, rem = j; i >= 0; i--) {
      coords[i] = rem % lead[i]!;
      rem = Math.floor(rem / lead[i]!);
    }
    for (const c of coords)
      vj = vj.select(leadPos, vj.shape[leadPos] === 1 ? 0 : c);
    const ej = entries.map((e, k): Entry =>
      e.kind === "int" ? { kind: "int", t: flat[k]!.select(0, j) } : e,
    );
    out = putMaskAndScalars(out, ej, vj, accumulate);
  }
  return out;
}

/** The positions (`[count]`, int64) of the first `count` true elements of a flat mask. */
function compact(flat: Tensor, count: number): Tensor {
  const m = flat.numel();
  const rank = flat.to("int64").cumsum(0).sub(1);
  // Unselected elements (and any past `count`) land in the spare slot `count`.
  const slot = where(flat.to("bool"), rank.clamp_max(count), count);
  const pos = arange(m, { dtype: "int64", device: flat.device });
  return zeros(count + 1, { dtype: "int64", device: flat.device })
    .scatter(0, slot, pos)
    .narrow(0, 0, count);
}

/** `self` with `values` put (or added) at integer indices (one per dim, `null` = whole dim). */
function putInts(
  self: Tensor,
  idx: readonly (Tensor | null)[],
  values: Tensor,
  accumulate: boolean,
): Tensor {
  const shape = self.shape;
  const adv = idx.flatMap((t, d) => (t ? [d] : []));
  const b = broadcastIndexShapes(adv.map((d) => idx[d]!.shape));
  const adjacent = adv.every((d, i) => i === 0 || d === adv[i - 1]! + 1);
  const rest = shape.map((_, d) => d).filter((d) => !adv.includes(d));
  // The indexing result's dims: B where the indexed dims were (first when they are apart), the
  // other dims in order around it.
  const before = adjacent ? rest.filter((d) => d < adv[0]!) : [];
  const bPos = before.length;
  const after = rest.filter((d) => !before.includes(d));
  const result = [
    ...before.map((d) => shape[d]!),
    ...b,
    ...after.map((d) => shape[d]!),
  ];
  if (!broadcastsTo(values.shape, result))
    throw new ShapeError(
      `shape mismatch: value tensor of shape ${fmt(values.shape)} cannot be broadcast to indexing result of shape ${fmt(result)}`,
    );
  const strides = shape.map((_, d) => prod(shape.slice(d + 1)));
  const device = self.device;
  const at = (t: Tensor, pos: number, len: number) =>
    t.reshape([
      ...new Array<number>(pos).fill(1),
      ...t.shape,
      ...new Array<number>(result.length - pos - len).fill(1),
    ]);
  let lin: Tensor = zeros([], { dtype: "int64", device });
  for (const d of adv) {
    const t = idx[d]!;
    checkBounds(t, d, shape[d]!);
    const i = t.to("int64");
    const wrapped = where(i.lt(0), i.add(shape[d]!), i);
    // Out of range (WebGPU): -1, which the scatter skips.
    const bad = wrapped.lt(0).logical_or(wrapped.ge(shape[d]!));
    const term = where(bad, -(2 ** 30), wrapped.mul(strides[d]!));
    lin = lin.add(at(term.expand(b), bPos, b.length));
  }
  for (const d of rest) {
    const pos = before.includes(d)
      ? before.indexOf(d)
      : bPos + b.length + after.indexOf(d);
    const r = arange(shape[d]!, { dtype: "int64", device }).mul(strides[d]!);
    lin = lin.add(at(r, pos, 1));
  }
  lin = lin.expand(result).reshape(-1);
  lin = where(lin.lt(0), -1, lin);
  const v = values.expand(result).reshape(-1);
  const flat = self.reshape(-1);
  const out = accumulate
    ? flat.scatter_add(0, lin, v)
    : flat.scatter(0, lin, v);
  return out.reshape(shape);
}

/**
 * `self[indices] = values` on a copy, as PyTorch's ATen op: a `null` among the indices is a whole
 * dim (`x[:, i] = v`; the index expressions' path). The public `index_put` refuses it.
 */
export function indexPut(
  self: Tensor,
  indices: readonly (Tensor | null)[],
  values: Tensor | number | boolean,
  accumulate: boolean,
): Tensor {
  const entries = expand(self, indices);
  const v0 = valuesOf(self, values);
  return scope(() => {
    const masks = entries.filter((e) => e.kind === "mask");
    const ints = entries.flatMap((e) => (e.kind === "int" ? [e.t] : []));
    if (masks.length === 1 && ints.length === 0) {
      const i = entries.findIndex((e) => e.kind === "mask");
      const p = entries.slice(0, i).length;
      return putMask(self, p, masks[0]!.t, v0, accumulate);
    }
    // A 0-dim mask consumes no dim: true, it leaves the other indices' put as it is; false,
    // nothing is put.
    const zeroD = masks.filter((e) => e.t.ndim === 0);
    if (zeroD.length > 0) {
      const others = entries.filter(
        (e) => !(e.kind === "mask" && e.t.ndim === 0),
      );
      const keep = zeroD
        .map((e) => e.t.to("bool"))
        .reduce((a, b) => a.logical_and(b));
      const list = others.flatMap((e) => (e.kind === "all" ? [null] : [e.t]));
      return where(keep, indexPut(self, list, v0, accumulate), self);
    }
    // Integer indices, with any mask compacted to the integer indices' broadcast length.
    const idx: (Tensor | null)[] = [];
    let count = -1;
    if (masks.length > 0) {
      const b = broadcastIndexShapes(ints.map((t) => t.shape));
      count = b.length === 0 ? 1 : b[b.length - 1]!;
      if (count === 1) {
        // The count is the mask's, on the device: no compaction, one joint mask instead.
        if (masks.length === 1 && b.every((d) => d === 1))
          return putMaskAndScalars(self, entries, v0, accumulate);
        if (masks.length === 1)
          return putMaskRows(self, entries, b, v0, accumulate);
        throw new TorchError(
          "index_put_(): several boolean masks need their numbers of true elements on the host; webtorch cannot read them from the device synchronously (use nonzero() first)",
        );
      }
    }
    for (const e of entries) {
      if (e.kind === "all") idx.push(null);
      else if (e.kind === "int") idx.push(e.t);
      else {
        const pos = compact(e.t.reshape(-1), count);
        // Unravel the flat positions into one index per mask dim.
        let rem = pos;
        const coords: Tensor[] = [];
        for (let j = e.t.ndim - 1; j >= 0; j--) {
          const n = e.t.shape[j]!;
          coords.unshift(rem.remainder(n));
          rem = rem.floor_divide(n);
        }
        idx.push(...coords);
      }
    }
    while (idx.length < self.ndim) idx.push(null);
    if (idx.every((t) => t === null)) {
      // Only whole dims (x[:] = v): every element, as the values broadcast.
      if (!broadcastsTo(v0.shape, self.shape))
        throw new ShapeError(
          `shape mismatch: value tensor of shape ${fmt(v0.shape)} cannot be broadcast to indexing result of shape ${fmt(self.shape)}`,
        );
      const v = v0.expand(self.shape);
      return accumulate ? self.add(v) : v.clone();
    }
    return putInts(self, idx, v0, accumulate);
  });
}

/** `input[indices] = values` on a copy. See {@link Tensor.index_put_}. */
export function index_put(
  input: Tensor,
  indices: readonly Tensor[],
  values: Tensor | number | boolean,
  accumulate = false,
): Tensor {
  const a = args("index_put", arguments);
  return indexPut(a.input, a.indices, a.values, a.accumulate);
}

/** `input[indices] = values` in place. See {@link Tensor.index_put_}. */
export function index_put_(
  input: Tensor,
  indices: readonly Tensor[],
  values: Tensor | number | boolean,
  accumulate = false,
): Tensor {
  const a = args("index_put_", arguments);
  return writeBack(
    a.input,
    indexPut(a.input, a.indices, a.values, a.accumulate),
  );
}
