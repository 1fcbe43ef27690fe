// optim.LBFGS against PyTorch (fixtures from tests/parity/train_gen.py): three steps on the
// Rosenbrock function and on a small linear regression, without and with the strong-Wolfe line
// search — the loss each step returns, the parameters after it, and PyTorch's func_evals and
// n_iter counters — on WebGPU and on the CPU backend; and a run resumed from state_dict() after
// its first step (history lists included) continues PyTorch's trajectory.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { optim } = torch;
const FIX = JSON.parse(
  readFileSync(new URL("../parity/fixtures/train/lbfgs.json", import.meta.url)),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

/** The problem's parameters and loss function. */
function problem(name) {
  if (name === "rosenbrock") {
    const x = torch.tensor([-1.5, 2.0]).requires_grad_();
    const f = () => {
      const x0 = x.select(0, 0);
      const x1 = x.select(0, 1);
      return x0
        .neg()
        .add(1)
        .square()
        .add(x1.sub(x0.square()).square().mul(100));
    };
    return [[x], f];
  }
  const X = torch.tensor(FIX.X).reshape([8, 3]);
  const y = torch.tensor(FIX.y).reshape([8, 1]);
  const w = torch.zeros(1, 3).requires_grad_();
  const b = torch.zeros(1).requires_grad_();
  const f = () => torch.nn.functional.mse_loss(X.matmul(w.t()).add(b), y);
  return [[w, b], f];
}

for (const device of devices) {
  describe(`[${device}] LBFGS matches PyTorch`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const c of FIX.cases)
      test(`${c.problem} ${JSON.stringify(c.options)}`, async () => {
        const [params, f] = problem(c.problem);
        const opt = new optim.LBFGS(params, c.options);
        const closure = () => {
          opt.zero_grad();
          const loss = f();
          loss.backward();
          return loss;
        };
        for (const [i, want] of c.steps.entries()) {
          const loss = await opt.step(closure);
          assertClose([await loss.item()], [want.loss], 1e-4, `step ${i} loss`);
          for (const [k, p] of params.entries())
            assertClose(
              await p.toArray(),
              want.params[k],
              1e-4,
              `step ${i} param ${k}`,
            );
          const st = opt.state.get(params[0]);
          assert.equal(st.func_evals, want.func_evals, `step ${i} func_evals`);
          assert.equal(st.n_iter, want.n_iter, `step ${i} n_iter`);
        }
      });

    for (const c of FIX.cases)
      test(`${c.problem} ${JSON.stringify(c.options)}: state_dict after step 1 resumes PyTorch's run`, async () => {
        const [params, f] = problem(c.problem);
        const opt = new optim.LBFGS(params, c.options);
        const closureOf = (o, f) => () => {
          o.zero_grad();
          const loss = f();
          loss.backward();
          return loss;
        };
        await opt.step(closureOf(opt, f));
        const sd = opt.state_dict();
        const s = sd.state[0];
        assert.equal(s.n_iter, c.steps[0].n_iter);
        assert.ok(Array.isArray(s.old_dirs) && Array.isArray(s.ro));
        assert.equal(s.old_dirs.length, s.old_stps.length);
        assert.equal(s.old_dirs.length, s.ro.length);
        // A fresh problem at the same point, with a fresh optimizer loaded from the state dict.
        const [params2, f2] = problem(c.problem);
        for (const [k, p] of params2.entries())
          torch.no_grad(() => p.copy_(params[k]));
        const opt2 = new optim.LBFGS(params2, c.options);
        opt2.load_state_dict(sd);
        // The first optimizer's state tensors, read before the second runs.
        const held = async (o) => {
          const st = o.state.get(params[0]);
          const ts = [st.d, st.prev_flat_grad, ...st.old_dirs, ...st.old_stps];
          return Promise.all(
            ts.map(async (t) => Array.from(await t.toArray())),
          );
        };
        const before1 = await held(opt);
        for (const [i, want] of c.steps.entries()) {
          if (i === 0) continue;
          const loss = await opt2.step(closureOf(opt2, f2));
          assertClose([await loss.item()], [want.loss], 1e-4, `step ${i} loss`);
          for (const [k, p] of params2.entries())
            assertClose(
              await p.toArray(),
              want.params[k],
              1e-4,
              `step ${i} param ${k}`,
            );
          const st = opt2.state.get(params2[0]);
          assert.equal(st.n_iter, want.n_iter, `step ${i} n_iter`);
        }
        // The loaded state is a copy: the first optimizer's tensors (which the second's steps would
        // dispose or replace if shared) are alive and unchanged after the second's run.
        assert.equal(opt.state.get(params[0]).n_iter, c.steps[0].n_iter);
        assert.deepEqual(await held(opt), before1);
      });

    test("an async closure; PyTorch's errors", async () => {
      const x = torch.tensor([3], { dtype: "float32" }).requires_grad_();
      const opt = new optim.LBFGS([x], { line_search_fn: "strong_wolfe" });
      await opt.step(async () => {
        opt.zero_grad();
        const loss = x.sub(1).square().sum();
        loss.backward();
        return loss;
      });
      assertClose(await x.toArray(), [1], 1e-4, "minimum");
      assert.throws(
        () =>
          new optim.LBFGS([
            { params: [x] },
            { params: [torch.zeros(1).requires_grad_()] },
          ]),
        /LBFGS doesn't support per-parameter options \(parameter groups\)/,
      );
      assert.throws(
        () => new optim.LBFGS([x], { lr: -1 }),
        /Invalid learning rate: -1/,
      );
      await assert.rejects(opt.step(), /LBFGS.step\(\) requires a closure/);
    });
  });
}
