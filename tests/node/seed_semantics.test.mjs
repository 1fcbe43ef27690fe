// The seeds' semantics (seeds/000: torch.webgpu; seeds/001: the function index and DeviceConfig):
// disable_batching submits each op at once, add_fusion_pattern's checks and counts, the fusion
// settings' checks, getCapabilities on every backend, the device module's members, memory_stats
// (with PyTorch's key names), the RNG state's round trip, sym_*, has_autograd, multinomial_async,
// and torch.vmap against PyTorch's values (tests/parity/seed_gen.py writes
// tests/parity/fixtures/seed.json; each program below is the generator's, by name).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const fixtures = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/seed.json", import.meta.url),
    "utf8",
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

function close(actual, expected, what, tol = 1e-5) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++)
    assert.ok(
      Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i])),
      `${what}[${i}]: ${actual[i]} vs ${expected[i]}`,
    );
}

describe("disable_batching: each op submits at once", () => {
  test(
    "webgpu: no pending command after any op, one submit per op at least",
    { skip: !torch.webgpu.is_available() },
    async () => {
      const x = torch.randn([64, 64], { device: "webgpu" });
      await torch.webgpu.sync_device();
      // Batching on: a chain of ops leaves commands (or fused expressions) pending.
      const s0 = torch.webgpu.runtime_stats().submits;
      let y = x.add(1).mul(2).relu().matmul(x).exp();
      const batchedSubmits = torch.webgpu.runtime_stats().submits - s0;
      assert.ok(
        batchedSubmits < 3,
        `batched: ${batchedSubmits} submits for 5 ops`,
      );
      await torch.webgpu.sync_device();
      torch.webgpu.disable_batching();
      try {
        assert.equal(torch.webgpu.is_batching_enabled(), false);
        const s1 = torch.webgpu.runtime_stats().submits;
        const ops = [
          (t) => t.add(1),
          (t) => t.mul(2),
          (t) => t.relu(),
          (t) => t.matmul(x),
          (t) => t.exp(),
        ];
        y = x;
        let last = s1;
        for (const op of ops) {
          y = op(y);
          assert.equal(
            torch.webgpu.get_pending_count(),
            0,
            "nothing pending after an op",
          );
          const now = torch.webgpu.runtime_stats().submits;
          assert.ok(
            now > last,
            "the op's commands were submitted when it returned",
          );
          last = now;
        }
        // The values are the batched ones.
        torch.webgpu.enable_batching();
        const want = await x.add(1).mul(2).relu().matmul(x).exp().tolist();
        close(
          (await y.tolist()).flat(),
          want.flat(),
          "immediate vs batched",
          1e-4,
        );
      } finally {
        torch.webgpu.enable_batching();
      }
      assert.equal(torch.webgpu.is_batching_enabled(), true);
    },
  );

  test(
    "work pending when batching is disabled is submitted then",
    { skip: !torch.webgpu.is_available() },
    async () => {
      const x = torch.randn([32, 32], { device: "webgpu" });
      await torch.webgpu.sync_device();
      const s0 = torch.webgpu.runtime_stats().submits;
      const y = x.matmul(x).exp();
      assert.equal(
        torch.webgpu.runtime_stats().submits,
        s0,
        "nothing submitted yet",
      );
      torch.webgpu.disable_batching();
      try {
        assert.equal(torch.webgpu.get_pending_count(), 0);
        assert.ok(torch.webgpu.runtime_stats().submits > s0);
      } finally {
        torch.webgpu.enable_batching();
      }
      await y.tolist();
    },
  );
});

