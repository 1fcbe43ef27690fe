// Autograd members, nn.Module bookkeeping, layers, init, losses and nn.utils — on WebGPU (when
// an adapter exists) and on the CPU backend. Values are checked against PyTorch's
// (tests/parity/fixtures/train/nn_functional.json, written by tests/parity/train_gen.py).
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { nn } = torch;
const F = nn.functional;
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/train/nn_functional.json", import.meta.url),
  ),
);

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`[${device}] autograd`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("requires_grad, grad, grad_fn, is_leaf, detach", async () => {
      const x = torch.tensor([1, 2, 3], { dtype: "float32" });
      assert.equal(x.requires_grad, false);
      assert.equal(x.requires_grad_(), x);
      assert.equal(x.requires_grad, true);
      assert.equal(x.is_leaf, true);
      assert.equal(x.grad, null);
      const y = x.mul(x).sum();
      assert.equal(y.grad_fn.name, "SumBackward0");
      assert.equal(y.is_leaf, false);
      y.backward();
      assert.deepEqual(await x.grad.tolist(), [2, 4, 6]);
      x.mul(3).sum().backward(); // accumulates
      assert.deepEqual(await x.grad.tolist(), [5, 7, 9]);
      const d = x.detach();
      assert.equal(d.requires_grad, false);
      assert.equal(d.grad_fn, null);
      x.grad = null;
      assert.equal(x.grad, null);
    });

    test("no_grad / enable_grad / inference_mode restore the mode (sync, async, throw)", async () => {
      const x = torch.ones(2).requires_grad_();
      assert.equal(torch.is_grad_enabled(), true);
      const y = torch.no_grad(() => x.mul(2));
      assert.equal(y.requires_grad, false);
      assert.equal(torch.is_grad_enabled(), true);
      const z = torch.no_grad(() => torch.enable_grad(() => x.mul(2)));
      assert.equal(z.requires_grad, true);
      await torch.no_grad(async () => {
        await Promise.resolve();
        assert.equal(torch.is_grad_enabled(), false);
      });
      assert.equal(torch.is_grad_enabled(), true);
      assert.throws(() =>
        torch.inference_mode(() => {
          throw new Error("boom");
        }),
      );
      assert.equal(torch.is_grad_enabled(), true);
    });

    test("autograd.grad with create_graph gives second derivatives", async () => {
      const x = torch.tensor([1, 2], { dtype: "float32" }).requires_grad_();
      const y = x.pow(3).sum();
      const [g] = torch.autograd.grad(y, x, { create_graph: true });
      assertClose(await g.toArray(), [3, 12]);
      const [g2] = torch.autograd.grad(g.sum(), [x]);
      assertClose(await g2.toArray(), [6, 12]);
      assert.equal(x.grad, null, "autograd.grad leaves .grad alone");
      const unused = torch.ones(1).requires_grad_();
      const r = torch.autograd.grad(x.sum(), [x, unused], {
        allow_unused: true,
      });
      assert.equal(r[1], null);
    });

    test("register_hook replaces the gradient; remove() disables it; retain_grad", async () => {
      const x = torch.ones(3).requires_grad_();
      const h = x.mul(2);
      h.retain_grad();
      const handle = x.register_hook((g) => g.mul(10));
      h.sum().backward({ retain_graph: true });
      assert.deepEqual(await x.grad.tolist(), [20, 20, 20]);
      assert.deepEqual(await h.grad.tolist(), [1, 1, 1]);
      handle.remove();
      x.grad = null;
      h.sum().backward();
      assert.deepEqual(await x.grad.tolist(), [2, 2, 2]);
    });

    test("in-place methods, and the leaf refusal outside no_grad", async () => {
      const t = torch.tensor([1, -2, 3], { dtype: "float32" });
      t.add_(1).mul_(2).sub_(torch.ones(3), { alpha: 2 });
      assert.deepEqual(await t.tolist(), [2, -4, 6]);
      t.clamp_(-1, 3);
      assert.deepEqual(await t.tolist(), [2, -1, 3]);
      t.abs_().neg_();
      assert.deepEqual(await t.tolist(), [-2, -1, -3]);
      t.copy_(torch.tensor([0.5]));
      assert.deepEqual(await t.tolist(), [0.5, 0.5, 0.5]);
      t.fill_(4).div_(2).pow_(3);
      assert.deepEqual(await t.tolist(), [8, 8, 8]);
      t.zero_();
      assert.deepEqual(await t.tolist(), [0, 0, 0]);
      const leaf = torch.ones(2).requires_grad_();
      assert.throws(() => leaf.add_(1), torch.TorchError);
      torch.no_grad(() => leaf.add_(1));
      assert.deepEqual(await leaf.tolist(), [2, 2]);
    });
  });

  describe(`[${device}] nn.Module`, () => {
    before(async () => {
      await torch.init({ device });
    });

    class Net extends nn.Module {
      fc1 = new nn.Linear(4, 3);
      layers = new nn.Sequential(new nn.ReLU(), new nn.Linear(3, 2, false));
      heads = new nn.ModuleList([new nn.Linear(2, 1)]);
      constructor() {
        super();
        this.register_buffer("steps", torch.zeros(1));
        this.register_buffer("cache", torch.zeros(2), false);
      }
      forward(x) {
        return this.heads.at(0).call(this.layers.call(this.fc1.call(x)));
      }
    }

    test("names, state_dict keys, buffers, children, train/eval, apply", () => {
      const net = new Net();
      assert.deepEqual(
        net.named_parameters().map(([n]) => n),
        [
          "fc1.weight",
          "fc1.bias",
          "layers.1.weight",
          "heads.0.weight",
          "heads.0.bias",
        ],
      );
      assert.deepEqual(Object.keys(net.state_dict()), [
        "steps",
        "fc1.weight",
        "fc1.bias",
        "layers.1.weight",
        "heads.0.weight",
        "heads.0.bias",
      ]);
      assert.deepEqual(
        net.named_buffers().map(([n]) => n),
        ["steps", "cache"],
      );
      assert.deepEqual(
        net.named_modules().map(([n]) => n),
        ["", "fc1", "layers", "layers.0", "layers.1", "heads", "heads.0"],
      );
      assert.equal(net.children().length, 3);
      assert.ok(
        net
          .parameters()
          .every((p) => p.requires_grad && p instanceof nn.Parameter),
      );
      net.eval();
      assert.ok(net.modules().every((m) => m.training === false));
      net.train();
      assert.ok(net.modules().every((m) => m.training === true));
      const seen = [];
      net.apply((m) => seen.push(m.constructor.name));
      assert.equal(seen.at(-1), "Net");
      assert.match(
        net.toString(),
        /\(fc1\): Linear\(in_features=4, out_features=3, bias=True\)/,
      );
    });

    test("forward hooks run through call(); zero_grad clears gradients", async () => {
      const net = new Net();
      const x = torch.randn(5, 4);
      let seen = null;
      const h = net.register_forward_hook((m, args, out) => {
        seen = out.shape;
        return out.mul(0);
      });
      const y = net.call(x);
      assert.deepEqual(seen, [5, 1]);
      assert.ok((await y.toArray()).every((v) => v === 0));
      h.remove();
      net.call(x).sum().backward();
      assert.ok(net.parameters().every((p) => p.grad !== null));
      net.zero_grad(false);
      assert.deepEqual(await net.fc1.bias.grad.tolist(), [0, 0, 0]);
      net.zero_grad();
      assert.ok(net.parameters().every((p) => p.grad === null));
    });

    test("load_state_dict: copies values; strict errors name keys and shapes", async () => {
      const a = new Net();
      const b = new Net();
      b.load_state_dict(a.state_dict());
      assert.deepEqual(
        await b.fc1.weight.tolist(),
        await a.fc1.weight.tolist(),
      );
      const sd = a.state_dict();
      delete sd["fc1.bias"];
      sd.extra = torch.ones(1);
      assert.throws(
        () => b.load_state_dict(sd),
        /Missing key\(s\) in state_dict: "fc1.bias"[\s\S]*Unexpected key\(s\) in state_dict: "extra"/,
      );
      const r = b.load_state_dict(sd, false);
      assert.deepEqual(r, {
        missing_keys: ["fc1.bias"],
        unexpected_keys: ["extra"],
      });
      const bad = a.state_dict();
      bad["fc1.weight"] = torch.zeros(2, 2);
      assert.throws(
        () => b.load_state_dict(bad),
        /size mismatch for fc1.weight: copying a param with shape torch.Size\(\[2, 2\]\) from checkpoint, the shape in current model is torch.Size\(\[3, 4\]\)/,
      );
    });

    test("ModuleDict and Sequential with names", () => {
      const d = new nn.ModuleDict({
        enc: new nn.Linear(2, 2),
        forward: new nn.Identity(),
      });
      assert.deepEqual(Object.keys(d.state_dict()), ["enc.weight", "enc.bias"]);
      assert.ok(
        d.get("forward") instanceof nn.Identity,
        "a key may shadow a method",
      );
      const s = new nn.Sequential({
        fc: new nn.Linear(2, 3),
        act: new nn.Tanh(),
      });
      assert.deepEqual(Object.keys(s.state_dict()), ["fc.weight", "fc.bias"]);
      assert.equal(s.length, 2);
    });
  });

  describe(`[${device}] layers and init`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("Linear is initialised as PyTorch's: U(±1/√in) for weight and bias", async () => {
      torch.manual_seed(0);
      const lin = new nn.Linear(64, 256);
      const bound = 1 / 8;
      const w = await lin.weight.toArray();
      const b = await lin.bias.toArray();
      assert.ok(
        w.every((v) => Math.abs(v) <= bound) &&
          b.every((v) => Math.abs(v) <= bound),
      );
      const std = Math.sqrt(w.reduce((s, v) => s + v * v, 0) / w.length);
      assert.ok(Math.abs(std - bound / Math.sqrt(3)) < 0.003, `std ${std}`);
    });

    test("nn.init: fans, gains, bounds, constants, seeded", async () => {
      assert.deepEqual(
        nn.init._calculate_fan_in_and_fan_out(torch.zeros(3, 4, 5)),
        [20, 15],
      );
      assert.throws(
        () => nn.init.xavier_uniform_(torch.zeros(3)),
        /fewer than 2 dimensions/,
      );
      assert.equal(nn.init.calculate_gain("relu"), Math.SQRT2);
      assert.equal(
        nn.init.calculate_gain("leaky_relu", Math.sqrt(5)),
        Math.sqrt(1 / 3),
      );
      const t = torch.zeros(100, 200);
      nn.init.xavier_uniform_(t);
      const a = Math.sqrt(6 / 300);
      const v = await t.toArray();
      assert.ok(v.every((x) => Math.abs(x) <= a));
      nn.init.kaiming_normal_(t, { mode: "fan_out", nonlinearity: "relu" });
      const k = await t.toArray();
      const std = Math.sqrt(k.reduce((s, x) => s + x * x, 0) / k.length);
      assert.ok(Math.abs(std - Math.sqrt(2 / 100)) < 0.005, `std ${std}`);
      nn.init.trunc_normal_(t, 0, 1, -0.5, 0.5);
      assert.ok((await t.toArray()).every((x) => Math.abs(x) <= 0.5));
      nn.init.constant_(t, 0.25);
      assert.ok((await t.toArray()).every((x) => x === 0.25));
      torch.manual_seed(7);
      const p = new nn.Parameter(torch.zeros(5));
      nn.init.normal_(p);
      torch.manual_seed(7);
      const q = torch.zeros(5);
      nn.init.normal_(q);
      assert.deepEqual(await p.tolist(), await q.tolist());
      assert.equal(p.requires_grad, true, "init keeps requires_grad");
    });

    test("init.orthogonal_: (semi-)orthogonal rows or columns, times gain", async () => {
      const eye = (n, g) =>
        Array.from({ length: n * n }, (_, i) =>
          i % (n + 1) === 0 ? g * g : 0,
        );
      const wide = nn.init.orthogonal_(torch.zeros(3, 5));
      assertClose(await wide.matmul(wide.t()).toArray(), eye(3, 1), 1e-5);
      const tall = nn.init.orthogonal_(torch.zeros(6, 2, 2), 2);
      const flat = tall.reshape([6, 4]);
      assertClose(await flat.t().matmul(flat).toArray(), eye(4, 2), 1e-5);
      assert.throws(
        () => nn.init.orthogonal_(torch.zeros(4)),
        /Only tensors with 2 or more dimensions are supported/,
      );
    });

    test("Dropout: training mask and scale, identity in eval", async () => {
      const d = new nn.Dropout(0.25);
      const x = torch.ones(4000);
      const y = await d.call(x).toArray();
      const kept = y.filter((v) => v !== 0);
      assert.ok(kept.every((v) => Math.abs(v - 4 / 3) < 1e-6));
      assert.ok(Math.abs(kept.length / 4000 - 0.75) < 0.05);
      d.eval();
      assert.deepEqual(await d.call(torch.ones(3)).tolist(), [1, 1, 1]);
    });

    test("Flatten, Unflatten, Identity, Embedding padding row", async () => {
      const x = torch.zeros(2, 3, 4);
      assert.deepEqual(new nn.Flatten().call(x).shape, [2, 12]);
      assert.deepEqual(new nn.Flatten(0).call(x).shape, [24]);
      assert.deepEqual(
        new nn.Unflatten(1, [3, 1]).call(torch.zeros(2, 3)).shape,
        [2, 3, 1],
      );
      assert.equal(new nn.Identity().call(x), x);
      const e = new nn.Embedding(5, 3, 2);
      const w = await e.weight.tolist();
      assert.ok(w[2].every((v) => v === 0));
    });

    for (const [name, c] of Object.entries(FIX.cases)) {
      test(`F parity with PyTorch: ${name}`, async () => {
        const I = Object.fromEntries(
          Object.entries(FIX.inputs).map(([k, v]) => [
            k,
            torch.tensor(Float32Array.from(v.data)).reshape(v.shape),
          ]),
        );
        const cls = torch.tensor(FIX.cls);
        const fns = {
          log_softmax: (a) => F.log_softmax(a, 1),
          softmax: (a) => F.softmax(a, 0),
          gelu_tanh: (a) => F.gelu(a, { approximate: "tanh" }),
          elu_2: (a) => F.elu(a, 2),
          celu_half: (a) => F.celu(a, 0.5),
          leaky_relu: (a) => F.leaky_relu(a, 0.2),
          hardtanh: (a) => F.hardtanh(a, -0.5, 0.7),
          softplus_beta: (a) => F.softplus(a, 2, 1),
          layer_norm: (a) => F.layer_norm(a, [5], I.ln_w, I.ln_b),
          rms_norm: (a) => F.rms_norm(a, [5], I.ln_w),
          mse_mean: (a) => F.mse_loss(a, I.t),
          mse_sum: (a) => F.mse_loss(a, I.t, "sum"),
          l1_none: (a) => F.l1_loss(a, I.t, "none"),
          smooth_l1: (a) => F.smooth_l1_loss(a, I.t, "mean", 0.5),
          cross_entropy: (a) => F.cross_entropy(a, cls),
          cross_entropy_weight_ignore: (a) =>
            F.cross_entropy(a, torch.tensor([1, -100, 4, 2]), { weight: I.cw }),
          cross_entropy_smooth: (a) =>
            F.cross_entropy(a, cls, { label_smoothing: 0.1 }),
          cross_entropy_smooth_weight: (a) =>
            F.cross_entropy(a, cls, { weight: I.cw, label_smoothing: 0.2 }),
          cross_entropy_probs: (a) => F.cross_entropy(a, F.softmax(I.t, 1)),
          cross_entropy_none: (a) =>
            F.cross_entropy(a, cls, { reduction: "none" }),
          nll_sum: (a) => F.nll_loss(a, cls, { reduction: "sum" }),
          bce: (a) => F.binary_cross_entropy(a, I.bt),
          bce_logits: (a) => F.binary_cross_entropy_with_logits(a, I.bt),
          bce_logits_pos_weight: (a) =>
            F.binary_cross_entropy_with_logits(a, I.bt, { pos_weight: I.cw }),
          embedding: (a) => F.embedding(torch.tensor(FIX.emb_idx), a),
          sdpa: (a) =>
            F.scaled_dot_product_attention(a.unsqueeze(0), I.sk, I.sv),
          sdpa_causal: (a) =>
            F.scaled_dot_product_attention(a.unsqueeze(0), I.sk, I.sv, {
              is_causal: true,
            }),
          sdpa_causal_fewer_keys: (a) =>
            F.scaled_dot_product_attention(
              a.unsqueeze(0),
              I.sk.narrow(1, 0, 3),
              I.sv.narrow(1, 0, 3),
              { is_causal: true },
            ),
          sdpa_causal_heads: (a) => {
            const q = a.reshape([2, 2, 5]);
            return F.scaled_dot_product_attention(q, q.flip([1]), q.mul(2), {
              is_causal: true,
            });
          },
          sdpa_float_mask_scale: (a) =>
            F.scaled_dot_product_attention(a.unsqueeze(0), I.sk, I.sv, {
              attn_mask: I.am,
              scale: 0.3,
            }),
          sdpa_bool_mask: (a) =>
            F.scaled_dot_product_attention(a.unsqueeze(0), I.sk, I.sv, {
              attn_mask: I.am.gt(-0.5).logical_or(torch.arange(6).eq(0)),
            }),
        };
        const a = I[c.input].clone().requires_grad_();
        const y = fns[name](a);
        assert.deepEqual([...y.shape], c.shape);
        const n = y.numel();
        const w = Array.from({ length: n }, (_, i) =>
          n === 1 ? -1 : -1 + (2 * i) / (n - 1),
        );
        y.mul(torch.tensor(Float32Array.from(w)).reshape(c.shape))
          .sum()
          .backward();
        assertClose(await y.toArray(), c.out, 1e-4, `${name} out`);
        assertClose(await a.grad.toArray(), c.grad, 1e-4, `${name} grad`);
      });
    }

    test("loss modules: reduction option", async () => {
      const x = torch.tensor([1, 2], { dtype: "float32" });
      const t = torch.tensor([0, 0], { dtype: "float32" });
      assert.equal(await new nn.MSELoss().call(x, t).item(), 2.5);
      assert.equal(
        await new nn.MSELoss({ reduction: "sum" }).call(x, t).item(),
        5,
      );
      assert.deepEqual(
        await new nn.L1Loss({ reduction: "none" }).call(x, t).tolist(),
        [1, 2],
      );
      const ce = new nn.CrossEntropyLoss({ label_smoothing: 0 });
      assertClose(
        [await ce.call(torch.zeros(2, 4), torch.tensor([1, 3])).item()],
        [Math.log(4)],
      );
    });
  });

  describe(`[${device}] nn.utils`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("clip_grad_norm_ scales gradients to max_norm and returns the old norm", async () => {
      const a = torch.zeros(2).requires_grad_();
      const b = torch.zeros(1).requires_grad_();
      a.grad = torch.tensor([3, 0], { dtype: "float32" });
      b.grad = torch.tensor([4], { dtype: "float32" });
      const n = nn.utils.clip_grad_norm_([a, b], 1);
      assertClose([await n.item()], [5]);
      assertClose(await a.grad.toArray(), [0.6, 0]);
      assertClose(await b.grad.toArray(), [0.8]);
      const m = nn.utils.clip_grad_norm_([a, b], 1, Infinity);
      assertClose([await m.item()], [0.8]);
      nn.utils.clip_grad_value_([a, b], 0.7);
      assertClose(await b.grad.toArray(), [0.7]);
    });

    test("parameters_to_vector / vector_to_parameters", async () => {
      const lin = new nn.Linear(2, 2);
      const v = nn.utils.parameters_to_vector(lin.parameters());
      assert.deepEqual(v.shape, [6]);
      nn.utils.vector_to_parameters(
        torch.arange(6, { dtype: "float32" }),
        lin.parameters(),
      );
      assert.deepEqual(await lin.weight.tolist(), [
        [0, 1],
        [2, 3],
      ]);
      assert.deepEqual(await lin.bias.tolist(), [4, 5]);
    });
  });
}

test("pooling layers compute what their functional forms (checked against PyTorch) compute", async () => {
  const x2 = torch.randn(2, 3, 9, 8);
  const x1 = torch.randn(2, 3, 11);
  const cases = [
    [
      new torch.nn.MaxPool2d(3, { stride: 2, padding: 1 }),
      F.max_pool2d(x2, 3, 2, 1),
      x2,
    ],
    [
      new torch.nn.MaxPool1d(2, { dilation: 2, ceil_mode: true }),
      F.max_pool1d(x1, 2, null, 0, 2, true),
      x1,
    ],
    [
      new torch.nn.AvgPool2d([2, 3], { count_include_pad: false, padding: 1 }),
      F.avg_pool2d(x2, [2, 3], null, 1, false, false),
      x2,
    ],
    [new torch.nn.AvgPool1d(3, { stride: 1 }), F.avg_pool1d(x1, 3, 1), x1],
  ];
  for (const [layer, want, x] of cases) {
    const got = layer.forward(x);
    assert.deepEqual(got.shape, want.shape, layer.constructor.name);
    assert.deepEqual(
      Array.from(await got.toArray()),
      Array.from(await want.toArray()),
      layer.constructor.name,
    );
  }
});
