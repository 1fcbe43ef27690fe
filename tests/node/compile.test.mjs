// torch.compile: a training step (forward, backward, SGD step) compiled and replayed gives
// PyTorch's per-step losses and weights (the MLP of tests/parity/extend_gen.py, its swish written
// with built-in ops); compiled forwards equal eager ones across signatures; guards recompile on a
// new shape or guard value; untraceable calls run eagerly (or throw with fullgraph).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/extend/swish_train.json", import.meta.url),
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const f32 = (v, shape, device) =>
  torch.tensor(v, { device, dtype: "float32" }).reshape(shape);

for (const device of devices) {
  describe(`[${device}] torch.compile`, () => {
    // The third variant forces tiny ops into batched launches (off by default on SwiftShader):
    // the captured graph then replays the batches.
    for (const [plan, batched] of [
      [true, false],
      [false, false],
      ...(device === "webgpu" ? [[true, true]] : []),
    ])
      test(`a compiled training step trains to PyTorch's losses and weights (${plan ? "core plan" : "TS replay"}${batched ? ", batched launches" : ""})`, async () => {
        const core = await import(
          new URL("wasm/webtorch_core.js", PKG_ENTRY).href
        );
        if (batched) core.set_batched_launches(true);
        const b0 = torch.webgpu.runtime_stats?.()?.batched_ops ?? 0;
        try {
          await trainStep(plan);
        } finally {
          core.set_batched_launches(undefined);
        }
        if (batched) {
          const ran = torch.webgpu.runtime_stats().batched_ops - b0;
          assert.ok(ran > 0, `${ran} ops in batched launches`);
        }
      });

    const trainStep = async (plan) => {
      const x = f32(FIX.x, [16, 4], device);
      const y = f32(FIX.y, [16, 2], device);
      const p = {
        w1: f32(FIX.init.w1, [4, 8], device).requires_grad_(),
        b1: f32(FIX.init.b1, [8], device).requires_grad_(),
        w2: f32(FIX.init.w2, [8, 2], device).requires_grad_(),
        b2: f32(FIX.init.b2, [2], device).requires_grad_(),
      };
      const opt = new torch.optim.SGD(Object.values(p), { lr: FIX.lr });
      const step = torch.compile(
        (xb, yb) => {
          opt.zero_grad();
          const z = xb.matmul(p.w1).add(p.b1);
          const h = z.mul(z.mul(FIX.beta).sigmoid());
          const loss = h.matmul(p.w2).add(p.b2).sub(yb).square().mean();
          loss.backward();
          opt.step();
          return loss;
        },
        { plan },
      );
      const losses = [];
      for (let s = 0; s < FIX.steps; s++) {
        const loss = step(x, y);
        losses.push(await loss.item());
        loss.dispose();
      }
      assertClose(losses, FIX.losses, 1e-4, "losses");
      for (const k of Object.keys(p))
        assertClose(await p[k].toArray(), FIX.final[k], 1e-4, k);
      assert.equal(step.stats.eager, 0, step.stats.reasons.join("; "));
      assert.ok(
        step.stats.replays >= FIX.steps - 3,
        `replays ${step.stats.replays}`,
      );
      assert.equal(step.stats.replays + step.stats.traces, FIX.steps);
      assert.equal(step.stats.planned, plan ? 1 : 0);
      // On WebGPU the stable step is captured as a kernel graph (either way it was replayed
      // before): every later step replays the graph.
      if (device === "webgpu") {
        assert.equal(step.stats.graphs, 1, step.stats.graph_reasons.join("; "));
        assert.equal(step.stats.graph_replays, step.stats.replays - 1);
      } else {
        assert.equal(step.stats.graphs, 0);
        assert.match(step.stats.graph_reasons[0], /not 'webgpu'/);
      }
    };

    test("compiled forwards equal eager ones; a new shape or reset traces again", async () => {
      const w = f32(FIX.init.w1, [4, 8], device);
      const b = f32(FIX.init.b1, [8], device);
      const fn = (x) => ({ h: x.matmul(w).add(b).relu(), s: x.sum(1), k: 3 });
      const cfn = torch.compile(fn);
      for (const rows of [16, 16, 16, 5, 5, 5, 16]) {
        const x = f32(FIX.x.slice(0, rows * 4), [rows, 4], device);
        const want = fn(x);
        const got = cfn(x);
        assert.equal(got.k, 3);
        assert.deepEqual(got.h.shape, [rows, 8]);
        assertClose(await got.h.toArray(), await want.h.toArray(), 1e-6, "h");
        assertClose(await got.s.toArray(), await want.s.toArray(), 1e-6, "s");
      }
      assert.deepEqual(
        {
          replays: cfn.stats.replays,
          traces: cfn.stats.traces,
          planned: cfn.stats.planned,
        },
        { replays: 3, traces: 4, planned: 2 },
      );
      torch.compiler.reset();
      cfn(f32(FIX.x.slice(0, 20), [5, 4], device));
      assert.equal(cfn.stats.traces, 5);
    });

    test("guards: a guard value change recompiles instead of replaying a stale constant", async () => {
      let scale = 2;
      const x = f32([1, 2, 3], [3], device);
      const unguarded = torch.compile((t) => t.mul(scale));
      const guarded = torch.compile((t) => t.mul(scale), {
        guard: () => [scale],
      });
      for (let i = 0; i < 3; i++) {
        unguarded(x);
        guarded(x);
      }
      scale = 10;
      assert.deepEqual(Array.from(await guarded(x).toArray()), [10, 20, 30]);
      // Documented limit: JS values the trace read are constants unless guarded.
      assert.deepEqual(Array.from(await unguarded(x).toArray()), [2, 4, 6]);
    });
  });
}