describe("fusion settings and patterns", () => {
  test("set_fusion_window / set_fusion_min_size check their argument", () => {
    for (const fn of ["set_fusion_window", "set_fusion_min_size"]) {
      assert.throws(
        () => torch.webgpu[fn](-1),
        (e) =>
          e instanceof torch.TorchError &&
          /expected a non-negative integer/.test(e.message),
      );
      assert.throws(
        () => torch.webgpu[fn](1.5),
        (e) =>
          e instanceof torch.ArgumentError &&
          /must be int, not float/.test(e.message),
      );
      assert.throws(() => torch.webgpu[fn]("4"), torch.ArgumentError);
      assert.throws(() => torch.webgpu[fn](), torch.ArgumentError);
      assert.throws(() => torch.webgpu[fn](2 ** 32), torch.TorchError);
    }
    torch.webgpu.set_fusion_window(4);
    torch.webgpu.set_fusion_min_size(1024);
  });

  test("add_fusion_pattern checks the pattern", () => {
    const bad = [
      [
        { ops: ["add", "not_an_op"], name: "p" },
        /'not_an_op' is not an elementwise op/,
      ],
      [
        { ops: ["add", "matmul"], name: "p" },
        /'matmul' is not an elementwise op/,
      ],
      [{ ops: [], name: "p" }, /lists no ops/],
      [{ ops: ["add"], name: "" }, /name is empty/],
      [{ ops: ["add"] }, /name/],
      [{ ops: "add", name: "p" }, /ops/],
      [{ ops: ["add"], name: "p", colour: "red" }, /colour/],
    ];
    for (const [pattern, message] of bad)
      assert.throws(
        () => torch.webgpu.add_fusion_pattern(pattern),
        (e) => e instanceof torch.TorchError && message.test(e.message),
        JSON.stringify(pattern),
      );
    assert.ok(!torch.webgpu.get_fusion_patterns().some((p) => p.name === "p"));
  });

  test(
    "a custom pattern is listed and its fused kernels counted (webgpu)",
    { skip: !torch.webgpu.is_available() },
    async () => {
      torch.webgpu.add_fusion_pattern({
        ops: ["add", "mul", "tanh"],
        name: "custom_activation",
        description: "My custom activation pattern",
      });
      const p = torch.webgpu
        .get_fusion_patterns()
        .find((q) => q.name === "custom_activation");
      assert.deepEqual(p, {
        ops: ["add", "mul", "tanh"],
        name: "custom_activation",
        description: "My custom activation pattern",
      });
      const x = torch.randn([4096], { device: "webgpu" });
      await torch.webgpu.sync_device();
      torch.webgpu.reset_fusion_stats();
      const y = x.add(1).mul(0.5).tanh();
      const want = (await x.tolist()).map((v) => Math.tanh((v + 1) * 0.5));
      close(await y.tolist(), want, "fused values", 1e-5);
      const stats = torch.webgpu.get_fusion_stats();
      assert.equal(stats.patterns.custom_activation, 1);
      assert.ok(stats.fusions >= 1);
      // The same chain with batching disabled runs op by op: nothing fused, nothing counted.
      torch.webgpu.reset_fusion_stats();
      torch.webgpu.disable_batching();
      try {
        await x.add(1).mul(0.5).tanh().tolist();
      } finally {
        torch.webgpu.enable_batching();
      }
      assert.equal(
        torch.webgpu.get_fusion_stats().patterns.custom_activation ?? 0,
        0,
      );
    },
  );
});

describe("getCapabilities and the device module", () => {
  test("getCapabilities returns an object", () => {
    const caps = torch.webgpu.getCapabilities();
    assert.equal(typeof caps, "object");
    assert.ok(caps !== null);
    assert.equal(typeof caps.name, "string");
    assert.ok(Array.isArray(caps.features));
    assert.ok(caps.limits.maxBufferSize > 0);
    if (torch.webgpu.is_available())
      assert.ok(caps.limits.maxComputeWorkgroupSizeX > 0);
    else assert.equal(caps.backend, "cpu");
  });

  test("get_device_module('webgpu') has synchronize, device_count, current_device, get_device_name", async () => {
    const m = torch.get_device_module("webgpu");
    for (const k of [
      "synchronize",
      "device_count",
      "current_device",
      "get_device_name",
      "is_available",
    ])
      assert.equal(typeof m[k], "function", k);
    await m.synchronize();
    if (torch.webgpu.is_available()) {
      assert.equal(m.device_count(), 1);
      assert.equal(m.current_device(), 0);
      assert.equal(m.get_device_name(), torch.webgpu.getCapabilities().name);
      assert.equal(m.get_device_name(0), m.get_device_name());
      assert.throws(() => m.get_device_name(1), torch.DeviceError);
    } else {
      assert.equal(m.device_count(), 0);
      assert.throws(() => m.current_device(), torch.DeviceError);
    }
    assert.throws(() => m.device_count(1), torch.ArgumentError);
  });
});

