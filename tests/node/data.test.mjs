// torch.utils.data and torch.Generator against PyTorch (fixtures from tests/parity/data_gen.py):
// the index streams of seeded generators (randperm, randint), every sampler's order, DataLoader
// batches over two epochs (values, dtypes, shuffled order, drop_last, no batching), the order
// drawn from torch.default_generator after torch.manual_seed, random_split, Subset,
// ConcatDataset and default_collate — on WebGPU and the CPU backend; `for await` gives the
// same batches as sync iteration, and bad arguments raise TorchErrors.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
await torch.init();
const D = torch.utils.data;
const FIX = JSON.parse(
  readFileSync(new URL("../parity/fixtures/data.json", import.meta.url)),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const gen = (seed) => new torch.Generator().manual_seed(seed);
const range = (n) => Array.from({ length: n }, (_, i) => i);
// webtorch has no float64: Python floats collate to float32 here (docs/migration.md).
const dtypeOf = (d) => (d === "float64" ? "float32" : d);

/** A collated batch as the fixture writes it: tensors as {dtype, shape, values}. */
async function plain(x) {
  if (x instanceof torch.Tensor)
    return {
      dtype: x.dtype,
      shape: [...x.shape],
      values: await x.flatten().tolist(),
    };
  if (Array.isArray(x)) return Promise.all(x.map(plain));
  if (x !== null && typeof x === "object") {
    const out = {};
    for (const [k, v] of Object.entries(x)) out[k] = await plain(v);
    return out;
  }
  return x;
}

/** The fixture's form with PyTorch's dtypes mapped to webtorch's. */
function expected(x) {
  if (Array.isArray(x)) return x.map(expected);
  if (x !== null && typeof x === "object") {
    if ("dtype" in x && "values" in x) return { ...x, dtype: dtypeOf(x.dtype) };
    return Object.fromEntries(
      Object.entries(x).map(([k, v]) => [k, expected(v)]),
    );
  }
  return x;
}

describe("torch.Generator", () => {
  test("randperm streams equal PyTorch's CPU randperm for the same seed", () => {
    for (const [key, want] of Object.entries(FIX.randperm)) {
      const [seed, n] = key.split(":");
      assert.deepEqual(gen(BigInt(seed))._randperm(Number(n)), want, key);
    }
  });
  test("randint streams equal PyTorch's", () => {
    for (const [key, want] of Object.entries(FIX.randint)) {
      const [seed, high] = key.split(":");
      assert.deepEqual(gen(Number(seed))._randint(Number(high), 40), want);
    }
  });
  test("arguments", () => {
    assert.equal(new torch.Generator().initial_seed(), 67280421310721n);
    assert.equal(gen(5).initial_seed(), 5n);
    assert.throws(() => new torch.Generator("webgpu"), torch.TorchError);
    assert.throws(
      () => new torch.Generator({ devise: "cpu" }),
      /unexpected keyword argument 'devise'/,
    );
    assert.throws(() => gen(0.5), torch.TorchError);
  });
});

describe("samplers", () => {
  const S = FIX.samplers;
  test("SequentialSampler, BatchSampler", () => {
    assert.deepEqual([...new D.SequentialSampler(range(7))], S.sequential);
    const seq = new D.SequentialSampler(range(10));
    assert.deepEqual([...new D.BatchSampler(seq, 3, false)], S.batch);
    assert.deepEqual([...new D.BatchSampler(seq, 3, true)], S.batch_drop);
    assert.equal(new D.BatchSampler(seq, 3, false).len(), S.batch.length);
    assert.equal(new D.BatchSampler(seq, 3, true).len(), S.batch_drop.length);
  });
  test("RandomSampler: permutations, num_samples, replacement, epochs", () => {
    assert.deepEqual(
      [...new D.RandomSampler(range(10), { generator: gen(4) })],
      S.random,
    );
    const r = new D.RandomSampler(range(10), { generator: gen(4) });
    assert.deepEqual([[...r], [...r]], S.random_epochs);
    assert.deepEqual(
      [
        ...new D.RandomSampler(range(10), {
          replacement: true,
          num_samples: 70,
          generator: gen(5),
        }),
      ],
      S.random_replacement,
    );
    assert.deepEqual(
      [
        ...new D.RandomSampler(range(10), {
          num_samples: 25,
          generator: gen(6),
        }),
      ],
      S.random_num_samples,
    );
  });
  test("SubsetRandomSampler, WeightedRandomSampler", () => {
    assert.deepEqual(
      [
        ...new D.SubsetRandomSampler([10, 20, 30, 40, 50, 60], {
          generator: gen(7),
        }),
      ],
      S.subset_random,
    );
    assert.deepEqual(
      [
        ...new D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 20, {
          generator: gen(8),
        }),
      ],
      S.weighted,
    );
  });
  test("the default generator after torch.manual_seed", () => {
    const F = FIX.default_generator;
    torch.manual_seed(F.seed);
    assert.deepEqual([...new D.RandomSampler(range(10))], F.sampler);
  });
  test("bad arguments raise TorchErrors", () => {
    assert.throws(
      () => new D.RandomSampler(range(3), { replacment: true }),
      /unexpected keyword argument 'replacment'/,
    );
    assert.throws(
      () => new D.RandomSampler(range(3), { num_samples: 0 }),
      /num_samples should be a positive integer value, but got num_samples=0/,
    );
    assert.throws(
      () => new D.BatchSampler(range(3), 0, false),
      /batch_size should be a positive integer value, but got batch_size=0/,
    );
    assert.throws(
      () => new D.RandomSampler(range(3), { generator: 3 }),
      torch.TorchError,
    );
    assert.throws(
      () => new D.WeightedRandomSampler([1, 2], 3, { replacement: false }),
      torch.TorchError,
    );
  });
});

