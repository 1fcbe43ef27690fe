// Optimizers and LR schedulers against PyTorch (fixtures from tests/parity/train_gen.py): a
// fixed-seed MLP trained 20 steps (per-step losses and final weights), N steps of each optimizer
// on fixed parameters and gradients, scheduler learning rates (and the cyclic schedulers'
// momenta) — on WebGPU and on the CPU backend.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { nn, optim } = torch;
const dir = new URL("../parity/fixtures/train/", import.meta.url);
const json = (name) => JSON.parse(readFileSync(new URL(name, dir)));
const TRAIN = json("mlp_train.json");
const STEPS = json("optim_steps.json");
const SCHED = json("lr_schedulers.json");
const SCHED_MORE = json("lr_schedulers_more.json");

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const f32 = (v) => torch.tensor(Float32Array.from(v.data)).reshape(v.shape);

function makeOptimizer(name, params, options) {
  return new optim[name](params, options);
}

for (const device of devices) {
  describe(`[${device}] training parity with PyTorch (8-16-4 MLP, 20 steps)`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const [run, spec] of Object.entries(TRAIN.runs)) {
      test(`${run}: per-step losses and final weights`, async () => {
        const model = new nn.Sequential(
          new nn.Linear(8, 16),
          new nn.ReLU(),
          new nn.Linear(16, 4),
        );
        const init = await torch.load(new URL("mlp_init.safetensors", dir));
        model.load_state_dict(init);
        const x = f32(TRAIN.x);
        const y = torch.tensor(TRAIN.y);
        const opt = makeOptimizer(
          spec.optimizer,
          model.parameters(),
          spec.options,
        );
        const losses = [];
        for (let i = 0; i < TRAIN.steps; i++) {
          opt.zero_grad();
          const loss = nn.functional.cross_entropy(model.call(x), y);
          loss.backward();
          opt.step();
          losses.push(await loss.item());
        }
        assertClose(losses, spec.losses, 1e-4, `${run} losses`);
        const sd = model.state_dict();
        for (const [k, v] of Object.entries(spec.final))
          assertClose(await sd[k].toArray(), v, 1e-4, `${run} ${k}`);
      });
    }
  });

  describe(`[${device}] optimizer steps match PyTorch`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const c of STEPS.cases) {
      test(`${c.optimizer} ${JSON.stringify(c.options)}`, async () => {
        const params = STEPS.params.map((p) => f32(p).requires_grad_());
        const opt = makeOptimizer(c.optimizer, params, c.options);
        for (let s = 0; s < STEPS.steps; s++) {
          params.forEach((p, i) => {
            p.grad = torch
              .tensor(Float32Array.from(STEPS.grads[s][i]))
              .reshape(p.shape);
          });
          opt.step();
        }
        for (let i = 0; i < params.length; i++)
          assertClose(
            await params[i].toArray(),
            c.final[i],
            1e-4,
            `param ${i}`,
          );
      });
    }

    test("zero_grad, param groups, state_dict round trip", async () => {
      const a = torch.ones(2).requires_grad_();
      const b = torch.ones(3).requires_grad_();
      const opt = new optim.Adam([{ params: [a] }, { params: [b], lr: 0.5 }], {
        lr: 0.1,
      });
      assert.equal(opt.param_groups[0].lr, 0.1);
      assert.equal(opt.param_groups[1].lr, 0.5);
      assert.deepEqual(opt.param_groups[1].betas, [0.9, 0.999]);
      a.grad = torch.ones(2);
      b.grad = torch.ones(3);
      opt.step();
      const sd = opt.state_dict();
      assert.deepEqual(
        sd.param_groups.map((g) => g.params),
        [[0], [1]],
      );
      assert.equal(sd.state[0].step, 1);
      const a2 = torch.ones(2).requires_grad_();
      const b2 = torch.ones(3).requires_grad_();
      const opt2 = new optim.Adam([{ params: [a2] }, { params: [b2] }], {
        lr: 0.1,
      });
      opt2.load_state_dict(sd);
      assert.equal(opt2.param_groups[1].lr, 0.5);
      assertClose(await opt2.state.get(b2).exp_avg.toArray(), [0.1, 0.1, 0.1]);
      opt.zero_grad();
      assert.equal(a.grad, null);
      assert.throws(() => new optim.SGD([], {}), /empty parameter list/);
      assert.throws(
        () => new optim.SGD([a], { lr: -1 }),
        /Invalid learning rate/,
      );
    });
  });

  describe(`[${device}] lr_scheduler matches PyTorch`, () => {
    before(async () => {
      await torch.init({ device });
    });
    for (const s of SCHED) {
      test(s.scheduler, () => {
        const p = torch.zeros(1).requires_grad_();
        const opt = new optim.SGD([p], { lr: 0.1 });
        const o = s.options;
        const L = optim.lr_scheduler;
        const sched = {
          StepLR: () => new L.StepLR(opt, o.step_size, o.gamma),
          MultiStepLR: () => new L.MultiStepLR(opt, o.milestones, o.gamma),
          ExponentialLR: () => new L.ExponentialLR(opt, o.gamma),
          CosineAnnealingLR: () =>
            new L.CosineAnnealingLR(opt, o.T_max, o.eta_min),
          LinearLR: () =>
            new L.LinearLR(opt, o.start_factor, o.end_factor, o.total_iters),
          LambdaLR: () => new L.LambdaLR(opt, (epoch) => 0.95 ** epoch),
        }[s.scheduler]();
        const lrs = [opt.param_groups[0].lr];
        for (let i = 0; i < 12; i++) {
          opt.step();
          sched.step();
          lrs.push(opt.param_groups[0].lr);
        }
        assertClose(lrs, s.lrs, 1e-9, s.scheduler);
        assert.deepEqual(sched.get_last_lr(), [lrs.at(-1)]);
      });
    }

    const L = optim.lr_scheduler;
    const sgd = () =>
      new optim.SGD([torch.zeros(1).requires_grad_()], {
        lr: 0.1,
        momentum: 0.9,
      });
    const adam = () =>
      new optim.Adam([torch.zeros(1).requires_grad_()], { lr: 0.1 });
    /** Case name → [make the optimizer, make the scheduler]. */
    const MORE = {
      MultiplicativeLR: [sgd, (o) => new L.MultiplicativeLR(o, () => 0.9)],
      ConstantLR: [sgd, (o) => new L.ConstantLR(o, 0.5, 4)],
      PolynomialLR: [sgd, (o) => new L.PolynomialLR(o, 6, 2)],
      CosineAnnealingWarmRestarts: [
        sgd,
        (o) => new L.CosineAnnealingWarmRestarts(o, 3, 2, 0.01),
      ],
      CyclicLR_triangular: [
        sgd,
        (o) =>
          new L.CyclicLR(o, { base_lr: 0.01, max_lr: 0.1, step_size_up: 3 }),
      ],
      CyclicLR_triangular2: [
        sgd,
        (o) =>
          new L.CyclicLR(o, {
            base_lr: 0.01,
            max_lr: 0.1,
            step_size_up: 2,
            step_size_down: 3,
            mode: "triangular2",
          }),
      ],
      CyclicLR_exp_range_adam: [
        adam,
        (o) =>
          new L.CyclicLR(o, {
            base_lr: 0.01,
            max_lr: 0.1,
            step_size_up: 2,
            mode: "exp_range",
            gamma: 0.9,
          }),
      ],
      OneCycleLR: [
        sgd,
        (o) => new L.OneCycleLR(o, { max_lr: 0.5, total_steps: 12 }),
      ],
      OneCycleLR_linear_three_phase_adam: [
        adam,
        (o) =>
          new L.OneCycleLR(o, {
            max_lr: 0.5,
            epochs: 3,
            steps_per_epoch: 4,
            pct_start: 0.25,
            anneal_strategy: "linear",
            three_phase: true,
          }),
      ],
      SequentialLR_warmup_exp: [
        sgd,
        (o) =>
          new L.SequentialLR(
            o,
            [new L.LinearLR(o, 0.1, 1, 3), new L.ExponentialLR(o, 0.8)],
            [3],
          ),
      ],
      SequentialLR_three: [
        sgd,
        (o) =>
          new L.SequentialLR(
            o,
            [
              new L.ConstantLR(o, 0.5, 2),
              new L.CosineAnnealingLR(o, 5),
              new L.LambdaLR(o, (e) => 0.9 ** e),
            ],
            [2, 6],
          ),
      ],
      ChainedScheduler: [
        sgd,
        (o) =>
          new L.ChainedScheduler([
            new L.ConstantLR(o, 0.5, 3),
            new L.ExponentialLR(o, 0.9),
          ]),
      ],
      ReduceLROnPlateau_min: [
        sgd,
        (o) =>
          new L.ReduceLROnPlateau(o, {
            patience: 2,
            cooldown: 1,
            factor: 0.5,
            min_lr: 0.02,
          }),
      ],
      ReduceLROnPlateau_max_abs: [
        sgd,
        (o) =>
          new L.ReduceLROnPlateau(o, {
            mode: "max",
            threshold_mode: "abs",
            threshold: 0.05,
            patience: 1,
          }),
      ],
    };

    test("every scheduler fixture has a case here", () => {
      assert.deepEqual(
        Object.keys(MORE).sort(),
        Object.keys(SCHED_MORE).sort(),
      );
    });

    for (const [name, want] of Object.entries(SCHED_MORE)) {
      test(name, () => {
        const [makeOpt, make] = MORE[name];
        const opt = makeOpt();
        const sched = make(opt);
        const g = opt.param_groups[0];
        const mom = () => (g.betas ? g.betas[0] : g.momentum);
        const lrs = [g.lr];
        const moms = [mom()];
        for (let i = 0; i < 12; i++) {
          opt.step();
          if (want.metrics) sched.step(want.metrics[i]);
          else sched.step();
          lrs.push(g.lr);
          moms.push(mom());
        }
        assertClose(lrs, want.lrs, 1e-9, `${name} lr`);
        if (want.momenta)
          assertClose(moms, want.momenta, 1e-9, `${name} momentum`);
        assert.deepEqual(sched.get_last_lr(), [lrs.at(-1)]);
      });
    }

    test("OneCycleLR refuses to step past total_steps", () => {
      const o = sgd();
      const s = new L.OneCycleLR(o, { max_lr: 0.5, total_steps: 2 });
      s.step();
      s.step();
      assert.throws(
        () => s.step(),
        /Tried to step 3 times. The specified number of total steps is 2/,
      );
    });
  });
}
