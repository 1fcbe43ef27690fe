/**
 * `torch.utils.data`'s datasets. A map-style dataset has `getitem(index)` and `len()` (PyTorch's
 * `__getitem__` and `__len__`); a plain array is one too. An iterable-style dataset
 * ({@link IterableDataset}) is iterated, synchronously or with `for await`.
 *
 * @module
 */

import { IndexError, ShapeError, TorchError } from "../../errors.js";
import { Generator, default_generator } from "../../generator.js";
import { args } from "../../schema/index.js";
import type { Dims } from "../../shapes/core.js";
import { Tensor } from "../../tensor/tensor.js";

/** Whether `v` is iterable (arrays, sets, generators, samplers). */
export function isIterable(v: unknown): v is Iterable<unknown> {
  return (
    v != null &&
    typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] ===
      "function"
  );
}

/** What has a length: a map-style dataset, an array, a sampler. */
export type Sized = { len(): number } | ArrayLike<unknown>;

/** A map-style dataset: `getitem(index)` and `len()`, or an array. */
export type MapDataset<T = unknown> =
  { getitem(index: number): T; len(): number } | ArrayLike<T>;

/** The length of a map-style dataset or array. */
export function datasetLength(d: unknown): number {
  if (d != null && typeof (d as { len?: unknown }).len === "function")
    return (d as { len(): number }).len();
  const n = (d as { length?: unknown })?.length;
  if (typeof n === "number") return n;
  throw new TorchError(
    `object of type '${d?.constructor?.name ?? typeof d}' has no len()`,
  );
}

/** Item `i` of a map-style dataset or array. */
export function datasetItem(d: unknown, i: number): unknown {
  if (d != null && typeof (d as { getitem?: unknown }).getitem === "function")
    return (d as { getitem(i: number): unknown }).getitem(i);
  if (d != null && typeof (d as { length?: unknown }).length === "number")
    return (d as ArrayLike<unknown>)[i];
  throw new TorchError(
    `'${d?.constructor?.name ?? typeof d}' object is not subscriptable`,
  );
}

/**
 * The base of map-style datasets: subclasses define `getitem(index)` and `len()`. (The base has no
 * `length`, so a subclass may define its own; the datasets here give `length` = `len()`.)
 */
export abstract class Dataset<T = unknown> {
  constructor() {
    args("utils.data.Dataset", arguments);
  }

  /** The sample at `index` (PyTorch's `__getitem__`). */
  abstract getitem(index: number): T;
  /** The number of samples (PyTorch's `__len__`). */
  abstract len(): number;
}

/**
 * The sample type of a dataset: what `getitem` returns, what an array holds, or what iteration
 * yields.
 */
export type SampleOf<D> = D extends { getitem(index: number): infer T }
  ? T
  : D extends ArrayLike<infer T>
    ? T
    : D extends IterableDataset<infer T>
      ? T
      : D extends Iterable<infer T>
        ? T
        : D extends AsyncIterable<infer T>
          ? T
          : unknown;

/**
 * The base of iterable-style datasets: subclasses define `[Symbol.iterator]` or
 * `[Symbol.asyncIterator]` (streams, fetched files).
 */
export abstract class IterableDataset<T = unknown> {
  constructor() {
    args("utils.data.IterableDataset", arguments);
  }

  [Symbol.iterator]?(): Iterator<T>;
  [Symbol.asyncIterator]?(): AsyncIterator<T>;
}

/** The rows of tensors `T`: each a tensor of the same dtype. */
export type RowsOf<T extends readonly Tensor[]> = {
  -readonly [K in keyof T]: T[K] extends Tensor<Dims, infer D>
    ? Tensor<number[], D>
    : Tensor;
};

/** Rows of tensors that share their first dimension: item `i` is `[t0[i], t1[i], …]`. */
export class TensorDataset<
  T extends readonly Tensor[] = Tensor[],
> extends Dataset<RowsOf<T>> {
  readonly tensors: T;

  constructor(...tensors: T) {
    super();
    const a = args("utils.data.TensorDataset", arguments);
    this.tensors = a.tensors as unknown as T;
    const n = this.tensors[0]?.shape[0];
    if (this.tensors.some((t) => t.ndim === 0 || t.shape[0] !== n))
      throw new ShapeError("Size mismatch between tensors");
  }

  /** `[t[index] for t in tensors]`. */
  getitem(index: number): RowsOf<T> {
    const n = this.len();
    if (!Number.isInteger(index) || index < -n || index >= n)
      throw new IndexError(
        `index ${index} is out of bounds for dimension 0 with size ${n}`,
      );
    return this.tensors.map((t) => t.select(0, index)) as RowsOf<T>;
  }

  /** The tensors' common first size. */
  len(): number {
    return this.tensors[0]?.shape[0] ?? 0;
  }

  /** `len()`, under the name JavaScript collections use. */
  get length(): number {
    return this.len();
  }
}

