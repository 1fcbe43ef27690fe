// torch.utils.checkpoint.checkpoint on WebGPU (when an adapter exists) and on the CPU backend:
// the gradients equal the plain call's (inputs, and parameters used inside the function), the
// intermediate activations are not kept between forward and backward (the device's active bytes
// after the forward), use_reentrant's difference when no argument requires grad, multiple
// outputs, and the recomputation check that refuses a random op drawing other numbers.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { checkpoint } = torch.utils.checkpoint;

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

/** A few layers of tanh(x·W), with the weights used from the closure (as a module's are). */
function layers(ws) {
  return (x) => {
    let h = x;
    for (const w of ws) h = h.matmul(w).tanh();
    return h;
  };
}

function weights(n, d) {
  torch.manual_seed(7);
  return Array.from({ length: n }, () =>
    torch.randn(d, d).mul(0.3).requires_grad_(),
  );
}

for (const device of devices) {
  describe(`[${device}] torch.utils.checkpoint`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("gradients of the input and of the closure's parameters equal the plain call's", async () => {
      const ws = weights(3, 8);
      const f = layers(ws);
      const x = torch.randn(4, 8).requires_grad_();
      const g = torch.randn(4, 8);
      f(x).mul(g).sum().backward();
      const plain = [await x.grad.toArray()];
      for (const w of ws) plain.push(await w.grad.toArray());
      x.grad = null;
      for (const w of ws) w.grad = null;
      const y = checkpoint(f, x, { use_reentrant: false });
      assert.equal(y.grad_fn.name, "CheckpointFunctionBackward");
      y.mul(g).sum().backward();
      assertClose(await x.grad.toArray(), plain[0], 1e-6, "x");
      for (let i = 0; i < ws.length; i++)
        assertClose(await ws[i].grad.toArray(), plain[i + 1], 1e-6, `w${i}`);
    });

    test("intermediate activations are freed after the forward and recomputed in backward", async () => {
      const d = 128;
      const n = 6;
      const ws = weights(n, d);
      const f = layers(ws);
      const x = torch.randn(64, d).requires_grad_();
      const active = () => torch.webgpu.memory_stats().active_bytes;
      const activation = 64 * d * 4;
      const base = active();
      const plainOut = torch.scope(() => f(x));
      const plainHeld = active() - base;
      plainOut.sum().backward();
      plainOut.dispose();
      const plainGrad = await x.grad.toArray();
      x.grad = null;
      for (const w of ws) w.grad = null;
      const base2 = active();
      const ckOut = torch.scope(() =>
        checkpoint(f, x, { use_reentrant: false }),
      );
      const ckHeld = active() - base2;
      // The plain graph keeps an activation per layer; the checkpoint keeps its output only
      // (and a few bytes of fingerprint).
      assert.ok(
        plainHeld >= n * activation,
        `plain run holds ${plainHeld} bytes`,
      );
      assert.ok(
        ckHeld < 2 * activation,
        `checkpoint holds ${ckHeld} bytes, plain ${plainHeld}`,
      );
      ckOut.sum().backward();
      ckOut.dispose();
      assertClose(await x.grad.toArray(), plainGrad, 1e-6, "x");
    });

    test("no argument requiring grad: use_reentrant false still reaches the parameters, true does not", async () => {
      const ws = weights(2, 4);
      const f = layers(ws);
      const x = torch.randn(3, 4);
      checkpoint(f, x, { use_reentrant: false }).sum().backward();
      assert.ok(ws[0].grad !== null && ws[1].grad !== null);
      const ws2 = weights(2, 4);
      const y = checkpoint(layers(ws2), x, { use_reentrant: true });
      assert.equal(y.requires_grad, false);
      assert.equal(ws2[0].grad, null);
    });

    test("backward twice with retain_graph recomputes twice", async () => {
      const ws = weights(2, 4);
      const f = layers(ws);
      const x = torch.randn(3, 4).requires_grad_();
      f(x).sum().backward();
      const once = await x.grad.toArray();
      x.grad = null;
      const y = checkpoint(f, x, { use_reentrant: false }).sum();
      y.backward({ retain_graph: true });
      y.backward();
      assertClose(
        await x.grad.toArray(),
        Array.from(once, (v) => 2 * v),
        1e-6,
        "x",
      );
    });

    test("several outputs and non-tensor arguments", async () => {
      const w = torch.randn(3, 3).requires_grad_();
      const f = (a, k, b) => [a.matmul(w).mul(k), b.sin()];
      const a = torch.randn(2, 3).requires_grad_();
      const b = torch.randn(5).requires_grad_();
      const [p, q] = f(a, 2, b);
      p.sum().add(q.sum()).backward();
      const want = [await a.grad.toArray(), await b.grad.toArray()];
      const wantW = await w.grad.toArray();
      a.grad = null;
      b.grad = null;
      w.grad = null;
      const [p2, q2] = checkpoint(f, a, 2, b, { use_reentrant: false });
      p2.sum().add(q2.sum()).backward();
      assertClose(await a.grad.toArray(), want[0], 1e-6, "a");
      assertClose(await b.grad.toArray(), want[1], 1e-6, "b");
      assertClose(await w.grad.toArray(), wantW, 1e-6, "w");
    });

    test("a random op inside: refused unless preserve_rng_state is false", async () => {
      const x = torch.randn(64, 64).requires_grad_();
      const f = (t) => torch.nn.functional.dropout(t, 0.5, true).mul(2);
      await assert.rejects(async () => {
        checkpoint(f, x, { use_reentrant: false }).sum().backward();
        await x.grad.toArray();
      }, /recomputed forward differs from the original one/);
      x.grad = null;
      checkpoint(f, x, {
        use_reentrant: false,
        preserve_rng_state: false,
      })
        .sum()
        .backward();
      assert.deepEqual(x.grad.shape, [64, 64]);
    });

    test("arguments as PyTorch checks them", () => {
      const x = torch.randn(2);
      assert.throws(
        () =>
          checkpoint((t) => t, x, {
            use_reentrant: false,
            determinism_check: "foo",
          }),
        /determinism_check should be one of \['default', 'none'\], but got foo/,
      );
      assert.throws(
        () => checkpoint((t) => 3, x, { use_reentrant: false }),
        /must return a Tensor or an array of Tensors/,
      );
    });
  });
}