describe("torch.compile: what does not trace runs eagerly", () => {
  test("async functions, reads and non-tensor arguments fall back; fullgraph throws", async () => {
    const x = torch.tensor([1, 2, 3], { dtype: "float32" });
    const reads = torch.compile(async (t) =>
      (await t.sum().item()) > 0 ? t.neg() : t,
    );
    for (let i = 0; i < 3; i++)
      assert.deepEqual(
        Array.from(await (await reads(x)).toArray()),
        [-1, -2, -3],
      );
    assert.equal(reads.stats.replays, 0);
    assert.ok(
      reads.stats.reasons.some((r) => /async|reads tensor data/.test(r)),
    );
    const objArg = torch.compile((o) => o.t.neg());
    assert.deepEqual(
      Array.from(await objArg({ t: x }).toArray()),
      [-1, -2, -3],
    );
    assert.match(objArg.stats.reasons[0], /neither a tensor nor a plain value/);
    const strict = torch.compile(async (t) => t.toArray(), { fullgraph: true });
    assert.throws(() => strict(x), /torch.compile: /);
    const eager = torch.compile((t) => t.neg(), { backend: "eager" });
    eager(x);
    eager(x);
    assert.deepEqual(eager.stats, {
      replays: 0,
      traces: 0,
      eager: 2,
      reasons: [],
      planned: 0,
      graphs: 0,
      graph_replays: 0,
      graph_reasons: [],
    });
  });

  test("registered kernel ops run eagerly inside a compiled function", async () => {
    const triple = await torch.register_kernel({
      name: "triple_for_compile",
      inputs: 1,
      cpu: ([x], out) => {
        for (let i = 0; i < out.length; i++) out[i] = 3 * x[i];
      },
    });
    const f = torch.compile((x) => triple(x).add(1));
    const x = torch.tensor([1, 2], { dtype: "float32", device: "cpu" });
    for (let i = 0; i < 3; i++)
      assert.deepEqual(Array.from(await f(x).toArray()), [4, 7]);
    assert.equal(f.stats.replays, 0);
    assert.deepEqual(f.stats.reasons, ["a JS kernel reads tensor data"]);
  });

  test("a module compiles (its training flag is guarded)", async () => {
    torch.manual_seed(0);
    const model = new torch.nn.Sequential(
      new torch.nn.Linear(4, 3),
      new torch.nn.ReLU(),
      new torch.nn.Linear(3, 2),
    );
    const cm = torch.compile(model);
    const x = torch
      .tensor(FIX.x.slice(0, 8), { dtype: "float32" })
      .reshape([2, 4]);
    for (let i = 0; i < 4; i++)
      assertClose(
        await cm(x).toArray(),
        await model.call(x).toArray(),
        1e-6,
        "module",
      );
    assert.equal(cm.stats.replays, 2);
    model.eval();
    cm(x);
    assert.equal(cm.stats.traces, 3);
  });
});

