// torch.autograd.Function subclasses written in JS: forward/backward with ctx.save_for_backward,
// needs_input_grad, non-tensor arguments, several outputs, mark_dirty, mark_non_differentiable,
// double backward, the in-place check on saved tensors and PyTorch's errors. Gradients are
// checked against the same math done with the core's own differentiable ops.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { Function } = torch.autograd;

class Exp extends Function {
  static forward(ctx, x) {
    const y = x.exp();
    ctx.save_for_backward(y);
    return y;
  }
  static backward(ctx, gy) {
    const [y] = ctx.saved_tensors;
    return gy.mul(y);
  }
}

/** x * y * k for a number k; records needs_input_grad. */
class ScaledMul extends Function {
  static seen = null;
  static forward(ctx, x, y, k) {
    ctx.save_for_backward(x, y);
    ctx.k = k;
    ScaledMul.seen = ctx.needs_input_grad;
    return x.mul(y).mul(k);
  }
  static backward(ctx, g) {
    const [x, y] = ctx.saved_tensors;
    return [
      ctx.needs_input_grad[0] ? g.mul(y).mul(ctx.k) : null,
      ctx.needs_input_grad[1] ? g.mul(x).mul(ctx.k) : null,
      null,
    ];
  }
}

/** Two outputs (sin, cos); backward sees a zero gradient for an unused one. */
class SinCos extends Function {
  static forward(ctx, x) {
    ctx.save_for_backward(x);
    return [x.sin(), x.cos()];
  }
  static backward(ctx, gs, gc) {
    const [x] = ctx.saved_tensors;
    return gs.mul(x.cos()).sub(gc.mul(x.sin()));
  }
}

/** x³ with a backward written in differentiable ops, so it differentiates again. */
class Cube extends Function {
  static forward(ctx, x) {
    ctx.save_for_backward(x);
    return x.pow(3);
  }
  static backward(ctx, g) {
    const [x] = ctx.saved_tensors;
    return g.mul(x.square()).mul(3);
  }
}

