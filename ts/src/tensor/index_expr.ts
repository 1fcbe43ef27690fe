/**
 * PyTorch's `x[...]` and `x[...] = v`, spelled `x.index(...)`, `await x.index_async(...)` and
 * `x.set(index, v)`: integers, slices (`"1:-1:2"`, `":"`), `"..."`, `null` (a new axis), index
 * tensors and lists, boolean masks, and strings holding several of them (`"1:, 0"`).
 *
 * Reading follows PyTorch's own plan. Integers, slices and `null` are applied first as views
 * (`select`, `slice`, `unsqueeze`: no copy, so basic indexing returns a view). The index tensors
 * left over broadcast together; their dims are moved to the front, flattened to one, and read
 * with one `index_select` at the linear offsets; the broadcast dims go where PyTorch puts them:
 * in place of the indexed dims when those are next to each other, first otherwise. Everything is
 * a differentiable core op.
 *
 * A boolean mask stands for the coordinates of its true elements, a number the host learns only
 * by reading the mask: `index` refuses masks and `index_async` reads them first. Assignment needs
 * no read (`index_put_` applies masks densely).
 *
 * @module
 */

import type { Dims, ShapeOf, CheckOf } from "../shapes.js";
import type { DTypeT, ShapeT } from "./tensor.js";
import type {
  CheckSetValue,
  IndexItem,
  IndexShape,
  SetShape,
} from "./index_types.js";
import { IndexError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { arange, tensor as makeTensor } from "../ops/creation.js";
import { where } from "../ops/conditional.js";
import { nonzero } from "../ops/unique.js";
import { is_grad_enabled } from "../autograd/grad_mode.js";
import { Tensor } from "./tensor.js";
import { writeBack } from "./write_back.js";
import { indexPut } from "../ops/index_put.js";

declare module "./tensor.js" {
  interface Tensor {
    /**
     * PyTorch's `x[...]`: `x.index(0)`, `x.index(":", "1:-1:2")`, `x.index("...", null)`,
     * `x.index(idx)` (an int64/int32 tensor or a list of integers), or one string with commas
     * (`x.index("1:, ..., 0")`). Integers, slices, `"..."` and `null` give a view. Boolean masks
     * need {@link Tensor.index_async}. Typed: with a literal shape and literal indices the
     * result's shape is known, and an index out of range is a compile error.
     */
    index<Self extends Tensor<Dims>, const I extends readonly IndexItem[]>(
      this: Self,
      ...indices: I & CheckOf<IndexShape<ShapeT<Self>, I>>
    ): Tensor<ShapeOf<IndexShape<ShapeT<Self>, I>>, DTypeT<Self>>;
    /**
     * {@link Tensor.index} that also takes boolean masks (`await x.index_async(x.gt(0))`): the
     * masks are read from the device first, since the result's size depends on them.
     */
    index_async(...indices: IndexItem[]): Promise<Tensor>;
    /**
     * PyTorch's `x[index] = value`, in place; returns this tensor. `index` is one item or an
     * array of them (`x.set([0, "1:"], 5)`; a list index inside it is a nested array:
     * `x.set([[0, 2]], v)`). `value` (a tensor or a number) broadcasts to the shape of
     * `x.index(...index)`. Boolean masks are allowed beside `":"`, `"..."` and index tensors.
     * Differentiable (to `x`'s history and to `value`). Typed: with literal shapes, a bad index
     * or a value that does not broadcast to the indexed shape is a compile error.
     */
    set<
      Self extends Tensor<Dims>,
      const I extends IndexItem | readonly IndexItem[],
      V extends Tensor<Dims> | number | boolean,
    >(
      this: Self,
      index: I & CheckOf<SetShape<ShapeT<Self>, I>>,
      value: V & CheckSetValue<V, SetShape<ShapeT<Self>, I>>,
    ): Self;
  }
}

/** One parsed index item. */
type Item =
  | { kind: "int"; i: number }
  | { kind: "slice"; start?: number; stop?: number; step: number }
  | { kind: "none" }
  | { kind: "ellipsis" }
  | { kind: "tensor"; t: Tensor };

const INT = /^[+-]?\d+$/;
const fmt = (s: readonly number[]) => `[${s.join(", ")}]`;
const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

function badIndex(got: string): IndexError {
  return new IndexError(
    `only integers, slices (\`:\`), ellipsis (\`...\`), None and long or byte Variables are valid indices (got ${got})`,
  );
}

/** Parses one part of a string index (`"1:-1:2"`, `"..."`, `"None"`, `"3"`). */
function parsePart(part: string): Item {
  const p = part.trim();
  if (p === "...") return { kind: "ellipsis" };
  if (p === "None" || p === "null") return { kind: "none" };
  if (INT.test(p)) return { kind: "int", i: Number(p) };
  const bounds = p.split(":");
  if (bounds.length >= 2 && bounds.length <= 3) {
    const nums = bounds.map((b) => b.trim());
    if (nums.every((b) => b === "" || INT.test(b))) {
      const [start, stop, step] = nums.map((b) =>
        b === "" ? undefined : Number(b),
      );
      if (step === 0) throw new TorchError("slice step cannot be zero");
      if (step !== undefined && step < 0)
        throw new TorchError("step must be greater than zero");
      return { kind: "slice", start, stop, step: step ?? 1 };
    }
  }
  throw new IndexError(
    `invalid index '${part}': expected an integer, a slice such as '1:-1:2', '...' or 'None'`,
  );
}

/** The items of an index as written (`made` collects the tensors built from lists). */
function parseItems(
  x: Tensor,
  indices: readonly IndexItem[],
  made: Tensor[],
): Item[] {
  const out: Item[] = [];
  for (const it of indices) {
    if (it === null) out.push({ kind: "none" });
    else if (typeof it === "number") {
      if (!Number.isInteger(it)) throw badIndex("float");
      out.push({ kind: "int", i: it });
    } else if (typeof it === "string")
      out.push(...it.split(",").map(parsePart));
    else if (it instanceof Tensor) {
      if (!["int64", "int32", "bool", "uint8"].includes(it.dtype))
        throw new IndexError(
          "tensors used as indices must be long, int, byte or bool tensors",
        );
      out.push({ kind: "tensor", t: it });
    } else if (Array.isArray(it)) {
      const t: Tensor = makeTensor(it as number[], { device: x.device });
      made.push(t);
      if ((t.dtype as string) !== "int64" && (t.dtype as string) !== "bool")
        throw new IndexError(
          "tensors used as indices must be long, int, byte or bool tensors",
        );
      out.push({ kind: "tensor", t });
    } else throw badIndex(typeof it === "boolean" ? "bool" : typeof it);
  }
  return out;
}

const isMask = (t: Tensor) => t.dtype === "bool" || t.dtype === "uint8";
/** How many dims of the input an item consumes. */
const width = (i: Item) =>
  i.kind === "none" || i.kind === "ellipsis"
    ? 0
    : i.kind === "tensor" && isMask(i.t)
      ? i.t.ndim
      : 1;

/** The items with `...` replaced by whole-dim slices (and whole-dim slices for trailing dims). */
function expand(x: Tensor, items: Item[]): Item[] {
  const used = items.reduce((n, i) => n + width(i), 0);
  if (used > x.ndim)
    throw new IndexError(`too many indices for tensor of dimension ${x.ndim}`);
  const fill = (): Item => ({ kind: "slice", step: 1 });
  // PyTorch (unlike NumPy) accepts several ellipses: the first stands for the unindexed dims,
  // the others for none.
  const at = items.findIndex((i) => i.kind === "ellipsis");
  const rest = Array.from({ length: x.ndim - used }, fill);
  const others = items.filter((i) => i.kind !== "ellipsis");
  return at < 0
    ? [...items, ...rest]
    : [...others.slice(0, at), ...rest, ...others.slice(at)];
}

/** Applies integers, slices and new axes as views; returns the view and its index tensors. */
function basic(x: Tensor, items: Item[]): [Tensor, (Tensor | null)[]] {
  let t = x;
  let dim = 0; // dim of `t`
  let src = 0; // dim of `x`
  const adv: (Tensor | null)[] = [];
  for (const it of items) {
    if (it.kind === "int") {
      const n = x.shape[src]!;
      if (it.i < -n || it.i >= n)
        throw new IndexError(
          `index ${it.i} is out of bounds for dimension ${src} with size ${n}`,
        );
      t = t.select(dim, it.i);
      src++;
    } else if (it.kind === "slice") {
      t = t.slice(dim, it.start, it.stop, it.step);
      adv.push(null);
      dim++;
      src++;
    } else if (it.kind === "none") {
      t = t.unsqueeze(dim);
      adv.push(null);
      dim++;
    } else if (it.kind === "tensor") {
      if (isMask(it.t))
        throw new TorchError(
          "index(): a boolean mask selects as many elements as it has true values, which only a read of the mask tells: use await x.index_async(...)",
        );
      adv.push(it.t);
      dim++;
      src++;
    }
  }
  return [t, adv];
}

/** The broadcast of index shapes, or PyTorch's IndexError. */
function broadcastShapes(shapes: (readonly number[])[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes)
    s.forEach((n, i) => {
      const j = rank - s.length + i;
      if (n !== 1 && out[j] !== 1 && out[j] !== n)
        throw new IndexError(
          `shape mismatch: indexing tensors could not be broadcast together with shapes ${shapes.map(fmt).join(", ")}`,
        );
      if (n !== 1) out[j] = n;
    });
  return out;
}

/** `v[adv]` for a view `v` with one index tensor (or `null`) per dim. */
function advanced(v: Tensor, adv: (Tensor | null)[]): Tensor {
  const pos = adv.flatMap((t, d) => (t === null ? [] : [d]));
  if (pos.length === 0) return v.view(v.shape as number[]);
  const idx = pos.map((d) => adv[d]!);
  const b = broadcastShapes(idx.map((t) => t.shape));
  const rest = v.shape.flatMap((_, d) => (pos.includes(d) ? [] : [d]));
  const sizes = pos.map((d) => v.shape[d]!);
  const restSizes = rest.map((d) => v.shape[d]!);
  // The linear offset of each indexed element among the indexed dims (row-major). A negative
  // index counts from the end; one out of range makes the offset point past the end, which the
  // core refuses on the CPU (the GPU reads 0).
  let linear: Tensor | null = null;
  let valid: Tensor | null = null;
  let stride = prod(sizes);
  idx.forEach((t, k) => {
    const n = sizes[k]!;
    stride /= n;
    const i = t.to("int64");
    const w = where(i.lt(0), i.add(n), i);
    const ok = i.ge(-n).logical_and(i.lt(n));
    linear = linear === null ? w.mul(stride) : linear.add(w.mul(stride));
    valid = valid === null ? ok : valid.logical_and(ok);
  });
  const offsets = where(valid!, linear!, prod(sizes)).expand(b).reshape(-1);
  if (pos.length === 1) {
    // One index tensor (an embedding lookup, x[:, idx]): index_select along its dim, no copy
    // of the indexed tensor first.
    const d = pos[0]!;
    return v
      .index_select(d, offsets)
      .reshape([...v.shape.slice(0, d), ...b, ...v.shape.slice(d + 1)]);
  }
  const flat = v
    .permute([...pos, ...rest])
    .reshape([prod(sizes), ...restSizes]);
  let out = flat.index_select(0, offsets).reshape([...b, ...restSizes]);
  const together = pos.every((d, k) => k === 0 || d === pos[k - 1]! + 1);
  if (together && pos[0]! > 0) {
    // The broadcast dims go where the indexed dims were.
    const nb = b.length;
    const before = Array.from({ length: pos[0]! }, (_, k) => nb + k);
    const bs = Array.from({ length: nb }, (_, k) => k);
    const after = Array.from(
      { length: rest.length - pos[0]! },
      (_, k) => nb + pos[0]! + k,
    );
    out = out.permute([...before, ...bs, ...after]);
  }
  return out;
}

function read(x: Tensor, indices: readonly IndexItem[]): Tensor {
  const made: Tensor[] = [];
  try {
    return scope(() => {
      const [v, adv] = basic(x, expand(x, parseItems(x, indices, made)));
      return advanced(v, adv);
    });
  } finally {
    made.forEach((t) => t.dispose());
  }
}

/** Boolean masks replaced by the coordinates of their true elements (read from the device). */
async function masksToIndices(
  x: Tensor,
  indices: readonly IndexItem[],
  made: Tensor[],
): Promise<IndexItem[]> {
  const items = expand(x, parseItems(x, indices, made));
  const out: IndexItem[] = [];
  let src = 0;
  for (const it of items) {
    if (it.kind === "tensor" && isMask(it.t)) {
      const m = it.t;
      m.shape.forEach((n, j) => {
        if (n !== x.shape[src + j])
          throw new IndexError(
            `The shape of the mask ${fmt(m.shape)} at index ${j} does not match the shape of the indexed tensor ${fmt(x.shape)} at index ${src + j}`,
          );
      });
      const coords = (await nonzero(m.ndim === 0 ? m.reshape(1) : m, {
        as_tuple: true,
      })) as Tensor[];
      made.push(...coords);
      out.push(...coords);
    } else if (it.kind === "int") out.push(it.i);
    else if (it.kind === "none") out.push(null);
    else if (it.kind === "tensor") out.push(it.t);
    else if (it.kind === "slice")
      out.push(`${it.start ?? ""}:${it.stop ?? ""}:${it.step}`);
    src += width(it);
  }
  return out;
}

function broadcastsTo(from: readonly number[], to: readonly number[]): boolean {
  return (
    from.length <= to.length &&
    from.every((n, i) => n === 1 || n === to[to.length - from.length + i])
  );
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;

proto.index = function (this: Tensor, ...indices: IndexItem[]) {
  return read(this, indices);
};

proto.index_async = async function (this: Tensor, ...indices: IndexItem[]) {
  const made: Tensor[] = [];
  try {
    return read(this, await masksToIndices(this, indices, made));
  } finally {
    made.forEach((t) => t.dispose());
  }
};

proto.set = function (
  this: Tensor,
  index: IndexItem | readonly IndexItem[],
  value: Tensor | number | boolean,
) {
  const indices = Array.isArray(index)
    ? (index as readonly IndexItem[])
    : [index as IndexItem];
  if (
    !(value instanceof Tensor) &&
    typeof value !== "number" &&
    typeof value !== "boolean"
  )
    throw new TorchError(
      `set(): value must be a Tensor or a Number, not ${typeof value}`,
    );
  const made: Tensor[] = [];
  // PyTorch's `x[i] = v` casts `v` to x's dtype first.
  if (value instanceof Tensor && value.dtype !== this.dtype) {
    value = value.to(this.dtype);
    made.push(value);
  }
  try {
    const items = expand(this, parseItems(this, indices, made));
    if (items.some((i) => i.kind === "tensor" && isMask(i.t))) {
      // Masks go to index_put_ as they are (applied densely, no read).
      const list = items.map((i) => {
        if (i.kind === "tensor") return i.t;
        if (
          i.kind === "slice" &&
          i.start === undefined &&
          i.stop === undefined &&
          i.step === 1
        )
          return null;
        throw new TorchError(
          "set(): a boolean mask can be combined only with ':', '...' and index tensors",
        );
      });
      return writeBack(this, indexPut(this, list, value, false));
    }
    const grad =
      is_grad_enabled() &&
      (this.requires_grad || (value instanceof Tensor && value.requires_grad));
    if (!grad && !items.some((i) => i.kind === "tensor")) {
      // Basic indices only: write through the view.
      scope(() => {
        const [view] = basic(this, items);
        if (value instanceof Tensor) view.copy_(value);
        else view.fill_(value);
      });
      return this;
    }
    // The general case: the offsets of the indexed elements, read with the same rules from a
    // tensor of offsets, then one index_put on the flattened tensor, copied back (so autograd
    // sees a whole-tensor write).
    scope(() => {
      const offsets = read(
        arange(this.numel(), { dtype: "int64", device: this.device }).reshape(
          this.shape as number[],
        ),
        indices,
      );
      if (value instanceof Tensor && !broadcastsTo(value.shape, offsets.shape))
        throw new TorchError(
          `shape mismatch: value tensor of shape ${fmt(value.shape)} cannot be broadcast to indexing result of shape ${fmt(offsets.shape)}`,
        );
      const v =
        value instanceof Tensor
          ? value.expand(offsets.shape as number[])
          : value;
      const vals = v instanceof Tensor ? v.reshape(-1) : v;
      const result = this.reshape(-1)
        .index_put([offsets.reshape(-1)], vals)
        .reshape(this.shape as number[]);
      this.copy_(result);
    });
    return this;
  } finally {
    made.forEach((t) => t.dispose());
  }
};
