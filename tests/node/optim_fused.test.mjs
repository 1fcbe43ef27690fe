// The fused optimizer step (src/ops/optim/, ts/src/optim/fused.ts): a step of a 6-parameter
// model is one core call and one update dispatch per param group (plus buffer copies), for
// every optimizer; parameters without a gradient on some steps are skipped as PyTorch skips
// them (their step counts fall behind); state_dict() has PyTorch's per-parameter layout and
// values, and a state dict loaded into a new optimizer continues PyTorch's trajectory
// (fixtures from tests/parity/train_gen.py) — on WebGPU and on the CPU backend.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { nn, optim } = torch;
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/train/optim_state.json", import.meta.url),
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const f32 = (data, shape) =>
  torch.tensor(Float32Array.from(data)).reshape(shape);

const COUNTED = [
  ["SGD", { lr: 0.1 }],
  ["SGD", { lr: 0.1, momentum: 0.9, nesterov: true }],
  ["Adam", { amsgrad: true }],
  ["AdamW", {}],
  ["RMSprop", { momentum: 0.5, centered: true }],
  ["Adagrad", {}],
  ["Adamax", {}],
  ["NAdam", {}],
  ["RAdam", {}],
  ["ASGD", {}],
  ["Adadelta", {}],
  ["Rprop", {}],
];

/** Sets the gradients of step `s` (none where the fixture skips a parameter). */
function setGrads(params, s) {
  const skip = FIX.skips[s] ?? [];
  params.forEach((p, i) => {
    p.grad = skip.includes(i) ? null : f32(FIX.grads[s][i], p.shape);
  });
}

