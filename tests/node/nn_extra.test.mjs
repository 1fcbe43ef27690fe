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
}