describe("memory_stats", () => {
  for (const device of devices)
    test(`[${device}] keys and values after allocations`, async () => {
      const names = new Set(fixtures.memory_stats_keys);
      const before = torch.memory_stats(device);
      for (const k of Object.keys(before))
        if (k.includes(".") || k.startsWith("num_"))
          assert.ok(names.has(k), `${k} is one of PyTorch's keys`);
      assert.ok(names.has("allocated_bytes.all.current"));
      const t = torch.ones([1000, 1000], { device });
      await t.sum().item();
      const s = torch.memory_stats(device);
      // `t` alone holds 4e6 bytes while alive (a difference from `before` would also count
      // garbage of earlier tests that the collector finalizes in between).
      assert.ok(s["allocated_bytes.all.current"] >= 4e6);
      assert.equal(s["allocated_bytes.all.current"], s.active_bytes);
      assert.equal(
        s["reserved_bytes.all.current"],
        s.active_bytes + s.pooled_bytes,
      );
      assert.ok(
        s["allocated_bytes.all.peak"] >= s["allocated_bytes.all.current"],
      );
      assert.equal(s.num_device_alloc, s.allocations);
      t.dispose();
      const after = torch.memory_stats(device);
      assert.ok(after.active_bytes <= s.active_bytes - 4e6);
      assert.ok(after.peak_bytes >= s.active_bytes);
      torch.reset_peak_memory_stats(device);
      assert.equal(
        torch.memory_stats(device).peak_bytes,
        torch.memory_stats(device).active_bytes,
      );
      assert.match(
        torch.memory_summary(device),
        new RegExp(`webtorch memory \\(${device}\\)`),
      );
    });

  test("the top-level functions are torch.webgpu's, default device by default", () => {
    assert.equal(torch.memory_stats, torch.webgpu.memory_stats);
    assert.equal(torch.memory_summary, torch.webgpu.memory_summary);
    assert.equal(
      torch.reset_peak_memory_stats,
      torch.webgpu.reset_peak_memory_stats,
    );
    assert.equal(
      torch.memory_stats().active_bytes,
      torch.memory_stats(torch.get_default_device()).active_bytes,
    );
    assert.throws(() => torch.memory_stats("tpu"), torch.DeviceError);
    assert.throws(() => torch.memory_stats(3), torch.ArgumentError);
  });
});

describe("RNG state", () => {
  for (const device of devices)
    test(`[${device}] a state saved then restored reproduces the numbers`, async () => {
      torch.manual_seed(7);
      torch.rand(3);
      const state = torch.get_rng_state();
      assert.equal(state.dtype, "uint8");
      assert.equal(state.device, "cpu");
      const a = await torch.rand([5], { device }).tolist();
      const b = await torch.randn([4], { device }).tolist();
      const idx = torch.default_generator._random();
      torch.manual_seed(99); // moves everything elsewhere
      torch.set_rng_state(state);
      assert.deepEqual(await torch.rand([5], { device }).tolist(), a);
      assert.deepEqual(await torch.randn([4], { device }).tolist(), b);
      assert.equal(torch.default_generator._random(), idx);
      // Without the restore the draws differ (the test can fail).
      assert.notDeepEqual(await torch.rand([5], { device }).tolist(), a);
    });

  test("set_rng_state checks its argument", () => {
    const s = torch.get_rng_state();
    assert.throws(
      () => torch.set_rng_state(torch.zeros(3)),
      (e) =>
        e instanceof torch.ArgumentError &&
        e.message === "RNG state must be a torch.ByteTensor",
    );
    assert.throws(
      () =>
        torch.set_rng_state(
          torch.zeros([3], { dtype: "uint8", device: "cpu" }),
        ),
      /RNG state of size \d+ but found the input RNG state size to be 3/,
    );
    assert.throws(
      () =>
        torch.set_rng_state(
          torch.zeros([s.numel()], { dtype: "uint8", device: "cpu" }),
        ),
      /Invalid webtorch RNG state/,
    );
    assert.throws(() => torch.set_rng_state([1, 2]), torch.ArgumentError);
    torch.set_rng_state(s);
  });
});