describe("datasets", () => {
  test("random_split by lengths and by fractions", () => {
    const byLen = D.random_split(range(10), [3, 7], gen(42));
    assert.deepEqual(
      byLen.map((s) => s.indices),
      FIX.random_split.ints,
    );
    const byFrac = D.random_split(range(11), [0.3, 0.3, 0.4], gen(1));
    assert.deepEqual(
      byFrac.map((s) => s.indices),
      FIX.random_split.fractions,
    );
    assert.throws(
      () => D.random_split(range(10), [3, 6], gen(0)),
      /Sum of input lengths does not equal the length of the input dataset!/,
    );
  });
  test("ConcatDataset, Subset", () => {
    const c = new D.ConcatDataset([range(3), [10, 11, 12, 13]]);
    assert.deepEqual(
      range(c.len()).map((i) => c.getitem(i)),
      FIX.concat,
    );
    assert.equal(c.getitem(-1), FIX.concat.at(-1));
    const s = new D.Subset(
      [100, 101, 102, 103, 104, 105, 106, 107, 108, 109],
      [9, 0, 4],
    );
    assert.deepEqual(
      range(s.len()).map((i) => s.getitem(i)),
      FIX.subset,
    );
    // len(ds) is `len()`, and `length` as JavaScript collections name it.
    assert.equal(c.length, FIX.concat.length);
    assert.equal(s.length, FIX.subset.length);
    const t = new D.TensorDataset(torch.zeros(7, 2), torch.ones(7));
    assert.equal(t.length, 7);
    assert.equal(t.len(), 7);
  });
});

