/**
 * `torch.utils.data.DataLoader`: batches of a dataset's samples, in the order of a sampler, made
 * by a collate function. Iterated synchronously (`for (const b of loader)`) or with `for await`
 * (which also reads async-iterable datasets and makes the next batch — its tensors uploaded to
 * `device` — before handing out the current one, so the upload overlaps the caller's work on it).
 *
 * Runs in the calling thread: `num_workers` must be 0. With `shuffle`, each epoch first draws the
 * workers' base seed from the loader's generator (or `torch.default_generator`), then the
 * permutation, as PyTorch does, so a seeded generator gives PyTorch's order.
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import type { Device } from "../../dtype.js";
import { Generator, default_generator } from "../../generator.js";
import { scope } from "../../lifetime.js";
import { args } from "../../schema/index.js";
import { Tensor } from "../../tensor/tensor.js";
import {
  collateOn,
  convert,
  default_collate,
  type Collated,
  type Converted,
} from "./collate.js";
import {
  IterableDataset,
  datasetItem,
  datasetLength,
  isIterable,
  type MapDataset,
  type SampleOf,
} from "./datasets.js";
import {
  BatchSampler,
  RandomSampler,
  SequentialSampler,
  samplerLength,
} from "./samplers.js";

/**
 * Options of {@link DataLoader} (PyTorch's keyword arguments, and `device`), for samples of type
 * `S`, batches of type `B`, and `N` the type of `batch_size` (`null`: no batching).
 */
export interface DataLoaderOptions<
  S = unknown,
  B = unknown,
  N extends number | null = number | null,
> {
  /** Samples per batch (1); `null` turns batching off (each sample converted on its own). */
  batch_size?: N;
  /** A fresh random order each epoch (mutually exclusive with `sampler`). */
  shuffle?: boolean | null;
  /** The indices to load, in order (an iterable; a {@link Sampler}). */
  sampler?: Iterable<number> | null;
  /** Lists of indices, one per batch (excludes batch_size, shuffle, sampler, drop_last). */
  batch_sampler?: Iterable<number[]> | null;
  /** Must be 0: samples are loaded in the calling thread. */
  num_workers?: number;
  /**
   * Makes a batch of a list of samples ({@link default_collate} by default); without batching,
   * it is called with each sample ({@link default_convert} by default).
   */
  collate_fn?: ((batch: N extends null ? S : S[]) => B) | null;
  /** Accepted for PyTorch compatibility: ignored (there is no pinned host memory here). */
  pin_memory?: boolean;
  /** Drops the last batch when shorter than batch_size. */
  drop_last?: boolean;
  /** Must be 0 (no workers to wait for). */
  timeout?: number;
  /** The generator of shuffles and of the base seed ({@link default_generator} by default). */
  generator?: Generator | null;
  /** webtorch: the device the default collation makes the batch's tensors on. */
  device?: Device | null;
}

/**
 * Loads batches of a dataset (PyTorch's `DataLoader`, single-process). Its type follows the
 * dataset's: iterating a loader of a `TensorDataset` of two tensors gives `[Tensor, Tensor]`
 * batches; a `collate_fn` gives its own result type.
 */
export class DataLoader<
  D = unknown,
  N extends number | null = number,
  B = N extends null ? Converted<SampleOf<D>> : Collated<SampleOf<D>>,