if (torch.webgpu.is_available())
  test("[webgpu] a kernel-graph replay is one wasm call: no op runs, every kernel is encoded from the graph", async () => {
    const x = f32(FIX.x, [16, 4], "webgpu");
    const y = f32(FIX.y, [16, 2], "webgpu");
    const w1 = f32(FIX.init.w1, [4, 8], "webgpu").requires_grad_();
    const w2 = f32(FIX.init.w2, [8, 2], "webgpu").requires_grad_();
    const opt = new torch.optim.SGD([w1, w2], { lr: FIX.lr, momentum: 0.9 });
    const body = (xb, yb) => {
      opt.zero_grad();
      const loss = xb.matmul(w1).tanh().matmul(w2).sub(yb).square().mean();
      loss.backward();
      opt.step();
      return loss;
    };
    const step = torch.compile(body);
    // Eager twin on copies of the same state: the graph must train identically.
    const e1 = f32(FIX.init.w1, [4, 8], "webgpu").requires_grad_();
    const e2 = f32(FIX.init.w2, [8, 2], "webgpu").requires_grad_();
    const eopt = new torch.optim.SGD([e1, e2], { lr: FIX.lr, momentum: 0.9 });
    const eager = (xb, yb) => {
      eopt.zero_grad();
      const loss = xb.matmul(e1).tanh().matmul(e2).sub(yb).square().mean();
      loss.backward();
      eopt.step();
      return loss;
    };
    const w = torch.webgpu;
    const got = [];
    const want = [];
    for (let s = 0; s < 4; s++) {
      got.push(await step(x, y).item());
      want.push(await eager(x, y).item());
    }
    assert.equal(step.stats.graphs, 1, step.stats.graph_reasons.join("; "));
    // Count what one replay does: calls into the core, ops, kernels encoded op by op.
    const raw = torch._C.core_classes().RawTensor.prototype;
    const counts = new Map();
    const saved = [];
    for (const name of Object.getOwnPropertyNames(raw)) {
      const fn = raw[name];
      if (typeof fn !== "function" || name === "constructor") continue;
      saved.push([name, fn]);
      raw[name] = function (...a) {
        counts.set(name, (counts.get(name) ?? 0) + 1);
        return fn.apply(this, a);
      };
    }
    const graphRun = torch._C.core_classes().Graph.prototype.run;
    let runs = 0;
    torch._C.core_classes().Graph.prototype.run = function (...a) {
      runs++;
      return graphRun.apply(this, a);
    };
    await w.sync_device();
    const s0 = w.runtime_stats();
    let loss;
    try {
      loss = step(x, y);
    } finally {
      for (const [name, fn] of saved) raw[name] = fn;
      torch._C.core_classes().Graph.prototype.run = graphRun;
    }
    const s1 = w.runtime_stats();
    assert.equal(runs, 1, "one Graph.run call");
    // Besides that call, no op runs: the guard reads metadata (requires_grad), the inputs are
    // passed as new handles (`handle`, and wasm-bindgen's own `__destroy_into_raw`).
    const meta = new Set([
      "handle",
      "requires_grad",
      "meta",
      "shape",
      "dtype",
      "device",
    ]);
    const ops = [...counts.keys()].filter(
      (k) => !meta.has(k) && !k.startsWith("__"),
    );
    assert.deepEqual(ops, []);
    assert.equal(counts.get("handle"), 2);
    assert.equal(s1.graph_replays - s0.graph_replays, 1);
    const kernels = s1.graph_dispatches - s0.graph_dispatches;
    // The replay joins the open batch: it submits only where eager recording would (after 16
    // dispatches on an idle GPU), not once per replay.
    assert.ok(
      s1.submits - s0.submits <= Math.floor(kernels / 16),
      `${s1.submits - s0.submits} submits for ${kernels} kernels`,
    );
    assert.ok(kernels >= 8, `forward, backward and SGD kernels: ${kernels}`);
    assert.equal(
      s1.dispatches - s0.dispatches,
      kernels,
      "no kernel encoded op by op",
    );
    got.push(await loss.item());
    want.push(await eager(x, y).item());
    for (let s = 0; s < 3; s++) {
      got.push(await step(x, y).item());
      want.push(await eager(x, y).item());
    }
    assertClose(got, want, 1e-5, "graph losses vs eager");
    assertClose(await w1.toArray(), await e1.toArray(), 1e-5, "w1");
    assertClose(await w2.toArray(), await e2.toArray(), 1e-5, "w2");
    // State changed outside the step (gradients cleared): the graph is dropped, the step still
    // trains like eager.
    const before = step.stats.graph_replays;
    w1.grad = null;
    e1.grad = null;
    got.push(await step(x, y).item());
    want.push(await eager(x, y).item());
    assertClose(got, want, 1e-5, "after the state changed");
    assert.equal(step.stats.graph_replays, before);
    assert.ok(before >= 4);
  });