describe("sym_*, has_autograd, multinomial_async", () => {
  test("sym_float, sym_int, sym_not are Python's float, int, not", () => {
    assert.equal(torch.sym_int(3.7), 3);
    assert.equal(torch.sym_int(-3.7), -3);
    assert.ok(Object.is(torch.sym_int(-0.5), 0));
    assert.equal(torch.sym_int(true), 1);
    assert.equal(torch.sym_float(3), 3);
    assert.equal(torch.sym_float(true), 1);
    assert.equal(torch.sym_not(true), false);
    assert.equal(torch.sym_not(0), true);
    assert.equal(torch.sym_not(NaN), false);
    assert.throws(
      () => torch.sym_int(Infinity),
      (e) =>
        e instanceof torch.OverflowError &&
        e.message === "cannot convert float infinity to integer",
    );
    assert.throws(
      () => torch.sym_int(NaN),
      /cannot convert float NaN to integer/,
    );
    assert.throws(() => torch.sym_float(torch.ones(1)), torch.TorchError);
    assert.throws(() => torch.sym_not("x"), torch.ArgumentError);
  });

  test("has_autograd", () => {
    assert.equal(torch.has_autograd("add"), true);
    assert.equal(torch.has_autograd("no_such_op"), false);
    assert.throws(() => torch.has_autograd(3), torch.ArgumentError);
  });

  for (const device of devices)
    test(`[${device}] multinomial_async: PyTorch's value errors at the call, multinomial's draws`, async () => {
      await assert.rejects(
        torch.multinomial_async(torch.zeros([2, 3], { device }), 1),
        (e) =>
          e instanceof torch.TorchError &&
          e.message ===
            "invalid multinomial distribution (sum of probabilities <= 0)",
      );
      await assert.rejects(
        torch.multinomial_async(
          torch.tensor([1, -1], { device, dtype: "float32" }),
          1,
        ),
        /probability tensor contains either `inf`, `nan` or element < 0/,
      );
      await assert.rejects(
        torch.multinomial_async(
          torch.tensor([1, 1], { device, dtype: "float32" }),
          3,
        ),
        /cannot sample n_sample > prob_dist.size\(-1\) samples without replacement/,
      );
      const p = torch.tensor(
        [
          [0.1, 0.2, 0.7],
          [0.5, 0.5, 0],
        ],
        { device },
      );
      const state = torch.get_rng_state();
      const got = await (await torch.multinomial_async(p, 4, true)).tolist();
      torch.set_rng_state(state);
      assert.deepEqual(got, await torch.multinomial(p, 4, true).tolist());
    });
});

// The programs of tests/parity/seed_gen.py's CASES, by name.
const V = torch.vmap;
const f_dot = (a, b) => torch.dot(a, b);
const f_matmul = (x, w) => x.matmul(w);
const f_sum0 = (x) => x.sum(0);
const f_double = (x) => x.mul(2);
const f_tuple = (x) => [x.sin(), x.sum()];
const f_pow_sum = (x) => x.pow(2).sum();
const f_ignore = (x, y) => y.exp();
const f_outer = (x) => torch.outer(x, x);
const f_dict = (d) => d.a.mul(d.b);
const f_nested_out = (x) => [x.cos(), [x.sum(), x.mul(3)]];
const f_softmax = (x) => torch.softmax(x, 0);
const PROGRAMS = {
  dot: V(f_dot),
  in_dims_tuple_none: V(f_matmul, [0, null]),
  in_dims_1: V(f_sum0, 1),
  in_dims_negative: V(f_sum0, -1),
  out_dims_1: V(f_double, { out_dims: 1 }),
  out_dims_negative: V(f_outer, { out_dims: -1 }),
  tuple_outputs_out_dims: V(f_tuple, { out_dims: [1, 0] }),
  nested_outer_product: V(V(torch.mul, [null, 0]), [0, null]),
  nested_in_dims: V(V(f_pow_sum, -1), 0),
  unbatched_output: V(f_ignore, [0, null]),
  dict_input: (a, b) => V(f_dict, [{ a: 0, b: null }])({ a, b }),
  nested_outputs: V(f_nested_out),
  softmax_in_dims_1: V(f_softmax, 1, 1),
};

