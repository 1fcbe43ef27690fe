/**
 * `torch.utils.data`'s samplers: iterables of dataset indices (or of index lists, for
 * {@link BatchSampler}). The random ones draw from a {@link Generator} (PyTorch's CPU mt19937
 * stream), so for the same seed they give PyTorch's order. Without a generator, they seed a fresh
 * one from `torch.default_generator` (seeded by `torch.manual_seed`) as PyTorch does.
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import { Generator, default_generator } from "../../generator.js";
import { args } from "../../schema/index.js";
import { Tensor } from "../../tensor/tensor.js";
import { datasetLength, isIterable, type Sized } from "./datasets.js";

/** The base of the samplers: an iterable of indices (PyTorch's `Sampler`). */
export abstract class Sampler<T = number> implements Iterable<T> {
  constructor() {
    args("utils.data.Sampler", arguments);
  }

  abstract [Symbol.iterator](): Iterator<T>;
}

/** The length of a sampler (its `len()`), or undefined when it has none. */
export function samplerLength(s: unknown): number | undefined {
  if (Array.isArray(s)) return s.length;
  const len = (s as { len?: unknown })?.len;
  return typeof len === "function" ? (len.call(s) as number) : undefined;
}

function checkGenerator(g: unknown): Generator | null {
  if (g == null) return null;
  if (!(g instanceof Generator))
    throw new TorchError(
      `expected generator to be a torch.Generator, got ${typeof g}`,
    );
  return g;
}

/** Indices `0 … len(data_source) - 1` in order. */
export class SequentialSampler extends Sampler {
  readonly data_source: Sized;

  constructor(data_source: Sized) {
    super();
    const a = args("utils.data.SequentialSampler", arguments);
    this.data_source = a.data_source as Sized;
  }

  *[Symbol.iterator](): Iterator<number> {
    const n = datasetLength(this.data_source);
    for (let i = 0; i < n; i++) yield i;
  }

  /** The number of indices an epoch yields. */
  len(): number {
    return datasetLength(this.data_source);
  }
}

/** A fresh generator seeded from the default one, as PyTorch seeds it (an int64 `random_()`). */
function freshGenerator(): Generator {
  return new Generator().manual_seed(default_generator._randomInt64());
}

/** Options of {@link RandomSampler}. */
export interface RandomSamplerOptions {
  /** Draws with replacement (`num_samples` independent draws). */
  replacement?: boolean;
  /** Indices per epoch (the dataset's length by default). */
  num_samples?: number | null;
  /** The generator drawn from (a fresh one seeded from `torch.default_generator` by default). */
  generator?: Generator | null;
}

/**
 * Random indices: a permutation of the dataset (repeated, then cut, when `num_samples` exceeds
 * its length), or `num_samples` draws with replacement.
 */
export class RandomSampler extends Sampler {
  readonly data_source: Sized;
  readonly replacement: boolean;
  readonly generator: Generator | null;
  readonly #numSamples: number | null;

  constructor(data_source: Sized, options: RandomSamplerOptions = {}) {
    super();
    const a = args("utils.data.RandomSampler", arguments);
    void options;
    this.data_source = a.data_source as Sized;
    this.replacement = a.replacement;
    this.#numSamples = a.num_samples;
    this.generator = checkGenerator(a.generator);
    if (this.#numSamples !== null && this.#numSamples <= 0)
      throw new TorchError(
        `num_samples should be a positive integer value, but got num_samples=${this.#numSamples}`,
      );
  }

  /** How many indices an epoch yields. */
  get num_samples(): number {
    return this.#numSamples ?? datasetLength(this.data_source);
  }

  *[Symbol.iterator](): Iterator<number> {
    const n = datasetLength(this.data_source);
    const generator = this.generator ?? freshGenerator();
    const k = this.num_samples;
    if (this.replacement) {
      for (let i = 0; i < Math.floor(k / 32); i++)
        yield* generator._randint(n, 32);
      yield* generator._randint(n, k % 32);
    } else {
      for (let i = 0; i < Math.floor(k / n); i++) yield* generator._randperm(n);
      yield* generator._randperm(n).slice(0, k % n);
    }
  }

  /** The number of indices an epoch yields. */
  len(): number {
    return this.num_samples;
  }
}

/** The given indices in a random order (a fresh permutation each epoch). */
export class SubsetRandomSampler extends Sampler {
  readonly indices: readonly number[];
  readonly generator: Generator | null;