if (torch.webgpu.is_available())
  test("[webgpu] a captured step replays tiny products in batched launches (forced: off by default on SwiftShader)", async () => {
    if (!torch.webgpu.is_available()) return;
    await torch.init({ device: "webgpu" });
    const w = torch.webgpu;
    const core = await import(new URL("wasm/webtorch_core.js", PKG_ENTRY).href);
    core.set_batched_launches(true);
    try {
      torch.manual_seed(3);
      const m = torch.scope(() => torch.randn([8, 8]).mul(0.3));
      const x = torch.randn([8, 8]);
      const chain = (v, mm) => {
        for (let i = 0; i < 30; i++) v = v.matmul(mm);
        return v;
      };
      const f = torch.compile((v) => chain(v, m));
      for (let i = 0; i < 3; i++) f(x).dispose();
      await w.sync_device();
      const s0 = w.runtime_stats();
      const y = f(x);
      const got = await y.toArray();
      const s1 = w.runtime_stats();
      assert.equal(s1.graph_replays - s0.graph_replays, 1, "one graph replay");
      const kernels = s1.graph_dispatches - s0.graph_dispatches;
      assert.ok(kernels <= 10, `${kernels} dispatches for 30 products`);
      const [xc, mc] = await Promise.all([x, m].map((t) => t.to_async("cpu")));
      const want = await torch.scope(() => chain(xc, mc)).toArray();
      assertClose(Array.from(got), Array.from(want), 1e-5, "30 products");
      for (const t of [m, x, y, xc, mc]) t.dispose();
    } finally {
      core.set_batched_launches(undefined);
      torch.compiler.reset();
    }
  });

test("[webgpu] a captured step fuses small elementwise chains (eager runs them one kernel each)", async () => {
  const w = torch.webgpu;
  const x = torch
    .tensor(
      Float32Array.from({ length: 64 }, (_, i) => Math.sin(i)),
      { device: "webgpu" },
    )
    .reshape([8, 8]);
  const chain = (t) => {
    let y = t;
    for (let i = 0; i < 40; i++) y = y.mul(1.01).add(0.001);
    return y;
  };
  const f = torch.compile(chain);
  const want = await chain(x).toArray();
  await w.sync_device();
  const e0 = w.runtime_stats().dispatches;
  chain(x).dispose();
  await w.sync_device();
  const eagerKernels = w.runtime_stats().dispatches - e0;
  assert.equal(
    eagerKernels,
    80,
    "64 elements are below min_size: one kernel per op eagerly",
  );
  for (let s = 0; s < 3; s++) (await f(x)).dispose?.();
  assert.equal(f.stats.graphs, 1, f.stats.graph_reasons.join("; "));
  await w.sync_device();
  const s0 = w.runtime_stats();
  const y = f(x);
  const s1 = w.runtime_stats();
  const kernels = s1.graph_dispatches - s0.graph_dispatches;
  assert.ok(
    kernels > 0 && kernels <= 40,
    `replay kernels: ${kernels} for 80 ops`,
  );
  assert.deepEqual(
    await y.toArray(),
    want,
    "fused replay equals eager bit for bit",
  );
});