/** The items of `dataset` at `indices`, in that order. */
export class Subset<T = unknown> extends Dataset<T> {
  readonly dataset: MapDataset<T>;
  readonly indices: readonly number[];

  constructor(dataset: MapDataset<T>, indices: Iterable<number>) {
    super();
    const a = args("utils.data.Subset", arguments);
    this.dataset = a.dataset as MapDataset<T>;
    if (!isIterable(a.indices))
      throw new TorchError("Subset: indices should be an iterable of indices");
    this.indices = [...(a.indices as Iterable<number>)];
  }

  /** `dataset[indices[index]]`. */
  getitem(index: number): T {
    const n = this.indices.length;
    const i = index < 0 ? index + n : index;
    if (!(i >= 0 && i < n)) throw new IndexError("list index out of range");
    return datasetItem(this.dataset, this.indices[i]!) as T;
  }

  /** The number of indices. */
  len(): number {
    return this.indices.length;
  }

  /** `len()`, under the name JavaScript collections use. */
  get length(): number {
    return this.len();
  }
}

/** Several map-style datasets end to end. */
export class ConcatDataset<T = unknown> extends Dataset<T> {
  readonly datasets: readonly MapDataset<T>[];
  readonly cumulative_sizes: readonly number[];

  constructor(datasets: Iterable<MapDataset<T>>) {
    super();
    const a = args("utils.data.ConcatDataset", arguments);
    if (!isIterable(a.datasets))
      throw new TorchError("datasets should be an iterable of datasets");
    const list = [...(a.datasets as Iterable<MapDataset<T>>)];
    if (list.length === 0)
      throw new TorchError("datasets should not be an empty iterable");
    for (const d of list)
      if (d instanceof IterableDataset)
        throw new TorchError("ConcatDataset does not support IterableDataset");
    this.datasets = list;
    let s = 0;
    this.cumulative_sizes = list.map((d) => (s += datasetLength(d)));
  }

  /** The sample at `index` of the datasets end to end (negative counts from the end). */
  getitem(index: number): T {
    const n = this.len();
    if (index < 0) {
      if (-index > n)
        throw new TorchError(
          "absolute value of index should not exceed dataset length",
        );
      index += n;
    }
    const k = this.cumulative_sizes.findIndex((c) => index < c);
    if (k < 0) throw new IndexError("list index out of range");
    const start = k === 0 ? 0 : this.cumulative_sizes[k - 1]!;
    return datasetItem(this.datasets[k], index - start) as T;
  }

  /** The datasets' total length. */
  len(): number {
    return this.cumulative_sizes.at(-1)!;
  }

  /** `len()`, under the name JavaScript collections use. */
  get length(): number {
    return this.len();
  }
}

/**
 * Splits `dataset` into non-overlapping {@link Subset}s of the given lengths (or fractions of its
 * length, the remainder spread one by one from the first), through `randperm` of its length
 * drawn from `generator` (PyTorch's order for the same seed).
 */
export function random_split<T>(
  dataset: MapDataset<T>,
  lengths: readonly number[],
  generator: Generator = default_generator,
): Subset<T>[] {
  const a = args("utils.data.random_split", arguments);
  const g = a.generator ?? default_generator;
  if (!(g instanceof Generator))
    throw new TorchError("random_split: generator must be a torch.Generator");
  const n = datasetLength(a.dataset);
  let sizes = [...a.lengths];
  const total = sizes.reduce((s, v) => s + v, 0);
  // PyTorch reads lengths as fractions when they sum to 1 (math.isclose) and 1 <= len(dataset).
  if (Math.abs(total - 1) <= 1e-9 && total <= n) {
    sizes.forEach((f, i) => {
      if (f < 0 || f > 1)
        throw new TorchError(`Fraction at index ${i} is not between 0 and 1`);
    });
    sizes = sizes.map((f) => Math.floor(n * f));
    const rest = n - sizes.reduce((s, v) => s + v, 0);
    for (let i = 0; i < rest; i++) sizes[i % sizes.length]! += 1;
  }
  if (sizes.reduce((s, v) => s + v, 0) !== n)
    throw new TorchError(
      "Sum of input lengths does not equal the length of the input dataset!",
    );
  const perm = g._randperm(n);
  const out: Subset<T>[] = [];
  let offset = 0;
  for (const len of sizes) {
    out.push(
      new Subset(a.dataset as MapDataset<T>, perm.slice(offset, offset + len)),
    );
    offset += len;
  }
  return out;
}