const leaves = (x) => (Array.isArray(x) ? x.flatMap(leaves) : [x]);

describe("vmap against PyTorch", () => {
  test("every fixture case has its program", () => {
    assert.deepEqual(
      Object.keys(PROGRAMS).sort(),
      Object.keys(fixtures.vmap).sort(),
    );
  });
  for (const device of devices)
    for (const [name, c] of Object.entries(fixtures.vmap))
      test(`[${device}] ${name}: values and gradients`, async () => {
        const xs = c.inputs.map((i) =>
          torch
            .tensor(i.data, { device })
            .reshape(i.shape)
            .detach()
            .requires_grad_(),
        );
        const outs = leaves(PROGRAMS[name](...xs));
        assert.equal(outs.length, c.outs.length);
        let total = null;
        for (let k = 0; k < outs.length; k++) {
          assert.deepEqual(
            outs[k].shape,
            c.outs[k].shape,
            `output ${k}'s shape`,
          );
          close(
            await outs[k].reshape(-1).tolist(),
            c.outs[k].data,
            `output ${k}`,
            1e-5,
          );
          const n = outs[k].numel();
          const up = torch.tensor(
            Array.from({ length: n }, (_, i) => 0.5 + (i % 7) / 7),
            { device },
          );
          const term = outs[k].reshape(-1).mul(up).sum();
          total = total === null ? term : total.add(term);
        }
        total.backward();
        for (let k = 0; k < xs.length; k++) {
          if (c.grads[k] === null) {
            assert.equal(xs[k].grad, null, `input ${k} has no gradient`);
            continue;
          }
          close(
            await xs[k].grad.reshape(-1).tolist(),
            c.grads[k],
            `grad ${k}`,
            1e-5,
          );
        }
      });

  // The calls of seed_gen.py's ERRORS.
  function f(x) {
    return x;
  }
  function f_float() {
    return 1.5;
  }
  function f_random(x) {
    return x.add(torch.rand(3));
  }
  function f_double2(x) {
    return x.mul(2);
  }
  const ERRORS = {
    sizes_differ: () => V(f, [0, 0])(torch.zeros(2, 3), torch.zeros(3, 3)),
    in_dim_out_of_range: () => V(f, [2])(torch.zeros(2, 3)),
    in_dim_non_tensor: () => V(f, [0, 0])(torch.zeros(2), 1.5),
    no_mapped_input: () => V(f, [null])(torch.zeros(2)),
    no_inputs: () => V(f)(),
    in_dims_none: () => V(f, null)(torch.zeros(2)),
    out_dims_bad: () => V(f, { out_dims: [1.5] })(torch.zeros(2)),
    non_tensor_output: () => V(f_float)(torch.zeros(2)),
    randomness_bad: () => V(f, { randomness: "sometimes" }),
    chunk_size_zero: () => V(f, { chunk_size: 0 }),
    random_in_error_mode: () => V(f_random)(torch.zeros(2, 3)),
    out_dim_none_batched: () =>
      V(f_double2, { out_dims: null })(torch.zeros(2)),
  };
  test("errors in PyTorch's words", () => {
    assert.deepEqual(
      Object.keys(ERRORS).sort(),
      Object.keys(fixtures.vmap_errors).sort(),
    );
    for (const [name, call] of Object.entries(ERRORS)) {
      const want = fixtures.vmap_errors[name].replaceAll(
        "f_double",
        "f_double2",
      );
      assert.throws(
        call,
        (e) => e instanceof torch.TorchError && e.message.startsWith(want),
        `${name}: ${want}`,
      );
    }
  });

  test("randomness: 'error' leaves the generator where it was; 'same' and 'different'", async () => {
    const before = torch.get_rng_state();
    assert.throws(
      () => V((x) => x.add(torch.rand(3)))(torch.zeros(4, 3)),
      /randomness error mode/,
    );
    assert.deepEqual(
      await torch.get_rng_state().tolist(),
      await before.tolist(),
    );
    const same = await V((x) => x.add(torch.rand(3)), { randomness: "same" })(
      torch.zeros(4, 3),
    ).tolist();
    for (const row of same) assert.deepEqual(row, same[0]);
    const diff = await V((x) => x.add(torch.rand(3)), {
      randomness: "different",
    })(torch.zeros(4, 3)).tolist();
    assert.notDeepEqual(diff[0], diff[1]);
  });

  test("out_dims None takes an output that is the same on every call", async () => {
    const c = torch.ones(2);
    const [y, z] = V((x) => [x.mul(2), c], { out_dims: [0, null] })(
      torch.ones(3, 2),
    );
    assert.equal(z, c);
    assert.deepEqual(y.shape, [3, 2]);
  });
});