if (torch.webgpu.is_available())
  test("[webgpu] a replay binds its inputs and outputs in place; it copies only outputs written in parts and pinned inputs", async () => {
    const w = torch.webgpu;
    const mk = (s) =>
      torch.tensor(
        Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i * s)),
        { device: "webgpu" },
      );
    const a = mk(1);
    const b = mk(2);
    // One replay, and the bytes it copied.
    const once = async (f, ...xs) => {
      for (let s = 0; s < 3; s++) (await f(...xs)).dispose();
      assert.equal(f.stats.graphs, 1, f.stats.graph_reasons.join("; "));
      await w.sync_device();
      const c0 = w.runtime_stats().graph_copy_bytes;
      const y = f(...xs);
      return { y, copied: w.runtime_stats().graph_copy_bytes - c0 };
    };
    const fn = (x) => torch.gelu(x).mul(2);
    const f = torch.compile(fn);
    const { y, copied } = await once(f, a);
    assert.equal(copied, 0, "input read and output written in place");
    assert.deepEqual(await y.toArray(), await fn(a).toArray());
    // Each replay writes a fresh buffer and reads the caller's: two held results of two
    // inputs keep their own values.
    const [y1, y2] = [f(a), f(b)];
    assert.deepEqual(await y1.toArray(), await fn(a).toArray());
    assert.deepEqual(await y2.toArray(), await fn(b).toArray());
    // A loop's outputs come back from the pool, so replays reuse the bind groups they made.
    for (let s = 0; s < 4; s++) f(a).dispose();
    const b0 = w.runtime_stats().bind_groups;
    for (let s = 0; s < 10; s++) f(a).dispose();
    assert.equal(w.runtime_stats().bind_groups - b0, 0, "no new bind group");
    // cat writes its output in parts (one slice per kernel): copied out of the graph.
    const catFn = (x) => torch.cat([x.mul(2), x.add(1)]);
    const g = torch.compile(catFn);
    const r = await once(g, a);
    assert.equal(g.stats.eager, 0, g.stats.reasons.join("; "));
    assert.equal(r.copied, 2 * 4096 * 4, "the cat output is copied");
    assert.deepEqual(await r.y.toArray(), await catFn(a).toArray());
    // A buffer a graph pins (a parameter the first graph binds) is copied in, not bound: the
    // second graph could otherwise bind it beside the first graph's own binding of it.
    const p = mk(3);
    const scale = torch.compile(() => p.mul(3));
    for (let s = 0; s < 4; s++) scale().dispose();
    assert.equal(scale.stats.graphs, 1);
    const h = torch.compile((x) => x.add(1));
    const q = await once(h, p);
    assert.equal(q.copied, 4096 * 4, "pinned input copied in; output in place");
    assert.deepEqual(await q.y.toArray(), await p.add(1).toArray());
  });

if (torch.webgpu.is_available())
  test("[webgpu] gradients made anew each step are written into the held gradients, not copied", async () => {
    const w = torch.webgpu;
    const a = torch.randn([32, 16], { device: "webgpu" }).requires_grad_();
    const b = torch.randn([16], { device: "webgpu" }).requires_grad_();
    const opt = new torch.optim.SGD([a, b], { lr: 0.1 });
    const fn = (xb) => {
      opt.zero_grad();
      const loss = xb.matmul(a).add(b).tanh().square().mean();
      loss.backward();
      return loss.detach();
    };
    const xs = [1, 2].map(() => torch.randn([8, 32], { device: "webgpu" }));
    const want = [];
    for (const x of xs) {
      fn(x).dispose();
      want.push([await a.grad.toArray(), await b.grad.toArray()]);
    }
    const f = torch.compile(fn);
    for (let s = 0; s < 4; s++) f(xs[0]).dispose();
    assert.equal(f.stats.graphs, 1, f.stats.graph_reasons.join("; "));
    for (const [i, x] of [1, 0, 1].entries()) {
      await w.sync_device();
      const c0 = w.runtime_stats().graph_copy_bytes;
      f(xs[x]).dispose();
      assert.equal(w.runtime_stats().graph_copy_bytes - c0, 0, "no copy-back");
      assertClose(
        await a.grad.toArray(),
        want[x][0],
        1e-5,
        `a.grad, replay ${i}`,
      );
      assertClose(
        await b.grad.toArray(),
        want[x][1],
        1e-5,
        `b.grad, replay ${i}`,
      );
    }
  });

