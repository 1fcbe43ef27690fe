/**
 * `torch.Generator`: PyTorch's CPU random generator, a Mersenne Twister (mt19937) seeded as
 * PyTorch seeds it, so that the index streams drawn from it — `torch.utils.data`'s shuffles,
 * samplers and `random_split` — are the ones PyTorch draws for the same seed. Tensor factories
 * (`torch.rand`, …) draw from the core's Philox generator instead and do not take a Generator;
 * `torch.manual_seed` seeds both, so {@link default_generator}'s stream equals PyTorch's default
 * CPU generator's only while nothing else draws from it (in PyTorch, `torch.rand` and module
 * initialisation draw from it too).
 *
 * @module
 */

import { TorchError } from "./errors.js";
import { args } from "./schema/index.js";

const N = 624;
const M = 397;
/** The seed of a fresh `torch.Generator()` in PyTorch (`default_rng_seed_val`). */
const DEFAULT_SEED = 67280421310721n;

/** A seeded source of random integers with PyTorch's CPU stream (mt19937). */
export class Generator {
  /** The device the generator is for (`"cpu"`: index streams are drawn on the host). */
  readonly device: string;
  #state = new Uint32Array(N);
  #index = N;
  #seed = DEFAULT_SEED;

  constructor(device: string = "cpu", options: { device?: string } = {}) {
    const a = args("Generator", arguments);
    void options;
    if (a.device !== "cpu")
      throw new TorchError(
        `torch.Generator: only the "cpu" generator exists (index streams are drawn on the host), not "${a.device}"`,
      );
    this.device = a.device;
    this.#reseed(DEFAULT_SEED);
  }

  /** Seeds the generator (PyTorch keeps the low 32 bits for the twister's state); returns it. */
  manual_seed(seed: number | bigint): this {
    if (!(
      typeof seed === "bigint" ||
      (typeof seed === "number" && Number.isInteger(seed))
    ))
      throw new TorchError(
        `manual_seed expected an integer seed, got ${String(seed)}`,
      );
    let s = BigInt(seed);
    if (s < -(2n ** 63n) || s >= 2n ** 64n)
      throw new TorchError(
        "Overflow when unpacking long long" /* PyTorch's message for an out-of-range seed */,
      );
    if (s < 0n) s += 2n ** 64n;
    this.#reseed(s);
    return this;
  }

  /** The seed the generator was last seeded with. */
  initial_seed(): bigint {
    return this.#seed;
  }

  /** Seeds the generator from a non-deterministic source and returns the seed. */
  seed(): bigint {
    const words = new Uint32Array(2);
    globalThis.crypto.getRandomValues(words);
    const s = (BigInt(words[0]!) << 32n) | BigInt(words[1]!);
    this.#reseed(s);
    return s;
  }

  #reseed(seed: bigint): void {
    this.#seed = seed;
    const mt = this.#state;
    mt[0] = Number(seed & 0xffffffffn);
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.#index = N;
  }

  #twist(): void {
    const mt = this.#state;
    for (let i = 0; i < N; i++) {
      const y = (mt[i]! & 0x80000000) | (mt[(i + 1) % N]! & 0x7fffffff);
      let v = mt[(i + M) % N]! ^ (y >>> 1);
      if (y & 1) v ^= 0x9908b0df;
      mt[i] = v >>> 0;
    }
    this.#index = 0;
  }

  /** @internal The next 32-bit output (PyTorch's `CPUGeneratorImpl::random`). */
  _random(): number {
    if (this.#index >= N) this.#twist();
    let y = this.#state[this.#index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** @internal The next 64-bit output: two 32-bit ones, the first the high half. */
  _random64(): bigint {
    const hi = this._random();
    const lo = this._random();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** @internal A uniform double in [0, 1) from 53 bits of `_random64` (PyTorch's `uniform_real`). */
  _uniform(): number {
    return Number(this._random64() & ((1n << 53n) - 1n)) * 2 ** -53;
  }

  /** @internal `torch.randperm(n, generator=self).tolist()` on PyTorch's CPU. */
  _randperm(n: number): number[] {
    const r = Array.from({ length: n }, (_, i) => i);
    if (n >= 0xffffffff / 20)
      throw new TorchError(
        `randperm with a Generator supports n < ${Math.floor(0xffffffff / 20)}, got ${n}`,
      );
    for (let i = 0; i < n - 1; i++) {
      const z = this._random() % (n - i);
      const t = r[i]!;
      r[i] = r[z + i]!;
      r[z + i] = t;
    }
    return r;
  }

  /** @internal `torch.randint(high, (size,), generator=self).tolist()` on PyTorch's CPU. */
  _randint(high: number, size: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < size; i++)
      out.push(
        high >= 2 ** 32
          ? Number(this._random64() % BigInt(high))
          : this._random() % high,
      );
    return out;
  }

  /** @internal The twister's whole state: seed (2 words, low first), index, the 624 words. */
  _getState(): Uint32Array {
    const out = new Uint32Array(3 + N);
    out[0] = Number(this.#seed & 0xffffffffn);
    out[1] = Number(this.#seed >> 32n);
    out[2] = this.#index;
    out.set(this.#state, 3);
    return out;
  }

  /** @internal Restores what {@link _getState} gave. */
  _setState(words: Uint32Array): void {
    if (words.length !== 3 + N || words[2]! > N)
      throw new TorchError("Invalid mt19937 state");
    this.#seed = (BigInt(words[1]!) << 32n) | BigInt(words[0]!);
    this.#index = words[2]!;
    this.#state.set(words.subarray(3));
  }

  /** @internal `torch.empty((), dtype=torch.int64).random_(generator=self)`: 63 bits. */
  _randomInt64(): bigint {
    return this._random64() % (1n << 63n);
  }
}

/**
 * The generator `torch.utils.data` draws from when given none (PyTorch's
 * `torch.default_generator`); `torch.manual_seed` seeds it.
 */
export const default_generator = new Generator();
