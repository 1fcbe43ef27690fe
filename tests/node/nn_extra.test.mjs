// The nn additions of issue #32 against PyTorch (tests/parity/fixtures/train/nn_extra.json,
// written by tests/parity/nn_extra_gen.py), on WebGPU (when an adapter exists) and on the CPU
// backend: F.normalize, pixel_(un)shuffle, fold/unfold, grid_sample, affine_grid, 3-D
// convolution and pooling — outputs and input gradients; the new modules (Conv3d,
// ConvTranspose3d, BatchNorm3d, 3-D pooling, Upsample, PixelShuffle, Fold/Unfold, the padding
// modules) — PyTorch's state dict loaded strictly, outputs, input and parameter gradients;
// argument errors in PyTorch's words.
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
    new URL("../parity/fixtures/train/nn_extra.json", import.meta.url),
  ),
);

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

const make = (s, requires_grad = false) => {
  const t = torch.tensor(s.data, { dtype: s.dtype }).reshape(s.shape);
  return requires_grad ? t.requires_grad_() : t;
};

/** Each functional's positional arguments after its tensors; the rest go in the options. */
const POSITIONAL = {
  normalize: [],
  pixel_shuffle: ["upscale_factor"],
  pixel_unshuffle: ["downscale_factor"],
  unfold: ["kernel_size"],
  fold: ["output_size", "kernel_size"],
  grid_sample: [],
  affine_grid: ["size"],
  conv3d: [],
  conv_transpose3d: [],
  max_pool3d: ["kernel_size"],
  avg_pool3d: ["kernel_size"],
  adaptive_avg_pool3d: ["output_size"],
  adaptive_max_pool3d: ["output_size"],
  interpolate: [],
};

function callFunctional(c, xs) {
  const kw = { ...c.kwargs };
  const pos = POSITIONAL[c.fn].map((k) => {
    const v = kw[k];
    delete kw[k];
    return v;
  });
  return F[c.fn](...xs, ...pos, kw);
}

const r = (...s) => torch.randn(...s);
/** The calls of the generator's ERROR_CALLS, by the same names. */
const ERROR_CALLS = {
  "pixel_shuffle 2d": () => F.pixel_shuffle(r(4, 4), 2),
  "pixel_shuffle channels": () => F.pixel_shuffle(r(1, 5, 2, 2), 2),
  "pixel_shuffle factor 0": () => F.pixel_shuffle(r(1, 4, 2, 2), 0),
  "pixel_unshuffle height": () => F.pixel_unshuffle(r(1, 1, 3, 4), 2),
  "pixel_unshuffle width": () => F.pixel_unshuffle(r(1, 1, 4, 3), 2),
  "unfold 5d": () => F.unfold(r(1, 1, 2, 2, 2), 2),
  "unfold kernel too big": () => F.unfold(r(1, 1, 2, 2), 3),
  "unfold kernel 0": () => F.unfold(r(1, 1, 2, 2), 0),
  "unfold stride 0": () => F.unfold(r(1, 1, 2, 2), 1, { stride: 0 }),
  "unfold dilation 0": () => F.unfold(r(1, 1, 2, 2), 1, { dilation: 0 }),
  "unfold padding -1": () => F.unfold(r(1, 1, 2, 2), 1, { padding: -1 }),
  "fold 4d": () => F.fold(r(1, 4, 2, 2), [3, 3], 2),
  "fold channels": () => F.fold(r(1, 5, 4), [3, 3], 2),
  "fold blocks": () => F.fold(r(1, 4, 5), [3, 3], 2),
  "grid_sample grid last dim": () =>
    F.grid_sample(r(1, 1, 3, 3), r(1, 2, 2, 3), { align_corners: false }),
  "grid_sample batch": () =>
    F.grid_sample(r(1, 1, 3, 3), r(2, 2, 2, 2), { align_corners: false }),
  "grid_sample ndim": () =>
    F.grid_sample(r(1, 1, 3, 3), r(1, 2, 2), { align_corners: false }),
  "grid_sample mode": () =>
    F.grid_sample(r(1, 1, 3, 3), r(1, 2, 2, 2), { mode: "foo" }),
  "grid_sample padding_mode": () =>
    F.grid_sample(r(1, 1, 3, 3), r(1, 2, 2, 2), { padding_mode: "foo" }),
  "grid_sample 3d input": () =>
    F.grid_sample(r(1, 1, 3), r(1, 2, 1), { align_corners: false }),
  "affine_grid 2d theta": () => F.affine_grid(r(1, 3, 3), [1, 1, 4, 4]),
  "affine_grid 3d theta": () => F.affine_grid(r(1, 2, 3), [1, 1, 4, 4, 4]),
  "affine_grid size": () => F.affine_grid(r(1, 2, 3), [1, 1, 4]),
  "affine_grid int theta": () =>
    F.affine_grid(r(1, 2, 3).to("int64"), [1, 1, 4, 4]),
  "affine_grid batch": () => F.affine_grid(r(2, 2, 3), [1, 1, 4, 4]),
  "affine_grid zero size": () => F.affine_grid(r(1, 2, 3), [1, 1, 0, 4]),
  "adaptive_max_pool3d 2d": () => F.adaptive_max_pool3d(r(2, 3), 2),
  "BatchNorm3d 3d input": () => new nn.BatchNorm3d(2).call(r(2, 2, 3)),
  "ReflectionPad1d too big": () => new nn.ReflectionPad1d(3).call(r(1, 2, 3)),
};

