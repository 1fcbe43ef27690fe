/**
 * `torch.nn.functional`'s adaptive max pooling (`adaptive_max_pool1d`/`2d`/`3d`), composed from a
 * window mask and `amax`. The other poolings are core calls (ops/conv.ts).
 *
 * @module
 */

import { args } from "../../schema/index.js";
import { TorchError } from "../../errors.js";
import { checkHostAlloc, checkInts, pyTypeName } from "../../args.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { tensor } from "../../ops/creation.js";
import { where } from "../../ops/conditional.js";
import { shapeStr } from "./composition.js";

/** `mask[i][j]`: input position `j` lies in adaptive window `i` of `n` → `out` outputs. */
function adaptiveWindows(
  n: number,
  out: number,
  device: "webgpu" | "cpu",
): Tensor {
  // An out × n table, both sizes the caller's: checked against the budget (a byte each, plus
  // tensor's float64 copy) before it exists.
  checkHostAlloc("adaptive_max_pool", out * n, 1 + 8);
  const m = new Uint8Array(out * n);
  for (let i = 0; i < out; i++) {
    const start = Math.floor((i * n) / out);
    const end = Math.ceil(((i + 1) * n) / out);
    for (let j = start; j < end; j++) m[i * n + j] = 1;
  }
  return tensor(m, { dtype: "bool", device }).reshape([out, n]);
}

/** Max over adaptive windows of the last dim: `(…, n)` → `(…, out)`. */
function adaptiveMaxLast(x: Tensor, out: number): Tensor {
  const n = x.shape.at(-1)!;
  checkInts("adaptive_max_pool", "output_size", [out]);
  if (out < 0)
    throw new TorchError(
      `adaptive_max_pool: elements of output_size must be greater than or equal to 0 but received {${out}}`,
    );
  const mask = adaptiveWindows(n, out, x.device); // (out, n)
  // max(dim), not amax: PyTorch passes a tie's gradient to the window's first maximum.
  return where(mask, x.unsqueeze(-2), -Infinity).max(-1)[0];
}

/**
 * Max pooling to a fixed output length: window `i` of `L` inputs covers
 * `[⌊i·L/out⌋, ⌈(i+1)·L/out⌉)`, as in PyTorch. `(N, C, L)` or `(C, L)`.
 */
export function adaptive_max_pool1d(
  input: Tensor,
  output_size: number,
): Tensor {
  ({ input, output_size } = args(
    "nn.functional.adaptive_max_pool1d",
    arguments,
  ));
  if (input.ndim !== 2 && input.ndim !== 3)
    throw new TorchError(
      `adaptive_max_pool1d(): Expected 2D or 3D tensor, but got ${shapeStr(input)}`,
    );
  return scope(() => adaptiveMaxLast(input, output_size));
}

/**
 * Max pooling to a fixed `(out_h, out_w)` (a number for both; `null` keeps that input size),
 * over `(N, C, H, W)` or `(C, H, W)`. Max is separable: columns first, then rows.
 */
export function adaptive_max_pool2d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
): Tensor {
  ({ input, output_size } = args(
    "nn.functional.adaptive_max_pool2d",
    arguments,
  ));
  if (input.ndim !== 3 && input.ndim !== 4)
    throw new TorchError(
      `adaptive_max_pool2d(): Expected 3D or 4D tensor, but got ${shapeStr(input)}`,
    );
  if (typeof output_size !== "number" && !Array.isArray(output_size))
    throw new TorchError(
      `adaptive_max_pool2d(): argument 'output_size' must be tuple of ints, not ${pyTypeName(output_size)}`,
    );
  const [h, w] = input.shape.slice(-2) as [number, number];
  const [oh, ow] =
    typeof output_size === "number"
      ? [output_size, output_size]
      : [output_size[0] ?? h, output_size[1] ?? w];
  return scope(() => {
    const cols = adaptiveMaxLast(input, ow); // (…, H, ow)
    return adaptiveMaxLast(cols.transpose(-1, -2), oh).transpose(-1, -2);
  });
}

/**
 * Max pooling to a fixed `(out_d, out_h, out_w)` (a number for all three; `null` keeps that
 * input size), over `(N, C, D, H, W)` or `(C, D, H, W)`: the last dim, then the two before it.
 */
export function adaptive_max_pool3d(
  input: Tensor,
  output_size: number | readonly (number | null)[],
): Tensor {
  ({ input, output_size } = args(
    "nn.functional.adaptive_max_pool3d",
    arguments,
  ));
  if (input.ndim !== 4 && input.ndim !== 5)
    throw new TorchError(
      `adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: ${shapeStr(input)}`,
    );
  if (typeof output_size !== "number" && !Array.isArray(output_size))
    throw new TorchError(
      `adaptive_max_pool3d(): argument 'output_size' must be tuple of ints, not ${pyTypeName(output_size)}`,
    );
  const sizes = input.shape.slice(-3) as [number, number, number];
  const outs =
    typeof output_size === "number"
      ? [output_size, output_size, output_size]
      : sizes.map((s, i) => (output_size as (number | null)[])[i] ?? s);
  return scope(() => {
    let y = input;
    for (let d = 2; d >= 0; d--) {
      const dim = input.ndim - 3 + d;
      y = adaptiveMaxLast(y.transpose(dim, -1), outs[d]!).transpose(dim, -1);
    }
    return y;
  });
}
