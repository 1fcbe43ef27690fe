/**
 * `torch.nn.functional`'s linear functions: `linear` (`input @ weight.T + bias`) and `bilinear`.
 *
 * @module
 */

import { args } from "../../schema/index.js";
import { TorchError } from "../../errors.js";
import type { Tensor } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { shapeStr, temps } from "./composition.js";

/** `input @ weight.T + bias`. */
export function linear(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
): Tensor {
  ({ input, weight, bias } = args("nn.functional.linear", arguments));
  // Leading dims fold into rows: one 2-D matmul, whose weight gradient is a single
  // (out × in) product instead of a batch of them summed afterwards (a 3-D input of
  // (1024, 8, 768) would otherwise make a (1024, 768, 768) gradient batch).
  const fold = input.ndim > 2 && weight.ndim === 2;
  return temps((k) => {
    const x = fold ? k(input.reshape([-1, input.shape.at(-1)!])) : input;
    let y = x.matmul(k(weight.t()));
    if (bias) {
      k(y);
      y = y.add(bias);
    }
    if (!fold) return y;
    k(y);
    return y.reshape([...input.shape.slice(0, -1), weight.shape[0]!]);
  });
}

/**
 * `y = x1ᵀ A x2 + b` with `weight` `(out, in1, in2)`: `input1` `(*, in1)`, `input2` `(*, in2)`
 * → `(*, out)`.
 */
export function bilinear(
  input1: Tensor,
  input2: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
): Tensor {
  ({ input1, input2, weight, bias } = args(
    "nn.functional.bilinear",
    arguments,
  ));
  const [out, in1, in2] = weight.shape as number[];
  if (input1.shape.at(-1) !== in1 || input2.shape.at(-1) !== in2)
    throw new TorchError(
      `bilinear(): input sizes ${shapeStr(input1)} and ${shapeStr(input2)} do not match weight ${shapeStr(weight)}`,
    );
  const lead = input1.shape.slice(0, -1);
  return scope(() => {
    const a = input1.reshape([-1, in1!]);
    const b = input2.reshape([-1, in2!]);
    // (B, in1) @ (in1, out·in2) → (B, out, in2), then contract in2 with input2.
    const w = weight.permute(1, 0, 2).reshape([in1!, out! * in2!]);
    const t = a.matmul(w).reshape([-1, out!, in2!]);
    let y = t.mul(b.unsqueeze(1)).sum(2);
    if (bias) y = y.add(bias);
    return y.reshape([...lead, out!]);
  });
}