/** Adds a bias of shape [n] to rows, returning the gradient unreduced: the core sums it. */
class AddRow extends Function {
  static forward(ctx, x, b) {
    return x.add(b);
  }
  static backward(ctx, g) {
    return [g, g];
  }
}

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`[${device}] autograd.Function`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("forward value, saved tensors, grad_fn name, gradient", async () => {
      const x = torch.tensor([0.5, -1, 2], { dtype: "float32" });
      x.requires_grad_();
      const y = Exp.apply(x);
      assert.equal(y.grad_fn.name, "ExpBackward");
      assert.equal(y.requires_grad, true);
      y.mul(torch.tensor([1, 2, 3], { dtype: "float32" }))
        .sum()
        .backward();
      const want = torch
        .tensor([0.5, -1, 2], { dtype: "float32" })
        .requires_grad_();
      want
        .exp()
        .mul(torch.tensor([1, 2, 3], { dtype: "float32" }))
        .sum()
        .backward();
      assertClose(await y.toArray(), await want.exp().detach().toArray());
      assertClose(await x.grad.toArray(), await want.grad.toArray());
      // Without grad, apply returns forward's result untouched.
      const z = torch.no_grad(() => Exp.apply(x));
      assert.equal(z.requires_grad, false);
    });

    test("needs_input_grad, a number argument, null gradients", async () => {
      const x = torch.tensor([1, 2], { dtype: "float32" });
      const y = torch.tensor([3, -4], { dtype: "float32" }).requires_grad_();
      const out = ScaledMul.apply(x, y, 2.5);
      assert.deepEqual(ScaledMul.seen, [false, true, false]);
      out.sum().backward();
      assert.equal(x.grad, null);
      assertClose(await y.grad.toArray(), [2.5, 5]);
      assertClose(await out.toArray(), [7.5, -20]);
    });

    test("several outputs; an unused one's gradient is materialized as zeros", async () => {
      const x = torch.tensor([0.3, 1.2], { dtype: "float32" }).requires_grad_();
      const [s, c] = SinCos.apply(x);
      assert.equal(s.grad_fn.name, "SinCosBackward");
      s.sum().backward();
      assertClose(await x.grad.toArray(), [Math.cos(0.3), Math.cos(1.2)]);
      x.grad = null;
      const [s2, c2] = SinCos.apply(x);
      s2.add(c2).sum().backward();
      assertClose(await x.grad.toArray(), [
        Math.cos(0.3) - Math.sin(0.3),
        Math.cos(1.2) - Math.sin(1.2),
      ]);
      assert.ok(c.requires_grad);
    });

    test("double backward through a custom backward", async () => {
      const x = torch.tensor([1, -2], { dtype: "float32" }).requires_grad_();
      const [g] = torch.autograd.grad(Cube.apply(x).sum(), x, {
        create_graph: true,
      });
      assertClose(await g.toArray(), [3, 12]);
      const [g2] = torch.autograd.grad(g.sum(), x);
      assertClose(await g2.toArray(), [6, -12]);
    });

    test("a gradient of the output's shape is summed to a broadcast input's", async () => {
      const x = torch.ones(2, 3).requires_grad_();
      const b = torch.zeros(3).requires_grad_();
      AddRow.apply(x, b)
        .mul(torch.arange(6, { dtype: "float32" }).reshape([2, 3]))
        .sum()
        .backward();
      assertClose(await b.grad.toArray(), [3, 5, 7]);
      assert.deepEqual(x.grad.shape, [2, 3]);
    });

    test("mark_dirty rebases an in-place input; mark_non_differentiable", async () => {
      class Double_ extends Function {
        static forward(ctx, x) {
          x.mul_(2);
          ctx.mark_dirty(x);
          return x;
        }
        static backward(ctx, g) {
          return g.mul(2);
        }
      }
      const leaf = torch.tensor([1, 2], { dtype: "float32" }).requires_grad_();
      const a = leaf.mul(1);
      const r = Double_.apply(a);
      assert.equal(r, a);
      assert.equal(a.grad_fn.name, "Double_Backward");
      a.mul(a).sum().backward();
      // d/dleaf (2 leaf)² = 8 leaf
      assertClose(await leaf.grad.toArray(), [8, 16]);
      assert.throws(
        () => Double_.apply(leaf),
        /a leaf Variable that requires grad has been used in an in-place operation/,
      );

      class MaxWithIndex extends Function {
        static forward(ctx, x) {
          const i = x.argmax();
          const v = x.amax();
          ctx.mark_non_differentiable(v);
          return [v, i];
        }
        static backward() {
          return null;
        }
      }
      const [v, i] = MaxWithIndex.apply(torch.ones(3).requires_grad_());
      assert.equal(v.requires_grad, false);
      assert.equal(i.requires_grad, false);
    });

    test("errors: gradient count, shape, in-place change of a saved tensor", async () => {
      class TooFew extends Function {
        static forward(ctx, x, y) {
          return x.add(y);
        }
        static backward(ctx, g) {
          return [g];
        }
      }
      const x = torch.ones(2).requires_grad_();
      assert.throws(
        () => TooFew.apply(x, x).sum().backward(),
        /function TooFewBackward returned an incorrect number of gradients \(expected 2, got 1\)/,
      );
      class BadShape extends Function {
        static forward(ctx, x) {
          return x.sum();
        }
        static backward(ctx, g) {
          return torch.ones(5);
        }
      }
      assert.throws(
        () => BadShape.apply(x).backward(),
        /returned an invalid gradient at index 0 - got \[5\] but expected shape compatible with \[2\]/,
      );
      const a = x.mul(1);
      const y = Exp.apply(a);
      y.add_(1); // y was saved by Exp
      assert.throws(
        () => y.sum().backward(),
        /modified by an inplace operation/,
      );
      class NoBackward extends Function {
        static forward(ctx, x) {
          return x.mul(2);
        }
      }
      assert.throws(
        () => NoBackward.apply(x).sum().backward(),
        /You must implement either the backward or vjp method/,
      );
    });

    test("backward after the scope that ran forward closed", async () => {
      const x = torch.tensor([0, 1], { dtype: "float32" }).requires_grad_();
      const loss = torch.scope(() => Exp.apply(x.mul(2)).sum());
      loss.backward();
      assertClose(await x.grad.toArray(), [2, 2 * Math.exp(2)]);
    });
  });
}
