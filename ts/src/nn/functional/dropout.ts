/**
 * `torch.nn.functional.dropout`: zeroes elements at random while training (the channel-wise
 * dropouts are modules, nn/activations.ts).
 *
 * @module
 */

import { args } from "../../schema/index.js";
import { TorchError } from "../../errors.js";
import type { Tensor } from "../../tensor/tensor.js";
import { rand } from "../../ops/creation.js";
import { temps } from "./composition.js";
import type { DType } from "../../dtype.js";
import type { Dims } from "../../shapes.js";

/**
 * Zeroes each element with probability `p` and scales the rest by `1/(1-p)` (training only).
 * The mask comes from `torch.rand` (seeded by `torch.manual_seed`; not PyTorch's stream).
 */
export function dropout<S extends Dims, D extends DType>(
  input: Tensor<S, D>,
  p?: number,
  training?: boolean,
): Tensor<S, D>;
export function dropout(input: Tensor, p?: number, training?: boolean): Tensor {
  ({ input, p, training } = args("nn.functional.dropout", arguments));
  if (p < 0 || p > 1)
    throw new TorchError(
      `dropout probability has to be between 0 and 1, but got ${p}`,
    );
  if (!training || p === 0) return input;
  if (p === 1) return input.mul(0);
  return temps((k) => {
    const u = k(rand([...input.shape], { device: input.device }));
    const keep = k(k(u.ge(p)).to("float32"));
    return input.mul(k(keep.mul(1 / (1 - p))));
  });
}