/** The module cases whose printout is compared with PyTorch's (tuples given as arrays print as tuples here). */
const REPR = new Set([
  "Conv3d",
  "Conv3d no bias groups",
  "ConvTranspose3d",
  "MaxPool3d",
  "AdaptiveMaxPool3d",
  "Upsample nearest",
  "PixelShuffle",
  "PixelUnshuffle",
  "ZeroPad1d",
  "ZeroPad2d",
  "ZeroPad3d",
  "ConstantPad1d",
  "ConstantPad2d",
  "ConstantPad3d",
  "ReflectionPad1d",
  "ReflectionPad2d",
  "ReflectionPad3d",
  "ReplicationPad1d",
  "ReplicationPad2d",
  "ReplicationPad3d",
  "CircularPad1d",
  "CircularPad2d",
  "CircularPad3d",
]);

/** Module class → its constructor call from PyTorch's (args, kwargs). */
const ctor = (c) => new nn[c.cls](...c.args, c.kwargs);

for (const device of devices) {
  describe(`[${device}] nn.functional additions`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const c of FIX.functional) {
      test(`${c.name}: output and input gradients`, async () => {
        const xs = c.inputs.map((s) => make(s, true));
        const out = callFunctional(c, xs);
        assert.deepEqual(out.shape, c.out.shape);
        assertClose(await out.toArray(), c.out.data, 2e-4, "out");
        out.mul(torch.tensor(c.gout).reshape(c.out.shape)).sum().backward();
        for (let i = 0; i < xs.length; i++)
          assertClose(
            await xs[i].grad.toArray(),
            c.grads[i],
            2e-4,
            `grad ${i}`,
          );
      });
    }
  });

  describe(`[${device}] nn modules additions`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const c of FIX.modules) {
      test(`${c.name}: state dict, output, gradients`, async () => {
        const m = ctor(c);
        if (REPR.has(c.name)) assert.equal(String(m), c.repr);
        m.train(c.train);
        const state = Object.fromEntries(
          Object.entries(c.state).map(([k, s]) => [k, make(s)]),
        );
        assert.deepEqual(Object.keys(m.state_dict()), Object.keys(c.state));
        m.load_state_dict(state);
        const x = make(c.input, true);
        const out = m.call(x);
        assert.deepEqual(out.shape, c.out.shape);
        assertClose(await out.toArray(), c.out.data, 2e-4, "out");
        out.mul(torch.tensor(c.gout).reshape(c.out.shape)).sum().backward();
        assertClose(await x.grad.toArray(), c.grad_input, 2e-4, "grad x");
        for (const [k, p] of m.named_parameters())
          assertClose(await p.grad.toArray(), c.grads[k], 2e-4, k);
        for (const [k, s] of Object.entries(c.buffers_after ?? {}))
          assertClose(
            await m.state_dict()[k].toArray(),
            s.data,
            2e-4,
            `buffer ${k}`,
          );
      });
    }
  });

  describe(`[${device}] argument errors and containers`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const [name, message] of Object.entries(FIX.errors)) {
      test(`${name}: PyTorch's message`, () => {
        assert.throws(ERROR_CALLS[name], (e) => {
          assert.ok(e instanceof torch.TorchError, `${e?.name}: ${e?.message}`);
          assert.equal(e.message, message);
          return true;
        });
      });
    }

    test("ParameterList: PyTorch's keys, tensors made parameters, printout", async () => {
      const a = torch.randn(2);
      const l = new nn.ParameterList([new nn.Parameter(a), torch.zeros(2, 3)]);
      l.append(torch.ones(1));
      assert.equal(l.length, 3);
      assert.deepEqual(Object.keys(l.state_dict()), ["0", "1", "2"]);
      assert.ok(l.at(1) instanceof nn.Parameter);
      assert.equal(l.at(-1).requires_grad, true);
      assert.equal(l.parameters().length, 3);
      assert.equal(
        String(
          new nn.ParameterList([
            new nn.Parameter(torch.randn(2)),
            new nn.Parameter(torch.randn(2, 3)),
          ]),
        ),
        "ParameterList(\n    (0): Parameter containing: [torch.float32 of size 2]\n    (1): Parameter containing: [torch.float32 of size 2x3]\n)",
      );
      const net = new nn.Module();
      net.params = l;
      assert.deepEqual(Object.keys(net.state_dict()), [
        "params.0",
        "params.1",
        "params.2",
      ]);
      assert.throws(
        () => new nn.ParameterList(5),
        /ParameterList.extend should be called with an iterable, but got int/,
      );
    });

    test("ParameterDict: keys, update, printout, PyTorch's errors", () => {
      const d = new nn.ParameterDict({
        a: torch.randn(2),
        b: new nn.Parameter(torch.randn(2, 3)),
      });
      d.update([["c", torch.ones(1)]]);
      assert.deepEqual(d.keys(), ["a", "b", "c"]);
      assert.deepEqual(Object.keys(d.state_dict()), ["a", "b", "c"]);
      assert.ok(d.get("a") instanceof nn.Parameter);
      assert.equal(
        String(
          new nn.ParameterDict({
            a: new nn.Parameter(torch.randn(2)),
            b: new nn.Parameter(torch.randn(2, 3)),
          }),
        ),
        "ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 2]\n    (b): Parameter containing: [torch.FloatTensor of size 2x3]\n)",
      );
      assert.throws(() => d.get("zz"), /KeyError: 'zz'/);
      assert.throws(
        () => new nn.ParameterDict([1, "a"]),
        /ParameterDict update sequence element #0 should be Iterable; isint/,
      );
      assert.throws(
        () => new nn.ParameterDict([["a", torch.ones(1), 3]]),
        /ParameterDict update sequence element #0 has length 3; 2 is required/,
      );
    });
  });
}
