// The memory-pressure warning (torch.webgpu.set_memory_warning, ts/src/webgpu/pressure.ts): one
// console.warn when live tensor memory keeps growing over many tensors made outside any scope
// with almost none disposed; silent for scoped, disposing and training loops and for weights
// allocated once. Small thresholds keep the runs short; the CPU backend first, then WebGPU.
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const w = torch.webgpu;

const N = 16384; // 64 KiB of float32 per tensor
/** Fires after 64 tensors and 2 MiB of growth: a few dozen small steps. */
const SMALL = { enabled: true, bytes: 2 * 2 ** 20, ops: 64 };

/** Runs `fn` with console.warn captured; returns the memory warnings it printed. */
async function warnings(fn) {
  const seen = [];
  const warn = console.warn;
  console.warn = (...a) => {
    const text = a.map(String).join(" ");
    if (text.startsWith("webtorch: live tensor memory")) seen.push(text);
    else warn(...a);
  };
  try {
    await fn();
  } finally {
    console.warn = warn;
  }
  return seen;
}

/** `steps` steps of `x = x.add(b).mul(0.5)` in the given idiom; returns the last x. */
function loop(idiom, steps, x, b) {
  for (let i = 0; i < steps; i++) {
    if (idiom === "gc") {
      x = x.add(b).mul(0.5);
    } else if (idiom === "scope") {
      const old = x;
      x = torch.scope(() => old.add(b).mul(0.5));
      old.dispose();
    } else {
      const t = x.add(b);
      const y = t.mul(0.5);
      t.dispose();
      x.dispose();
      x = y;
    }
    // Computes each step on WebGPU (the fuser would otherwise keep the chain uncomputed).
    w.flush_batch();
  }
  return x;
}

for (const device of ["cpu", "webgpu"]) {
  test(`[${device}] fires exactly once for a loop that leaves its results to the GC`, async (t) => {
    if (device === "webgpu" && !w.is_available())
      return t.skip("no WebGPU adapter");
    await torch.init({ device });
    w.set_memory_warning(SMALL);
    const b = torch.randn(N);
    let x = torch.randn(N);
    const seen = await warnings(() => {
      x = loop("gc", 150, x, b);
    });
    assert.equal(seen.length, 1, "one warning, not one per window");
    assert.match(seen[0], /torch\.scope/);
    assert.match(seen[0], /using/);
    assert.match(seen[0], /set_memory_warning\(false\)/);
    assert.match(
      seen[0],
      new RegExp(`float32\\[${N}\\]`),
      "names the live group",
    );
    assert.match(
      seen[0],
      /set_leak_tracking\(true\)/,
      "says sites need tracking",
    );
    assert.equal(w.memory_warning().fired, true);
    // Still growing, still silent: it is shown once.
    const again = await warnings(() => {
      x = loop("gc", 100, x, b);
    });
    assert.equal(again.length, 0);
    assert.ok(Number.isFinite(await x.sum().item()));
  });

  test(`[${device}] silent for scoped and disposing loops`, async (t) => {
    if (device === "webgpu" && !w.is_available())
      return t.skip("no WebGPU adapter");
    await torch.init({ device });
    const b = torch.randn(N);
    for (const idiom of ["scope", "dispose"]) {
      w.set_memory_warning(SMALL);
      let x = torch.randn(N);
      const seen = await warnings(() => {
        x = loop(idiom, 250, x, b);
      });
      assert.equal(seen.length, 0, idiom);
      const s = w.memory_warning();
      assert.equal(s.fired, false, idiom);
      assert.ok(
        s.made >= 64,
        `${idiom}: the detector sampled (${s.made} made)`,
      );
      x.dispose();
    }
    b.dispose();
  });

  test(`[${device}] silent for weights allocated once, then a scoped loop`, async (t) => {
    if (device === "webgpu" && !w.is_available())
      return t.skip("no WebGPU adapter");
    await torch.init({ device });
    w.set_memory_warning(SMALL);
    const b = torch.randn(N);
    let x = torch.randn(N);
    // More than `bytes` at once, in fewer tensors than `ops`: the growth stops here.
    const weights = Array.from({ length: 40 }, () => torch.randn(N));
    const big = torch.zeros(8 * N); // one 512 KiB tensor more
    const seen = await warnings(() => {
      x = loop("scope", 250, x, b);
    });
    assert.equal(seen.length, 0);
    assert.equal(w.memory_warning().fired, false);
    for (const t of [...weights, big, x, b]) t.dispose();
  });

  test(`[${device}] silent while a model is built: many temporaries disposed, a few weights kept`, async (t) => {
    if (device === "webgpu" && !w.is_available())
      return t.skip("no WebGPU adapter");
    await torch.init({ device });
    w.set_memory_warning(SMALL);
    // Each weight is made from a temporary (an init draw, scaled) that is disposed: memory grows
    // steadily over many tensors, but only half of them stay alive — no leak.
    const weights = [];
    const seen = await warnings(() => {
      for (let i = 0; i < 300; i++) {
        const draw = torch.randn(N);
        weights.push(draw.mul(0.02));
        draw.dispose();
        w.flush_batch();
      }
    });
    assert.equal(seen.length, 0);
    const s = w.memory_warning();
    assert.ok(
      s.growing_ops >= SMALL.ops && s.growing_bytes >= SMALL.bytes,
      `the growth alone would have fired it: ${JSON.stringify(s)}`,
    );
    for (const t of weights) t.dispose();
  });

  test(`[${device}] set_memory_warning(false) turns it off`, async (t) => {
    if (device === "webgpu" && !w.is_available())
      return t.skip("no WebGPU adapter");
    await torch.init({ device });
    w.set_memory_warning(SMALL);
    w.set_memory_warning(false);
    assert.equal(w.memory_warning().enabled, false);
    const b = torch.randn(N);
    let x = torch.randn(N);
    const seen = await warnings(() => {
      x = loop("gc", 150, x, b);
    });
    assert.equal(seen.length, 0);
    assert.equal(w.memory_warning().fired, false);
    w.set_memory_warning(true);
    assert.equal(w.memory_warning().enabled, true);
  });
}