// A host-memory device (float32 add/mul/relu on its own buffers), counting what is called.
function hostDevice(name, calls, overrides = {}) {
  const f32 = (b) => new Float32Array(b.data.buffer, 0, b.size / 4);
  const ops = { add: (a, b) => a + b, mul: (a, b) => a * b };
  return {
    name,
    ops: ["add", "mul", "relu"],
    capabilities: {
      compute: true,
      storage: true,
      maxBufferSize: 1 << 20,
      maxWorkgroupSize: [1, 1, 1],
      maxWorkgroupsPerDimension: 1,
      supportedDTypes: ["float32"],
    },
    initialize: async () => {
      calls.initialize = (calls.initialize ?? 0) + 1;
      return { name, ready: true, destroy: () => {} };
    },
    createBuffer: (size) => ({ size, data: new Uint8Array(size) }),
    writeBuffer: (buf, data, offset = 0) =>
      buf.data.set(
        new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        offset,
      ),
    readBufferSync: (buf, size, offset = 0) =>
      buf.data.slice(offset, offset + size).buffer,
    readBuffer: async (buf, size, offset = 0) =>
      buf.data.slice(offset, offset + size).buffer,
    dispatch({ op, inputs, output }) {
      (calls.dispatch ??= []).push(op);
      const out = f32(output);
      const [a, b] = inputs.map(f32);
      for (let i = 0; i < out.length; i++)
        out[i] = op === "relu" ? Math.max(a[i], 0) : ops[op](a[i], b[i]);
    },
    sync: async () => {},
    ...overrides,
  };
}