for (const device of devices) {
  describe(`[${device}] fused optimizer steps`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const [name, options] of COUNTED)
      test(`${name} ${JSON.stringify(options)}: one core call, one dispatch, 18 copies per step of 6 parameters`, async () => {
        torch.manual_seed(0);
        const model = new nn.Sequential(
          new nn.Linear(8, 16),
          new nn.ReLU(),
          new nn.Linear(16, 16),
          new nn.ReLU(),
          new nn.Linear(16, 4),
        );
        const params = model.parameters();
        assert.equal(params.length, 6);
        const opt = new optim[name](params, options);
        const x = torch.randn(5, 8);
        for (let s = 0; s < 3; s++) {
          opt.zero_grad();
          // In a scope, so that no live intermediate still reads the parameters lazily (the
          // step would have to compute it before the parameters change).
          torch.scope(() => model.call(x).square().mean().backward());
          // The gradients are computed before counting what the step adds.
          await torch.webgpu.sync_device();
          const before = torch.webgpu.runtime_stats();
          const calls = torch._C.count_core_calls(() => opt.step());
          const after = torch.webgpu.runtime_stats();
          // The first step also makes the core's group (a list of the 6 parameters).
          if (s === 0) assert.equal(calls.optim_step, 1);
          else assert.deepEqual(calls, { optim_step: 1 }, `step ${s}`);
          // Each parameter and gradient copied in, each parameter copied back.
          assert.equal(after.copies - before.copies, 18, `copies, step ${s}`);
          // After the first step (which also makes the flat state): one update kernel.
          if (device === "webgpu" && s > 0)
            assert.equal(after.dispatches - before.dispatches, 1, `step ${s}`);
        }
        assert.ok(Number.isFinite(await params[0].sum().item()));
      });

    test("a compiled Adam step replays through a core plan (no kernel graph: its scalars change) and trains as eager", async () => {
      const make = () => {
        torch.manual_seed(3);
        const m = new nn.Sequential(
          new nn.Linear(4, 8),
          new nn.Tanh(),
          new nn.Linear(8, 2),
        );
        return [m, new optim.Adam(m.parameters(), { lr: 0.05 })];
      };
      const [m1, o1] = make();
      const [m2, o2] = make();
      const x = torch.randn(6, 4);
      const y = torch.randn(6, 2);
      const body = (m, o) => (xb, yb) => {
        o.zero_grad();
        const loss = nn.functional.mse_loss(m.call(xb), yb);
        loss.backward();
        o.step();
        return loss;
      };
      const step = torch.compile(body(m1, o1));
      const eager = body(m2, o2);
      const got = [];
      const want = [];
      for (let s = 0; s < 6; s++) {
        got.push(await step(x, y).item());
        want.push(await eager(x, y).item());
      }
      assertClose(got, want, 1e-5, "losses");
      assert.equal(step.stats.eager, 0, step.stats.reasons.join("; "));
      assert.ok(step.stats.replays >= 3, `replays ${step.stats.replays}`);
      if (device === "webgpu") {
        assert.equal(step.stats.graphs, 0);
        assert.match(
          step.stats.graph_reasons.join("; "),
          /changes its scalars every step/,
        );
      }
      const [p1, p2] = [m1.parameters(), m2.parameters()];
      for (let i = 0; i < p1.length; i++)
        assertClose(
          await p1[i].toArray(),
          await p2[i].toArray(),
          1e-5,
          `param ${i}`,
        );
      assert.equal(o1.state.get(p1[0]).step, 6);
    });

    test("two param groups: one call each", () => {
      const a = torch.ones(3).requires_grad_();
      const b = torch.ones(2, 2).requires_grad_();
      const opt = new optim.Adam([{ params: [a] }, { params: [b], lr: 0.5 }]);
      a.grad = torch.ones(3);
      b.grad = torch.ones(2, 2);
      opt.step(); // makes the core's groups
      const calls = torch._C.count_core_calls(() => opt.step());
      assert.deepEqual(calls, { optim_step: 2 });
    });

    for (const c of FIX.cases)
      test(`${c.optimizer} ${JSON.stringify(c.options)}: skipped gradients and state_dict as PyTorch`, async () => {
        const params = FIX.params.map((p) =>
          f32(p.data, p.shape).requires_grad_(),
        );
        let opt = new optim[c.optimizer](params, c.options);
        const half = FIX.steps / 2;
        for (let s = 0; s < half; s++) {
          setGrads(params, s);
          opt.step();
        }
        // Half way: the state goes through a state dict into a new optimizer.
        const saved = opt.state_dict();
        const copies = await Promise.all(
          params.map(async (p) =>
            f32(await p.toArray(), p.shape).requires_grad_(),
          ),
        );
        opt = new optim[c.optimizer](copies, c.options);
        opt.load_state_dict(saved);
        for (let s = half; s < FIX.steps; s++) {
          setGrads(copies, s);
          opt.step();
        }
        for (let i = 0; i < copies.length; i++)
          assertClose(
            await copies[i].toArray(),
            c.final[i],
            1e-4,
            `param ${i}`,
          );
        const sd = opt.state_dict();
        assert.deepEqual(sd.param_groups[0].params, [0, 1, 2]);
        for (let i = 0; i < copies.length; i++) {
          const want = c.state[i];
          const got = sd.state[i];
          if (want === null) {
            assert.equal(got, undefined, `state ${i}`);
            continue;
          }
          assert.deepEqual(
            Object.keys(got),
            want.map(([k]) => k),
            `state ${i} keys`,
          );
          for (const [k, v] of want) {
            if (Array.isArray(v)) {
              assert.deepEqual(got[k].shape, copies[i].shape, `${k} shape`);
              assertClose(await got[k].toArray(), v, 1e-4, `state ${i} ${k}`);
            } else assertClose([got[k]], [v], 1e-6, `state ${i} ${k}`);
          }
        }
      });

    test("bad options throw PyTorch's errors", () => {
      const p = [torch.zeros(2).requires_grad_()];
      const cases = [
        [() => new optim.SGD(p, { lr: -1 }), "Invalid learning rate: -1"],
        [
          () => new optim.SGD(p, { momentum: -0.5 }),
          "Invalid momentum value: -0.5",
        ],
        [
          () => new optim.SGD(p, { nesterov: true }),
          "Nesterov momentum requires a momentum and zero dampening",
        ],
        [() => new optim.Adam(p, { eps: -1 }), "Invalid epsilon value: -1"],
        [
          () => new optim.Adam(p, { betas: [0.9, 1] }),
          "Invalid beta parameter at index 1: 1",
        ],
        [
          () => new optim.AdamW(p, { weight_decay: -0.1 }),
          "Invalid weight_decay value: -0.1",
        ],
        [() => new optim.RMSprop(p, { alpha: -1 }), "Invalid alpha value: -1"],
        [
          () => new optim.Adagrad(p, { lr_decay: -1 }),
          "Invalid lr_decay value: -1",
        ],
        [
          () => new optim.Adagrad(p, { initial_accumulator_value: -1 }),
          "Invalid initial_accumulator_value value: -1",
        ],
        [
          () => new optim.NAdam(p, { momentum_decay: -1 }),
          "Invalid momentum_decay value: -1",
        ],
        [() => new optim.Adadelta(p, { rho: 2 }), "Invalid rho value: 2"],
        [
          () => new optim.Rprop(p, { etas: [1.5, 1.2] }),
          "Invalid eta values: 1.5, 1.2",
        ],
        [
          () => new optim.Adam(p, { lr: "0.1" }),
          "Adam.__init__(): argument 'lr' must be float, not str",
        ],
      ];
      for (const [make, message] of cases)
        assert.throws(make, (e) => {
          assert.ok(e instanceof torch.TorchError, String(e));
          assert.equal(e.message, message);
          return true;
        });
    });
  });
}