for (const device of devices) {
  describe(`[${device}] DataLoader and default_collate`, () => {
    const make = () => {
      const x = torch.arange(20, { dtype: "float32", device }).reshape(10, 2);
      const y = torch.arange(10, { device }).mul(3);
      return new D.TensorDataset(x, y);
    };
    const loaders = {
      plain: () => ({ batch_size: 4 }),
      shuffle: () => ({ batch_size: 4, shuffle: true, generator: gen(42) }),
      shuffle_drop: () => ({
        batch_size: 3,
        shuffle: true,
        drop_last: true,
        generator: gen(43),
      }),
      no_batch: () => ({ batch_size: null }),
    };
    for (const [name, opts] of Object.entries(loaders)) {
      test(`${name}: two epochs equal PyTorch's batches`, async () => {
        const dl = new D.DataLoader(make(), opts());
        const epochs = [];
        for (let e = 0; e < 2; e++) {
          const batches = [];
          for (const b of dl) {
            batches.push(await plain(b));
            for (const t of b) t.dispose();
          }
          epochs.push(batches);
        }
        assert.deepEqual(epochs, expected(FIX.loader[name]));
        assert.equal(dl.len(), FIX.loader[name][0].length);
      });
    }
    test("for await gives the same batches, made on `device`", async () => {
      const sync = [];
      for (const b of new D.DataLoader(make(), loaders.shuffle()))
        sync.push(await plain(b));
      const got = [];
      const dl = new D.DataLoader(make(), { ...loaders.shuffle(), device });
      for await (const b of dl) {
        assert.equal(b[0].device, device);
        got.push(await plain(b));
      }
      assert.deepEqual(got, sync);
    });
    test("shuffle from the default generator after torch.manual_seed", async () => {
      const F = FIX.default_generator;
      torch.manual_seed(F.seed);
      const dl = new D.DataLoader(range(10), {
        batch_size: 4,
        shuffle: true,
        device,
      });
      const epochs = [];
      for (let e = 0; e < 2; e++) {
        const batches = [];
        for (const b of dl) batches.push(await b.tolist());
        epochs.push(batches);
      }
      assert.deepEqual(epochs, F.loader);
    });
    test("an IterableDataset, sync and async", async () => {
      class Stream extends D.IterableDataset {
        *[Symbol.iterator]() {
          for (let i = 0; i < 7; i++) yield [i, i * 0.5];
        }
      }
      const want = [
        [
          [0, 1, 2],
          [0, 0.5, 1],
        ],
        [
          [3, 4, 5],
          [1.5, 2, 2.5],
        ],
      ];
      const dl = new D.DataLoader(new Stream(), {
        batch_size: 3,
        drop_last: true,
      });
      const got = [];
      for (const [a, b] of dl) got.push([await a.tolist(), await b.tolist()]);
      assert.deepEqual(got, want);
      class AsyncStream extends D.IterableDataset {
        async *[Symbol.asyncIterator]() {
          for (let i = 0; i < 7; i++) yield [i, i * 0.5];
        }
      }
      const got2 = [];
      for await (const [a, b] of new D.DataLoader(new AsyncStream(), {
        batch_size: 3,
        drop_last: true,
      }))
        got2.push([await a.tolist(), await b.tolist()]);
      assert.deepEqual(got2, want);
    });
    test("default_collate: values and dtypes as PyTorch's", async () => {
      const t = (v, o) => torch.tensor(v, { device, ...o });
      const C = FIX.collate;
      const cases = {
        ints: [1, 2, 3],
        floats: [1.5, 2.0, -3.25],
        bools: [true, false],
        strings: ["a", "b"],
        tensors: [
          t([1, 2], { dtype: "float32" }),
          t([3, 4], { dtype: "float32" }),
        ],
        int_tensors: [
          t([1, 2], { dtype: "int32" }),
          t([3, 4], { dtype: "int32" }),
        ],
        tuples: [
          [t([1], { dtype: "float32" }), 0],
          [t([2], { dtype: "float32" }), 1],
        ],
        dicts: [
          { x: t([1, 2], { dtype: "float32" }), label: 3, name: "a" },
          { x: t([5, 6], { dtype: "float32" }), label: 4, name: "b" },
        ],
        nested: [
          [1, [2.5, true]],
          [3, [4.5, false]],
        ],
      };
      for (const [name, batch] of Object.entries(cases)) {
        // JavaScript's 2.0 is an integer; the floats case's dtype comes from its other values.
        assert.deepEqual(
          await plain(D.default_collate(batch)),
          expected(C[name]),
          name,
        );
      }
      assert.throws(
        () => D.default_collate([[1, 2], [3]]),
        /each element in list of batch should be of equal size/,
      );
      assert.throws(
        () => D.default_collate([new Map()]),
        /default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found Map/,
      );
    });
    test("typed arrays and ImageData-like samples collate to stacked tensors", async () => {
      const b = D.default_collate([
        Float32Array.of(1, 2),
        Float32Array.of(3, 4),
      ]);
      assert.deepEqual(await plain(b), {
        dtype: "float32",
        shape: [2, 2],
        values: [1, 2, 3, 4],
      });
      const img = (v) => ({
        data: new Uint8ClampedArray(8).fill(v),
        width: 2,
        height: 1,
      });
      const c = D.default_collate([img(1), img(2)]);
      assert.equal(c.dtype, "uint8");
      assert.deepEqual([...c.shape], [2, 1, 2, 4]);
    });
  });
}

describe("DataLoader arguments", () => {
  test("PyTorch's checks raise TorchErrors", () => {
    const ds = range(4);
    assert.throws(
      () => new D.DataLoader(ds, { batch_sise: 2 }),
      /unexpected keyword argument 'batch_sise'/,
    );
    assert.throws(
      () =>
        new D.DataLoader(ds, {
          shuffle: true,
          sampler: new D.SequentialSampler(ds),
        }),
      /sampler option is mutually exclusive with shuffle/,
    );
    assert.throws(
      () =>
        new D.DataLoader(ds, {
          batch_size: 2,
          batch_sampler: [[0, 1]],
        }),
      /batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last/,
    );
    assert.throws(
      () => new D.DataLoader(ds, { batch_size: null, drop_last: true }),
      /batch_size=None option disables auto-batching and is mutually exclusive with drop_last/,
    );
    assert.throws(
      () => new D.DataLoader(ds, { num_workers: 2 }),
      torch.TorchError,
    );
  });
  test("batch_sampler and collate_fn", () => {
    const dl = new D.DataLoader(
      range(10).map((i) => i * 10),
      {
        batch_sampler: [[3, 1], [0]],
        collate_fn: (b) => b,
      },
    );
    assert.deepEqual([...dl], [[30, 10], [0]]);
  });
});

test("for await: leaving early frees the batch made ahead", async () => {
  const x = torch.arange(8, { dtype: "float32" }).reshape(4, 2);
  const made = [];
  const collate_fn = (b) => {
    const t = D.default_collate(b);
    made.push(t[0]);
    return t;
  };
  let held;
  for await (const [b] of new D.DataLoader(new D.TensorDataset(x), {
    batch_size: 1,
    collate_fn,
  })) {
    held = b;
    break;
  }
  assert.equal(
    made.length,
    2,
    "the next batch is made before the first is handed out",
  );
  assert.equal(made[0], held);
  assert.equal(made[1].isDisposed, true);
  assert.equal(held.isDisposed, false);
  assert.deepEqual(await held.tolist(), [[0, 1]]);
});