describe("DeviceConfig as seeds/001 describes it", () => {
  const cpuT = (v) => torch.tensor(v, { device: "cpu", dtype: "float32" });

  test("initialize runs on first use, once (an asynchronous use waits for it)", async () => {
    const calls = {};
    torch.register_device(hostDevice("lazy_a", calls));
    try {
      assert.equal(calls.initialize, undefined, "not at registration");
      const [x, y] = await Promise.all([
        cpuT([1, -2]).to_async("lazy_a"),
        cpuT([3, 4]).to_async("lazy_a"),
      ]);
      assert.equal(calls.initialize, 1, "once, for two concurrent first uses");
      assert.deepEqual([...(await x.add(y).toArray())], [4, 2]);
      assert.equal(
        cpuT([5]).to("lazy_a").device,
        "lazy_a",
        "synchronous uses once ready",
      );
      assert.equal(await torch.initialize_device("lazy_a"), "lazy_a");
      assert.equal(calls.initialize, 1);
    } finally {
      torch.unregister_device("lazy_a");
    }
  });

  test("a synchronous first use starts initialize and asks to await it", async () => {
    const calls = {};
    torch.register_device(hostDevice("lazy_b", calls));
    try {
      assert.throws(
        () => cpuT([1]).to("lazy_b"),
        (e) =>
          e instanceof torch.DeviceError &&
          /not initialized: await torch.initialize_device\('lazy_b'\)/.test(
            e.message,
          ),
      );
      assert.equal(calls.initialize, 1, "started by the use");
      await torch.initialize_device("lazy_b");
      assert.equal(calls.initialize, 1, "not called again");
      assert.deepEqual(
        [...(await cpuT([1, 2]).to("lazy_b").toArray())],
        [1, 2],
      );
    } finally {
      torch.unregister_device("lazy_b");
    }
  });

  test("a failed initialize is reported by the use that waits and retried by the next", async () => {
    const calls = {};
    let fail = true;
    const config = hostDevice("lazy_c", calls);
    const init = config.initialize;
    config.initialize = async () => {
      if (fail) {
        fail = false;
        calls.initialize = (calls.initialize ?? 0) + 1;
        throw new Error("no context");
      }
      return init();
    };
    torch.register_device(config);
    try {
      await assert.rejects(cpuT([1]).to_async("lazy_c"), /no context/);
      const x = await cpuT([1]).to_async("lazy_c");
      assert.equal(calls.initialize, 2);
      assert.deepEqual([...(await x.toArray())], [1]);
    } finally {
      torch.unregister_device("lazy_c");
    }
  });

  test("writeBuffer is optional: the device registers and initializes; moving data onto it says why not", async () => {
    const calls = {};
    torch.register_device(
      hostDevice("nowrite", calls, { writeBuffer: undefined }),
    );
    try {
      assert.equal(await torch.initialize_device("nowrite"), "nowrite");
      assert.equal(calls.initialize, 1);
      assert.throws(
        () => cpuT([1]).to("nowrite"),
        (e) =>
          e instanceof torch.DeviceError &&
          /'nowrite' has no writeBuffer\(\)/.test(e.message),
      );
      await assert.rejects(cpuT([1]).to_async("nowrite"), /has no writeBuffer/);
      assert.throws(
        () =>
          torch.register_device(
            hostDevice("badwrite", calls, { writeBuffer: 3 }),
          ),
        torch.DeviceError,
      );
    } finally {
      torch.unregister_device("nowrite");
    }
  });

  test("capabilities select the ops that run on the device and validate what moves there", async () => {
    const onDev = {};
    const noCompute = {};
    torch.register_device(hostDevice("caps_on", onDev));
    torch.register_device(
      hostDevice("caps_off", noCompute, {
        capabilities: {
          ...hostDevice("x", {}).capabilities,
          compute: false,
          maxBufferSize: 64,
        },
      }),
    );
    try {
      await torch.initialize_device("caps_on");
      await torch.initialize_device("caps_off");
      for (const [dev, calls, dispatched] of [
        ["caps_on", onDev, ["add", "relu"]],
        ["caps_off", noCompute, undefined],
      ]) {
        const a = cpuT([1, -5, 3]).to(dev);
        const b = cpuT([1, 1, -4]).to(dev);
        const y = a.add(b).relu();
        assert.equal(y.device, dev);
        assert.deepEqual([...(await y.toArray())], [2, 0, 0], dev);
        assert.deepEqual(calls.dispatch, dispatched, `${dev}: dispatched ops`);
      }
      // supportedDTypes: an int32 tensor is not moved there.
      assert.throws(
        () =>
          torch.tensor([1, 2], { device: "cpu", dtype: "int32" }).to("caps_on"),
        (e) =>
          e instanceof torch.DeviceError &&
          /does not support int32/.test(e.message),
      );
      // maxBufferSize: 64 bytes hold 16 floats, not 17.
      assert.equal(
        torch.zeros([16], { device: "cpu" }).to("caps_off").numel(),
        16,
      );
      assert.throws(
        () => torch.zeros([17], { device: "cpu" }).to("caps_off"),
        (e) =>
          e instanceof torch.DeviceError &&
          /larger than its maxBufferSize \(64 bytes\)/.test(e.message),
      );
    } finally {
      torch.unregister_device("caps_on");
      torch.unregister_device("caps_off");
    }
  });
});
