/**
 * `torch.nn.functional`'s linear functions: `linear` (`input @ weight.T + bias`) and `bilinear`.
 *
 * @module
 */

import { args } from "../../schema/index.js";
import { cTypeName, scalarTypeName } from "../../dtype.js";
import { DTypeError, ShapeError, TorchError } from "../../errors.js";
import { type Tensor, wrapDim } from "../../tensor/tensor.js";
import { scope } from "../../lifetime.js";
import { shapeStr, temps } from "./composition.js";

/** `input @ weight.T + bias`. */
export function linear(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
): Tensor {
  ({ input, weight, bias } = args("nn.functional.linear", arguments));
  if (input.ndim === 0 || weight.ndim === 0)
    throw new TorchError(
      `both arguments to linear need to be at least 1D, but they are ${input.ndim}D and ${weight.ndim}D`,
    );
  if (bias && weight.ndim === 2) checkAddmm(input, weight, bias);
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
 * PyTorch computes a linear layer with a bias as `addmm(bias, input rows, weight.T)`, and its
 * errors are addmm's: the dtypes first, then the inner sizes, then the bias against the result.
 */
function checkAddmm(input: Tensor, weight: Tensor, bias: Tensor): void {
  const name = (t: Tensor): string => scalarTypeName(t.dtype);
  if (input.dtype !== weight.dtype)
    throw new DTypeError(
      `mat1 and mat2 must have the same dtype, but got ${name(input)} and ${name(weight)}`,
    );
  if (bias.dtype !== weight.dtype)
    throw new DTypeError(
      `self and mat2 must have the same dtype, but got ${name(bias)} and ${name(weight)}`,
    );
  const [out, k] = weight.shape as [number, number];
  const rows = input.shape.slice(0, -1).reduce((a, b) => a * b, 1);
  if (input.shape.at(-1) !== k)
    throw new ShapeError(
      `addmm: mat1 and mat2 shapes cannot be multiplied (${rows}x${input.shape.at(-1)} and ${k}x${out})`,
    );
  // The bias must expand to the (rows, out) result: expand's own error otherwise.
  bias.expand([rows, out]).dispose();
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
  checkBilinear(input1, input2, weight, bias ?? null);
  const [out, in1, in2] = weight.shape as number[];
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

/** PyTorch's checks of `bilinear`'s operands, in its order and words. */
function checkBilinear(
  input1: Tensor,
  input2: Tensor,
  weight: Tensor,
  bias: Tensor | null,
): void {
  const ctype = (t: Tensor): string => cTypeName(t.dtype);
  const all = [input1, input2, weight, ...(bias ? [bias] : [])];
  if (all.some((t) => t.dtype !== input1.dtype))
    throw new DTypeError(
      `All tensors must have the same dtype, got input1: ${ctype(input1)}, input2: ${ctype(input2)}, weight: ${ctype(weight)}${bias ? `, bias: ${ctype(bias)}` : ""}`,
    );
  if (input1.ndim !== input2.ndim)
    throw new TorchError(
      `bilinear(): input dimensions do not match: got ${input1.ndim} and ${input2.ndim}`,
    );
  for (let i = 0; i < input1.ndim - 1; i++)
    if (input1.shape[i] !== input2.shape[i])
      throw new TorchError(
        `bilinear(): input batch dimensions do not match at dim ${i}: got ${input1.shape[i]} and ${input2.shape[i]}`,
      );
  // PyTorch reads weight.size(1), then weight.size(2): a weight of fewer dims fails there.
  if (input1.shape.at(-1) !== weight.shape[wrapDim(1, weight.ndim)])
    throw new TorchError(
      `bilinear(): input1 size does not match weight size: got ${input1.shape.at(-1)} but expected ${weight.shape[1]}`,
    );
  if (input2.shape.at(-1) !== weight.shape[wrapDim(2, weight.ndim)])
    throw new TorchError(
      `bilinear(): input2 size does not match weight size: got ${input2.shape.at(-1)} but expected ${weight.shape[2]}`,
    );
  if (bias && bias.shape.at(-1) !== weight.shape[0])
    throw new TorchError(
      `bilinear(): bias size does not match weight size: got ${bias.shape.at(-1)} but expected ${weight.shape[0]}`,
    );
  if (weight.ndim > 3)
    throw new TorchError(
      `bilinear(): weight must be 3-D (out_features, in1_features, in2_features), got shape ${shapeStr(weight)}`,
    );
}