  constructor(
    indices: Iterable<number>,
    options: { generator?: Generator | null } = {},
  ) {
    super();
    const a = args("utils.data.SubsetRandomSampler", arguments);
    void options;
    if (!isIterable(a.indices))
      throw new TorchError("indices should be an iterable of indices");
    this.indices = [...(a.indices as Iterable<number>)];
    this.generator = checkGenerator(a.generator);
  }

  *[Symbol.iterator](): Iterator<number> {
    const g = this.generator ?? freshGenerator();
    for (const i of g._randperm(this.indices.length)) yield this.indices[i]!;
  }

  /** The number of indices an epoch yields. */
  len(): number {
    return this.indices.length;
  }
}

/**
 * `num_samples` indices drawn with probabilities proportional to `weights` (with replacement:
 * PyTorch's inverse-CDF draw from its CPU generator, so the same indices as PyTorch).
 */
export class WeightedRandomSampler extends Sampler {
  readonly weights: readonly number[];
  readonly num_samples: number;
  readonly replacement: boolean;
  readonly generator: Generator | null;

  constructor(
    weights: Iterable<number>,
    num_samples: number,
    options: { replacement?: boolean; generator?: Generator | null } = {},
  ) {
    super();
    const a = args("utils.data.WeightedRandomSampler", arguments);
    void options;
    if (a.num_samples <= 0)
      throw new TorchError(
        `num_samples should be a positive integer value, but got num_samples=${a.num_samples}`,
      );
    const w = a.weights;
    // A tensor's values are read asynchronously, so weights come as numbers.
    const list = isIterable(w) && !(w instanceof Tensor) ? [...w] : null;
    if (list === null || !list.every((v) => typeof v === "number"))
      throw new TorchError(
        "WeightedRandomSampler: weights should be a 1d sequence of numbers (read a tensor's with `await w.tolist()`)",
      );
    this.weights = list as number[];
    this.num_samples = a.num_samples;
    this.replacement = a.replacement;
    this.generator = checkGenerator(a.generator);
    if (!this.replacement || this.num_samples === 1)
      throw new TorchError(
        "WeightedRandomSampler: drawing without replacement (or a single sample) uses PyTorch's exponential draws, which webtorch does not reproduce; use replacement=True with num_samples > 1",
      );
    if (this.weights.some((v) => !(v >= 0) || !Number.isFinite(v)))
      throw new TorchError(
        "probability tensor contains either `inf`, `nan` or element < 0",
      );
    if (!(this.weights.reduce((s, v) => s + v, 0) > 0))
      throw new TorchError(
        "invalid multinomial distribution (sum of probabilities <= 0)",
      );
  }

  *[Symbol.iterator](): Iterator<number> {
    const g = this.generator ?? freshGenerator();
    const n = this.weights.length;
    const cum = new Float64Array(n);
    let sum = 0;
    for (let i = 0; i < n; i++) cum[i] = sum += this.weights[i]!;
    for (let i = 0; i < n; i++) cum[i]! /= sum;
    for (let s = 0; s < this.num_samples; s++) {
      const u = g._uniform();
      let lo = 0;
      let hi = n;
      while (hi - lo > 0) {
        const mid = (lo + (hi - lo) / 2) | 0;
        if (cum[mid]! < u) lo = mid + 1;
        else hi = mid;
      }
      yield lo;
    }
  }

  /** The number of indices an epoch yields. */
  len(): number {
    return this.num_samples;
  }
}

/** Groups another sampler's indices into lists of `batch_size` (the last shorter unless dropped). */
export class BatchSampler extends Sampler<number[]> {
  readonly sampler: Iterable<number>;
  readonly batch_size: number;
  readonly drop_last: boolean;

  constructor(
    sampler: Iterable<number>,
    batch_size: number,
    drop_last: boolean,
  ) {
    super();
    const a = args("utils.data.BatchSampler", arguments);
    if (a.batch_size <= 0)
      throw new TorchError(
        `batch_size should be a positive integer value, but got batch_size=${a.batch_size}`,
      );
    if (!isIterable(a.sampler))
      throw new TorchError("sampler should be an iterable of indices");
    this.sampler = a.sampler as Iterable<number>;
    this.batch_size = a.batch_size;
    this.drop_last = a.drop_last;
  }

  *[Symbol.iterator](): Iterator<number[]> {
    let batch: number[] = [];
    for (const i of this.sampler) {
      batch.push(i);
      if (batch.length === this.batch_size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0 && !this.drop_last) yield batch;
  }

  /** The number of batches an epoch yields. */
  len(): number {
    const n = samplerLength(this.sampler);
    if (n === undefined)
      throw new TorchError("BatchSampler: its sampler has no len()");
    return this.drop_last
      ? Math.floor(n / this.batch_size)
      : Math.ceil(n / this.batch_size);
  }
}