// Last for each device: the tensors these leave behind carry creation stacks, which would show
// in the other tests' warnings.
for (const device of ["cpu", "webgpu"]) {
  test(`[${device}] with leak tracking on, the warning names the line that made the tensors`, async (t) => {
    if (device === "webgpu" && !w.is_available())
      return t.skip("no WebGPU adapter");
    await torch.init({ device });
    w.set_leak_tracking(true);
    w.set_memory_warning(SMALL);
    const b = torch.randn(N);
    let x = torch.randn(N);
    let seen;
    try {
      seen = await warnings(() => {
        x = loop("gc", 150, x, b);
      });
    } finally {
      w.set_leak_tracking(false);
    }
    assert.equal(seen.length, 1);
    assert.match(seen[0], /Made at/);
    assert.match(seen[0], /pressure\.test\.mjs:\d+/, "the caller's frame");
    assert.doesNotMatch(
      seen[0],
      /dist\/tensor\.js/,
      "not webtorch's own frames",
    );
  });
}

test("a training loop with torch.scope stays silent", async () => {
  await torch.init({ device: "cpu" });
  w.set_memory_warning(SMALL);
  torch.manual_seed(0);
  const model = new torch.nn.Sequential(
    new torch.nn.Linear(256, 256),
    new torch.nn.ReLU(),
    new torch.nn.Linear(256, 10),
  );
  const opt = new torch.optim.Adam(model.parameters(), { lr: 1e-3 });
  const x = torch.randn(64, 256);
  const y = torch.randint(0, 10, [64]);
  const seen = await warnings(async () => {
    for (let step = 0; step < 60; step++) {
      const loss = torch.scope(() => {
        opt.zero_grad();
        const l = torch.nn.functional.cross_entropy(model.call(x), y);
        l.backward();
        opt.step();
        return l;
      });
      loss.dispose();
    }
  });
  assert.equal(seen.length, 0);
  assert.ok(w.memory_warning().made > 0);
});

test("set_memory_warning rejects bad settings", () => {
  assert.throws(() => w.set_memory_warning({ bytes: -1 }), torch.TorchError);
  assert.throws(() => w.set_memory_warning({ ops: "many" }), torch.TorchError);
  assert.throws(() => w.set_memory_warning(3), torch.TorchError);
  w.set_memory_warning({ enabled: true, bytes: 256 * 2 ** 20, ops: 512 });
  const s = w.memory_warning();
  assert.deepEqual([s.enabled, s.bytes, s.ops], [true, 256 * 2 ** 20, 512]);
});