if (torch.webgpu.is_available())
  test("[webgpu] a captured step reuses the buffers it releases, as the eager step does", async () => {
    const w = torch.webgpu;
    const x = torch.randn([64, 64], { device: "webgpu" });
    const m = torch.randn([64, 64], { device: "webgpu" }).div(8);
    // Twelve products in a row: each intermediate is released once the next one is made.
    const fn = (a) => {
      let y = a;
      for (let i = 0; i < 12; i++) {
        const z = y.matmul(m);
        if (y !== a) y.dispose();
        y = z;
      }
      return y;
    };
    const want = await fn(x).toArray();
    await w.sync_device();
    const before = w.runtime_stats().active_bytes;
    const f = torch.compile(fn);
    for (let s = 0; s < 4; s++) f(x).dispose();
    assert.equal(f.stats.graphs, 1, f.stats.graph_reasons.join("; "));
    const y = f(x);
    assertClose(await y.toArray(), want, 1e-5, "replayed chain");
    y.dispose();
    await w.sync_device();
    // What the graph keeps: the buffers its intermediates took, 16 KiB each. One per product
    // (11) if every intermediate kept its own; the eager step's ping-pong takes two.
    const kept = (w.runtime_stats().active_bytes - before) / (64 * 64 * 4);
    assert.ok(kept <= 3, `the graph keeps ${kept} intermediate buffers`);
  });

if (torch.webgpu.is_available())
  test("[webgpu] the profiler times a replay's kernels one by one, named as eager ones", async () => {
    const w = torch.webgpu;
    const x = torch.tensor(
      Float32Array.from({ length: 4096 }, (_, i) => Math.cos(i)),
      { device: "webgpu" },
    );
    const fn = (t) =>
      t
        .reshape([64, 64])
        .matmul(t.reshape([64, 64]))
        .relu();
    const f = torch.compile(fn);
    for (let s = 0; s < 4; s++) f(x).dispose();
    assert.equal(f.stats.graphs, 1, f.stats.graph_reasons.join("; "));
    await w.sync_device();
    const g0 = w.runtime_stats().graph_dispatches;
    let y;
    const prof = await torch.profiler.profile(async () => {
      y = f(x);
      await w.sync_device();
    });
    const replayed = w.runtime_stats().graph_dispatches - g0;
    assert.ok(replayed >= 1);
    assert.equal(prof.gpu_timing, true);
    assert.equal(prof.gpu_events.length, replayed, "one GPU time per kernel");
    assert.ok(
      prof.gpu_events.some((k) => k.kernel.startsWith("webtorch:matmul")),
      prof.gpu_events.map((k) => k.kernel).join(", "),
    );
    assert.deepEqual(await y.toArray(), await fn(x).toArray());
  });

test("torch.compile: dynamic=true, a mode other than default and options warn once each that they have no effect; mode with options is refused as PyTorch does", () => {
  const lines = [];
  const orig = console.warn;
  console.warn = (...a) => lines.push(a.join(" "));
  try {
    torch.warnings.resetwarnings();
    const f = (x) => x.add(1);
    // PyTorch's defaults and webtorch's behaviour: no warning.
    torch.compile(f, { dynamic: false, mode: "default" });
    torch.compile(f, { dynamic: null, mode: null, options: null });
    assert.deepEqual(lines, []);
    torch.compile(f, { dynamic: true });
    torch.compile(f, { mode: "max-autotune" });
    torch.compile(f, { options: { "triton.cudagraphs": true } });
    torch.compile(f, { dynamic: true, mode: "reduce-overhead" });
    assert.equal(lines.length, 3, lines.join("\n"));
    assert.match(lines[0], /dynamic=True\) has no effect/);
    assert.match(lines[1], /mode="max-autotune"\) has no effect/);
    assert.match(
      lines[2],
      /options=\.\.\.\) has no effect.*triton\.cudagraphs/,
    );
  } finally {
    console.warn = orig;
    torch.warnings.resetwarnings();
  }
  // PyTorch: RuntimeError, in its words.
  assert.throws(
    () => torch.compile((x) => x, { mode: "max-autotune", options: { a: 1 } }),
    (e) =>
      e instanceof torch.TorchError &&
      e.message ===
        "Either mode or options can be specified, but both can't be specified at the same time.",
  );
});
