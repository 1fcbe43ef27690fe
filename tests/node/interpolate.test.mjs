// F.interpolate's refusals where PyTorch's CPU resampling kernels misbehave (docs/dtypes.md,
// "Refusals"): a width-1 output whose height changes, through PyTorch's generic separable kernel
// (antialias of floats; uint8 of more than 4 channels), returns its first output row repeated down
// the height; uint8 of 3 channels to a 1×1 output fails an internal assert. The shapes next to
// them, which PyTorch computes correctly, are parity fixtures (interpolate/sweep_*width1*).
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;

const u8 = (...shape) =>
  torch
    .arange(
      shape.reduce((a, b) => a * b),
      { dtype: "int32" },
    )
    .remainder(256)
    .to("uint8")
    .reshape(shape);

const REPEATED =
  /PyTorch's CPU kernel returns its first output row repeated there/;

test("antialias to a width of 1 with a new height is refused", () => {
  for (const mode of ["bilinear", "bicubic"])
    for (const [shape, size] of [
      [
        [1, 2, 8, 5],
        [3, 1],
      ],
      [
        [1, 1, 6, 1],
        [9, 1],
      ],
    ])
      assert.throws(
        () =>
          F.interpolate(torch.randn(...shape), { size, mode, antialias: true }),
        (e) => e instanceof torch.TorchError && REPEATED.test(e.message),
        `${mode} ${shape} -> ${size}`,
      );
});

test("uint8 of more than 4 channels to a width of 1 with a new height is refused", () => {
  for (const mode of ["bilinear", "bicubic"])
    for (const antialias of [false, true])
      assert.throws(
        () => F.interpolate(u8(1, 5, 7, 4), { size: [3, 1], mode, antialias }),
        (e) => e instanceof torch.TorchError && REPEATED.test(e.message),
        `${mode} antialias=${antialias}`,
      );
});

test("uint8 of 3 channels to 1×1 is refused", () => {
  for (const mode of ["bilinear", "bicubic"])
    assert.throws(
      () => F.interpolate(u8(1, 3, 4, 6), { size: [1, 1], mode }),
      (e) =>
        e instanceof torch.TorchError &&
        /fails an internal assert/.test(e.message),
      mode,
    );
});

test("a width of 1 that PyTorch computes correctly is not refused", () => {
  // One output row (nothing to repeat), an unchanged height, uint8 of 4 channels.
  assert.deepEqual(
    F.interpolate(torch.randn(1, 2, 8, 5), {
      size: [1, 1],
      mode: "bilinear",
      antialias: true,
    }).shape,
    [1, 2, 1, 1],
  );
  assert.deepEqual(
    F.interpolate(u8(1, 5, 7, 4), { size: [7, 1], mode: "bicubic" }).shape,
    [1, 5, 7, 1],
  );
  assert.deepEqual(
    F.interpolate(u8(1, 4, 7, 4), { size: [3, 1], mode: "bilinear" }).shape,
    [1, 4, 3, 1],
  );
});
