// The matmul autotuner on WebGPU (Dawn): autotune_matmul times the variants and records the
// fastest per shape class; later matmuls of that class run it (the kernel label in the profile
// shows which ran) and still equal the CPU backend's product; the cache round-trips by adapter
// (another adapter's table is refused, a malformed one throws and changes nothing), also through
// localStorage. No timing is asserted: which variant wins is the GPU's business.
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const w = torch.webgpu;
const gpuOnly = { skip: w.is_available() ? false : "no WebGPU adapter" };

/** The matmul kernels one 256-ish product dispatched, and its result against the CPU's. */
async function kernelsOf(m, n, k) {
  torch.manual_seed(5);
  const a = torch.randn([m, k], { device: "cpu" });
  const b = torch.randn([k, n], { device: "cpu" });
  const [ga, gb] = [a.to("webgpu"), b.to("webgpu")];
  let out;
  const prof = await torch.profiler.profile(async () => {
    out = ga.matmul(gb);
    await w.sync_device();
  });
  assertClose(
    await out.toArray(),
    await a.matmul(b).toArray(),
    1e-4,
    "product",
  );
  for (const t of [a, b, ga, gb, out]) t.dispose();
  return prof.gpu_events
    .map((e) => e.kernel)
    .filter((name) => name.startsWith("webtorch:matmul"));
}

/** How many matmul kernels with a GPU time a profile of one product records. */
async function gpuTimed() {
  const a = torch.randn([64, 64], { device: "webgpu" });
  let c;
  const p = await torch.profiler.profile(async () => {
    c = a.matmul(a);
    w.flush_batch();
    await w.sync_device();
  });
  a.dispose();
  c.dispose();
  return p.gpu_events.filter(
    (e) => e.kernel.startsWith("webtorch:matmul") && e.dur_ns > 0,
  ).length;
}

test(
  "autotune_matmul measures every variant asked and records the fastest by class",
  gpuOnly,
  async () => {
    w.clear_autotune();
    const res = await w.autotune_matmul(
      [
        [64, 64, 64],
        [200, 128, 64, 2],
      ],
      {
        variants: ["simple", "t64"],
        reps: 2,
      },
    );
    assert.deepEqual(
      res.map((r) => r.shape_class),
      ["m64n64k64b1", "m256n128k64b2"],
    );
    for (const r of res) {
      assert.deepEqual(Object.keys(r.times_us).sort(), ["simple", "t64"]);
      for (const us of Object.values(r.times_us))
        assert.ok(Number.isFinite(us) && us > 0, `${r.shape_class}: ${us} µs`);
      const fastest = Math.min(...Object.values(r.times_us));
      assert.equal(r.times_us[r.variant], fastest);
      // Where the profiler records kernel times, the tuner uses them.
      if ((await gpuTimed()) > 0) assert.equal(r.timing, "gpu");
    }
    const cache = w.autotune_cache();
    assert.equal(cache.adapter, w.getCapabilities().name);
    assert.deepEqual(cache.table, {
      m64n64k64b1: res[0].variant,
      m256n128k64b2: res[1].variant,
    });
    w.clear_autotune();
    assert.deepEqual(w.autotune_cache().table, {});
  },
);

test(
  "a tuned class decides the kernel of every product in it",
  gpuOnly,
  async () => {
    const adapter = w.getCapabilities().name;
    w.clear_autotune();
    // The rule runs 256² outputs on the 16×16 kernel.
    assert.deepEqual(await kernelsOf(256, 256, 256), [
      "webtorch:matmul:float32",
    ]);
    assert.equal(
      w.load_autotune_cache({ adapter, table: { m256n256k256b1: "t64" } }),
      true,
    );
    assert.deepEqual(await kernelsOf(256, 256, 256), [
      "webtorch:matmul:t64k16:float32",
    ]);
    // 200×256×140 rounds up to the same class.
    assert.deepEqual(await kernelsOf(200, 256, 140), [
      "webtorch:matmul:t64k16:float32",
    ]);
    assert.equal(
      w.load_autotune_cache({ adapter, table: { m256n256k256b1: "simple" } }),
      true,
    );
    assert.deepEqual(await kernelsOf(256, 256, 256), [
      "webtorch:matmul:float32",
    ]);
    w.clear_autotune();
  },
);

test(
  "caches: another adapter's is refused, a malformed one throws and changes nothing",
  gpuOnly,
  async () => {
    const adapter = w.getCapabilities().name;
    w.clear_autotune();
    w.load_autotune_cache({ adapter, table: { m64n64k64b1: "t64" } });
    assert.equal(
      w.load_autotune_cache({
        adapter: "another GPU",
        table: { m64n64k64b1: "t128" },
      }),
      false,
    );
    for (const table of [
      { m64n64k64b1: "t999" },
      { bogus: "t64" },
      { m63n64k64b1: "t64" },
    ])
      assert.throws(
        () =>
          w.load_autotune_cache({
            adapter,
            table: { m128n128k128b1: "t128", ...table },
          }),
        (e) => e instanceof torch.TorchError && /bad entry/.test(e.message),
      );
    assert.deepEqual(w.autotune_cache().table, { m64n64k64b1: "t64" });
    await assert.rejects(w.autotune_matmul([[0, 4, 4]]), /positive integers/);
    // A bad shape after a good one: nothing is tuned.
    await assert.rejects(
      w.autotune_matmul(
        [
          [32, 32, 32],
          [4, 4],
        ],
        { variants: ["simple"] },
      ),
      /positive integers/,
    );
    assert.deepEqual(w.autotune_cache().table, { m64n64k64b1: "t64" });
    await assert.rejects(
      w.autotune_matmul([[4, 4, 4]], { variants: ["zzz"] }),
      /unknown variant 'zzz'/,
    );
    await assert.rejects(
      w.autotune_matmul([[4, 4, 4]], { reps: 0 }),
      /reps must be a positive integer/,
    );
    w.clear_autotune();
  },
);

test(
  "persist keeps the table in localStorage for this adapter",
  gpuOnly,
  async () => {
    const store = new Map();
    globalThis.localStorage = {
      getItem: (k) => store.get(k) ?? null,
      setItem: (k, v) => void store.set(k, v),
    };
    try {
      w.clear_autotune();
      assert.equal(w.load_autotune_cache(), false, "nothing saved yet");
      const [r] = await w.autotune_matmul([[128, 128, 128]], {
        variants: ["simple", "t64"],
        reps: 1,
        persist: true,
      });
      assert.deepEqual(
        [...store.keys()],
        [`webtorch:autotune:${w.getCapabilities().name}`],
      );
      w.clear_autotune();
      assert.equal(w.load_autotune_cache(), true);
      assert.deepEqual(w.autotune_cache().table, { m128n128k128b1: r.variant });
    } finally {
      delete globalThis.localStorage;
      w.clear_autotune();
    }
  },
);