>
  implements Iterable<B>, AsyncIterable<B>
{
  readonly dataset: D;
  readonly batch_size: number | null;
  readonly drop_last: boolean;
  readonly sampler: Iterable<number> | null;
  readonly batch_sampler: Iterable<number[]> | null;
  readonly collate_fn: (batch: unknown[]) => unknown;
  readonly generator: Generator | null;
  readonly device: Device | null;
  readonly #iterable: boolean;
  readonly #autoCollate: boolean;

  constructor(dataset: D, options: DataLoaderOptions<SampleOf<D>, B, N> = {}) {
    const a = args("utils.data.DataLoader", arguments);
    void options;
    if (a.num_workers < 0)
      throw new TorchError(
        "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.",
      );
    if (a.num_workers > 0)
      throw new TorchError(
        "DataLoader: num_workers > 0 is not supported (samples are loaded in the calling thread); use num_workers=0",
      );
    if (a.timeout < 0)
      throw new TorchError("timeout option should be non-negative");
    if (a.timeout > 0)
      throw new TorchError(
        "DataLoader: timeout is for worker processes; use timeout=0",
      );
    if (a.generator != null && !(a.generator instanceof Generator))
      throw new TorchError("DataLoader: generator must be a torch.Generator");
    this.dataset = a.dataset as D;
    this.generator = (a.generator as Generator | null) ?? null;
    this.device = (a.device as Device | null) ?? null;
    this.#iterable =
      a.dataset instanceof IterableDataset ||
      (!(typeof (a.dataset as { getitem?: unknown })?.getitem === "function") &&
        !Array.isArray(a.dataset) &&
        (isIterable(a.dataset) ||
          typeof (a.dataset as { [Symbol.asyncIterator]?: unknown })?.[
            Symbol.asyncIterator
          ] === "function"));
    let { batch_size, shuffle, sampler, batch_sampler, drop_last } = a;
    if (this.#iterable) {
      if (shuffle)
        throw new TorchError(
          `DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=${shuffle}`,
        );
      if (sampler != null)
        throw new TorchError(
          `DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=${String(sampler)}`,
        );
      if (batch_sampler != null)
        throw new TorchError(
          `DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler=${String(batch_sampler)}`,
        );
    }
    shuffle = shuffle ?? false;
    if (sampler != null && shuffle)
      throw new TorchError("sampler option is mutually exclusive with shuffle");
    if (batch_sampler != null) {
      if (batch_size !== 1 || shuffle || sampler != null || drop_last)
        throw new TorchError(
          "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
        );
      batch_size = null;
      drop_last = false;
    } else if (batch_size === null && drop_last) {
      throw new TorchError(
        "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
      );
    }
    if (sampler != null && !isIterable(sampler))
      throw new TorchError("sampler should be an iterable of indices");
    if (batch_sampler != null && !isIterable(batch_sampler))
      throw new TorchError(
        "batch_sampler should be an iterable of index lists",
      );
    if (!this.#iterable && sampler == null)
      sampler = shuffle
        ? new RandomSampler(a.dataset as MapDataset, {
            generator: this.generator,
          })
        : new SequentialSampler(a.dataset as MapDataset);
    if (batch_size !== null && batch_sampler == null && !this.#iterable)
      batch_sampler = new BatchSampler(
        sampler as Iterable<number>,
        batch_size,
        drop_last,
      );
    this.batch_size = batch_size;
    this.drop_last = drop_last;
    this.sampler = (sampler as Iterable<number> | null) ?? null;
    this.batch_sampler = (batch_sampler as Iterable<number[]> | null) ?? null;
    this.#autoCollate =
      batch_sampler != null || (this.#iterable && batch_size !== null);
    this.collate_fn =
      (a.collate_fn as ((b: unknown[]) => unknown) | null) ??
      (this.#autoCollate
        ? (b: unknown[]) => collateOn(b, this.device ?? undefined)
        : (d: unknown) => convert(d, this.device ?? undefined));
  }

  /** Batches per epoch (samples, without batching); an iterable dataset's needs its `len()`. */
  len(): number {
    if (this.#iterable) {
      const n = datasetLength(this.dataset);
      if (this.batch_size === null) return n;
      return this.drop_last
        ? Math.floor(n / this.batch_size)
        : Math.ceil(n / this.batch_size);
    }
    const src = this.batch_sampler ?? this.sampler;
    const n = samplerLength(src);
    if (n === undefined)
      throw new TorchError("DataLoader: its sampler has no len()");
    return n;
  }

  /** The start of an epoch: PyTorch's base-seed draw from the loader's generator. */
  #startEpoch(): void {
    (this.generator ?? default_generator)._randomInt64();
  }

  /** Collates `samples`, freeing the tensors made while reading them (not the batch). */
  #make(samples: unknown): unknown {
    return scope(() => this.collate_fn(samples as unknown[]));
  }

  /** The index groups of a map-style dataset's epoch (lists, or single indices). */
  *#indices(): Generator_<number[] | number> {
    if (this.batch_sampler !== null) yield* this.batch_sampler;
    else yield* this.sampler!;
  }

  *[Symbol.iterator](): Iterator<B> {
    if (this.#iterable) {
      if (!isIterable(this.dataset))
        throw new TorchError(
          "DataLoader: this dataset is async-iterable only; iterate with `for await`",
        );
      this.#startEpoch();
      yield* this.#fromStream(this.dataset[Symbol.iterator]()) as Iterable<B>;
      return;
    }
    this.#startEpoch();
    for (const idx of this.#indices()) yield this.#fetch(idx) as B;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<B> {
    let source: Iterator<unknown> | AsyncIterator<unknown>;
    this.#startEpoch();
    if (this.#iterable) {
      const d = this.dataset as {
        [Symbol.asyncIterator]?: () => AsyncIterator<unknown>;
        [Symbol.iterator]?: () => Iterator<unknown>;
      };
      source = d[Symbol.asyncIterator]?.() ?? d[Symbol.iterator]!();
      source = this.#streamBatches(source);
    } else {
      const idx = this.#indices();
      source = {
        next: (): IteratorResult<unknown> => {
          const r = idx.next();
          return r.done ? r : { done: false, value: this.#fetch(r.value) };
        },
      };
    }
    // The next batch is made (and its upload queued) before the current one is handed out.
    let pending: Promise<IteratorResult<unknown>> | null = Promise.resolve(
      source.next(),
    );
    try {
      for (;;) {
        const r = await pending;
        if (r.done) {
          pending = null;
          return;
        }
        pending = Promise.resolve(source.next());
        yield r.value as B;
      }
    } finally {
      // Left early (`break`): the batch made ahead is nobody's, so it is freed.
      if (pending !== null) {
        const r = await pending.catch(() => null);
        if (r && !r.done) disposeTensors(r.value);
      }
    }
  }

  #fetch(idx: number[] | number): unknown {
    if (typeof idx === "number" && !this.#autoCollate)
      return this.#make(datasetItem(this.dataset, idx));
    const list = (idx as number[]).map((i) => datasetItem(this.dataset, i));
    return this.#make(list);
  }

  *#fromStream(it: Iterator<unknown>): Iterable<unknown> {
    if (!this.#autoCollate) {
      for (let r = it.next(); !r.done; r = it.next()) yield this.#make(r.value);
      return;
    }
    let batch: unknown[] = [];
    for (let r = it.next(); !r.done; r = it.next()) {
      batch.push(r.value);
      if (batch.length === this.batch_size) {
        yield this.#make(batch);
        batch = [];
      }
    }
    if (batch.length > 0 && !this.drop_last) yield this.#make(batch);
  }

  async *#streamBatches(
    it: Iterator<unknown> | AsyncIterator<unknown>,
  ): AsyncGenerator<unknown> {
    let batch: unknown[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) {
      if (!this.#autoCollate) {
        yield this.#make(r.value);
        continue;
      }
      batch.push(r.value);
      if (batch.length === this.batch_size) {
        yield this.#make(batch);
        batch = [];
      }
    }
    if (this.#autoCollate && batch.length > 0 && !this.drop_last)
      yield this.#make(batch);
  }
}

/** Disposes the tensors in a batch (nested in arrays and plain objects). */
function disposeTensors(v: unknown): void {
  if (v instanceof Tensor) v.dispose();
  else if (Array.isArray(v)) v.forEach(disposeTensors);
  else if (v !== null && typeof v === "object")
    Object.values(v).forEach(disposeTensors);
}

type Generator_<T> = globalThis.Generator<T, void, unknown>;

export { default_collate };
